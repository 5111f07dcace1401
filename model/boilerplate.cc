// Boilerplate (docs/design.md, section 2, "Boilerplate"): the sections and paragraphs a summary
// leaves out by default, by heading and by content.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "model/internal/select.h"
#include "model/select.h"

namespace rpsum::model {
namespace {

// Headings of sections that are not the document's own content: licences and notices, tables
// of contents and indexes, bibliographies and reference lists, release notes and change logs.
constexpr std::array<std::string_view, 38> kHeadings = {
    "license",          "licence",         "licenses",
    "licences",         "licensing",       "license information",
    "copyright",        "copyrights",      "copyright notice",
    "copying",          "legal notice",    "legal notices",
    "notices",          "disclaimer",      "disclaimers",
    "no warranty",      "terms of use",    "table of contents",
    "contents",         "index",           "indices",
    "bibliography",     "references",      "reference list",
    "works cited",      "citations",       "further reading",
    "release notes",    "release history", "changelog",
    "change log",       "change history",  "revision history",
    "document history", "version history", "history of changes",
    "acknowledgements", "acknowledgments"};

// Phrases of licence and notice text that a document's own prose does not use: a paragraph
// holding one is left out. Matched on the lowercased text, except "this License" and "the
// License", whose capital the licences' drafting keeps.
constexpr std::array<std::string_view, 16> kPhrases = {
    "permission is granted to copy",
    "permission is hereby granted",
    "redistribution and use in source and binary forms",
    "without warranty of any kind",
    "\"as is\" basis",
    "provided \"as is\"",
    "all rights reserved",
    "gnu general public license",
    "gnu free documentation license",
    "gnu lesser general public license",
    "this program is free software",
    "free software foundation",
    "disclaims all warranties",
    "creative commons attribution",
    "copyright (c)",
    "copyright \xC2\xA9"};

// Abseil's string_view (Debian's Abseil predates its aliasing std::string_view).
absl::string_view A(std::string_view s) { return {s.data(), s.size()}; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The heading's words without its numbering ("12.", "A.3", "Appendix B:", "Annex 2 -") and
// trailing punctuation, lowercased.
std::string HeadingName(std::string_view heading) {
  std::string h = Lower(heading);
  for (std::string_view lead : {"appendix ", "annex "}) {
    if (absl::StartsWith(h, A(lead))) {
      h = h.substr(lead.size());
      const size_t space = h.find(' ');
      h = space == std::string::npos ? "" : h.substr(space + 1);
    }
  }
  size_t b = 0;
  while (b < h.size() &&
         (std::isdigit(static_cast<unsigned char>(h[b])) != 0 ||
          std::strchr(".-:)( \t", h[b]) != nullptr ||
          (b + 1 < h.size() && std::isalpha(static_cast<unsigned char>(h[b])) != 0 &&
           h[b + 1] == '.'))) {
    b += (b + 1 < h.size() && std::isalpha(static_cast<unsigned char>(h[b])) != 0) ? 2 : 1;
  }
  size_t e = h.size();
  while (e > b && std::strchr(".:;- \t", h[e - 1]) != nullptr) --e;
  return h.substr(b, e - b);
}

}  // namespace

bool IsBoilerplateHeading(std::string_view heading) {
  const std::string name = HeadingName(heading);
  if (name.empty()) return false;
  if (std::find(kHeadings.begin(), kHeadings.end(), name) != kHeadings.end()) return true;
  // A licence by its name: "GNU Free Documentation License", "Apache License, Version 2.0",
  // "Third-party licenses", "License terms"; not a section on a licence check ("How the license
  // check works").
  for (std::string_view word : {"license", "licence", "licenses", "licences"}) {
    if (absl::StartsWith(name, A(word))) return true;
    if (absl::EndsWith(name, absl::StrCat(" ", A(word)))) return true;
  }
  for (std::string_view known : {"gnu ", "apache license", "mit license", "bsd license",
                                 "creative commons", "mozilla public license"}) {
    if (absl::StrContains(name, A(known))) return true;
  }
  return false;
}

bool IsBoilerplateText(std::string_view text) {
  if (absl::StrContains(A(text), "this License") || absl::StrContains(A(text), "the License")) {
    return true;
  }
  const std::string lower = Lower(text);
  return std::any_of(kPhrases.begin(), kPhrases.end(),
                     [&](std::string_view p) { return lower.find(p) != std::string::npos; });
}

Boilerplate FindBoilerplate(const PreparedDocument& doc,
                            const std::vector<std::string_view>& texts) {
  const size_t n = doc.kept.size();
  Boilerplate out;
  out.units.assign(n, false);
  // Sections: a boilerplate heading and what follows it, up to the next heading.
  bool in_section = false;
  for (size_t i = 0; i < n; ++i) {
    if (doc.units[doc.kept[i]].kind == UnitKind::kHeading) {
      in_section = IsBoilerplateHeading(texts[i]);
      if (in_section) out.sections.push_back(static_cast<int32_t>(i));
    }
    out.units[i] = in_section;
  }
  // Paragraphs recognized by their words, wherever they stand.
  for (size_t begin = 0; begin < n;) {
    size_t end = begin + 1;
    while (end < n && !doc.units[doc.kept[end]].paragraph_start) ++end;
    bool found = false;
    for (size_t i = begin; i < end && !found; ++i) found = IsBoilerplateText(texts[i]);
    if (found) {
      bool counted = false;
      for (size_t i = begin; i < end; ++i) {
        counted = counted || !out.units[i];
        out.units[i] = true;
      }
      out.paragraphs += counted ? 1 : 0;
    }
    begin = end;
  }
  return out;
}

}  // namespace rpsum::model
