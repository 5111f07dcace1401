#include "base/files.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace rpsum {
namespace {

TEST(Files, ReadsWholeFilesAndNamesTheMissingOne) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("rpsum_files_" + std::to_string(getpid())))
          .string();
  std::ofstream(path, std::ios::binary) << std::string("a\0b\nc", 5);
  auto got = ReadFile(path);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, std::string("a\0b\nc", 5));
  std::filesystem::remove(path);
  const absl::Status missing = ReadFile(path).status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.message().find(path), std::string::npos) << missing;
}

}  // namespace
}  // namespace rpsum
