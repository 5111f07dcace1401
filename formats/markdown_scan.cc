// The Markdown pre-scan (docs/design.md, "What each reader bounds"): one pass over the lines
// before cmark-gfm parses, refusing or rewriting (byte for byte, so offsets still index the
// input) the shapes Debian's cmark-gfm 0.29.0.gfm.6 reads in more than linear time:
// - block quotes and lists nested deeper than max_markdown_depth: refused (every line walks
//   the open containers, lazy continuation lines included);
// - GFM tables (a header row, a delimiter row with as many cells, the rows under them):
//   blanked whole, since they are not extracted anyway and cmark-gfm keeps five nodes for a
//   row of two cells ("|x|y|" rows cost 200 bytes of memory per input byte);
// - a line with more than max_table_columns '|': its '|' blanked, its text kept (a table row's
//   cells cost their number squared, and rows under a wide header are padded to its width);
// - brackets: in a paragraph, '[' that no ']' closes past the first kMaxOpenBrackets, and
//   pairs nested deeper than that, read as spaces (each link walks back over the open
//   brackets: "![[]()" repeated);
// - a raw-HTML opener ("<!--", "<!X", "<![CDATA[", "<?") inside a line with no closer within
//   kMaxRawHtml bytes: read as text (each scans to the paragraph's end for its closer). At a
//   line's start they open HTML blocks, read line by line, and are left alone;
// - inline markup (emphasis, strikethrough, code spans, brackets, escapes, tags) denser than
//   text written to be read: read as spaces (cmark's memory and time go by nodes).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "formats/internal/builder.h"

namespace rpsum::formats::internal {
namespace {

constexpr size_t kMaxOpenBrackets = 32;
constexpr size_t kMaxRawHtml = 512;

// Block quote and list markers at the start of `line` (after `*content`, which moves past
// them), plus half its leading indentation (a nested list's items are indented).
int ContainerDepth(std::string_view line, size_t* content) {
  size_t i = 0;
  int columns = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
    columns += line[i] == '\t' ? 4 - columns % 4 : 1;
    ++i;
  }
  int markers = 0;
  for (;;) {
    size_t j = i;
    while (j < line.size() && j - i < 4 && (line[j] == ' ' || line[j] == '\t')) ++j;
    if (j >= line.size()) break;
    const char c = line[j];
    const auto space_at = [&](size_t k) {
      return k >= line.size() || line[k] == ' ' || line[k] == '\t';
    };
    if (c == '>' || ((c == '-' || c == '+' || c == '*') && space_at(j + 1))) {
      i = j + 1;
    } else if (c >= '0' && c <= '9') {
      size_t k = j;
      while (k < line.size() && k - j < 9 && line[k] >= '0' && line[k] <= '9') ++k;
      if (k >= line.size() || (line[k] != '.' && line[k] != ')') || !space_at(k + 1)) break;
      i = k + 1;
    } else {
      break;
    }
    ++markers;
  }
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  *content = i;
  return markers == 0 ? 0 : markers + columns / 2;
}

// Fenced code blocks, a line at a time (CommonMark 4.5): a run of three or more '`' or '~'
// opens one (a backtick fence's info string holds no backtick: "```a```" is inline code), and
// only a run of the same character, as long or longer, with nothing after it, closes it.
class Fences {
 public:
  // `content`: a line after its container markers and up to three spaces. Whether the line
  // belongs to a fenced block: opens it, closes it or lies in it.
  bool Line(std::string_view content) {
    const bool was_open = open_ != '\0';
    const char c = content.empty() ? '\0' : content[0];
    size_t n = 0;
    while (n < content.size() && content[n] == c) ++n;
    if ((c != '`' && c != '~') || n < 3) return was_open;
    const std::string_view rest = content.substr(n);
    if (!was_open) {
      if (c == '`' && std::find(rest.begin(), rest.end(), '`') != rest.end()) return false;
      open_ = c;
      length_ = n;
    } else if (c == open_ && n >= length_ &&
               rest.find_first_not_of(" \t\r") == std::string_view::npos) {
      open_ = '\0';
    }
    return true;
  }
  bool open() const { return open_ != '\0'; }

 private:
  char open_ = '\0';
  size_t length_ = 0;
};

// The position of the next `closer` at or after `from`, cached: positions only grow, so each
// closer's search covers the document once.
class NextOf {
 public:
  NextOf(std::string_view doc, std::string_view closer) : doc_(doc), closer_(closer) {}
  size_t At(size_t from) {
    if (!searched_ || (next_ != std::string_view::npos && next_ < from)) {
      next_ = doc_.find(closer_, from);
      searched_ = true;
    }
    return next_;
  }

 private:
  std::string_view doc_;
  std::string_view closer_;
  size_t next_ = std::string_view::npos;
  bool searched_ = false;
};

// Raw-HTML openers with no closer near become text: their '<' a space.
class RawHtml {
 public:
  explicit RawHtml(std::string_view doc)
      : doc_(doc), comment_(doc, "-->"), cdata_(doc, "]]>"), pi_(doc, "?>"), decl_(doc, ">") {}
  // Whether the opener at `i` (a '<') should read as text.
  bool Unclosed(size_t i) {
    const std::string_view rest = doc_.substr(i);
    NextOf* closer = nullptr;
    if (rest.substr(0, 4) == "<!--") {
      closer = &comment_;
    } else if (rest.substr(0, 9) == "<![CDATA[") {
      closer = &cdata_;
    } else if (rest.substr(0, 2) == "<?") {
      closer = &pi_;
    } else if (rest.size() > 2 && rest[1] == '!' &&
               std::isalpha(static_cast<unsigned char>(rest[2]))) {
      closer = &decl_;
    } else {
      return false;
    }
    const size_t at = closer->At(i + 2);
    return at == std::string_view::npos || at - i > kMaxRawHtml;
  }

 private:
  std::string_view doc_;
  NextOf comment_, cdata_, pi_, decl_;
};

// The cells of a table row, or -1 when `line` holds no unescaped '|'.
int Cells(std::string_view line) {
  size_t b = 0, e = line.size();
  while (b < e && (line[b] == ' ' || line[b] == '\t')) ++b;
  while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t' || line[e - 1] == '\r')) --e;
  if (b == e) return -1;
  int pipes = 0;
  for (size_t i = b; i < e; ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line[i] == '|') {
      ++pipes;
    }
  }
  if (pipes == 0) return -1;
  int cells = pipes + 1;
  if (line[b] == '|') --cells;
  if (e - b > 1 && line[e - 1] == '|' && line[e - 2] != '\\') --cells;
  return cells;
}

// A GFM table's delimiter row: cells of '-' with optional ':' at either end.
bool IsDelimiterRow(std::string_view line) {
  bool dash = false;
  for (char c : line) {
    if (c == '-') {
      dash = true;
    } else if (c != '|' && c != ':' && c != ' ' && c != '\t' && c != '\r') {
      return false;
    }
  }
  return dash;
}

// Whether a line ends a table: blank, or the start of another block. A line without a '|' is a
// row of one cell (cmark-gfm reads "a|b", "-|-", "x" as a table with a row "x").
bool EndsTable(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && i < 4 && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i == line.size() || line[i] == '\r') return true;
  const char c = line[i];
  if (c == '#' || c == '>' || c == '<') return true;
  if ((c == '-' || c == '*' || c == '+') && i + 1 < line.size() && line[i + 1] == ' ') return true;
  return line.substr(i, 3) == "```" || line.substr(i, 3) == "~~~";
}

// The cells of a line that may be a table's header row: without a '|', one cell (the last line
// of a paragraph: "a" over "|-|" is a table), unless it is blank or starts another block.
int HeaderCells(std::string_view line) {
  const int cells = Cells(line);
  if (cells > 0) return cells;
  return EndsTable(line) ? -1 : 1;
}

// Paragraph lines before a delimiter row that cmark-gfm may read as a table's header: it parses
// the whole paragraph as one row to find the header (appending each line's cell to a list it
// walks from its head: the square of the lines), so a longer paragraph's delimiter row is blanked.
constexpr int kMaxHeaderParagraphLines = 64;

// Blanks every GFM table at the top level (not inside a quote or list) with spaces, and any
// delimiter row under a paragraph of more than kMaxHeaderParagraphLines lines.
void BlankTables(std::string* doc) {
  std::string& d = *doc;
  size_t prev_b = std::string::npos, prev_e = 0;  // the line before: a header row?
  int paragraph_lines = 0;                        // non-blank lines since the last blank one
  for (size_t b = 0; b < d.size();) {
    size_t e = d.find('\n', b);
    if (e == std::string::npos) e = d.size();
    const std::string_view line(d.data() + b, e - b);
    if (prev_b != std::string::npos && IsDelimiterRow(line) && Cells(line) > 0 &&
        Cells(line) == HeaderCells(std::string_view(d.data() + prev_b, prev_e - prev_b))) {
      const std::string_view header(d.data() + prev_b, prev_e - prev_b);
      size_t content = 0;
      if (ContainerDepth(header, &content) == 0 && content < 4) {
        size_t end = e;  // the rows: until a line that ends the table
        while (end < d.size()) {
          size_t next = d.find('\n', end + 1);
          if (next == std::string::npos) next = d.size();
          if (EndsTable(std::string_view(d.data() + end + 1, next - end - 1))) break;
          end = next;
        }
        for (size_t i = prev_b; i < end; ++i) {
          if (d[i] != '\n' && d[i] != '\r') d[i] = ' ';
        }
        b = end + 1;
        prev_b = std::string::npos;
        paragraph_lines = 0;
        continue;
      }
    }
    size_t content = 0;
    ContainerDepth(line, &content);
    const std::string_view rest = line.substr(content);
    if (paragraph_lines > kMaxHeaderParagraphLines && IsDelimiterRow(rest) && Cells(rest) > 0) {
      for (size_t i = b + content; i < e; ++i) d[i] = ' ';  // now a blank line: no table
      paragraph_lines = 0;
      prev_b = std::string::npos;
      b = e + 1;
      continue;
    }
    const bool blank = line.find_first_not_of(" \t\r>", content) == std::string_view::npos;
    paragraph_lines = blank ? 0 : paragraph_lines + 1;
    prev_b = HeaderCells(line) > 0 ? b : std::string::npos;
    prev_e = e;
    b = e + 1;
  }
}

// The brackets of one paragraph (blank-line delimited): '[' and ']' matched as a stack.
class Brackets {
 public:
  void Open(size_t at) { open_.push_back(at); }
  void Close(size_t at) {
    if (open_.empty()) return;
    pairs_.emplace_back(open_.back(), at);
    open_.pop_back();
  }
  // Blanks what cmark would walk over more than a bounded number of times, and starts over.
  void EndParagraph(std::string* doc) {
    for (size_t i = kMaxOpenBrackets; i < open_.size(); ++i) (*doc)[open_[i]] = ' ';
    std::sort(pairs_.begin(), pairs_.end());
    std::vector<size_t> enclosing;  // close positions of the pairs around the current one
    for (const auto& [open, close] : pairs_) {
      while (!enclosing.empty() && enclosing.back() < open) enclosing.pop_back();
      if (enclosing.size() >= kMaxOpenBrackets) {
        (*doc)[open] = ' ';
        (*doc)[close] = ' ';
      }
      enclosing.push_back(close);
    }
    open_.clear();
    pairs_.clear();
  }

 private:
  std::vector<size_t> open_;
  std::vector<std::pair<size_t, size_t>> pairs_;
};

// Inline markup that makes a node or a delimiter of cmark's each: emphasis and strikethrough
// runs, code spans, brackets, escapes, tags. In a paragraph that holds more than kDenseMarks of
// them, one to kDenseBytes bytes or closer, they read as spaces: cmark's time and memory go
// by nodes ("*a* " repeated, md/emphasis-runs in bench/results/hostile.md, cost 6x a prose
// document per byte before this rule); text written to be read holds far fewer (none of the
// Markdown files over 64 KB in Debian's /usr/share/doc reads differently for it).
constexpr size_t kDenseMarks = 2048;
constexpr size_t kDenseBytes = 8;

bool IsMark(std::string_view doc, size_t i) {
  switch (doc[i]) {
    case '*':
    case '_':
    case '~':
    case '`':
    case '[':
    case ']':
    case '<':
    case '\\':
      return true;
    case '!':
      return i + 1 < doc.size() && doc[i + 1] == '[';
    default:
      return false;
  }
}

class Marks {
 public:
  void Add(size_t at) {
    if (marks_.empty()) first_ = at;
    marks_.push_back(at);
  }
  // At a paragraph's end (`end`, the byte after it): blanks its marks if they are dense.
  void EndParagraph(std::string* doc, size_t end) {
    if (marks_.size() > kDenseMarks && marks_.size() * kDenseBytes > end - first_) {
      for (size_t at : marks_) (*doc)[at] = ' ';
    }
    marks_.clear();
  }

 private:
  std::vector<size_t> marks_;
  size_t first_ = 0;
};

// A line with more '|' than a table may have columns has them read as spaces (but the first
// character), so that no wide table is made of it (a row's cells cost their number squared, and
// every row under a wide header is padded to its width). Before BlankTables, which then sees
// the rows cmark-gfm will (a header cut so might match a narrow delimiter row).
void BlankWidePipes(std::string* doc, int32_t max_columns) {
  std::string& d = *doc;
  for (size_t b = 0; b < d.size();) {
    size_t e = d.find('\n', b);
    if (e == std::string::npos) e = d.size();
    const std::string_view line(d.data() + b, e - b);
    size_t content = 0;
    ContainerDepth(line, &content);
    if (std::count(line.begin() + static_cast<std::ptrdiff_t>(content), line.end(), '|') >
        max_columns) {
      std::replace(d.begin() + static_cast<std::ptrdiff_t>(b + content + 1),
                   d.begin() + static_cast<std::ptrdiff_t>(e), '|', ' ');
    }
    b = e + 1;
  }
}

}  // namespace

absl::Status ScanMarkdown(std::string* doc, const ExtractLimits& limits) {
  BlankWidePipes(doc, limits.max_table_columns);
  BlankTables(doc);
  std::string& d = *doc;
  RawHtml raw(d);
  Brackets brackets;
  Marks marks;
  Fences fences;
  size_t line_no = 0;
  for (size_t b = 0; b < d.size();) {
    size_t e = d.find('\n', b);
    if (e == std::string::npos) e = d.size();
    ++line_no;
    const std::string_view line(d.data() + b, e - b);
    size_t content = 0;
    const int depth = ContainerDepth(line, &content);
    fences.Line(line.substr(content));
    const bool in_fence = fences.open();
    if (!in_fence && depth > limits.max_markdown_depth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "this Markdown nests block quotes and lists ", depth, " levels deep at line ", line_no,
          "; the limit is ", limits.max_markdown_depth,
          " (the Markdown nesting limit): flatten the document or send its text"));
    }
    if (content == line.size()) {  // a blank line ends a paragraph
      brackets.EndParagraph(doc);
      marks.EndParagraph(doc, b);
    }
    for (size_t i = b + content; i < e; ++i) {
      const char c = d[i];
      // (A line's first character stays: spaces there would make an indented code block.)
      if (!in_fence && i > b + content && IsMark(d, i)) marks.Add(i);
      if (c == '\\' && i + 1 < e && std::ispunct(static_cast<unsigned char>(d[i + 1])) != 0) {
        ++i;  // an escaped character is text
      } else if (c == '[') {
        brackets.Open(i);
      } else if (c == ']') {
        brackets.Close(i);
      } else if (c == '<' && i > b + content && raw.Unclosed(i)) {
        d[i] = ' ';
      }
    }
    b = e + 1;
  }
  brackets.EndParagraph(doc);
  marks.EndParagraph(doc, d.size());
  return absl::OkStatus();
}

}  // namespace rpsum::formats::internal

namespace rpsum::formats::internal {
namespace {

constexpr size_t kPartBytes = 16 << 10;
constexpr size_t kMaxPartBytes = 256 << 10;
constexpr size_t kMaxReferenceBytes = 16 << 10;

// A line that starts a bullet list item at the left margin ("- a", "* a", "+ a"): outside a
// fenced code or HTML block it starts a block whatever came before (it interrupts a paragraph,
// and as "- - -" it is a thematic break, never a heading's underline).
bool IsBulletLine(std::string_view line) {
  return line.size() >= 3 && (line[0] == '-' || line[0] == '*' || line[0] == '+') &&
         (line[1] == ' ' || line[1] == '\t') && line.find_first_not_of(" \t", 2) != line.npos;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return true;
}

// The end marker of the HTML block (CommonMark's kinds 1 to 5, which blank lines do not end)
// that `content` (a line past its indentation) opens, or empty.
std::string_view HtmlBlockEnd(std::string_view content) {
  static constexpr std::pair<std::string_view, std::string_view> kTags[] = {
      {"script", "</script>"},
      {"pre", "</pre>"},
      {"style", "</style>"},
      {"textarea", "</textarea>"}};
  for (const auto& [tag, end] : kTags) {
    if (content.size() >= tag.size() + 1 && content[0] == '<' &&
        StartsWithNoCase(content.substr(1), tag)) {
      const char c = content.size() > tag.size() + 1 ? content[tag.size() + 1] : '>';
      if (c == ' ' || c == '>' || c == '\t') return end;
    }
  }
  if (content.substr(0, 4) == "<!--") return "-->";
  if (content.substr(0, 9) == "<![CDATA[") return "]]>";
  if (content.substr(0, 2) == "<?") return "?>";
  if (content.size() > 2 && content.substr(0, 2) == "<!" &&
      std::isalpha(static_cast<unsigned char>(content[2]))) {
    return ">";
  }
  return {};
}

bool ContainsNoCase(std::string_view s, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= s.size(); ++i) {
    if (StartsWithNoCase(s.substr(i), needle)) return true;
  }
  return false;
}

// A link reference definition on one line, in the plain form: "[label]: destination", an
// optional title in double quotes, up to three spaces before it.
bool IsReferenceLine(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || line[i] != '[') return false;
  const size_t close = line.find(']', i + 1);
  if (close == std::string_view::npos || close == i + 1 || close - i > 999) return false;
  const std::string_view label = line.substr(i + 1, close - i - 1);
  if (label[0] == '^' || label.find_first_of("[\\") != std::string_view::npos) return false;
  if (close + 1 >= line.size() || line[close + 1] != ':') return false;
  size_t d = close + 2;
  while (d < line.size() && (line[d] == ' ' || line[d] == '\t')) ++d;
  if (d == close + 2 || d >= line.size() || line[d] == '<') return false;
  size_t e = d;
  while (e < line.size() && line[e] != ' ' && line[e] != '\t' && line[e] != '\r') ++e;
  std::string_view rest = line.substr(e);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r')) rest.remove_suffix(1);
  return rest.empty() ||
         (rest.size() >= 2 && rest.front() == '"' && rest.back() == '"' &&
          !absl::StrContains(absl::string_view(rest.data() + 1, rest.size() - 2), "\""));
}

// The label of a footnote definition that starts `line` ("[^label]: ..."), or empty.
std::string_view FootnoteLabel(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (line.substr(i, 2) != "[^") return {};
  const size_t close = line.find(']', i + 2);
  if (close == std::string_view::npos || close == i + 2 || close - i > 999 ||
      close + 1 >= line.size() || line[close + 1] != ':') {
    return {};
  }
  const std::string_view label = line.substr(i + 2, close - i - 2);
  return label.find_first_of(" \t[\\") == std::string_view::npos ? label : std::string_view();
}

}  // namespace

MarkdownParts SplitMarkdown(std::string_view doc) {
  MarkdownParts parts;
  parts.starts.push_back(0);
  if (doc.size() <= kPartBytes) return parts;
  // in_html: since the last blank line a line began with '<' (an HTML block that only a blank
  // line ends may be open, and a bullet line would belong to it).
  Fences fences;
  bool prev_blank = false, in_html = false;
  std::string_view html_end;
  for (size_t b = 0; b < doc.size();) {
    size_t e = doc.find('\n', b);
    if (e == std::string_view::npos) e = doc.size();
    const std::string_view line = doc.substr(b, e - b);
    const size_t part = b - parts.starts.back();
    const bool free = !fences.open() && html_end.empty();
    const bool blank = line.find_first_not_of(" \t\r") == std::string_view::npos;
    if (b > 0 && free &&
        ((part >= kPartBytes && ((prev_blank && !blank && line[0] != ' ' && line[0] != '\t') ||
                                 (!in_html && IsBulletLine(line)))) ||
         part >= kMaxPartBytes)) {
      parts.starts.push_back(b);
    }
    // A line longer than a part (no other place to cut): at a space past the part's size.
    while (free && e - parts.starts.back() > 2 * kMaxPartBytes) {
      size_t cut = parts.starts.back() + kMaxPartBytes;
      const size_t space = doc.substr(0, e).find(' ', cut);
      cut = space == std::string_view::npos ? cut : space + 1;
      while (cut < e && (static_cast<unsigned char>(doc[cut]) & 0xC0) == 0x80) ++cut;
      parts.starts.push_back(cut);
    }
    size_t indent = 0;
    while (indent < line.size() && indent < 3 && line[indent] == ' ') ++indent;
    const std::string_view content = line.substr(indent);
    if (!html_end.empty()) {
      if (ContainsNoCase(line, html_end)) html_end = {};
    } else if (!fences.Line(content)) {
      const std::string_view end = HtmlBlockEnd(content);
      if (!end.empty() && !ContainsNoCase(content.substr(1), end)) html_end = end;
      const std::string_view label = FootnoteLabel(line);
      if (parts.references.size() > kMaxReferenceBytes) {
        // Too many to read before every part: none will be.
      } else if (IsReferenceLine(line)) {
        parts.references.append(line);
        parts.references.push_back('\n');
      } else if (!label.empty()) {
        // What a footnote says is not read (nor is its reference): defined, with a blank line
        // so that the next definition is not read into it.
        parts.references.append("[^").append(label).append("]: x\n\n");
      }
    }
    in_html = !blank && (in_html || (!fences.open() && !content.empty() && content[0] == '<'));
    prev_blank = blank;
    b = e + 1;
  }
  if (parts.starts.size() == 1 || parts.references.size() > kMaxReferenceBytes) {
    parts.references.clear();
  } else if (!parts.references.empty()) {
    parts.references.push_back('\n');  // a blank line: the part's first line starts a block
  }
  return parts;
}

}  // namespace rpsum::formats::internal
