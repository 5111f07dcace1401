// The rpsum.v1.Summarizer gRPC service (callback API). gRPC threads only validate and hand
// off: preparation runs on a CPU pool, inference on the scheduler's workers, and the worker's
// callback finishes the RPC. Handlers never block.
#ifndef RPSUM_SERVER_SERVICE_H_
#define RPSUM_SERVER_SERVICE_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "base/thread_pool.h"
#include "formats/formats.h"
#include "model/document.h"
#include "model/summarizer.h"
#include "rpsum/v1/summarizer.grpc.pb.h"
#include "server/metrics.h"
#include "server/scheduler/scheduler.h"

namespace rpsum::server {

struct ServiceOptions {
  // Request limits (max_tokens_per_unit comes from the model's config); the server's flags
  // default to these. A 2,000-page document (about 1.5 million tokens) fits them: a document
  // longer than the model's stretches runs in stretches, so the model's memory does not grow
  // with it (docs/operations.md, "Limits and memory", has the figures they come from).
  uint64_t max_document_bytes = 32u << 20;
  // Markdown, HTML and PDF: pages read at most, extracted text at most, element nesting.
  formats::ExtractLimits extract;
  int64_t max_input_tokens = 2'000'000;
  int64_t max_sentences = 131072;
  // Bearer token required in `authorization: Bearer <token>` metadata; empty: none.
  std::string auth_token;
  std::string server_version;  // GetModelInfo reports it (rpsum-server: project(VERSION))
  // One JSON line per answered request on stderr (never the document text).
  bool request_log = false;
  // Documents of more bytes are prepared on the large-document pool, when one is set, so that
  // a few large (or hostile) documents cannot take every preparation thread from small ones.
  uint64_t large_document_bytes = 256u << 10;
  // A document of at least this many tokens is large too, however few its bytes: its forward
  // runs on the scheduler's large-document workers (Job::large) and its selection on the
  // large-document pool, so that it never holds the worker small requests wait for.
  int64_t large_document_tokens = 8192;
  // A document that the small documents' pool has read for this long without finishing (a PDF
  // whose pages draw far more than its bytes: they may share one content stream) is read again
  // on the large-document pool, so that no request holds a small documents' thread for longer.
  absl::Duration small_read_budget = absl::Milliseconds(100);
};

// A request as any transport (gRPC, HTTP) presents it.
struct CallInfo {
  std::optional<std::string> authorization;  // the `authorization` header; nullopt: absent
  absl::Time deadline = absl::InfiniteFuture();
  std::function<bool()> cancelled;  // empty: never cancelled
  std::string protocol = "grpc";    // for the request log
  std::string request_id;           // the client's x-request-id, or one the transport made
};

// A request id for a request that brought none: 16 random hex digits.
std::string NewRequestId();

// Runs exactly once per request, on any thread, after the response is filled (when OK).
using Done = std::function<void(const absl::Status&)>;

class SummarizerService final : public v1::Summarizer::CallbackService {
 public:
  // None of the pointers is owned; all outlive the service. `metrics` may be null.
  SummarizerService(const ServiceOptions& options, model::Summarizer* model, Scheduler* scheduler,
                    ThreadPool* prepare_pool, Metrics* metrics, Clock* clock);
  // Prepares documents over options.large_document_bytes on `pool` (not owned; outlives the
  // service) instead of the preparation pool. Call before serving.
  void SetLargeDocumentPool(ThreadPool* pool) { large_pool_ = pool; }

  grpc::ServerUnaryReactor* Summarize(grpc::CallbackServerContext* ctx,
                                      const v1::SummarizeRequest* request,
                                      v1::SummarizeResponse* response) override;
  grpc::ServerUnaryReactor* Estimate(grpc::CallbackServerContext* ctx,
                                     const v1::SummarizeRequest* request,
                                     v1::EstimateResponse* response) override;
  grpc::ServerUnaryReactor* GetModelInfo(grpc::CallbackServerContext* ctx,
                                         const v1::GetModelInfoRequest* request,
                                         v1::ModelInfo* response) override;

  // The same three methods for any transport (the gRPC methods above and server/http.cc call
  // these): auth, draining, validation, preparation on the pool, the scheduler, metrics.
  // `request` and `response` must stay valid until `done` runs. Never blocks.
  void HandleSummarize(CallInfo info, const v1::SummarizeRequest* request,
                       v1::SummarizeResponse* response, Done done);
  void HandleEstimate(CallInfo info, const v1::SummarizeRequest* request,
                      v1::EstimateResponse* response, Done done);
  void HandleModelInfo(CallInfo info, v1::ModelInfo* response, Done done);

  // Counts and logs a request a transport refused before it reached a Handle* method (an
  // HTTP body that is not a request): the metrics and the request log see every request.
  void RecordRejected(const CallInfo& info, const char* method, const absl::Status& status,
                      uint64_t bytes_in);

  // What a RESOURCE_EXHAUSTED answer suggests as a retry delay (the predicted queue wait).
  int64_t RetryAfterMs() const;

  // From now on new requests get UNAVAILABLE. Thread-safe.
  void StartDraining();
  // Requests accepted and not yet answered. Thread-safe.
  int in_flight() const { return in_flight_.load(); }

  // The service's limits on a preparation (the model adds its own: model::PrepareInput).
  model::PrepareOptions prepare_limits(model::TruncationPolicy t) const;
  // Whether a prepared document of `tokens` tokens runs in the large-document lane by its
  // length (ServiceOptions::large_document_tokens), whatever its bytes.
  bool IsLongDocument(int64_t tokens) const { return tokens >= options_.large_document_tokens; }

 private:
  struct Call;
  // Returns OK, or the status to answer at once (auth, draining).
  absl::Status Admit(const CallInfo& info) const;
  // Starts a call: counts it in flight, checks auth and draining, plans the request (if any).
  // On failure the call is already finished (call->finished).
  std::shared_ptr<Call> Begin(const char* method, CallInfo info,
                              const v1::SummarizeRequest* request, Done done);
  // On the preparation pool: prepares the call's input and picks k, then runs `then`; answers
  // the call itself on cancellation, preparation errors or a full pool. `large`: on the
  // large-document pool whatever the document's size (it overran small_read_budget).
  void PrepareThen(const std::shared_ptr<Call>& call,
                   std::function<void(const std::shared_ptr<Call>&)> then, bool large = false);
  void Finish(Call* call, const absl::Status& status);
  void LogRequest(const Call& call, const absl::Status& status, double seconds) const;
  Done GrpcDone(grpc::CallbackServerContext* ctx, grpc::ServerUnaryReactor* reactor);

  const ServiceOptions options_;
  model::Summarizer* const model_;
  Scheduler* const scheduler_;
  ThreadPool* const pool_;
  ThreadPool* large_pool_ = nullptr;  // documents over large_document_bytes; null: pool_
  Metrics* const metrics_;
  Clock* const clock_;
  std::atomic<bool> draining_{false};
  std::atomic<int> in_flight_{0};
};

// Constant-time comparison of a presented and an expected secret.
bool SecretsEqual(const std::string& a, const std::string& b);

}  // namespace rpsum::server

#endif  // RPSUM_SERVER_SERVICE_H_
