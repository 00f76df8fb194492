// hopper_ptx.cuh — the sm_90a instructions the Hopper GEMM family uses, each behind one small
// function: mbarriers and TMA loads through CCCL's <cuda/ptx>, and what CCCL does not wrap
// (wgmma's fences and groups, shared-memory matrix descriptors, setmaxnreg) as inline PTX.
// Device-only; compiled for sm_90a (CMakeLists.txt's TILEKIT_CUDA_SM90A_SOURCES).
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: nothing here calls the driver)
#include <cuda/ptx>

#include <cstdint>

namespace tilekit::cuda::sm90 {

// ---- mbarriers: the producer/consumer handshake of the shared-memory ring ------------------

__device__ __forceinline__ void barrier_init(uint64_t* bar, uint32_t arrivals) {
  ::cuda::ptx::mbarrier_init(bar, arrivals);
}

// Blocks until the phase of parity `parity` has completed (a fresh barrier counts its phase
// "before 0", parity 1, as completed: that is how the producer's first pass over empty
// stages goes through).
__device__ __forceinline__ void barrier_wait(uint64_t* bar, uint32_t parity) {
  while (!::cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

__device__ __forceinline__ void barrier_arrive(uint64_t* bar) {
  (void)::cuda::ptx::mbarrier_arrive(bar);
}

// The producer's arrival: it also tells the barrier how many bytes the TMA loads will deliver,
// so the phase completes only when every byte has landed.
__device__ __forceinline__ void barrier_arrive_expect_bytes(uint64_t* bar, uint32_t bytes) {
  (void)::cuda::ptx::mbarrier_arrive_expect_tx(::cuda::ptx::sem_release, ::cuda::ptx::scope_cta,
                                               ::cuda::ptx::space_shared, bar, bytes);
}

// ---- TMA ------------------------------------------------------------------------------------

// One box of a 2-D tensor map into shared memory at `dst`, completing on `bar`. `inner` is the
// coordinate along the contiguous dimension. Out-of-bounds elements arrive as zeros.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int inner, int outer,
                                            uint64_t* bar) {
  const int32_t coords[2] = {inner, outer};
  ::cuda::ptx::cp_async_bulk_tensor(::cuda::ptx::space_cluster, ::cuda::ptx::space_global, dst, map,
                                    coords, bar);
}

// The same box delivered to the shared memory of every block of the cluster in `cta_mask`, at
// the same offset, each completing on its own mbarrier at `bar`'s offset (clusters: the two
// blocks of a cluster share B's k-tiles, each block loading one half for both).
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map, int inner,
                                                      int outer, uint64_t* bar, uint16_t cta_mask) {
  const int32_t coords[2] = {inner, outer};
  ::cuda::ptx::cp_async_bulk_tensor(::cuda::ptx::space_cluster, ::cuda::ptx::space_global, dst, map,
                                    coords, bar, cta_mask);
}

// ---- TMA stores -----------------------------------------------------------------------------

// Makes this thread's ordinary shared-memory writes visible to the async proxy (TMA) before a
// TMA store reads them; every writing thread fences, then the warp syncs, then one lane stores.
__device__ __forceinline__ void fence_shared_for_tma() {
  ::cuda::ptx::fence_proxy_async(::cuda::ptx::space_shared);
}

// One box of shared memory at `src` to the 2-D tensor map at (inner, outer). Elements of the
// box outside the tensor are not written. Completes asynchronously, in this thread's current
// bulk group (tma_store_commit closes it).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int inner, int outer) {
  const int32_t coords[2] = {inner, outer};
  ::cuda::ptx::cp_async_bulk_tensor(::cuda::ptx::space_global, ::cuda::ptx::space_shared, map, coords, src);
}

__device__ __forceinline__ void tma_store_commit() { ::cuda::ptx::cp_async_bulk_commit_group(); }

// Waits until at most kPending of this thread's committed store groups still read shared memory
// (their source may be overwritten after this).
template <int kPending>
__device__ __forceinline__ void tma_store_wait_read() {
  ::cuda::ptx::cp_async_bulk_wait_group_read(::cuda::ptx::n32_t<kPending>{});
}

// Waits until every committed store group of this thread has finished writing global memory.
__device__ __forceinline__ void tma_store_wait_all() {
  ::cuda::ptx::cp_async_bulk_wait_group(::cuda::ptx::n32_t<0>{});
}

// ---- thread-block clusters --------------------------------------------------------------------

__device__ __forceinline__ uint32_t cluster_rank() {
  return ::cuda::ptx::get_sreg_cluster_ctarank();
}

// Every thread of every block of the cluster: arrive (release), then wait (acquire). Not the
// `.aligned` form: the warps' roles diverge before the last call.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\n"
               "barrier.cluster.wait.acquire;\n" ::: "memory");
}

// Makes this thread's mbarrier_init visible to the other blocks of the cluster (before they
// arrive on the barriers or their multicast loads complete on them).
__device__ __forceinline__ void fence_barrier_init_for_cluster() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// An arrival on the mbarrier at `bar`'s offset in the shared memory of cluster block `cta`
// (this block included). The default (CTA-scope) semantics: the arrival only says that this
// warp's wgmma have finished reading the stage. `.release.cluster` made every arrival a
// cluster-wide memory fence, and the consumers stalled on it (docs/hopper.md, "Producer").
__device__ __forceinline__ void barrier_arrive_in_block(uint64_t* bar, uint32_t cta) {
  const auto local = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  uint32_t remote = 0;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(local), "r"(cta));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote) : "memory");
}

// ---- wgmma ----------------------------------------------------------------------------------

// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format") for a tile laid out
// in 128-byte-swizzled rows, the layout TMA writes with CU_TENSOR_MAP_SWIZZLE_128B. The tile
// base must be 1024-byte aligned (the swizzle pattern repeats every 8 rows of 128 bytes); an
// offset inside a row (the next k16 step of a K-major tile) is added to `tile` directly.
//   K-major:  rows of the M (or N) dimension, 8-row groups `stride_bytes` (1024) apart.
//   MN-major: rows of the K dimension, 8-k groups `stride_bytes` (1024) apart, 64-element
//             chunks of M (or N) `leading_bytes` apart.
__device__ __forceinline__ uint64_t smem_descriptor(const void* tile, uint32_t leading_bytes,
                                                    uint32_t stride_bytes) {
  const auto addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((addr & 0x3FFFF) >> 4);
  desc |= static_cast<uint64_t>((leading_bytes & 0x3FFFF) >> 4) << 16;
  desc |= static_cast<uint64_t>((stride_bytes & 0x3FFFF) >> 4) << 32;
  desc |= 1ull << 62;  // layout type 1: 128-byte swizzle
  return desc;
}

// Orders this warpgroup's register and shared-memory accesses before the wgmma that follow.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
// Closes the group of wgmma issued since the last commit.
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Waits until at most `kPending` committed groups are still running.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// Keeps the compiler from moving accesses to accumulator registers across an asynchronous wgmma
// (the asm claims to read and write each of them).
template <int kCount>
__device__ __forceinline__ void fence_accumulators(float (&acc)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) asm volatile("" : "+f"(acc[i])::"memory");
}

// ---- register reallocation between warpgroups -------------------------------------------------

template <int kRegisters>
__device__ __forceinline__ void registers_grow() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ __forceinline__ void registers_shrink() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}

}  // namespace tilekit::cuda::sm90
