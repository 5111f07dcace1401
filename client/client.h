// The thin C++ client of rpsum.v1: deadlines, retries with exponential backoff and full
// jitter on UNAVAILABLE and RESOURCE_EXHAUSTED only (honouring the server's retry-after-ms
// hint), TLS and mutual TLS, bearer tokens, and dns:/// targets balanced round robin.
#ifndef RPSUM_CLIENT_CLIENT_H_
#define RPSUM_CLIENT_CLIENT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "rpsum/v1/summarizer.grpc.pb.h"

namespace rpsum::client {

struct ClientOptions {
  // "host:port", "dns:///host:port" (every resolved address, round robin), "unix:path".
  std::string target = "127.0.0.1:50051";
  // Bearer token sent as `authorization: Bearer <token>`; empty: none.
  std::string token;
  // TLS: on when tls is true or any file is given. ca_file verifies the server (default: the
  // system roots); cert_file and key_file present a client certificate (mutual TLS).
  bool tls = false;
  std::string ca_file, cert_file, key_file;
  // Overrides the name the server certificate must match (tests, IP targets).
  std::string tls_server_name;
  // Per attempt and overall.
  absl::Duration deadline = absl::Seconds(120);
  int max_attempts = 4;
  absl::Duration initial_backoff = absl::Milliseconds(100);
  absl::Duration max_backoff = absl::Seconds(5);
};

struct SummarizeOptions {
  uint32_t max_words = 0;  // set at most one of the three budgets (none: the server's 100 words)
  uint32_t max_sentences = 0;
  float ratio = 0;
  uint32_t clip_distance = 0;
  v1::Truncation truncation = v1::TRUNCATION_UNSPECIFIED;
  v1::Priority priority = v1::PRIORITY_UNSPECIFIED;
  std::string title;
  bool keep_redundant = false;
  bool keep_boilerplate = false;  // SummarizeRequest.keep_boilerplate
  bool outline = false;           // SummarizeRequest.outline
  // The document's MIME type (SummarizeRequest.content_type); empty: the server detects it.
  std::string content_type;
};

// The content type of a file from its extension: .md/.markdown text/markdown, .html/.htm/.xhtml
// text/html, .pdf application/pdf, .docx, .odt and .epub theirs, .txt text/plain; "" for
// anything else (the server detects).
std::string ContentTypeForFile(const std::string& path);

// The server's answer: summary text, selected sentences with offsets and scores, sizes,
// clip distance, attention mode, model identity and stage timings.
using Summary = v1::SummarizeResponse;

class Client {
 public:
  // Builds the channel (no connection is made yet). InvalidArgument for unreadable TLS files.
  static absl::StatusOr<std::unique_ptr<Client>> Create(const ClientOptions& options);

  absl::StatusOr<Summary> Summarize(const std::string& document,
                                    const SummarizeOptions& options = {});
  absl::StatusOr<v1::EstimateResponse> Estimate(const std::string& document,
                                                const SummarizeOptions& options = {});
  absl::StatusOr<v1::ModelInfo> GetModelInfo();
  // The standard health check: OK if SERVING; Unavailable with the status otherwise.
  absl::Status Health(const std::string& service = "");

  // Thread-safe: one Client may serve many threads.
 private:
  explicit Client(const ClientOptions& o, std::shared_ptr<grpc::Channel> c);
  template <typename Fn>
  absl::Status WithRetries(Fn attempt);
  v1::SummarizeRequest Request(const std::string& document, const SummarizeOptions& o) const;

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Summarizer::Stub> stub_;
};

}  // namespace rpsum::client

#endif  // RPSUM_CLIENT_CLIENT_H_
