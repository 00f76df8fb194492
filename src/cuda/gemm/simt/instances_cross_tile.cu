// instances_cross_tile.cu — the rows of the instance table (instances.cuh) on the cross-tile loop.
#include "cuda/gemm/simt/instances.cuh"
#include "cuda/gemm/simt/mainloop_cross_tile.cuh"
#include "cuda/gemm/simt/schedule_split_k.cuh"

namespace tilekit::cuda::simt {

void make_cross_tile_rows(std::vector<IndexedEntry>* out) {
  add_rows_of<Mainloop::kCrossTile>(out, [](auto row_index) {
    constexpr size_t row = decltype(row_index)::value;
    return make_split_k_entry<PipelinePolicy<ShapeOf<row>, CrossTileLoads>, LayoutOf<row>,
                              RasterOf<row>>(instance_spec(kInstances[row]));
  });
}

}  // namespace tilekit::cuda::simt
