// gemm_blocked.cpp — tilekit's own CPU GEMM: packed panels, cache blocking, OpenMP.
// Adds:     the BLIS loop structure: op(B) is packed into kKc × kNr panels that stay in L2/L3,
//           op(A) into kMr × kKc panels that stay in L1, and a kMr × kNr micro-kernel keeps its
//           accumulators in vector registers. Packing absorbs layout and op, so the inner loop
//           always reads unit-stride memory.
// Requires: float32; any layout, op, size and leading dimension.
// Expect:   a good fraction of OpenBLAS on large sizes (it has hand-written assembly kernels);
//           bound by the micro-kernel's FMA rate, not by memory.
#include <algorithm>
#include <cstring>
#include <vector>

#include <omp.h>

#include "core/strides.hpp"
#include "core/kernel_entry.hpp"
#include "cpu/cpu_kernels.hpp"
#include "cpu/simd.hpp"


namespace tilekit::cpu {
namespace {

// Micro-tile: 6 × 16 floats = 12 AVX2 registers of accumulators, leaving room for one row of
// op(B) (2 registers) and a broadcast of op(A).
constexpr int64_t kMr = 6;
constexpr int64_t kNr = 16;
constexpr int64_t kKc = 256;      // depth of a packed panel: kKc × kNr floats of B = 16 KB
constexpr int64_t kMc = 96;       // rows of op(A) per packed block: kMc × kKc floats = 96 KB
constexpr int64_t kNc = 3072;     // columns of op(B) per packed block: 3 MB
constexpr int64_t kNchunk = 256;  // columns of one parallel work item
static_assert(kMc % kMr == 0 && kNc % kNchunk == 0 && kNchunk % kNr == 0, "tile nesting");

// acc = Σ_p a[p][0..kMr) ⊗ b[p][0..kNr) over packed panels. Written with GCC vector types so
// the accumulators are 8-wide vectors (one AVX2 register each, or two SSE registers in the
// default clone) and each step is a broadcast of op(A) times a row of op(B).
static_assert(kNr == 16, "the micro-kernel holds a row of the micro-tile in two Vec8");

inline Vec8 load8(const float* p) {
  Vec8 v;
  std::memcpy(&v, p, sizeof v);  // packed panels are not 32-byte aligned in general
  return v;
}

TILEKIT_CPU_CLONES
void micro_kernel(int64_t kc, const float* __restrict a, const float* __restrict b,
                  float* __restrict acc) {
  Vec8 r[kMr][2] = {};
  for (int64_t p = 0; p < kc; ++p) {
    const Vec8 b0 = load8(b + p * kNr), b1 = load8(b + p * kNr + 8);
#pragma GCC unroll 6
    for (int64_t i = 0; i < kMr; ++i) {
      const Vec8 ai = Vec8{} + a[p * kMr + i];  // broadcast
      r[i][0] += ai * b0;
      r[i][1] += ai * b1;
    }
  }
  std::memcpy(acc, r, sizeof(r));
}

// Packs op(A)[i0 .. i0+mc) × [p0 .. p0+kc) into kMr-row panels, zero-padding the last panel.
void pack_a(const float* a, Strides sa, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
            float* out) {
  for (int64_t ir = 0; ir < mc; ir += kMr) {
    float* panel = out + ir * kc;
    const int64_t rows = std::min(kMr, mc - ir);
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t i = 0; i < kMr; ++i)
        panel[p * kMr + i] = i < rows ? a[(i0 + ir + i) * sa.row + (p0 + p) * sa.col] : 0.0f;
  }
}

// Packs op(B)[p0 .. p0+kc) × [j0 .. j0+nc) panel `jp` (kNr columns), zero-padding the tail.
void pack_b_panel(const float* b, Strides sb, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                  int64_t jp, float* out) {
  float* panel = out + jp * kc;
  const int64_t cols = std::min(kNr, nc - jp);
  for (int64_t p = 0; p < kc; ++p)
    for (int64_t j = 0; j < kNr; ++j)
      panel[p * kNr + j] = j < cols ? b[(p0 + p) * sb.row + (j0 + jp + j) * sb.col] : 0.0f;
}

Status blocked_launch(const GemmProblem& p, const Context& ctx, Workspace) {
  const Strides sa = op_strides(p.layout, p.op_a, p.lda);
  const Strides sb = op_strides(p.layout, p.op_b, p.ldb);
  const Strides sc = op_strides(p.layout, Op::kN, p.ldc);
  const int threads = thread_count(ctx);
  const auto round_up = [](int64_t x, int64_t to) { return (x + to - 1) / to * to; };

  std::vector<float> b_pack(static_cast<size_t>(kKc * round_up(std::min(p.n, kNc), kNr)));
  std::vector<std::vector<float>> a_pack(static_cast<size_t>(threads),
                                         std::vector<float>(static_cast<size_t>(kMc * kKc)));

  for (int64_t jc = 0; jc < p.n; jc += kNc) {
    const int64_t nc = std::min(kNc, p.n - jc);
    for (int64_t pc = 0; pc < p.k; pc += kKc) {
      const int64_t kc = std::min(kKc, p.k - pc);
      // The first pass over k applies beta (and must not read C when beta = 0); later passes
      // accumulate into what the first wrote.
      const bool first = pc == 0;
      const int64_t m_blocks = (p.m + kMc - 1) / kMc;
      const int64_t n_chunks = (nc + kNchunk - 1) / kNchunk;
#pragma omp parallel num_threads(threads)
      {
#pragma omp for schedule(static)
        for (int64_t jp = 0; jp < nc; jp += kNr) pack_b_panel(p.b_f32(), sb, pc, kc, jc, nc, jp, b_pack.data());
        // (implicit barrier: every thread needs all of b_pack)
        float* a_buf = a_pack[static_cast<size_t>(omp_get_thread_num())].data();
        int64_t packed_block = -1;
#pragma omp for collapse(2) schedule(dynamic)
        for (int64_t ib = 0; ib < m_blocks; ++ib) {
          for (int64_t jn = 0; jn < n_chunks; ++jn) {
            const int64_t ic = ib * kMc, mc = std::min(kMc, p.m - ic);
            if (packed_block != ib) {  // consecutive chunks of one row block reuse its packing
              pack_a(p.a_f32(), sa, ic, mc, pc, kc, a_buf);
              packed_block = ib;
            }
            const int64_t j_end = std::min(nc, (jn + 1) * kNchunk);
            for (int64_t jr = jn * kNchunk; jr < j_end; jr += kNr) {
              const int64_t cols = std::min(kNr, nc - jr);
              for (int64_t ir = 0; ir < mc; ir += kMr) {
                const int64_t rows = std::min(kMr, mc - ir);
                float acc[kMr * kNr];
                micro_kernel(kc, a_buf + ir * kc, b_pack.data() + jr * kc, acc);
                for (int64_t i = 0; i < rows; ++i) {
                  float* c_row = p.c_f32() + (ic + ir + i) * sc.row + (jc + jr) * sc.col;
                  for (int64_t j = 0; j < cols; ++j) {
                    float& c = c_row[j * sc.col];
                    const float ab = p.alpha * acc[i * kNr + j];
                    if (!first) c += ab;
                    else c = p.beta == 0.0f ? ab : ab + p.beta * c;
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return Status::ok();
}

}  // namespace

// gemm.cpu.blocked.f32.6x16_kc256 — our own CPU GEMM.
void register_gemm_cpu_blocked(Registry& r) {
  EntrySpec s;
  s.family = "cpu";
  s.name = "blocked";
  s.step = 1;
  s.suffix = std::to_string(kMr) + "x" + std::to_string(kNr) + "_kc" + std::to_string(kKc);
  s.tiling.block_m = kMc;
  s.tiling.block_n = kNc;
  s.tiling.block_k = kKc;
  s.tiling.thread_m = kMr;  // the micro-kernel's register tile
  s.tiling.thread_n = kNr;
  s.tile = "micro " + std::to_string(kMr) + "x" + std::to_string(kNr) + ", block " +
           std::to_string(kMc) + "x" + std::to_string(kNc) + "x" + std::to_string(kKc);
  s.requirements = "any layout, op, size and leading dimension";
  s.auto_rank = 10;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.launch = blocked_launch;
  r.add(std::move(k));
}

}  // namespace tilekit::cpu
