// types.cpp — names, parsing, 16-bit conversions and rounding for tilekit/types.hpp.
#include "tilekit/types.hpp"

#include <cmath>

namespace tilekit {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kF32: return "f32";
    case DType::kBF16: return "bf16";
    case DType::kF16: return "f16";
  }
  return "?";
}

const char* compute_name(Compute c) {
  switch (c) {
    case Compute::kF32: return "f32";
    case Compute::kF32x3TF32: return "f32_3xtf32";
    case Compute::kTF32: return "tf32";
    case Compute::kBF16: return "bf16";
  }
  return "?";
}

size_t dtype_size(DType t) { return t == DType::kF32 ? 4 : 2; }

Status parse_dtype(const std::string& text, const std::string& what, DType* out) {
  for (DType t : {DType::kF32, DType::kBF16, DType::kF16})
    if (text == dtype_name(t)) {
      *out = t;
      return Status::ok();
    }
  return invalid_argument(what + ": '" + text + "' is not a storage type (f32, bf16, f16)");
}

Status parse_compute(const std::string& text, const std::string& what, Compute* out) {
  for (Compute c : {Compute::kF32, Compute::kF32x3TF32, Compute::kTF32, Compute::kBF16})
    if (text == compute_name(c)) {
      *out = c;
      return Status::ok();
    }
  return invalid_argument(what + ": '" + text +
                          "' is not a compute mode (f32, f32_3xtf32, tf32, bf16)");
}

bf16_t float_to_bf16(float f) {
  const uint32_t bits = float_to_bits(f);
  if (std::isnan(f)) return bf16_t{static_cast<uint16_t>((bits >> 16) | 0x0040u)};  // stay quiet NaN
  const uint32_t round = 0x7fffu + ((bits >> 16) & 1u);  // nearest, ties to even
  return bf16_t{static_cast<uint16_t>((bits + round) >> 16)};
}

f16_t float_to_f16(float f) {
  const uint32_t bits = float_to_bits(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) return f16_t{static_cast<uint16_t>(sign | 0x7e00u)};  // NaN
  if (abs >= 0x477ff000u) return f16_t{static_cast<uint16_t>(sign | 0x7c00u)};  // ≥ 65520: inf
  if (abs < 0x38800000u) {  // below 2^-14: a subnormal half (or zero), value in units of 2^-24
    const float scaled = bits_to_float(abs) * 16777216.0f;  // exact: a power-of-two scale
    const float nearest = std::nearbyint(scaled);           // default mode: ties to even
    return f16_t{static_cast<uint16_t>(sign | static_cast<uint16_t>(nearest))};
  }
  // Normal: rebias the exponent (127 → 15) and round the 23-bit mantissa to 10, ties to even.
  const uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
  return f16_t{static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13))};
}

float f16_to_float(f16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t exponent = (h.bits >> 10) & 0x1fu, mantissa = h.bits & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa · 2^-24, exact in float
    const float v = static_cast<float>(mantissa) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  if (exponent == 31) return bits_to_float(sign | 0x7f800000u | (mantissa << 13));
  return bits_to_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

float round_to_tf32(float x) {
  const uint32_t bits = float_to_bits(x);
  if ((bits & 0x7f800000u) == 0x7f800000u) return x;  // inf and NaN pass through
  // Nearest, ties to even: add just under half a TF32 unit, plus one when the kept last bit is
  // odd; a carry into the exponent is the right answer.
  return bits_to_float((bits + 0xfffu + ((bits >> 13) & 1u)) & 0xffffe000u);
}

void encode_from_f32(const float* in, size_t count, DType type, void* out) {
  if (type == DType::kF32) {
    std::memcpy(out, in, count * sizeof(float));
    return;
  }
  auto* bits = static_cast<uint16_t*>(out);
  for (size_t i = 0; i < count; ++i)
    bits[i] = type == DType::kBF16 ? float_to_bf16(in[i]).bits : float_to_f16(in[i]).bits;
}

void decode_to_f32(const void* in, size_t count, DType type, float* out) {
  if (type == DType::kF32) {
    std::memcpy(out, in, count * sizeof(float));
    return;
  }
  const auto* bits = static_cast<const uint16_t*>(in);
  for (size_t i = 0; i < count; ++i)
    out[i] = type == DType::kBF16 ? bf16_to_float(bf16_t{bits[i]}) : f16_to_float(f16_t{bits[i]});
}

Status validate(const GemmTypes& t) {
  if (t.a != t.b)
    return not_supported(std::string("A is ") + dtype_name(t.a) + " but B is " + dtype_name(t.b) +
                         ": mixed input types are not supported");
  const bool wide_inputs = t.a == DType::kF32;
  if (!wide_inputs && t.compute != Compute::kBF16)
    return invalid_argument(std::string(dtype_name(t.a)) + " inputs take compute mode bf16 " +
                            "(16-bit products, FP32 accumulation), not " + compute_name(t.compute));
  if (t.c == DType::kF16) return not_supported("C in f16 is not supported (f32 or bf16)");
  if (t.c == DType::kBF16 && wide_inputs)
    return not_supported("C in bf16 needs 16-bit inputs (A and B are f32)");
  return Status::ok();
}

std::string types_tag(const GemmTypes& t) {
  std::string tag = dtype_name(t.a);
  if (t.a == DType::kF32 && t.compute != Compute::kF32) {
    const std::string mode = compute_name(t.compute);
    tag = mode.rfind("f32_", 0) == 0 ? mode : tag + "_" + mode;  // "f32_3xtf32", "f32_tf32"
  }
  if (t.c != DType::kF32) tag += std::string("_c") + dtype_name(t.c);
  return tag;
}

std::string describe(const GemmTypes& t) {
  return std::string("A ") + dtype_name(t.a) + ", B " + dtype_name(t.b) + ", C " +
         dtype_name(t.c) + ", compute " + compute_name(t.compute);
}

double input_unit_roundoff(DType stored, Compute compute) {
  switch (compute) {
    case Compute::kF32: return 0.0;
    case Compute::kTF32: return std::ldexp(1.0, -11);
    case Compute::kF32x3TF32: return std::ldexp(1.0, -21);
    case Compute::kBF16: return stored == DType::kF32 ? std::ldexp(1.0, -8) : 0.0;
  }
  return 0.0;
}

const char* input_rounding_name(InputRounding r) {
  return r == InputRounding::kNearest ? "nearest" : "faithful";
}

double reference_input_gap(DType stored, Compute compute, InputRounding rounding) {
  const bool faithful = rounding == InputRounding::kFaithful;
  switch (compute) {
    case Compute::kF32: return 0.0;
    case Compute::kTF32: return faithful ? std::ldexp(1.0, -10) : 0.0;
    case Compute::kF32x3TF32: return std::ldexp(1.0, faithful ? -19 : -21);
    case Compute::kBF16:
      return faithful && stored == DType::kF32 ? std::ldexp(1.0, -7) : 0.0;
  }
  return 0.0;
}

}  // namespace tilekit
