// .npy reading and writing: round trips, float32/float64, C/Fortran order, versions, and
// malformed files that must give a clear error.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "tilekit/npy.hpp"

namespace tilekit {
namespace {

// Builds .npy bytes with any header, so malformed variants are easy to make.
std::string npy(const std::string& header_dict, const std::string& payload, int version = 1) {
  std::string header = header_dict;
  const size_t prefix = version == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(version));
  out.push_back('\0');
  const size_t len = header.size();
  for (size_t i = 0; i < (version == 1 ? 2u : 4u); ++i) out.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  return out + header + payload;
}

template <typename T>
std::string raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

TEST(Npy, Float32COrder) {
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  NpyMatrix m;
  ASSERT_TRUE(parse_npy_matrix(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", raw(v)), "x", &m).is_ok());
  EXPECT_EQ(m.rows, 2);
  EXPECT_EQ(m.cols, 3);
  EXPECT_EQ(m.data, v);
  EXPECT_EQ(m.source_dtype, "float32");
}

TEST(Npy, Float64FortranOrderIsTransposedIntoRowMajor) {
  // Fortran order stores columns: [[1,2,3],[4,5,6]] is 1,4,2,5,3,6.
  const std::vector<double> v = {1, 4, 2, 5, 3, 6};
  NpyMatrix m;
  ASSERT_TRUE(parse_npy_matrix(npy("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", raw(v)), "x", &m).is_ok());
  EXPECT_EQ(m.data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(m.source_dtype, "float64");
  EXPECT_TRUE(m.source_fortran_order);
}

TEST(Npy, Version2Header) {
  const std::vector<float> v = {7};
  NpyMatrix m;
  ASSERT_TRUE(parse_npy_matrix(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", raw(v), 2), "x", &m).is_ok());
  EXPECT_EQ(m.data[0], 7.0f);
}

TEST(Npy, EmptyMatrix) {
  NpyMatrix m;
  ASSERT_TRUE(parse_npy_matrix(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }", ""), "x", &m).is_ok());
  EXPECT_EQ(m.rows, 0);
  EXPECT_EQ(m.cols, 5);
}

TEST(Npy, WriteThenReadRoundTripsExactly) {
  const std::vector<float> v = {1.5f, -2.25f, 3e-30f, 4e30f, 0.1f, -0.0f};
  const std::string path = ::testing::TempDir() + "tilekit_roundtrip.npy";
  ASSERT_TRUE(write_npy_matrix(path, v.data(), 3, 2).is_ok());
  NpyMatrix m;
  ASSERT_TRUE(read_npy_matrix(path, &m).is_ok());
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 2);
  EXPECT_EQ(std::memcmp(m.data.data(), v.data(), v.size() * sizeof(float)), 0);
  std::remove(path.c_str());
}

TEST(Npy, WrittenHeaderIsAlignedTo64Bytes) {
  const float v = 1;
  const std::string bytes = npy_bytes_f32(&v, 1, 1);
  EXPECT_EQ((bytes.size() - sizeof(float)) % 64, 0u);
}

void expect_malformed(const std::string& bytes, const std::string& fragment) {
  NpyMatrix m;
  const Status s = parse_npy_matrix(bytes, "bad.npy", &m);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("bad.npy"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

TEST(NpyMalformed, NotNpyAtAll) { expect_malformed("hello, world", "not a .npy file"); }
TEST(NpyMalformed, TruncatedHeader) {
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", "").substr(0, 20), "truncated");
}
TEST(NpyMalformed, TruncatedData) {
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", std::string(12, '\0')), "does not match");
}
TEST(NpyMalformed, UnsupportedDtype) {
  expect_malformed(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1), }", std::string(4, '\0')), "unsupported dtype '<i4'");
}
TEST(NpyMalformed, BigEndian) {
  expect_malformed(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1, 1), }", std::string(4, '\0')), "unsupported dtype");
}
TEST(NpyMalformed, OneDimensional) {
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", std::string(12, '\0')), "expected a 2-D array");
}
TEST(NpyMalformed, ThreeDimensional) {
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1), }", std::string(4, '\0')), "expected a 2-D array");
}
TEST(NpyMalformed, MissingKey) {
  expect_malformed(npy("{'descr': '<f4', 'shape': (1, 1), }", std::string(4, '\0')), "malformed header");
}
TEST(NpyMalformed, BadVersion) {
  std::string b = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", std::string(4, '\0'));
  b[6] = 9;
  expect_malformed(b, "version 9");
}
TEST(NpyMalformed, MissingFile) {
  NpyMatrix m;
  const Status s = read_npy_matrix("/nonexistent/dir/x.npy", &m);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("/nonexistent/dir/x.npy"), std::string::npos);
}
TEST(NpyWrite, UnwritableDirectoryFailsWithoutPartialFile) {
  const float v = 1;
  const Status s = write_npy_matrix("/nonexistent/dir/out.npy", &v, 1, 1);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace tilekit
