// gate_skips_test.py's probe: a GoogleTest binary that skips one case, so that the gate's skip
// finder is tested on GoogleTest's real output (brief and not). Not a CTest test.
#include "gtest/gtest.h"

TEST(Probe, Skips) { GTEST_SKIP() << "the probe skips on purpose"; }
TEST(Probe, Passes) { EXPECT_EQ(1 + 1, 2); }
