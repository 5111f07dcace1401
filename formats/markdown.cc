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
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "formats/builder.h"

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
// items, emphasis) cost more than the parse; here they come from large zeroed blocks in the
// order cmark asks (a traversal reads them in that order) and go all at once. What cmark frees
// before the end is not reused: its temporaries are small beside the tree.
class ParseArena {
 public:
  ParseArena() : previous_(current_) { current_ = this; }
  ~ParseArena() { current_ = previous_; }
  ParseArena(const ParseArena&) = delete;
  ParseArena& operator=(const ParseArena&) = delete;

  static const cmark_mem* Mem() {
    static const cmark_mem kMem = {&Calloc, &Realloc, &Free};
    return &kMem;
  }

 private:
  static constexpr size_t kAlign = 16;
  static constexpr size_t kBlock = 4 << 20;
  // Each allocation is preceded by its size (kAlign bytes, keeping the alignment).
  static size_t& SizeOf(void* p) {
    return *reinterpret_cast<size_t*>(static_cast<char*>(p) - kAlign);
  }

  void* Allocate(size_t bytes) {
    const size_t need = kAlign + ((bytes + kAlign - 1) & ~(kAlign - 1));
    if (need > left_) {
      const size_t block = std::max(kBlock, need);
      auto* b = static_cast<char*>(std::calloc(block, 1));
      if (b == nullptr) return nullptr;  // cmark aborts, as it does on its own allocator's failure
      blocks_.emplace_back(b);
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
    return current_->Allocate(n * size);
  }
  static void* Realloc(void* p, size_t bytes) { return current_->Reallocate(p, bytes); }
  static void Free(void* /*p*/) {}

  struct BlockFree {
    void operator()(char* b) const { std::free(b); }
  };
  static thread_local ParseArena* current_;
  ParseArena* previous_;
  std::vector<std::unique_ptr<char, BlockFree>> blocks_;
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
        b.Space();
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

}  // namespace

absl::StatusOr<Extracted> ExtractMarkdown(std::string_view input, const ExtractLimits& limits) {
  std::string doc(input);
  BlankFrontMatter(&doc);
  if (absl::Status s = ScanMarkdown(&doc, limits); !s.ok()) return s;
  const MarkdownParts parts = SplitMarkdown(doc);
  TextBuilder b(input, limits.max_text_bytes);
  std::string text;
  for (size_t p = 0; p < parts.starts.size() && !b.overflowed(); ++p) {
    const size_t begin = parts.starts[p];
    const size_t end = p + 1 < parts.starts.size() ? parts.starts[p + 1] : doc.size();
    text.assign(parts.references);
    text.append(doc, begin, end - begin);
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
