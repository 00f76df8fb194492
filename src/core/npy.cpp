#include "tilekit/npy.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace tilekit {
namespace {

// Value text of `key` in the header dict: "{'descr': '<f4', 'fortran_order': False, ...}".
bool dict_value(const std::string& header, const std::string& key, std::string* value) {
  const std::string quoted[] = {"'" + key + "'", "\"" + key + "\""};
  size_t pos = std::string::npos;
  for (const auto& q : quoted)
    if ((pos = header.find(q)) != std::string::npos) {
      pos += q.size();
      break;
    }
  if (pos == std::string::npos) return false;
  pos = header.find(':', pos);
  if (pos == std::string::npos) return false;
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  if (pos >= header.size()) return false;
  size_t end;
  if (header[pos] == '(') {
    end = header.find(')', pos);
    if (end == std::string::npos) return false;
    ++end;
  } else if (header[pos] == '\'' || header[pos] == '"') {
    end = header.find(header[pos], pos + 1);
    if (end == std::string::npos) return false;
    ++end;
  } else {
    end = header.find_first_of(",}", pos);
    if (end == std::string::npos) return false;
  }
  *value = header.substr(pos, end - pos);
  while (!value->empty() && value->back() == ' ') value->pop_back();
  return true;
}

}  // namespace

namespace {
Status parse_npy(const std::string& bytes, const std::string& name, bool vector, NpyMatrix* out);
}  // namespace

Status parse_npy_matrix(const std::string& bytes, const std::string& name, NpyMatrix* out) {
  return parse_npy(bytes, name, false, out);
}
Status parse_npy_vector(const std::string& bytes, const std::string& name, NpyMatrix* out) {
  return parse_npy(bytes, name, true, out);
}

namespace {
Status parse_npy(const std::string& bytes, const std::string& name, bool vector, NpyMatrix* out) {
  auto fail = [&](const std::string& why) { return io_error(name + ": " + why); };
  static const char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0)
    return fail("not a .npy file (missing the \\x93NUMPY magic)");
  const auto major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) |
                 (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return fail("truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i)
      header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    header_start = 12;
  } else {
    return fail("unsupported .npy format version " + std::to_string(major));
  }
  if (bytes.size() < header_start + header_len) return fail("truncated header");
  const std::string header = bytes.substr(header_start, header_len);

  std::string descr, fortran, shape;
  if (!dict_value(header, "descr", &descr) || !dict_value(header, "fortran_order", &fortran) ||
      !dict_value(header, "shape", &shape))
    return fail("malformed header (needs descr, fortran_order and shape): " + header);
  if (descr.size() >= 2) descr = descr.substr(1, descr.size() - 2);  // strip quotes
  size_t item = 0;
  if (descr == "<f4" || descr == "=f4") {
    item = 4;
    out->source_dtype = "float32";
  } else if (descr == "<f8" || descr == "=f8") {
    item = 8;
    out->source_dtype = "float64";
  } else {
    return fail("unsupported dtype '" + descr +
                "' (tilekit reads little-endian float32 '<f4' and float64 '<f8')");
  }
  if (fortran == "True") {
    out->source_fortran_order = true;
  } else if (fortran == "False") {
    out->source_fortran_order = false;
  } else {
    return fail("malformed fortran_order value '" + fortran + "'");
  }

  // shape: "(3, 4)" — exactly two non-negative integers.
  std::vector<int64_t> dims;
  {
    std::string inner = shape.substr(1, shape.size() >= 2 ? shape.size() - 2 : 0);
    std::stringstream ss(inner);
    for (std::string tok; std::getline(ss, tok, ',');) {
      const auto first = tok.find_first_not_of(' ');
      if (first == std::string::npos) continue;  // "(3,)" leaves an empty last token
      tok = tok.substr(first);
      char* end = nullptr;
      const long long v = std::strtoll(tok.c_str(), &end, 10);
      if (end == tok.c_str() || (*end != '\0' && *end != ' ' && *end != 'L') || v < 0)
        return fail("malformed shape " + shape);
      dims.push_back(v);
    }
  }
  if (vector) {
    if (dims.size() == 1) dims = {1, dims[0]};
    if (dims.size() != 2 || (dims[0] != 1 && dims[1] != 1))
      return fail("expected a vector (shape (n,), (1, n) or (n, 1)), got shape " + shape);
    if (dims[1] == 1 && dims[0] != 1) dims = {1, dims[0]};  // a column: same elements in order
  }
  if (dims.size() != 2)
    return fail("expected a 2-D array, got shape " + shape + " (" + std::to_string(dims.size()) +
                "-D)");
  const int64_t rows = dims[0], cols = dims[1];
  if (cols != 0 && rows > (int64_t{1} << 40) / cols) return fail("shape " + shape + " is too large");
  const size_t count = static_cast<size_t>(rows * cols);
  const size_t data_start = header_start + header_len;
  if (bytes.size() - data_start != count * item)
    return fail("data size " + std::to_string(bytes.size() - data_start) + " bytes does not match shape " +
                shape + " of " + out->source_dtype + " (" + std::to_string(count * item) +
                " bytes)");

  out->rows = rows;
  out->cols = cols;
  out->data.resize(count);
  const char* src = bytes.data() + data_start;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const size_t from = static_cast<size_t>(out->source_fortran_order ? c * rows + r : r * cols + c);
      float v;
      if (item == 4) {
        std::memcpy(&v, src + from * 4, 4);
      } else {
        double d;
        std::memcpy(&d, src + from * 8, 8);
        v = static_cast<float>(d);
      }
      out->data[static_cast<size_t>(r * cols + c)] = v;
    }
  }
  return Status::ok();
}

Status read_file(const std::string& path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(path + ": cannot open for reading: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return io_error(path + ": read failed");
  *bytes = ss.str();
  return Status::ok();
}
}  // namespace

Status read_npy_matrix(const std::string& path, NpyMatrix* out) {
  std::string bytes;
  TILEKIT_RETURN_IF_ERROR(read_file(path, &bytes));
  return parse_npy_matrix(bytes, path, out);
}

Status read_npy_vector(const std::string& path, NpyMatrix* out) {
  std::string bytes;
  TILEKIT_RETURN_IF_ERROR(read_file(path, &bytes));
  return parse_npy_vector(bytes, path, out);
}

std::string npy_bytes_f32(const float* row_major, int64_t rows, int64_t cols) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  // Pad with spaces so magic + version + length + header + '\n' is a multiple of 64 bytes.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>((header.size() >> 8) & 0xff));
  out += header;
  out.append(reinterpret_cast<const char*>(row_major),
             static_cast<size_t>(rows * cols) * sizeof(float));
  return out;
}

Status write_npy_matrix(const std::string& path, const float* row_major, int64_t rows,
                        int64_t cols) {
  const std::string bytes = npy_bytes_f32(row_major, rows, cols);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return io_error(path + ": cannot open for writing: " + std::strerror(errno));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return io_error(path + ": write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return io_error(path + ": cannot rename the finished file into place: " + why);
  }
  return Status::ok();
}

}  // namespace tilekit
