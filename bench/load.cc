// bench-load: a load generator on our client library, for rpsum-server and anything else that
// speaks rpsum.v1 (the Python comparison server).
//
//   closed   --concurrency N clients, each sends its next request when the last one answers
//   open     --rate R requests/s at fixed intervals, whatever the answers; latency counts from
//            the scheduled send time, so a backed-up server cannot hide its queue (no
//            coordinated omission); --max_inflight bounds the generator's threads
//   compare  each document to --target and --compare_target in turn; reports whether both
//            selected the same sentences (and the largest score difference)
//   http_vs_grpc  the first document alternately over gRPC (--target) and HTTP/JSON
//            (--http_target) of one server, one request at a time: latency of each and the
//            median of the paired differences (what HTTP adds)
//
// Bounded by --requests and --duration_s (whichever comes first). Documents come from a corpus
// file (default: the test split; real lengths) or one --doc_file. Writes one JSON object
// (stdout, or --json_out): throughput (documents/s, tokens/s), latency p50/p90/p99, errors by
// gRPC code, server stage timings (model time and end-to-end minus model time), and, with
// --metrics, the batch size distribution the server's Prometheus metrics saw in the run.
#include <arpa/inet.h>
#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "model/document.h"
#include "nlohmann/json.hpp"
#include "train/corpus.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "server address");
ABSL_FLAG(std::string, compare_target, "", "compare mode: the second server");
ABSL_FLAG(std::string, mode, "closed", "closed, open, compare or http_vs_grpc");
ABSL_FLAG(std::string, http_target, "",
          "http_vs_grpc mode: the same server's HTTP address (its --metrics_listen)");
ABSL_FLAG(int, concurrency, 1, "closed loop: concurrent clients");
ABSL_FLAG(double, rate, 1, "open loop: requests per second");
ABSL_FLAG(int, max_inflight, 256, "open loop: requests in flight at most");
ABSL_FLAG(int, requests, 100, "requests at most (after warm-up)");
ABSL_FLAG(double, duration_s, 120, "seconds at most");
ABSL_FLAG(int, warmup, 2, "requests sent (and not counted) before measuring");
ABSL_FLAG(std::string, corpus, "../shared/data/corpus/test.jsonl.gz", "documents (jsonl[.gz])");
ABSL_FLAG(std::string, doc_file, "", "use this one document instead of the corpus");
ABSL_FLAG(int, docs, 0, "use the first N corpus documents (0: all that qualify)");
ABSL_FLAG(int, max_doc_words, 6000, "skip corpus documents longer than this");
ABSL_FLAG(int, max_words, 100, "summary budget per request");
ABSL_FLAG(double, deadline_s, 600, "per-request deadline");
ABSL_FLAG(std::string, metrics, "", "host:port of the server's /metrics (batch sizes)");
ABSL_FLAG(std::string, label, "", "name of this run in the JSON");
ABSL_FLAG(std::string, json_out, "", "write the JSON here instead of stdout");

namespace rpsum::bench {
namespace {

using nlohmann::json;

struct Sample {
  double latency_ms = 0;
  double server_total_ms = 0;
  double inference_ms = 0;
  int64_t tokens = 0;
  std::string code = "OK";
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

// GET http://host:port/metrics; empty on any failure.
std::string Scrape(const std::string& hostport) {
  const size_t colon = hostport.rfind(':');
  if (colon == std::string::npos) return "";
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(hostport.substr(0, colon).c_str(), hostport.substr(colon + 1).c_str(), &hints,
                  &res) != 0) {
    return "";
  }
  const int fd = socket(res->ai_family, res->ai_socktype, 0);
  std::string out;
  if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
    const std::string req = "GET /metrics HTTP/1.0\r\nHost: " + hostport + "\r\n\r\n";
    if (write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[65536];
      for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, n);
    }
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(res);
  const size_t body = out.find("\r\n\r\n");
  return body == std::string::npos ? "" : out.substr(body + 4);
}

// Cumulative bucket counts of one histogram ("le" -> count), plus _sum and _count.
std::map<std::string, double> Histogram(const std::string& text, const std::string& name) {
  std::map<std::string, double> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    double v = 0;
    const size_t space = line.rfind(' ');
    if (space == absl::string_view::npos || !absl::SimpleAtod(line.substr(space + 1), &v)) continue;
    const std::string head(line.substr(0, space));
    if (absl::StartsWith(head, name + "_bucket{le=\"")) {
      out[head.substr(name.size() + 12, head.size() - name.size() - 14)] = v;
    } else if (head == name + "_sum" || head == name + "_count") {
      out[head.substr(name.size() + 1)] = v;
    }
  }
  return out;
}

// The documents of the run: --doc_file, or the corpus's up to --max_doc_words words (--docs).
absl::StatusOr<std::vector<std::string>> LoadDocuments() {
  std::vector<std::string> docs;
  if (!absl::GetFlag(FLAGS_doc_file).empty()) {
    auto d = train::ReadMaybeGzip(absl::GetFlag(FLAGS_doc_file));
    if (!d.ok()) return d.status();
    docs.push_back(*std::move(d));
    return docs;
  }
  auto records = train::ReadCorpus(absl::GetFlag(FLAGS_corpus));
  if (!records.ok()) return records.status();
  const size_t limit = static_cast<size_t>(std::max(0, absl::GetFlag(FLAGS_docs)));
  for (const auto& r : *records) {
    if (model::CountWords(r.document) > absl::GetFlag(FLAGS_max_doc_words)) continue;
    docs.push_back(r.document);
    if (limit > 0 && docs.size() >= limit) break;
  }
  if (docs.empty()) return absl::NotFoundError("no documents within --max_doc_words");
  return docs;
}

// compare mode: each document to both servers; same selection, and the score difference.
json Compare(client::Client& a_client, client::Client& b_client,
             const std::vector<std::string>& docs, const client::SummarizeOptions& so) {
  int same = 0, differ = 0, failed = 0;
  double max_score_diff = 0;
  json mismatches = json::array();
  const int n = std::min<int>(static_cast<int>(docs.size()), absl::GetFlag(FLAGS_requests));
  for (int i = 0; i < n; ++i) {
    auto a = a_client.Summarize(docs[i], so);
    auto b = b_client.Summarize(docs[i], so);
    if (!a.ok() || !b.ok()) {
      ++failed;
      continue;
    }
    std::vector<uint32_t> ia, ib;
    for (const auto& s : a->sentences()) ia.push_back(s.index());
    for (const auto& s : b->sentences()) ib.push_back(s.index());
    if (ia != ib) {
      ++differ;
      mismatches.push_back({{"doc", i}, {"a", ia}, {"b", ib}});
      continue;
    }
    ++same;
    for (int j = 0; j < a->sentences_size(); ++j) {
      max_score_diff = std::max<double>(
          max_score_diff, std::abs(a->sentences(j).score() - b->sentences(j).score()));
    }
  }
  return {{"compared", n},
          {"same_selection", same},
          {"different_selection", differ},
          {"failed", failed},
          {"max_score_diff_when_same", max_score_diff},
          {"mismatches", mismatches}};
}

// Sends the requests of a closed (`threads` clients) or open (--rate) loop, bounded by
// --requests and --duration_s; one Sample per answered request.
std::vector<Sample> Drive(client::Client& client, const std::vector<std::string>& docs,
                          const client::SummarizeOptions& so, bool open, int threads,
                          double* seconds) {
  const int max_requests = absl::GetFlag(FLAGS_requests);
  const absl::Duration max_duration = absl::Seconds(absl::GetFlag(FLAGS_duration_s));
  const double rate = absl::GetFlag(FLAGS_rate);
  std::atomic<int> next{0};
  std::mutex mu;
  std::vector<Sample> samples;
  const absl::Time start = absl::Now();
  auto one = [&](int i, absl::Time scheduled) {
    const auto r = client.Summarize(docs[static_cast<size_t>(i) % docs.size()], so);
    Sample s;
    s.latency_ms = absl::ToDoubleMilliseconds(absl::Now() - scheduled);
    s.code = absl::StatusCodeToString(r.status().code());
    if (r.ok()) {
      s.server_total_ms = static_cast<double>(r->timings().total_us()) / 1e3;
      s.inference_ms = static_cast<double>(r->timings().inference_us()) / 1e3;
      s.tokens = r->input_tokens();
    }
    std::lock_guard<std::mutex> l(mu);
    samples.push_back(s);
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      while (true) {
        const int i = next.fetch_add(1);
        if (i >= max_requests) return;
        absl::Time when = absl::Now();
        if (open) {
          when = start + absl::Seconds(static_cast<double>(i) / rate);
          if (when - start >= max_duration) return;
          absl::SleepFor(when - absl::Now());
        } else if (absl::Now() - start >= max_duration) {
          return;
        }
        one(i, when);
      }
    });
  }
  for (auto& t : pool) t.join();
  *seconds = absl::ToDoubleSeconds(absl::Now() - start);
  return samples;
}

// Throughput, latency percentiles (only where there are enough samples), codes, stage times.
json Summarize(const std::vector<Sample>& samples, double seconds) {
  std::vector<double> lat, server, model, overhead;
  std::map<std::string, int> codes;
  int64_t tokens = 0;
  int ok = 0;
  for (const Sample& s : samples) {
    ++codes[s.code];
    if (s.code != "OK") continue;
    ++ok;
    lat.push_back(s.latency_ms);
    server.push_back(s.server_total_ms);
    model.push_back(s.inference_ms);
    overhead.push_back(s.latency_ms - s.inference_ms);
    tokens += s.tokens;
  }
  // A percentile needs samples past it to differ from the maximum: p90 from 20 samples, p99
  // from 200; with fewer it is null (reported as "-"), never a maximum under another name.
  auto at_least = [&](double p, size_t n) -> json {
    return lat.size() >= n ? json(Percentile(lat, p)) : json(nullptr);
  };
  return {{"requests", samples.size()},
          {"ok", ok},
          {"codes", codes},
          {"seconds", seconds},
          {"docs_per_s", ok / seconds},
          {"tokens_per_s", static_cast<double>(tokens) / seconds},
          {"latency_ms",
           {{"p50", Percentile(lat, 50)},
            {"p90", at_least(90, 20)},
            {"p99", at_least(99, 200)},
            {"max", Percentile(lat, 100)}}},
          {"server_total_ms_p50", Percentile(server, 50)},
          {"model_ms_p50", Percentile(model, 50)},
          {"latency_minus_model_ms_p50", Percentile(overhead, 50)}};
}

// The run's batch sizes: the server's rpsum_batch_size histogram after minus before.
json BatchSizes(const std::string& before, const std::string& after) {
  const auto b = Histogram(before, "rpsum_batch_size");
  const auto a = Histogram(after, "rpsum_batch_size");
  json dist = json::object();
  for (const auto& [le, v] : a) {
    const auto it = b.find(le);
    dist[le] = v - (it == b.end() ? 0 : it->second);
  }
  return dist;
}

// http_vs_grpc mode: --requests pairs, gRPC then HTTP on the same document, one at a time.
json HttpVsGrpc(client::Client& grpc_client, const std::string& doc,
                const client::SummarizeOptions& so) {
  const std::string target = absl::GetFlag(FLAGS_http_target);
  const size_t colon = target.rfind(':');
  httplib::Client http(target.substr(0, colon), std::stoi(target.substr(colon + 1)));
  http.set_keep_alive(true);
  http.set_tcp_nodelay(true);  // as curl and gRPC do
  const std::string path = "/v1/summarize?max_words=" + std::to_string(so.max_words);
  std::vector<double> g, h, diff;
  int failed = 0;
  for (int i = -absl::GetFlag(FLAGS_warmup); i < absl::GetFlag(FLAGS_requests); ++i) {
    const absl::Time t0 = absl::Now();
    const auto a = grpc_client.Summarize(doc, so);
    const absl::Time t1 = absl::Now();
    const auto b = http.Post(path, doc, "text/plain");
    const absl::Time t2 = absl::Now();
    if (!a.ok() || !b || b->status != 200) {
      ++failed;
      continue;
    }
    if (i < 0) continue;  // warm-up
    g.push_back(absl::ToDoubleMilliseconds(t1 - t0));
    h.push_back(absl::ToDoubleMilliseconds(t2 - t1));
    diff.push_back(h.back() - g.back());
  }
  auto pct = [](const std::vector<double>& v, double p, size_t n) -> json {
    return v.size() >= n ? json(Percentile(v, p)) : json(nullptr);
  };
  return {{"pairs", g.size()},
          {"failed", failed},
          {"grpc_ms", {{"p50", Percentile(g, 50)}, {"p90", pct(g, 90, 20)}}},
          {"http_ms", {{"p50", Percentile(h, 50)}, {"p90", pct(h, 90, 20)}}},
          {"http_minus_grpc_ms_p50", Percentile(diff, 50)}};
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "bench-load: %s\n", s.ToString().c_str());
  return 2;
}

int Run() {
  auto docs = LoadDocuments();
  if (!docs.ok()) return Fail(docs.status());
  client::ClientOptions co;
  co.target = absl::GetFlag(FLAGS_target);
  co.max_attempts = 1;  // count every refusal; no retries
  co.deadline = absl::Seconds(absl::GetFlag(FLAGS_deadline_s));
  auto client = client::Client::Create(co);
  if (!client.ok()) return Fail(client.status());
  client::SummarizeOptions so;
  so.max_words = static_cast<uint32_t>(absl::GetFlag(FLAGS_max_words));
  const std::string mode = absl::GetFlag(FLAGS_mode);

  json out;
  out["label"] = absl::GetFlag(FLAGS_label);
  out["mode"] = mode;
  out["target"] = co.target;
  out["documents"] = docs->size();
  if (mode == "http_vs_grpc") {
    out.update(HttpVsGrpc(**client, docs->front(), so));
  } else if (mode == "compare") {
    client::ClientOptions o2 = co;
    o2.target = absl::GetFlag(FLAGS_compare_target);
    auto other = client::Client::Create(o2);
    if (!other.ok()) return Fail(other.status());
    out.update(Compare(**client, **other, *docs, so));
  } else {
    for (int i = 0; i < absl::GetFlag(FLAGS_warmup); ++i) {
      (void)(*client)->Summarize((*docs)[static_cast<size_t>(i) % docs->size()], so);
    }
    const std::string metrics = absl::GetFlag(FLAGS_metrics);
    const std::string before = metrics.empty() ? "" : Scrape(metrics);
    const bool open = mode == "open";
    const int threads =
        open ? absl::GetFlag(FLAGS_max_inflight) : std::max(1, absl::GetFlag(FLAGS_concurrency));
    double seconds = 0;
    const std::vector<Sample> samples = Drive(**client, *docs, so, open, threads, &seconds);
    out["concurrency"] = open ? 0 : threads;
    out["rate"] = open ? absl::GetFlag(FLAGS_rate) : 0;
    out.update(Summarize(samples, seconds));
    if (!before.empty()) {
      const json dist = BatchSizes(before, Scrape(metrics));
      out["batch_size"] = dist;
      const double count = dist.value("count", 0.0);
      out["batch_size_mean"] = count > 0 ? dist.value("sum", 0.0) / count : 0.0;
    }
  }
  const std::string text = out.dump(1);
  if (absl::GetFlag(FLAGS_json_out).empty()) {
    std::printf("%s\n", text.c_str());
  } else {
    std::ofstream(absl::GetFlag(FLAGS_json_out)) << text << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace rpsum::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  try {
    return rpsum::bench::Run();
  } catch (const std::exception& e) {  // nlohmann::json or the standard library
    std::fprintf(stderr, "bench-load: %s\n", e.what());
    return 2;
  }
}
