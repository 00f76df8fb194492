// sizes.hpp — element counts and byte sizes that cannot overflow.
//
// Every place that multiplies dimensions (problems, .npy parsing, CLI staging, verification, the
// bench size grammar) goes through these helpers, so a size that does not fit in int64 / size_t
// is a clear error naming the quantity, never a wrapped number that allocates too little.
//
//   int64_t count = 0;
//   TILEKIT_RETURN_IF_ERROR(checked_elements(rows, cols, "C", &count));
//   size_t bytes = 0;
//   TILEKIT_RETURN_IF_ERROR(checked_bytes(count, sizeof(float), "C", &bytes));
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilekit/status.hpp"

namespace tilekit {

// a · b for a, b >= 0; false when the product does not fit in int64.
inline bool multiply_fits(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

// a + b for a, b >= 0; false when the sum does not fit in int64.
inline bool add_fits(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

// rows · cols elements of the matrix `what`; an error naming it when either is negative or the
// product overflows int64.
inline Status checked_elements(int64_t rows, int64_t cols, const std::string& what, int64_t* out) {
  if (rows < 0 || cols < 0)
    return invalid_argument(what + ": negative dimension " + std::to_string(rows) + " x " +
                            std::to_string(cols));
  if (!multiply_fits(rows, cols, out))
    return invalid_argument(what + ": " + std::to_string(rows) + " x " + std::to_string(cols) +
                            " elements overflow a 64-bit count");
  return Status::ok();
}

// count elements of element_size bytes; an error naming `what` when the byte size overflows.
inline Status checked_bytes(int64_t count, size_t element_size, const std::string& what,
                            size_t* out) {
  if (count < 0) return invalid_argument(what + ": negative element count " + std::to_string(count));
  int64_t bytes = 0;
  if (element_size > static_cast<size_t>(std::numeric_limits<int64_t>::max()) ||
      !multiply_fits(count, static_cast<int64_t>(element_size), &bytes))
    return invalid_argument(what + ": " + std::to_string(count) + " elements of " +
                            std::to_string(element_size) + " bytes overflow a 64-bit size");
  *out = static_cast<size_t>(bytes);
  return Status::ok();
}

// The bytes of a rows × cols matrix of element_size-byte elements, both checks in one.
inline Status checked_matrix_bytes(int64_t rows, int64_t cols, size_t element_size,
                                   const std::string& what, size_t* out) {
  int64_t count = 0;
  TILEKIT_RETURN_IF_ERROR(checked_elements(rows, cols, what, &count));
  return checked_bytes(count, element_size, what, out);
}

// "1.5 GB" — for out-of-memory messages ("out of memory: C needs 160 GB").
std::string human_bytes(double bytes);

// Ok when `bytes` of host memory could exist on this machine (at most its physical memory);
// otherwise kOutOfMemory naming `what`. Checked before allocating, so a request the machine can
// never serve fails at once instead of swapping or being killed.
Status check_host_allocation(size_t bytes, const std::string& what);

// v.resize(count) for the buffer `what`, with the overflow and size checks above; allocation
// failure is a kOutOfMemory Status, never an exception.
template <typename T>
Status checked_resize(std::vector<T>& v, int64_t count, const std::string& what) {
  size_t bytes = 0;
  TILEKIT_RETURN_IF_ERROR(checked_bytes(count, sizeof(T), what, &bytes));
  TILEKIT_RETURN_IF_ERROR(check_host_allocation(bytes, what));
  try {
    v.resize(static_cast<size_t>(count));
  } catch (const std::bad_alloc&) {
    return out_of_memory(what + " needs " + human_bytes(static_cast<double>(bytes)));
  } catch (const std::length_error&) {
    return out_of_memory(what + " needs " + human_bytes(static_cast<double>(bytes)));
  }
  return Status::ok();
}

}  // namespace tilekit
