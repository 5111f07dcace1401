// The one place where rpsum.v1 messages become domain values and back (the server's edge).
#ifndef RPSUM_SERVER_CONVERT_H_
#define RPSUM_SERVER_CONVERT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
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
};

// Checks everything but the text itself (which preparation checks on a worker thread): one
// input set, the budget in range, the clip distance within the model's tables, known enum
// values. InvalidArgument names the field, the limit and the value. Thread-safe.
absl::StatusOr<RequestPlan> PlanRequest(const v1::SummarizeRequest& request,
                                        const model::ModelConfig& config);

// Chooses sentences and fills `response` from a prepared document and the model's result
// (a score per kept unit, and the k and attention mode it ran with). Thread-safe.
void FillSummary(const RequestPlan& plan, const model::PreparedDocument& doc,
                 const model::DocumentScores& result, v1::SummarizeResponse* response);

// What Estimate reports about a prepared document (cost and predictions are the caller's).
void FillEstimate(const model::PreparedDocument& doc, const model::ModelConfig& config,
                  int64_t clip_distance, v1::EstimateResponse* response);

void FillModelIdentity(const model::ModelDescription& d, v1::ModelIdentity* out);

}  // namespace rpsum::server

#endif  // RPSUM_SERVER_CONVERT_H_
