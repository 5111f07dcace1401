// The PDF's own outline (its bookmarks) as heading levels for the lines it points to: see
// OutlineLevels in internal/pdf_layout.h.
#include <Catalog.h>
#include <Link.h>
#include <Object.h>
#include <PDFDoc.h>
#include <UTF.h>
#include <XRef.h>
#include <goo/gmem.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "formats/internal/pdf_layout.h"

namespace rpsum::formats::internal {
namespace {

constexpr size_t kMaxEntries = 10000;  // outline entries read at most
constexpr int32_t kMaxDepth = 16;

// Appends code point `c` as UTF-8, ASCII letters lowercased, any whitespace as one space.
void AppendNormalized(uint32_t c, std::string* out) {
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xA0) {
    if (!out->empty() && out->back() != ' ') out->push_back(' ');
    return;
  }
  if (c < 0x80) {
    out->push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x110000) {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string Trimmed(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// The 1-based page an action goes to (0: none, or not a page of this document).
int32_t TargetPage(PDFDoc* doc, const LinkAction* action) {
  if (action == nullptr || action->getKind() != actionGoTo) return 0;
  const auto* go = static_cast<const LinkGoTo*>(action);
  std::unique_ptr<LinkDest> named;
  const LinkDest* dest = go->getDest();
  if (dest == nullptr && go->getNamedDest() != nullptr) {
    named = doc->findDest(go->getNamedDest());
    dest = named.get();
  }
  if (dest == nullptr || !dest->isOk()) return 0;
  const int page = dest->isPageRef() ? doc->findPage(dest->getPageRef()) : dest->getPageNum();
  return page >= 1 && page <= doc->getNumPages() ? page : 0;
}

// (page, normalized title) -> the depths of the entries with them (reversed once all are read:
// the outline's first at the back).
using Entries = absl::flat_hash_map<std::pair<int32_t, std::string>, std::vector<int32_t>>;

// One outline entry's dictionary into `out` (its title, normalized, under its page).
void AddEntry(PDFDoc* doc, const Object& item, int32_t depth, Entries* out) {
  const Object title = item.dictLookup("Title");
  if (!title.isString()) return;
  Unicode* ucs4 = nullptr;
  const int n = TextStringToUCS4(title.getString()->toStr(), &ucs4);
  std::string text;
  for (int i = 0; i < n; ++i) AppendNormalized(ucs4[i], &text);
  gfree(ucs4);
  text = Trimmed(std::move(text));
  if (text.empty()) return;
  std::unique_ptr<LinkAction> action;
  if (const Object dest = item.dictLookup("Dest"); !dest.isNull()) {
    action = LinkAction::parseDest(&dest);
  } else if (const Object a = item.dictLookup("A"); a.isDict()) {
    action = LinkAction::parseAction(&a);
  }
  if (const int32_t page = TargetPage(doc, action.get()); page > 0) {
    (*out)[{page, std::move(text)}].push_back(depth);
  }
}

// The outline's entries depth first, as it reads, walking its dictionaries (/First, /Next) with
// every object visited once: at most kMaxEntries entries, kMaxDepth levels, whatever their links
// (loops, lists shared by several parents).
void Collect(PDFDoc* doc, const Object& outlines, Entries* out) {
  XRef* xref = doc->getXRef();
  absl::flat_hash_set<int> seen;
  std::vector<std::pair<Object, int32_t>> stack;  // (reference to an entry, depth), next last
  stack.emplace_back(outlines.dictLookupNF("First").copy(), 1);
  while (!stack.empty() && seen.size() < kMaxEntries) {
    auto [ref, depth] = std::move(stack.back());
    stack.pop_back();
    if (!ref.isRef() || !seen.insert(ref.getRefNum()).second) continue;
    const Object item = ref.fetch(xref);
    if (!item.isDict()) continue;
    AddEntry(doc, item, depth, out);
    stack.emplace_back(item.dictLookupNF("Next").copy(), depth);
    if (depth < kMaxDepth) stack.emplace_back(item.dictLookupNF("First").copy(), depth + 1);
  }
}

std::string NormalizedText(const Line& line) {
  std::string out;
  for (const Word& w : line.words) {
    if (!out.empty()) out.push_back(' ');
    for (const char c : w.text) {
      const auto u = static_cast<unsigned char>(c);
      out.push_back(u >= 'A' && u <= 'Z' ? static_cast<char>(u - 'A' + 'a') : c);
    }
  }
  return out;
}

// Whether `token` numbers a section: "7", "7.6.3.1", "2.", "A", "A.1", "IV".
bool IsSectionNumber(std::string_view token) {
  if (token.empty()) return false;
  if (token.back() == '.' || token.back() == ':') token.remove_suffix(1);
  if (token.empty()) return false;
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const auto letter = [](char c) { return c >= 'a' && c <= 'z'; };
  bool roman = true;
  for (const char c : token) roman = roman && (c == 'i' || c == 'v' || c == 'x');
  if (roman && token.size() <= 4) return true;
  size_t i = 0;
  if (letter(token[0]) && (token.size() == 1 || token[1] == '.')) i = 1;
  for (; i < token.size(); ++i) {
    if (!digit(token[i]) && !(token[i] == '.' && i > 0 && i + 1 < token.size())) return false;
  }
  return true;
}

// The line's text without a section number before the title ("7.1 hash functions",
// "chapter 3. usage", "appendix a the licence"); empty when it has none.
std::string_view WithoutNumber(std::string_view text) {
  for (std::string_view word : {std::string_view("chapter "), std::string_view("appendix "),
                                std::string_view("part "), std::string_view("section ")}) {
    if (text.substr(0, word.size()) == word) {
      text.remove_prefix(word.size());
      break;
    }
  }
  const size_t space = text.find(' ');
  if (space == std::string_view::npos || !IsSectionNumber(text.substr(0, space))) return {};
  return text.substr(space + 1);
}

}  // namespace

std::vector<int32_t> OutlineLevels(PDFDoc* doc, const std::vector<Line>& lines) {
  std::vector<int32_t> levels;
  const Object* outlines = doc->getCatalog()->getOutline();
  if (outlines == nullptr || !outlines->isDict()) return levels;
  Entries entries;
  Collect(doc, *outlines, &entries);
  if (entries.empty()) return levels;
  for (auto& [key, depths] : entries) std::reverse(depths.begin(), depths.end());
  levels.assign(lines.size(), 0);
  size_t targets = 0, found = 0;
  for (const auto& [key, depths] : entries) targets += depths.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].dropped || lines[i].words.empty()) continue;
    const std::string text = NormalizedText(lines[i]);
    auto it = entries.find(std::make_pair(lines[i].page, text));
    if (it == entries.end() || it->second.empty()) {
      const std::string_view title = WithoutNumber(text);
      if (title.empty()) continue;
      it = entries.find(std::make_pair(lines[i].page, std::string(title)));
      if (it == entries.end() || it->second.empty()) continue;
    }
    levels[i] = it->second.back();  // each entry heads one line, the first entry first
    it->second.pop_back();
    ++found;
  }
  // An outline whose titles are mostly not lines of the text (an index of figures, titles
  // the document shortens) does not name its sections: the type sizes do.
  if (2 * found < targets) levels.clear();
  return levels;
}

}  // namespace rpsum::formats::internal
