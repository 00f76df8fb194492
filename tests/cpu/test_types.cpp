// Storage types and compute modes (tilekit/types.hpp): names, parsing, 16-bit conversions and
// the rounding each mode applies, on values whose answers are known by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tilekit/types.hpp"

namespace tilekit {
namespace {

TEST(Types, NamesParseBack) {
  for (DType t : {DType::kF32, DType::kBF16, DType::kF16}) {
    DType back{};
    ASSERT_TRUE(parse_dtype(dtype_name(t), "--dtype", &back));
    EXPECT_EQ(back, t);
  }
  for (Compute c : {Compute::kF32, Compute::kF32x3TF32, Compute::kTF32, Compute::kBF16}) {
    Compute back{};
    ASSERT_TRUE(parse_compute(compute_name(c), "--compute", &back));
    EXPECT_EQ(back, c);
  }
  DType d{};
  const Status s = parse_dtype("fp8", "--dtype", &d);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("--dtype"), std::string::npos) << s.message();
}

TEST(Types, Bf16RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f).bits, 0x3f80);
  EXPECT_EQ(bf16_to_float(float_to_bf16(3.140625f)), 3.140625f);  // exactly representable
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(round_to_bf16(1.0f + std::ldexp(1.0f, -8)), 1.0f);
  // 1 + 3·2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties to even (1 + 2^-6).
  EXPECT_EQ(round_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 1.0f + std::ldexp(1.0f, -6));
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isinf(bf16_to_float(float_to_bf16(std::numeric_limits<float>::infinity()))));
}

TEST(Types, F16ConvertsNormalsSubnormalsAndOverflow) {
  EXPECT_EQ(float_to_f16(1.0f).bits, 0x3c00);
  EXPECT_EQ(float_to_f16(-2.0f).bits, 0xc000);
  EXPECT_EQ(float_to_f16(65504.0f).bits, 0x7bff);                 // the largest half
  EXPECT_EQ(float_to_f16(65520.0f).bits, 0x7c00);                 // rounds to inf
  EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -24)).bits, 0x0001);    // the smallest subnormal
  EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -26)).bits, 0x0000);    // below half of it: zero
  for (uint32_t bits = 0; bits < 0x7c00; ++bits) {                // every finite positive half
    const float v = f16_to_float(f16_t{static_cast<uint16_t>(bits)});
    ASSERT_EQ(float_to_f16(v).bits, bits) << bits;
  }
  EXPECT_TRUE(std::isnan(f16_to_float(float_to_f16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Types, Tf32KeepsTenMantissaBitsRoundingTiesToEven) {
  const float ulp = std::ldexp(1.0f, -10);  // TF32's unit at 1
  EXPECT_EQ(round_to_tf32(1.0f + ulp), 1.0f + ulp);
  EXPECT_EQ(round_to_tf32(1.0f + ulp / 2), 1.0f);                      // tie, even below
  EXPECT_EQ(round_to_tf32(1.0f + 3 * ulp / 2), 1.0f + 2 * ulp);        // tie, even above
  EXPECT_EQ(round_to_tf32(-1.0f - 3 * ulp / 2), -1.0f - 2 * ulp);
  EXPECT_EQ(round_to_tf32(1.0f + 3 * ulp / 4), 1.0f + ulp);            // above half: up
  EXPECT_EQ(round_to_tf32(1.0f + ulp / 4), 1.0f);                      // below half: down
  EXPECT_EQ(round_to_tf32(2.0f - ulp / 4), 2.0f);                      // carry into the exponent
  EXPECT_TRUE(std::isinf(round_to_tf32(std::numeric_limits<float>::infinity())));
  EXPECT_TRUE(std::isnan(round_to_tf32(std::numeric_limits<float>::quiet_NaN())));
}

TEST(Types, CombinationsAndTags) {
  EXPECT_TRUE(validate(GemmTypes{}));
  EXPECT_EQ(types_tag(GemmTypes{}), "f32");
  EXPECT_EQ(types_tag({DType::kF32, DType::kF32, DType::kF32, Compute::kTF32}), "f32_tf32");
  EXPECT_EQ(types_tag({DType::kF32, DType::kF32, DType::kF32, Compute::kF32x3TF32}), "f32_3xtf32");
  EXPECT_EQ(types_tag({DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16}), "bf16");
  EXPECT_EQ(types_tag({DType::kBF16, DType::kBF16, DType::kBF16, Compute::kBF16}), "bf16_cbf16");
  EXPECT_FALSE(validate({DType::kBF16, DType::kF16, DType::kF32, Compute::kBF16}));  // mixed
  EXPECT_FALSE(validate({DType::kBF16, DType::kBF16, DType::kF32, Compute::kF32}));
  EXPECT_FALSE(validate({DType::kF32, DType::kF32, DType::kBF16, Compute::kF32}));
}

}  // namespace
}  // namespace tilekit
