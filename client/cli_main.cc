// rpsum: the command-line client.
//   rpsum summarize FILE... | -     summarize files (or standard input)
//   rpsum estimate FILE... | -      what Summarize would cost, without running the model
//   rpsum info                      the model and the server's limits
//   rpsum health [--wait SECONDS] [--service NAME]   the standard health check (exit 0 when
//                                                    SERVING)
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "base/files.h"
#include "client/client.h"
#include "google/protobuf/util/json_util.h"

ABSL_FLAG(std::string, server, "127.0.0.1:50051", "server address (dns:///host:port balances)");
ABSL_FLAG(int, max_words, 0, "summary length in words (default: the server's 100)");
ABSL_FLAG(int, max_sentences, 0, "summary length in sentences");
ABSL_FLAG(double, ratio, 0, "summary length as a fraction of the input's words");
ABSL_FLAG(int, clip_distance, 0, "override the model's clip distance k (0: its policy)");
ABSL_FLAG(std::string, truncation, "reject", "reject, head or head_and_tail");
ABSL_FLAG(std::string, title, "", "document title");
ABSL_FLAG(bool, outline, false,
          "print the document's outline: each section's heading (indented by its level) and its "
          "own summary, after the summary");
ABSL_FLAG(bool, keep_boilerplate, false,
          "let licences, tables of contents, indexes, references and change logs into the "
          "summary (left out by default)");
ABSL_FLAG(std::string, content_type, "",
          "the documents' MIME type (text/plain, text/markdown, text/html, application/pdf, "
          "DOCX, ODT and EPUB's; a text type may name a charset); default: from each file's "
          "extension (.md, .html, .pdf, .docx, .odt, .epub, .txt), else the server detects");
ABSL_FLAG(bool, json, false, "print the full responses as JSON lines");
ABSL_FLAG(int, concurrency, 4, "files in flight at once");
ABSL_FLAG(std::string, token_file, "", "file with the bearer token");
ABSL_FLAG(bool, tls, false, "use TLS (system roots unless --tls_ca)");
ABSL_FLAG(std::string, tls_ca, "", "CA certificate (PEM) for the server");
ABSL_FLAG(std::string, tls_cert, "", "client certificate (PEM) for mutual TLS");
ABSL_FLAG(std::string, tls_key, "", "client key (PEM) for mutual TLS");
ABSL_FLAG(std::string, tls_server_name, "", "name the server certificate must match");
ABSL_FLAG(double, deadline, 120, "seconds per request, retries included");
ABSL_FLAG(double, wait, 0, "health: keep checking up to this many seconds");
ABSL_FLAG(std::string, service, "",
          "health: the service to check (\"\": readiness, \"liveness\": the process answers)");

namespace rpsum::client {
namespace {

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  if (path != "-") return ReadFile(path);
  std::stringstream s;
  s << std::cin.rdbuf();
  return s.str();
}

std::string Json(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  return out;
}

int Fail(const std::string& what, const absl::Status& s) {
  std::fprintf(stderr, "rpsum: %s: %s\n", what.c_str(), s.ToString().c_str());
  return 1;
}

absl::StatusOr<ClientOptions> OptionsFromFlags() {
  ClientOptions o;
  o.target = absl::GetFlag(FLAGS_server);
  o.tls = absl::GetFlag(FLAGS_tls);
  o.ca_file = absl::GetFlag(FLAGS_tls_ca);
  o.cert_file = absl::GetFlag(FLAGS_tls_cert);
  o.key_file = absl::GetFlag(FLAGS_tls_key);
  o.tls_server_name = absl::GetFlag(FLAGS_tls_server_name);
  o.deadline = absl::Seconds(absl::GetFlag(FLAGS_deadline));
  if (!absl::GetFlag(FLAGS_token_file).empty()) {
    auto t = ReadFile(absl::GetFlag(FLAGS_token_file));
    if (!t.ok()) return t.status();
    o.token = std::string(absl::StripAsciiWhitespace(*t));
  }
  return o;
}

SummarizeOptions SummarizeOptionsFromFlags() {
  SummarizeOptions so;
  so.max_words = absl::GetFlag(FLAGS_max_words);
  so.max_sentences = absl::GetFlag(FLAGS_max_sentences);
  so.ratio = static_cast<float>(absl::GetFlag(FLAGS_ratio));
  so.clip_distance = absl::GetFlag(FLAGS_clip_distance);
  so.title = absl::GetFlag(FLAGS_title);
  so.keep_boilerplate = absl::GetFlag(FLAGS_keep_boilerplate);
  so.outline = absl::GetFlag(FLAGS_outline);
  so.content_type = absl::GetFlag(FLAGS_content_type);
  const std::string t = absl::GetFlag(FLAGS_truncation);
  so.truncation = t == "head"            ? v1::TRUNCATION_HEAD
                  : t == "head_and_tail" ? v1::TRUNCATION_HEAD_AND_TAIL
                                         : v1::TRUNCATION_REJECT;
  return so;
}

// rpsum health: polls until SERVING or --wait runs out.
int Health(Client& client) {
  const absl::Time end = absl::Now() + absl::Seconds(absl::GetFlag(FLAGS_wait));
  absl::Status s;
  while (true) {
    s = client.Health(absl::GetFlag(FLAGS_service));
    if (s.ok() || absl::Now() >= end) break;
    absl::SleepFor(absl::Milliseconds(200));
  }
  if (!s.ok()) return Fail("health", s);
  std::printf("SERVING\n");
  return 0;
}

// rpsum info: the model and the server's limits, as JSON.
int Info(Client& client) {
  auto info = client.GetModelInfo();
  if (!info.ok()) return Fail("info", info.status());
  std::printf("%s\n", Json(*info).c_str());
  return 0;
}

// One file of `rpsum summarize`: the summary text, or the full response as JSON.
absl::StatusOr<std::string> SummarizeOne(Client& client, const std::string& text,
                                         const SummarizeOptions& so, const std::string& header) {
  auto r = client.Summarize(text, so);
  if (!r.ok()) return r.status();
  if (absl::GetFlag(FLAGS_json)) return Json(*r);
  std::string out = absl::StrCat(header, r->summary());
  for (const v1::OutlineSection& s : r->outline()) {
    const std::string indent(2 * static_cast<size_t>(std::max<uint32_t>(s.level(), 1) - 1), ' ');
    absl::StrAppend(&out, "\n\n", indent, "# ",
                    s.title().empty() ? "(before the first heading)" : s.title(),
                    s.boilerplate() ? " [boilerplate]" : "");
    for (const v1::Sentence& sent : s.sentences()) {
      absl::StrAppend(&out, "\n", indent, "  ", sent.text());
    }
  }
  return out;
}

// One file of `rpsum estimate`: the estimate as JSON.
absl::StatusOr<std::string> EstimateOne(Client& client, const std::string& text,
                                        const SummarizeOptions& so) {
  auto e = client.Estimate(text, so);
  if (!e.ok()) return e.status();
  return Json(*e);
}

// Runs `one` over the files with --concurrency threads, a progress bar on a terminal; prints
// the outputs in file order (answers on stdout, failures on stderr). Exit 1 if any failed.
using PerFile =
    std::function<absl::StatusOr<std::string>(const std::string& file, const std::string& text)>;
int ForEachFile(const std::vector<std::string>& files, const PerFile& one) {
  std::vector<absl::StatusOr<std::string>> outputs(files.size(), std::string());
  std::atomic<size_t> next{0};
  std::atomic<int> done{0};
  std::mutex print_mu;
  const bool progress = files.size() > 1 && isatty(STDERR_FILENO);
  auto worker = [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      auto text = ReadInput(files[i]);
      outputs[i] = text.ok() ? one(files[i], *text) : text.status();
      const size_t d = static_cast<size_t>(++done);
      if (progress) {
        std::lock_guard<std::mutex> lock(print_mu);
        const size_t width = 30, filled = width * d / files.size();
        std::fprintf(stderr, "\r[%s%s] %zu/%zu", std::string(filled, '#').c_str(),
                     std::string(width - filled, ' ').c_str(), d, files.size());
      }
    }
  };
  const size_t n =
      std::clamp<size_t>(static_cast<size_t>(absl::GetFlag(FLAGS_concurrency)), 1, files.size());
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t i = 0; i < n; ++i) threads.emplace_back(worker);
  for (auto& th : threads) th.join();
  if (progress) std::fprintf(stderr, "\n");
  int failed = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    if (outputs[i].ok()) {
      std::printf("%s\n", outputs[i]->c_str());
    } else {
      ++failed;
      Fail(files[i], outputs[i].status());
    }
  }
  return failed > 0 ? 1 : 0;
}

int Run(const std::vector<char*>& args) {
  if (args.size() < 2) {
    std::fprintf(stderr,
                 "usage: rpsum summarize|estimate FILE...|-  |  rpsum info  |  rpsum health\n");
    return 2;
  }
  const std::string cmd = args[1];
  if (cmd != "health" && cmd != "info" && cmd != "summarize" && cmd != "estimate") {
    std::fprintf(stderr, "rpsum: unknown command '%s'\n", cmd.c_str());
    return 2;
  }
  auto options = OptionsFromFlags();
  if (!options.ok()) return Fail("token", options.status());
  auto client = Client::Create(*options);
  if (!client.ok()) return Fail("client", client.status());
  if (cmd == "health") return Health(**client);
  if (cmd == "info") return Info(**client);

  std::vector<std::string> files(args.begin() + 2, args.end());
  if (files.empty()) files.emplace_back("-");
  const SummarizeOptions so = SummarizeOptionsFromFlags();
  Client& c = **client;
  // Each file's content type: the flag's, else its extension's.
  auto options_for = [&so](const std::string& file) {
    SummarizeOptions o = so;
    if (o.content_type.empty()) o.content_type = ContentTypeForFile(file);
    return o;
  };
  if (cmd == "estimate") {
    return ForEachFile(files, [&](const std::string& file, const std::string& text) {
      return EstimateOne(c, text, options_for(file));
    });
  }
  const bool headers = files.size() > 1;
  return ForEachFile(files, [&](const std::string& file, const std::string& text) {
    return SummarizeOne(c, text, options_for(file), headers ? absl::StrCat("== ", file, "\n") : "");
  });
}

}  // namespace
}  // namespace rpsum::client

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "rpsum summarize FILE...|- | rpsum estimate FILE...|- | rpsum info | rpsum health\n"
      "The same over HTTP/JSON (the server's --metrics_listen port, 9464 by default):\n"
      "  curl -s --data-binary @FILE 'HOST:9464/v1/summarize?max_words=80'\n"
      "  curl -s -H 'Content-Type: application/pdf' --data-binary @FILE.pdf "
      "HOST:9464/v1/summarize   (also text/markdown, text/html)\n"
      "  curl -s --data-binary @FILE HOST:9464/v1/estimate\n"
      "  curl -s HOST:9464/v1/model\n"
      "  curl -s HOST:9464/readyz   (health; /healthz is liveness)\n"
      "  with a token: -H 'Authorization: Bearer TOKEN'; a deadline: -H 'X-Timeout-Ms: 5000'");
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  return rpsum::client::Run(args);
}
