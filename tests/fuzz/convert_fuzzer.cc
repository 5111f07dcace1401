// libFuzzer target for the proto-to-domain conversion: any bytes are parsed as a
// rpsum.v1.SummarizeRequest (most inputs are malformed protobuf, as a hostile peer's would be);
// parsed ones go through PlanRequest (field validation), then, when accepted, through
// preparation and FillSummary/FillEstimate with synthetic scores, exactly as the service does.
// Invariants: no crash or sanitizer report; a rejected request's status is INVALID_ARGUMENT
// with a message; an accepted one yields sentences in document order whose offsets point at
// their text inside the input, within the word budget unless a single unit exceeds it.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "model/document.h"
#include "model/model_config.h"
#include "model/tokenizer.h"
#include "server/convert.h"
#include "testing/byte_tokenizer.h"

namespace rpsum {
namespace {

[[noreturn]] void Fail(const char* what) {
  __builtin_trap();
  std::abort();
  (void)what;
}

int FuzzOne(const uint8_t* data, size_t size) {
  static const test::ByteTokenizer kTokenizer;
  static const model::ModelConfig kConfig = [] {
    model::ModelConfig c;
    c.architecture.max_clip_distance = 64;
    return c;
  }();
  v1::SummarizeRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  auto plan = server::PlanRequest(request, kConfig);
  if (!plan.ok()) {
    if (plan.status().code() != absl::StatusCode::kInvalidArgument) Fail("status code");
    if (plan.status().message().empty()) Fail("empty message");
    return 0;
  }
  server::ReadDocument read;
  server::ReadOptions ro;
  ro.max_document_bytes = 1 << 16;
  if (!server::ReadInput(ro, &*plan, &read).ok()) return 0;
  model::PrepareOptions po;
  po.max_document_bytes = 1 << 16;
  po.max_input_tokens = 4096;
  po.max_units = 256;
  po.truncation = plan->truncation;
  auto doc = model::Prepare(plan->input, kTokenizer, po);
  if (!doc.ok()) return 0;
  model::DocumentScores scores;
  scores.scores.resize(doc->kept.size());
  for (size_t i = 0; i < scores.scores.size(); ++i) {
    scores.scores[i] = static_cast<float>((i * 7919) % 101) / 100;
  }
  scores.clip_distance = 4;
  v1::SummarizeResponse response;
  const model::Selection selection =
      model::SelectForResponse(*doc, doc->KeptTexts(plan->input), scores.scores, plan->select, {},
                               plan->outline, server::MarkedHeadings(read, *doc));
  server::FillSummary(*plan, read, *doc, scores, selection, &response);
  uint32_t last = 0;
  for (int i = 0; i < response.sentences_size(); ++i) {
    const v1::Sentence& s = response.sentences(i);
    if (i > 0 && s.index() <= last) Fail("document order");
    last = s.index();
    if (s.begin() > s.end()) Fail("offsets");
    if (s.source_begin() > s.source_end()) Fail("source offsets");
    if (read.extracted && s.source_end() > request.document().size()) Fail("source range");
    if (!plan->input.presplit) {
      const std::string_view src = plan->input.document;
      if (s.end() > src.size() || src.substr(s.begin(), s.end() - s.begin()) != s.text()) {
        Fail("offsets point at the text");
      }
    }
  }
  v1::EstimateResponse estimate;
  server::FillEstimate(read, *doc, kConfig, 4, &estimate);
  if (estimate.input_tokens() != doc->tokens.size()) Fail("estimate tokens");
  return 0;
}

}  // namespace
}  // namespace rpsum

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rpsum::FuzzOne(data, size);
}
