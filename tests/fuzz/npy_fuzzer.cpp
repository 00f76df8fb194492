// npy_fuzzer.cpp — libFuzzer harness for the .npy reader (src/core/npy.cpp).
//
// Beyond "no crash, no sanitizer report, no hang", it checks the reader's contract on every
// input (tilekit/npy.hpp): a result is a consistent matrix that survives a write/read round trip
// bit for bit; an error is kInvalidArgument or kOutOfMemory with one short printable line naming
// the file. The same bytes are also fed through a pipe to read_npy_matrix, which reads a stream
// only as far as the header declares: it must agree with the in-memory parse wherever that parse
// succeeds, and never fail with kInternal. A broken contract aborts, which libFuzzer reports as a
// crash with the input saved.
//
//   build-asan/bin/npy_fuzzer -dict=tests/fuzz/npy.dict NEW_CORPUS tests/fuzz/corpus/npy
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include <unistd.h>

#include "tilekit/npy.hpp"

namespace {

const char kName[] = "fuzz.npy";

[[noreturn]] void contract_broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "npy_fuzzer: %s: %s\n", what, detail.substr(0, 2000).c_str());
  std::abort();
}

void check_error(const tilekit::Status& s) {
  using tilekit::StatusCode;
  if (s.code() != StatusCode::kInvalidArgument && s.code() != StatusCode::kOutOfMemory)
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

// `bytes` written into a pipe by a thread while read_npy_matrix reads the other end by its
// /proc/self/fd name (a FIFO to the reader, as `--a <(...)` would be).
tilekit::Status read_through_pipe(const std::string& bytes, tilekit::NpyMatrix* out) {
  int ends[2];
  if (::pipe(ends) != 0) contract_broken("pipe", std::strerror(errno));
  std::thread writer([&] {
    // Stops early with EPIPE once the reader has what the header declares and closes its end.
    for (size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::write(ends[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(ends[1]);
  });
  const tilekit::Status s =
      tilekit::read_npy_matrix("/proc/self/fd/" + std::to_string(ends[0]), out);
  ::close(ends[0]);
  writer.join();
  return s;
}

void check_pipe(const std::string& bytes) {
  tilekit::NpyMatrix parsed, streamed;
  const tilekit::Status p = tilekit::parse_npy_matrix(bytes, kName, &parsed);
  const tilekit::Status s = read_through_pipe(bytes, &streamed);
  if (s.code() == tilekit::StatusCode::kInternal) contract_broken("pipe read", s.to_string());
  if (!p.is_ok()) return;  // a stream may accept bytes after the declared data; a file may not
  if (!s.is_ok()) contract_broken("the pipe refuses what the parse accepts", s.to_string());
  if (streamed.rows != parsed.rows || streamed.cols != parsed.cols ||
      (!parsed.data.empty() && std::memcmp(streamed.data.data(), parsed.data.data(),
                                           parsed.data.size() * sizeof(float)) != 0))
    contract_broken("the pipe reads another matrix than the parse", "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool sigpipe_ignored = std::signal(SIGPIPE, SIG_IGN) != SIG_ERR;
  (void)sigpipe_ignored;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  check(bytes, false);
  check(bytes, true);
  check_pipe(bytes);
  return 0;
}
