// Reads the corpus files of ../shared/data (gzip JSON lines: id, source, title, summary,
// document, optional references). Torch-free.
#ifndef RPSUM_TRAIN_CORPUS_H_
#define RPSUM_TRAIN_CORPUS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rpsum::train {

struct CorpusRecord {
  std::string id;
  std::string source;
  std::string title;
  std::string summary;
  std::string document;
  std::vector<std::string> references;  // all reference summaries (summary is the first)
};

// Reads a .jsonl or .jsonl.gz file (gzip is detected by its magic bytes). A malformed line is
// InvalidArgument naming the file and line number. `limit` > 0 stops after that many records.
absl::StatusOr<std::vector<CorpusRecord>> ReadCorpus(const std::string& path, int limit = 0);

// Reads one split ("train", "valid", "test") of one or more corpus folders, given as a
// comma-separated list ("corpus,corpus-extra"): <dir>/<split>.jsonl.gz of each, concatenated in
// that order. `limit` > 0 keeps the first N records of the whole list.
absl::StatusOr<std::vector<CorpusRecord>> ReadCorpusSplit(const std::string& dirs,
                                                          const std::string& split, int limit = 0);

// Reads a whole file, gunzipping it if it is gzip. NotFound if it cannot be opened.
absl::StatusOr<std::string> ReadMaybeGzip(const std::string& path);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_CORPUS_H_
