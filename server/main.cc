// rpsum-server: serves rpsum.v1.Summarizer over gRPC from a checkpoint, with the standard
// health service (NOT_SERVING until the model is loaded and warmed up, and again while
// draining) and reflection, plus Prometheus metrics on their own port. SIGTERM or SIGINT
// drains: health goes NOT_SERVING, new requests get UNAVAILABLE, in-flight work finishes
// within --drain_timeout, what is still queued gets UNAVAILABLE, and the process exits 0.
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "base/files.h"
#include "model/summarizer.h"
#include "server/http.h"
#include "server/metrics.h"
#include "server/scheduler/scheduler.h"
#include "server/service.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "API address (host:port); use 0.0.0.0:50051 to serve other machines");
ABSL_FLAG(std::string, health_listen, "127.0.0.1:50052",
          "health-only gRPC address (no auth), for probes; empty: none");
ABSL_FLAG(std::string, metrics_listen, "127.0.0.1:9464",
          "HTTP address: /metrics, /healthz, /readyz and the HTTP/JSON API (/v1/...); "
          "empty: none");
ABSL_FLAG(bool, request_log, false,
          "one JSON line per request on stderr: request id, method, protocol, status, bytes in, "
          "tokens, k, queue and model time (never the text)");
ABSL_FLAG(int, http_threads, 16, "HTTP connections served at once (each has read timeouts)");
ABSL_FLAG(std::string, model_dir, "models/rpsum-ext", "checkpoint directory");
ABSL_FLAG(std::string, device, "auto",
          "auto, cpu, cuda or cuda:N; cuda (and auto with GPUs) spreads the --workers over the "
          "GPUs round-robin, worker i on cuda:(i mod GPUs)");
ABSL_FLAG(int, threads, 0, "LibTorch intra-op threads (0: one per core)");
ABSL_FLAG(int, workers, 1, "inference workers (each holds its own copy of the model)");
ABSL_FLAG(int, large_workers, 1,
          "inference workers for large documents (over --large_document_bytes, or of at least "
          "--large_document_tokens), each with its own copy of the model, at the lowest CPU "
          "priority; the --workers then run only the others, so a long forward never holds them "
          "(0: every worker runs every request)");
ABSL_FLAG(int, large_threads, 0,
          "LibTorch intra-op threads of each --large_workers worker (0: as --threads)");
ABSL_FLAG(int, large_threads_beside_small,
          rpsum::server::SchedulerOptions{}.large_threads_beside_small,
          "intra-op threads a --large_workers worker uses while small requests are about (queued, "
          "running, or one finished in the last second), set before its forward and between a "
          "long document's stretches (0: always --large_threads)");
ABSL_FLAG(int64_t, large_document_tokens, rpsum::server::ServiceOptions{}.large_document_tokens,
          "documents of at least this many tokens run on the --large_workers");
ABSL_FLAG(int64_t, stretch_tokens, rpsum::model::kServedStretches.tokens,
          "a longer document runs through the token layers this many tokens at a time (with the "
          "halo their windows reach, so its scores are the whole forward's): the model's memory "
          "per request stops growing past it; 0: whole documents");
ABSL_FLAG(int64_t, stretch_units, rpsum::model::kServedStretches.units,
          "the same for the unit layers, in units; 0: whole documents");
ABSL_FLAG(int, prepare_threads, 2, "threads that split and tokenize documents");
ABSL_FLAG(int, large_prepare_threads, 1,
          "threads that prepare documents over --large_document_bytes (0: the same threads)");
ABSL_FLAG(uint64_t, large_document_bytes, 256u << 10,
          "documents of more bytes are prepared on the large-document threads");
ABSL_FLAG(int, small_read_budget_ms, 100,
          "a smaller document still being read after this long (a PDF drawing far more than its "
          "bytes) is read again on the large-document threads");
ABSL_FLAG(int, max_batch_size, 0,
          "requests per batch at most (1: no batching; 0: 1 on CPU, 8 on CUDA; on CPU batching "
          "costs throughput, see docs/benchmarks.md)");
ABSL_FLAG(int, max_queue_delay_ms, 5, "longest a request waits for others to batch with");
ABSL_FLAG(int, max_queue_requests, 256, "queued requests at most (then RESOURCE_EXHAUSTED)");
ABSL_FLAG(int64_t, max_queue_cost, 64 << 20, "queued cost units at most");
ABSL_FLAG(int64_t, max_queue_memory_bytes, rpsum::server::SchedulerOptions{}.max_queue_memory,
          "bytes the queued requests' documents may hold at most (as sent, as read and as "
          "prepared; Estimate's queued_bytes), then RESOURCE_EXHAUSTED");
ABSL_FLAG(int, max_queue_wait_ms, 0,
          "refuse new requests (RESOURCE_EXHAUSTED) when the work ahead (queued, plus the rest of "
          "the running batch) is predicted to take longer than this; 0: no time cap");
ABSL_FLAG(int64_t, max_batch_cost, 1 << 20, "cost units per batch at most (padded)");
ABSL_FLAG(uint64_t, max_document_bytes, rpsum::server::ServiceOptions{}.max_document_bytes,
          "largest document accepted, in bytes");
ABSL_FLAG(int64_t, max_input_tokens, rpsum::server::ServiceOptions{}.max_input_tokens,
          "tokens per request at most (see truncation)");
ABSL_FLAG(int64_t, max_sentences, rpsum::server::ServiceOptions{}.max_sentences,
          "sentences per request at most (see truncation)");
ABSL_FLAG(int, max_pdf_pages, rpsum::formats::ExtractLimits{}.max_pdf_pages,
          "pages of a PDF document at most");
ABSL_FLAG(uint64_t, max_extracted_bytes, rpsum::formats::ExtractLimits{}.max_text_bytes,
          "text extracted from a Markdown, HTML, PDF, DOCX, ODT or EPUB document at most, in "
          "bytes");
ABSL_FLAG(uint64_t, max_unpacked_bytes, 64u << 20,
          "bytes a DOCX, ODT or EPUB package may inflate to at most (a zip bomb stops here)");
ABSL_FLAG(std::string, tls_cert, "", "server certificate chain (PEM); with --tls_key enables TLS");
ABSL_FLAG(std::string, tls_key, "", "server private key (PEM)");
ABSL_FLAG(std::string, tls_client_ca, "",
          "CA (PEM) that client certificates must chain to "
          "(mutual TLS); empty: no client certificates");
ABSL_FLAG(std::string, auth_token_file, "",
          "file holding the bearer token the API requires; "
          "empty: no token");
ABSL_FLAG(int, drain_timeout_s, 30, "seconds in-flight work may take after SIGTERM");
ABSL_FLAG(bool, warmup, true, "run and time a few synthetic documents before serving");

namespace rpsum::server {
namespace {

constexpr char kVersion[] = RPSUM_VERSION;  // project(VERSION) in CMakeLists.txt
// Health service name that only says "the process answers".
constexpr char kLiveness[] = "liveness";

std::shared_ptr<grpc::ServerCredentials> Credentials(bool* tls) {
  *tls = false;
  if (absl::GetFlag(FLAGS_tls_cert).empty() && absl::GetFlag(FLAGS_tls_key).empty()) {
    return grpc::InsecureServerCredentials();
  }
  auto cert = ReadFile(absl::GetFlag(FLAGS_tls_cert));
  auto key = ReadFile(absl::GetFlag(FLAGS_tls_key));
  if (!cert.ok() || !key.ok()) {
    std::fprintf(stderr, "rpsum-server: --tls_cert and --tls_key must both be readable\n");
    std::exit(2);
  }
  grpc::SslServerCredentialsOptions o;
  o.pem_key_cert_pairs.push_back({*key, *cert});
  if (!absl::GetFlag(FLAGS_tls_client_ca).empty()) {
    auto ca = ReadFile(absl::GetFlag(FLAGS_tls_client_ca));
    if (!ca.ok()) {
      std::fprintf(stderr, "rpsum-server: %s\n", ca.status().ToString().c_str());
      std::exit(2);
    }
    o.pem_root_certs = *ca;
    o.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  *tls = true;
  return grpc::SslServerCredentials(o);
}

// Scores synthetic documents of a few lengths, prepared as requests are (model::PrepareInput),
// to warm up the first model and measure its speed (seconds per cost unit) for the
// scheduler's predictions; the other workers' models score the middle one once, so that no
// first request pays their one-time costs.
double WarmUp(const std::vector<std::unique_ptr<model::Summarizer>>& models) {
  model::Summarizer* m = models.front().get();
  const auto& config = m->description().config;
  double seconds = 0;
  int64_t cost = 0;
  for (int words : {200, 1500, 4000}) {
    std::string text;
    for (int i = 0; i < words / 10; ++i) {
      text += "The scheduler batches requests of similar length to share one forward pass. ";
    }
    model::DocumentInput in;
    in.document = text;
    model::PrepareOptions limits;
    limits.truncation = model::TruncationPolicy::kHead;
    auto input = model::PrepareInput(*m, in, limits, model::Preparation::kForScoring);
    if (!input.ok()) continue;
    const model::PreparedDocument* doc = &input->doc;
    if (words == 1500) {
      for (size_t i = 1; i < models.size(); ++i) (void)models[i]->Score({doc}, input->k, {});
    }
    for (int rep = 0; rep < 2; ++rep) {
      const absl::Time t0 = absl::Now();
      auto s = m->Score({doc}, input->k, {});
      if (rep == 1 && s.ok()) {  // the first run pays one-time costs
        seconds += absl::ToDoubleSeconds(absl::Now() - t0);
        cost += model::AttentionCost(config, doc->num_tokens());
      }
    }
  }
  return cost > 0 ? seconds / static_cast<double>(cost) : 0;
}

int Fail(const absl::Status& s, int code) {
  std::fprintf(stderr, "rpsum-server: %s\n", s.ToString().c_str());
  return code;
}

// The bearer token of --auth_token_file ("" without one).
absl::StatusOr<std::string> ReadToken() {
  if (absl::GetFlag(FLAGS_auth_token_file).empty()) return std::string();
  auto t = ReadFile(absl::GetFlag(FLAGS_auth_token_file));
  if (!t.ok()) return t.status();
  std::string token(absl::StripAsciiWhitespace(*t));
  if (token.empty()) return absl::InvalidArgumentError("the token file is empty");
  return token;
}

// Probes (Kubernetes, the Dockerfile's HEALTHCHECK) must not restart a pod because it drains
// or loads, so readiness is set per service name and never through the overall
// SetServingStatus(bool), which would also turn "liveness" off.
void SetReady(grpc::Server* s, bool ready) {
  if (s == nullptr) return;
  for (const char* name : {"", "rpsum.v1.Summarizer"}) {
    s->GetHealthCheckService()->SetServingStatus(name, ready);
  }
}

// The health port (nullptr without --health_listen): "liveness" SERVING for as long as the
// process answers (loading, serving, draining); readiness NOT_SERVING until SetReady.
absl::StatusOr<std::unique_ptr<grpc::Server>> StartHealthServer() {
  if (absl::GetFlag(FLAGS_health_listen).empty()) return nullptr;
  grpc::ServerBuilder hb;
  hb.AddListeningPort(absl::GetFlag(FLAGS_health_listen), grpc::InsecureServerCredentials());
  // No SO_REUSEPORT: a port another process holds is an error here, not a shared port whose
  // connections the kernel splits between two servers.
  hb.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  std::unique_ptr<grpc::Server> server = hb.BuildAndStart();
  if (!server) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", absl::GetFlag(FLAGS_health_listen)));
  }
  server->GetHealthCheckService()->SetServingStatus(std::string(kLiveness), true);
  SetReady(server.get(), false);
  return server;
}

// One model per worker: --workers, each with --threads intra-op threads, then --large_workers,
// each with --large_threads.
absl::StatusOr<std::vector<std::unique_ptr<model::Summarizer>>> LoadModels() {
  std::vector<std::unique_ptr<model::Summarizer>> models;
  const int gpus = model::CudaDeviceCount();
  const int workers = std::max(1, absl::GetFlag(FLAGS_workers));
  for (int i = 0; i < workers + std::max(0, absl::GetFlag(FLAGS_large_workers)); ++i) {
    // Each worker's model copy on its own device: round-robin over the GPUs for cuda/auto.
    auto m = model::LoadTorchSummarizer(
        absl::GetFlag(FLAGS_model_dir), model::WorkerDevice(absl::GetFlag(FLAGS_device), i, gpus),
        i < workers ? absl::GetFlag(FLAGS_threads) : absl::GetFlag(FLAGS_large_threads),
        {absl::GetFlag(FLAGS_stretch_tokens), absl::GetFlag(FLAGS_stretch_units)});
    if (!m.ok()) return m.status();
    models.push_back(*std::move(m));
  }
  return models;
}

// The models of the --workers and of the --large_workers (LoadModels' order).
std::pair<std::vector<model::Summarizer*>, std::vector<model::Summarizer*>> SplitWorkers(
    const std::vector<std::unique_ptr<model::Summarizer>>& models) {
  std::pair<std::vector<model::Summarizer*>, std::vector<model::Summarizer*>> split;
  for (const auto& m : models) {
    auto& lane = static_cast<int>(split.first.size()) < std::max(1, absl::GetFlag(FLAGS_workers))
                     ? split.first
                     : split.second;
    lane.push_back(m.get());
  }
  return split;
}

SchedulerOptions SchedulerOptionsFromFlags(bool on_cpu, double seconds_per_cost) {
  SchedulerOptions so;
  // Measured (docs/benchmarks.md): on CPU a batch of mixed-length documents runs slower than
  // its requests one after another (padding, and the 5 ms batching wait on short requests),
  // so batching is on by default only on an accelerator.
  so.max_batch_size = absl::GetFlag(FLAGS_max_batch_size) > 0 ? absl::GetFlag(FLAGS_max_batch_size)
                                                              : (on_cpu ? 1 : 8);
  so.max_queue_delay = absl::Milliseconds(absl::GetFlag(FLAGS_max_queue_delay_ms));
  so.max_queue_requests = absl::GetFlag(FLAGS_max_queue_requests);
  so.max_queue_cost = absl::GetFlag(FLAGS_max_queue_cost);
  so.max_queue_memory = absl::GetFlag(FLAGS_max_queue_memory_bytes);
  so.max_queue_wait = absl::Milliseconds(absl::GetFlag(FLAGS_max_queue_wait_ms));
  so.max_batch_cost = absl::GetFlag(FLAGS_max_batch_cost);
  so.seconds_per_cost = seconds_per_cost;
  so.large_threads_beside_small = absl::GetFlag(FLAGS_large_threads_beside_small);
  return so;
}

ServiceOptions ServiceOptionsFromFlags(const std::string& token) {
  ServiceOptions opts;
  opts.max_document_bytes = absl::GetFlag(FLAGS_max_document_bytes);
  opts.max_input_tokens = absl::GetFlag(FLAGS_max_input_tokens);
  opts.max_sentences = absl::GetFlag(FLAGS_max_sentences);
  opts.extract.max_pdf_pages = absl::GetFlag(FLAGS_max_pdf_pages);
  opts.extract.max_text_bytes = absl::GetFlag(FLAGS_max_extracted_bytes);
  opts.extract.max_unpacked_bytes = absl::GetFlag(FLAGS_max_unpacked_bytes);
  opts.auth_token = token;
  opts.server_version = kVersion;
  opts.request_log = absl::GetFlag(FLAGS_request_log);
  opts.large_document_bytes = absl::GetFlag(FLAGS_large_document_bytes);
  opts.large_document_tokens = absl::GetFlag(FLAGS_large_document_tokens);
  opts.small_read_budget = absl::Milliseconds(absl::GetFlag(FLAGS_small_read_budget_ms));
  return opts;
}

// The API port, TLS per the flags (*tls says which), ready when it returns.
absl::StatusOr<std::unique_ptr<grpc::Server>> StartApiServer(SummarizerService* service,
                                                             uint64_t max_document_bytes,
                                                             bool* tls) {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::GetFlag(FLAGS_listen), Credentials(tls), &port);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // see StartHealthServer
  builder.RegisterService(service);
  // Oversized messages get RESOURCE_EXHAUSTED from gRPC itself, before any parsing.
  builder.SetMaxReceiveMessageSize(
      static_cast<int>(std::min<uint64_t>(max_document_bytes + (1U << 20), INT32_MAX)));
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", absl::GetFlag(FLAGS_listen)));
  }
  SetReady(server.get(), true);
  return server;
}

// The HTTP port (--metrics_listen; nullptr when empty): metrics, health, the JSON API and the
// page, with the gRPC port's TLS. /readyz follows *ready.
absl::StatusOr<std::unique_ptr<HttpServer>> StartHttpServer(
    SummarizerService* service, const ServiceOptions& opts,
    std::vector<std::weak_ptr<prometheus::Collectable>> metrics, const std::atomic<bool>* ready) {
  if (absl::GetFlag(FLAGS_metrics_listen).empty()) return nullptr;
  HttpOptions ho;
  ho.listen = absl::GetFlag(FLAGS_metrics_listen);
  ho.threads = absl::GetFlag(FLAGS_http_threads);
  ho.cert_file = absl::GetFlag(FLAGS_tls_cert);
  ho.key_file = absl::GetFlag(FLAGS_tls_key);
  ho.client_ca_file = absl::GetFlag(FLAGS_tls_client_ca);
  // A JSON body carries the document escaped: room for it, and 413 past that.
  ho.max_body_bytes = opts.max_document_bytes + opts.max_document_bytes / 10 + (64U << 10);
  return HttpServer::Start(ho, service, std::move(metrics), [ready] { return ready->load(); });
}

// After SIGTERM/SIGINT: not ready, no new requests, queued work runs while --drain_timeout_s
// lasts, then both servers stop.
void Drain(SummarizerService& service, Scheduler& scheduler, Metrics& metrics, grpc::Server* server,
           grpc::Server* health_server) {
  const absl::Time drain_end = absl::Now() + absl::Seconds(absl::GetFlag(FLAGS_drain_timeout_s));
  metrics.SetDraining(true);
  SetReady(server, false);
  SetReady(health_server, false);
  service.StartDraining();
  scheduler.Shutdown(drain_end - absl::Now());  // queued work runs while time remains
  while (service.in_flight() > 0 && absl::Now() < drain_end) absl::SleepFor(absl::Milliseconds(10));
  server->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(1)));
  if (health_server != nullptr) {
    health_server->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(1)));
  }
}

int Main() {
  // Signals go to the waiting main thread only: block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto token = ReadToken();
  if (!token.ok()) return Fail(token.status(), 2);
  // Health first, so probes see NOT_SERVING while the model loads.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  auto health_server = StartHealthServer();
  if (!health_server.ok()) return Fail(health_server.status(), 2);

  const absl::Time load_start = absl::Now();
  auto models = LoadModels();
  if (!models.ok()) {
    std::fprintf(stderr, "rpsum-server: cannot load the model: %s\n",
                 models.status().ToString().c_str());
    return 1;
  }
  model::Summarizer* primary = models->front().get();
  const model::ModelDescription& d = primary->description();
  const double spc = absl::GetFlag(FLAGS_warmup) ? WarmUp(*models) : 0;
  std::fprintf(stderr,
               "rpsum-server: model %s v%s (%s) on %s loaded and warmed up in %.1f s; "
               "%.2f us per cost unit\n",
               d.config.name.c_str(), d.config.version.c_str(),
               d.weights_sha256.substr(0, 12).c_str(), d.device.c_str(),
               absl::ToDoubleSeconds(absl::Now() - load_start), spc * 1e6);

  Metrics metrics({kVersion, d.torch_version, d.device});
  std::shared_ptr<prometheus::Collectable> process = MakeProcessCollector();
  const SchedulerOptions so = SchedulerOptionsFromFlags(d.device == "cpu", spc);
  metrics.SetQueueLimits(so.max_queue_requests, so.max_queue_cost);
  const auto [worker_models, large_models] = SplitWorkers(*models);
  Scheduler scheduler(so, worker_models, Clock::Real(), &metrics, large_models);
  ThreadPool pool(std::max(1, absl::GetFlag(FLAGS_prepare_threads)), 4 * so.max_queue_requests);
  const ServiceOptions opts = ServiceOptionsFromFlags(*token);
  SummarizerService service(opts, primary, &scheduler, &pool, &metrics, Clock::Real());
  // A bounded queue: past it, large documents are refused (RESOURCE_EXHAUSTED), not piled up.
  const int large_threads = absl::GetFlag(FLAGS_large_prepare_threads);
  std::optional<ThreadPool> large_pool;
  if (large_threads > 0) {
    large_pool.emplace(large_threads, 16);
    service.SetLargeDocumentPool(&*large_pool);
  }

  std::atomic<bool> ready{false};
  auto http = StartHttpServer(&service, opts, {metrics.registry(), process}, &ready);
  if (!http.ok()) return Fail(http.status(), 2);

  bool tls = false;
  auto server = StartApiServer(&service, opts.max_document_bytes, &tls);
  if (!server.ok()) return Fail(server.status(), 2);
  SetReady(health_server->get(), true);
  ready = true;
  std::fprintf(stderr,
               "rpsum-server: serving on %s (%s%s), health on %s, HTTP (/metrics, /v1/...) on "
               "%s\n",
               absl::GetFlag(FLAGS_listen).c_str(), tls ? "TLS" : "plaintext",
               token->empty() ? "" : ", token required", absl::GetFlag(FLAGS_health_listen).c_str(),
               absl::GetFlag(FLAGS_metrics_listen).c_str());

  int sig = 0;
  sigwait(&signals, &sig);
  std::fprintf(stderr, "rpsum-server: %s: draining (up to %d s)\n", strsignal(sig),
               absl::GetFlag(FLAGS_drain_timeout_s));
  ready = false;
  Drain(service, scheduler, metrics, server->get(), health_server->get());
  std::fprintf(stderr, "rpsum-server: drained (%d requests unanswered), bye\n",
               service.in_flight());
  return 0;
}

}  // namespace
}  // namespace rpsum::server

namespace {

// Debian's OpenBLAS 0.3.21 does not recognise recent Xeons and falls back to its generic
// "Prescott" kernels: sgemm 4x slower, the whole model about 3x. It reads OPENBLAS_CORETYPE
// once, when the library loads (before main), so when the variable is unset on a CPU with
// AVX-512 or AVX2, set it and execute this binary again (same pid, same arguments). A value
// the caller set, even empty, is left alone; scripts/cpu-env and the container's entrypoint
// set it themselves.
void SelectBlasKernels(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
  __builtin_cpu_init();
  const char* core = nullptr;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) {
    core = "SkylakeX";
  } else if (__builtin_cpu_supports("avx2")) {
    core = "Haswell";
  }
  if (core == nullptr) return;
  setenv("OPENBLAS_CORETYPE", core, 1);
  std::fprintf(stderr, "rpsum-server: OPENBLAS_CORETYPE=%s (set it to choose; restarting)\n", core);
  execv("/proc/self/exe", argv);
  std::perror("rpsum-server: re-exec for OPENBLAS_CORETYPE failed; generic BLAS kernels");
}

}  // namespace

int main(int argc, char** argv) {
  SelectBlasKernels(argv);
  absl::SetProgramUsageMessage(
      "Serves the rpsum summarizer over gRPC.\n  rpsum-server --model_dir models/rpsum-ext "
      "--listen 127.0.0.1:50051 --metrics_listen 127.0.0.1:9464");
  absl::ParseCommandLine(argc, argv);
  return rpsum::server::Main();
}
