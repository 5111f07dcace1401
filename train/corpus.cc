#include "train/corpus.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "model/document.h"
#include "nlohmann/json.hpp"

namespace rpsum::model {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view TrimLine(std::string_view line) {
  while (!line.empty() && IsBlank(line.front())) line.remove_prefix(1);
  while (!line.empty() && IsBlank(line.back())) line.remove_suffix(1);
  return line;
}

// A heading's name for matching: lower case, without leading '#', a leading section number
// ("1.2 ") or a final ':'.
std::string HeadingName(std::string_view line) {
  line = TrimLine(line);
  while (!line.empty() && line.front() == '#') line.remove_prefix(1);
  line = TrimLine(line);
  size_t i = 0;
  while (i < line.size() && (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == '.')) {
    ++i;
  }
  if (i > 0) line = TrimLine(line.substr(i));
  while (!line.empty() && line.back() == ':') line.remove_suffix(1);
  line = TrimLine(line);
  std::string name(line);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

}  // namespace

std::vector<CorpusRecord> SectionSummaries(const std::vector<CorpusRecord>& documents,
                                           const SectionOptions& options, SectionCounts* counts) {
  static constexpr std::array<std::string_view, 6> kNames = {
      "abstract", "summary", "tl;dr", "tldr", "synopsis", "executive summary"};
  SectionCounts local;
  SectionCounts& n = counts != nullptr ? *counts : local;
  std::vector<CorpusRecord> out;
  for (const CorpusRecord& doc : documents) {
    const std::string_view text = doc.document;
    std::vector<std::string_view> lines;
    for (size_t b = 0;;) {
      const size_t e = text.find('\n', b);
      lines.push_back(text.substr(b, e - b));
      if (e == std::string_view::npos) break;
      b = e + 1;
    }
    std::vector<bool> heading(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string_view t = TrimLine(lines[i]);
      heading[i] = !t.empty() && IsHeadingLine(t);
    }
    auto section_end = [&](size_t i) {
      size_t j = i + 1;
      while (j < lines.size() && !heading[j]) ++j;
      return j;
    };
    size_t pick = lines.size();
    for (std::string_view name : kNames) {
      for (size_t i = 0; i < lines.size() && pick == lines.size(); ++i) {
        if (heading[i] && HeadingName(lines[i]) == name) pick = i;
      }
      if (pick < lines.size()) break;
    }
    if (pick == lines.size()) {
      ++n.no_section;
      continue;
    }
    std::vector<bool> cut(lines.size(), false);
    const size_t end = section_end(pick);
    std::fill(cut.begin() + static_cast<std::ptrdiff_t>(pick),
              cut.begin() + static_cast<std::ptrdiff_t>(end), true);
    CorpusRecord r;
    for (size_t i = pick + 1; i < end; ++i) {
      const std::string_view t = TrimLine(lines[i]);
      if (t.empty()) continue;
      if (!r.summary.empty()) r.summary += '\n';
      r.summary += t;
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      if (heading[i] && HeadingName(lines[i]) == "simple summary") {
        std::fill(cut.begin() + static_cast<std::ptrdiff_t>(i),
                  cut.begin() + static_cast<std::ptrdiff_t>(section_end(i)), true);
      }
    }
    bool first = true;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (cut[i]) continue;
      if (!first) r.document += '\n';
      r.document += lines[i];
      first = false;
    }
    const int32_t summary_words = CountWords(r.summary);
    const int32_t document_words = CountWords(r.document);
    if (summary_words < options.min_summary_words) {
      ++n.short_summary;
    } else if (document_words < options.min_document_words) {
      ++n.short_document;
    } else if (3 * summary_words > document_words) {
      ++n.long_summary;
    } else {
      r.id = absl::StrCat("section-", doc.id);
      r.source = doc.source;
      r.title = doc.title;
      r.references = {r.summary};
      out.push_back(std::move(r));
      ++n.kept;
    }
  }
  return out;
}

absl::StatusOr<std::string> ReadMaybeGzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files transparently too
  if (f == nullptr) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, n);
  const bool failed = n < 0;
  gzclose(f);
  if (failed) return absl::DataLossError(absl::StrCat(path, ": corrupt gzip data"));
  return out;
}

absl::StatusOr<std::vector<CorpusRecord>> ReadCorpus(const std::string& path, int limit) {
  absl::StatusOr<std::string> text = ReadMaybeGzip(path);
  if (!text.ok()) return text.status();
  std::vector<CorpusRecord> out;
  size_t pos = 0;
  int line_no = 0;
  while (pos < text->size() && (limit <= 0 || static_cast<int>(out.size()) < limit)) {
    size_t end = text->find('\n', pos);
    if (end == std::string::npos) end = text->size();
    ++line_no;
    if (end > pos) {
      try {
        const auto j = nlohmann::json::parse(text->begin() + pos, text->begin() + end);
        CorpusRecord r;
        r.id = j.value("id", "");
        r.source = j.value("source", "");
        r.title = j.value("title", "");
        r.summary = j.value("summary", "");
        r.document = j.value("document", "");
        if (j.contains("references")) {
          r.references = j.at("references").get<std::vector<std::string>>();
        } else {
          r.references = {r.summary};
        }
        out.push_back(std::move(r));
      } catch (const std::exception& e) {
        return absl::InvalidArgumentError(absl::StrCat(path, ":", line_no, ": ", e.what()));
      }
    }
    pos = end + 1;
  }
  return out;
}

absl::StatusOr<std::vector<CorpusRecord>> ReadCorpusSplit(const std::string& dirs,
                                                          const std::string& split, int limit) {
  std::vector<CorpusRecord> out;
  for (absl::string_view dir : absl::StrSplit(dirs, ',', absl::SkipEmpty())) {
    const int left = limit > 0 ? limit - static_cast<int>(out.size()) : 0;
    if (limit > 0 && left <= 0) break;
    absl::StatusOr<std::vector<CorpusRecord>> part =
        ReadCorpus(absl::StrCat(dir, "/", split, ".jsonl.gz"), left);
    if (!part.ok()) return part.status();
    for (CorpusRecord& r : *part) out.push_back(std::move(r));
  }
  if (out.empty()) {
    return absl::NotFoundError(absl::StrCat("no ", split, " records in '", dirs, "'"));
  }
  return out;
}

}  // namespace rpsum::model
