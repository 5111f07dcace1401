#!/usr/bin/python3
"""Reliability tests against the real rpsum-server binary on the shipped model, over loopback.

usage: soak.py BUILD_DIR SOURCE_DIR SCENARIO [--seconds N]
  soak      mixed traffic from many concurrent clients for --seconds (default 600; the gate runs
            a short one): real documents plus invalid UTF-8, oversized, empty and bad-option
            requests, random client cancellations and short deadlines. Asserts: the server never
            dies; every request gets exactly one answer, with the status class its kind allows;
            the server's request counter matches what was sent; live heap bytes (the allocator's
            count) at idle after the measured round within 1 MiB of idle after warm-up (RSS
            keeps the high-water mark, so it is printed, not asserted; oversized requests join
            in a last round, see soak());
            queue gauges return to 0; no fd leak; SIGTERM then exits 0.
  lifecycle a second server on a taken port exits at once (no SO_REUSEPORT); SIGTERM under
            load drains (every accepted request answered OK, the rest UNAVAILABLE, exit 0
            within the drain timeout); SIGKILL, then a restart on the same
            ports comes back ready with no manual step.
  overload  measures the sustainable rate and the unloaded latency on a server without
            admission limits (so that no limit can refuse its own baseline), then offers 3x that
            rate to a server with --max_queue_wait_ms: it sheds with RESOURCE_EXHAUSTED carrying
            a retry-after-ms hint, admitted requests keep p90 within 2.5x the unloaded p90
            (the policy aims at 1.5x), and it recovers when the load stops.
Exit 0: pass; 1: fail (each failed check printed, or a missing input named). Every server a
scenario starts dies with it, whatever way it ends (SIGKILL from a timeout included).
Debian python3-grpcio only.
"""
import atexit
import ctypes
import gzip
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import grpc
from grpc_tools import protoc

BUILD, SRC, SCENARIO = sys.argv[1], sys.argv[2], sys.argv[3]
SECONDS = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv else 600
MODEL = os.path.join(SRC, "models", "rpsum-ext")
CORPUS = os.path.join(SRC, "..", "shared", "data", "corpus", "test.jsonl.gz")
for need in (os.path.join(MODEL, "config.json"), CORPUS):
    if not os.path.exists(need):
        print(f"FAIL: {need} is missing (the shipped model and ../shared/data are inputs of "
              f"this test)")
        sys.exit(1)

sys.path.insert(0, os.path.join(SRC, "tests", "e2e"))
import free_ports  # noqa: E402

# Ports of this run's servers: base + 0..11 (a server takes 3; others start at + 4 and + 8).
PORT_BASE = free_ports.block(12, random.SystemRandom())

gen = tempfile.mkdtemp(prefix="rpsum-soak-proto-")
protoc.main(["protoc", f"-I{SRC}/proto", f"--python_out={gen}", f"--grpc_python_out={gen}",
             f"{SRC}/proto/rpsum/v1/summarizer.proto"])
sys.path.insert(0, gen)
from rpsum.v1 import summarizer_pb2 as pb  # noqa: E402
from rpsum.v1 import summarizer_pb2_grpc as pb_grpc  # noqa: E402

FAILURES = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def documents(limit=30, max_words=2500):
    docs = []
    with gzip.open(CORPUS, "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)["document"]
            if len(d.split()) <= max_words:
                docs.append(d.encode())
            if len(docs) >= limit:
                break
    if len(docs) < limit:
        print(f"FAIL: {CORPUS} has {len(docs)} documents of <= {max_words} words, {limit} needed")
        sys.exit(1)
    return docs


SERVERS = []  # every server started, killed at exit if still running


@atexit.register
def _kill_servers():
    for s in SERVERS:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


def _die_with_parent():
    """In the child before exec: SIGKILL it when this test process dies, however it dies."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Server:
    def __init__(self, extra=(), port=None):
        self.port = port or PORT_BASE
        self.api, self.health, self.metrics = (f"127.0.0.1:{self.port + i}" for i in range(3))
        self.log = tempfile.NamedTemporaryFile(prefix="rpsum-soak-", suffix=".log", delete=False)
        env = dict(os.environ)
        self.proc = subprocess.Popen(
            [os.path.join(BUILD, "server", "rpsum-server"), f"--model_dir={MODEL}",
             f"--listen={self.api}", f"--health_listen={self.health}",
             f"--metrics_listen={self.metrics}", "--threads=2", "--drain_timeout_s=30", *extra],
            stdout=self.log, stderr=subprocess.STDOUT, env=env, preexec_fn=_die_with_parent)
        SERVERS.append(self)
        self.channel = grpc.insecure_channel(self.api, options=[
            ("grpc.max_send_message_length", 16 << 20)])
        self.stub = pb_grpc.SummarizerStub(self.channel)

    def wait_ready(self, timeout=120):
        client = os.path.join(BUILD, "client", "rpsum")
        r = subprocess.run([client, "health", "--server", self.health, "--wait", str(timeout)],
                           capture_output=True)
        return r.returncode == 0

    def scrape(self):
        text = urllib.request.urlopen(f"http://{self.metrics}/metrics", timeout=5).read().decode()
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                out[name] = float(value)
        return out

    def rss_kb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def fds(self):
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def stop(self, sig=signal.SIGTERM, timeout=60):
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None

    def log_text(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()


def summarize(server, doc=None, timeout=60.0, **fields):
    req = pb.SummarizeRequest(document=doc, max_words=60, **fields)
    return server.stub.Summarize(req, timeout=timeout)


def requests_total(m, method="Summarize"):
    return sum(v for k, v in m.items()
               if k.startswith("rpsum_requests_total{") and f'method="{method}"' in k)


# ---- soak ----
# The soak server has no admission limit that 12 clients can reach (256 queued requests), so a
# good request has exactly one right answer.
ALLOWED = {
    "good": {"OK"},
    "invalid_utf8": {"INVALID_ARGUMENT"},
    "empty": {"INVALID_ARGUMENT"},
    "huge": {"INVALID_ARGUMENT", "RESOURCE_EXHAUSTED"},  # ours, or gRPC's message size limit
    "bad_option": {"INVALID_ARGUMENT"},
    "cancel": {"OK", "CANCELLED"},
    "short_deadline": {"OK", "DEADLINE_EXCEEDED"},
}


# Live heap bytes the server may gain between two idle moments, whatever it served in between
# (new gRPC threads and their thread-local state): a leak of 2 KB per request fails the gate's
# 40 s soak (about 550 requests in the measured round).
HEAP_SLACK_BYTES = 1 << 20


def soak():
    docs = documents()
    # 6 MiB > max_document_bytes, set to 5 MiB here: the server's default (32 MiB) takes a
    # 2,000-page document, which the soak's mix would then summarize again and again.
    huge = b"word " * ((6 << 20) // 5)
    s = Server(extra=[f"--max_document_bytes={5 << 20}"])
    check(s.wait_ready(), "server ready")
    results = {}  # kind -> {code: count}
    lock = threading.Lock()
    answers = [0]
    sent = [0]
    violations = []
    rng = random.Random(1)

    def one(kind, rnd):
        doc = rnd.choice(docs)
        try:
            if kind == "good":
                summarize(s, doc)
            elif kind == "invalid_utf8":
                # Declared UTF-8: undeclared, such bytes are read in a detected encoding.
                summarize(s, doc[:200] + b"\xff\xfe" + doc[200:400],
                          content_type="text/plain; charset=utf-8")
            elif kind == "empty":
                summarize(s, b"")
            elif kind == "huge":
                summarize(s, huge)
            elif kind == "bad_option":
                s.stub.Summarize(pb.SummarizeRequest(document=doc, ratio=1.5), timeout=60)
            elif kind == "cancel":
                fut = s.stub.Summarize.future(pb.SummarizeRequest(document=doc, max_words=60),
                                              timeout=60)
                time.sleep(rnd.uniform(0, 0.3))
                fut.cancel()
                fut.result()
            elif kind == "short_deadline":
                summarize(s, doc, timeout=rnd.uniform(0.001, 0.2))
            code = "OK"
        except grpc.FutureCancelledError:
            code = "CANCELLED"
        except grpc.RpcError as e:
            code = e.code().name
        with lock:
            answers[0] += 1
            results.setdefault(kind, {}).setdefault(code, 0)
            results[kind][code] += 1
            if code not in ALLOWED[kind]:
                violations.append((kind, code))

    kinds = (["good"] * 10 + ["invalid_utf8", "empty", "bad_option", "cancel", "cancel",
                              "short_deadline", "short_deadline"])

    def client(seed, until, kinds):
        rnd = random.Random(seed)
        while time.time() < until:
            kind = rnd.choice(kinds)
            with lock:
                sent[0] += 1
            one(kind, rnd)

    def traffic(seconds, kinds):
        """12 clients for `seconds`; then waits until the server is idle again."""
        until = time.time() + seconds
        threads = [threading.Thread(target=client, args=(rng.random(), until, kinds))
                   for _ in range(12)]
        for t in threads:
            t.start()
        peak = 0
        while any(t.is_alive() for t in threads) and s.proc.poll() is None:
            peak = max(peak, s.rss_kb())
            time.sleep(1)
        for t in threads:
            t.join()
        # Cancelled work still finishing leaves the queue; then the heap settles.
        deadline = time.time() + 30
        while s.proc.poll() is None and time.time() < deadline:
            m = s.scrape()
            if all(m.get(g, -1) == 0 for g in ("rpsum_queue_requests", "rpsum_running_requests")):
                break
            time.sleep(0.2)
        time.sleep(1.5)
        return peak

    before = s.scrape()
    # Warm-up, the measured round, then a round with oversized (6 MiB) requests added. Memory
    # is compared between the idle moments after the first two: RSS keeps the heap's
    # high-water mark (a late burst of long documents raised it 268 -> 283 MB in one 40 s run
    # and failed a check on it), while the allocator's count of live bytes
    # (rpsum_heap_allocated_bytes, docs/design.md "Metrics") comes back within a few KB unless
    # something leaks. Oversized requests come last because after them gRPC holds up to ~7 MiB
    # more live heap, which later traffic releases only gradually (measured 2026-12-04: 60.4 to
    # 66.1 MiB at eight idle moments with them throughout, the same byte count at every idle
    # moment without them): it would hide a leak in the measured round.
    warm_seconds = min(60, SECONDS * 0.25)
    hostile_seconds = SECONDS * 0.2
    traffic(warm_seconds, kinds)
    warm = s.scrape()
    rss_warm, fds_warm = s.rss_kb(), s.fds()
    rss_peak = traffic(SECONDS - warm_seconds - hostile_seconds, kinds)
    measured = s.scrape()
    rss_measured = s.rss_kb()
    rss_peak = max(rss_peak, traffic(hostile_seconds, kinds + ["huge"]))
    check(s.proc.poll() is None, "the server never died")
    after = s.scrape()
    rss_end, fds_end = s.rss_kb(), s.fds()
    print(json.dumps(results, sort_keys=True))
    check(answers[0] == sent[0], f"every request got exactly one answer ({answers[0]} of {sent[0]})")
    check(not violations, f"every answer has its kind's status class ({violations[:5]})")
    served = requests_total(after) - requests_total(before)
    cancelled = sum(results.get("cancel", {}).values())
    check(sent[0] - cancelled <= served <= sent[0],
          f"the server answered what arrived: {served:.0f} counted, {sent[0]} sent "
          f"({cancelled} cancelled by clients)")
    heap_warm, heap_measured = (m.get("rpsum_heap_allocated_bytes", -1) for m in (warm, measured))
    growth = heap_measured - heap_warm
    check(heap_warm > 0 and growth < HEAP_SLACK_BYTES,
          f"no heap growth between idle moments: {heap_warm / 2**20:.3f} -> "
          f"{heap_measured / 2**20:.3f} MiB live over "
          f"{requests_total(measured) - requests_total(warm):.0f} requests "
          f"(< {HEAP_SLACK_BYTES >> 20} MiB; RSS {rss_warm // 1024} -> {rss_measured // 1024} MiB, "
          f"{rss_end // 1024} at the end, peak {rss_peak // 1024} MiB: not asserted, it keeps "
          f"the peak)")
    for g in ("rpsum_queue_requests", "rpsum_queue_cost_tokens", "rpsum_running_requests"):
        check(after.get(g, -1) == 0, f"{g} back to 0 (is {after.get(g)})")
    check(fds_end <= fds_warm + 2, f"no fd leak: {fds_warm} fds after warm-up, {fds_end} at the end")
    good = results.get("good", {})
    ok = good.get("OK", 0)
    check(ok > 0 and ok == sum(good.values()),
          f"every good request succeeded: {ok} of {sum(good.values())} over {SECONDS:.0f} s")
    rc = s.stop()
    check(rc == 0, f"SIGTERM: exit code {rc}")


# ---- lifecycle ----
def lifecycle():
    docs = documents(limit=8)
    s = Server()
    check(s.wait_ready(), "server ready")
    # A second server whose health port another server holds must refuse to start (no
    # SO_REUSEPORT), not share it: probes would otherwise reach either process at random (its
    # other ports are free, so nothing else stops it).
    dup = Server(extra=[f"--health_listen={s.health}"], port=s.port + 8)
    try:
        rc = dup.proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        rc = None
        dup.proc.kill()
    check(rc == 2 and "cannot listen" in dup.log_text(),
          f"a second server on a taken health port exits 2 with 'cannot listen' (exit {rc})")
    codes = []
    lock = threading.Lock()

    def send(doc):
        try:
            summarize(s, doc, timeout=120)
            code = "OK"
        except grpc.RpcError as e:
            code = e.code().name
        with lock:
            codes.append(code)

    threads = [threading.Thread(target=send, args=(docs[i % len(docs)],)) for i in range(16)]
    for t in threads:
        t.start()
    time.sleep(0.5)  # all 16 accepted and queued; the first ones are running
    t0 = time.time()
    s.proc.send_signal(signal.SIGTERM)
    late = None
    time.sleep(0.2)
    try:
        summarize(s, docs[0], timeout=10)
        late = "OK"
    except grpc.RpcError as e:
        late = e.code().name
    for t in threads:
        t.join()
    rc = s.proc.wait(timeout=60)
    took = time.time() - t0
    check(late == "UNAVAILABLE", f"a request after SIGTERM gets UNAVAILABLE ({late})")
    check(codes.count("OK") == 16, f"every accepted request answered OK: {sorted(codes)}")
    check(rc == 0 and took < 30, f"exit code {rc} {took:.1f} s after SIGTERM (drain timeout 30 s)")
    check("drained (0 requests unanswered)" in s.log_text(), "drain message: nothing unanswered")

    # SIGKILL, then restart on the same ports: ready again, serving, no manual step.
    s2 = Server(port=s.port)
    check(s2.wait_ready(), "started again on the same ports")
    fut = s2.stub.Summarize.future(pb.SummarizeRequest(document=docs[0], max_words=60))
    time.sleep(0.1)
    s2.proc.send_signal(signal.SIGKILL)
    s2.proc.wait()
    try:
        fut.result(timeout=30)
    except grpc.RpcError:
        pass
    s3 = Server(port=s.port)
    t0 = time.time()
    ready = s3.wait_ready()
    check(ready, f"after SIGKILL a restart is ready in {time.time() - t0:.1f} s")
    try:
        r = summarize(s3, docs[1])
        check(len(r.sentences) > 0, "and summarizes")
    except grpc.RpcError as e:
        check(False, f"summarize after restart: {e.code().name}")
    check(s3.stop() == 0, "clean exit")


# ---- overload ----
def pct(sorted_values, q):
    """The q-quantile (nearest rank) of sorted values."""
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def overload():
    docs = documents(limit=12, max_words=1200)

    def closed(server, n, what):
        """n requests one after another; returns their sorted latencies. Any failure fails the
        scenario with its status: an unloaded client must always be served."""
        lat = []
        for i in range(n):
            t = time.time()
            try:
                summarize(server, docs[i % len(docs)])
            except grpc.RpcError as e:
                check(False, f"{what}: request {i + 1} of {n} unloaded: {e.code().name} "
                             f"{e.details()}")
                continue
            lat.append(time.time() - t)
        return sorted(lat) or [float("inf")]

    # The baseline comes from a server without admission limits, so that no limit of the server
    # under test can refuse it. The limit then follows the service time on this machine (half
    # the unloaded p50): a fixed number of milliseconds would be a different policy on a faster
    # model or a busier machine.
    probe = Server()
    check(probe.wait_ready(), "baseline server ready (no admission limits)")
    closed(probe, 3, "warm-up")
    base = closed(probe, 60, "baseline")
    check(probe.stop() == 0, "baseline server clean exit")
    p50_unloaded, p90_unloaded = pct(base, 0.5), pct(base, 0.9)
    rate = len(base) / sum(base)  # sustainable, one at a time
    print(f"unloaded (60 requests): {rate:.2f} requests/s, p50 {1000 * p50_unloaded:.0f} ms, "
          f"p90 {1000 * p90_unloaded:.0f} ms")
    wait_ms = max(20, int(500 * p50_unloaded))
    s = Server(extra=[f"--max_queue_wait_ms={wait_ms}"], port=probe.port + 4)
    check(s.wait_ready(), f"server ready (max_queue_wait_ms={wait_ms}: half the unloaded p50)")
    closed(s, 3, "warm-up under the limit")

    offered = 3 * rate
    duration = min(max(20.0, SECONDS), 120.0)
    results = []
    lock = threading.Lock()
    hints = []

    def one(i, at):
        delay = at - time.time()
        if delay > 0:
            time.sleep(delay)
        t = time.time()
        try:
            s.stub.Summarize.with_call(
                pb.SummarizeRequest(document=docs[i % len(docs)], max_words=60), timeout=60)
            code = "OK"
        except grpc.RpcError as e:
            code = e.code().name
            if code == "RESOURCE_EXHAUSTED":
                md = dict(e.trailing_metadata() or ())
                with lock:
                    hints.append(md.get("retry-after-ms"))
        with lock:
            results.append((code, time.time() - t))

    start = time.time() + 0.2
    threads = []
    n = int(offered * duration)
    for i in range(n):
        at = start + i / offered
        th = threading.Thread(target=one, args=(i, at))
        th.start()
        threads.append(th)
    for th in threads:
        th.join()
    admitted = sorted(lat for code, lat in results if code == "OK")
    shed = [c for c, _ in results if c == "RESOURCE_EXHAUSTED"]
    other = [c for c, _ in results if c not in ("OK", "RESOURCE_EXHAUSTED")]
    p90 = pct(admitted, 0.9) if admitted else float("inf")
    print(f"offered {offered:.2f}/s for {duration:.0f} s: {len(admitted)} admitted, {len(shed)} "
          f"shed, other {other[:5]}; admitted p50 {1000 * pct(admitted or [0], 0.5):.0f} ms, "
          f"p90 {1000 * p90:.0f} ms")
    check(len(shed) > 0, f"sheds with RESOURCE_EXHAUSTED at 3x ({len(shed)} of {len(results)})")
    check(all(h is not None and int(h) > 0 for h in hints),
          f"every shed answer carries retry-after-ms ({hints[:3]}...)")
    check(not other, f"no other failures ({other[:5]})")
    check(len(admitted) >= 30, f"enough admitted requests for a p90 ({len(admitted)} >= 30)")
    check(p90 <= 2.5 * p90_unloaded,
          f"admitted p90 {1000 * p90:.0f} ms <= 2.5x unloaded p90 {1000 * p90_unloaded:.0f} ms "
          f"(ratio {p90 / p90_unloaded:.2f})")
    time.sleep(2)
    after = closed(s, 10, "after the load")
    check(pct(after, 0.5) <= 2 * p50_unloaded,
          f"recovered: after the load, p50 {1000 * pct(after, 0.5):.0f} ms <= 2x unloaded p50")
    m = s.scrape()
    check(m.get("rpsum_queue_requests") == 0, "queue empty after the load")
    check(s.stop() == 0, "clean exit")


# ---- security ----
def security():
    """What docs/security.md reports: each try, the status observed, the server still up."""
    tmp = tempfile.mkdtemp(prefix="rpsum-sec-")
    token = "s3cret-" + "x" * 40
    with open(os.path.join(tmp, "token"), "w") as f:
        f.write(token + "\n")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", f"{tmp}/key.pem", "-out", f"{tmp}/cert.pem"],
                   check=True, capture_output=True)
    # A 5 MiB document limit, so that a 7 MiB message is over it (the default is 32 MiB).
    s = Server(extra=[f"--auth_token_file={tmp}/token", f"--max_document_bytes={5 << 20}"])
    check(s.wait_ready(), "server ready (token required)")
    doc = documents(limit=1)[0][:3000]
    rows = []

    def attempt(what, metadata=None, req=None, stub=None):
        t = time.perf_counter()
        try:
            (stub or s.stub).Summarize(req or pb.SummarizeRequest(document=doc, max_words=30),
                                       timeout=30, metadata=metadata)
            code = "OK"
        except grpc.RpcError as e:
            code = e.code().name
        rows.append((what, code))
        return code, time.perf_counter() - t

    check(attempt("no token")[0] == "UNAUTHENTICATED", "no token: UNAUTHENTICATED")
    check(attempt("wrong token", [("authorization", "Bearer wrong")])[0] == "UNAUTHENTICATED",
          "wrong token: UNAUTHENTICATED")
    check(attempt("token without Bearer", [("authorization", token)])[0] == "UNAUTHENTICATED",
          "token without 'Bearer ': UNAUTHENTICATED")
    check(attempt("right token", [("authorization", "Bearer " + token)])[0] == "OK",
          "right token: OK")
    code, _ = attempt("oversized metadata (64 KiB header)",
                      [("authorization", "Bearer " + token), ("x-big", "a" * 65536)])
    check(code in ("RESOURCE_EXHAUSTED", "INTERNAL", "UNAVAILABLE"),
          f"64 KiB metadata refused ({code})")
    code, _ = attempt("oversized message (7 MiB document)", [("authorization", "Bearer " + token)],
                      pb.SummarizeRequest(document=b"word " * ((7 << 20) // 5), max_words=30))
    # gRPC refuses the message while it arrives: the client sees RESOURCE_EXHAUSTED or, when
    # the stream is reset before the status reaches it, UNAVAILABLE; either way no work is done.
    check(code in ("RESOURCE_EXHAUSTED", "INVALID_ARGUMENT", "UNAVAILABLE"),
          f"7 MiB message refused ({code})")
    # Reflection (schema only) answers without a token: list the services by raw bytes
    # (ServerReflectionRequest.list_services = "").
    refl = s.channel.stream_stream(
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        request_serializer=lambda b: b, response_deserializer=lambda b: b)
    try:
        resp = b"".join(refl(iter([b"\x3a\x00"]), timeout=10))
        code = "OK (lists " + ", ".join(
            n for n in ("rpsum.v1.Summarizer", "grpc.health.v1.Health") if n.encode() in resp) + ")"
    except grpc.RpcError as e:
        code = e.code().name
    rows.append(("reflection without a token", code))
    check(code.startswith("OK"), f"reflection: {code} (schema only; no document data)")
    code = "OK"
    try:
        s.stub.GetModelInfo(pb.GetModelInfoRequest(), timeout=10)
    except grpc.RpcError as e:
        code = e.code().name
    rows.append(("GetModelInfo without a token", code))
    check(code == "UNAUTHENTICATED", f"GetModelInfo without a token: {code}")
    check(s.proc.poll() is None, "server alive after every try")
    s.stop()
    # TLS port: a plaintext client gets no service.
    t = Server(extra=[f"--tls_cert={tmp}/cert.pem", f"--tls_key={tmp}/key.pem"],
               port=s.port + 8)
    check(t.wait_ready(), "TLS server ready")
    code, _ = attempt("plaintext client to the TLS port", stub=t.stub)
    check(code == "UNAVAILABLE", f"plaintext to TLS: {code}")
    creds = grpc.ssl_channel_credentials(open(f"{tmp}/cert.pem", "rb").read())
    tls_stub = pb_grpc.SummarizerStub(grpc.secure_channel(t.api, creds))
    code, _ = attempt("TLS client with the server's CA", stub=tls_stub)
    check(code == "OK", f"TLS client: {code}")
    check(t.proc.poll() is None, "TLS server alive after the plaintext try")
    check(t.stop() == 0, "clean exit")
    print("\n| what was tried | observed |\n| --- | --- |")
    for what, code in rows:
        print(f"| {what} | {code} |")


if __name__ == "__main__":
    {"soak": soak, "lifecycle": lifecycle, "overload": overload, "security": security}[SCENARIO]()
    if FAILURES:
        print(f"FAILED: {len(FAILURES)} checks")
        sys.exit(1)
    print(f"PASS: {SCENARIO}")
