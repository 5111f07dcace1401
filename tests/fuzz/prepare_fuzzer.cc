// libFuzzer target over the whole preparation path: validation, sentence units (ICU),
// SentencePiece tokenization, truncation and the model input. The first byte picks the options
// (truncation policy, pre-split input, limits); the rest is the document. Checks the invariants
// every caller relies on and aborts if one breaks.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/document.h"
#include "model/tokenizer.h"
#include "testing/byte_tokenizer.h"

namespace {

const rpsum::model::Tokenizer& GetTokenizer() {
  static const rpsum::model::Tokenizer* tok = [] {
    const char* path = std::getenv("RPSUM_FUZZ_TOKENIZER");
    if (path != nullptr) {
      std::string error;
      auto t = rpsum::model::Tokenizer::Load(path, &error);
      if (t != nullptr) return static_cast<const rpsum::model::Tokenizer*>(t.release());
    }
    return static_cast<const rpsum::model::Tokenizer*>(new rpsum::test::ByteTokenizer());
  }();
  return *tok;
}

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  rpsum::model::PrepareOptions o;
  o.truncation = static_cast<rpsum::model::TruncationPolicy>(mode % 3);
  o.max_document_bytes = (mode & 0x10) ? 64 : (1u << 20);
  o.max_input_tokens = (mode & 0x20) ? 16 : 4096;
  o.max_units = (mode & 0x40) ? 3 : 512;
  o.max_tokens_per_unit = (mode & 0x08) ? 2 : 64;
  rpsum::model::DocumentInput in;
  std::vector<std::string> parts;
  if (mode & 0x80) {  // pre-split: sentences separated by 0x1e
    in.presplit = true;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == '\x1e') {
        parts.push_back(text.substr(start, i - start));
        start = i + 1;
      }
    }
    for (const auto& p : parts) in.units.push_back(p);
  } else {
    in.document = text;
    const size_t nl = text.find('\n');
    in.title =
        std::string_view(text).substr(0, nl == std::string::npos ? 0 : std::min<size_t>(nl, 100));
  }
  auto r = rpsum::model::Prepare(in, GetTokenizer(), o);
  if (!r.ok()) {
    Check(!r.status().message().empty());
    return 0;
  }
  const auto& p = *r;
  Check(!p.units.empty() && !p.kept.empty());
  Check(p.kept.size() == p.unit_pos.size());
  Check(p.features.size() == p.kept.size() * rpsum::model::kNumFeatures);
  Check(p.num_tokens() <= o.max_input_tokens ||
        o.truncation == rpsum::model::TruncationPolicy::kReject);
  Check(static_cast<int64_t>(p.kept.size()) <= o.max_units);
  for (size_t i = 0; i < p.kept.size(); ++i) {
    Check(p.kept[i] >= 0 && p.kept[i] < static_cast<int32_t>(p.units.size()));
    if (i > 0) Check(p.kept[i] > p.kept[i - 1] && p.unit_pos[i] > p.unit_pos[i - 1]);
    Check(p.unit_pos[i] < p.num_tokens() && p.tokens[p.unit_pos[i]] == GetTokenizer().marker_id());
  }
  for (size_t u = 0; u < p.units.size(); ++u) {
    const auto& unit = p.units[u];
    Check(unit.begin < unit.end);
    const std::string_view src = in.presplit ? in.units[unit.input_index] : in.document;
    Check(unit.end <= src.size());
    const std::string_view t = p.UnitText(in, static_cast<int32_t>(u));
    // pre-split units are as given. (Debian's Abseil has its own string_view, which a
    // std::string_view does not convert to, hence no absl::StrContains.)
    if (!in.presplit) Check(t.find('\n') == std::string_view::npos);  // NOLINT(abseil-*)
    Check(rpsum::model::FirstInvalidUtf8(t) == -1);  // units never split a character
  }
  return 0;
}
