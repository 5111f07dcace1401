// Hostile inputs against the readers (docs/benchmarks.md, "Hostile input"): for every family
// of testing/hostile_inputs.h, the extraction time per byte at a small and a large size (64 KB
// and 4 MB by default), their ratio (linear work: about 1), and the large case's time against
// a well-formed document of the same format and size, measured in the same run; medians of
// REPS runs each, alternating. Peak resident memory of each large case, from a fresh process
// per case (--one).
//   bench-hostile [--small BYTES] [--large BYTES] [--reps N] [--only SUBSTRING] [--json FILE]
//   bench-hostile --one FAMILY --bytes N      (one extraction, for the peak RSS of a process)
//   bench-hostile --write FAMILY --bytes N --out FILE   (the document itself, for load tests)
//   bench-hostile --pdf-order FILE.pdf...     (dense pages in drawing order against poppler's
//                                               order everywhere: words and times)
//   bench-hostile --time-files FORMAT FILE...  (the slowest per byte of a fuzzing corpus:
//                                               bench/slow-fuzz)
//   bench-hostile --text FORMAT FILE...        (each file's extracted text and pieces' source
//                                               ranges, or its status: to compare two builds)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "formats/formats.h"
#include "nlohmann/json.hpp"
#include "testing/hostile_inputs.h"

namespace {

using rpsum::formats::ContentType;

struct Timed {
  double seconds = 0;
  std::string outcome;  // "ok" or the status code's name
};

Timed Time(const std::string& doc, ContentType type) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto x = rpsum::formats::Extract(doc, type, {});
  Timed t;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.outcome = x.ok() ? "ok" : absl::StatusCodeToString(x.status().code());
  return t;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Peak RSS (KB) of a fresh process that builds `family`'s document of `bytes` and extracts it:
// it prints its own high-water mark (VmHWM; a forked child's rusage would count the parent's
// pages it had before exec).
int64_t PeakRssKb(const char* self, const std::string& family, size_t bytes) {
  const std::string command =
      std::string(self) + " --one '" + family + "' --bytes " + std::to_string(bytes);
  FILE* child = popen(command.c_str(), "r");
  if (child == nullptr) return -1;
  long long kb = -1;  // NOLINT(google-runtime-int): fscanf's type
  if (std::fscanf(child, "%lld", &kb) != 1) kb = -1;
  pclose(child);
  return kb;
}

// This process's peak resident memory in KB (/proc/self/status, VmHWM).
int64_t OwnPeakRssKb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (absl::StartsWith(line, "VmHWM:")) return std::stoll(line.substr(6));
  }
  return -1;
}

const rpsum::test::HostileFamily* Find(const std::string& name) {
  for (const auto& f : rpsum::test::HostileFamilies()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

const char* FormatOf(ContentType t) {
  return t == ContentType::kHtml       ? "html"
         : t == ContentType::kMarkdown ? "markdown"
         : t == ContentType::kDocx     ? "docx"
         : t == ContentType::kOdt      ? "odt"
         : t == ContentType::kEpub     ? "epub"
                                       : "pdf";
}

// The slowest inputs per byte among `files` (a fuzzing corpus) of `format`: each of at least
// 4 KB timed (median of 3) beside a well-formed document of the same format and size, the five
// with the highest ratio printed as a Markdown table.
ContentType TypeNamed(const std::string& format) {
  return format == "html"       ? ContentType::kHtml
         : format == "markdown" ? ContentType::kMarkdown
         : format == "docx"     ? ContentType::kDocx
         : format == "odt"      ? ContentType::kOdt
         : format == "epub"     ? ContentType::kEpub
                                : ContentType::kPdf;
}

int PrintText(const std::string& format, const std::vector<std::string>& files) {
  for (const std::string& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto x = rpsum::formats::Extract(doc, TypeNamed(format), {});
    std::printf("== %s\n", path.c_str());
    if (!x.ok()) {
      std::printf("%s\n", x.status().ToString().c_str());
      continue;
    }
    std::printf("%s\n", x->text.c_str());
    for (const auto& p : x->pieces) std::printf("%u-%u ", p.source_begin, p.source_end);
    std::printf("\n");
  }
  return 0;
}

int TimeFiles(const std::string& format, const std::vector<std::string>& files) {
  const ContentType type = TypeNamed(format);
  struct Row {
    std::string file;
    size_t bytes;
    double us_per_kb, well_formed_us_per_kb;
  };
  std::vector<Row> rows;
  for (const std::string& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (doc.size() < 4096) continue;
    const std::string well = rpsum::test::WellFormed(type, doc.size());
    std::vector<double> t, w;
    for (int r = 0; r < 3; ++r) {
      t.push_back(Time(doc, type).seconds);
      w.push_back(Time(well, type).seconds);
    }
    const double kb = static_cast<double>(doc.size()) / 1024;
    const double wkb = static_cast<double>(well.size()) / 1024;
    rows.push_back({path.substr(path.rfind('/') + 1), doc.size(), Median(t) * 1e6 / kb,
                    Median(w) * 1e6 / wkb});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.us_per_kb / a.well_formed_us_per_kb > b.us_per_kb / b.well_formed_us_per_kb;
  });
  std::printf("%s: %zu inputs of 4 KB or more\n\n", format.c_str(), rows.size());
  std::printf(
      "| input | bytes | us/KB | well-formed us/KB | ratio |\n| --- | --- | --- | --- | --- |\n");
  for (size_t i = 0; i < rows.size() && i < 5; ++i) {
    std::printf("| %s | %zu | %.1f | %.1f | %.2f |\n", rows[i].file.c_str(), rows[i].bytes,
                rows[i].us_per_kb, rows[i].well_formed_us_per_kb,
                rows[i].us_per_kb / rows[i].well_formed_us_per_kb);
  }
  return 0;
}

// What reading dense PDF pages in drawing order changes on real PDFs: each file extracted
// with the default max_ordered_glyphs and with every page in poppler's reading order; their
// words as multisets (the words one has more of than the other) and times, as a Markdown table.
int ComparePdfOrder(const std::vector<std::string>& files) {
  std::printf("| file | pages | words | words differing | ms | ms, every page ordered |\n");
  std::printf("| --- | --- | --- | --- | --- | --- |\n");
  size_t all_words = 0, all_diff = 0;
  for (const std::string& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string pdf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    rpsum::formats::ExtractLimits ordered;
    ordered.max_ordered_runs = INT64_MAX;
    ordered.max_ordered_run_words = INT64_MAX;
    const auto t0 = std::chrono::steady_clock::now();
    const auto a = rpsum::formats::Extract(pdf, ContentType::kPdf, {});
    const auto t1 = std::chrono::steady_clock::now();
    const auto b = rpsum::formats::Extract(pdf, ContentType::kPdf, ordered);
    const auto t2 = std::chrono::steady_clock::now();
    if (!a.ok() || !b.ok()) {
      std::printf("| %s | not read | | | | |\n", path.c_str());
      continue;
    }
    std::map<std::string, long long> count;  // NOLINT(google-runtime-int)
    size_t words = 0;
    for (const auto& p : a->pieces) ++count[a->text.substr(p.begin, p.end - p.begin)], ++words;
    for (const auto& p : b->pieces) --count[b->text.substr(p.begin, p.end - p.begin)];
    size_t diff = 0;
    for (const auto& [w, c] : count) diff += static_cast<size_t>(c < 0 ? -c : c);
    all_words += words;
    all_diff += diff;
    std::printf("| %s | %d | %zu | %zu | %.0f | %.0f |\n", path.substr(path.rfind('/') + 1).c_str(),
                a->pages, words, diff, std::chrono::duration<double, std::milli>(t1 - t0).count(),
                std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  std::printf("| all | | %zu | %zu | | |\n", all_words, all_diff);
  return 0;
}

int Run(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--pdf-order") {
    return ComparePdfOrder(std::vector<std::string>(argv + 2, argv + argc));
  }
  if (argc >= 3 && std::string(argv[1]) == "--text") {
    return PrintText(argv[2], std::vector<std::string>(argv + 3, argv + argc));
  }
  if (argc >= 3 && std::string(argv[1]) == "--time-files") {
    return TimeFiles(argv[2], std::vector<std::string>(argv + 3, argv + argc));
  }
  size_t small = 64 << 10, large = 4 << 20, bytes = 0;
  int reps = 5;
  std::string only, json_path, one, write, out;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--small") small = std::stoul(value);
    if (flag == "--large") large = std::stoul(value);
    if (flag == "--reps") reps = std::stoi(value);
    if (flag == "--only") only = value;
    if (flag == "--json") json_path = value;
    if (flag == "--one") one = value;
    if (flag == "--bytes") bytes = std::stoul(value);
    if (flag == "--write") write = value;
    if (flag == "--out") out = value;
  }
  if (!write.empty()) {
    const auto* f = Find(write);
    if (f == nullptr) {
      std::fprintf(stderr, "bench-hostile: no family %s\n", write.c_str());
      return 2;
    }
    std::ofstream(out, std::ios::binary) << f->make(bytes);
    return 0;
  }
  if (!one.empty()) {  // the child of PeakRssKb: builds, extracts, exits
    if (absl::StartsWith(one, "well-formed/")) {
      const std::string format = one.substr(12);
      const ContentType t = TypeNamed(format);
      Time(rpsum::test::WellFormed(t, bytes), t);
      std::printf("%lld\n", static_cast<long long>(OwnPeakRssKb()));  // NOLINT
      return 0;
    }
    const auto* f = Find(one);
    if (f == nullptr) return 2;
    Time(f->make(bytes), f->type);
    std::printf("%lld\n", static_cast<long long>(OwnPeakRssKb()));  // NOLINT
    return 0;
  }
  nlohmann::json rows = nlohmann::json::array();
  // The well-formed baselines first: each family's large case is compared with its format's.
  std::vector<std::pair<std::string, rpsum::test::HostileFamily>> cases;
  for (ContentType t : {ContentType::kHtml, ContentType::kMarkdown, ContentType::kPdf,
                        ContentType::kDocx, ContentType::kOdt, ContentType::kEpub}) {
    cases.push_back({std::string("well-formed/") + FormatOf(t), {"", t, nullptr}});
  }
  for (const auto& f : rpsum::test::HostileFamilies()) {
    if (only.empty() || std::string(f.name).find(only) != std::string::npos) {
      cases.push_back({f.name, f});
    }
  }
  std::printf(
      "| case | outcome | us/KB at %zu KB | us/KB at %zu KB | ratio | x well-formed | "
      "peak RSS MB |\n| --- | --- | --- | --- | --- | --- | --- |\n",
      small >> 10, large >> 10);
  std::map<ContentType, double> baseline;  // the well-formed document's time at the large size
  for (const auto& [name, f] : cases) {
    const bool well = f.make == nullptr;
    const std::string a = well ? rpsum::test::WellFormed(f.type, small) : f.make(small);
    const std::string b = well ? rpsum::test::WellFormed(f.type, large) : f.make(large);
    std::vector<double> ta, tb;
    std::string outcome;
    for (int r = 0; r < reps; ++r) {  // alternating sizes
      ta.push_back(Time(a, f.type).seconds / static_cast<double>(a.size()));
      const Timed t = Time(b, f.type);
      tb.push_back(t.seconds / static_cast<double>(b.size()));
      outcome = t.outcome;
    }
    const double pa = Median(ta), pb = Median(tb);
    const double seconds_large = pb * static_cast<double>(b.size());
    if (well) baseline[f.type] = seconds_large;
    const double vs_well = baseline[f.type] > 0 ? seconds_large / baseline[f.type] : 0;
    const int64_t rss = PeakRssKb(argv[0], name, large);
    std::printf("| %s | %s | %.3f | %.3f | %.2f | %.2f | %.0f |\n", name.c_str(), outcome.c_str(),
                pa * 1e6 * 1024, pb * 1e6 * 1024, pb / pa, vs_well,
                static_cast<double>(rss) / 1024);
    std::fflush(stdout);
    rows.push_back({{"case", name},
                    {"format", FormatOf(f.type)},
                    {"outcome_large", outcome},
                    {"small_bytes", a.size()},
                    {"large_bytes", b.size()},
                    {"us_per_kb_small", pa * 1e6 * 1024},
                    {"us_per_kb_large", pb * 1e6 * 1024},
                    {"ratio_large_small", pb / pa},
                    {"seconds_large", seconds_large},
                    {"x_well_formed", vs_well},
                    {"peak_rss_mb_large", static_cast<double>(rss) / 1024}});
  }
  if (!json_path.empty()) {
    std::ofstream(json_path) << nlohmann::json{{"reps", reps}, {"rows", rows}}.dump(1) << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {  // a malformed number in a flag
    std::fprintf(stderr, "bench-hostile: %s\n", e.what());
    return 2;
  }
}
