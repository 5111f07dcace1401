#include "train/corpus.h"

#include <zlib.h>

#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace rpsum::train {

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

}  // namespace rpsum::train
