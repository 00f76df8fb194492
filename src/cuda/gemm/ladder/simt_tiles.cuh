// simt_tiles.cuh — the pieces the FP32 SIMT steps 06–10 share, each introduced by one step:
//   06  OperandTile / load_tile_to_registers / store_tile_registers: float4 global loads when the
//       operand allows them, k-major shared tiles (A stored transposed) read as LDS.128;
//   07  WarpTilePolicy / multiply_k_tile / store_c_tile: block → warp → thread tiles, each thread
//       tile made of 4×4 sub-tiles spread across the warp tile so that a warp's shared loads hit
//       distinct 16-byte words (no bank conflicts) and its C stores are float4;
//   08–10 reuse both through async_pipeline.cuh.
//
// Shared tiles are k-major: s[k][outer] with outer = m for A and n for B, so a thread's TM values
// of A (TN of B) at one k are contiguous. How (k, outer) maps to an offset is the Layout type:
// PaddedLayout here (rows padded by 4 floats: the transposed stores of 06 hit 32 distinct banks),
// SwizzledLayout in step 09.
#pragma once

#include <string>

#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/ladder/ladder_common.cuh"

namespace tilekit::cuda {

// Rows of kWidth floats padded to kWidth + 4: a float4 row start stays 16-byte aligned and a
// column written by 32 lanes (k = lane % 8) spreads over every bank.
struct PaddedLayout {
  static std::string name() { return "pad"; }
  template <int kWidth>
  __host__ __device__ static constexpr int stride() { return kWidth + 4; }
  template <int kWidth>
  __device__ static __forceinline__ int offset(int k, int outer) {
    return k * stride<kWidth>() + outer;
  }
};

// Where one operand's tile lives in global memory, in the memory's own row-major coordinates:
// rows [row0, row0 + tile rows) clipped to `rows`, columns likewise clipped to `cols`.
struct TileOrigin {
  const float* src;
  int ld;
  int row0, rows;
  int col0, cols;
};

// The operand tile of kOuter (m or n) × kBk (k) elements, read by kThreads threads. kKRows: the
// operand's memory rows run along k (Aᵀ stored k×m, B stored k×n), so memory rows are shared rows;
// otherwise memory rows run along m or n and are written to shared memory transposed.
template <int kOuter, int kBk, int kThreads, bool kKRows_>
struct OperandTile {
  static constexpr bool kKRows = kKRows_;
  static constexpr int kRows = kKRows ? kBk : kOuter;  // memory rows of the tile
  static constexpr int kCols = kKRows ? kOuter : kBk;  // memory columns (contiguous)
  static_assert(kCols % 4 == 0, "tiles are read as float4 chunks");
  static constexpr int kChunksPerRow = kCols / 4;
  static constexpr int kChunks = kRows * kChunksPerRow;
  static_assert(kChunks % kThreads == 0, "every thread reads the same number of chunks");
  static constexpr int kChunksPerThread = kChunks / kThreads;

  // For the origin of op(A): A is m×k (memory rows along m) or, transposed, k×m.
  __device__ static TileOrigin origin(const float* src, int ld, int outer0, int outer_limit, int k0,
                                      int k_limit) {
    return kKRows ? TileOrigin{src, ld, k0, k_limit, outer0, outer_limit}
                  : TileOrigin{src, ld, outer0, outer_limit, k0, k_limit};
  }
};

// 06: the tile into registers, one float4 per chunk. `vec` (ld a multiple of 4 and a 16-byte
// aligned base, decided once per launch) allows LDG.128 for chunks wholly inside the matrix;
// the others are read element by element with zeros outside.
template <typename T>
__device__ __forceinline__ void load_tile_to_registers(const TileOrigin& o, bool vec,
                                                       float4 (&r)[T::kChunksPerThread], int tid) {
  // A tile wholly inside the matrix (every tile but the edges) skips the per-chunk checks.
  const bool inside = vec && o.row0 + T::kRows <= o.rows && o.col0 + T::kCols <= o.cols;
#pragma unroll
  for (int j = 0; j < T::kChunksPerThread; ++j) {
    const int chunk = tid + j * (T::kChunks / T::kChunksPerThread);
    const int gr = o.row0 + chunk / T::kChunksPerRow;
    const int gc = o.col0 + chunk % T::kChunksPerRow * 4;
    const float* p = o.src + gr * o.ld + gc;
    if (inside || (vec && gr < o.rows && gc + 3 < o.cols)) {
      r[j] = *reinterpret_cast<const float4*>(p);
    } else {
      const bool row_ok = gr < o.rows;
      r[j].x = row_ok && gc < o.cols ? p[0] : 0.0f;
      r[j].y = row_ok && gc + 1 < o.cols ? p[1] : 0.0f;
      r[j].z = row_ok && gc + 2 < o.cols ? p[2] : 0.0f;
      r[j].w = row_ok && gc + 3 < o.cols ? p[3] : 0.0f;
    }
  }
}

// 06: the registers into the k-major shared tile: one STS.128 per chunk when memory rows are k
// rows, four scalar stores down a column otherwise (A transposed on the way in).
template <typename T, typename Layout>
__device__ __forceinline__ void store_tile_registers(const float4 (&r)[T::kChunksPerThread],
                                                     float* s, int tid) {
  constexpr int kWidth = T::kKRows ? T::kCols : T::kRows;
#pragma unroll
  for (int j = 0; j < T::kChunksPerThread; ++j) {
    const int chunk = tid + j * (T::kChunks / T::kChunksPerThread);
    const int rr = chunk / T::kChunksPerRow, cc = chunk % T::kChunksPerRow * 4;
    if (T::kKRows) {
      *reinterpret_cast<float4*>(s + Layout::template offset<kWidth>(rr, cc)) = r[j];
    } else {
      s[Layout::template offset<kWidth>(cc + 0, rr)] = r[j].x;
      s[Layout::template offset<kWidth>(cc + 1, rr)] = r[j].y;
      s[Layout::template offset<kWidth>(cc + 2, rr)] = r[j].z;
      s[Layout::template offset<kWidth>(cc + 3, rr)] = r[j].w;
    }
  }
}

// 07: a block of kWarpsM × kWarpsN warps; a warp of kLanesM × (32 / kLanesM) lanes; a thread
// tile of kTm × kTn made of 4×4 sub-tiles strided by the warp's lane extent, so the 4-wide
// fragments of neighbouring lanes are neighbouring 16-byte words.
template <int kBm_, int kBn_, int kBk_, int kWarpsM_, int kWarpsN_, int kLanesM_, int kTm_,
          int kTn_>
struct WarpTilePolicy {
  static constexpr int kBm = kBm_, kBn = kBn_, kBk = kBk_;
  static constexpr int kWarpsM = kWarpsM_, kWarpsN = kWarpsN_;
  static constexpr int kLanesM = kLanesM_, kLanesN = 32 / kLanesM_;
  static constexpr int kTm = kTm_, kTn = kTn_;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kWarpM = kLanesM * kTm, kWarpN = kLanesN * kTn;  // a warp's C tile
  static_assert(kLanesM * kLanesN == 32, "lanes must tile the warp");
  static_assert(kTm % 4 == 0 && kTn % 4 == 0, "thread tiles are made of 4×4 sub-tiles");
  static_assert(kBm == kWarpsM * kWarpM && kBn == kWarpsN * kWarpN, "warps must tile the block");

  // "128x128x8_w2x4_t8x8": block tile, warp grid, thread tile.
  static std::string suffix() {
    return std::to_string(kBm) + "x" + std::to_string(kBn) + "x" + std::to_string(kBk) + "_w" +
           std::to_string(kWarpsM) + "x" + std::to_string(kWarpsN) + "_t" + std::to_string(kTm) +
           "x" + std::to_string(kTn);
  }
  static TileDesc tiling() {
    TileDesc t;
    t.block_m = kBm, t.block_n = kBn, t.block_k = kBk;
    t.warp_m = kWarpM, t.warp_n = kWarpN;
    t.thread_m = kTm, t.thread_n = kTn;
    t.threads = kThreads;
    return t;
  }
};

// Offsets inside the block tile of this thread's first sub-tile; sub-tile (i, j) adds
// (i·kLanesM·4, j·kLanesN·4).
struct ThreadOrigin {
  int row, col;
};

template <typename P>
__device__ __forceinline__ ThreadOrigin thread_origin() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_row = warp / P::kWarpsN, warp_col = warp % P::kWarpsN;
  return {warp_row * P::kWarpM + lane / P::kLanesN * 4, warp_col * P::kWarpN + lane % P::kLanesN * 4};
}

// 07: one k of the thread's fragments: kTm/4 + kTn/4 LDS.128.
template <typename P, typename Layout>
__device__ __forceinline__ void load_fragments(const float* s_a, const float* s_b, ThreadOrigin t,
                                               int k, float (&a)[P::kTm], float (&b)[P::kTn]) {
#pragma unroll
  for (int i = 0; i < P::kTm / 4; ++i) {
    const float4 v = *reinterpret_cast<const float4*>(
        s_a + Layout::template offset<P::kBm>(k, t.row + i * P::kLanesM * 4));
    a[4 * i] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
  }
#pragma unroll
  for (int j = 0; j < P::kTn / 4; ++j) {
    const float4 v = *reinterpret_cast<const float4*>(
        s_b + Layout::template offset<P::kBn>(k, t.col + j * P::kLanesN * 4));
    b[4 * j] = v.x, b[4 * j + 1] = v.y, b[4 * j + 2] = v.z, b[4 * j + 3] = v.w;
  }
}

// 07: acc += a·bᵀ for one k: kTm·kTn FMAs.
template <typename P>
__device__ __forceinline__ void add_outer_product(float (&acc)[P::kTm][P::kTn],
                                                  const float (&a)[P::kTm],
                                                  const float (&b)[P::kTn]) {
#pragma unroll
  for (int r = 0; r < P::kTm; ++r)
#pragma unroll
    for (int c = 0; c < P::kTn; ++c) acc[r][c] += a[r] * b[c];
}

// 07: acc += the k-tile's product: per k, kTm·kTn FMAs on fragments loaded one k earlier (two
// fragment buffers), so the shared-load latency of k + 1 hides behind the FMAs of k.
template <typename P, typename Layout>
__device__ __forceinline__ void multiply_k_tile(const float* s_a, const float* s_b, ThreadOrigin t,
                                                float (&acc)[P::kTm][P::kTn]) {
  float a[2][P::kTm], b[2][P::kTn];
  load_fragments<P, Layout>(s_a, s_b, t, 0, a[0], b[0]);
#pragma unroll
  for (int k = 0; k < P::kBk; ++k) {
    if (k + 1 < P::kBk) load_fragments<P, Layout>(s_a, s_b, t, k + 1, a[(k + 1) % 2], b[(k + 1) % 2]);
    add_outer_product<P>(acc, a[k % 2], b[k % 2]);
  }
}

// Where a block's results go: C itself (alpha, beta), or a split-K partial slice (alpha 1, beta 0).
struct CTarget {
  float* c;
  int ldc;
  int m, n;
  float alpha, beta;
  bool vec;  // ldc a multiple of 4 and c 16-byte aligned: float4 stores inside the matrix
};

__device__ __forceinline__ float scale_c(const CTarget& o, float acc, const float* c) {
  // beta = 0 never reads C; alpha_acc_beta_c: the same rounding as the float4 stores below.
  return o.beta == 0.0f ? o.alpha * acc : alpha_acc_beta_c(o.alpha, acc, o.beta, *c);
}

// 07: the thread's tile to C, float4 rows where they lie wholly inside the matrix.
template <typename P>
__device__ __forceinline__ void store_c_tile(const CTarget& o, int row0, int col0, ThreadOrigin t,
                                             const float (&acc)[P::kTm][P::kTn]) {
#pragma unroll
  for (int i = 0; i < P::kTm / 4; ++i)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int gi = row0 + t.row + i * P::kLanesM * 4 + r;
      if (gi >= o.m) continue;
#pragma unroll
      for (int j = 0; j < P::kTn / 4; ++j) {
        const int gj = col0 + t.col + j * P::kLanesN * 4;
        float* c = o.c + gi * o.ldc + gj;
        const float* v = &acc[4 * i + r][4 * j];
        if (o.vec && gj + 3 < o.n) {
          // The scalar path's arithmetic (scale_c), element by element: a C element gets the
          // same bits whichever store writes it.
          float4 out;
          if (o.beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4*>(c);
            out = make_float4(alpha_acc_beta_c(o.alpha, v[0], o.beta, old.x),
                              alpha_acc_beta_c(o.alpha, v[1], o.beta, old.y),
                              alpha_acc_beta_c(o.alpha, v[2], o.beta, old.z),
                              alpha_acc_beta_c(o.alpha, v[3], o.beta, old.w));
          } else {
            out = make_float4(o.alpha * v[0], o.alpha * v[1], o.alpha * v[2], o.alpha * v[3]);
          }
          *reinterpret_cast<float4*>(c) = out;
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q)
            if (gj + q < o.n) c[q] = scale_c(o, v[q], c + q);
        }
      }
    }
}

// The launch-wide facts the SIMT steps decide once on the host.
struct OperandFlags {
  bool vec_a, vec_b, vec_c;
};

// float4 is allowed for an operand whose memory rows are read as chunks of 4 along its ld.
inline OperandFlags operand_flags(const RowMajorGemm& g) {
  auto vec = [](const void* p, int ld) { return aligned16(p) && ld % 4 == 0; };
  return {vec(g.a, g.lda), vec(g.b, g.ldb), vec(g.c, g.ldc)};
}

// A registry entry for a step 06/07 policy P on a 2-D grid of tiles: its id segment and tiling
// from P; 32-bit indexing and P::kBm-row blocks in grid.y as its limits; the resources of its
// NN instantiation `nn_kernel`. The caller names the step in `s` and gives the launch.
template <typename P>
GemmKernel make_grid_tiled_entry(EntrySpec s, decltype(GemmKernel::launch) launch,
                                 const void* nn_kernel) {
  s.suffix = P::suffix();
  s.tiling = P::tiling();
  s.tiling.schedule = TileSchedule::kOneBlockPerTile;
  s.requirements = "any shape, layout, op and ld; m < 65536·" + std::to_string(P::kBm);
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) {
    return check_ladder_problem(p, P::kBm);
  };
  k.launch = std::move(launch);
  k.resources = [nn_kernel](KernelResources* out) {
    return kernel_resources(nn_kernel, P::kThreads, 0, out);
  };
  return k;
}

}  // namespace tilekit::cuda
