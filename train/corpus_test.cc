#include "train/corpus.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace rpsum::model {
namespace {

// `n` sentences of eight words each, one paragraph per line.
std::string Body(int n, const std::string& topic) {
  std::vector<std::string> lines;
  lines.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    lines.push_back(absl::StrCat("The ", topic, " design keeps part ", i, " simple and fast."));
  }
  return absl::StrJoin(lines, "\n");
}

CorpusRecord Doc(const std::string& text) {
  CorpusRecord r;
  r.id = "src:doc";
  r.source = "owner/repo";
  r.title = "A title";
  r.document = text;
  return r;
}

const std::string kAbstract =
    "This proposal adds a cache to the resolver so that repeated lookups are answered locally.\n"
    "  It also bounds the cache by size.  ";

SectionOptions Small() {
  SectionOptions o;
  o.min_summary_words = 10;
  o.min_document_words = 60;
  return o;
}

TEST(SectionSummaries, CutsTheAbstractAndSimpleSummaryOut) {
  const std::string text =
      absl::StrCat("Simple Summary\nA shorter summary of the cache.\n", "Abstract\n", kAbstract,
                   "\n\nMotivation\n", Body(10, "cache"));
  SectionCounts n;
  const auto out = SectionSummaries({Doc(text)}, Small(), &n);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(n.kept, 1);
  EXPECT_EQ(out[0].id, "section-src:doc");
  EXPECT_EQ(out[0].source, "owner/repo");
  EXPECT_EQ(out[0].title, "A title");
  // Trimmed non-empty lines, joined by '\n'.
  EXPECT_EQ(out[0].summary,
            "This proposal adds a cache to the resolver so that repeated lookups are answered "
            "locally.\nIt also bounds the cache by size.");
  EXPECT_EQ(out[0].references, std::vector<std::string>{out[0].summary});
  // Both summary sections are gone, heading and all; the rest is unchanged.
  EXPECT_EQ(out[0].document, absl::StrCat("Motivation\n", Body(10, "cache")));
}

TEST(SectionSummaries, PrefersAbstractAndMatchesHeadingsLoosely) {
  // A "Summary" comes first, but "Abstract" is the preferred name; "## 2. Abstract:" matches.
  const std::string text =
      absl::StrCat("Summary\nThe summary section says something different about it all here.\n",
                   "## 2. Abstract:\n", kAbstract, "\nDesign\n", Body(10, "resolver"));
  const auto out = SectionSummaries({Doc(text)}, Small());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].summary.substr(0, 13), "This proposal");
  EXPECT_NE(out[0].document.find("The summary section says"), std::string::npos);
  EXPECT_EQ(out[0].document.find("Abstract"), std::string::npos);
  // The section ends at the next heading by model::IsHeadingLine's rule: a short line without
  // final punctuation ("Design") ends it, a sentence does not.
  EXPECT_EQ(out[0].document.find("bounds the cache"), std::string::npos);
  EXPECT_NE(out[0].document.find("Design\n"), std::string::npos);
}

TEST(SectionSummaries, CountsWhatItDoesNotKeep) {
  const std::vector<CorpusRecord> docs = {
      Doc(absl::StrCat("Motivation\n", Body(20, "a"))),                          // no section
      Doc(absl::StrCat("Abstract\nToo short to keep.\nRest\n", Body(20, "b"))),  // summary
      Doc(absl::StrCat("Abstract\n", kAbstract, "\nRest\n", Body(3, "c"))),      // document
      Doc(absl::StrCat("TL;DR\n", Body(4, "d"), "\nRest\n", Body(8, "e"))),      // over a third
      Doc(absl::StrCat("Executive Summary\n", kAbstract, "\nRest\n", Body(9, "f"))),  // kept
  };
  SectionCounts n;
  const auto out = SectionSummaries(docs, Small(), &n);
  EXPECT_EQ(n.no_section, 1);
  EXPECT_EQ(n.short_summary, 1);
  EXPECT_EQ(n.short_document, 1);
  EXPECT_EQ(n.long_summary, 1);
  EXPECT_EQ(n.kept, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].document.find("part 8"), std::string::npos);
  EXPECT_EQ(out[0].document.find("Executive"), std::string::npos);
}

}  // namespace
}  // namespace rpsum::model
