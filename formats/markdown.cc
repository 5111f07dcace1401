// GitHub Markdown (cmark-gfm, with its table, strikethrough and task-list extensions; bare URLs
// and e-mail addresses, GFM's autolinks, are found here) into the text form: headings and
// paragraphs one line each, list items one line each without their markers; code blocks, tables,
// HTML blocks, images, footnotes, bare URLs and front matter dropped (what the training corpus's
// extraction dropped: the corpus README, "Cleaning"). Each word maps back to its bytes in the
// input.
#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "formats/internal/builder.h"

namespace rpsum::formats::internal {
namespace {

// Blanks YAML front matter ("---" ... "---" or "..." at the top) with spaces, keeping its line
// breaks so that cmark's line numbers still index the input.
void BlankFrontMatter(std::string* doc) {
  if (!absl::StartsWith(*doc, "---\n") && !absl::StartsWith(*doc, "---\r\n")) return;
  size_t line = doc->find('\n') + 1;
  while (line < doc->size()) {
    size_t next = doc->find('\n', line);
    if (next == std::string::npos) next = doc->size();
    std::string_view l(doc->data() + line, next - line);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l == "---" || l == "...") {
      for (size_t i = 0; i < next; ++i) {
        if ((*doc)[i] != '\n') (*doc)[i] = ' ';
      }
      return;
    }
    line = next + 1;
  }
  // No closing line: not front matter; cmark reads it as it is.
}

bool IsType(cmark_node* node, const char* name) {
  const char* t = cmark_node_get_type_string(node);
  return t != nullptr && std::strcmp(t, name) == 0;
}

struct IterDeleter {
  void operator()(cmark_iter* i) const { cmark_iter_free(i); }
};

// The plain text of an inline subtree (a link's text); iterative, as nesting may be deep.
std::string InlineText(cmark_node* node) {
  std::string out;
  std::unique_ptr<cmark_iter, IterDeleter> it(cmark_iter_new(node));
  for (cmark_event_type ev; (ev = cmark_iter_next(it.get())) != CMARK_EVENT_DONE;) {
    cmark_node* n = cmark_iter_get_node(it.get());
    const cmark_node_type t = cmark_node_get_type(n);
    if (ev == CMARK_EVENT_ENTER && (t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE)) {
      if (const char* lit = cmark_node_get_literal(n)) out += lit;
    }
  }
  return out;
}

// A bare URL or e-mail address (a GFM autolink, <https://...>, or a link whose text is a URL):
// the training corpus dropped them.
bool IsBareLink(cmark_node* link) {
  const char* url = cmark_node_get_url(link);
  if (url == nullptr) return false;
  const std::string text = InlineText(link);
  const std::string_view u(url);
  return text == u || u == "mailto:" + text || absl::StartsWith(text, "http://") ||
         absl::StartsWith(text, "https://") || absl::StartsWith(text, "www.");
}

// Moves *cursor past `markup` (a link target, a tag) when it is near: words after it are looked
// up after it, not inside it ("." in a URL).
void SkipPast(std::string_view input, const char* markup, uint64_t* cursor, uint64_t limit) {
  if (markup == nullptr || *markup == '\0') return;
  const std::string_view m(markup);
  const uint64_t stop = std::min<uint64_t>({limit, input.size(), *cursor + 4096 + m.size()});
  if (*cursor >= stop) return;
  const size_t at = input.substr(0, stop).find(m, *cursor);
  if (at != std::string_view::npos) *cursor = at + m.size();
}

// The memory of one parse. cmark-gfm allocates a node, a buffer or a delimiter at a time and
// frees them one by one at the end, which for a document of many small nodes (short lines, list
// items, emphasis) cost more than the parse; here they come from large blocks in the order cmark
// asks (a traversal reads them in that order) and go all at once. What cmark frees before the end
// is not reused: its temporaries are small beside the tree. A thread keeps a few blocks for its
// next parse: a document's parts reuse memory that is already mapped (and often cached) instead
// of faulting in fresh pages, and only what calloc hands out is zeroed.
class ParseArena {
 public:
  ParseArena() : previous_(current_) { current_ = this; }
  ~ParseArena() {
    current_ = previous_;
    std::vector<char*>& spare = Spare();
    for (char* b : blocks_) {
      if (spare.size() < kKeptBlocks) {
        spare.push_back(b);
      } else {
        std::free(b);
      }
    }
  }
  ParseArena(const ParseArena&) = delete;
  ParseArena& operator=(const ParseArena&) = delete;

  static const cmark_mem* Mem() {
    static const cmark_mem kMem = {&Calloc, &Realloc, &Free};
    return &kMem;
  }

 private:
  static constexpr size_t kAlign = 16;
  static constexpr size_t kBlock = 4 << 20;
  static constexpr size_t kKeptBlocks = 2;  // per thread, between parses
  // Each allocation is preceded by its size (kAlign bytes, keeping the alignment).
  static size_t& SizeOf(void* p) {
    return *reinterpret_cast<size_t*>(static_cast<char*>(p) - kAlign);
  }
  // Blocks of kBlock bytes that this thread's last parses left.
  static std::vector<char*>& Spare() {
    struct Pool {
      std::vector<char*> blocks;
      ~Pool() {
        for (char* b : blocks) std::free(b);
      }
    };
    static thread_local Pool pool;
    return pool.blocks;
  }

  void* Allocate(size_t bytes) {
    const size_t need = kAlign + ((bytes + kAlign - 1) & ~(kAlign - 1));
    if (need > left_) {
      const size_t block = std::max(kBlock, need);
      char* b = nullptr;
      std::vector<char*>& spare = Spare();
      if (block == kBlock && !spare.empty()) {
        b = spare.back();
        spare.pop_back();
      } else {
        b = static_cast<char*>(std::malloc(block));
      }
      if (b == nullptr) return nullptr;  // cmark aborts, as it does on its own allocator's failure
      if (block == kBlock) {
        blocks_.push_back(b);
      } else {
        big_.emplace_back(b);
      }
      at_ = b;
      left_ = block;
    }
    char* p = at_ + kAlign;
    at_ += need;
    left_ -= need;
    SizeOf(p) = bytes;
    last_ = p;
    return p;
  }

  void* Reallocate(void* p, size_t bytes) {
    if (p == nullptr) return Allocate(bytes);
    const size_t old = SizeOf(p);
    if (p == last_) {  // the newest allocation grows in place while its block has room
      const size_t have = (old + kAlign - 1) & ~(kAlign - 1);
      const size_t want = (bytes + kAlign - 1) & ~(kAlign - 1);
      if (want <= have || want - have <= left_) {
        if (want > have) {
          at_ += want - have;
          left_ -= want - have;
        }
        SizeOf(p) = bytes;
        return p;
      }
    }
    void* q = Allocate(bytes);
    if (q != nullptr) std::memcpy(q, p, std::min(old, bytes));
    return q;
  }

  static void* Calloc(size_t n, size_t size) {
    if (size != 0 && n > SIZE_MAX / size) return nullptr;
    void* p = current_->Allocate(n * size);
    if (p != nullptr) std::memset(p, 0, n * size);
    return p;
  }
  static void* Realloc(void* p, size_t bytes) { return current_->Reallocate(p, bytes); }
  static void Free(void* /*p*/) {}

  struct BlockFree {
    void operator()(char* b) const { std::free(b); }
  };
  static thread_local ParseArena* current_;
  ParseArena* previous_;
  std::vector<char*> blocks_;                          // kBlock bytes each: kept or freed
  std::vector<std::unique_ptr<char, BlockFree>> big_;  // larger, for one allocation
  char* at_ = nullptr;
  size_t left_ = 0;
  void* last_ = nullptr;
};
thread_local ParseArena* ParseArena::current_ = nullptr;

// The parser and the tree live in the request's ParseArena, which frees them with it.
struct ParserDeleter {
  void operator()(cmark_parser* /*p*/) const {}
};
struct NodeDeleter {
  void operator()(cmark_node* /*n*/) const {}
};
// Byte offsets of a text's lines, by cmark's 1-based line numbers (past the end: the size).
class LineStarts {
 public:
  explicit LineStarts(std::string_view text) : starts_{0, 0} {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') starts_.push_back(i + 1);
    }
    starts_.push_back(text.size());
  }
  uint64_t operator()(int line) const {
    if (line < 1) return 0;
    return starts_[std::min<size_t>(static_cast<size_t>(line), starts_.size() - 1)];
  }

 private:
  std::vector<uint64_t> starts_;
};

// The GitHub Markdown tree of `doc` (tables, strikethrough, task lists, footnotes), fed in
// chunks with the deadline checked between them. Not the autolink extension: its work per '@'
// and per "www." grows with the text around it (a run of "www.a_" took 3.7 s at 64 KB);
// TextBuilder drops bare links instead.
absl::StatusOr<std::unique_ptr<cmark_node, NodeDeleter>> ParseGfm(const std::string& doc,
                                                                  const ExtractLimits& limits) {
  // Footnotes cost two walks over the tree: only where there can be one.
  const bool footnotes = absl::StrContains(doc, "[^");
  static std::once_flag registered;
  std::call_once(registered, [] { cmark_gfm_core_extensions_ensure_registered(); });
  std::unique_ptr<cmark_parser, ParserDeleter> parser(
      cmark_parser_new_with_mem(CMARK_OPT_DEFAULT | (footnotes ? CMARK_OPT_FOOTNOTES : 0),
                                const_cast<cmark_mem*>(ParseArena::Mem())));
  for (const char* ext : {"table", "strikethrough", "tasklist"}) {
    if (cmark_syntax_extension* e = cmark_find_syntax_extension(ext)) {
      cmark_parser_attach_syntax_extension(parser.get(), e);
    }
  }
  constexpr size_t kChunk = 256 << 10;
  for (size_t at = 0; at < doc.size(); at += kChunk) {
    if (absl::Status s = CheckDeadline(limits, "reading the Markdown document"); !s.ok()) return s;
    cmark_parser_feed(parser.get(), doc.data() + at, std::min(kChunk, doc.size() - at));
  }
  return std::unique_ptr<cmark_node, NodeDeleter>(cmark_parser_finish(parser.get()));
}

// Appends one part's text. An offset into the parsed text plus `shift` is the input's; what
// starts before `prefix` (the reference definitions read before the part) is not the part's.
absl::Status AppendPart(cmark_node* root, const LineStarts& line_offset, int64_t shift,
                        uint64_t prefix, std::string_view input, const ExtractLimits& limits,
                        TextBuilder& b) {
  uint64_t cursor = 0, limit = 0, steps = 0;
  const auto at = [&](int line) {
    return static_cast<uint64_t>(static_cast<int64_t>(line_offset(line)) + shift);
  };
  std::unique_ptr<cmark_iter, IterDeleter> it(cmark_iter_new(root));
  for (cmark_event_type ev; (ev = cmark_iter_next(it.get())) != CMARK_EVENT_DONE;) {
    cmark_node* node = cmark_iter_get_node(it.get());
    const cmark_node_type type = cmark_node_get_type(node);
    const bool enter = ev == CMARK_EVENT_ENTER;
    switch (type) {
      case CMARK_NODE_HEADING:
      case CMARK_NODE_PARAGRAPH:
        if (enter) {
          b.EndBlock();
          if (line_offset(cmark_node_get_start_line(node)) < prefix) {
            cmark_iter_reset(it.get(), node, CMARK_EVENT_EXIT);
            break;
          }
          cursor = at(cmark_node_get_start_line(node));
          limit = at(cmark_node_get_end_line(node) + 1);
          if (type == CMARK_NODE_HEADING) b.MarkHeading(cmark_node_get_heading_level(node));
        } else {
          b.EndBlock();
        }
        break;
      case CMARK_NODE_TEXT:
        if (const char* lit = cmark_node_get_literal(node)) {
          b.AppendText(lit, &cursor, limit, /*drop_bare_links=*/true);
        }
        break;
      case CMARK_NODE_CODE:
        if (const char* lit = cmark_node_get_literal(node)) b.AppendText(lit, &cursor, limit);
        break;
      case CMARK_NODE_SOFTBREAK:
      case CMARK_NODE_LINEBREAK:
        b.LineBreak();
        break;
      case CMARK_NODE_LINK:
        if (enter && IsBareLink(node)) {
          cmark_iter_reset(it.get(), node, CMARK_EVENT_EXIT);
        } else if (!enter) {
          SkipPast(input, cmark_node_get_url(node), &cursor, limit);  // its target
        }
        break;
      case CMARK_NODE_IMAGE:
        SkipPast(input, cmark_node_get_url(node), &cursor, limit);
        cmark_iter_reset(it.get(), node, CMARK_EVENT_EXIT);
        break;
      case CMARK_NODE_HTML_INLINE:
        SkipPast(input, cmark_node_get_literal(node), &cursor, limit);  // the tag
        break;
      case CMARK_NODE_CODE_BLOCK:
      case CMARK_NODE_HTML_BLOCK:
      case CMARK_NODE_THEMATIC_BREAK:
      case CMARK_NODE_FOOTNOTE_DEFINITION:
      case CMARK_NODE_FOOTNOTE_REFERENCE:
        if (enter) cmark_iter_reset(it.get(), node, CMARK_EVENT_EXIT);
        break;
      default:
        // Extension blocks: tables are dropped (as in the training corpus); strikethrough and
        // task lists keep their text.
        if (enter && IsType(node, "table")) {
          b.EndBlock();
          cmark_iter_reset(it.get(), node, CMARK_EVENT_EXIT);
        }
        break;
    }
    if (b.overflowed()) return absl::OkStatus();
    if (++steps % 4096 == 0 && absl::Now() > limits.deadline) {
      return CheckDeadline(limits, "extracting the Markdown document's text");
    }
  }
  return absl::OkStatus();
}

// Plain parts. A part of plain lines (paragraphs and bullet items of words and ordinary
// punctuation at the left margin, blank lines between) holds no construct but paragraphs and
// lists, and its text is its lines' words: it is read here, making the calls the walker above
// makes on cmark's tree of it (tested against it: MarkdownScan.PlainPartsReadAsCmarkReadsThem), at
// a fraction of cmark's cost per node. A document of one-word lines or items was 4x to 6x a prose
// document per byte through cmark.
bool IsPlainChar(unsigned char c) {
  // Not: inline markup (* _ ` [ ] < > & \ ~), table pipes, tabs and control characters.
  static const std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> t{};
    for (int c = 0x20; c < 0x7f; ++c) t[c] = std::strchr("*_`[]<>&\\~|", c) == nullptr;
    for (int c = 0x80; c < 0x100; ++c) t[c] = true;
    return t;
  }();
  return kPlain[c];
}

// A blank line: empty, or spaces alone.
bool IsBlankPlainLine(std::string_view line) {
  return line.find_first_not_of(' ') == std::string_view::npos;
}

// Where a plain line's words start (after a bullet marker: 2), or npos when the line does not
// start a paragraph of words: no heading, quote, indented code, rule, setext underline or
// ordered list item (digits then '.' or ')').
size_t PlainLineWords(std::string_view line) {
  size_t at = 0;
  if (line.size() >= 3 && (line[0] == '-' || line[0] == '*' || line[0] == '+') && line[1] == ' ') {
    at = 2;
  }
  if (at >= line.size()) return std::string_view::npos;
  const auto c = static_cast<unsigned char>(line[at]);
  if (std::isdigit(c) != 0) {
    size_t d = at;
    while (d < line.size() && std::isdigit(static_cast<unsigned char>(line[d])) != 0) ++d;
    if (d < line.size() && (line[d] == '.' || line[d] == ')')) return std::string_view::npos;
    return at;
  }
  // Not a space, nor what starts a heading, a quote, a list item or a rule or underline.
  return IsPlainChar(c) && std::strchr(" #>-+*=", c) == nullptr ? at : std::string_view::npos;
}

// A plain part's text; `begin` is where it starts in the input.
absl::Status AppendPlainPart(std::string_view part, uint64_t begin, const ExtractLimits& limits,
                             TextBuilder& b) {
  uint64_t cursor = 0, limit = 0;
  bool open = false;  // a paragraph (or an item's) is open
  size_t lines = 0;
  for (size_t s = 0; s < part.size();) {
    size_t e = part.find('\n', s);
    if (e == std::string_view::npos) e = part.size();
    const std::string_view line = part.substr(s, e - s);
    const bool blank = IsBlankPlainLine(line);
    const size_t words = blank ? 0 : PlainLineWords(line);
    if (blank || words > 0 || !open) {  // a blank line or a bullet item ends a paragraph
      if (open) b.EndBlock();
      open = !blank;
      if (open) {
        b.EndBlock();
        cursor = begin + s;
        // The paragraph's end: the next blank or bullet line, as cmark's end line tells.
        size_t next = e;
        while (next < part.size()) {
          size_t ne = part.find('\n', next + 1);
          if (ne == std::string_view::npos) ne = part.size();
          const std::string_view l = part.substr(next + 1, ne - next - 1);
          if (IsBlankPlainLine(l) || PlainLineWords(l) > 0) break;
          next = ne;
        }
        limit = begin + std::min(next + 1, part.size());
      }
    } else {
      b.LineBreak();  // a soft line break
    }
    if (open) b.AppendText(line.substr(words), &cursor, limit, /*drop_bare_links=*/true);
    if (b.overflowed()) return absl::OkStatus();
    if (++lines % 4096 == 0) {
      if (absl::Status st = CheckDeadline(limits, "extracting the Markdown document's text");
          !st.ok()) {
        return st;
      }
    }
    s = e + 1;
  }
  if (open) b.EndBlock();
  return absl::OkStatus();
}

}  // namespace

bool IsPlainMarkdownPart(std::string_view part) {
  for (size_t b = 0; b < part.size();) {
    size_t e = part.find('\n', b);
    if (e == std::string_view::npos) e = part.size();
    const std::string_view line = part.substr(b, e - b);
    if (!IsBlankPlainLine(line) && PlainLineWords(line) == std::string_view::npos) return false;
    for (const char c : line) {
      if (!IsPlainChar(static_cast<unsigned char>(c))) return false;
    }
    b = e + 1;
  }
  return true;
}

absl::StatusOr<Extracted> ExtractMarkdown(std::string_view input, const ExtractLimits& limits) {
  std::string doc(input);
  BlankFrontMatter(&doc);
  if (absl::Status s = ScanMarkdown(&doc, limits); !s.ok()) return s;
  const MarkdownParts parts = SplitMarkdown(doc);
  TextBuilder b(input, limits.max_text_bytes);
  const std::string_view whole = doc;
  std::string text;
  for (size_t p = 0; p < parts.starts.size() && !b.overflowed(); ++p) {
    const size_t begin = parts.starts[p];
    const size_t end = p + 1 < parts.starts.size() ? parts.starts[p + 1] : doc.size();
    const std::string_view part = whole.substr(begin, end - begin);
    if (IsPlainMarkdownPart(part)) {
      if (absl::Status s = AppendPlainPart(part, begin, limits, b); !s.ok()) return s;
      continue;
    }
    text.assign(parts.references);
    text.append(part);
    const ParseArena arena;  // the part's tree, released with it
    const LineStarts line_offset(text);
    absl::StatusOr<std::unique_ptr<cmark_node, NodeDeleter>> root = ParseGfm(text, limits);
    if (!root.ok()) return root.status();
    if (*root == nullptr) return absl::InternalError("the Markdown parser failed");
    if (absl::Status s = CheckDeadline(limits, "reading the Markdown document"); !s.ok()) return s;
    const int64_t shift =
        static_cast<int64_t>(begin) - static_cast<int64_t>(parts.references.size());
    if (absl::Status s =
            AppendPart(root->get(), line_offset, shift, parts.references.size(), input, limits, b);
        !s.ok()) {
      return s;
    }
  }
  return std::move(b).Finish("Markdown document");
}

}  // namespace rpsum::formats::internal
