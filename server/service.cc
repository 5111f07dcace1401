#include "server/service.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "proto/grpc_status.h"
#include "server/convert.h"

namespace rpsum::server {
namespace {

const char* ReasonFor(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInvalidArgument:
      return "invalid_argument";
    case absl::StatusCode::kResourceExhausted:
      return "queue_full";
    case absl::StatusCode::kDeadlineExceeded:
      return "deadline";
    case absl::StatusCode::kCancelled:
      return "cancelled";
    case absl::StatusCode::kUnauthenticated:
      return "unauthenticated";
    case absl::StatusCode::kUnavailable:
      return "unavailable";
    default:
      return "model_error";
  }
}

// The `format` label of rpsum_extract_seconds: the MIME subtype (markdown, html, pdf).
std::string FormatLabel(formats::ContentType type) {
  switch (type) {
    case formats::ContentType::kDocx:
      return "docx";
    case formats::ContentType::kOdt:
      return "odt";
    case formats::ContentType::kEpub:
      return "epub";
    default:
      break;
  }
  const std::string_view mime = formats::MimeName(type);
  return std::string(mime.substr(mime.find('/') + 1));
}

absl::Time Deadline(grpc::CallbackServerContext* ctx) {
  const auto d = ctx->deadline();
  if (d == std::chrono::system_clock::time_point::max()) return absl::InfiniteFuture();
  return absl::FromChrono(d);
}

}  // namespace

bool SecretsEqual(const std::string& a, const std::string& b) {
  // Length leaks, content does not: compare every byte of the expected secret.
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < b.size(); ++i) {
    diff |= static_cast<unsigned char>((i < a.size() ? a[i] : 0) ^ b[i]);
  }
  return diff == 0;
}

// One RPC in flight. Owned by a shared_ptr held by the tasks that may still touch it.
struct SummarizerService::Call {
  std::string method;
  CallInfo info;
  Done done;
  const v1::SummarizeRequest* request = nullptr;
  v1::SummarizeResponse* response = nullptr;
  v1::EstimateResponse* estimate = nullptr;
  absl::Time start;
  RequestPlan plan;
  ReadDocument read;  // plan.input.document points into it for Markdown, HTML and PDF
  absl::Duration extract;
  model::PreparedDocument prepared;
  int64_t k = 0;
  absl::Time prepared_at;
  BatchInfo batch;     // queue wait and model time, once the model ran
  bool large = false;  // prepared on the large-document pool: its selection runs there too
  std::atomic<bool> finished{false};
};

namespace {

// What a request holds while it waits for the model, in bytes (Job::memory): the document as
// sent, its text as read (a source map costs at most a byte per character) and its prepared
// form.
int64_t QueuedBytes(const v1::SummarizeRequest& request, const ReadDocument& read,
                    const model::PreparedDocument& prepared) {
  uint64_t bytes = request.document().size();
  for (const std::string& u : request.sentences().sentences()) bytes += u.size();
  if (read.extracted) {
    const formats::Extracted& e = *read.extracted;
    bytes += e.text.capacity() + e.pieces.capacity() * sizeof(e.pieces[0]) +
             e.blocks.capacity() * sizeof(e.blocks[0]);
  }
  if (read.converted) bytes += 2 * read.converted->text.capacity();
  return static_cast<int64_t>(bytes) + model::HeldBytes(prepared);
}

}  // namespace

std::string NewRequestId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return absl::StrFormat("%016x", rng());
}

SummarizerService::SummarizerService(const ServiceOptions& options, model::Summarizer* model,
                                     Scheduler* scheduler, ThreadPool* prepare_pool,
                                     Metrics* metrics, Clock* clock)
    : options_(options),
      model_(model),
      scheduler_(scheduler),
      pool_(prepare_pool),
      metrics_(metrics),
      clock_(clock) {}

void SummarizerService::StartDraining() { draining_ = true; }

model::PrepareOptions SummarizerService::prepare_limits(model::TruncationPolicy t) const {
  model::PrepareOptions o;
  o.max_document_bytes = options_.max_document_bytes;
  o.max_input_tokens = options_.max_input_tokens;
  o.max_units = options_.max_sentences;
  o.truncation = t;
  return o;
}

absl::Status SummarizerService::Admit(const CallInfo& info) const {
  if (!options_.auth_token.empty()) {
    const std::string presented = info.authorization.value_or("");
    const std::string expected = "Bearer " + options_.auth_token;
    if (!info.authorization.has_value()) {
      return absl::UnauthenticatedError(
          "this server requires a token: send metadata 'authorization: Bearer <token>'");
    }
    if (!SecretsEqual(presented, expected)) {
      return absl::UnauthenticatedError("the bearer token is not valid for this server");
    }
  }
  if (draining_) {
    return absl::UnavailableError("the server is draining; retry on another replica");
  }
  return absl::OkStatus();
}

void SummarizerService::Finish(Call* call, const absl::Status& status) {
  if (call->finished.exchange(true)) return;
  const double seconds = absl::ToDoubleSeconds(clock_->Now() - call->start);
  if (metrics_ != nullptr) {
    metrics_->OnRequest(call->method, absl::StatusCodeToString(status.code()), seconds);
    if (!status.ok()) metrics_->OnFailure(ReasonFor(status.code()));
  }
  if (options_.request_log) LogRequest(*call, status, seconds);
  --in_flight_;
  call->done(status);
}

void SummarizerService::LogRequest(const Call& call, const absl::Status& status,
                                   double seconds) const {
  nlohmann::json line = {{"request_id", call.info.request_id},
                         {"method", call.method},
                         {"protocol", call.info.protocol},
                         {"code", absl::StatusCodeToString(status.code())},
                         {"bytes_in", call.request == nullptr ? 0 : call.request->ByteSizeLong()},
                         {"tokens", call.prepared.num_tokens()},
                         {"k", call.k},
                         {"queue_ms", absl::ToDoubleMilliseconds(call.batch.queue_wait)},
                         {"model_ms", absl::ToDoubleMilliseconds(call.batch.inference)},
                         {"total_ms", seconds * 1e3}};
  const std::string text = line.dump() + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

void SummarizerService::RecordRejected(const CallInfo& info, const char* method,
                                       const absl::Status& status, uint64_t bytes_in) {
  if (metrics_ != nullptr) {
    metrics_->OnRequest(method, absl::StatusCodeToString(status.code()), 0);
    metrics_->OnFailure(ReasonFor(status.code()));
  }
  if (!options_.request_log) return;
  const nlohmann::json line = {{"request_id", info.request_id},
                               {"method", method},
                               {"protocol", info.protocol},
                               {"code", absl::StatusCodeToString(status.code())},
                               {"bytes_in", bytes_in},
                               {"tokens", 0},
                               {"k", 0},
                               {"queue_ms", 0},
                               {"model_ms", 0},
                               {"total_ms", 0}};
  const std::string text = line.dump() + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

int64_t SummarizerService::RetryAfterMs() const {
  return absl::ToInt64Milliseconds(scheduler_->PredictedQueueWait()) + 100;
}

std::shared_ptr<SummarizerService::Call> SummarizerService::Begin(
    const char* method, CallInfo info, const v1::SummarizeRequest* request, Done done) {
  auto call = std::make_shared<Call>();
  call->method = method;
  call->info = std::move(info);
  call->done = std::move(done);
  call->request = request;
  call->start = clock_->Now();
  ++in_flight_;
  absl::Status admit = Admit(call->info);
  if (admit.ok() && request != nullptr) {
    absl::StatusOr<RequestPlan> plan = PlanRequest(*request, model_->description().config);
    if (plan.ok()) {
      call->plan = *std::move(plan);
    } else {
      admit = plan.status();
    }
  }
  if (!admit.ok()) Finish(call.get(), admit);
  return call;
}

void SummarizerService::PrepareThen(const std::shared_ptr<Call>& call,
                                    std::function<void(const std::shared_ptr<Call>&)> then,
                                    bool large) {
  // Large documents wait for their own threads: small ones never queue behind them.
  uint64_t bytes = call->plan.input.document.size();
  for (std::string_view u : call->plan.input.units) bytes += u.size();
  large = large_pool_ != nullptr && (large || bytes > options_.large_document_bytes);
  ThreadPool* pool = large ? large_pool_ : pool_;
  call->large = large;
  const bool queued = pool->Schedule([this, call, large, then = std::move(then)] {
    if (large) LowerThisThreadsPriority();
    if (call->info.cancelled && call->info.cancelled()) {
      Finish(call.get(), absl::CancelledError("the client cancelled the request"));
      return;
    }
    const absl::Time t0 = clock_->Now();
    ReadOptions read_options;
    read_options.max_document_bytes = options_.max_document_bytes;
    read_options.limits = options_.extract;
    read_options.limits.deadline = call->info.deadline;
    // A small document's reading gets a budget: past it, it is read again with the large ones.
    const bool budgeted = !large && large_pool_ != nullptr;
    if (budgeted) {
      read_options.limits.deadline = std::min(call->info.deadline, t0 + options_.small_read_budget);
    }
    if (absl::Status read = ReadInput(read_options, &call->plan, &call->read); !read.ok()) {
      if (budgeted && absl::IsDeadlineExceeded(read) && clock_->Now() < call->info.deadline) {
        if (metrics_ != nullptr) metrics_->OnMovedToLargePool();
        call->read = {};
        PrepareThen(call, then, /*large=*/true);
        return;
      }
      Finish(call.get(), read);
      return;
    }
    if (call->read.extracted) {  // text/plain is read as it is: no extraction stage
      call->extract = clock_->Now() - t0;
      if (metrics_ != nullptr) {
        metrics_->OnExtracted(FormatLabel(call->read.type), absl::ToDoubleSeconds(call->extract));
      }
    }
    model::PrepareOptions limits = prepare_limits(call->plan.truncation);
    limits.deadline = call->info.deadline;
    // Estimate reads the tokens and units, never a feature column: the cheap path.
    absl::StatusOr<model::ModelInput> prepared =
        model::PrepareInput(*model_, call->plan.input, limits,
                            call->estimate != nullptr ? model::Preparation::kTokensOnly
                                                      : model::Preparation::kForScoring,
                            call->plan.clip_override);
    if (!prepared.ok()) {
      Finish(call.get(), prepared.status());
      return;
    }
    call->prepared = std::move(prepared->doc);
    call->k = prepared->k;
    call->prepared_at = clock_->Now();
    const int64_t tokens = call->prepared.num_tokens();
    if (metrics_ != nullptr && call->response != nullptr) {
      metrics_->OnPrepared(absl::ToDoubleSeconds(call->prepared_at - t0), tokens, call->k);
    }
    then(call);
  });
  if (!queued) {
    Finish(call.get(), absl::ResourceExhaustedError(
                           large ? "the preparation queue for large documents is full; retry in "
                                   "a moment"
                                 : "the preparation queue is full; retry in a moment"));
  }
}

void SummarizerService::HandleSummarize(CallInfo info, const v1::SummarizeRequest* request,
                                        v1::SummarizeResponse* response, Done done) {
  std::shared_ptr<Call> call = Begin("Summarize", std::move(info), request, std::move(done));
  call->response = response;
  if (call->finished) return;
  // Shed before preparing when the queue is already past its limits, so that overload costs
  // no preparation work (the scheduler checks again, with this request's cost, on Submit).
  if (absl::Status capacity = scheduler_->Precheck(); !capacity.ok()) {
    Finish(call.get(), capacity);
    return;
  }
  PrepareThen(call, [this](const std::shared_ptr<Call>& call) {
    const auto& config = model_->description().config;
    const int64_t tokens = call->prepared.num_tokens();
    // A long document runs in the large-document lane from here on, whatever pool read it.
    const bool long_document = IsLongDocument(tokens);
    if (large_pool_ != nullptr && long_document) call->large = true;
    Job job;
    job.doc = &call->prepared;
    job.large = call->large || long_document;
    job.k = call->k;
    job.cost = model::AttentionCost(config, tokens);
    job.memory = QueuedBytes(*call->request, call->read, call->prepared);
    job.priority = call->plan.priority;
    job.deadline = call->info.deadline;
    job.cancelled = [call] { return call->info.cancelled && call->info.cancelled(); };
    job.done = [this, call](absl::StatusOr<model::DocumentScores> scores, const BatchInfo& info) {
      call->batch = info;
      if (!scores.ok()) {
        Finish(call.get(), scores.status());
        return;
      }
      // The selection (tens of milliseconds with a summary-level reranking) runs on the
      // preparation pool the document was prepared on (a large one's sentences can be long), so
      // the model's worker goes on to the next batch; inline only when the pool cannot take it
      // (full or stopping), since the request must be answered.
      auto result = std::make_shared<model::DocumentScores>(*std::move(scores));
      auto select = [this, call, result, info] {
        const absl::Time s0 = clock_->Now();
        const auto& desc = model_->description();
        v1::SummarizeResponse* r = call->response;
        const model::PreparedDocument& doc = call->prepared;
        const model::Selection selection = model::SelectForResponse(
            doc, doc.KeptTexts(call->plan.input), result->scores, call->plan.select,
            {result->unit_states.data(), result->state_size}, call->plan.outline,
            MarkedHeadings(call->read, doc));
        FillSummary(call->plan, call->read, doc, *result, selection, r);
        FillModelIdentity(desc, r->mutable_model());
        const absl::Time end = clock_->Now();
        auto* t = r->mutable_timings();
        t->set_prepare_us(absl::ToInt64Microseconds(call->prepared_at - call->start));
        t->set_extract_us(absl::ToInt64Microseconds(call->extract));
        t->set_queue_us(absl::ToInt64Microseconds(info.queue_wait));
        t->set_inference_us(absl::ToInt64Microseconds(info.inference));
        t->set_select_us(absl::ToInt64Microseconds(end - s0));
        t->set_total_us(absl::ToInt64Microseconds(end - call->start));
        Finish(call.get(), absl::OkStatus());
      };
      ThreadPool* pool = call->large ? large_pool_ : pool_;
      if (!pool->Schedule(select)) select();
    };
    const absl::Status submitted = scheduler_->Submit(std::move(job));
    if (!submitted.ok()) Finish(call.get(), submitted);
  });
}

void SummarizerService::HandleEstimate(CallInfo info, const v1::SummarizeRequest* request,
                                       v1::EstimateResponse* response, Done done) {
  std::shared_ptr<Call> call = Begin("Estimate", std::move(info), request, std::move(done));
  call->estimate = response;
  if (call->finished) return;
  PrepareThen(call, [this](const std::shared_ptr<Call>& call) {
    const auto& config = model_->description().config;
    const int64_t tokens = call->prepared.num_tokens();
    FillEstimate(call->read, call->prepared, config, call->k, call->estimate);
    const int64_t queued = QueuedBytes(*call->request, call->read, call->prepared);
    call->estimate->set_queued_bytes(static_cast<uint64_t>(queued));
    call->estimate->set_memory_bytes(static_cast<uint64_t>(
        queued + model::ForwardBytes(config, tokens,
                                     static_cast<int64_t>(call->prepared.kept.size()),
                                     model_->description().stretches,
                                     model::NeedsUnitStates(config.scoring.rerank))));
    call->estimate->set_predicted_inference_us(static_cast<uint64_t>(absl::ToInt64Microseconds(
        scheduler_->PredictedInference(model::AttentionCost(config, tokens)))));
    call->estimate->set_predicted_queue_wait_us(static_cast<uint64_t>(absl::ToInt64Microseconds(
        scheduler_->PredictedQueueWait(call->large || IsLongDocument(tokens)))));
    Finish(call.get(), absl::OkStatus());
  });
}

void SummarizerService::HandleModelInfo(CallInfo info, v1::ModelInfo* out, Done done) {
  std::shared_ptr<Call> call = Begin("GetModelInfo", std::move(info), nullptr, std::move(done));
  if (call->finished) return;
  {
    const auto& d = model_->description();
    const auto& a = d.config.architecture;
    FillModelIdentity(d, out->mutable_model());
    out->set_vocab_size(static_cast<uint32_t>(a.vocab_size));
    out->set_hidden_size(static_cast<uint32_t>(a.hidden_size));
    out->set_token_layers(static_cast<uint32_t>(a.token_layers));
    out->set_sentence_layers(static_cast<uint32_t>(a.unit_layers));
    out->set_heads(static_cast<uint32_t>(a.heads));
    out->set_max_clip_distance(static_cast<uint32_t>(a.max_clip_distance));
    out->set_clip_policy(d.config.clip_policy.Describe());
    out->set_local_attention_threshold(static_cast<uint32_t>(d.config.attention.local_threshold));
    out->set_local_window(static_cast<uint32_t>(d.config.attention.local_window));
    out->set_local_window_policy(d.config.attention.DescribeWindows());
    auto* l = out->mutable_limits();
    l->set_max_document_bytes(options_.max_document_bytes);
    l->set_max_input_tokens(static_cast<uint32_t>(options_.max_input_tokens));
    l->set_max_sentences(static_cast<uint32_t>(options_.max_sentences));
    l->set_max_tokens_per_sentence(static_cast<uint32_t>(d.config.tokenizer.max_tokens_per_unit));
    l->set_max_pdf_pages(static_cast<uint32_t>(options_.extract.max_pdf_pages));
    l->set_max_extracted_bytes(options_.extract.max_text_bytes);
    for (std::string_view lang : formats::kTrainedLanguages) {
      out->add_trained_languages(std::string(lang));
    }
    for (formats::ContentType t :
         {formats::ContentType::kText, formats::ContentType::kMarkdown, formats::ContentType::kHtml,
          formats::ContentType::kPdf, formats::ContentType::kDocx, formats::ContentType::kOdt,
          formats::ContentType::kEpub}) {
      out->add_content_types(std::string(formats::MimeName(t)));
    }
    out->set_device(d.device);
    out->set_server_version(options_.server_version);
    out->set_torch_version(d.torch_version);
  }
  Finish(call.get(), absl::OkStatus());
}

// gRPC: the metadata and context become a CallInfo; the answer finishes the reactor, with a
// `retry-after-ms` trailer on RESOURCE_EXHAUSTED.
namespace {

CallInfo InfoFrom(grpc::CallbackServerContext* ctx) {
  CallInfo info;
  const auto& md = ctx->client_metadata();
  if (auto it = md.find("authorization"); it != md.end()) {
    info.authorization = std::string(it->second.data(), it->second.size());
  }
  info.deadline = Deadline(ctx);
  info.cancelled = [ctx] { return ctx->IsCancelled(); };
  auto id = md.find("x-request-id");
  info.request_id = id != md.end() && id->second.size() <= 128
                        ? std::string(id->second.data(), id->second.size())
                        : NewRequestId();
  ctx->AddInitialMetadata("x-request-id", info.request_id);
  return info;
}

}  // namespace

Done SummarizerService::GrpcDone(grpc::CallbackServerContext* ctx,
                                 grpc::ServerUnaryReactor* reactor) {
  return [this, ctx, reactor](const absl::Status& status) {
    if (status.code() == absl::StatusCode::kResourceExhausted) {
      ctx->AddTrailingMetadata("retry-after-ms", std::to_string(RetryAfterMs()));
    }
    reactor->Finish(ToGrpcStatus(status));
  };
}

grpc::ServerUnaryReactor* SummarizerService::Summarize(grpc::CallbackServerContext* ctx,
                                                       const v1::SummarizeRequest* request,
                                                       v1::SummarizeResponse* response) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  HandleSummarize(InfoFrom(ctx), request, response, GrpcDone(ctx, reactor));
  return reactor;
}

grpc::ServerUnaryReactor* SummarizerService::Estimate(grpc::CallbackServerContext* ctx,
                                                      const v1::SummarizeRequest* request,
                                                      v1::EstimateResponse* response) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  HandleEstimate(InfoFrom(ctx), request, response, GrpcDone(ctx, reactor));
  return reactor;
}

grpc::ServerUnaryReactor* SummarizerService::GetModelInfo(grpc::CallbackServerContext* ctx,
                                                          const v1::GetModelInfoRequest*,
                                                          v1::ModelInfo* response) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  HandleModelInfo(InfoFrom(ctx), response, GrpcDone(ctx, reactor));
  return reactor;
}

}  // namespace rpsum::server
