// instances_straight.cu — the rows of the instance table (instances.cuh) on the straight loop.
#include "cuda/gemm/simt/instances.cuh"
#include "cuda/gemm/simt/mainloop_straight.cuh"
#include "cuda/gemm/simt/schedule_split_k.cuh"

namespace tilekit::cuda::simt {

void make_straight_rows(std::vector<IndexedEntry>* out) {
  add_rows_of<Mainloop::kStraight>(out, [](auto row_index) {
    constexpr size_t row = decltype(row_index)::value;
    return make_split_k_entry<PipelinePolicy<ShapeOf<row>, StraightLoads>, LayoutOf<row>,
                              RasterOf<row>>(instance_spec(kInstances[row]));
  });
}

}  // namespace tilekit::cuda::simt
