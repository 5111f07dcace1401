// Character encodings (docs/design.md, "Encodings"): which encoding a text document is in, and
// its conversion to UTF-8 (ICU's converters) with a map from the converted text back to the
// original bytes. Torch-free and proto-free; the server reads every Markdown, HTML and text
// document through it before extraction.
#ifndef RPSUM_FORMATS_ENCODING_H_
#define RPSUM_FORMATS_ENCODING_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "formats/formats.h"

namespace rpsum::formats {

// Where the converted text's bytes came from: for each character of the text, the bytes of
// the original that encoded it: a byte per character and a mark every 64, about 1.4 bytes a
// character.
class SourceMap {
 public:
  // The original's byte offset of `offset` in `text` (the converted text this map was made
  // with): a character boundary maps to the first byte of that character in the original,
  // text.size() to the end of the last character's bytes. An offset inside a character is
  // taken as the start of that character.
  uint64_t Original(std::string_view text, uint64_t offset) const;

  // Building (Decode): the next character took `text_bytes` of the text and `source_bytes`
  // of the original, from `source_offset`.
  void Add(uint64_t source_offset, uint32_t text_bytes, uint64_t source_bytes);
  // When done adding: the original ends at `source_end` (the text's end maps there, also when
  // no character came of it), and the unused room is given back.
  void Finish(uint64_t source_end);
  uint64_t bytes() const;  // memory held

 private:
  struct Mark {
    uint64_t character = 0;  // index of the character
    uint64_t text = 0;       // its offset in the text
    uint64_t source = 0;     // and in the original
  };
  std::vector<Mark> marks_;       // every kStride characters, and where a length overflows
  std::vector<uint8_t> lengths_;  // per character: its bytes in the original (0: see marks_)
  uint64_t characters_ = 0;
  uint64_t text_end_ = 0;
  uint64_t source_end_ = 0;
  bool force_mark_ = false;  // the last character's length did not fit a byte
};

// A document read from its bytes.
struct Decoded {
  // The encoding it was read in, by its WHATWG name as ICU knows it: "UTF-8", "windows-1252",
  // "UTF-16LE", "ISO-8859-2", "Shift_JIS", ...
  std::string encoding;
  // How that was decided: "content_type" (the request's charset), "byte_order_mark", "meta"
  // (an HTML <meta> charset), "xml_declaration", "utf8" (the bytes are valid UTF-8, and nothing
  // declared otherwise but Latin-1) or "detected" (ICU's charset detector).
  std::string decided_by;
  // False: the document is UTF-8 and is read in place (offsets are the original's). True:
  // `text` holds it converted to UTF-8, and `map` leads back to the original's bytes.
  bool converted = false;
  std::string text;
  SourceMap map;

  // The document as UTF-8: `text` when converted, else `input` itself.
  std::string_view View(std::string_view input) const { return converted ? text : input; }
  // The original's offset of an offset in View(input).
  uint64_t Original(uint64_t offset) const {
    return converted ? map.Original(text, offset) : offset;
  }
};

struct DecodeOptions {
  // The charset label the request declared ("iso-8859-1", "utf-16"), lowercased; empty: none.
  std::string declared;
  // The document is HTML: an XML declaration or a <meta> charset in its first 1,024 bytes is
  // read (HTML5's prescan).
  bool html = false;
  absl::Time deadline = absl::InfiniteFuture();
};

// Reads `input` in the first encoding found in this order (HTML5's): a byte-order mark, the
// declared charset, an HTML <meta> charset or XML declaration, valid UTF-8 (read in place),
// ICU's detector. ISO-8859-1 and US-ASCII are read as windows-1252, as browsers read them
// (windows-1252 agrees with them on every byte they define); such a declaration over bytes that
// are valid UTF-8 with non-ASCII characters reads UTF-8 (decided_by "utf8": Latin-1 text
// almost never forms UTF-8 characters, and a stale declaration often says Latin-1).
// InvalidArgument, naming the encoding, how it was decided, the byte and its offset, for bytes the
// encoding does not define, a NUL character, or a document whose encoding cannot be detected. The
// converted text is at most 3 bytes per input byte. Thread-safe.
absl::StatusOr<Decoded> Decode(std::string_view input, const DecodeOptions& options);

// The canonical name of a charset label ("latin1" -> "windows-1252", "utf8" -> "UTF-8"), or
// InvalidArgument naming the label when ICU has no converter for it.
absl::StatusOr<std::string> CharsetName(std::string_view label);

// Replaces every piece's source range (offsets into decoded.View(input)) by the original's.
void MapSources(const Decoded& decoded, Extracted* extracted);

}  // namespace rpsum::formats

#endif  // RPSUM_FORMATS_ENCODING_H_
