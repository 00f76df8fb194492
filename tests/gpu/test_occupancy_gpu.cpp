// Occupancy on the GPU: the architecture table against the live device, and tilekit's blocks per
// SM against the CUDA runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor for every
// registered CUDA kernel, at several block sizes and dynamic shared-memory amounts.
#include <gtest/gtest.h>

#include "support/gpu_gate.hpp"
#include "tilekit/occupancy.hpp"
#include "tilekit/tilekit.hpp"

#if TILEKIT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace tilekit {
namespace {

TEST(OccupancyGpu, TableRowMatchesTheLiveDevice) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  DeviceInfo d;
  ASSERT_TRUE(query_device(0, &d).is_ok());
  ArchProperties row;
  const std::string name = "sm_" + std::to_string(d.sm_version());
  ASSERT_TRUE(find_architecture(name, &row).is_ok()) << name << " is missing from the table";
  EXPECT_EQ(row.max_threads_per_sm, d.max_threads_per_sm);
  EXPECT_EQ(row.max_blocks_per_sm, d.max_blocks_per_sm);
  EXPECT_EQ(row.regs_per_sm, d.regs_per_sm);
  EXPECT_EQ(row.regs_per_block, d.regs_per_block);
  EXPECT_EQ(row.max_threads_per_block, d.max_threads_per_block);
  EXPECT_EQ(row.smem_per_sm, d.smem_per_sm_bytes);
  EXPECT_EQ(row.smem_per_block, d.smem_per_block_bytes);
  EXPECT_EQ(row.smem_per_block_optin, d.smem_per_block_optin_bytes);
  EXPECT_EQ(row.reserved_smem_per_block, d.reserved_smem_per_block_bytes);
  // The SM count is a device's, not an architecture's: recorded, not required to match.
  RecordProperty("table_sm_count", row.sm_count);
  RecordProperty("device_sm_count", d.sm_count);
}

TEST(OccupancyGpu, EveryKernelAgreesWithTheRuntimeOccupancyApi) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
#if TILEKIT_WITH_CUDA
  DeviceInfo d;
  ASSERT_TRUE(query_device(0, &d).is_ok());
  const ArchProperties arch = architecture_of(d);
  int checked = 0;
  for (const auto& k : Registry::instance().gemm_kernels()) {
    if (k.info.backend != Backend::kCuda || !k.resources) continue;
    KernelResources r;
    ASSERT_TRUE(k.resources(&r).is_ok()) << k.info.id;
    ASSERT_NE(r.function, nullptr) << k.info.id;
    for (int block : {32, 64, 96, 128, 256, 512, 1024}) {
      if (block > r.max_threads_per_block) continue;
      for (size_t dyn : {size_t{0}, size_t{4096}, size_t{16384}, size_t{32768}}) {
        if (r.static_smem_bytes + dyn > d.smem_per_block_bytes) continue;  // no opt-in here
        int runtime_blocks = -1;
        ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtime_blocks, r.function,
                                                                block, dyn),
                  cudaSuccess);
        OccupancyQuery q{block, r.registers_per_thread, r.static_smem_bytes, dyn};
        OccupancyResult ours;
        ASSERT_TRUE(compute_occupancy(arch, q, &ours).is_ok());
        EXPECT_EQ(ours.blocks_per_sm, runtime_blocks)
            << k.info.id << ": block " << block << ", dynamic smem " << dyn << ", "
            << r.registers_per_thread << " regs, " << r.static_smem_bytes << " B static";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
  RecordProperty("configurations_checked", checked);
#endif
}

}  // namespace
}  // namespace tilekit
