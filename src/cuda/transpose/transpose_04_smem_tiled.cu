// transpose_04_smem_tiled.cu — step 4 of the transpose ladder (the lecture's tile[32][32]).
// Adds:     a 32×32 tile in shared memory: A is read along its rows and B written along its rows,
//           both coalesced; the transpose happens inside shared memory.
// Requires: float32; rows and cols multiples of 32.
// Expect:   ≈ 1.6 TB/s on an H200 (the lecture measured 1643 GB/s): reading a column of
//           tile[32][32] puts all 32 lanes on one bank, a 32-way conflict that serializes every
//           read of the write phase.
#include "cuda/transpose/transpose_smem_tile.cuh"

namespace tilekit::cuda {

namespace {

TransposeKernel transpose_smem_tiled_entry() {
  return smem_tile_transpose_entry<0>("04_smem_tiled", 4,
                                      "tile[32][32], 32x8 threads");
}

}  // namespace

void register_transpose_04_smem_tiled(Registry& r) {
  r.add(transpose_smem_tiled_entry());
}

}  // namespace tilekit::cuda
