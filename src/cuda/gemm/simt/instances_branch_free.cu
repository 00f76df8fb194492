// instances_branch_free.cu — the rows of the instance table (instances.cuh) on the cp.async ring
// with branch-free edge loads.
#include "cuda/gemm/simt/instances.cuh"
#include "cuda/gemm/simt/loads_branch_free.cuh"

namespace tilekit::cuda::simt {

void make_branch_free_rows(std::vector<IndexedEntry>* out) {
  add_rows_of<Mainloop::kBranchFree>(out, [](auto row_index) {
    constexpr size_t row = decltype(row_index)::value;
    return make_pipelined_entry<PipelinePolicy<ShapeOf<row>, BranchFreeLoads>, LayoutOf<row>,
                                RasterOf<row>>(instance_spec(kInstances[row]));
  });
}

}  // namespace tilekit::cuda::simt
