// elements.cuh — the gemv family's element parts: how a stored element type is read as floats
// (16 bytes at a time, or one), how an input is rounded for the compute mode, and how a result
// is written in C's type. A new storage type (FP8 with a scale, say) is a new Element.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace tilekit::cuda::gemv {

// Element<T>: Raw is 16 stored bytes, kVec elements; load_raw reads them through the read-only
// path (the address must be 16-byte aligned), unpack gives them as floats; load reads one. The
// 16-bit types also multiply on the tensor cores (mma) and give an element's bits (bits).
template <typename T>
struct Element;

template <>
struct Element<float> {
  using Raw = float4;
  static constexpr int kVec = 4;
  __device__ static Raw load_raw(const float* p) { return __ldg(reinterpret_cast<const float4*>(p)); }
  __device__ static void unpack(const Raw& r, float (&f)[kVec]) {
    f[0] = r.x, f[1] = r.y, f[2] = r.z, f[3] = r.w;
  }
  __device__ static float load(const float* p) { return __ldg(p); }
  // kVec elements `step` apart, as a Raw.
  __device__ static Raw gather(const float* p, long long step) {
    return make_float4(__ldg(p), __ldg(p + step), __ldg(p + 2 * step), __ldg(p + 3 * step));
  }
  // Four elements at a 16-byte-aligned address.
  __device__ static void load4(const float* p, float (&f)[4]) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(p));
    f[0] = v.x, f[1] = v.y, f[2] = v.z, f[3] = v.w;
  }
};

// The 16-bit types share their storage moves; Widen says how a word of two stored values
// becomes floats (pair), how one does (one), and which mma.sync multiplies them.
template <typename T, typename Widen>
struct Element16 {
  using Raw = uint4;
  static constexpr int kVec = 8;
  __device__ static Raw load_raw(const T* p) { return __ldg(reinterpret_cast<const uint4*>(p)); }
  __device__ static void unpack(const Raw& r, float (&f)[kVec]) {
    Widen::pair(r.x, f), Widen::pair(r.y, f + 2), Widen::pair(r.z, f + 4), Widen::pair(r.w, f + 6);
  }
  // Four elements at an 8-byte-aligned address.
  __device__ static void load4(const T* p, float (&f)[4]) {
    const uint2 v = __ldg(reinterpret_cast<const uint2*>(p));
    Widen::pair(v.x, f), Widen::pair(v.y, f + 2);
  }
  __device__ static uint32_t bits(const T* p) {
    return __ldg(reinterpret_cast<const unsigned short*>(p));
  }
  __device__ static Raw gather(const T* p, long long step) {
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = bits(p + 2 * i * step) | bits(p + (2 * i + 1) * step) << 16;
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
  __device__ static float load(const T* p) { return Widen::one(bits(p)); }
  // c += a·b on the tensor cores: mma.sync m16n8k16, A row-major 16 × 16 in a[4], B 16 × 8 in
  // b[2] (pairs of T), C 16 × 8 in FP32 (sm_80 and later).
  __device__ static void mma(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    Widen::mma(c, a, b);
  }
};

// BF16 is the top half of an FP32: widening is a shift.
struct WidenBf16 {
  __device__ static void pair(uint32_t u, float* f) {
    f[0] = __uint_as_float(u << 16), f[1] = __uint_as_float(u & 0xffff0000u);
  }
  __device__ static float one(uint32_t u) { return __uint_as_float(u << 16); }
  __device__ static void mma(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

struct WidenF16 {
  __device__ static void pair(uint32_t u, float* f) {
    const float2 v = __half22float2(*reinterpret_cast<const __half2*>(&u));
    f[0] = v.x, f[1] = v.y;
  }
  __device__ static float one(uint32_t u) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(u)));
  }
  __device__ static void mma(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

template <>
struct Element<__nv_bfloat16> : Element16<__nv_bfloat16, WidenBf16> {};
template <>
struct Element<__half> : Element16<__half, WidenF16> {};

// Input rounding of the compute mode. Exact: the value as stored (FP32 FMAs, the f32 and
// 3xTF32 promises; 16-bit inputs widen exactly). ToTf32: nearest, ties to even, on the 13
// dropped bits, as the tensor-core tf32 kernels and round_to_tf32 (types.hpp) round.
struct Exact {
  __device__ static float apply(float x) { return x; }
};
struct ToTf32 {
  __device__ static float apply(float x) {
    const uint32_t u = __float_as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u) return x;  // inf and NaN pass through
    return __uint_as_float((u + 0xfffu + ((u >> 13) & 1u)) & 0xffffe000u);
  }
};

// Out<T>: C's element as read for beta·C and as written.
template <typename T>
struct Out;
template <>
struct Out<float> {
  __device__ static float load(const float* p) { return *p; }
  __device__ static void store(float* p, float v) { *p = v; }
};
template <>
struct Out<__nv_bfloat16> {
  __device__ static float load(const __nv_bfloat16* p) { return __bfloat162float(*p); }
  __device__ static void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
};

}  // namespace tilekit::cuda::gemv
