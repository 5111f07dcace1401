#include "base/status_macros.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"

namespace rpsum {
namespace {

absl::Status FailIf(bool fail) {
  return fail ? absl::InvalidArgumentError("bad") : absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<int>> MakeInt(bool fail, int v) {
  if (fail) return absl::NotFoundError("no int");
  return std::make_unique<int>(v);
}

absl::Status Chain(bool first, bool second, int* steps) {
  RPSUM_RETURN_IF_ERROR(FailIf(first));
  ++*steps;
  RPSUM_RETURN_IF_ERROR(FailIf(second));
  ++*steps;
  return absl::OkStatus();
}

absl::StatusOr<int> Sum(bool fail_a, bool fail_b) {
  RPSUM_ASSIGN_OR_RETURN(auto a, MakeInt(fail_a, 2));  // move-only values work
  RPSUM_ASSIGN_OR_RETURN(std::unique_ptr<int> b, MakeInt(fail_b, 3));
  return *a + *b;
}

TEST(StatusMacros, ReturnIfErrorStopsAtFirstError) {
  int steps = 0;
  EXPECT_TRUE(Chain(false, false, &steps).ok());
  EXPECT_EQ(steps, 2);
  steps = 0;
  EXPECT_EQ(Chain(false, true, &steps).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(steps, 1);
  steps = 0;
  EXPECT_EQ(Chain(true, false, &steps).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(steps, 0);
}

TEST(StatusMacros, AssignOrReturn) {
  EXPECT_EQ(Sum(false, false).value(), 5);
  EXPECT_EQ(Sum(true, false).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Sum(false, true).status().message(), "no int");
}

}  // namespace
}  // namespace rpsum
