// instances_cp_async.cu — the rows of the instance table (instances.cuh) on the edge-branch
// cp.async ring: one tile per block in either order and layout, and split-K.
#include "cuda/gemm/simt/instances.cuh"
#include "cuda/gemm/simt/mainloop_cp_async.cuh"
#include "cuda/gemm/simt/schedule_split_k.cuh"

namespace tilekit::cuda::simt {

void make_cp_async_rows(std::vector<IndexedEntry>* out) {
  add_rows_of<Mainloop::kCpAsync>(out, [](auto row_index) {
    constexpr size_t row = decltype(row_index)::value;
    using P = PipelinePolicy<ShapeOf<row>>;
    const EntrySpec s = instance_spec(kInstances[row]);
    if constexpr (kInstances[row].scheduler == Scheduler::kSplitK)
      return make_split_k_entry<P, LayoutOf<row>, RasterOf<row>>(s);
    else
      return make_pipelined_entry<P, LayoutOf<row>, RasterOf<row>>(s);
  });
}

}  // namespace tilekit::cuda::simt
