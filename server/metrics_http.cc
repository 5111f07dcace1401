#include "server/metrics_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "prometheus/metric_family.h"
#include "prometheus/text_serializer.h"

namespace rpsum::server {

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const std::string& address, std::vector<std::weak_ptr<prometheus::Collectable>> sources) {
  const size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad metrics address '", address, "' (want host:port)"));
  }
  std::string host = address.substr(0, colon);
  if (host.empty() || host == "*") host = "0.0.0.0";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (host == "localhost") host = "127.0.0.1";
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics host '", host, "' is not an IPv4 address"));
  }
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError("socket() failed");
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 16) != 0) {
    const std::string err = std::strerror(errno);
    close(fd);
    return absl::UnavailableError(absl::StrCat("cannot listen on ", address, ": ", err));
  }
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return std::unique_ptr<MetricsHttpServer>(
      new MetricsHttpServer(fd, ntohs(addr.sin_port), std::move(sources)));
}

MetricsHttpServer::MetricsHttpServer(int fd, int port,
                                     std::vector<std::weak_ptr<prometheus::Collectable>> s)
    : fd_(fd), port_(port), sources_(std::move(s)), thread_([this] { Loop(); }) {}

MetricsHttpServer::~MetricsHttpServer() {
  stop_ = true;
  thread_.join();
  close(fd_);
}

void MetricsHttpServer::Loop() {
  while (!stop_) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    const int conn = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) continue;
    timeval tv{2, 0};
    setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    Handle(conn);
    close(conn);
  }
}

void MetricsHttpServer::Handle(int conn) {
  std::string req;
  char buf[4096];
  while (!absl::StrContains(req, "\r\n\r\n") && req.size() < 16384) {
    const ssize_t n = recv(conn, buf, sizeof(buf), 0);
    if (n <= 0) break;
    req.append(buf, static_cast<size_t>(n));
  }
  std::string status = "200 OK", type = "text/plain; version=0.0.4; charset=utf-8", body;
  if (absl::StartsWith(req, "GET /metrics") || absl::StartsWith(req, "HEAD /metrics")) {
    std::vector<prometheus::MetricFamily> families;
    for (const auto& w : sources_) {
      if (auto s = w.lock()) {
        auto f = s->Collect();
        families.insert(families.end(), std::make_move_iterator(f.begin()),
                        std::make_move_iterator(f.end()));
      }
    }
    std::ostringstream out;
    prometheus::TextSerializer().Serialize(out, families);
    body = out.str();
  } else if (absl::StartsWith(req, "GET / ")) {
    type = "text/html";
    body = "<a href=\"/metrics\">/metrics</a>\n";
  } else {
    status = "404 Not Found";
    body = "only GET /metrics is served here\n";
  }
  std::string head =
      absl::StrCat("HTTP/1.1 ", status, "\r\nContent-Type: ", type,
                   "\r\nContent-Length: ", body.size(), "\r\nConnection: close\r\n\r\n");
  if (absl::StartsWith(req, "HEAD ")) body.clear();
  const std::string all = head + body;
  size_t sent = 0;
  while (sent < all.size()) {
    const ssize_t n = send(conn, all.data() + sent, all.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
}

}  // namespace rpsum::server
