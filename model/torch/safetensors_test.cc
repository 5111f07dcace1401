// The safetensors reader and writer: a round trip of every dtype we use, and damaged files
// that must be errors, never crashes or reads past the end.
#include "model/torch/safetensors.h"

#include <ATen/ATen.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace rpsum::net {
namespace {

namespace fs = std::filesystem;

TEST(Safetensors, RoundTripsDtypesAndShapes) {
  const std::string path = (fs::temp_directory_path() / "rpsum_st_test.safetensors").string();
  NamedTensors in = {{"f", at::randn({3, 4})},
                     {"l", at::arange(5, at::kLong)},
                     {"b", at::tensor({1, 0}, at::kLong).to(at::kBool)},
                     {"empty", at::zeros({0, 3})}};
  ASSERT_TRUE(WriteSafetensors(path, in, {{"k", "v"}}).ok());
  auto out = ReadSafetensors(path);
  ASSERT_TRUE(out.ok()) << out.status();
  for (const auto& [name, t] : in) EXPECT_TRUE(at::equal(out->at(name), t)) << name;
  fs::remove(path);
}

std::string WriteBytes(const std::string& name, const std::string& bytes) {
  const std::string path = (fs::temp_directory_path() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string WithHeader(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + data;
}

TEST(Safetensors, DamagedFilesAreErrors) {
  const struct {
    const char* name;
    std::string bytes;
  } cases[] = {
      {"empty", ""},
      {"short length", std::string(5, '\0')},
      {"header past the end", WithHeader("{}", "").substr(0, 8) + "{"},
      {"header not JSON", WithHeader("{not json", "")},
      {"offsets past the data",
       WithHeader(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", "1234")},
      {"shape and offsets disagree",
       WithHeader(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", "12345678")},
      {"unknown dtype",
       WithHeader(R"({"w":{"dtype":"Q7","shape":[1],"data_offsets":[0,1]}})", "1")},
  };
  for (const auto& c : cases) {
    const std::string path = WriteBytes("rpsum_st_bad.safetensors", c.bytes);
    const auto r = ReadSafetensors(path);
    EXPECT_FALSE(r.ok()) << c.name;
    fs::remove(path);
  }
  EXPECT_EQ(ReadSafetensors("/nonexistent/w.safetensors").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace rpsum::net
