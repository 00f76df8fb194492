// types.hpp — storage types and compute modes: what a GEMM reads, writes, and promises.
//
// A storage type (DType) says how A, B and C are laid down in memory. A compute mode says what
// the caller is promised about the arithmetic, as cuBLAS's computeType does:
//   f32         IEEE FP32 fused multiply-adds on the values as stored. The default; tilekit never
//               lowers it behind the caller's back.
//   f32_3xtf32  FP32-accurate on tensor cores: each FP32 input split into two TF32 parts, three
//               TF32 products per FP32 product (big·big + big·small + small·big).
//   tf32        FP32 inputs rounded to TF32 (10-bit mantissa), FP32 accumulation. Only on request.
//   bf16        16-bit tensor-core products with FP32 accumulation: FP32 inputs are rounded to
//               BF16, BF16 and FP16 inputs are used as stored.
// Host-only; the 16-bit storage types are plain bit containers so that no CUDA header is needed.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "tilekit/status.hpp"

namespace tilekit {

enum class DType { kF32, kBF16, kF16 };
enum class Compute { kF32, kF32x3TF32, kTF32, kBF16 };

const char* dtype_name(DType t);       // "f32", "bf16", "f16"
const char* compute_name(Compute c);   // "f32", "f32_3xtf32", "tf32", "bf16"
size_t dtype_size(DType t);            // bytes per element
// Parse the names above; an error naming `what` (the option or argument) and the choices.
Status parse_dtype(const std::string& text, const std::string& what, DType* out);
Status parse_compute(const std::string& text, const std::string& what, Compute* out);

// BFloat16 and IEEE half as stored: 16 bits, converted to and from float on the host.
struct bf16_t {
  uint16_t bits = 0;
};
struct f16_t {
  uint16_t bits = 0;
};

inline float bits_to_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline uint32_t float_to_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

// Round to nearest even; NaN stays NaN (quiet), infinities and overflow to ±inf as IEEE says.
bf16_t float_to_bf16(float f);
inline float bf16_to_float(bf16_t h) { return bits_to_float(static_cast<uint32_t>(h.bits) << 16); }
f16_t float_to_f16(float f);
float f16_to_float(f16_t h);

// The value a tilekit tensor-core kernel multiplies when it reads `x` in TF32 or BF16: rounded
// to nearest, ties to even, on the dropped mantissa bits (13 for TF32: as cvt.rn.tf32.f32 and a
// TMA load through a TFLOAT32 tensor map round; 16 for BF16).
float round_to_tf32(float x);
inline float round_to_bf16(float x) { return bf16_to_float(float_to_bf16(x)); }

// `count` floats stored as `type` at `out` (dtype_size(type) bytes each, rounded to nearest
// even), and back: how the CLI, the benchmarks and the tests stage 16-bit operands.
void encode_from_f32(const float* in, size_t count, DType type, void* out);
void decode_to_f32(const void* in, size_t count, DType type, float* out);

// The types one GEMM reads and writes, and its compute mode.
struct GemmTypes {
  DType a = DType::kF32, b = DType::kF32, c = DType::kF32;
  Compute compute = Compute::kF32;
  bool operator==(const GemmTypes& o) const {
    return a == o.a && b == o.b && c == o.c && compute == o.compute;
  }
  bool operator!=(const GemmTypes& o) const { return !(*this == o); }
};

// Ok when tilekit defines this combination (A and B of one type; C f32, or bf16 with 16-bit
// inputs; FP32 inputs take any mode, 16-bit inputs the bf16 mode); otherwise why not.
Status validate(const GemmTypes& t);

// The segment of a kernel id that names its types: "f32" (f32 in, f32 mode), "f32_tf32",
// "f32_3xtf32", "f32_bf16", "bf16", "f16", with "_cbf16" appended when C is bf16.
std::string types_tag(const GemmTypes& t);
// "A f32, B f32, C f32, compute tf32" — for messages.
std::string describe(const GemmTypes& t);

// What the inputs become before they are multiplied under `compute` (storage already decoded).
inline float round_for_compute(float x, DType stored, Compute compute) {
  if (compute == Compute::kTF32) return round_to_tf32(x);
  if (compute == Compute::kBF16 && stored == DType::kF32) return round_to_bf16(x);
  return x;
}

// Relative error of one input as the mode multiplies it, beyond its storage: 0 for f32; 2^-11
// for TF32; 2^-8 for FP32 rounded to BF16; 2^-21 for 3xTF32 (two TF32 parts keep about 22 bits
// and the small·small product is dropped). The verification bound adds twice this (one per
// factor) to the FP32 accumulation's γ(k).
double input_unit_roundoff(DType stored, Compute compute);

// How a kernel rounds FP32 inputs into the narrower format its mode multiplies (TF32, BF16,
// the two TF32 parts of 3xTF32). tilekit's own kernels round to nearest, as the mode and the
// reference define it; a vendor kernel whose conversion tilekit does not control (cuBLAS's
// CUBLAS_COMPUTE_32F_FAST_TF32 on Hopper rounds to nearest in some kernels, not all) declares
// kFaithful: either neighbour in the narrower format, truncation included.
enum class InputRounding {
  kNearest,   // as round_for_compute(): nearest, ties to even
  kFaithful,  // one of the two neighbours: off by less than one unit in the last place
};
const char* input_rounding_name(InputRounding r);  // "nearest", "faithful"

// How far, relative to the input, one input as a kernel of `rounding` multiplies it may lie from
// the input as the reference multiplies it (the reference rounds to nearest): what verification
// adds, per factor, to the FP32 accumulation bound. Nearest: 0, except 3xTF32's 2^-21 (the
// reference does not model the split). Faithful: one unit in the last place of the narrower
// format, 2^-10 for TF32 and 2^-7 for FP32 rounded to BF16 (TF32 and BF16 keep 10 and 7 bits);
// 3xTF32 split by truncation: 2^-19 (each part off by 2^-20, the dropped small·small 2^-20).
// Inputs used as stored (f32 mode, 16-bit storage in bf16 mode) are exact either way: 0.
double reference_input_gap(DType stored, Compute compute, InputRounding rounding);

}  // namespace tilekit
