// libFuzzer target for the encoding reader (formats/encoding.h). The first byte picks the
// declared charset (none, UTF-8, windows-1252, UTF-16, Shift_JIS, GB18030, ISO-2022-JP, KOI8-R),
// the second says whether the document is HTML; the rest is the document. Invariants: no crash
// or sanitizer report; a refusal is INVALID_ARGUMENT with a message; a reading is valid UTF-8
// without NUL, at most 3 bytes per input byte, and its map is monotone and inside the input at
// every character boundary.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "formats/encoding.h"
#include "model/document.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

constexpr const char* kCharsets[] = {"",          "utf-8",   "windows-1252", "utf-16",
                                     "shift_jis", "gb18030", "iso-2022-jp",  "koi8-r"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  rpsum::formats::DecodeOptions options;
  options.declared = kCharsets[data[0] % (sizeof(kCharsets) / sizeof(kCharsets[0]))];
  options.html = (data[1] & 1) != 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 2, size - 2);
  const auto d = rpsum::formats::Decode(input, options);
  if (!d.ok()) {
    Check(d.status().code() == absl::StatusCode::kInvalidArgument);
    Check(!d.status().message().empty());
    return 0;
  }
  const std::string_view text = d->View(input);
  Check(rpsum::model::ValidateText(text, "text").ok());
  Check(text.size() <= 3 * input.size() + 3);
  uint64_t last = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    const uint64_t at = d->Original(i);
    Check(at >= last && at <= input.size());
    last = at;
  }
  Check(d->Original(text.size()) == input.size() || !d->converted);
  return 0;
}
