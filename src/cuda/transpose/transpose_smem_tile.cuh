// transpose_smem_tile.cuh — the shared-memory tile transpose of steps 04 and 05 (internal).
// A 32×8 block stages a 32×32 tile of A in shared memory with coalesced reads along A's rows,
// synchronizes, then writes the tile's columns as coalesced rows of B. kPad extra floats per
// tile row: 0 in step 04 (reading a tile column hits one bank 32 times), 1 in step 05 (column
// element i lands in bank i: conflict-free; `tilekit banks --shape 32x32 --pad 1 --index x,y`).
#pragma once

#include "cuda/transpose/transpose_common.cuh"

namespace tilekit::cuda {

constexpr int kSmemTile = 32, kSmemTileRows = 8;

template <int kPad>
__global__ void smem_tile_transpose_kernel(TransposeArgs t) {
  __shared__ float s_tile[kSmemTile][kSmemTile + kPad];
  const int x = threadIdx.x, y = threadIdx.y;
  const int r0 = blockIdx.y * kSmemTile, c0 = blockIdx.x * kSmemTile;
#pragma unroll
  for (int j = 0; j < kSmemTile; j += kSmemTileRows)
    s_tile[y + j][x] = t.a[(r0 + y + j) * t.lda + c0 + x];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kSmemTile; j += kSmemTileRows)
    t.b[(c0 + y + j) * t.ldb + r0 + x] = s_tile[x][y + j];
}

template <int kPad>
Status launch_smem_tile_transpose(const TransposeProblem& p, const Context& ctx, Workspace) {
  TransposeArgs t;
  TILEKIT_RETURN_IF_ERROR(to_transpose_args(p, &t));
  const dim3 grid(static_cast<unsigned>(t.cols / kSmemTile), static_cast<unsigned>(t.rows / kSmemTile));
  smem_tile_transpose_kernel<kPad><<<grid, dim3(kSmemTile, kSmemTileRows), 0, ctx.stream>>>(t);
  TILEKIT_CUDA_CHECK_LAUNCH("smem_tile_transpose_kernel");
  return Status::ok();
}

template <int kPad>
TransposeKernel smem_tile_transpose_entry(const char* name, int step, const char* tile) {
  EntrySpec s = cuda_spec("ladder", name, step);
  s.suffix = std::to_string(kSmemTile) + "x" + std::to_string(kSmemTileRows);
  s.tile = tile;
  s.requirements = "rows and cols multiples of 32";
  s.auto_rank = step;
  auto k = make_entry<TransposeProblem>(s);
  k.can_implement = [](const TransposeProblem& p, const DeviceInfo*) -> Status {
    TILEKIT_RETURN_IF_ERROR(needs_multiple(p, kSmemTile));
    return grid_fits(p.rows / kSmemTile);
  };
  k.launch = launch_smem_tile_transpose<kPad>;
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&smem_tile_transpose_kernel<kPad>),
                            kSmemTile * kSmemTileRows, 0, out);
  };
  return k;
}

}  // namespace tilekit::cuda
