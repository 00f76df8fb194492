// npy.cpp — the .npy reader and writer (tilekit/npy.hpp).
//
// The reader follows NumPy's format specification (numpy.lib.format) strictly, because its input
// is whatever file a user names: every byte string must end in a matrix or a one-line error.
//   magic "\x93NUMPY", version 1.0 | 2.0 | 3.0, header length (uint16 little-endian for 1.0,
//   uint32 for 2.0 and 3.0), the header, then exactly shape × itemsize bytes of data.
// The header is a Python dict literal; the subset NumPy writes, and this reader accepts, is
//   header = ws '{' ws entry (ws ',' ws entry)* [ws ','] ws '}' ws
//   entry  = string ws ':' ws value        keys 'descr', 'fortran_order', 'shape', once each
//   value  = string | 'True' | 'False' | tuple
//   tuple  = '(' ws ')' | '(' ws int ws ',' ws ')' | '(' ws int (ws ',' ws int)+ [ws ','] ws ')'
//   int    = '0' | [1-9][0-9]*, optionally followed by 'L' (Python 2 writers); it must fit int64
//   string = '…' or "…", without backslash escapes
//   ws     = spaces, tabs, newlines (NumPy pads with spaces and ends the header with '\n')
// Anything else is an error naming the header byte where it goes wrong.
#include "tilekit/npy.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <new>
#include <sstream>
#include <string_view>

#include "core/output_file.hpp"
#include "tilekit/sizes.hpp"
#include "tilekit/types.hpp"

// Elements are decoded with memcpy into native floats: the file's '<' (little-endian) order must
// be the machine's (x86-64 and AArch64 Linux both are).
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .npy reader assumes a little-endian host");

namespace tilekit {
namespace {

// The file's contents break the format: bad input, not a failure of the system.
Status malformed(std::string message) { return invalid_argument(std::move(message)); }

constexpr size_t kMaxDims = 64;        // NumPy 2's NPY_MAXDIMS: no valid file has more
constexpr size_t kExcerptBytes = 40;   // how much header text an error message quotes

// `text` fit for a one-line message: bytes outside printable ASCII become \xNN (and '\' becomes
// "\\"), and text longer than `max_bytes` is cut, saying how long it was.
std::string printable(std::string_view text, size_t max_bytes = kExcerptBytes) {
  std::string out;
  const size_t shown = std::min(text.size(), max_bytes);
  for (size_t i = 0; i < shown; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\\') {
      out += "\\\\";
    } else if (byte >= 0x20 && byte < 0x7f) {
      out.push_back(static_cast<char>(byte));
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    }
  }
  if (shown < text.size()) out += "... (" + std::to_string(text.size() - shown) + " more bytes)";
  return out;
}

// A file name for a one-line message: control characters escaped, everything else (UTF-8
// included) kept, so "données.npy" stays readable.
std::string one_line(const std::string& name) {
  std::string out;
  for (const char ch : name) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

struct Shape {
  std::array<int64_t, kMaxDims> dims{};
  size_t ndim = 0;

  // As Python prints the tuple: "()", "(3,)", "(3, 4)".
  std::string to_string() const {
    std::string s = "(";
    for (size_t i = 0; i < ndim; ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + (ndim == 1 ? ",)" : ")");
  }
};

struct Header {
  std::string_view descr;
  bool fortran_order = false;
  Shape shape;
};

// A recursive-descent reader of the header dict (grammar at the top of the file). The first
// error stops it; error() then says what was expected and where.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  bool parse(Header* header) {
    skip_whitespace();
    if (!consume('{')) return fail("expected '{' to open the header dict");
    skip_whitespace();
    while (peek() != '}') {
      if (!parse_entry(header)) return false;
      skip_whitespace();
      if (peek() == '}') break;
      if (!consume(',')) return fail("expected ',' or '}' after a value");
      skip_whitespace();
    }
    ++pos_;  // the '}'
    skip_whitespace();
    if (!at_end()) return fail("unexpected text after the header dict");
    for (const Key& key : kKeys)
      if (!seen_[key.index])
        return fail(std::string("missing key '") + key.name +
                    "' (a .npy header has 'descr', 'fortran_order' and 'shape')");
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  struct Key {
    const char* name;
    size_t index;
  };
  static constexpr Key kKeys[] = {{"descr", 0}, {"fortran_order", 1}, {"shape", 2}};

  bool at_end() const { return pos_ >= text_.size(); }
  // The next byte, or '\0' at the end ('\0' is invalid everywhere, so it cannot be mistaken).
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  bool consume(char c) {
    if (at_end() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool consume_word(std::string_view word) {
    if (text_.size() - pos_ < word.size() || text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  void skip_whitespace() {
    while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') ++pos_;
  }

  bool fail(const std::string& what) {
    if (at_end())
      error_ = what + " at the end of the header";
    else
      error_ = what + " at header byte " + std::to_string(pos_) + ", near \"" +
               printable(text_.substr(pos_)) + "\"";
    return false;
  }

  // 'text' or "text"; no escapes (no dtype NumPy writes for tilekit's types needs one).
  bool parse_string(std::string_view* value) {
    const char quote = peek();
    if (quote != '\'' && quote != '"') return fail("expected a quoted string");
    const size_t start = ++pos_;
    while (!at_end() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') return fail("backslash escapes are not supported in header strings");
      ++pos_;
    }
    if (at_end()) {
      pos_ = start - 1;
      return fail("unterminated string");
    }
    *value = text_.substr(start, pos_ - start);
    ++pos_;  // the closing quote
    return true;
  }

  bool parse_entry(Header* header) {
    std::string_view key;
    if (!parse_string(&key)) return false;
    const Key* found = nullptr;
    for (const Key& k : kKeys)
      if (key == k.name) found = &k;
    if (!found) {
      pos_ -= key.size() + 2;  // point at the key itself
      return fail("unexpected key (a .npy header has 'descr', 'fortran_order' and 'shape')");
    }
    if (seen_[found->index]) {
      pos_ -= key.size() + 2;
      return fail(std::string("key '") + found->name + "' appears twice");
    }
    seen_[found->index] = true;
    skip_whitespace();
    if (!consume(':')) return fail("expected ':' after a key");
    skip_whitespace();
    switch (found->index) {
      case 0:
        if (peek() != '\'' && peek() != '"')
          return fail("expected a dtype string for 'descr' (structured dtypes are not supported)");
        return parse_string(&header->descr);
      case 1:
        if (consume_word("True")) header->fortran_order = true;
        else if (consume_word("False")) header->fortran_order = false;
        else return fail("expected True or False for 'fortran_order'");
        return true;
      default:
        return parse_shape(&header->shape);
    }
  }

  // A tuple of non-negative integers, as Python writes it: (), (3,), (3, 4), (3, 4,).
  bool parse_shape(Shape* shape) {
    if (!consume('(')) return fail("expected a tuple for 'shape'");
    skip_whitespace();
    if (consume(')')) return true;  // () — a 0-D array
    for (;;) {
      if (shape->ndim == kMaxDims)
        return fail("shape has more than " + std::to_string(kMaxDims) + " dimensions");
      if (!parse_dimension(&shape->dims[shape->ndim])) return false;
      ++shape->ndim;
      skip_whitespace();
      if (peek() == ')' && shape->ndim == 1)
        return fail("a one-dimensional shape needs a trailing comma, as in (3,)");
      if (consume(')')) return true;
      if (!consume(',')) return fail("expected ',' or ')' after a dimension");
      skip_whitespace();
      if (consume(')')) return true;  // a trailing comma
    }
  }

  bool parse_dimension(int64_t* value) {
    if (peek() == '-') return fail("negative dimension");
    if (!is_digit(peek())) return fail("expected a dimension (a non-negative integer)");
    if (peek() == '0' && is_digit(peek(1))) return fail("a dimension has a leading zero");
    const size_t start = pos_;
    int64_t v = 0;
    while (is_digit(peek())) {
      if (!multiply_fits(v, 10, &v) || !add_fits(v, peek() - '0', &v)) {
        pos_ = start;
        return fail("dimension does not fit in a signed 64-bit integer");
      }
      ++pos_;
    }
    consume('L');  // Python 2's long suffix, which old NumPy wrote
    *value = v;
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  bool seen_[3] = {false, false, false};
  std::string error_;
};

struct Dtype {
  std::string_view descr;
  size_t itemsize;
  const char* name;
};
// '<' is what NumPy writes for little-endian; '=' (native) is accepted as well, this host being
// little-endian.
constexpr Dtype kDtypes[] = {
    {"<f2", 2, "float16"}, {"<f4", 4, "float32"}, {"<f8", 8, "float64"},
    {"=f2", 2, "float16"}, {"=f4", 4, "float32"}, {"=f8", 8, "float64"},
};

// The magic and version in the first 8 bytes; *length_bytes: the width of the header length.
Status read_magic(std::string_view bytes, const std::string& label, size_t* length_bytes) {
  static constexpr std::string_view kMagic("\x93NUMPY", 6);
  if (bytes.size() < 8 || bytes.substr(0, 6) != kMagic)
    return malformed(label + ": not a .npy file (missing the \\x93NUMPY magic)");
  const auto major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return malformed(label + ": unsupported .npy format version " + std::to_string(major) + "." +
                    std::to_string(minor) + " (tilekit reads 1.0, 2.0 and 3.0)");
  *length_bytes = major == 1 ? 2 : 4;
  return Status::ok();
}

// The header length field after the magic; false when `bytes` ends inside it.
bool header_length(std::string_view bytes, size_t length_bytes, size_t* header_len) {
  if (bytes.size() < 8 + length_bytes) return false;
  *header_len = 0;
  for (size_t i = 0; i < length_bytes; ++i)
    *header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  return true;
}

// Where the header lies in the file, from the magic, version and header-length fields.
Status read_preamble(std::string_view bytes, const std::string& label, size_t* header_start,
                     size_t* header_len) {
  size_t length_bytes = 0;
  TILEKIT_RETURN_IF_ERROR(read_magic(bytes, label, &length_bytes));
  *header_start = 8 + length_bytes;
  if (!header_length(bytes, length_bytes, header_len))
    return malformed(label + ": truncated header (the file ends inside the header length)");
  if (bytes.size() - *header_start < *header_len)
    return malformed(label + ": truncated header (the header length says " +
                    std::to_string(*header_len) + " bytes, the file has " +
                    std::to_string(bytes.size() - *header_start) + " after the length field)");
  return Status::ok();
}

// rows × cols from the header's shape: a 2-D array for a matrix; for a vector (n,), (1, n) or
// (n, 1), always as 1 × n.
Status matrix_extent(const Shape& shape, bool vector, const std::string& label, int64_t* rows,
                     int64_t* cols) {
  if (vector) {
    const bool one_d = shape.ndim == 1;
    const bool two_d_line = shape.ndim == 2 && (shape.dims[0] == 1 || shape.dims[1] == 1);
    if (!one_d && !two_d_line)
      return malformed(label + ": expected a vector (shape (n,), (1, n) or (n, 1)), got shape " +
                      shape.to_string());
    *rows = 1;
    *cols = one_d ? shape.dims[0] : shape.dims[0] * shape.dims[1];  // one factor is 1
    return Status::ok();
  }
  if (shape.ndim != 2)
    return malformed(label + ": expected a 2-D array, got shape " + shape.to_string() + " (" +
                    std::to_string(shape.ndim) + "-D)");
  *rows = shape.dims[0];
  *cols = shape.dims[1];
  return Status::ok();
}

// The element count and data bytes of a rows × cols array of `itemsize`-byte elements, and the
// size cap: the float32 matrix must fit this machine's memory with an empty dimension counted as
// 1, so a zero dimension cannot smuggle in a size no real array has (nor a loop that long).
Status check_sizes(int64_t rows, int64_t cols, size_t itemsize, const std::string& label,
                   const std::string& shape_text, int64_t* count, size_t* data_bytes) {
  const int64_t capped_rows = std::max<int64_t>(rows, 1), capped_cols = std::max<int64_t>(cols, 1);
  int64_t capped_count = 0;
  size_t capped_bytes = 0;
  if (!multiply_fits(rows, cols, count) || !multiply_fits(capped_rows, capped_cols, &capped_count) ||
      !checked_bytes(capped_count, std::max(itemsize, sizeof(float)), label, &capped_bytes).is_ok())
    return malformed(label + ": shape " + shape_text + " is too large (its size overflows 64 bits)");
  TILEKIT_RETURN_IF_ERROR(checked_bytes(*count, itemsize, label, data_bytes));
  size_t float32_bytes = 0;
  TILEKIT_RETURN_IF_ERROR(checked_bytes(capped_count, sizeof(float), label, &float32_bytes));
  return check_host_allocation(float32_bytes, label + ": shape " + shape_text + " as float32" +
                                                  (rows == 0 || cols == 0
                                                       ? " (an empty dimension counted as 1)"
                                                       : ""));
}

// One element at `p` (of the file's dtype) as float32.
template <size_t kItemSize>
float decode(const char* p) {
  if constexpr (kItemSize == 2) {
    f16_t half;
    std::memcpy(&half.bits, p, 2);
    return f16_to_float(half);
  } else if constexpr (kItemSize == 4) {
    float single;
    std::memcpy(&single, p, 4);
    return single;
  } else {
    double dbl;
    std::memcpy(&dbl, p, 8);
    return static_cast<float>(dbl);
  }
}

// The file's elements (C or Fortran order) into the row-major float32 `dst`.
template <size_t kItemSize>
void to_row_major(const char* src, int64_t rows, int64_t cols, bool fortran_order, float* dst) {
  // An empty array may still have a billion rows (within the size cap): no loop over them.
  if (rows == 0 || cols == 0) return;
  const auto r_count = static_cast<size_t>(rows), c_count = static_cast<size_t>(cols);
  for (size_t r = 0; r < r_count; ++r)
    for (size_t c = 0; c < c_count; ++c) {
      const size_t from = fortran_order ? c * r_count + r : r * c_count + c;
      dst[r * c_count + c] = decode<kItemSize>(src + from * kItemSize);
    }
}

// What the preamble and header say: where the data starts, how long it is, how to decode it.
struct NpyLayout {
  Header header;
  const Dtype* dtype = nullptr;
  std::string shape_text;
  int64_t rows = 0, cols = 0, count = 0;
  size_t data_start = 0, data_bytes = 0;
};

// Reads the layout from `bytes`, which must hold at least the preamble and the whole header
// (the data may follow or not).
Status parse_layout(std::string_view bytes, const std::string& label, bool vector, NpyLayout* out) {
  size_t header_start = 0, header_len = 0;
  TILEKIT_RETURN_IF_ERROR(read_preamble(bytes, label, &header_start, &header_len));
  HeaderParser parser(bytes.substr(header_start, header_len));
  if (!parser.parse(&out->header))
    return malformed(label + ": malformed .npy header: " + parser.error());
  for (const Dtype& d : kDtypes)
    if (out->header.descr == d.descr) out->dtype = &d;
  if (!out->dtype)
    return malformed(label + ": unsupported dtype '" + printable(out->header.descr) +
                    "' (tilekit reads little-endian float16 '<f2', float32 '<f4' and float64 '<f8')");
  out->shape_text = out->header.shape.to_string();
  TILEKIT_RETURN_IF_ERROR(matrix_extent(out->header.shape, vector, label, &out->rows, &out->cols));
  TILEKIT_RETURN_IF_ERROR(check_sizes(out->rows, out->cols, out->dtype->itemsize, label,
                                      out->shape_text, &out->count, &out->data_bytes));
  out->data_start = header_start + header_len;
  return Status::ok();
}

Status parse_npy(std::string_view bytes, const std::string& name, bool vector, NpyMatrix* out) {
  const std::string label = one_line(name);
  NpyLayout layout;
  TILEKIT_RETURN_IF_ERROR(parse_layout(bytes, label, vector, &layout));
  const Header& header = layout.header;
  const Dtype* dtype = layout.dtype;
  const std::string& shape_text = layout.shape_text;
  const int64_t rows = layout.rows, cols = layout.cols, count = layout.count;
  const size_t data_start = layout.data_start, data_bytes = layout.data_bytes;
  if (bytes.size() - data_start != data_bytes)
    return malformed(label + ": data size " + std::to_string(bytes.size() - data_start) +
                    " bytes does not match shape " + shape_text + " of " + dtype->name + " (" +
                    std::to_string(data_bytes) + " bytes)");

  NpyMatrix result;
  TILEKIT_RETURN_IF_ERROR(checked_resize(result.data, count, label + ": the matrix"));
  const char* src = bytes.data() + data_start;
  switch (dtype->itemsize) {
    case 2: to_row_major<2>(src, rows, cols, header.fortran_order, result.data.data()); break;
    case 4: to_row_major<4>(src, rows, cols, header.fortran_order, result.data.data()); break;
    default: to_row_major<8>(src, rows, cols, header.fortran_order, result.data.data()); break;
  }
  result.rows = rows;
  result.cols = cols;
  result.source_dtype = dtype->name;
  result.source_fortran_order = header.fortran_order;
  *out = std::move(result);
  return Status::ok();
}

// The parser is written not to throw; this boundary turns what the standard library could still
// throw (std::bad_alloc while building a message) into a Status, so nothing escapes the library.
// kInternal marks a bug: the fuzz harness treats it as a crash.
template <typename Body>
Status without_exceptions(const std::string& name, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return out_of_memory(one_line(name) + ": out of memory reading the .npy file");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, one_line(name) + ": unexpected exception: " +
                                             printable(e.what(), 200));
  }
}

// Appends up to `count` bytes of `in` to `bytes`, in pieces so that a stream that ends early
// never costs the memory a lying header asked for; false when the stream ends first.
bool append_from(std::istream& in, size_t count, std::string* bytes) {
  constexpr size_t kPiece = size_t{64} << 20;
  while (count > 0) {
    const size_t want = std::min(count, kPiece);
    const size_t old_size = bytes->size();
    bytes->resize(old_size + want);  // std::bad_alloc: see without_exceptions
    in.read(bytes->data() + old_size, static_cast<std::streamsize>(want));
    const auto got = static_cast<size_t>(in.gcount());
    bytes->resize(old_size + got);
    if (got < want) return false;
    count -= got;
  }
  return true;
}

// A pipe or device: only as much as the header declares, after checking the magic in the first
// eight bytes — /dev/zero or /dev/urandom fail there at once instead of filling memory. Bytes
// after the declared data are not read (a pipe's writer may never close it).
Status read_stream(std::istream& in, const std::string& path, bool vector, std::string* bytes) {
  const std::string label = one_line(path);
  bytes->clear();
  size_t length_bytes = 0, header_len = 0;
  append_from(in, 8, bytes);
  TILEKIT_RETURN_IF_ERROR(read_magic(*bytes, label, &length_bytes));
  // No header NumPy writes comes near this; a stream is not trusted with more.
  constexpr size_t kMaxStreamHeader = size_t{1} << 20;
  if (append_from(in, length_bytes, bytes) && header_length(*bytes, length_bytes, &header_len)) {
    if (header_len > kMaxStreamHeader)
      return malformed(label + ": header length " + std::to_string(header_len) +
                       " bytes is over the " + std::to_string(kMaxStreamHeader) +
                       " tilekit reads from a pipe or device");
    append_from(in, header_len, bytes);
  }
  NpyLayout layout;
  TILEKIT_RETURN_IF_ERROR(parse_layout(*bytes, label, vector, &layout));
  const bool whole = append_from(in, layout.data_bytes, bytes);
  if (in.bad()) return io_error(label + ": read failed");
  if (!whole)
    return malformed(label + ": the data ends after " +
                     std::to_string(bytes->size() - layout.data_start) + " of the " +
                     std::to_string(layout.data_bytes) + " bytes its shape " + layout.shape_text +
                     " of " + layout.dtype->name + " needs");
  return Status::ok();
}

Status read_file(const std::string& path, bool vector, std::string* bytes) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    return io_error(one_line(path) + ": cannot open for reading: " + std::strerror(errno));
  if (S_ISDIR(info.st_mode))
    return invalid_argument(one_line(path) + ": is a directory, not a .npy file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(one_line(path) + ": cannot open for reading: " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) return read_stream(in, path, vector, bytes);
  // A regular file: read its known size at once, checked against this machine's memory.
  const auto size = static_cast<size_t>(info.st_size);
  TILEKIT_RETURN_IF_ERROR(check_host_allocation(size, one_line(path)));
  std::string contents(size, '\0');  // std::bad_alloc: see without_exceptions
  in.read(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (in.gcount() != static_cast<std::streamsize>(contents.size()))
    return io_error(one_line(path) + ": read failed (the file changed while being read?)");
  *bytes = std::move(contents);
  return Status::ok();
}

// Magic, version 1.0, header length and the padded header dict of a float32 matrix.
std::string npy_header_f32(int64_t rows, int64_t cols, bool fortran_order = false) {
  std::string header = std::string("{'descr': '<f4', 'fortran_order': ") +
                       (fortran_order ? "True" : "False") + ", 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  // Pad with spaces so magic + version + length + header + '\n' is a multiple of 64 bytes.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>((header.size() >> 8) & 0xff));
  return out + header;
}

}  // namespace

Status parse_npy_matrix(const std::string& bytes, const std::string& name, NpyMatrix* out) {
  return without_exceptions(name, [&] { return parse_npy(bytes, name, false, out); });
}

Status parse_npy_vector(const std::string& bytes, const std::string& name, NpyMatrix* out) {
  return without_exceptions(name, [&] { return parse_npy(bytes, name, true, out); });
}

Status read_npy_matrix(const std::string& path, NpyMatrix* out) {
  return without_exceptions(path, [&] {
    std::string bytes;
    TILEKIT_RETURN_IF_ERROR(read_file(path, false, &bytes));
    return parse_npy(bytes, path, false, out);
  });
}

Status read_npy_vector(const std::string& path, NpyMatrix* out) {
  return without_exceptions(path, [&] {
    std::string bytes;
    TILEKIT_RETURN_IF_ERROR(read_file(path, true, &bytes));
    return parse_npy(bytes, path, true, out);
  });
}

std::string npy_bytes_f32(const float* row_major, int64_t rows, int64_t cols) {
  size_t data_bytes = 0;
  if (!checked_matrix_bytes(rows, cols, sizeof(float), "matrix", &data_bytes).is_ok()) return {};
  return npy_header_f32(rows, cols).append(reinterpret_cast<const char*>(row_major), data_bytes);
}

Status write_npy_matrix(const std::string& path, const float* row_major, int64_t rows,
                        int64_t cols) {
  return write_npy_strided(path, row_major, rows, cols, cols, false);
}

Status write_npy_strided(const std::string& path, const float* data, int64_t rows, int64_t cols,
                         int64_t ld, bool fortran_order) {
  size_t data_bytes = 0;
  TILEKIT_RETURN_IF_ERROR(checked_matrix_bytes(rows, cols, sizeof(float), one_line(path), &data_bytes));
  if (data_bytes > 0 && data == nullptr)
    return invalid_argument(one_line(path) + ": the matrix to write is null");
  const int64_t lines = fortran_order ? cols : rows;  // stored rows (C) or columns (Fortran)
  const int64_t line_length = fortran_order ? rows : cols;
  if (data_bytes > 0 && ld < line_length)
    return invalid_argument(one_line(path) + ": ld = " + std::to_string(ld) + " is below the " +
                            std::to_string(line_length) + " elements of a stored line");
  return without_exceptions(path, [&]() -> Status {
    OutputFile file;
    TILEKIT_RETURN_IF_ERROR(file.open(path));
    const std::string header = npy_header_f32(rows, cols, fortran_order);
    TILEKIT_RETURN_IF_ERROR(file.write(header.data(), header.size()));
    for (int64_t line = 0; data_bytes > 0 && line < lines; ++line)
      TILEKIT_RETURN_IF_ERROR(
          file.write(data + line * ld, sizeof(float) * static_cast<size_t>(line_length)));
    return file.commit();
  });
}

}  // namespace tilekit
