// A minimal HTTP endpoint for Prometheus scrapes: GET /metrics answers the text exposition
// format (prometheus-cpp's TextSerializer) of the registered collectables. Our own rather
// than prometheus-cpp's civetweb Exposer: Debian's civetweb refuses to start (null context)
// in a process that has LibTorch loaded. One connection at a time, which suits scrapers.
#ifndef RPSUM_SERVER_METRICS_HTTP_H_
#define RPSUM_SERVER_METRICS_HTTP_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/collectable.h"

namespace rpsum::server {

class MetricsHttpServer {
 public:
  // Listens on `address` ("host:port"; port 0 picks a free one). The collectables are not
  // owned; each must outlive the server (weak pointers that expired are skipped).
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(
      const std::string& address, std::vector<std::weak_ptr<prometheus::Collectable>> sources);
  ~MetricsHttpServer();  // stops and joins
  int port() const { return port_; }

 private:
  MetricsHttpServer(int fd, int port, std::vector<std::weak_ptr<prometheus::Collectable>> s);
  void Loop();
  void Handle(int conn);

  const int fd_;
  const int port_;
  const std::vector<std::weak_ptr<prometheus::Collectable>> sources_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace rpsum::server

#endif  // RPSUM_SERVER_METRICS_HTTP_H_
