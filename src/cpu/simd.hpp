// simd.hpp — what the CPU kernels use to reach the vector units without intrinsics (internal).
#pragma once

// Compile a hot function twice, for AVX2+FMA machines and for any x86-64; the loader picks.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define TILEKIT_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TILEKIT_CPU_CLONES
#endif

namespace tilekit::cpu {
// Eight floats in one vector register (AVX2), or two SSE registers in the default clone.
typedef float Vec8 __attribute__((vector_size(32)));
}  // namespace tilekit::cpu
