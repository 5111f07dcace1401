// Reads the corpus files of ../shared/data (gzip JSON lines: id, source, title, summary,
// document, optional references). Torch-free.
#ifndef RPSUM_TRAIN_CORPUS_H_
#define RPSUM_TRAIN_CORPUS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rpsum::model {

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

// Structure-derived training records (docs/design.md, section 3): `unlabeled/` keeps the
// Abstract or Summary sections of its documents. For each document with a summary-like section
// (the first heading named, in this order, Abstract, Summary, TL;DR, TLDR, Synopsis or
// Executive summary; case, a leading '#', a leading number and a final ':' ignored), that
// section (its lines up to the next heading, model::IsHeadingLine) becomes the record's
// summary, its trimmed non-empty lines joined by '\n', and is cut from the document together
// with every "Simple Summary" section (a second summary the labelled corpora drop too). Kept
// when the summary has at least min_summary_words words, the rest at least min_document_words,
// and the summary is at most a third of the rest. Ids are "section-" + the document's id.
struct SectionOptions {
  int min_summary_words = 15;
  int min_document_words = 400;
};
struct SectionCounts {
  int64_t kept = 0;
  int64_t no_section = 0;
  int64_t short_summary = 0;
  int64_t short_document = 0;
  int64_t long_summary = 0;
};
std::vector<CorpusRecord> SectionSummaries(const std::vector<CorpusRecord>& documents,
                                           const SectionOptions& options,
                                           SectionCounts* counts = nullptr);

// Reads a whole file, gunzipping it if it is gzip. NotFound if it cannot be opened.
absl::StatusOr<std::string> ReadMaybeGzip(const std::string& path);

}  // namespace rpsum::model

#endif  // RPSUM_TRAIN_CORPUS_H_
