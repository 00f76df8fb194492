// tma_operands.cu — the host side of the Hopper family's operands (tma_operands.hpp).
#include "cuda/gemm/sm90/tma_operands.hpp"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <algorithm>
#include <climits>
#include <string>

#include "cuda/common/cuda_check.hpp"

namespace tilekit::cuda::sm90 {
namespace {

constexpr int64_t kElementBytes = 2;                 // the family's operands are 16-bit
constexpr int64_t kLdMultiple = 16 / kElementBytes;  // TMA: row pitch a multiple of 16 bytes
// A repacked copy gets 128-byte rows, so that no TMA box row straddles two 128-byte lines.
constexpr int64_t kRepackLdMultiple = 128 / kElementBytes;

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

TmaOperand stored(const void* data, Op op, int64_t rows_if_n, int64_t cols_if_n, int64_t ld) {
  TmaOperand o;
  o.data = data;
  o.rows = op == Op::kN ? rows_if_n : cols_if_n;
  o.cols = op == Op::kN ? cols_if_n : rows_if_n;
  o.ld = ld;
  return o;
}

// The driver's tensor-map encoder, looked up through the runtime once: linking libcuda itself
// would stop the library from loading on machines without a GPU driver (CI).
Status tensor_map_encoder(PFN_cuTensorMapEncodeTiled_v12000* out) {
  static PFN_cuTensorMapEncodeTiled_v12000 encoder = nullptr;
  if (encoder == nullptr) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    TILEKIT_CUDA_TRY(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                      cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || fn == nullptr)
      return not_supported("cuTensorMapEncodeTiled: not found in the CUDA driver (needs 12.0+)");
    encoder = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }
  *out = encoder;
  return Status::ok();
}

// Each thread writes 8 consecutive elements of a row as one 16-byte store into the aligned copy;
// the source rows are misaligned (that is why we copy), so it reads them element by element.
// Elements past `cols` in the last group are written as zeros (TMA never reads them).
__global__ void repack_kernel(const uint16_t* __restrict__ src, int64_t ld_src,
                              uint16_t* __restrict__ dst, int64_t ld_dst, int64_t rows, int64_t cols) {
  const int64_t groups = (cols + 7) / 8;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const uint16_t* in = src + row * ld_src;
    for (int64_t g = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; g < groups;
         g += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      uint32_t packed[4];
#pragma unroll
      for (int e = 0; e < 8; e += 2) {
        const int64_t col = g * 8 + e;
        const uint32_t lo = col < cols ? in[col] : 0u;
        const uint32_t hi = col + 1 < cols ? in[col + 1] : 0u;
        packed[e / 2] = lo | hi << 16;
      }
      *reinterpret_cast<uint4*>(dst + row * ld_dst + g * 8) =
          make_uint4(packed[0], packed[1], packed[2], packed[3]);
    }
  }
}

constexpr int kPrepTile = 32, kPrepRows = 8;

__device__ __forceinline__ float tf32_rna(float x) {
  uint32_t bits;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
}

// 32 × 32 tiles of the stored operand through shared memory, written K-major: as they are
// (K-major storage) or transposed (MN-major storage), rounded to TF32, and for 3xTF32 the
// rounded remainder into `small`. Coalesced on both sides.
__global__ void prepare_tf32_kernel(const float* __restrict__ src, int64_t ld, int64_t rows, int64_t cols,
                                    bool transpose, float* __restrict__ big, float* __restrict__ small,
                                    int64_t ld_out) {
  __shared__ float tile[kPrepTile][kPrepTile + 1];
  for (int64_t ty = blockIdx.y; ty * kPrepTile < rows; ty += gridDim.y)
    for (int64_t tx = blockIdx.x; tx * kPrepTile < cols; tx += gridDim.x) {
      const int64_t r0 = ty * kPrepTile, c0 = tx * kPrepTile;
      for (int i = threadIdx.y; i < kPrepTile; i += kPrepRows) {
        const int64_t r = r0 + i, c = c0 + threadIdx.x;
        tile[i][threadIdx.x] = r < rows && c < cols ? src[r * ld + c] : 0.0f;
      }
      __syncthreads();
      for (int i = threadIdx.y; i < kPrepTile; i += kPrepRows) {
        // Output row `out_r`, column `out_c` (K-major: rows are m or n, columns are k).
        const int64_t out_r = transpose ? c0 + i : r0 + i, out_c = transpose ? r0 + threadIdx.x : c0 + threadIdx.x;
        const int64_t out_rows = transpose ? cols : rows, out_cols = transpose ? rows : cols;
        if (out_r >= out_rows || out_c >= out_cols) continue;
        const float x = transpose ? tile[threadIdx.x][i] : tile[i][threadIdx.x];
        const float x_big = tf32_rna(x);
        big[out_r * ld_out + out_c] = x_big;
        // inf − inf would turn an infinite input into NaN: its small part is 0.
        if (small != nullptr) small[out_r * ld_out + out_c] = isfinite(x_big) ? tf32_rna(x - x_big) : 0.0f;
      }
      __syncthreads();
    }
}

}  // namespace

WgmmaView wgmma_view(const GemmProblem& p) {
  WgmmaView v;
  v.alpha = p.alpha;
  v.beta = p.beta;
  v.k = p.k;
  v.c = p.c_f32();
  v.ldc = p.ldc;
  const TmaOperand a = stored(p.a, p.op_a, p.m, p.k, p.lda);
  const TmaOperand b = stored(p.b, p.op_b, p.k, p.n, p.ldb);
  if (p.layout == Layout::kRowMajor) {
    v.m = p.m;
    v.n = p.n;
    v.a = a;
    v.b = b;
    v.a_mn_major = p.op_a == Op::kT;
    v.b_mn_major = p.op_b == Op::kN;
  } else {  // column-major C = op(A)·op(B)  ⇔  row-major Cᵀ = op(B)ᵀ·op(A)ᵀ
    v.m = p.n;
    v.n = p.m;
    // Column-major storage read as row-major is the transpose: rows and cols swap.
    v.a = TmaOperand{p.b, b.cols, b.rows, p.ldb};
    v.b = TmaOperand{p.a, a.cols, a.rows, p.lda};
    v.a_mn_major = p.op_b == Op::kT;
    v.b_mn_major = p.op_a == Op::kN;
  }
  return v;
}

bool tma_can_read(const TmaOperand& o) {
  return reinterpret_cast<uintptr_t>(o.data) % 16 == 0 && o.ld % kLdMultiple == 0;
}

size_t repack_bytes(const TmaOperand& o) {
  if (tma_can_read(o)) return 0;
  return static_cast<size_t>(round_up(o.rows * round_up(o.cols, kRepackLdMultiple) * kElementBytes, 256));
}

Status repack_operand(TmaOperand* o, void* dst, cudaStream_t stream) {
  const int64_t ld = round_up(o->cols, kRepackLdMultiple);
  const int threads = 128;
  const int64_t groups = (o->cols + 7) / 8;
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>((groups + threads - 1) / threads, 1024)),
                  static_cast<unsigned>(std::min<int64_t>(o->rows, 65535)));
  repack_kernel<<<grid, threads, 0, stream>>>(static_cast<const uint16_t*>(o->data), o->ld,
                                               static_cast<uint16_t*>(dst), ld, o->rows, o->cols);
  TILEKIT_CUDA_CHECK_LAUNCH("repack_kernel");
  o->data = dst;
  o->ld = ld;
  return Status::ok();
}

Status encode_tile_map(CUtensorMap* map, const TmaOperand& o, DType type, int box_inner,
                       int box_outer) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  TILEKIT_RETURN_IF_ERROR(tensor_map_encoder(&encode));
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(o.cols), static_cast<cuuint64_t>(o.rows)};
  const cuuint64_t pitch[1] = {static_cast<cuuint64_t>(o.ld) * dtype_size(type)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_inner), static_cast<cuuint32_t>(box_outer)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUtensorMapDataType data_type = type == DType::kBF16  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                        : type == DType::kF16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                              : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const CUresult r = encode(map, data_type,
                            2, const_cast<void*>(o.data), dims, pitch, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return Status(StatusCode::kCudaError,
                  "cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(r)) +
                      ") for a " + std::to_string(o.rows) + " x " + std::to_string(o.cols) +
                      " operand, ld " + std::to_string(o.ld),
                  static_cast<int>(r));
  return Status::ok();
}

Status check_wgmma_problem(const GemmProblem& p, const GemmTypes& kernel_types) {
  if (p.types != kernel_types)
    return not_supported("this kernel computes " + describe(kernel_types) + ", not " +
                         describe(p.types));
  if (p.m > INT_MAX || p.n > INT_MAX || p.k > INT_MAX)
    return not_supported("m, n and k must fit TMA's 32-bit coordinates (at most " +
                         std::to_string(INT_MAX) + ")");
  return Status::ok();
}

int64_t tf32_prepared_ld(int64_t k) { return round_up(k, 32); }

size_t tf32_part_bytes(int64_t mn, int64_t k) {
  return static_cast<size_t>(round_up(mn * tf32_prepared_ld(k) * 4, 256));
}

Status prepare_tf32_operand(const TmaOperand& o, bool mn_major, int64_t mn, int64_t k, float* big,
                            float* small, cudaStream_t stream) {
  const dim3 block(kPrepTile, kPrepRows);
  const int64_t tiles_x = (o.cols + kPrepTile - 1) / kPrepTile, tiles_y = (o.rows + kPrepTile - 1) / kPrepTile;
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>(tiles_x, 65535)),
                  static_cast<unsigned>(std::min<int64_t>(tiles_y, 65535)));
  prepare_tf32_kernel<<<grid, block, 0, stream>>>(static_cast<const float*>(o.data), o.ld, o.rows, o.cols,
                                                  mn_major, big, small, tf32_prepared_ld(k));
  TILEKIT_CUDA_CHECK_LAUNCH("prepare_tf32_kernel");
  (void)mn;
  return Status::ok();
}

}  // namespace tilekit::cuda::sm90
