// .npy reading and writing: round trips, float32/float64, C/Fortran order, versions, and
// malformed files that must give a clear error.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <atomic>
#include <future>
#include <thread>

#include <unistd.h>

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

// Lines `ld` apart, in C or Fortran order: the file holds the matrix, not the padding.
TEST(Npy, StridedWritesSkipThePaddingInEitherOrder) {
  // 2 x 3 row-major with ld 4 (9 = padding); as Fortran order, the same buffer is 3 columns of 2
  // rows, each 4 apart.
  const std::vector<float> buffer = {1, 2, 3, 9, 4, 5, 6, 9};
  const std::string path = ::testing::TempDir() + "tilekit_strided.npy";
  NpyMatrix m;
  ASSERT_TRUE(write_npy_strided(path, buffer.data(), 2, 3, 4, false).is_ok());
  ASSERT_TRUE(read_npy_matrix(path, &m).is_ok());
  EXPECT_EQ(m.data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  ASSERT_TRUE(write_npy_strided(path, buffer.data(), 3, 2, 4, true).is_ok());
  ASSERT_TRUE(read_npy_matrix(path, &m).is_ok());
  EXPECT_TRUE(m.source_fortran_order);
  EXPECT_EQ(m.data, (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(write_npy_strided(path, buffer.data(), 2, 3, 2, false).code(),
            StatusCode::kInvalidArgument);  // ld below a line
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
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
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
  expect_malformed(npy("{'descr': '<f4', 'shape': (1, 1), }", std::string(4, '\0')),
                   "missing key 'fortran_order'");
}
TEST(NpyMalformed, BadVersion) {
  std::string b = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", std::string(4, '\0'));
  b[6] = 9;
  expect_malformed(b, "version 9");
}
TEST(NpyMalformed, MinorVersion) {
  std::string b = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", std::string(4, '\0'));
  b[7] = 1;
  expect_malformed(b, "version 1.1");
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

TEST(NpyWrite, NegativeShapeIsRefused) {
  const float v = 1;
  EXPECT_EQ(write_npy_matrix(::testing::TempDir() + "tilekit_neg.npy", &v, -1, 1).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(npy_bytes_f32(&v, 1, -1), "");
}

// ---- hostile input: each test is a defect the reliability probe found, or its kin ----

// The parser's contract for error text: one line, printable ASCII, short.
void expect_one_short_printable_line(const std::string& message) {
  EXPECT_LT(message.size(), 400u) << message.substr(0, 400);
  for (const char ch : message) {
    const auto byte = static_cast<unsigned char>(ch);
    ASSERT_TRUE(byte >= 0x20 && byte < 0x7f) << "byte " << int(byte) << " in: " << message.substr(0, 400);
  }
}

std::string f4(const std::string& shape) {
  return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
}

TEST(NpyHostile, EmptyShapeValueIsAnErrorNotAnException) {
  // Used to throw std::out_of_range out of parse_npy_matrix and abort the process.
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': False, 'shape': }", ""), "expected a tuple for 'shape'");
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': False, 'shape': , }", ""), "expected a tuple");
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': False, 'shape':", ""), "at the end of the header");
}

TEST(NpyHostile, HugeDimensionBesideZeroIsRefusedAtOnce) {
  // (9223372036854775807, 0) has no elements; the row loop used to run 2^63 times.
  expect_malformed(npy(f4("(9223372036854775807, 0)"), ""), "too large");
  expect_malformed(npy(f4("(0, 9223372036854775807)"), ""), "too large");
}

TEST(NpyHostile, EmptyArrayWithABillionRowsIsReadAtOnce) {
  // Within the size cap (4 GB as float32) on most machines, but it has no elements: reading it
  // must not loop over its rows (the fuzzer found 929223744 × 0 taking 12 s under ASan).
  const auto start = std::chrono::steady_clock::now();
  NpyMatrix m;
  const Status s = parse_npy_matrix(npy(f4("(1000000000, 0)"), ""), "wide.npy", &m);
  EXPECT_TRUE(s.is_ok() || s.code() == StatusCode::kOutOfMemory) << s.to_string();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  if (s.is_ok()) {
    EXPECT_EQ(m.rows, 1000000000);
    EXPECT_EQ(m.cols, 0);
    EXPECT_TRUE(m.data.empty());
  }
}

TEST(NpyHostile, SizeCapAppliesWhenADimensionIsZero) {
  // 2^50 rows of nothing: counted as 2^50 × 1 float32 (4 PB), more than any machine's memory.
  NpyMatrix m;
  const Status s = parse_npy_matrix(npy(f4("(1125899906842624, 0)"), ""), "big.npy", &m);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory) << s.to_string();
  EXPECT_NE(s.message().find("big.npy"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("empty dimension counted as 1"), std::string::npos) << s.message();
}

TEST(NpyHostile, ElementCountOverflowIsRefused) {
  // 2^32 × 2^32 = 2^64 elements wraps to 0 in 64-bit arithmetic: an "empty" matrix.
  expect_malformed(npy(f4("(4294967296, 4294967296)"), ""), "too large");
  // 2^31 × 2^31 = 2^62 elements fits int64, but not as bytes of float64.
  expect_malformed(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2147483648, 2147483648), }", ""),
                   "too large");
}

TEST(NpyHostile, DimensionBeyondInt64IsRefused) {
  expect_malformed(npy(f4("(9223372036854775808, 1)"), ""), "does not fit");
  expect_malformed(npy(f4("(99999999999999999999999999999999, 1)"), ""), "does not fit");
}

TEST(NpyHostile, GarbageInsideTheShapeIsRefused) {
  // "(4 7, 3)" used to be read as (4, 3).
  expect_malformed(npy(f4("(4 7, 3)"), std::string(48, '\0')), "expected ',' or ')' after a dimension");
  expect_malformed(npy(f4("(4x, 3)"), std::string(48, '\0')), "expected ',' or ')'");
  expect_malformed(npy(f4("(4, 3 junk)"), std::string(48, '\0')), "expected ',' or ')'");
  expect_malformed(npy(f4("(4,, 3)"), std::string(48, '\0')), "expected a dimension");
  expect_malformed(npy(f4("(-4, 3)"), ""), "negative dimension");
  expect_malformed(npy(f4("(+4, 3)"), ""), "expected a dimension");
  expect_malformed(npy(f4("(04, 3)"), ""), "leading zero");
  expect_malformed(npy(f4("(4.0, 3)"), ""), "expected ',' or ')'");
  expect_malformed(npy(f4("(4)"), std::string(16, '\0')), "trailing comma");
  expect_malformed(npy(f4("[4, 3]"), ""), "expected a tuple");
  expect_malformed(npy(f4("(4, 3"), ""), "expected a dimension");
}

TEST(NpyHostile, HeaderGrammarIsStrict) {
  const std::string one = std::string(4, '\0');
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), } extra", one),
                   "unexpected text after the header dict");
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), 'x': 1}", one),
                   "unexpected key");
  expect_malformed(npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1, 1)}", one),
                   "key 'descr' appears twice");
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': 0, 'shape': (1, 1)}", one), "True or False");
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (1, 1)}", one), "expected ','");
  expect_malformed(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1, 1)}", one),
                   "structured dtypes are not supported");
  expect_malformed(npy("{'descr': '<f4' 'fortran_order': False, 'shape': (1, 1)}", one), "expected ',' or '}'");
  expect_malformed(npy("{'descr' '<f4', 'fortran_order': False, 'shape': (1, 1)}", one), "expected ':'");
  expect_malformed(npy("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (1, 1)}", one), "backslash");
  expect_malformed(npy("{'descr': '<f4, 'fortran_order': False, 'shape': (1, 1)}", one), "expected ',' or '}'");
  expect_malformed(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1)", one), "at the end of the header");
  expect_malformed(npy("", one), "expected '{'");
}

TEST(NpyHostile, DataLengthMustMatchExactly) {
  expect_malformed(npy(f4("(2, 2)"), std::string(17, '\0')), "does not match");
  expect_malformed(npy(f4("(0, 2)"), std::string(1, '\0')), "does not match");
}

TEST(NpyHostile, ErrorTextIsOnePrintableShortLine) {
  // Newlines, escape codes and a megabyte of header used to reach the terminal verbatim.
  const std::string nasty_descr = "{'descr': '\x1b[2J\n\x93', 'fortran_order': False, 'shape': (1, 1), }";
  NpyMatrix m;
  Status s = parse_npy_matrix(npy(nasty_descr, std::string(4, '\0')), "bad.npy", &m);
  ASSERT_FALSE(s.is_ok());
  expect_one_short_printable_line(s.message());
  EXPECT_NE(s.message().find("\\x1b[2J\\x0a\\x93"), std::string::npos) << s.message();

  const std::string megabyte_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), " +
                                      std::string(1 << 20, '\n') + "\x01}";
  s = parse_npy_matrix(npy(megabyte_header, std::string(4, '\0'), 2), "bad.npy", &m);
  ASSERT_FALSE(s.is_ok());
  expect_one_short_printable_line(s.message());

  const std::string long_key = "{'" + std::string(1 << 20, 'k') + "': 1}";
  s = parse_npy_matrix(npy(long_key, "", 2), "bad.npy", &m);
  ASSERT_FALSE(s.is_ok());
  expect_one_short_printable_line(s.message());
  EXPECT_NE(s.message().find("more bytes)"), std::string::npos) << "says the excerpt was cut: " << s.message();

  s = parse_npy_matrix("not\nnpy", "line\nbreak.npy", &m);
  expect_one_short_printable_line(s.message());
  EXPECT_NE(s.message().find("line\\x0abreak.npy"), std::string::npos) << s.message();
}

TEST(NpyHostile, EveryTruncationIsAnError) {
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  const std::string good = npy(f4("(2, 3)"), raw(v));
  for (size_t length = 0; length < good.size(); ++length) {
    NpyMatrix m;
    const Status s = parse_npy_matrix(good.substr(0, length), "cut.npy", &m);
    EXPECT_FALSE(s.is_ok()) << "length " << length;
    expect_one_short_printable_line(s.message());
  }
}

TEST(NpyHostile, EveryHeaderByteFlipGivesAMatrixOrAnError) {
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  const std::string good = npy(f4("(2, 3)"), raw(v));
  const std::string header_bytes = "\x00\n '\"(),:{}0123456789-LTrueFalse\xff";
  for (size_t at = 0; at < good.size() - v.size() * sizeof(float); ++at)
    for (const char replacement : header_bytes) {
      std::string bent = good;
      bent[at] = replacement;
      NpyMatrix m;
      const Status s = parse_npy_matrix(bent, "bent.npy", &m);
      if (s.is_ok())
        EXPECT_EQ(m.data.size(), static_cast<size_t>(m.rows * m.cols));
      else
        expect_one_short_printable_line(s.message());
    }
}

TEST(NpyHostile, OutputIsUntouchedOnError) {
  NpyMatrix m;
  m.rows = 7;
  m.data = {42.0f};
  m.source_dtype = "kept";
  EXPECT_FALSE(parse_npy_matrix(npy(f4("(2, 2)"), std::string(3, '\0')), "x", &m).is_ok());
  EXPECT_EQ(m.rows, 7);
  EXPECT_EQ(m.data, std::vector<float>{42.0f});
  EXPECT_EQ(m.source_dtype, "kept");
}

TEST(NpyHostile, DirectoryIsAnError) {
  NpyMatrix m;
  const Status s = read_npy_matrix(::testing::TempDir(), &m);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
}

// ---- what a strict reader must still accept ----

TEST(Npy, Float16IsConvertedToFloat32) {
  // 1, -2, 65504 (largest half), 2^-24 (smallest subnormal), 2^-14 (smallest normal), -0,
  // +inf, NaN.
  const std::vector<uint16_t> halves = {0x3c00, 0xc000, 0x7bff, 0x0001, 0x0400, 0x8000, 0x7c00, 0x7e00};
  NpyMatrix m;
  ASSERT_TRUE(parse_npy_matrix(npy("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 4), }", raw(halves)), "h", &m).is_ok());
  EXPECT_EQ(m.source_dtype, "float16");
  ASSERT_EQ(m.data.size(), 8u);
  EXPECT_EQ(m.data[0], 1.0f);
  EXPECT_EQ(m.data[1], -2.0f);
  EXPECT_EQ(m.data[2], 65504.0f);
  EXPECT_EQ(m.data[3], 0x1p-24f);
  EXPECT_EQ(m.data[4], 0x1p-14f);
  EXPECT_EQ(m.data[5], 0.0f);
  EXPECT_TRUE(std::signbit(m.data[5]));
  EXPECT_EQ(m.data[6], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(m.data[7]));
}

TEST(Npy, Float16FortranOrder) {
  const std::vector<uint16_t> halves = {0x3c00, 0x4400, 0x4000, 0x4500, 0x4200, 0x4600};  // 1 4 2 5 3 6
  NpyMatrix m;
  ASSERT_TRUE(parse_npy_matrix(npy("{'descr': '<f2', 'fortran_order': True, 'shape': (2, 3), }", raw(halves)), "h", &m).is_ok());
  EXPECT_EQ(m.data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Npy, Version3HeaderAndDoubleQuotesAndPython2Longs) {
  const std::vector<float> v = {7, 8};
  NpyMatrix m;
  ASSERT_TRUE(parse_npy_matrix(npy("{\"descr\": \"<f4\", \"shape\": (1L, 2L), \"fortran_order\": False}", raw(v), 3), "x", &m).is_ok());
  EXPECT_EQ(m.data, v);
}

TEST(Npy, ZeroByZeroAndOddWhitespace) {
  NpyMatrix m;
  ASSERT_TRUE(parse_npy_matrix(npy("{ 'descr' :'<f8','fortran_order':True,'shape':( 0 ,0 , ) }", ""), "x", &m).is_ok());
  EXPECT_EQ(m.rows, 0);
  EXPECT_EQ(m.cols, 0);
  EXPECT_TRUE(m.data.empty());
}

TEST(Npy, VectorShapes) {
  const std::vector<float> v = {1, 2, 3};
  NpyMatrix m;
  ASSERT_TRUE(parse_npy_vector(npy(f4("(3, 1)"), raw(v)), "col", &m).is_ok());
  EXPECT_EQ(m.rows, 1);
  EXPECT_EQ(m.cols, 3);
  EXPECT_EQ(m.data, v);
  ASSERT_TRUE(parse_npy_vector(npy(f4("(0,)"), ""), "empty", &m).is_ok());
  EXPECT_EQ(m.cols, 0);
  EXPECT_EQ(parse_npy_vector(npy(f4("()"), std::string(4, '\0')), "scalar", &m).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(parse_npy_vector(npy(f4("(9223372036854775807, 0)"), ""), "v", &m).code(), StatusCode::kInvalidArgument);
}

// ---- pipes and devices: read only what the header declares ----

TEST(NpyStream, DevZeroFailsAtOnceOnTheMissingMagic) {
  // Once read until memory ran out; the magic is checked in the first eight bytes.
  NpyMatrix m;
  const Status s = read_npy_matrix("/dev/zero", &m);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("magic"), std::string::npos) << s.message();
  EXPECT_EQ(read_npy_matrix("/dev/urandom", &m).code(), StatusCode::kInvalidArgument);
}

// `bytes` through a pipe, read by /proc/self/fd name; `closed_first` says whether the writer
// had closed its end when the read returned (it waits for `release` before closing).
Status read_via_pipe(const std::string& bytes, NpyMatrix* m, bool* closed_first) {
  int ends[2];
  EXPECT_EQ(::pipe(ends), 0);
  std::promise<void> release;
  std::atomic<bool> closed{false};
  std::thread writer([&, done = release.get_future()] {
    for (size_t at = 0; at < bytes.size();) {
      const ssize_t n = ::write(ends[1], bytes.data() + at, bytes.size() - at);
      if (n <= 0) break;
      at += static_cast<size_t>(n);
    }
    done.wait_for(std::chrono::seconds(30));
    closed = true;
    ::close(ends[1]);
  });
  const Status s = read_npy_matrix("/proc/self/fd/" + std::to_string(ends[0]), m);
  *closed_first = closed;
  release.set_value();
  writer.join();
  ::close(ends[0]);
  return s;
}

TEST(NpyStream, PipeIsReadUpToTheDeclaredDataOnly) {
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  // Bytes after the data, and a writer that keeps the pipe open: the reader must not wait.
  const std::string bytes = npy_bytes_f32(v.data(), 2, 3) + "trailing bytes";
  NpyMatrix m;
  bool closed_first = true;
  const Status s = read_via_pipe(bytes, &m, &closed_first);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_FALSE(closed_first) << "the read waited for the end of the pipe";
  EXPECT_EQ(m.rows, 2);
  EXPECT_EQ(m.data, v);
}

TEST(NpyStream, LyingHeaderOnAPipeIsTruncatedNotAllocated) {
  // Declares 2^26 floats (256 MiB) and sends four bytes.
  const std::string bytes = npy(f4("(8192, 8192)"), std::string(4, '\0'));
  NpyMatrix m;
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ASSERT_EQ(::write(ends[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(ends[1]);
  const Status s = read_npy_matrix("/proc/self/fd/" + std::to_string(ends[0]), &m);
  ::close(ends[0]);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("the data ends after 4 of the 268435456 bytes"), std::string::npos)
      << s.message();
}

TEST(NpyStream, OversizedHeaderLengthOnAPipeIsRefused) {
  std::string bytes("\x93NUMPY\x02\x00", 8);
  bytes += std::string("\x00\x00\x00\x40", 4);  // a 1 GiB header
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ASSERT_EQ(::write(ends[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(ends[1]);
  NpyMatrix m;
  const Status s = read_npy_matrix("/proc/self/fd/" + std::to_string(ends[0]), &m);
  ::close(ends[0]);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("header length"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tilekit
