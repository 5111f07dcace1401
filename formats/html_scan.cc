// The HTML pre-scan (docs/design.md, "What each reader bounds"): one pass over the page's tags
// that follows HTML5's tree rules where depth comes from, so that a page gumbo would nest
// deeper than the limit is refused before gumbo parses it, and that attributes past the
// per-element limit are blanked (gumbo checks each new attribute against all earlier ones of its
// element). Upper bound, never lower: where the rules are not followed exactly, the scan counts
// deeper than gumbo builds (an unsure end tag closes nothing; formatting elements are reopened
// everywhere), while the common shapes of real pages (unclosed <p>, <li>, <td>, <option>, <a>)
// close as HTML5 closes them. Work: each tag costs at most the depth limit.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "formats/internal/builder.h"

namespace rpsum::formats::internal {
namespace {

using TagSet = absl::flat_hash_set<std::string_view>;

const TagSet& VoidElements() {
  static const auto* s =
      new TagSet{"area",  "base", "basefont", "bgsound", "br",   "col",  "embed",  "hr",
                 "image", "img",  "input",    "keygen",  "link", "meta", "param",  "source",
                 "track", "wbr",  "frame",    "html",    "head", "body", "isindex"};
  return *s;
}

const TagSet& FormattingElements() {
  static const auto* s = new TagSet{"a",    "b", "big",   "code",   "em",     "font", "i",
                                    "nobr", "s", "small", "strike", "strong", "tt",   "u"};
  return *s;
}

// Start tags that close an open <p> (HTML5 "close a p element") and do not reopen formatting
// elements.
const TagSet& ClosesP() {
  static const auto* s =
      new TagSet{"address", "article", "aside",   "blockquote", "center",     "details", "dialog",
                 "dir",     "div",     "dl",      "fieldset",   "figcaption", "figure",  "footer",
                 "form",    "h1",      "h2",      "h3",         "h4",         "h5",      "h6",
                 "header",  "hgroup",  "hr",      "main",       "menu",       "nav",     "ol",
                 "p",       "pre",     "section", "summary",    "table",      "ul",      "li",
                 "dd",      "dt",      "listing", "xmp",        "plaintext",  "search"};
  return *s;
}

// Elements that stop the search for an open element to close ("scope" boundaries, simplified
// to the ones that matter for depth).
const TagSet& ScopeBoundary() {
  static const auto* s = new TagSet{"applet",  "caption", "html",     "table", "td",  "th",
                                    "marquee", "object",  "template", "svg",   "math"};
  return *s;
}

// HTML5's special elements: "any other end tag" does not close through them.
const TagSet& Special() {
  static const auto* s = new TagSet{
      "address",    "applet",  "area",   "article",   "aside",   "base",     "basefont", "bgsound",
      "blockquote", "body",    "br",     "button",    "caption", "center",   "col",      "colgroup",
      "dd",         "details", "dir",    "div",       "dl",      "dt",       "embed",    "fieldset",
      "figcaption", "figure",  "footer", "form",      "frame",   "frameset", "h1",       "h2",
      "h3",         "h4",      "h5",     "h6",        "head",    "header",   "hgroup",   "hr",
      "html",       "iframe",  "img",    "input",     "li",      "link",     "listing",  "main",
      "marquee",    "menu",    "meta",   "nav",       "noembed", "noframes", "noscript", "object",
      "ol",         "p",       "param",  "plaintext", "pre",     "script",   "search",   "section",
      "select",     "source",  "style",  "summary",   "table",   "tbody",    "td",       "template",
      "textarea",   "tfoot",   "th",     "thead",     "title",   "tr",       "track",    "ul",
      "wbr",        "xmp"};
  return *s;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// One open element, or one entry of the list of active formatting elements.
struct Open {
  std::string name;
  size_t attrs = 0;  // hash of the attribute text (formatting elements: Noah's Ark)
  bool on_stack = true;
};

class Scanner {
 public:
  Scanner(std::string_view html, const ExtractLimits& limits) : html_(html), limits_(limits) {}

  // OK, with `blank` holding the byte ranges of dropped attributes; InvalidArgument naming
  // the depth limit when the tree would be deeper.
  absl::Status Run(std::vector<std::pair<size_t, size_t>>* blank);

 private:
  // Index of the nearest open element named `name` from the top, not past a boundary in
  // `stop` (nullptr: no boundary); -1 when none.
  int Find(std::string_view name, const TagSet* stop, const TagSet* except = nullptr) const;
  void PopTo(int index);  // pops the element at `index` and everything above it
  void StartTag(std::string name, size_t attr_hash, bool self_closing);
  void ImpliedCloses(const std::string& name);
  void CloseTablePart(const std::string& name);
  void CloseOpenLink(const std::string& name);
  enum class Removed { kNone, kOffStack, kOnStack };
  Removed RemoveFormatting(const std::string& name);
  void AddFormatting(const std::string& name, size_t attr_hash);
  void EndTag(const std::string& name);
  void Reconstruct();
  bool InForeign() const { return foreign_ > 0; }
  absl::Status CheckDepth(size_t at) const;
  struct Tag {
    size_t attr_hash = 0;
    bool self_closing = false;
  };
  size_t ReadAttributes(size_t i, bool end_tag, Tag* tag,
                        std::vector<std::pair<size_t, size_t>>* blank) const;
  size_t SkipRawText(size_t i, const std::string& name) const;

  std::string_view html_;
  const ExtractLimits& limits_;
  std::vector<Open> stack_;
  std::vector<Open> formatting_;  // active formatting elements (markers ignored: counts more)
  int foreign_ = 0;               // open <svg>/<math> elements: "/>" closes inside them
  size_t off_stack_ = 0;          // entries of formatting_ to reopen at the next text
  size_t reopened_ = 0;           // formatting elements reopened so far
  size_t start_tags_ = 0;         // start tags read so far
};

int Scanner::Find(std::string_view name, const TagSet* stop, const TagSet* except) const {
  for (int i = static_cast<int>(stack_.size()) - 1; i >= 0; --i) {
    const std::string& n = stack_[i].name;
    if (n == name) return i;
    if (stop != nullptr && stop->contains(n) && (except == nullptr || !except->contains(n))) {
      return -1;
    }
  }
  return -1;
}

void Scanner::PopTo(int index) {
  while (static_cast<int>(stack_.size()) > index) {
    const Open& o = stack_.back();
    if (o.name == "svg" || o.name == "math") --foreign_;
    if (FormattingElements().contains(o.name)) {
      // It stays in the list of active formatting elements and is reopened at the next text.
      for (auto it = formatting_.rbegin(); it != formatting_.rend(); ++it) {
        if (it->name == o.name && it->on_stack) {
          it->on_stack = false;
          ++off_stack_;
          break;
        }
      }
    }
    stack_.pop_back();
  }
}

void Scanner::Reconstruct() {
  if (off_stack_ == 0) return;
  off_stack_ = 0;
  for (Open& f : formatting_) {
    if (f.on_stack) continue;
    f.on_stack = true;
    ++reopened_;
    stack_.push_back(Open{f.name, f.attrs, true});
  }
}

// The open elements HTML5 closes before a start tag of `name`: an open <p> before a block,
// the open item before a list item, cell, row, option or heading, the open link before a link.
void Scanner::ImpliedCloses(const std::string& name) {
  static const TagSet kListStop = {"ul",      "ol",       "menu",   "dl",     "table",
                                   "td",      "th",       "button", "object", "applet",
                                   "marquee", "template", "caption"};
  if (ClosesP().contains(name)) {
    if (const int p = Find("p", &ScopeBoundary()); p >= 0) PopTo(p);
  }
  const int top = static_cast<int>(stack_.size()) - 1;
  const auto is_heading = [](const std::string& n) {
    return n.size() == 2 && n[0] == 'h' && n[1] >= '1' && n[1] <= '6';
  };
  if (name == "li") {
    if (const int i = Find("li", &kListStop); i >= 0) PopTo(i);
  } else if (name == "dd" || name == "dt") {
    const int at = std::max(Find("dd", &kListStop), Find("dt", &kListStop));
    if (at >= 0) PopTo(at);
  } else if (is_heading(name)) {
    if (top >= 0 && is_heading(stack_[top].name)) PopTo(top);
  } else if (name == "option" || name == "optgroup") {
    if (top >= 0 && stack_[top].name == "option") PopTo(top);
    const int now = static_cast<int>(stack_.size()) - 1;
    if (name == "optgroup" && now >= 0 && stack_[now].name == "optgroup") PopTo(now);
  } else if (name == "td" || name == "th" || name == "tr" || name == "tbody" || name == "thead" ||
             name == "tfoot") {
    CloseTablePart(name);
  } else if (name == "a" || name == "nobr") {
    CloseOpenLink(name);
  }
}

// A new cell closes the open one, a new row the open row, a new section the open one; and the
// elements HTML5 opens between a table and its cells (tbody, tr) count.
void Scanner::CloseTablePart(const std::string& name) {
  static const TagSet kTableStop = {"table", "template", "html"};
  const bool cell = name == "td" || name == "th";
  const bool row = name == "tr";
  for (int i = static_cast<int>(stack_.size()) - 1; i >= 0; --i) {
    const std::string& n = stack_[i].name;
    if (kTableStop.contains(n)) break;
    const bool is_cell = n == "td" || n == "th";
    const bool is_section = n == "tbody" || n == "thead" || n == "tfoot";
    if ((cell && is_cell) || (row && n == "tr") || (!cell && !row && is_section)) {
      PopTo(i);
      break;
    }
  }
  const std::string top = stack_.empty() ? std::string() : stack_.back().name;
  if ((cell || row) && top == "table") stack_.push_back(Open{"tbody"});
  if (cell && (top == "table" || top == "tbody" || top == "thead" || top == "tfoot")) {
    stack_.push_back(Open{"tr"});
  }
}

// An open <a> (or <nobr>) is closed by the next (the adoption agency): out of the list, and off
// the stack when nothing but inline elements was opened inside it.
void Scanner::CloseOpenLink(const std::string& name) {
  if (RemoveFormatting(name) != Removed::kOnStack) return;
  const int at = Find(name, nullptr);
  bool inline_only = at >= 0;
  for (int j = at + 1; inline_only && j < static_cast<int>(stack_.size()); ++j) {
    inline_only = !Special().contains(stack_[j].name);
  }
  if (inline_only) PopTo(at);  // its inline children close with it
}

// Takes the last entry named `name` out of the list of active formatting elements.
Scanner::Removed Scanner::RemoveFormatting(const std::string& name) {
  for (int i = static_cast<int>(formatting_.size()) - 1; i >= 0; --i) {
    if (formatting_[i].name != name) continue;
    const bool on_stack = formatting_[i].on_stack;
    if (!on_stack) --off_stack_;
    formatting_.erase(formatting_.begin() + i);
    return on_stack ? Removed::kOnStack : Removed::kOffStack;
  }
  return Removed::kNone;
}

// Noah's Ark: at most three entries with the same name and attributes in the list.
void Scanner::AddFormatting(const std::string& name, size_t attr_hash) {
  int same = 0, earliest = -1;
  for (int i = static_cast<int>(formatting_.size()) - 1; i >= 0; --i) {
    if (formatting_[i].name == name && formatting_[i].attrs == attr_hash) {
      ++same;
      earliest = i;
    }
  }
  if (same >= 3) {
    if (!formatting_[earliest].on_stack) --off_stack_;
    formatting_.erase(formatting_.begin() + earliest);
  }
  formatting_.push_back(Open{name, attr_hash, true});
}

void Scanner::StartTag(std::string name, size_t attr_hash, bool self_closing) {
  ++start_tags_;
  if (name == "svg" || name == "math") ++foreign_;
  if (InForeign() && self_closing) {
    if (name == "svg" || name == "math") --foreign_;
    return;
  }
  if (!InForeign()) {
    if (VoidElements().contains(name)) return;
    ImpliedCloses(name);
    if (!ClosesP().contains(name)) Reconstruct();
    if (FormattingElements().contains(name)) AddFormatting(name, attr_hash);
  }
  stack_.push_back(Open{std::move(name), attr_hash, true});
}

void Scanner::EndTag(const std::string& name) {
  if (name == "html" || name == "body" || name == "head" || name == "br") return;
  if (name == "svg" || name == "math" || InForeign()) {
    if (const int i = Find(name, nullptr); i >= 0) PopTo(i);
    return;
  }
  if (FormattingElements().contains(name)) {
    const Removed removed = RemoveFormatting(name);
    if (removed == Removed::kOnStack) {
      // The adoption agency takes the element out of the stack; what it held stays open.
      if (const int at = Find(name, nullptr); at >= 0) stack_.erase(stack_.begin() + at);
    }
    if (removed != Removed::kNone) return;
  }
  if (Special().contains(name) || name == "p") {
    // A block's end tag closes it through anything but a scope boundary.
    if (const int i = Find(name, &ScopeBoundary()); i >= 0) PopTo(i);
    return;
  }
  // Any other end tag closes the nearest element of its name, not through a special element;
  // else it is ignored.
  if (const int i = Find(name, &Special()); i >= 0) PopTo(i);
}

// Formatting elements reopened past kMaxReopened and four per start tag: gumbo creates each
// again, so misnested formatting under the depth limit ("<p><b id=N>x" repeated) costs the
// square of the tags (105 ms for 6.7 KB at a depth of 500; slow-input fuzzing found it). A
// sloppy page reopens a few per paragraph (HTML5 keeps three alike at most).
constexpr size_t kMaxReopened = 2048;

absl::Status Scanner::CheckDepth(size_t at) const {
  if (reopened_ > kMaxReopened && reopened_ > 4 * start_tags_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "this HTML reopens ", reopened_, " formatting elements by byte ", at,
        " (misnested or unclosed formatting tags such as <b> and <font>, which HTML5 opens ",
        "again in every following block); fix the markup or send its text"));
  }
  const size_t depth = stack_.size() + off_stack_;
  if (depth <= static_cast<size_t>(limits_.max_html_depth)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "this HTML nests elements deeper than ", limits_.max_html_depth, " levels by byte ", at,
      " (the HTML depth limit, max_html_depth; unclosed and misnested ",
      "tags count as HTML5 nests them); simplify the page or send its text"));
}

// Reads the attributes of the tag whose name ends at `i`, as the tokenizer reads them (a quoted
// value may hold '>'), to just past its '>': their hash, whether it ends in "/>", and the ranges
// of attributes past the limit in `blank` (start tags only).
size_t Scanner::ReadAttributes(size_t i, bool end_tag, Tag* tag,
                               std::vector<std::pair<size_t, size_t>>* blank) const {
  const std::string_view h = html_;
  const size_t n = h.size();
  size_t attrs = 0;
  while (i < n && h[i] != '>') {
    if (IsSpace(h[i])) {
      ++i;
      continue;
    }
    if (h[i] == '/') {
      tag->self_closing = i + 1 < n && h[i + 1] == '>';
      ++i;
      continue;
    }
    const size_t attr_begin = i;
    ++i;  // a name may start with '='
    while (i < n && !IsSpace(h[i]) && h[i] != '/' && h[i] != '>' && h[i] != '=') ++i;
    size_t k = i;
    while (k < n && IsSpace(h[k])) ++k;
    if (k < n && h[k] == '=') {
      ++k;
      while (k < n && IsSpace(h[k])) ++k;
      if (k < n && (h[k] == '"' || h[k] == '\'')) {
        const size_t close = h.find(h[k], k + 1);
        i = close == std::string_view::npos ? n : close + 1;
      } else {
        while (k < n && !IsSpace(h[k]) && h[k] != '>') ++k;
        i = k;
      }
    }
    if (++attrs > static_cast<size_t>(limits_.max_html_attributes) && !end_tag) {
      blank->emplace_back(attr_begin, i);
    } else {
      tag->attr_hash = tag->attr_hash * 1000003U ^
                       std::hash<std::string_view>()(h.substr(attr_begin, i - attr_begin));
    }
  }
  return i < n ? i + 1 : n;
}

// Where the raw text of `name` (script, style, ...) that starts at `i` ends: its end tag.
size_t Scanner::SkipRawText(size_t i, const std::string& name) const {
  const std::string_view h = html_;
  for (size_t end = i;; end += 2) {
    end = h.find("</", end);
    if (end == std::string_view::npos) return h.size();
    if (end + 2 + name.size() > h.size()) continue;
    bool match = true;
    for (size_t c = 0; c < name.size() && match; ++c) {
      match = std::tolower(static_cast<unsigned char>(h[end + 2 + c])) == name[c];
    }
    if (match) return end;
  }
}

absl::Status Scanner::Run(std::vector<std::pair<size_t, size_t>>* blank) {
  static const TagSet kRaw = {"script",   "style",    "xmp",   "iframe",   "noembed",
                              "noframes", "textarea", "title", "plaintext"};
  const std::string_view h = html_;
  const size_t n = h.size();
  for (size_t i = 0; i < n;) {
    const size_t lt = std::min(h.find('<', i), n);
    if (lt > i) {
      // Text (whitespace too: HTML5 reopens formatting elements before any character).
      Reconstruct();
      if (absl::Status s = CheckDepth(i); !s.ok()) return s;
    }
    i = lt + 1;
    if (i >= n) break;
    if (h.compare(i, 3, "!--") == 0 || h[i] == '!' || h[i] == '?') {
      // A comment; a doctype, CDATA outside foreign content or a bogus comment.
      const bool comment = h[i] == '!' && h.compare(i, 3, "!--") == 0;
      const size_t end = comment ? h.find("-->", i + 3) : h.find('>', i);
      i = end == std::string_view::npos ? n : end + (comment ? 3 : 1);
      continue;
    }
    const bool end_tag = h[i] == '/';
    if (end_tag) ++i;
    if (i >= n || std::isalpha(static_cast<unsigned char>(h[i])) == 0) {
      if (end_tag && i < n && h[i] == '>') ++i;  // "</>" is dropped
      continue;                                  // "a < b": text
    }
    size_t j = i;
    while (j < n && !IsSpace(h[j]) && h[j] != '/' && h[j] != '>') ++j;
    std::string name(h.substr(i, j - i));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    Tag tag;
    i = ReadAttributes(j, end_tag, &tag, blank);
    if (end_tag) {
      EndTag(name);
      continue;
    }
    StartTag(name, tag.attr_hash, tag.self_closing);
    if (absl::Status s = CheckDepth(j); !s.ok()) return s;
    if (!InForeign() && kRaw.contains(name)) {  // nothing inside raw text is a tag
      if (name == "plaintext") break;
      i = SkipRawText(i, name);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ScanHtml(std::string_view html, const ExtractLimits& limits, std::string* rewritten) {
  std::vector<std::pair<size_t, size_t>> blank;
  Scanner scanner(html, limits);
  if (absl::Status s = scanner.Run(&blank); !s.ok()) return s;
  rewritten->clear();
  if (blank.empty()) return absl::OkStatus();
  // Attributes past the limit become spaces: the page keeps its text and its byte offsets.
  rewritten->assign(html);
  for (const auto& [b, e] : blank) {
    std::fill(rewritten->begin() + static_cast<std::ptrdiff_t>(b),
              rewritten->begin() + static_cast<std::ptrdiff_t>(e), ' ');
  }
  return absl::OkStatus();
}

}  // namespace rpsum::formats::internal
