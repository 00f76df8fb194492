// gemv.cu — the gemv family: GEMMs whose C has a side of at most 16 elements (a decode step's
// x·Wᵀ, a product with a few columns), in every storage type and mode, every layout and op.
// The problem is seen as rows of X times a streamed W (core/gemv_view.hpp); the FP32 mainloops
// and their slice sums are in mainloops.cuh, the tensor-core one (16-bit inputs, W along k) in
// mainloop_tensor_cores.cuh, the element parts in elements.cuh. Its instance table is below:
// one row per type combination, all rows sharing the launch, which picks the mainloop.
// Requires: C's smaller side ≤ 16 (rows padded up to 1, 2, 4, 8 or 16 in the kernel), k and the
//           longer side below 2^31 − 2^13; any ld, alignment and op.
// Cost:     W's bytes over the copy bandwidth, plus a launch (and a memset of the strip counters
//           when k is sliced).
#include <algorithm>
#include <atomic>
#include <string>

#include "core/gemv_view.hpp"
#include "core/kernel_entry.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/gemv/mainloop_tensor_cores.cuh"
#include "cuda/gemm/gemv/mainloops.cuh"
#include "tilekit/registry.hpp"

namespace tilekit::cuda {
namespace {

using gemv::kThreads;
using gemv::kWarps;

constexpr int kMaxRows = 16;
constexpr int64_t kMaxExtent = (int64_t{1} << 31) - (int64_t{1} << 13);  // p0 + a step stays int

// The rows bucket a view's row count runs in.
int rows_bucket(int64_t rows) { return rows <= 1 ? 1 : rows <= 2 ? 2 : rows <= 4 ? 4 : rows <= 8 ? 8 : 16; }

// The mainloops (mainloops.cuh, mainloop_tensor_cores.cuh), chosen per problem.
enum class Mainloop { kAlongK, kAlongKTensor, kAlongN };

// W's lines start on 16-byte boundaries: along_k reads them in 16-byte pieces.
bool w_lines_aligned(const GemvView& v, size_t element_bytes) {
  return aligned16(v.w) && v.ldw % static_cast<int64_t>(16 / element_bytes) == 0;
}

// 16-bit inputs along k with aligned lines go to the tensor cores.
Mainloop mainloop_for(const GemvView& v, size_t element_bytes, bool w_aligned) {
  if (!v.w_along_k) return Mainloop::kAlongN;
  return element_bytes == 2 && w_aligned ? Mainloop::kAlongKTensor : Mainloop::kAlongK;
}

struct GemvPlan {
  int strips = 1, slices = 1, k_slice = 0;
  int tile = 0;  // floats of one block's tile: the rows it runs × its columns
};

// A block's columns, the rows its tile holds, and k's step for a slice: a whole lane-stride of
// the mainloop's pieces (along_k), or 4 lines a warp (along_n).
struct MainloopShape {
  int columns = 0, rows = 0, step = 0;
};

MainloopShape shape_of(Mainloop m, const GemvView& v, size_t element_bytes) {
  const int bucket = rows_bucket(v.rows);
  switch (m) {
    case Mainloop::kAlongKTensor:
      return {gemv::kTensorColumns, v.rows <= 8 ? 8 : 16, gemv::kTensorStep};
    case Mainloop::kAlongK:
      return {kWarps * gemv::along_k_outputs(bucket), bucket,
              32 * static_cast<int>(16 / element_bytes) * gemv::along_k_depth(bucket)};
    case Mainloop::kAlongN: break;
  }
  return {gemv::kAlongNColumns, bucket, kWarps * 4};
}

// k is sliced over blocks only where the strips leave resident slots empty (`resident`: the
// blocks of the mainloop's kernel an SM holds at once), and then into as many slices as fill
// one wave: a second, partial wave would cost more than the slices' sums.
GemvPlan plan_for(Mainloop m, const GemvView& v, size_t element_bytes, int slots, int requested) {
  GemvPlan s;
  const MainloopShape shape = shape_of(m, v, element_bytes);
  s.strips = static_cast<int>((v.cols + shape.columns - 1) / shape.columns);
  s.tile = shape.rows * shape.columns;
  const int64_t step = shape.step;
  int64_t slices = requested > 0 ? requested : std::max(slots, 1) / s.strips;
  slices = std::max<int64_t>(1, std::min<int64_t>({slices, (v.k + step - 1) / step, 65535}));
  const int64_t per_slice = (v.k + slices - 1) / slices;
  s.k_slice = static_cast<int>((per_slice + step - 1) / step * step);
  s.slices = s.k_slice == 0 ? 1 : static_cast<int>((v.k + s.k_slice - 1) / s.k_slice);  // none empty
  return s;
}

// The workspace: one arrival counter per strip, then the slices' tiles.
struct GemvWorkspace {
  size_t counter_bytes = 0, partial_bytes = 0;
  size_t total() const { return counter_bytes + partial_bytes; }
};

GemvWorkspace workspace_for(const GemvPlan& s) {
  if (s.slices == 1) return {};
  const size_t counters = sizeof(unsigned) * static_cast<size_t>(s.strips);
  return {(counters + 255) / 256 * 256,
          sizeof(float) * static_cast<size_t>(s.slices) * s.strips * static_cast<size_t>(s.tile)};
}

// The blocks of one of the kernels a problem may run that an SM holds at once (the occupancy
// calculator's answer, asked once a kernel), times the SMs: a wave's slots; 1 an SM where the
// runtime cannot say (no GPU, where nothing is launched).
template <typename T, typename Tc, typename Round, int kRows>
int resident_blocks(Mainloop m) {
  static std::atomic<int> known[3] = {};
  std::atomic<int>& cached = known[static_cast<int>(m)];
  if (const int n = cached.load(std::memory_order_relaxed); n > 0) return n;
  int n = 0;
  cudaError_t err = cudaErrorInvalidValue;
  if (m == Mainloop::kAlongK)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &n, gemv::gemv_along_k_kernel<T, Tc, Round, kRows>, kThreads, 0);
  else if (m == Mainloop::kAlongN)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &n, gemv::gemv_along_n_kernel<T, Tc, Round, kRows>, kThreads, 0);
  else if constexpr (sizeof(T) == 2 && kRows >= 8)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &n, gemv::gemv_along_k_tensor_kernel<T, Tc, kRows>, gemv::kTensorThreads, 0);
  if (err != cudaSuccess || n < 1) {
    (void)cudaGetLastError();  // not sticky: clear it
    return 1;
  }
  cached.store(n, std::memory_order_relaxed);
  return n;
}

// The rows a mainloop runs for v: the tensor-core one 8 or 16 (its column tiles), the others
// rows_bucket's.
int run_rows(Mainloop m, const GemvView& v) {
  return m == Mainloop::kAlongKTensor ? (v.rows <= 8 ? 8 : 16) : rows_bucket(v.rows);
}

template <typename T, typename Tc, typename Round>
int wave_slots(Mainloop m, const GemvView& v, int sms) {
  int per_sm = 1;
  switch (run_rows(m, v)) {
    case 1: per_sm = resident_blocks<T, Tc, Round, 1>(m); break;
    case 2: per_sm = resident_blocks<T, Tc, Round, 2>(m); break;
    case 4: per_sm = resident_blocks<T, Tc, Round, 4>(m); break;
    case 8: per_sm = resident_blocks<T, Tc, Round, 8>(m); break;
    default: per_sm = resident_blocks<T, Tc, Round, 16>(m); break;
  }
  return per_sm * std::max(sms, 1);
}

// What the launch will need, whichever mainloop the operands' alignment leads it to.
template <typename T, typename Tc, typename Round>
size_t workspace_typed(const GemvView& v, int sms, int requested) {
  size_t most = 0;
  for (bool aligned : {false, true}) {
    const Mainloop m = mainloop_for(v, sizeof(T), aligned);
    most = std::max(most, workspace_for(plan_for(m, v, sizeof(T), wave_slots<T, Tc, Round>(m, v, sms),
                                                 requested))
                              .total());
  }
  return most;
}

// The SMs the launch may use: the device's, or fewer under Context::sm_limit (as the workspace
// was sized for, dispatch.hpp's prepare_kernel).
int sm_count(const Context& ctx) {
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx.device) != cudaSuccess)
    return 1;
  return ctx.sm_limit > 0 ? std::min(sms, ctx.sm_limit) : sms;
}

template <typename T, typename Tc, typename Round, int kRows>
void launch_bucket(const gemv::Args<T, Tc>& g, const GemvView& v, Mainloop m, const GemvPlan& s,
                   cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(s.strips), static_cast<unsigned>(s.slices));
  constexpr int64_t kV = 16 / sizeof(T);
  const bool vec_x = v.x_step == 1 && aligned16(v.x) && (v.rows == 1 || v.x_row % kV == 0);
  switch (m) {
    case Mainloop::kAlongKTensor:
      if constexpr (sizeof(T) == 2 && kRows >= 8)
        gemv::gemv_along_k_tensor_kernel<T, Tc, kRows>
            <<<grid, gemv::kTensorThreads, 0, stream>>>(g, vec_x);
      break;
    case Mainloop::kAlongK:
      gemv::gemv_along_k_kernel<T, Tc, Round, kRows>
          <<<grid, kThreads, 0, stream>>>(g, w_lines_aligned(v, sizeof(T)), vec_x);
      break;
    case Mainloop::kAlongN: {
      const size_t piece = gemv::kAlongNColumnsPerLane * sizeof(T);
      const bool vec_w = reinterpret_cast<uintptr_t>(v.w) % piece == 0 &&
                         v.ldw % gemv::kAlongNColumnsPerLane == 0;
      gemv::gemv_along_n_kernel<T, Tc, Round, kRows><<<grid, kThreads, 0, stream>>>(g, vec_w);
      break;
    }
  }
}

const char* kernel_name(Mainloop m) {
  switch (m) {
    case Mainloop::kAlongKTensor: return "gemv_along_k_tensor_kernel";
    case Mainloop::kAlongK: return "gemv_along_k_kernel";
    case Mainloop::kAlongN: break;
  }
  return "gemv_along_n_kernel";
}

template <typename T, typename Tc, typename Round>
Status launch_typed(const GemvView& v, const Context& ctx, Workspace ws, int requested_split) {
  const Mainloop m = mainloop_for(v, sizeof(T), w_lines_aligned(v, sizeof(T)));
  const GemvPlan s =
      plan_for(m, v, sizeof(T), wave_slots<T, Tc, Round>(m, v, sm_count(ctx)), requested_split);
  const GemvWorkspace layout = workspace_for(s);
  gemv::Args<T, Tc> g;
  g.rows = static_cast<int>(v.rows), g.cols = static_cast<int>(v.cols), g.k = static_cast<int>(v.k);
  g.alpha = v.alpha, g.beta = v.beta;
  g.x = static_cast<const T*>(v.x), g.x_row = v.x_row, g.x_step = v.x_step;
  g.w = static_cast<const T*>(v.w), g.ldw = v.ldw;
  g.d = static_cast<Tc*>(v.d), g.d_row = v.d_row, g.d_col = v.d_col;
  g.k_slice = s.k_slice;
  if (s.slices > 1) {
    if (ws.bytes < layout.total())
      return Status(StatusCode::kInternal, "gemv: workspace of " + std::to_string(ws.bytes) +
                                               " bytes, " + std::to_string(layout.total()) +
                                               " needed");
    g.arrivals = static_cast<unsigned*>(ws.data);
    g.partials = reinterpret_cast<float*>(static_cast<char*>(ws.data) + layout.counter_bytes);
    TILEKIT_CUDA_TRY(cudaMemsetAsync(g.arrivals, 0, layout.counter_bytes, ctx.stream));
  }
  switch (run_rows(m, v)) {
    case 1: launch_bucket<T, Tc, Round, 1>(g, v, m, s, ctx.stream); break;
    case 2: launch_bucket<T, Tc, Round, 2>(g, v, m, s, ctx.stream); break;
    case 4: launch_bucket<T, Tc, Round, 4>(g, v, m, s, ctx.stream); break;
    case 8: launch_bucket<T, Tc, Round, 8>(g, v, m, s, ctx.stream); break;
    default: launch_bucket<T, Tc, Round, 16>(g, v, m, s, ctx.stream); break;
  }
  const cudaError_t err = cudaGetLastError();  // configuration errors surface here
  if (err != cudaSuccess)
    return error_status(err, (std::string("launch of ") + kernel_name(m)).c_str(), __FILE__, __LINE__);
  return Status::ok();
}

Status check_gemv(const GemmProblem& p) {
  GemvView v;
  TILEKIT_RETURN_IF_ERROR(gemv_view(p, kMaxRows, &v));
  if (v.k >= kMaxExtent || v.cols >= kMaxExtent)
    return not_supported("k and C's longer side must be below 2^31 - 2^13; they are " +
                         std::to_string(v.k) + " and " + std::to_string(v.cols));
  return Status::ok();
}

// ---- the instance table: one row per type combination ----
enum class Stored { kF32, kBF16, kF16 };
struct GemvInstance {
  GemmTypes types;
  Stored stored = Stored::kF32;
  bool c_bf16 = false;
  bool round_tf32 = false;  // the tf32 mode's input rounding
};

constexpr GemmTypes types_of(DType in, DType c, Compute compute) {
  GemmTypes t;
  t.a = in, t.b = in, t.c = c, t.compute = compute;
  return t;
}

// f32 and f32_3xtf32 multiply the values as stored in FP32 (3xTF32 promises FP32 accuracy, and
// FP32 FMAs give it); tf32 rounds each input to TF32 first, as the mode says.
constexpr GemvInstance kGemvInstances[] = {
    {types_of(DType::kF32, DType::kF32, Compute::kF32), Stored::kF32, false, false},
    {types_of(DType::kF32, DType::kF32, Compute::kF32x3TF32), Stored::kF32, false, false},
    {types_of(DType::kF32, DType::kF32, Compute::kTF32), Stored::kF32, false, true},
    {types_of(DType::kBF16, DType::kF32, Compute::kBF16), Stored::kBF16, false, false},
    {types_of(DType::kBF16, DType::kBF16, Compute::kBF16), Stored::kBF16, true, false},
    {types_of(DType::kF16, DType::kF32, Compute::kBF16), Stored::kF16, false, false},
    {types_of(DType::kF16, DType::kBF16, Compute::kBF16), Stored::kF16, true, false},
};

// A row's launch and workspace size, of its element types and input rounding.
struct Typed {
  Status (*launch)(const GemvView&, const Context&, Workspace, int) = nullptr;
  size_t (*workspace)(const GemvView&, int, int) = nullptr;
};

template <typename T, typename Tc, typename Round>
constexpr Typed typed() {
  return {launch_typed<T, Tc, Round>, workspace_typed<T, Tc, Round>};
}

Typed typed_of(const GemvInstance& row) {
  switch (row.stored) {
    case Stored::kF32:
      return row.round_tf32 ? typed<float, float, gemv::ToTf32>()
                            : typed<float, float, gemv::Exact>();
    case Stored::kBF16:
      return row.c_bf16 ? typed<__nv_bfloat16, __nv_bfloat16, gemv::Exact>()
                        : typed<__nv_bfloat16, float, gemv::Exact>();
    case Stored::kF16:
      return row.c_bf16 ? typed<__half, __nv_bfloat16, gemv::Exact>()
                        : typed<__half, float, gemv::Exact>();
  }
  return {};
}

GemmKernel make_gemv_entry(const GemvInstance& row) {
  EntrySpec s = cuda_spec("gemv", "gemv", 0);
  s.types = row.types;
  s.suffix = "rows16";
  s.tiling.block_m = kMaxRows;
  s.tiling.threads = kThreads;
  s.tiling.split_k = -1;  // chosen per shape, GemmProblem::split_k honoured
  s.tile = "C's side <= 16 x a strip of outputs, W streamed once, k sliced";
  s.requirements = "C with a side of at most 16 elements; any other size, ld, alignment and op";
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) { return check_gemv(p); };
  const Typed t = typed_of(row);
  k.workspace_bytes = [t](const GemmProblem& p, const DeviceInfo* d) -> size_t {
    GemvView v;
    if (!gemv_view(p, kMaxRows, &v).is_ok()) return 0;
    return t.workspace(v, d != nullptr ? d->sm_count : 1, p.split_k);
  };
  k.launch = [t](const GemmProblem& p, const Context& ctx, Workspace ws) {
    GemvView v;
    TILEKIT_RETURN_IF_ERROR(gemv_view(p, kMaxRows, &v));
    return t.launch(v, ctx, ws, p.split_k);
  };
  k.resources = [](KernelResources* out) {
    return kernel_resources(
        reinterpret_cast<const void*>(&gemv::gemv_along_k_kernel<float, float, gemv::Exact, 16>),
        kThreads, 0, out);
  };
  return k;
}

}  // namespace

void register_gemm_gemv(Registry& r) {
  for (const GemvInstance& row : kGemvInstances) r.add(make_gemv_entry(row));
}

}  // namespace tilekit::cuda
