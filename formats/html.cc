// HTML (gumbo, an HTML5 parser) into the text form: the page's <main>, else its one <article>,
// else its <body>; each block element (paragraph, heading, list item, ...) one line; inline
// markup dropped with its text kept; scripts, styles, navigation, page headers and footers,
// asides, forms, data tables, code blocks (<pre>), figures and hidden elements dropped (a table
// that lays out the page is read as blocks). Each word maps back to the bytes of its text node in
// the input.
#include <gumbo.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "formats/internal/builder.h"

namespace rpsum::formats::internal {
namespace {

// Gumbo's allocator, tracking every live block: the tree is freed here in one pass instead of
// by gumbo_destroy_output, which recurses once per nesting level (a stack overflow on hostile
// input). Each block is linked into a list through a header before it, so that taking it and
// giving it back cost a few pointer moves (a hash set of live blocks was a fifth of the time of
// a page that reopens many formatting elements).
class TrackingAllocator {
 public:
  TrackingAllocator() { list_.prev = list_.next = &list_; }
  TrackingAllocator(const TrackingAllocator&) = delete;
  TrackingAllocator& operator=(const TrackingAllocator&) = delete;
  ~TrackingAllocator() {
    for (Header* h = list_.next; h != &list_;) {
      Header* next = h->next;
      std::free(h);
      h = next;
    }
  }
  static void* Allocate(void* self, size_t size) {
    auto* h = static_cast<Header*>(std::malloc(sizeof(Header) + size));
    if (h == nullptr) std::abort();  // as gumbo's own allocator: it cannot fail softly
    Header& list = static_cast<TrackingAllocator*>(self)->list_;
    h->prev = &list;
    h->next = list.next;
    list.next->prev = h;
    list.next = h;
    return h + 1;
  }
  static void Deallocate(void* /*self*/, void* p) {
    if (p == nullptr) return;
    Header* h = static_cast<Header*>(p) - 1;
    h->prev->next = h->next;
    h->next->prev = h->prev;
    std::free(h);
  }

 private:
  struct alignas(16) Header {  // keeps the block after it aligned as malloc's
    Header* prev;
    Header* next;
  };
  Header list_;  // the list's ends
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
    case GUMBO_TAG_TABLE:  // a layout table (IsLayoutTable): data tables are dropped
    case GUMBO_TAG_TR:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TH:
      return true;
    default:
      return false;
  }
}

// A table used for layout (pages of the 2000s set their columns in tables): role
// "presentation" or "none", or a cell holding a heading, paragraph, list, quote, division or
// another table. A data table's cells hold words, links and emphasis. Reads the table's rows
// and cells and their children only: each node is looked at by its own table.
bool IsLayoutTable(const GumboNode* table) {
  if (const GumboAttribute* a = gumbo_get_attribute(&table->v.element.attributes, "role")) {
    if (absl::EqualsIgnoreCase(a->value, "presentation") ||
        absl::EqualsIgnoreCase(a->value, "none")) {
      return true;
    }
  }
  auto elements = [](const GumboNode* n) { return &n->v.element.children; };
  auto is = [](const void* n, std::initializer_list<GumboTag> tags) {
    const auto* node = static_cast<const GumboNode*>(n);
    if (node->type != GUMBO_NODE_ELEMENT) return false;
    return std::find(tags.begin(), tags.end(), node->v.element.tag) != tags.end();
  };
  auto row_is_layout = [&](const GumboNode* row) {
    const GumboVector* cells = elements(row);
    for (unsigned c = 0; c < cells->length; ++c) {
      if (!is(cells->data[c], {GUMBO_TAG_TD, GUMBO_TAG_TH})) continue;
      const GumboVector* inside = elements(static_cast<const GumboNode*>(cells->data[c]));
      for (unsigned i = 0; i < inside->length; ++i) {
        if (is(inside->data[i],
               {GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6,
                GUMBO_TAG_P, GUMBO_TAG_UL, GUMBO_TAG_OL, GUMBO_TAG_DL, GUMBO_TAG_BLOCKQUOTE,
                GUMBO_TAG_DIV, GUMBO_TAG_TABLE, GUMBO_TAG_CENTER})) {
          return true;
        }
      }
    }
    return false;
  };
  const GumboVector* parts = elements(table);
  for (unsigned i = 0; i < parts->length; ++i) {
    const auto* part = static_cast<const GumboNode*>(parts->data[i]);
    if (is(part, {GUMBO_TAG_TR}) && row_is_layout(part)) return true;
    if (!is(part, {GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT})) continue;
    const GumboVector* rows = elements(part);
    for (unsigned r = 0; r < rows->length; ++r) {
      if (is(rows->data[r], {GUMBO_TAG_TR}) &&
          row_is_layout(static_cast<const GumboNode*>(rows->data[r]))) {
        return true;
      }
    }
  }
  return false;
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

absl::Status TooDeep(int limit) {
  return absl::InvalidArgumentError(
      absl::StrCat("this HTML nests elements deeper than ", limit,
                   " levels (the HTML depth limit); simplify the page or send its text"));
}

}  // namespace

// What gumbo's parse may take per byte of the page: the whole extraction of the costliest HTML
// family takes 82 ns a byte at 4 MB on the 2-core build machine (bench/results/hostile.md).
constexpr absl::Duration kGumboTimePerByte = absl::Nanoseconds(100);

absl::Status ParseFitsDeadline(std::string_view page, const ExtractLimits& limits) {
  if (limits.deadline == absl::InfiniteFuture()) return absl::OkStatus();
  const absl::Duration parse = kGumboTimePerByte * static_cast<double>(page.size());
  const absl::Duration left = limits.deadline - absl::Now();
  if (left >= parse) return absl::OkStatus();
  return absl::DeadlineExceededError(
      absl::StrCat("parsing this HTML page of ", page.size(), " bytes takes up to ",
                   absl::ToInt64Milliseconds(parse), " ms, more than the ",
                   std::max<int64_t>(0, absl::ToInt64Milliseconds(left)),
                   " ms its deadline leaves; send a smaller page or allow more time"));
}

absl::StatusOr<Extracted> ExtractHtml(std::string_view input, const ExtractLimits& limits) {
  // Depth and attributes bounded before gumbo parses (html_scan.cc): its work per tag grows
  // with the depth and per attribute with the element's attributes.
  std::string rewritten;
  if (absl::Status s = ScanHtml(input, limits, &rewritten); !s.ok()) return s;
  std::string_view page = input;
  if (!rewritten.empty()) page = rewritten;
  if (absl::Status s = CheckDeadline(limits, "reading the HTML page"); !s.ok()) return s;
  if (absl::Status s = ParseFitsDeadline(page, limits); !s.ok()) return s;
  TrackingAllocator alloc;
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &TrackingAllocator::Allocate;
  options.deallocator = &TrackingAllocator::Deallocate;
  options.userdata = &alloc;
  options.max_errors = 0;  // parse errors are not recorded: a broken page still reads
  // Never gumbo_destroy_output: `alloc` frees the tree when it goes out of scope.
  GumboOutput* output = gumbo_parse_with_options(&options, page.data(), page.size());
  if (output == nullptr) return absl::InternalError("the HTML parser failed");

  bool in_content = false;
  const GumboNode* root = ContentRoot(output->document, &in_content);
  TextBuilder b(input, limits.max_text_bytes);
  struct Frame {
    const GumboNode* node;
    unsigned next_child;
  };
  std::vector<Frame> stack = {{root, 0}};
  for (uint64_t steps = 1; !stack.empty() && !b.overflowed(); ++steps) {
    if (steps % 4096 == 0) {
      if (absl::Status s = CheckDeadline(limits, "extracting the HTML page's text"); !s.ok()) {
        return s;
      }
    }
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
        const bool layout = e.tag == GUMBO_TAG_TABLE && IsLayoutTable(child);
        if ((Dropped(e.tag, in_content) && !layout) || HiddenOrChrome(e)) {
          // A dropped element between two words still separates them.
          b.Space();
          break;
        }
        if (static_cast<int>(stack.size()) >= limits.max_html_depth) {
          return TooDeep(limits.max_html_depth);
        }
        if (IsBlock(e.tag)) b.EndBlock();
        if (e.tag >= GUMBO_TAG_H1 && e.tag <= GUMBO_TAG_H6) {
          b.MarkHeading(static_cast<int32_t>(e.tag - GUMBO_TAG_H1) + 1);
        }
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
