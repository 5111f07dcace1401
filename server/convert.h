// The one place where rpsum.v1 messages become domain values and back (the server's edge).
#ifndef RPSUM_SERVER_CONVERT_H_
#define RPSUM_SERVER_CONVERT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "formats/encoding.h"
#include "formats/formats.h"
#include "model/document.h"
#include "model/select.h"
#include "model/summarizer.h"
#include "rpsum/v1/summarizer.pb.h"

namespace rpsum::server {

// A validated request. `input` points into the request message, which must outlive it.
struct RequestPlan {
  model::DocumentInput input;
  model::SelectOptions select;
  int64_t clip_override = 0;
  model::TruncationPolicy truncation = model::TruncationPolicy::kReject;
  int priority = 2;  // PRIORITY_NORMAL
  bool return_all_scores = false;
  // The request's content type; nullopt: detect it (formats::Detect).
  std::optional<formats::ContentType> content_type;
  std::string charset;  // the content type's charset label; empty: none declared
  bool return_extracted_text = false;
  bool outline = false;  // SummarizeRequest.outline
};

// A document's text as the model reads it: for Markdown, HTML and PDF the extraction (and
// `input.document` of the plan points into it); for text not in UTF-8 its conversion (the same);
// else nothing. Owned by the call.
struct ReadDocument {
  formats::ContentType type = formats::ContentType::kText;
  std::optional<formats::Extracted> extracted;
  std::optional<formats::Decoded> converted;  // text/plain converted to UTF-8
  std::string encoding;                       // formats::Decoded (empty for PDF)
  std::string encoding_decided_by;
  std::string language;  // formats::DetectLanguage
};

// Checks everything but the text itself (which preparation checks on a worker thread): one
// input set, the budget in range, the clip distance within the model's tables, known enum
// values. InvalidArgument names the field, the limit and the value. Thread-safe.
absl::StatusOr<RequestPlan> PlanRequest(const v1::SummarizeRequest& request,
                                        const model::ModelConfig& config);

struct ReadOptions {
  uint64_t max_document_bytes = 5u << 20;  // the input's bytes, before extraction
  formats::ExtractLimits limits;
};

// Reads the plan's document: takes or detects its content type, reads text in its encoding
// (formats::Decode), extracts Markdown, HTML and PDF into `read` (then plan->input.document
// points into read->extracted or read->converted, which must neither move nor die before the
// plan) and detects its language. InvalidArgument for input over max_document_bytes, in an
// encoding that cannot be read, or that its format's reader refuses. Pre-split input is read
// as text. Thread-safe.
absl::Status ReadInput(const ReadOptions& options, RequestPlan* plan, ReadDocument* read);

// Which kept units of `doc` the format marked as headings (Markdown, HTML, Word, OpenDocument,
// a PDF's outline), for model::SelectForResponse's outline; empty where it marks none.
std::vector<bool> MarkedHeadings(const ReadDocument& read, const model::PreparedDocument& doc);

// Fills `response` from a prepared document, the model's result (a score per kept unit, and
// the k and attention mode it ran with) and the service's selection of it: each sentence with
// its place in the original document (`read`), the outline, the content type and language.
// Thread-safe.
void FillSummary(const RequestPlan& plan, const ReadDocument& read,
                 const model::PreparedDocument& doc, const model::DocumentScores& result,
                 const model::Selection& selection, v1::SummarizeResponse* response);

// What Estimate reports about a prepared document (cost and predictions are the caller's).
void FillEstimate(const ReadDocument& read, const model::PreparedDocument& doc,
                  const model::ModelConfig& config, int64_t clip_distance,
                  v1::EstimateResponse* response);

void FillModelIdentity(const model::ModelDescription& d, v1::ModelIdentity* out);

}  // namespace rpsum::server

#endif  // RPSUM_SERVER_CONVERT_H_
