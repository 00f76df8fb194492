// npy_fuzzer.cpp — libFuzzer harness for the .npy reader (src/core/npy.cpp).
//
// Beyond "no crash, no sanitizer report, no hang", it checks the reader's contract on every
// input (tilekit/npy.hpp): a result is a consistent matrix that survives a write/read round trip
// bit for bit; an error is kIoError or kOutOfMemory with one short printable line naming the
// file. A broken contract aborts, which libFuzzer reports as a crash with the input saved.
//
//   build-asan/bin/npy_fuzzer -dict=tests/fuzz/npy.dict NEW_CORPUS tests/fuzz/corpus/npy
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tilekit/npy.hpp"

namespace {

const char kName[] = "fuzz.npy";

[[noreturn]] void contract_broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "npy_fuzzer: %s: %s\n", what, detail.substr(0, 2000).c_str());
  std::abort();
}

void check_error(const tilekit::Status& s) {
  using tilekit::StatusCode;
  if (s.code() != StatusCode::kIoError && s.code() != StatusCode::kOutOfMemory)
    contract_broken("unexpected status code", s.to_string());
  const std::string& message = s.message();
  if (message.rfind(kName, 0) != 0) contract_broken("error does not name the file", message);
  if (message.size() > 400) contract_broken("error longer than 400 bytes", message);
  for (const char ch : message) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte >= 0x7f) contract_broken("error is not printable ASCII", message);
  }
}

void check_matrix(const tilekit::NpyMatrix& m, bool vector) {
  if (m.rows < 0 || m.cols < 0 || (vector && m.rows != 1))
    contract_broken("bad extent", std::to_string(m.rows) + " x " + std::to_string(m.cols));
  if (m.data.size() != static_cast<size_t>(m.rows) * static_cast<size_t>(m.cols))
    contract_broken("data size does not match the extent", std::to_string(m.data.size()));
  if (m.source_dtype != "float16" && m.source_dtype != "float32" && m.source_dtype != "float64")
    contract_broken("unknown source dtype", m.source_dtype);

  // What the reader returns, the writer writes and the reader reads back unchanged.
  tilekit::NpyMatrix again;
  const tilekit::Status s =
      tilekit::parse_npy_matrix(tilekit::npy_bytes_f32(m.data.data(), m.rows, m.cols), kName, &again);
  if (!s.is_ok()) contract_broken("round trip fails", s.to_string());
  if (again.rows != m.rows || again.cols != m.cols || again.data.size() != m.data.size() ||
      (!m.data.empty() &&
       std::memcmp(again.data.data(), m.data.data(), m.data.size() * sizeof(float)) != 0))
    contract_broken("round trip changes the matrix", "");
}

void check(const std::string& bytes, bool vector) {
  tilekit::NpyMatrix m;
  const tilekit::Status s = vector ? tilekit::parse_npy_vector(bytes, kName, &m)
                                   : tilekit::parse_npy_matrix(bytes, kName, &m);
  if (s.is_ok())
    check_matrix(m, vector);
  else
    check_error(s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  check(bytes, false);
  check(bytes, true);
  return 0;
}
