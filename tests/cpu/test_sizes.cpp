// Checked element counts and byte sizes (tilekit/sizes.hpp): overflow is an error naming the
// quantity, never a wrapped number.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "tilekit/sizes.hpp"

namespace tilekit {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(CheckedSizes, ElementsMultiply) {
  int64_t n = -1;
  ASSERT_TRUE(checked_elements(3, 7, "A", &n));
  EXPECT_EQ(n, 21);
  ASSERT_TRUE(checked_elements(0, kMax, "A", &n));
  EXPECT_EQ(n, 0);
}

TEST(CheckedSizes, ElementOverflowNamesTheMatrix) {
  int64_t n = 0;
  const Status s = checked_elements(3, 6148914691236517206LL, "C", &n);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("C"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("overflow"), std::string::npos) << s.message();
  EXPECT_FALSE(checked_elements(-1, 2, "B", &n));
}

TEST(CheckedSizes, ByteOverflow) {
  size_t bytes = 0;
  ASSERT_TRUE(checked_bytes(1000, 4, "x", &bytes));
  EXPECT_EQ(bytes, 4000u);
  EXPECT_FALSE(checked_bytes(kMax / 2, 4, "x", &bytes));
  EXPECT_FALSE(checked_matrix_bytes(1LL << 31, 1LL << 31, 4, "A", &bytes));
}

TEST(CheckedSizes, HostLimitAndResize) {
  EXPECT_TRUE(check_host_allocation(1 << 20, "small"));
  const Status s = check_host_allocation(std::numeric_limits<size_t>::max() / 2, "C");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_NE(s.message().find("C needs"), std::string::npos) << s.message();
  std::vector<float> v;
  ASSERT_TRUE(checked_resize(v, 10, "v"));
  EXPECT_EQ(v.size(), 10u);
  EXPECT_EQ(checked_resize(v, kMax / 8, "huge").code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(v.size(), 10u);  // nothing lost on failure
}

TEST(CheckedSizes, HumanBytes) {
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(160e9), "160 GB");
  EXPECT_EQ(human_bytes(1.5e6), "1.5 MB");
}

}  // namespace
}  // namespace tilekit
