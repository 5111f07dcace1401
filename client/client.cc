#include "client/client.h"

#include <cctype>
#include <fstream>
#include <random>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/files.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "proto/grpc_status.h"

namespace rpsum::client {
namespace {

bool Retryable(const absl::Status& s) {
  if (s.code() == absl::StatusCode::kResourceExhausted) {
    // An oversized message stays oversized; a full queue drains.
    return !absl::StrContains(s.message(), "larger than max");
  }
  return s.code() == absl::StatusCode::kUnavailable;
}

}  // namespace

Client::Client(const ClientOptions& o, std::shared_ptr<grpc::Channel> c)
    : options_(o), channel_(std::move(c)), stub_(v1::Summarizer::NewStub(channel_)) {}

absl::StatusOr<std::unique_ptr<Client>> Client::Create(const ClientOptions& o) {
  std::shared_ptr<grpc::ChannelCredentials> creds;
  grpc::ChannelArguments args;
  args.SetLoadBalancingPolicyName("round_robin");
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  if (o.tls || !o.ca_file.empty() || !o.cert_file.empty()) {
    grpc::SslCredentialsOptions ssl;
    if (!o.ca_file.empty()) {
      auto ca = ReadFile(o.ca_file);
      if (!ca.ok()) return ca.status();
      ssl.pem_root_certs = *ca;
    }
    if (!o.cert_file.empty() || !o.key_file.empty()) {
      auto cert = ReadFile(o.cert_file);
      auto key = ReadFile(o.key_file);
      if (!cert.ok()) return cert.status();
      if (!key.ok()) return key.status();
      ssl.pem_cert_chain = *cert;
      ssl.pem_private_key = *key;
    }
    creds = grpc::SslCredentials(ssl);
    if (!o.tls_server_name.empty()) args.SetSslTargetNameOverride(o.tls_server_name);
  } else {
    creds = grpc::InsecureChannelCredentials();
  }
  return std::unique_ptr<Client>(new Client(o, grpc::CreateCustomChannel(o.target, creds, args)));
}

v1::SummarizeRequest Client::Request(const std::string& document, const SummarizeOptions& o) const {
  v1::SummarizeRequest r;
  r.set_document(document);
  r.set_title(o.title);
  if (o.max_words > 0) r.set_max_words(o.max_words);
  if (o.max_sentences > 0) r.set_max_sentences(o.max_sentences);
  if (o.ratio > 0) r.set_ratio(o.ratio);
  r.set_clip_distance(o.clip_distance);
  r.set_truncation(o.truncation);
  r.set_priority(o.priority);
  r.set_keep_redundant(o.keep_redundant);
  r.set_keep_boilerplate(o.keep_boilerplate);
  r.set_outline(o.outline);
  r.set_content_type(o.content_type);
  return r;
}

std::string ContentTypeForFile(const std::string& path) {
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return "";
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == "md" || ext == "markdown") return "text/markdown";
  if (ext == "html" || ext == "htm" || ext == "xhtml") return "text/html";
  if (ext == "pdf") return "application/pdf";
  if (ext == "docx") {
    return "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
  }
  if (ext == "odt") return "application/vnd.oasis.opendocument.text";
  if (ext == "epub") return "application/epub+zip";
  if (ext == "txt") return "text/plain";
  return "";
}

template <typename Fn>
absl::Status Client::WithRetries(Fn attempt) {
  const absl::Time end = absl::Now() + options_.deadline;
  thread_local std::mt19937_64 rng(std::random_device{}());
  absl::Duration backoff = options_.initial_backoff;
  absl::Status last;
  for (int i = 0; i < std::max(1, options_.max_attempts); ++i) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(end));
    if (!options_.token.empty()) ctx.AddMetadata("authorization", "Bearer " + options_.token);
    last = FromGrpcStatus(attempt(&ctx));
    if (!Retryable(last) || i + 1 == options_.max_attempts) return last;
    // Full jitter; at least the server's hint when it gave one.
    absl::Duration wait = absl::Nanoseconds(
        std::uniform_int_distribution<int64_t>(0, absl::ToInt64Nanoseconds(backoff))(rng));
    const auto& md = ctx.GetServerTrailingMetadata();
    auto it = md.find("retry-after-ms");
    if (it != md.end()) {
      const int64_t hint = std::atoll(std::string(it->second.data(), it->second.size()).c_str());
      wait = std::max(wait, absl::Milliseconds(hint));
    }
    if (absl::Now() + wait >= end) return last;
    absl::SleepFor(wait);
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
  return last;
}

absl::StatusOr<Summary> Client::Summarize(const std::string& document,
                                          const SummarizeOptions& options) {
  const v1::SummarizeRequest req = Request(document, options);
  Summary out;
  absl::Status s = WithRetries([&](grpc::ClientContext* ctx) {
    out.Clear();
    return stub_->Summarize(ctx, req, &out);
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<v1::EstimateResponse> Client::Estimate(const std::string& document,
                                                      const SummarizeOptions& options) {
  const v1::SummarizeRequest req = Request(document, options);
  v1::EstimateResponse out;
  absl::Status s = WithRetries([&](grpc::ClientContext* ctx) {
    out.Clear();
    return stub_->Estimate(ctx, req, &out);
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<v1::ModelInfo> Client::GetModelInfo() {
  v1::ModelInfo out;
  absl::Status s = WithRetries([&](grpc::ClientContext* ctx) {
    return stub_->GetModelInfo(ctx, v1::GetModelInfoRequest(), &out);
  });
  if (!s.ok()) return s;
  return out;
}

absl::Status Client::Health(const std::string& service) {
  auto stub = grpc::health::v1::Health::NewStub(channel_);
  grpc::ClientContext ctx;
  ctx.set_deadline(
      absl::ToChronoTime(absl::Now() + std::min(options_.deadline, absl::Seconds(10))));
  grpc::health::v1::HealthCheckRequest req;
  req.set_service(service);
  grpc::health::v1::HealthCheckResponse resp;
  absl::Status s = FromGrpcStatus(stub->Check(&ctx, req, &resp));
  if (!s.ok()) return s;
  if (resp.status() != grpc::health::v1::HealthCheckResponse::SERVING) {
    return absl::UnavailableError(absl::StrCat(
        "health: ", grpc::health::v1::HealthCheckResponse::ServingStatus_Name(resp.status())));
  }
  return absl::OkStatus();
}

}  // namespace rpsum::client
