// Internal to formats/: a zip package (DOCX, ODT, EPUB) read from memory with libzip, every
// entry's size bounded as it is inflated (a zip bomb is refused, whatever its headers say), and
// its XML read by libxml2's streaming reader with the depth bounded and no DTD.
#ifndef RPSUM_FORMATS_INTERNAL_PACKAGE_H_
#define RPSUM_FORMATS_INTERNAL_PACKAGE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "formats/formats.h"

namespace rpsum::formats::internal {

class Package {
 public:
  // InvalidArgument naming `format` ("Word document") for bytes that are not a zip archive, or
  // one with more than 10,000 entries.
  static absl::StatusOr<Package> Open(std::string_view bytes, std::string_view format,
                                      const ExtractLimits& limits);
  Package(Package&&) noexcept;
  Package& operator=(Package&&) noexcept;
  ~Package();

  bool Has(std::string_view name) const;
  // The entry's bytes, inflated. InvalidArgument when it is missing (`required`), damaged (its
  // CRC), or would take the package past max_unpacked_bytes in all (every entry read counts).
  absl::StatusOr<std::string> Read(std::string_view name);

 private:
  struct State;
  explicit Package(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// One event of an XML document, as the walkers of office.cc read it.
struct XmlEvent {
  enum Kind { kStart, kEnd, kText } kind = kStart;
  std::string_view name;  // element's qualified name ("w:p", "text:h"); empty for text
  int depth = 0;
  bool empty = false;  // kStart of an element with no content (<w:tab/>): no kEnd follows
};

// Streams the XML document `xml` (part `part` of a `format`): calls `on(event, reader)` for
// each element start and end and each text or whitespace node, in document order; `on` may read
// the current element's attributes with Attribute(reader, "w:val"). InvalidArgument for XML that
// is not well-formed, nested deeper than 256, or that declares a DTD; DeadlineExceeded as the
// other readers. Linear in the document.
struct XmlReader;
absl::Status WalkXml(std::string_view xml, std::string_view part, std::string_view format,
                     const ExtractLimits& limits,
                     const std::function<absl::Status(const XmlEvent&, XmlReader*)>& on);
// The current element's attribute (qualified name), or "" when it has none.
std::string Attribute(XmlReader* reader, const char* name);
// The current text node's text.
std::string_view Text(XmlReader* reader);

}  // namespace rpsum::formats::internal

#endif  // RPSUM_FORMATS_INTERNAL_PACKAGE_H_
