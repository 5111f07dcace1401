// HTML (gumbo, an HTML5 parser) into the text form: the page's <main>, else its one <article>,
// else its <body>; each block element (paragraph, heading, list item, ...) one line; inline
// markup dropped with its text kept; scripts, styles, navigation, page headers and footers,
// asides, forms, tables, code blocks (<pre>), figures and hidden elements dropped. Each word maps
// back to the bytes of its text node in the input.
#include <gumbo.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "formats/builder.h"

namespace rpsum::formats::internal {
namespace {

// Gumbo's allocator, tracking every live block: the tree is freed here in one pass instead of
// by gumbo_destroy_output, which recurses once per nesting level (a stack overflow on hostile
// input).
class TrackingAllocator {
 public:
  ~TrackingAllocator() {
    for (void* p : live_) std::free(p);
  }
  static void* Allocate(void* self, size_t size) {
    void* p = std::malloc(size == 0 ? 1 : size);
    if (p == nullptr) std::abort();  // as gumbo's own allocator: it cannot fail softly
    static_cast<TrackingAllocator*>(self)->live_.insert(p);
    return p;
  }
  static void Deallocate(void* self, void* p) {
    if (p == nullptr) return;
    static_cast<TrackingAllocator*>(self)->live_.erase(p);
    std::free(p);
  }

 private:
  absl::flat_hash_set<void*> live_;
};

bool Dropped(GumboTag tag, bool in_content_root) {
  switch (tag) {
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_TITLE:
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_MATH:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_CANVAS:
    case GUMBO_TAG_VIDEO:
    case GUMBO_TAG_AUDIO:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_MENU:
      return true;
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_FOOTER:
      // The page's banner and footer; an article's own header (its title) stays.
      return !in_content_root;
    default:
      return false;
  }
}

bool IsBlock(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_BODY:
    case GUMBO_TAG_BR:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_HR:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_P:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_UL:
    case GUMBO_TAG_TR:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TH:
      return true;
    default:
      return false;
  }
}

// hidden, aria-hidden="true", or a landmark role that is not content.
bool HiddenOrChrome(const GumboElement& e) {
  if (gumbo_get_attribute(&e.attributes, "hidden") != nullptr) return true;
  if (const GumboAttribute* a = gumbo_get_attribute(&e.attributes, "aria-hidden")) {
    if (absl::EqualsIgnoreCase(a->value, "true")) return true;
  }
  if (const GumboAttribute* a = gumbo_get_attribute(&e.attributes, "role")) {
    for (const char* role : {"navigation", "banner", "contentinfo", "complementary", "search"}) {
      if (absl::EqualsIgnoreCase(a->value, role)) return true;
    }
  }
  return false;
}

// The subtree that holds the page's content: the first <main>, else the only <article>, else
// <body> (else the whole document). Breadth-first, iteratively.
const GumboNode* ContentRoot(const GumboNode* document, bool* is_content) {
  const GumboNode* body = nullptr;
  const GumboNode* article = nullptr;
  int articles = 0;
  std::vector<const GumboNode*> queue = {document};
  for (size_t i = 0; i < queue.size(); ++i) {
    const GumboNode* n = queue[i];
    const GumboVector* children = nullptr;
    if (n->type == GUMBO_NODE_DOCUMENT) {
      children = &n->v.document.children;
    } else if (n->type == GUMBO_NODE_ELEMENT) {
      const GumboTag tag = n->v.element.tag;
      if (tag == GUMBO_TAG_MAIN && !HiddenOrChrome(n->v.element)) {
        *is_content = true;
        return n;
      }
      if (tag == GUMBO_TAG_ARTICLE) {
        ++articles;
        if (article == nullptr) article = n;
      }
      if (tag == GUMBO_TAG_BODY && body == nullptr) body = n;
      if (tag == GUMBO_TAG_SCRIPT || tag == GUMBO_TAG_STYLE || tag == GUMBO_TAG_TEMPLATE) {
        continue;
      }
      children = &n->v.element.children;
    }
    if (children == nullptr) continue;
    for (unsigned c = 0; c < children->length; ++c) {
      queue.push_back(static_cast<const GumboNode*>(children->data[c]));
    }
  }
  if (articles == 1) {
    *is_content = true;
    return article;
  }
  *is_content = false;
  return body != nullptr ? body : document;
}

// The deepest element nesting the start and end tags of `html` suggest, without parsing:
// elements that close themselves (void elements, "/>") or are closed by their next sibling
// (p, li, td, ...) do not count, and raw text (script, style, comments) is skipped. Gumbo
// spends time in the depth of the open elements on every start tag, so a page nested
// thousands deep is refused before it is parsed.
int EstimatedDepth(std::string_view html, int stop_at) {
  static const absl::flat_hash_set<std::string> kNotNesting = {
      "area", "base",  "br",       "col",     "embed", "hr",    "img",    "input",    "link",
      "meta", "param", "source",   "track",   "wbr",   "p",     "li",     "dt",       "dd",
      "td",   "th",    "tr",       "thead",   "tbody", "tfoot", "option", "optgroup", "rb",
      "rt",   "rp",    "colgroup", "caption", "html",  "head",  "body"};
  int depth = 0, deepest = 0;
  size_t i = 0;
  while (i < html.size() && deepest <= stop_at) {
    i = html.find('<', i);
    if (i == std::string_view::npos || i + 1 >= html.size()) break;
    ++i;
    if (html.compare(i, 3, "!--") == 0) {
      const size_t end = html.find("-->", i + 3);
      i = end == std::string_view::npos ? html.size() : end + 3;
      continue;
    }
    const bool closing = html[i] == '/';
    if (closing) ++i;
    size_t j = i;
    while (j < html.size() && std::isalnum(static_cast<unsigned char>(html[j])) != 0) ++j;
    if (j == i) continue;  // not a tag: "a < b", "<!doctype"
    std::string name(html.substr(i, j - i));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const size_t close = html.find('>', j);
    if (close == std::string_view::npos) break;
    i = close + 1;
    if (kNotNesting.contains(name)) continue;
    if (closing) {
      depth = std::max(0, depth - 1);
      continue;
    }
    if (html[close - 1] == '/') continue;  // <div/>
    if (name == "script" || name == "style" || name == "textarea" || name == "title") {
      const size_t end = html.find("</", i);  // raw text runs to the next end tag
      i = end == std::string_view::npos ? html.size() : end;
      continue;
    }
    deepest = std::max(deepest, ++depth);
  }
  return deepest;
}

absl::Status TooDeep(int limit) {
  return absl::InvalidArgumentError(
      absl::StrCat("this HTML nests elements deeper than ", limit,
                   " levels (the HTML depth limit); simplify the page or send its text"));
}

}  // namespace

absl::StatusOr<Extracted> ExtractHtml(std::string_view input, const ExtractLimits& limits) {
  if (EstimatedDepth(input, limits.max_html_depth) > limits.max_html_depth) {
    return TooDeep(limits.max_html_depth);
  }
  TrackingAllocator alloc;
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &TrackingAllocator::Allocate;
  options.deallocator = &TrackingAllocator::Deallocate;
  options.userdata = &alloc;
  options.max_errors = 0;  // parse errors are not recorded: a broken page still reads
  // Never gumbo_destroy_output: `alloc` frees the tree when it goes out of scope.
  GumboOutput* output = gumbo_parse_with_options(&options, input.data(), input.size());
  if (output == nullptr) return absl::InternalError("the HTML parser failed");

  bool in_content = false;
  const GumboNode* root = ContentRoot(output->document, &in_content);
  TextBuilder b(input, limits.max_text_bytes);
  struct Frame {
    const GumboNode* node;
    unsigned next_child;
  };
  std::vector<Frame> stack = {{root, 0}};
  while (!stack.empty() && !b.overflowed()) {
    Frame& f = stack.back();
    const GumboNode* n = f.node;
    const GumboVector* children = n->type == GUMBO_NODE_DOCUMENT  ? &n->v.document.children
                                  : n->type == GUMBO_NODE_ELEMENT ? &n->v.element.children
                                                                  : nullptr;
    if (children == nullptr || f.next_child >= children->length) {
      if (n->type == GUMBO_NODE_ELEMENT && IsBlock(n->v.element.tag)) b.EndBlock();
      stack.pop_back();
      continue;
    }
    const auto* child = static_cast<const GumboNode*>(children->data[f.next_child++]);
    switch (child->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_WHITESPACE:
      case GUMBO_NODE_CDATA: {
        const GumboText& t = child->v.text;
        uint64_t cursor = t.start_pos.offset;
        b.AppendText(t.text, &cursor, t.start_pos.offset + t.original_text.length);
        break;
      }
      case GUMBO_NODE_ELEMENT:
      case GUMBO_NODE_TEMPLATE: {
        const GumboElement& e = child->v.element;
        if (Dropped(e.tag, in_content) || HiddenOrChrome(e)) {
          // A dropped element between two words still separates them.
          b.Space();
          break;
        }
        if (static_cast<int>(stack.size()) >= limits.max_html_depth) {
          return TooDeep(limits.max_html_depth);
        }
        if (IsBlock(e.tag)) b.EndBlock();
        stack.push_back({child, 0});
        break;
      }
      default:
        break;  // comments, the doctype
    }
  }
  return std::move(b).Finish("HTML page");
}

}  // namespace rpsum::formats::internal
