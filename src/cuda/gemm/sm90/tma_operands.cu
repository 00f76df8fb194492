// tma_operands.cu — the host side of the Hopper family's operands (tma_operands.hpp).
#include "cuda/gemm/sm90/tma_operands.hpp"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <algorithm>
#include <climits>
#include <string>

#include "cuda/common/cuda_check.hpp"

namespace tilekit::cuda::sm90 {
namespace {

constexpr int64_t kElementBytes = 2;  // the family's 16-bit operands (TMA: 16-byte row pitch)
// A repacked copy gets 128-byte rows, so that no TMA box row straddles two 128-byte lines.
constexpr int64_t kRepackLdMultiple = 128 / kElementBytes;
// Rows TMA can read but which do not start on 128-byte lines cost every box row an extra line:
// at large sizes far more than repacking both operands, at small ones less (docs/hopper.md,
// "Rows off their lines"). A repack's cost grows with the operand, the saving with the products
// each element enters (n for A, m for B); it is taken from this many on.
constexpr int64_t kRepackMisalignedUses = 3072;
// A 128 × 256 tile or a cluster sharing B (fewer box rows per product) loses little to rows that
// start on 32-byte sectors (row pitch a multiple of 32 bytes), and a clustered 128 × 256 tile
// little even to rows off sectors below 8192 uses: measured in place against repacked for every
// bf16 kernel on the H200; lone 128 × 128 and 64 × 256 tiles lose (docs/hopper.md, "Rows off
// their lines").
constexpr int64_t kNeverRepack = INT64_MAX;
constexpr int64_t kRepackOffSectorClusteredWideUses = 8192;

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

// The 8 elements of `row` from column `col` on, as one 16-byte word (zeros past `cols`). The
// source rows start anywhere on a 2-byte boundary (that is why we copy). Inside the row the 8
// elements are read as the two aligned 16-byte words they straddle (one where they are
// aligned) and shifted into place; the groups at a row's ends, where the second word would
// reach outside the row, are read element by element.
__device__ __forceinline__ uint4 repack_group(const uint16_t* row, int64_t col, int64_t cols) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(row + col);
  const unsigned offset = at & 15;  // bytes into the aligned word, even
  if (offset == 0 && col + 8 <= cols) return __ldg(reinterpret_cast<const uint4*>(at));
  if (col >= 8 && col + 16 <= cols) {
    const auto* word = reinterpret_cast<const uint4*>(at - offset);
    const uint4 lo = __ldg(word), hi = __ldg(word + 1);
    uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    // Drop offset / 4 whole 4-byte words in two selects (a run-time index would put w in local
    // memory), then the 2 bytes left, if any.
    const unsigned drop = offset / 4;
#pragma unroll
    for (int i = 0; i < 6; ++i) w[i] = (drop & 2) ? w[i + 2] : w[i];
#pragma unroll
    for (int i = 0; i < 5; ++i) w[i] = (drop & 1) ? w[i + 1] : w[i];
    if ((offset & 2) == 0) return make_uint4(w[0], w[1], w[2], w[3]);
    return make_uint4(__funnelshift_r(w[0], w[1], 16), __funnelshift_r(w[1], w[2], 16),
                      __funnelshift_r(w[2], w[3], 16), __funnelshift_r(w[3], w[4], 16));
  }
  uint32_t w[4];
#pragma unroll
  for (int e = 0; e < 8; e += 2) {
    const uint32_t lo = col + e < cols ? row[col + e] : 0u;
    const uint32_t hi = col + e + 1 < cols ? row[col + e + 1] : 0u;
    w[e / 2] = lo | hi << 16;
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// One operand's copy: `rows` rows of `cols` elements from `src` (rows `ld_src` apart, starting
// on any 2-byte boundary) into `dst` (rows `ld_dst` apart, 128-byte aligned).
struct RepackJob {
  const uint16_t* src = nullptr;
  uint16_t* dst = nullptr;
  int64_t ld_src = 0, ld_dst = 0, rows = 0, cols = 0;
};

// All that runs before a 16-bit GEMM launch, as one kernel: the copies of A and B (rows of
// jobs[0], then of jobs[1]; a job of 0 rows is absent) and the zeroing of the stream-K flags.
// One launch where there were up to three (two repacks, a memset), and faster than the repacks
// apart.
struct PrepareArgs {
  RepackJob jobs[2];
  int* flags = nullptr;
  int64_t flag_count = 0;
  // Rows of at most half a block's groups (repack_short_rows): each block copies rows_per_block
  // of them at once, a group a thread, `group_stride` threads a row.
  int rows_per_block = 1, group_stride = 0;
};

// A thread copies kRepackUnroll groups of 8 elements of a row, all loads before the stores
// (one 16-byte store each into the 128-byte-aligned copy): faster than a group per thread, and
// than one flat grid-stride range over both operands' groups (docs/hopper.md, "Tried and not
// kept").
constexpr int kRepackThreads = 256, kRepackUnroll = 4;
__device__ __forceinline__ void repack_row(const RepackJob& j, int64_t row) {
  const int64_t groups = (j.cols + 7) / 8;
  const uint16_t* in = j.src + row * j.ld_src;
  uint16_t* out = j.dst + row * j.ld_dst;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * kRepackUnroll * blockDim.x; first < groups;
       first += static_cast<int64_t>(gridDim.x) * kRepackUnroll * blockDim.x) {
    uint4 group[kRepackUnroll];
#pragma unroll
    for (int u = 0; u < kRepackUnroll; ++u) {
      const int64_t g = first + u * blockDim.x + threadIdx.x;
      if (g < groups) group[u] = repack_group(in, g * 8, j.cols);
    }
#pragma unroll
    for (int u = 0; u < kRepackUnroll; ++u) {
      const int64_t g = first + u * blockDim.x + threadIdx.x;
      if (g < groups) *reinterpret_cast<uint4*>(out + g * 8) = group[u];
    }
  }
}

__device__ __forceinline__ void repack_group_of_row(const RepackJob& j, int64_t row, int64_t g) {
  if (g * 8 < j.cols)
    *reinterpret_cast<uint4*>(j.dst + row * j.ld_dst + g * 8) =
        repack_group(j.src + row * j.ld_src, g * 8, j.cols);
}

// Short rows, several a block: a block a row left most of its threads idle (an ld-100 bf16 B of
// 30000 rows: 30000 blocks of 13 busy threads).
__device__ __forceinline__ void repack_short_rows(const PrepareArgs& p, int64_t rows_a, int64_t rows) {
  const int sub = static_cast<int>(threadIdx.x) / p.group_stride;
  const int64_t g = static_cast<int>(threadIdx.x) % p.group_stride;
  if (sub >= p.rows_per_block) return;
  for (int64_t row = static_cast<int64_t>(blockIdx.y) * p.rows_per_block + sub; row < rows;
       row += static_cast<int64_t>(gridDim.y) * p.rows_per_block) {
    // Each job named by a constant index: a job chosen at run time (a reference to
    // p.jobs[row < rows_a ? 0 : 1]) made the compiler copy the kernel's parameters into local
    // memory in every thread, of every launch of the kernel (ptxas -v: a 120-byte stack frame,
    // against none), several times slower.
    if (row < rows_a)
      repack_group_of_row(p.jobs[0], row, g);
    else
      repack_group_of_row(p.jobs[1], row - rows_a, g);
  }
}

// blockIdx.y walks the rows of both jobs (several rows a block where they are short).
__global__ void __launch_bounds__(kRepackThreads) prepare_16bit_kernel(const PrepareArgs p) {
  if (blockIdx.x == 0 && blockIdx.y == 0)
    for (int64_t i = threadIdx.x; i < p.flag_count; i += blockDim.x) p.flags[i] = 0;
  const int64_t rows_a = p.jobs[0].rows, rows = rows_a + p.jobs[1].rows;
  if (p.rows_per_block > 1) {
    repack_short_rows(p, rows_a, rows);
    return;
  }
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    if (row < rows_a)
      repack_row(p.jobs[0], row);
    else
      repack_row(p.jobs[1], row - rows_a);
  }
}

// The pre-pass moves 64 × 64 tiles with 16 × 32 threads, two float4 per thread each way on
// interior tiles of aligned matrices (as transpose step 06, docs/memory.md), checked scalars at
// the edges. An unaligned row (ld 4097) is read by checked scalar loads: reading it as the two
// aligned float4 each 4 elements straddle, shifted into place (repack_group's way), measured
// slower (docs/hopper.md, "Tried and not kept").
constexpr int kPrepTile = 64, kPrepThreadsX = 16, kPrepThreadsY = 32;

// To nearest, ties to even: as a TMA load through a TFLOAT32 tensor map rounds an operand that
// is read in place, and as the reference rounds (round_to_tf32).
__device__ __forceinline__ float tf32_rn(float x) {
  uint32_t bits;
  asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
}

struct PrepArgs {
  const float* src;
  int64_t ld, rows, cols;  // as stored
  float* big;
  float* small;            // null unless 3xTF32
  int64_t ld_out;          // output: K-major, rows = m or n
  bool vector;             // src and ld allow float4 loads
};

// Writes 4 consecutive output elements of output row `r` from column `c`, rounded (and split).
__device__ __forceinline__ void put4(const PrepArgs& a, int64_t r, int64_t c, const float (&v)[4],
                                     bool vector, int64_t out_rows, int64_t out_cols) {
  float big[4], small[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    big[j] = tf32_rn(v[j]);
    // inf − inf would turn an infinite input into NaN: its small part is 0.
    small[j] = isfinite(big[j]) ? tf32_rn(v[j] - big[j]) : 0.0f;
  }
  if (vector) {
    *reinterpret_cast<float4*>(a.big + r * a.ld_out + c) = make_float4(big[0], big[1], big[2], big[3]);
    if (a.small != nullptr)
      *reinterpret_cast<float4*>(a.small + r * a.ld_out + c) = make_float4(small[0], small[1], small[2], small[3]);
    return;
  }
  if (r >= out_rows) return;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if (c + j >= out_cols) break;
    a.big[r * a.ld_out + c + j] = big[j];
    if (a.small != nullptr) a.small[r * a.ld_out + c + j] = small[j];
  }
}

// One 64 × 64 tile of the stored operand at (r0, c0) into the K-major output: as it is, or
// transposed (kTranspose: stored MN-major).
template <bool kTranspose>
__device__ __forceinline__ void prepare_tile(const PrepArgs& a, float (*tile)[kPrepTile + 1], int64_t r0,
                                             int64_t c0) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  // Interior tiles store float4 (the output rows are 128-byte aligned); they load float4 only
  // from an aligned source (a 4097-wide one is read element by element).
  const bool interior = r0 + kPrepTile <= a.rows && c0 + kPrepTile <= a.cols;
  const bool vector = a.vector && interior;
#pragma unroll
  for (int i = 0; i < kPrepTile / kPrepThreadsY; ++i) {
    const int r = ty + i * kPrepThreadsY;
    const float* in = a.src + (r0 + r) * a.ld + c0 + 4 * tx;
    float v[4];
    if (vector) {
      const float4 q = *reinterpret_cast<const float4*>(in);
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = r0 + r < a.rows && c0 + 4 * tx + j < a.cols ? in[j] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) tile[r][4 * tx + j] = v[j];
  }
  __syncthreads();
  const int64_t out_rows = kTranspose ? a.cols : a.rows, out_cols = kTranspose ? a.rows : a.cols;
#pragma unroll
  for (int i = 0; i < kPrepTile / kPrepThreadsY; ++i) {
    const int o = ty + i * kPrepThreadsY;  // the output tile's row
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = kTranspose ? tile[4 * tx + j][o] : tile[o][4 * tx + j];
    if (kTranspose)
      put4(a, c0 + o, r0 + 4 * tx, v, interior, out_rows, out_cols);
    else
      put4(a, r0 + o, c0 + 4 * tx, v, interior, out_rows, out_cols);
  }
  __syncthreads();
}

// blockIdx.x walks down the stored tile rows (neighbouring blocks write neighbouring parts of
// the same output rows when transposing); grid-stride loops take any size.
template <bool kTranspose>
__global__ void __launch_bounds__(kPrepThreadsX * kPrepThreadsY) prepare_tf32_kernel(PrepArgs a) {
  __shared__ float tile[kPrepTile][kPrepTile + 1];
  for (int64_t tc = blockIdx.y; tc * kPrepTile < a.cols; tc += gridDim.y)
    for (int64_t tr = blockIdx.x; tr * kPrepTile < a.rows; tr += gridDim.x)
      prepare_tile<kTranspose>(a, tile, tr * kPrepTile, tc * kPrepTile);
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

namespace {
// Elements of `element_bytes` in rows of a 16-byte aligned start and pitch: what TMA reads.
bool tma_readable(const TmaOperand& o, int64_t element_bytes) {
  return reinterpret_cast<uintptr_t>(o.data) % 16 == 0 && o.ld * element_bytes % 16 == 0;
}
// Every row starts on a 128-byte line, so that no 128-byte box row straddles two lines.
bool rows_on_lines(const TmaOperand& o, int64_t element_bytes) {
  return reinterpret_cast<uintptr_t>(o.data) % 128 == 0 && o.ld * element_bytes % 128 == 0;
}
// Every row starts on a 32-byte sector: a 128-byte box row off its line touches 4 sectors, not 5.
bool rows_on_sectors(const TmaOperand& o, int64_t element_bytes) {
  return reinterpret_cast<uintptr_t>(o.data) % 32 == 0 && o.ld * element_bytes % 32 == 0;
}
// The uses (products each element enters) from which `o`, which TMA can read, is repacked.
int64_t repack_from_uses(const TmaOperand& o, OffLineReads reads) {
  if (rows_on_lines(o, kElementBytes)) return kNeverRepack;
  if (!reads.wide_tile && !reads.clustered) return kRepackMisalignedUses;
  if (rows_on_sectors(o, kElementBytes)) return kNeverRepack;
  return reads.wide_tile && reads.clustered ? kRepackOffSectorClusteredWideUses
                                            : kRepackMisalignedUses;
}
}  // namespace

WgmmaView transposed_view(const WgmmaView& v) {
  WgmmaView t = v;
  t.m = v.n;
  t.n = v.m;
  t.a = v.b;
  t.b = v.a;
  t.a_mn_major = v.b_mn_major;
  t.b_mn_major = v.a_mn_major;
  t.c_transposed = !v.c_transposed;
  return t;
}

bool tma_can_read(const TmaOperand& o) { return tma_readable(o, kElementBytes); }

bool repack_pays(const TmaOperand& o, int64_t uses, OffLineReads reads) {
  if (!tma_can_read(o)) return true;
  return uses >= repack_from_uses(o, reads);
}

size_t repack_bytes(const TmaOperand& o, int64_t uses, OffLineReads reads) {
  if (!repack_pays(o, uses, reads)) return 0;
  return static_cast<size_t>(round_up(o.rows * round_up(o.cols, kRepackLdMultiple) * kElementBytes, 256));
}

namespace {
// The job copying `o` into `dst` with 128-byte rows; `o` then points at the copy.
RepackJob repack_job(TmaOperand* o, void* dst) {
  RepackJob j;
  j.src = static_cast<const uint16_t*>(o->data);
  j.dst = static_cast<uint16_t*>(dst);
  j.ld_src = o->ld;
  j.ld_dst = round_up(o->cols, kRepackLdMultiple);
  j.rows = o->rows;
  j.cols = o->cols;
  o->data = dst;
  o->ld = j.ld_dst;
  return j;
}
}  // namespace

Status prepare_16bit_operands(TmaOperand* a, void* a_copy, TmaOperand* b, void* b_copy, int* flags,
                              int64_t flag_count, cudaStream_t stream) {
  PrepareArgs p;
  if (a_copy != nullptr) p.jobs[0] = repack_job(a, a_copy);
  if (b_copy != nullptr) p.jobs[1] = repack_job(b, b_copy);
  p.flags = flags;
  p.flag_count = flags != nullptr ? flag_count : 0;
  const int64_t rows = p.jobs[0].rows + p.jobs[1].rows;
  if (rows == 0 && p.flag_count == 0) return Status::ok();
  const int64_t cols = std::max(p.jobs[0].cols, p.jobs[1].cols);
  const int64_t groups = (cols + 7) / 8, per_block = int64_t{kRepackThreads} * kRepackUnroll;
  int64_t blocks_y = rows;
  if (groups > 0 && groups <= kRepackThreads / 2) {  // short rows: several a block
    p.group_stride = static_cast<int>(groups);
    p.rows_per_block = kRepackThreads / p.group_stride;
    blocks_y = (rows + p.rows_per_block - 1) / p.rows_per_block;
  }
  const int64_t blocks_x =
      p.rows_per_block > 1 ? 1 : std::clamp<int64_t>((groups + per_block - 1) / per_block, 1, 1024);
  const dim3 grid(static_cast<unsigned>(blocks_x),
                  static_cast<unsigned>(std::clamp<int64_t>(blocks_y, 1, 65535)));
  prepare_16bit_kernel<<<grid, kRepackThreads, 0, stream>>>(p);
  TILEKIT_CUDA_CHECK_LAUNCH("prepare_16bit_kernel");
  return Status::ok();
}

Status encode_tile_map(CUtensorMap* map, const TmaOperand& o, DType type, int box_inner,
                       int box_outer, bool round_to_tf32) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  TILEKIT_RETURN_IF_ERROR(tensor_map_encoder(&encode));
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(o.cols), static_cast<cuuint64_t>(o.rows)};
  const cuuint64_t pitch[1] = {static_cast<cuuint64_t>(o.ld) * dtype_size(type)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_inner), static_cast<cuuint32_t>(box_outer)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUtensorMapDataType data_type = type == DType::kBF16  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                        : type == DType::kF16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                        : round_to_tf32       ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                                              : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  // Rows off 128-byte lines read faster with 128-byte promotion (docs/hopper.md, "Rows off their
  // lines"); rows on lines are level.
  const CUtensorMapL2promotion promotion = rows_on_lines(o, dtype_size(type))
                                               ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                               : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  const CUresult r = encode(map, data_type,
                            2, const_cast<void*>(o.data), dims, pitch, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, promotion,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
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

// A K-major FP32 operand whose rows start on 32-byte sectors is read in place at any size:
// measured in place against prepared, the tf32 kernels were about level or faster there, slower
// for rows off sectors, and slower for an MN-major A read through registers (a_regs) at 128 ×
// 128. Those are prepared from the 16-bit threshold of uses (docs/hopper.md, "Rows off their
// lines").
bool tf32_reads_in_place_either_major(const TmaOperand& o, bool mn_major, int64_t uses) {
  if (!tma_readable(o, sizeof(float))) return false;
  if (rows_on_lines(o, sizeof(float)) || uses < kRepackMisalignedUses) return true;
  return !mn_major && rows_on_sectors(o, sizeof(float));
}

bool tf32_reads_in_place(const TmaOperand& o, bool mn_major, int64_t uses) {
  return !mn_major && tf32_reads_in_place_either_major(o, mn_major, uses);
}

int64_t tf32_prepared_ld(int64_t k) { return round_up(k, 32); }

size_t tf32_part_bytes(int64_t mn, int64_t k) {
  return static_cast<size_t>(round_up(mn * tf32_prepared_ld(k) * 4, 256));
}

Status prepare_tf32_operand(const TmaOperand& o, bool mn_major, int64_t k, float* big, float* small,
                            cudaStream_t stream) {
  PrepArgs a{static_cast<const float*>(o.data), o.ld, o.rows, o.cols, big, small, tf32_prepared_ld(k), false};
  a.vector = reinterpret_cast<uintptr_t>(o.data) % 16 == 0 && o.ld % 4 == 0;  // ld_out: multiple of 32
  const dim3 block(kPrepThreadsX, kPrepThreadsY);
  const int64_t tiles_r = (o.rows + kPrepTile - 1) / kPrepTile, tiles_c = (o.cols + kPrepTile - 1) / kPrepTile;
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>(tiles_r, INT_MAX)),
                  static_cast<unsigned>(std::min<int64_t>(tiles_c, 65535)));
  if (mn_major)
    prepare_tf32_kernel<true><<<grid, block, 0, stream>>>(a);
  else
    prepare_tf32_kernel<false><<<grid, block, 0, stream>>>(a);
  TILEKIT_CUDA_CHECK_LAUNCH("prepare_tf32_kernel");
  return Status::ok();
}

}  // namespace tilekit::cuda::sm90
