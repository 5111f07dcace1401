// libFuzzer targets for the document readers (formats/): one binary per format, chosen at
// compile time (RPSUM_FUZZ_FORMAT: 1 Markdown, 2 HTML, 3 PDF, 4 DOCX, 5 ODT, 6 EPUB), the whole
// input the document.
// Small limits so that the limit paths run too. Invariants: no crash or sanitizer report; a
// refusal is INVALID_ARGUMENT with a message; an extraction is valid UTF-8 without NUL, its
// pieces ascend inside the text and never cross a line, a mapped piece's source bytes are the
// piece's text, and SourceOf/PageBoxesOf of any range stay inside the input and the pages.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "formats/formats.h"
#include "model/document.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

constexpr rpsum::formats::ContentType kType =
    RPSUM_FUZZ_FORMAT == 1   ? rpsum::formats::ContentType::kMarkdown
    : RPSUM_FUZZ_FORMAT == 2 ? rpsum::formats::ContentType::kHtml
    : RPSUM_FUZZ_FORMAT == 4 ? rpsum::formats::ContentType::kDocx
    : RPSUM_FUZZ_FORMAT == 5 ? rpsum::formats::ContentType::kOdt
    : RPSUM_FUZZ_FORMAT == 6 ? rpsum::formats::ContentType::kEpub
                             : rpsum::formats::ContentType::kPdf;
constexpr bool kPackage = rpsum::formats::IsPackage(kType);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  rpsum::formats::ExtractLimits limits;
  limits.max_text_bytes = 1 << 16;
  limits.max_pdf_pages = 20;
  limits.max_html_depth = 64;
  const auto x = rpsum::formats::Extract(input, kType, limits);
  if (!x.ok()) {
    Check(x.status().code() == absl::StatusCode::kInvalidArgument);
    Check(!x.status().message().empty());
    return 0;
  }
  const std::string& t = x->text;
  Check(!t.empty() && t.size() <= limits.max_text_bytes);
  Check(rpsum::model::ValidateText(t, "text").ok());
  uint64_t last = 0;
  for (const auto& p : x->pieces) {
    Check(p.begin >= last && p.begin < p.end && p.end <= t.size());
    Check(t.find('\n', p.begin) >= p.end);  // a piece never crosses a line
    last = p.end;
    if (kPackage) {  // a place in the package's blocks, not the input's bytes
      Check(p.page >= 1 && static_cast<size_t>(p.page) <= x->blocks.size());
      Check(x->blocks[p.page - 1].part >= 0 &&
            static_cast<size_t>(x->blocks[p.page - 1].part) < x->parts.size());
      continue;
    }
    if (p.source_end > p.source_begin) {
      Check(p.source_end <= input.size());
      Check(input.substr(p.source_begin, p.source_end - p.source_begin) ==
            std::string_view(t).substr(p.begin, p.end - p.begin));
    }
    Check(kType != rpsum::formats::ContentType::kPdf || (p.page >= 1 && p.page <= x->pages));
  }
  for (uint64_t b = 0; b < t.size(); b += 1 + t.size() / 8) {
    const uint64_t e = std::min<uint64_t>(t.size(), b + 40);
    if (kPackage) {
      if (auto part = rpsum::formats::PartOf(*x, b, e)) Check(part->begin <= part->end);
      continue;
    }
    if (auto src = rpsum::formats::SourceOf(*x, b, e)) {
      Check(src->begin < src->end && src->end <= input.size());
    }
    for (const auto& pb : rpsum::formats::PageBoxesOf(*x, b, e)) {
      Check(pb.page >= 1 && pb.page <= x->pages && pb.box.x0 <= pb.box.x1);
    }
  }
  return 0;
}
