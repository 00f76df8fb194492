// instances_packed.cu — the rows of the instance table (instances.cuh) on packed operands: split-K,
// stream-K and the hybrid of whole rounds and stream-K.
#include "cuda/gemm/simt/instances.cuh"
#include "cuda/gemm/simt/mainloop_packed.cuh"
#include "cuda/gemm/simt/schedule_stream_k.cuh"

namespace tilekit::cuda::simt {

void make_packed_rows(std::vector<IndexedEntry>* out) {
  add_rows_of<Mainloop::kPacked>(out, [](auto row_index) {
    constexpr size_t row = decltype(row_index)::value;
    using Layout = LayoutOf<row>;
    using Raster = RasterOf<row>;
    const EntrySpec s = instance_spec(kInstances[row]);
    constexpr Scheduler kScheduler = kInstances[row].scheduler;
    if constexpr (kScheduler == Scheduler::kSplitK)
      return make_packed_entry<PipelinePolicy<ShapeOf<row>, PackedLoads>, Layout, Raster>(s);
    else if constexpr (kScheduler == Scheduler::kStreamK)
      return make_stream_k_entry<PipelinePolicy<ShapeOf<row>, StreamKLoads>, Layout, Raster>(s);
    else
      return make_hybrid_entry<PipelinePolicy<ShapeOf<row>, HybridLoads>, Layout, Raster>(s);
  });
}

}  // namespace tilekit::cuda::simt
