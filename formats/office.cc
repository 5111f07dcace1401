// Word (DOCX), OpenDocument text (ODT) and EPUB into the text form: each paragraph, heading and
// list item of the main part one line, in document order. Dropped, as the other readers drop
// them: tables, footnotes and endnotes, comments, headers and footers (separate parts, never
// read), deleted text of tracked changes (inserted text is kept), field codes (their results
// are kept), drawings, text boxes and tables of contents. Each word points back to its paragraph
// and its characters there (DOCX, ODT), or to its XHTML file and bytes (EPUB).
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "formats/encoding.h"
#include "formats/internal/builder.h"
#include "formats/internal/package.h"

namespace rpsum::formats::internal {
namespace {

absl::string_view A(std::string_view s) { return {s.data(), s.size()}; }

// One paragraph's text as the runs give it, then its words into the builder, each with its
// character range in the paragraph.
class Paragraph {
 public:
  void Append(std::string_view text) { text_.append(text); }
  void Space() { text_.push_back(' '); }
  bool empty() const { return text_.empty(); }
  void Clear() { text_.clear(); }

  // Words are split at ASCII whitespace, control characters and U+00A0.
  void Flush(TextBuilder* b, int32_t block) {
    uint64_t chars = 0;
    size_t i = 0;
    while (i < text_.size()) {
      const auto c = static_cast<unsigned char>(text_[i]);
      const bool nbsp =
          c == 0xC2 && i + 1 < text_.size() && static_cast<unsigned char>(text_[i + 1]) == 0xA0;
      if (c <= 0x20 || c == 0x7F || nbsp) {
        b->Space();
        i += nbsp ? 2 : 1;
        ++chars;
        continue;
      }
      size_t j = i;
      uint64_t word_chars = 0;
      while (j < text_.size()) {
        const auto d = static_cast<unsigned char>(text_[j]);
        if (d <= 0x20 || d == 0x7F ||
            (d == 0xC2 && j + 1 < text_.size() &&
             static_cast<unsigned char>(text_[j + 1]) == 0xA0)) {
          break;
        }
        word_chars += (d & 0xC0) != 0x80;
        ++j;
      }
      b->AppendMappedWord(std::string_view{text_}.substr(i, j - i), chars, chars + word_chars,
                          block);
      chars += word_chars;
      i = j;
    }
    b->EndBlock();
    text_.clear();
  }

 private:
  std::string text_;
};

// A skip region: events inside an element we drop are ignored until its end.
class Skipper {
 public:
  bool active() const { return depth_ >= 0; }
  // Starts skipping at a non-empty element of `depth`.
  void Start(int depth) { depth_ = depth; }
  // True while skipping; ends the region at its element's end.
  bool Consume(const XmlEvent& e) {
    if (depth_ < 0) return false;
    if (e.kind == XmlEvent::kEnd && e.depth == depth_) depth_ = -1;
    return true;
  }

 private:
  int depth_ = -1;
};

// DOCX: styles.xml's paragraph styles that are headings or tables of contents, by style id.
struct DocxStyles {
  std::set<std::string> toc;             // "TOC 1".."TOC 9", "TOC Heading"
  std::map<std::string, int32_t> level;  // "heading N" styles, and those with an outline level
};

absl::StatusOr<DocxStyles> ReadDocxStyles(Package* pkg, const ExtractLimits& limits) {
  DocxStyles out;
  if (!pkg->Has("word/styles.xml")) return out;
  absl::StatusOr<std::string> xml = pkg->Read("word/styles.xml");
  if (!xml.ok()) return xml.status();
  std::string id;
  std::map<std::string, std::string> based_on;
  absl::Status s = WalkXml(*xml, "word/styles.xml", "Word document", limits,
                           [&](const XmlEvent& e, XmlReader* r) -> absl::Status {
                             if (e.kind != XmlEvent::kStart) return absl::OkStatus();
                             if (e.name == "w:style") id = Attribute(r, "w:styleId");
                             if (e.name == "w:name") {
                               const std::string name =
                                   absl::AsciiStrToLower(Attribute(r, "w:val"));
                               if (absl::StartsWith(name, "toc")) out.toc.insert(id);
                               if (absl::StartsWith(name, "heading ") && name.size() == 9 &&
                                   absl::ascii_isdigit(name[8])) {
                                 out.level[id] = name[8] - '0';
                               }
                             }
                             if (e.name == "w:outlineLvl" && !id.empty()) {
                               const int v = std::atoi(Attribute(r, "w:val").c_str());
                               if (v >= 0 && v < 9) out.level[id] = v + 1;
                             }
                             if (e.name == "w:basedOn") based_on[id] = Attribute(r, "w:val");
                             return absl::OkStatus();
                           });
  if (!s.ok()) return s;
  // A style based on a heading style is a heading of its level ("HeadA" on "Heading1").
  for (const auto& [style, base] : based_on) {
    std::string at = base;
    for (int hops = 0; hops < 8 && out.level.count(style) == 0; ++hops) {
      if (auto it = out.level.find(at); it != out.level.end()) {
        out.level[style] = it->second;
      } else if (auto up = based_on.find(at); up != based_on.end()) {
        at = up->second;
      } else {
        break;
      }
    }
  }
  return out;
}

// Elements of word/document.xml whose content is not the document's text.
bool DocxDropped(std::string_view name) {
  static const std::set<std::string_view> kDropped = {
      "w:del",         "w:moveFrom",  "w:tbl",     "w:instrText", "w:delText",
      "w:drawing",     "w:pict",      "w:object",  "w:rPr",       "w:sectPr",
      "w:txbxContent", "mc:Fallback", "w:comment", "w:footnote",  "w:endnote"};
  return kDropped.count(name) > 0;
}

// The walk of word/document.xml: paragraphs' text into the builder.
class DocxWalk {
 public:
  DocxWalk(const DocxStyles* styles, TextBuilder* b) : styles_(styles), b_(b) {}
  absl::Status On(const XmlEvent& e, XmlReader* r) {
    // Every w:p of the part counts, those of dropped elements too: an index is a place.
    if (e.kind == XmlEvent::kStart && e.name == "w:p") ++paragraphs_;
    if (skip_.Consume(e)) return absl::OkStatus();
    if (e.kind == XmlEvent::kStart) {
      Start(e, r);
    } else if (e.kind == XmlEvent::kEnd) {
      End(e);
    } else if (in_t_) {
      para_.Append(Text(r));  // whitespace between elements is not the text
    }
    return absl::OkStatus();
  }
  std::vector<Block> TakeBlocks() { return std::move(blocks_); }

 private:
  void Start(const XmlEvent& e, XmlReader* r) {
    if (DocxDropped(e.name)) {
      if (!e.empty) skip_.Start(e.depth);
    } else if (e.name == "w:p") {
      para_.Clear();
      drop_ = toc_sdt_ >= 0;
      paragraph_ = paragraphs_ - 1;
      level_ = 0;
    } else if (e.name == "w:pPr") {
      in_ppr_ = !e.empty;
    } else if (e.name == "w:t") {
      in_t_ = !e.empty;
    } else if (e.name == "w:pStyle" && in_ppr_) {
      const std::string style = Attribute(r, "w:val");
      if (styles_->toc.count(style) > 0) drop_ = true;
      if (auto it = styles_->level.find(style); it != styles_->level.end()) level_ = it->second;
    } else if (e.name == "w:outlineLvl" && in_ppr_) {
      const int v = std::atoi(Attribute(r, "w:val").c_str());
      if (v >= 0 && v < 9) level_ = v + 1;
    } else if (e.name == "w:docPartGallery") {
      if (absl::StartsWithIgnoreCase(Attribute(r, "w:val"), "Table of Contents")) {
        toc_sdt_ = e.depth - 3;  // w:sdt > w:sdtPr > w:docPartObj > here
      }
    } else if ((e.name == "w:tab" || e.name == "w:br" || e.name == "w:cr") && !in_ppr_) {
      para_.Space();
    } else if (e.name == "w:noBreakHyphen") {
      para_.Append("-");
    }
  }
  void End(const XmlEvent& e) {
    if (e.name == "w:pPr") in_ppr_ = false;
    if (e.name == "w:t") in_t_ = false;
    if (e.name == "w:sdt" && e.depth == toc_sdt_) toc_sdt_ = -1;
    if (e.name != "w:p") return;
    if (drop_ || para_.empty()) {
      para_.Clear();
      return;
    }
    blocks_.push_back(Block{0, paragraph_});
    if (level_ > 0) b_->MarkHeading(level_);
    para_.Flush(b_, static_cast<int32_t>(blocks_.size()));
  }

  const DocxStyles* styles_;
  TextBuilder* b_;
  std::vector<Block> blocks_;
  Paragraph para_;
  Skipper skip_;
  int32_t paragraphs_ = 0;  // w:p elements begun
  int32_t paragraph_ = 0;   // the index of the one being read
  bool drop_ = false;       // a table of contents' entry
  bool in_ppr_ = false;
  bool in_t_ = false;  // inside a w:t, whose text is the document's
  int toc_sdt_ = -1;   // depth of a table of contents' content control
  int32_t level_ = 0;  // the paragraph's heading level (its style's, or its own outline level)
};

absl::StatusOr<Extracted> ExtractDocx(std::string_view input, const ExtractLimits& limits) {
  constexpr std::string_view kFormat = "Word document";
  absl::StatusOr<Package> pkg = Package::Open(input, kFormat, limits);
  if (!pkg.ok()) return pkg.status();
  absl::StatusOr<DocxStyles> styles = ReadDocxStyles(&*pkg, limits);
  if (!styles.ok()) return styles.status();
  absl::StatusOr<std::string> xml = pkg->Read("word/document.xml");
  if (!xml.ok()) return xml.status();
  TextBuilder b({}, limits.max_text_bytes);
  DocxWalk walk(&*styles, &b);
  absl::Status s = WalkXml(*xml, "word/document.xml", kFormat, limits,
                           [&](const XmlEvent& e, XmlReader* r) { return walk.On(e, r); });
  if (!s.ok()) return s;
  absl::StatusOr<Extracted> out = std::move(b).Finish(kFormat);
  if (!out.ok()) return out;
  out->parts = {"word/document.xml"};
  out->blocks = walk.TakeBlocks();
  return out;
}

// Elements of an ODT's content.xml whose content is not the document's text.
bool OdtDropped(std::string_view name) {
  static const std::set<std::string_view> kDropped = {"table:table",
                                                      "text:note",
                                                      "office:annotation",
                                                      "text:tracked-changes",
                                                      "draw:frame",
                                                      "draw:custom-shape",
                                                      "text:table-of-content",
                                                      "text:alphabetical-index",
                                                      "text:bibliography",
                                                      "text:illustration-index",
                                                      "text:table-index",
                                                      "text:sequence-decls",
                                                      "office:forms",
                                                      "text:variable-decls",
                                                      "office:annotation-end",
                                                      "text:index-title",
                                                      "svg:desc",
                                                      "svg:title"};
  return kDropped.count(name) > 0;
}

// The walk of an ODT's content.xml: the body's paragraphs and headings into the builder.
class OdtWalk {
 public:
  explicit OdtWalk(TextBuilder* b) : b_(b) {}
  absl::Status On(const XmlEvent& e, XmlReader* r) {
    if (e.kind == XmlEvent::kStart && in_body_ && (e.name == "text:p" || e.name == "text:h")) {
      ++paragraphs_;  // those of dropped elements too: an index is a place in the body
    }
    if (skip_.Consume(e)) return absl::OkStatus();
    if (e.kind == XmlEvent::kStart) {
      Start(e, r);
    } else if (e.kind == XmlEvent::kEnd) {
      End(e);
    } else if (depth_ >= 0) {
      para_.Append(Text(r));
    }
    return absl::OkStatus();
  }
  std::vector<Block> TakeBlocks() { return std::move(blocks_); }

 private:
  void Start(const XmlEvent& e, XmlReader* r) {
    if (e.name == "office:text") in_body_ = !e.empty;
    if (!in_body_) return;
    if (OdtDropped(e.name)) {
      if (!e.empty) skip_.Start(e.depth);
    } else if (e.name == "text:p" || e.name == "text:h") {
      if (e.empty) return;
      if (depth_ >= 0) {  // a paragraph inside a paragraph: its text joins the outer one
        para_.Space();
        return;
      }
      para_.Clear();
      depth_ = e.depth;
      paragraph_ = paragraphs_ - 1;
      level_ = 0;
      if (e.name == "text:h") {
        const std::string v = Attribute(r, "text:outline-level");
        level_ = std::clamp(v.empty() ? 1 : std::atoi(v.c_str()), 1, 10);
      }
    } else if (e.name == "text:s") {
      const std::string c = Attribute(r, "text:c");
      const int n = std::clamp(c.empty() ? 1 : std::atoi(c.c_str()), 1, 64);
      for (int i = 0; i < n; ++i) para_.Space();
    } else if (e.name == "text:tab" || e.name == "text:line-break") {
      para_.Space();
    }
  }
  void End(const XmlEvent& e) {
    if (e.name == "office:text") in_body_ = false;
    if ((e.name != "text:p" && e.name != "text:h") || e.depth != depth_) return;
    depth_ = -1;
    if (para_.empty()) return;
    blocks_.push_back(Block{0, paragraph_});
    if (level_ > 0) b_->MarkHeading(level_);
    para_.Flush(b_, static_cast<int32_t>(blocks_.size()));
  }

  TextBuilder* b_;
  std::vector<Block> blocks_;
  Paragraph para_;
  Skipper skip_;
  int32_t paragraphs_ = 0;  // text:p and text:h elements begun in the body
  int32_t paragraph_ = 0;   // the index of the one being read
  bool in_body_ = false;
  int depth_ = -1;     // the open text:p or text:h
  int32_t level_ = 0;  // a text:h's outline level
};

absl::StatusOr<Extracted> ExtractOdt(std::string_view input, const ExtractLimits& limits) {
  constexpr std::string_view kFormat = "OpenDocument text";
  absl::StatusOr<Package> pkg = Package::Open(input, kFormat, limits);
  if (!pkg.ok()) return pkg.status();
  absl::StatusOr<std::string> xml = pkg->Read("content.xml");
  if (!xml.ok()) return xml.status();
  TextBuilder b({}, limits.max_text_bytes);
  OdtWalk walk(&b);
  absl::Status s = WalkXml(*xml, "content.xml", kFormat, limits,
                           [&](const XmlEvent& e, XmlReader* r) { return walk.On(e, r); });
  if (!s.ok()) return s;
  absl::StatusOr<Extracted> out = std::move(b).Finish(kFormat);
  if (!out.ok()) return out;
  out->parts = {"content.xml"};
  out->blocks = walk.TakeBlocks();
  return out;
}

// The directory of a path in the package ("OEBPS/" of "OEBPS/content.opf").
std::string DirOf(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? "" : std::string(path.substr(0, slash + 1));
}

// A relative href resolved against `dir`, %XX decoded, "./" and "../" folded.
std::string Resolve(const std::string& dir, std::string_view href) {
  href = href.substr(0, href.find('#'));
  std::string decoded;
  for (size_t i = 0; i < href.size(); ++i) {
    if (href[i] == '%' && i + 2 < href.size() && absl::ascii_isxdigit(href[i + 1]) &&
        absl::ascii_isxdigit(href[i + 2])) {
      decoded.push_back(
          static_cast<char>(std::stoi(std::string(href.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      decoded.push_back(href[i]);
    }
  }
  std::vector<std::string> parts;
  for (absl::string_view p : absl::StrSplit(dir + decoded, '/')) {
    if (p.empty() || p == ".") continue;
    if (p == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.emplace_back(p);
  }
  return absl::StrJoin(parts, "/");
}

// The spine of an EPUB: its XHTML files in reading order, each once (the navigation document
// left out).
absl::StatusOr<std::vector<std::string>> EpubSpine(Package* pkg, const ExtractLimits& limits) {
  constexpr std::string_view kFormat = "EPUB";
  absl::StatusOr<std::string> container = pkg->Read("META-INF/container.xml");
  if (!container.ok()) return container.status();
  std::string opf;
  absl::Status s = WalkXml(
      *container, "META-INF/container.xml", kFormat, limits,
      [&](const XmlEvent& e, XmlReader* r) -> absl::Status {
        if (e.kind == XmlEvent::kStart && opf.empty() && absl::EndsWith(A(e.name), "rootfile")) {
          opf = Attribute(r, "full-path");
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  if (opf.empty()) {
    return absl::InvalidArgumentError("this EPUB names no package document in its container");
  }
  absl::StatusOr<std::string> package = pkg->Read(opf);
  if (!package.ok()) return package.status();
  std::map<std::string, std::string> href;  // manifest id -> file
  std::set<std::string> skipped;            // ids of the navigation document and non-XHTML
  std::vector<std::string> order;
  s = WalkXml(*package, opf, kFormat, limits, [&](const XmlEvent& e, XmlReader* r) -> absl::Status {
    if (e.kind != XmlEvent::kStart) return absl::OkStatus();
    const absl::string_view name = A(e.name);
    if (absl::EndsWith(name, "item")) {
      const std::string id = Attribute(r, "id");
      href[id] = Resolve(DirOf(opf), Attribute(r, "href"));
      const std::string type = Attribute(r, "media-type");
      if (absl::StrContains(Attribute(r, "properties"), "nav") ||
          (type != "application/xhtml+xml" && type != "text/html")) {
        skipped.insert(id);
      }
    } else if (absl::EndsWith(name, "itemref") && Attribute(r, "linear") != "no") {
      order.push_back(Attribute(r, "idref"));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  // Each file once, where the spine first names it (EPUB requires a spine's items unique): a
  // spine that names one chapter thousands of times would read it thousands of times.
  std::vector<std::string> files;
  std::set<std::string> read;
  for (const std::string& id : order) {
    if (skipped.count(id) > 0 || href.count(id) == 0 || !read.insert(href[id]).second) continue;
    files.push_back(href[id]);
  }
  return files;
}

absl::StatusOr<Extracted> ExtractEpub(std::string_view input, const ExtractLimits& limits) {
  absl::StatusOr<Package> pkg = Package::Open(input, "EPUB", limits);
  if (!pkg.ok()) return pkg.status();
  absl::StatusOr<std::vector<std::string>> spine = EpubSpine(&*pkg, limits);
  if (!spine.ok()) return spine.status();
  Extracted out;
  for (const std::string& file : *spine) {
    absl::StatusOr<std::string> page = pkg->Read(file);
    if (!page.ok()) return page.status();
    DecodeOptions decode;
    decode.html = true;
    decode.deadline = limits.deadline;
    absl::StatusOr<Decoded> d = Decode(*page, decode);
    if (!d.ok()) return absl::InvalidArgumentError(absl::StrCat(file, ": ", d.status().message()));
    ExtractLimits rest = limits;
    rest.max_text_bytes =
        limits.max_text_bytes - std::min<uint64_t>(limits.max_text_bytes, out.text.size());
    absl::StatusOr<Extracted> x = ExtractHtml(d->View(*page), rest);
    if (!x.ok()) {
      if (absl::IsInvalidArgument(x.status()) &&
          absl::StrContains(x.status().message(), "no text")) {
        continue;  // a cover or an image page
      }
      return absl::InvalidArgumentError(absl::StrCat(file, ": ", x.status().message()));
    }
    MapSources(*d, &*x);
    out.parts.push_back(file);
    out.blocks.push_back(Block{static_cast<int32_t>(out.parts.size() - 1), 0});
    if (!out.text.empty()) out.text.push_back('\n');
    const auto base = static_cast<uint32_t>(out.text.size());
    out.text.append(x->text);
    for (Piece p : x->pieces) {
      p.begin += base;
      p.end += base;
      p.page = static_cast<int32_t>(out.blocks.size());
      out.pieces.push_back(p);
    }
    if (out.text.size() > limits.max_text_bytes) break;
  }
  if (out.text.empty()) {
    return absl::InvalidArgumentError("this EPUB has no text to summarize in its spine");
  }
  if (out.text.size() > limits.max_text_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the text extracted from this EPUB exceeds ", limits.max_text_bytes,
                     " bytes (max_extracted_bytes); send part of it"));
  }
  return out;
}

}  // namespace

absl::StatusOr<Extracted> ExtractOffice(std::string_view input, ContentType type,
                                        const ExtractLimits& limits) {
  switch (type) {
    case ContentType::kDocx:
      return ExtractDocx(input, limits);
    case ContentType::kOdt:
      return ExtractOdt(input, limits);
    case ContentType::kEpub:
      return ExtractEpub(input, limits);
    default:
      return absl::InternalError("not a package format");
  }
}

}  // namespace rpsum::formats::internal
