#include "train/corpus.h"

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace rpsum::train {
namespace {

namespace fs = std::filesystem;

// A fresh folder under the test's temporary directory.
fs::path TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  fs::path dir =
      fs::path(tmp != nullptr ? tmp : fs::temp_directory_path().string()) / ("corpus_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void WriteGzip(const fs::path& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  gzclose(f);
}

constexpr const char* kTwoRecords =
    R"({"id":"a:1","source":"a","title":"One","summary":"s1","document":"d1"})"
    "\n\n"
    R"({"id":"a:2","title":"Two","summary":"s2","document":"d2","references":["r1","r2"]})"
    "\n";

TEST(ReadCorpus, ReadsGzipAndPlainFilesAlike) {
  const fs::path dir = TempDir("formats");
  WriteGzip(dir / "a.jsonl.gz", kTwoRecords);
  std::ofstream(dir / "b.jsonl") << kTwoRecords;
  for (const char* name : {"a.jsonl.gz", "b.jsonl"}) {
    auto records = ReadCorpus((dir / name).string());
    ASSERT_TRUE(records.ok()) << records.status();
    ASSERT_EQ(records->size(), 2u) << name;  // the blank line is skipped
    EXPECT_EQ((*records)[0].id, "a:1");
    EXPECT_EQ((*records)[0].source, "a");
    EXPECT_EQ((*records)[0].document, "d1");
    // Without "references", the summary is the one reference.
    EXPECT_EQ((*records)[0].references, std::vector<std::string>{"s1"});
    EXPECT_EQ((*records)[1].source, "");
    EXPECT_EQ((*records)[1].references, (std::vector<std::string>{"r1", "r2"}));
  }
  auto first = ReadCorpus((dir / "a.jsonl.gz").string(), 1);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->size(), 1u);
}

TEST(ReadCorpus, AMalformedLineNamesItsFileAndLine) {
  const fs::path dir = TempDir("malformed");
  std::ofstream(dir / "bad.jsonl") << R"({"id":"x"})"
                                   << "\n{not json\n";
  auto records = ReadCorpus((dir / "bad.jsonl").string());
  ASSERT_FALSE(records.ok());
  EXPECT_EQ(records.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(records.status().message().find("bad.jsonl:2:"), std::string::npos) << records.status();
  EXPECT_EQ(ReadCorpus((dir / "missing.jsonl").string()).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(ReadCorpusSplit, ConcatenatesFoldersInOrderUnderOneLimit) {
  const fs::path root = TempDir("split");
  fs::create_directories(root / "x");
  fs::create_directories(root / "y");
  WriteGzip(root / "x" / "valid.jsonl.gz", kTwoRecords);
  WriteGzip(root / "y" / "valid.jsonl.gz", R"({"id":"b:1","summary":"s","document":"d"})"
                                           "\n");
  const std::string dirs = (root / "x").string() + "," + (root / "y").string();
  auto all = ReadCorpusSplit(dirs, "valid");
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[2].id, "b:1");
  auto three = ReadCorpusSplit((root / "y").string() + "," + (root / "x").string(), "valid", 2);
  ASSERT_TRUE(three.ok());
  ASSERT_EQ(three->size(), 2u);
  EXPECT_EQ((*three)[0].id, "b:1");
  EXPECT_EQ((*three)[1].id, "a:1");
  EXPECT_EQ(ReadCorpusSplit((root / "x").string(), "train").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace rpsum::train
