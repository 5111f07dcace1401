#include "server/http.h"

#include <httplib.h>

#include <cmath>
#include <future>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"
#include "prometheus/text_serializer.h"
#include "server/embedded.h"

namespace rpsum::server {

using nlohmann::json;

int HttpStatusFor(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kCancelled:
      return 499;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    default:
      return 500;
  }
}

namespace {

absl::Status Invalid(absl::string_view what) { return absl::InvalidArgumentError(what); }

// Moves a plain JSON string field into a bytes field's setter.
absl::Status TakeText(json& j, const char* name, const std::function<void(std::string)>& set) {
  auto it = j.find(name);
  if (it == j.end()) return absl::OkStatus();
  if (!it->is_string()) {
    return Invalid(absl::StrCat("field '", name, "' must be a JSON string (plain UTF-8 text)"));
  }
  set(it->get<std::string>());
  j.erase(it);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::SummarizeRequest> ParseSummarizeJson(const std::string& body) {
  json j;
  try {
    j = json::parse(body);
  } catch (const json::parse_error& e) {
    return Invalid(absl::StrCat("the body is not valid JSON: ", e.what()));
  }
  if (!j.is_object()) return Invalid("the body must be a JSON object (a SummarizeRequest)");
  v1::SummarizeRequest r;
  // Text travels as plain strings although the proto declares it bytes (whose JSON mapping
  // would be base64): take those fields out, then let protobuf map the rest.
  if (absl::Status s =
          TakeText(j, "document", [&](std::string t) { r.set_document(std::move(t)); });
      !s.ok()) {
    return s;
  }
  if (absl::Status s = TakeText(j, "title", [&](std::string t) { r.set_title(std::move(t)); });
      !s.ok()) {
    return s;
  }
  if (auto it = j.find("sentences"); it != j.end()) {
    const json& list = it->is_object() && it->contains("sentences") ? (*it)["sentences"] : *it;
    if (!list.is_array()) {
      return Invalid("field 'sentences' must be an array of JSON strings");
    }
    auto* out = r.mutable_sentences();
    for (const json& s : list) {
      if (!s.is_string()) return Invalid("field 'sentences' must be an array of JSON strings");
      out->add_sentences(s.get<std::string>());
    }
    j.erase(it);
  }
  if (r.has_document() && r.has_sentences()) {
    return Invalid("set either document or sentences, not both");
  }
  v1::SummarizeRequest rest;
  const auto parsed = google::protobuf::util::JsonStringToMessage(j.dump(), &rest);
  if (!parsed.ok()) {
    const std::string why(parsed.message().data(), parsed.message().size());
    return Invalid(absl::StrCat("the request does not match SummarizeRequest: ", why));
  }
  rest.MergeFrom(r);
  return rest;
}

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 &&
               HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The query string of the request target only: httplib also merges a form-encoded body into
// Request::params, and curl --data-binary sends any body as a form unless told otherwise.
std::vector<std::pair<std::string, std::string>> QueryParams(const std::string& target) {
  std::vector<std::pair<std::string, std::string>> out;
  const size_t q = target.find('?');
  if (q == std::string::npos) return out;
  const std::string_view all = target;
  std::string_view rest = all.substr(q + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view item = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    out.emplace_back(PercentDecode(item.substr(0, eq)),
                     eq == std::string_view::npos ? "" : PercentDecode(item.substr(eq + 1)));
  }
  return out;
}

// A text/plain (or any non-JSON) body is the document; the options come from the query string.
// Its Content-Type is the document's content type (text/markdown, text/html, application/pdf,
// text/plain), except the types that say nothing about it (curl's default for --data-binary,
// application/x-www-form-urlencoded, and application/octet-stream): those detect.
absl::StatusOr<v1::SummarizeRequest> ParsePlain(const httplib::Request& req) {
  v1::SummarizeRequest r;
  r.set_document(req.body);
  const std::string type = req.get_header_value("Content-Type");
  const std::string base = absl::AsciiStrToLower(type.substr(0, type.find(';')));
  if (!type.empty() && base != "application/x-www-form-urlencoded" &&
      base != "application/octet-stream") {
    r.set_content_type(type);
  }
  for (const auto& param : QueryParams(req.target)) {
    // Named copies, not structured bindings: the lambdas below capture them.
    const std::string& key = param.first;
    const std::string& value = param.second;
    auto number = [&](auto* out) -> absl::Status {
      if (!absl::SimpleAtoi(value, out)) {
        return Invalid(absl::StrCat("query parameter ", key, "=", value, " is not a number"));
      }
      return absl::OkStatus();
    };
    auto flag = [&]() { return value.empty() || value == "1" || value == "true"; };
    absl::Status s;
    uint32_t u = 0;
    if (key == "max_words") {
      if (s = number(&u); s.ok()) r.set_max_words(u);
    } else if (key == "max_sentences") {
      if (s = number(&u); s.ok()) r.set_max_sentences(u);
    } else if (key == "clip_distance") {
      if (s = number(&u); s.ok()) r.set_clip_distance(u);
    } else if (key == "ratio") {
      float f = 0;
      if (!absl::SimpleAtof(value, &f)) {
        s = Invalid(absl::StrCat("query parameter ratio=", value, " is not a number"));
      } else {
        r.set_ratio(f);
      }
    } else if (key == "title") {
      r.set_title(value);
    } else if (key == "truncation") {
      if (value == "reject") {
        r.set_truncation(v1::TRUNCATION_REJECT);
      } else if (value == "head") {
        r.set_truncation(v1::TRUNCATION_HEAD);
      } else if (value == "head_and_tail") {
        r.set_truncation(v1::TRUNCATION_HEAD_AND_TAIL);
      } else {
        s = Invalid(absl::StrCat("truncation=", value, ": want reject, head or head_and_tail"));
      }
    } else if (key == "priority") {
      if (value == "low") {
        r.set_priority(v1::PRIORITY_LOW);
      } else if (value == "normal") {
        r.set_priority(v1::PRIORITY_NORMAL);
      } else if (value == "high") {
        r.set_priority(v1::PRIORITY_HIGH);
      } else {
        s = Invalid(absl::StrCat("priority=", value, ": want low, normal or high"));
      }
    } else if (key == "keep_redundant") {
      r.set_keep_redundant(flag());
    } else if (key == "keep_boilerplate") {
      r.set_keep_boilerplate(flag());
    } else if (key == "outline") {
      r.set_outline(flag());
    } else if (key == "return_all_scores") {
      r.set_return_all_scores(flag());
    } else if (key == "return_extracted_text") {
      r.set_return_extracted_text(flag());
    } else if (key == "content_type") {
      r.set_content_type(value);
    } else {
      s = Invalid(absl::StrCat("unknown query parameter '", key, "'"));
    }
    if (!s.ok()) return s;
  }
  return r;
}

std::string ToJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  return out;
}

void SetError(httplib::Response& res, const absl::Status& s, int64_t retry_after_ms) {
  res.status = HttpStatusFor(s.code());
  if (s.code() == absl::StatusCode::kResourceExhausted && retry_after_ms > 0) {
    res.set_header("Retry-After", std::to_string((retry_after_ms + 999) / 1000));
  }
  const json body = {{"error",
                      {{"code", absl::StatusCodeToString(s.code())},
                       {"message", std::string(s.message().data(), s.message().size())}}}};
  res.set_content(body.dump() + "\n", "application/json");
}

}  // namespace

struct HttpServer::Impl {
  HttpOptions options;
  SummarizerService* service = nullptr;
  std::vector<std::weak_ptr<prometheus::Collectable>> metrics;
  std::function<bool()> ready;
  std::unique_ptr<httplib::Server> server;  // an httplib::SSLServer with TLS
  int port = 0;
  std::thread thread;

  CallInfo InfoFrom(const httplib::Request& req) const {
    CallInfo info;
    info.protocol = "http";
    const std::string id = req.get_header_value("X-Request-Id");
    info.request_id = !id.empty() && id.size() <= 128 ? id : NewRequestId();
    if (req.has_header("Authorization")) info.authorization = req.get_header_value("Authorization");
    if (req.has_header("X-Timeout-Ms")) {
      int64_t ms = 0;
      if (absl::SimpleAtoi(req.get_header_value("X-Timeout-Ms"), &ms) && ms > 0) {
        info.deadline = absl::Now() + absl::Milliseconds(ms);
      }
    }
    return info;
  }

  // Runs one service call and waits for its answer (this is an HTTP pool thread, not gRPC's).
  // The request and response live in a shared state the callback also holds.
  template <typename Response, typename Call>
  void Answer(const char* method, const httplib::Request& req, httplib::Response& res, Call call) {
    struct State {
      v1::SummarizeRequest request;
      Response response;
      std::promise<absl::Status> done;
    };
    auto state = std::make_shared<State>();
    CallInfo info = InfoFrom(req);
    res.set_header("X-Request-Id", info.request_id);
    if constexpr (!std::is_same_v<Response, v1::ModelInfo>) {
      const bool is_json =
          absl::StartsWith(req.get_header_value("Content-Type"), "application/json");
      auto parsed = is_json ? ParseSummarizeJson(req.body) : ParsePlain(req);
      if (!parsed.ok()) {
        service->RecordRejected(info, method, parsed.status(), req.body.size());
        SetError(res, parsed.status(), 0);
        return;
      }
      state->request = *std::move(parsed);
    }
    std::future<absl::Status> result = state->done.get_future();
    const absl::Time deadline = info.deadline;
    call(std::move(info), state.get(),
         [state](const absl::Status& s) { state->done.set_value(s); });
    // The deadline holds here as gRPC's does at its transport: a request still queued or
    // running when it passes is answered 504 now (the scheduler drops it when it comes up;
    // `state` lives until the service is done with it).
    if (deadline != absl::InfiniteFuture() &&
        result.wait_until(absl::ToChronoTime(deadline)) == std::future_status::timeout) {
      SetError(res, absl::DeadlineExceededError("the deadline (X-Timeout-Ms) passed"), 0);
      return;
    }
    const absl::Status s = result.get();
    if (!s.ok()) {
      SetError(res, s, service->RetryAfterMs());
      return;
    }
    res.set_content(ToJson(state->response) + "\n", "application/json");
  }

  void Routes() {
    server->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok\n", "text/plain");
    });
    server->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
      const bool ok = ready && ready();
      res.status = ok ? 200 : 503;
      res.set_content(ok ? "ready\n" : "not ready\n", "text/plain");
    });
    server->Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(PageHtml(), "text/html; charset=utf-8");
    });
    server->Get("/openapi.json", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(OpenApiJson(), "application/json");
    });
    server->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      std::vector<prometheus::MetricFamily> families;
      for (const auto& w : metrics) {
        if (auto s = w.lock()) {
          auto f = s->Collect();
          families.insert(families.end(), std::make_move_iterator(f.begin()),
                          std::make_move_iterator(f.end()));
        }
      }
      std::ostringstream out;
      prometheus::TextSerializer().Serialize(out, families);
      res.set_content(out.str(), "text/plain; version=0.0.4; charset=utf-8");
    });
    if (service == nullptr) return;
    server->Post("/v1/summarize", [this](const httplib::Request& req, httplib::Response& res) {
      Answer<v1::SummarizeResponse>(
          "Summarize", req, res, [this](CallInfo&& info, auto* st, Done&& done) {
            service->HandleSummarize(std::move(info), &st->request, &st->response, std::move(done));
          });
    });
    server->Post("/v1/estimate", [this](const httplib::Request& req, httplib::Response& res) {
      Answer<v1::EstimateResponse>(
          "Estimate", req, res, [this](CallInfo&& info, auto* st, Done&& done) {
            service->HandleEstimate(std::move(info), &st->request, &st->response, std::move(done));
          });
    });
    server->Get("/v1/model", [this](const httplib::Request& req, httplib::Response& res) {
      Answer<v1::ModelInfo>(
          "GetModelInfo", req, res, [this](CallInfo&& info, auto* st, Done&& done) {
            service->HandleModelInfo(std::move(info), &st->response, std::move(done));
          });
    });
  }
};

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const HttpOptions& options, SummarizerService* service,
    std::vector<std::weak_ptr<prometheus::Collectable>> metrics, std::function<bool()> ready) {
  const size_t colon = options.listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(options.listen.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return Invalid(absl::StrCat("bad HTTP address '", options.listen, "' (want host:port)"));
  }
  std::string host = options.listen.substr(0, colon);
  if (host.empty() || host == "*") host = "0.0.0.0";
  auto impl = std::make_unique<Impl>();
  if (options.cert_file.empty() != options.key_file.empty()) {
    return Invalid("HTTPS needs both a certificate and a key");
  }
  if (options.cert_file.empty()) {
    impl->server = std::make_unique<httplib::Server>();
  } else {
    auto tls = std::make_unique<httplib::SSLServer>(
        options.cert_file.c_str(), options.key_file.c_str(),
        options.client_ca_file.empty() ? nullptr : options.client_ca_file.c_str());
    if (!tls->is_valid()) {
      return Invalid(absl::StrCat("cannot use the TLS certificate ", options.cert_file, " and key ",
                                  options.key_file, " for HTTPS"));
    }
    impl->server = std::move(tls);
  }
  impl->options = options;
  impl->service = service;
  impl->metrics = std::move(metrics);
  impl->ready = std::move(ready);
  const int threads = std::max(2, options.threads);
  impl->server->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  impl->server->set_read_timeout(absl::ToChronoSeconds(options.read_timeout));
  impl->server->set_write_timeout(absl::ToChronoSeconds(options.write_timeout));
  impl->server->set_payload_max_length(options.max_body_bytes);
  // Without TCP_NODELAY a response written in two parts waits for the client's delayed ACK
  // (about 40 ms per request; bench/http-overhead measured 82 ms at p50).
  impl->server->set_tcp_nodelay(true);
  impl->server->set_socket_options([](socket_t sock) {
    int one = 1;  // SO_REUSEADDR only: never share a port with another process (SO_REUSEPORT)
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  });
  impl->Routes();
  // httplib's own refusals (413 past the body limit, 404, 400) as JSON errors like ours.
  const uint64_t max_body = options.max_body_bytes;
  impl->server->set_error_handler([max_body](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    absl::Status s;
    if (res.status == 413) {
      s = absl::ResourceExhaustedError(
          absl::StrCat("the body is larger than ", max_body, " bytes (max_document_bytes)"));
    } else if (res.status == 404) {
      s = absl::NotFoundError("no such endpoint: see /openapi.json");
    } else {
      s = Invalid(absl::StrCat("HTTP ", res.status));
    }
    const int status = res.status;
    SetError(res, s, 0);
    res.status = status;
  });
  impl->port = port == 0 ? impl->server->bind_to_any_port(host) : port;
  if (impl->port <= 0 || (port != 0 && !impl->server->bind_to_port(host, port))) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.listen));
  }
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->server->listen_after_bind(); });
  // Until the loop runs, stop() is a no-op (httplib checks is_running), so a server destroyed
  // right away would leave its thread in accept() forever: wait for it.
  while (!impl->server->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() {
  impl_->server->stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

int HttpServer::port() const { return impl_->port; }

}  // namespace rpsum::server
