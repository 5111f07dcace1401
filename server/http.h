// The HTTP/JSON front end (cpp-httplib, Debian's libcpp-httplib): the same three methods as
// gRPC through the same SummarizerService (auth, limits, scheduler, deadlines, metrics), plus
// /metrics, /healthz and /readyz for load balancers and scrapers without gRPC. Endpoints:
//
//   POST /v1/summarize   JSON SummarizeRequest (proto JSON mapping; `document`, `title` and
//                        `sentences` as plain JSON strings), or a text/plain body that is the
//                        document, with the options as query parameters
//   POST /v1/estimate    the same input; EstimateResponse
//   GET  /v1/model       ModelInfo
//   GET  /metrics        Prometheus text format
//   GET  /healthz        200 while the process answers
//   GET  /readyz         200 when the model is loaded and the server is not draining, else 503
//
// Errors are JSON {"error": {"code": "INVALID_ARGUMENT", "message": "..."}} with the usual HTTP
// status (400, 401, 404, 413, 429 with Retry-After, 503, 504). `Authorization: Bearer <token>`
// as in gRPC; `X-Timeout-Ms` sets the deadline. Connections are served by a bounded pool with
// read and write timeouts, so a slow or stuck client holds one thread, never the server.
// docs/design.md, section 4.
#ifndef RPSUM_SERVER_HTTP_H_
#define RPSUM_SERVER_HTTP_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "prometheus/collectable.h"
#include "server/service.h"

namespace rpsum::server {

struct HttpOptions {
  std::string listen = "127.0.0.1:9464";  // host:port (port 0: any free port)
  int threads = 16;                       // connections served at once
  absl::Duration read_timeout = absl::Seconds(10);
  absl::Duration write_timeout = absl::Seconds(10);
  uint64_t max_body_bytes = 6u << 20;  // larger bodies get 413
  // TLS (HTTPS) with the gRPC port's certificate and key (PEM files); with client_ca_file,
  // clients must present a certificate it signed (mutual TLS). Empty: plain HTTP.
  std::string cert_file, key_file, client_ca_file;
};

class HttpServer {
 public:
  // Listens and serves on its own threads. `service` may be null (metrics and health only);
  // `ready` answers /readyz. None of the pointers is owned; all outlive the server.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      const HttpOptions& options, SummarizerService* service,
      std::vector<std::weak_ptr<prometheus::Collectable>> metrics, std::function<bool()> ready);
  ~HttpServer();  // stops and joins

  int port() const;

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// HTTP status for an absl status code (OK 200, INVALID_ARGUMENT 400, UNAUTHENTICATED 401,
// NOT_FOUND 404, RESOURCE_EXHAUSTED 429, CANCELLED 499, UNAVAILABLE 503, DEADLINE_EXCEEDED
// 504, others 500).
int HttpStatusFor(absl::StatusCode code);

// A JSON SummarizeRequest with text fields as plain strings, into the proto. INVALID_ARGUMENT
// says where the JSON is malformed or which field is wrong.
absl::StatusOr<v1::SummarizeRequest> ParseSummarizeJson(const std::string& body);

}  // namespace rpsum::server

#endif  // RPSUM_SERVER_HTTP_H_
