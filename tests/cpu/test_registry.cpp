// The registry: ids, globs, and the promises every registered kernel makes.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

#include "tilekit/registry.hpp"

namespace tilekit {
namespace {

TEST(Glob, Basics) {
  EXPECT_TRUE(glob_match("*", "gemm.cpu.reference.f32"));
  EXPECT_TRUE(glob_match("gemm.cuda.cublas*", "gemm.cuda.cublas.f32"));
  EXPECT_TRUE(glob_match("gemm.cuda.cublas*", "gemm.cuda.cublas_default.f32"));
  EXPECT_FALSE(glob_match("gemm.cuda.cublas*", "gemm.cpu.openblas.f32"));
  EXPECT_TRUE(glob_match("gemm.cuda.0*", "gemm.cuda.05_register_blocked.f32.64x64x16_t4x4"));
  EXPECT_TRUE(glob_match("gemm.*.f32", "gemm.cpu.reference.f32"));
  EXPECT_TRUE(glob_match("gemm.cpu.?????????.f32", "gemm.cpu.reference.f32"));
  EXPECT_TRUE(glob_match("gemm.cuda.0[1-3]*", "gemm.cuda.02_smem_tiled.f32.16"));
  EXPECT_FALSE(glob_match("gemm.cuda.0[1-3]*", "gemm.cuda.05_register_blocked.f32"));
  EXPECT_TRUE(glob_match("gemm.cuda.0[!5]*", "gemm.cuda.02_smem_tiled.f32"));
  EXPECT_FALSE(glob_match("gemm", "gemm.cpu"));
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_FALSE(glob_match("", "x"));
  EXPECT_TRUE(glob_match("a*b*c", "a__b__c"));
  EXPECT_FALSE(glob_match("a*b*c", "a__b__"));
}

TEST(Registry, CpuKernelsArePresent) {
  const Registry& r = Registry::instance();
  ASSERT_NE(r.find_gemm("gemm.cpu.reference.f32"), nullptr);
  ASSERT_NE(r.find_gemm("gemm.cpu.openblas.f32"), nullptr);
  EXPECT_FALSE(r.match_gemm("gemm.cpu.blocked.f32.*").empty());
  EXPECT_TRUE(r.find_gemm("gemm.cpu.reference.f32")->info.is_reference);
  EXPECT_TRUE(r.find_gemm("gemm.cpu.openblas.f32")->info.is_baseline);
}

TEST(Registry, CudaBaselinesPresentExactlyWhenBuiltWithCuda) {
  const Registry& r = Registry::instance();
  EXPECT_EQ(r.find_gemm("gemm.cuda.cublas.f32") != nullptr, built_with_cuda());
  EXPECT_EQ(r.find_gemm("gemm.cuda.cublas_default.f32") != nullptr, built_with_cuda());
  // The yardsticks of the tensor-core modes: cuBLAS BF16, FP16 and TF32.
  for (const char* id :
       {"gemm.cuda.cublas.bf16", "gemm.cuda.cublas.f16", "gemm.cuda.cublas.f32_tf32"})
    EXPECT_EQ(r.find_gemm(id) != nullptr, built_with_cuda()) << id;
  if (const GemmKernel* tf32 = r.find_gemm("gemm.cuda.cublas.f32_tf32")) {
    EXPECT_EQ(tf32->info.types.compute, Compute::kTF32);
    EXPECT_EQ(tf32->info.input_rounding, InputRounding::kFaithful);  // cuBLAS's own conversion
  }
}

// The verification bound widens for a kernel that declares faithful input rounding; only a
// vendor kernel, whose conversion tilekit does not control, may. tilekit's own kernels (the
// Hopper family included, the moment it is registered) round to nearest as the mode says.
TEST(Registry, OnlyVendorKernelsDeclareFaithfulInputRounding) {
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.role != KernelRole::kVendor)
      EXPECT_EQ(k.info.input_rounding, InputRounding::kNearest) << k.info.id;
}

// `tilekit list` and tilekit.kernels() show input_rounding where the mode rounds FP32 inputs
// (tf32, 3xtf32, f32 stored in bf16 mode), and "-" / None elsewhere, where it means nothing.
TEST(Registry, RoundsInputsWhereTheModeRoundsFp32InputsOnly) {
  const Registry& r = Registry::instance();
  for (const char* id : {"gemm.cpu.reference.f32_tf32", "gemm.cpu.reference.f32_3xtf32",
                         "gemm.cpu.reference.f32_bf16"}) {
    const GemmKernel* k = r.find_gemm(id);
    ASSERT_NE(k, nullptr) << id;
    EXPECT_TRUE(rounds_inputs(k->info)) << id;
  }
  for (const char* id : {"gemm.cpu.reference.f32", "gemm.cpu.reference.bf16",
                         "gemm.cpu.reference.f16_cbf16", "transpose.cpu.reference.f32"}) {
    const auto entries = r.match_any(id);
    ASSERT_EQ(entries.size(), 1u) << id;
    EXPECT_FALSE(rounds_inputs(*entries[0].info)) << id;
  }
}

TEST(Registry, EveryKernelIsCompleteAndUniquelyNamed) {
  std::set<std::string> ids;
  for (const auto& k : Registry::instance().gemm_kernels()) {
    EXPECT_TRUE(ids.insert(k.info.id).second) << "duplicate id " << k.info.id;
    EXPECT_EQ(k.info.op, "gemm") << k.info.id;
    EXPECT_EQ(k.info.dtype, types_tag(k.info.types)) << k.info.id;
    EXPECT_TRUE(validate(k.info.types).is_ok()) << k.info.id;
    EXPECT_EQ(k.info.is_baseline, k.info.role == KernelRole::kVendor) << k.info.id;
    EXPECT_EQ(k.info.id.rfind(std::string("gemm.") + backend_name(k.info.backend) + ".", 0), 0u)
        << k.info.id << " should start with gemm.<backend>.";
    EXPECT_TRUE(static_cast<bool>(k.can_implement)) << k.info.id;
    EXPECT_TRUE(static_cast<bool>(k.launch)) << k.info.id;
    EXPECT_FALSE(k.info.requirements.empty()) << k.info.id;
  }
}

TEST(Registry, EveryComputeModeHasACpuReference) {
  const Registry& r = Registry::instance();
  for (const char* id : {"gemm.cpu.reference.f32", "gemm.cpu.reference.f32_tf32",
                         "gemm.cpu.reference.f32_3xtf32", "gemm.cpu.reference.f32_bf16",
                         "gemm.cpu.reference.bf16", "gemm.cpu.reference.f16",
                         "gemm.cpu.reference.bf16_cbf16"}) {
    const GemmKernel* k = r.find_gemm(id);
    ASSERT_NE(k, nullptr) << id;
    EXPECT_EQ(k->info.role, KernelRole::kReference) << id;
  }
}

TEST(Registry, TileDescriptionsAreStructured) {
  for (const auto& k : Registry::instance().gemm_kernels()) {
    if (k.info.family != "ladder" && k.info.family != "simt" && k.info.family != "cpu") continue;
    EXPECT_TRUE(k.info.tiling.block_m > 0 || k.info.tiling.chosen_at_run_time) << k.info.id;
  }
}

// The tuner measures a split only where the kernel runs it as asked: the split_k kernels clamp to
// 64 slices, so 128 would run 64 again.
TEST(Registry, RunsSplitAsAskedUpToTheKernelsMaximum) {
  KernelInfo fixed;  // split_k 0: takes no run-time split
  EXPECT_FALSE(runs_split_as_asked(fixed, 2));
  KernelInfo capped;
  capped.tiling.split_k = -1;
  capped.tiling.max_split_k = 64;
  EXPECT_TRUE(runs_split_as_asked(capped, 2));
  EXPECT_TRUE(runs_split_as_asked(capped, 64));
  EXPECT_FALSE(runs_split_as_asked(capped, 128));
  KernelInfo open;
  open.tiling.split_k = -1;  // max_split_k 0: no limit of its own
  EXPECT_TRUE(runs_split_as_asked(open, 128));
}

// Every kernel that takes a run-time split and clamps it says where (simt split_k kernels: 64).
TEST(Registry, SplitKStepsDeclareTheirMaximumSplit) {
  for (const auto& k : Registry::instance().gemm_kernels()) {
    const std::string& id = k.info.id;
    const bool split_k = k.info.family == "simt" && id.find(".split_k") != std::string::npos;
    if (split_k) EXPECT_EQ(k.info.tiling.max_split_k, 64) << id;
  }
}

// A former id resolves to its kernel through find and glob matching; a real id wins over an alias.
TEST(Registry, FormerIdsResolveToTheirKernels) {
  KernelList<GemmKernel> list;
  GemmKernel a;
  a.info.id = "gemm.cuda.simt.f32.64x64x16_t8x4.registers.rows";
  a.info.aliases = {"gemm.cuda.06_vectorized.f32.64x64x16_t8x4"};
  list.add(a);
  GemmKernel b;
  b.info.id = "gemm.cuda.06_vectorized.f32.other";
  list.add(b);
  ASSERT_NE(list.find("gemm.cuda.06_vectorized.f32.64x64x16_t8x4"), nullptr);
  EXPECT_EQ(list.find("gemm.cuda.06_vectorized.f32.64x64x16_t8x4")->info.id, a.info.id);
  EXPECT_EQ(list.find("gemm.cuda.06_vectorized.f32.other")->info.id, b.info.id);
  EXPECT_EQ(list.match("gemm.cuda.06_*").size(), 2u);
  EXPECT_EQ(list.match("gemm.cuda.simt.*").size(), 1u);
  EXPECT_EQ(list.find("gemm.cuda.06_vectorized"), nullptr);
}

// Ids and former ids are one namespace: none names two kernels. The production families' ids say
// what a kernel is, never a ladder step (the teaching ladder's gemm.cuda.0N_ ids keep theirs).
TEST(Registry, IdsAndFormerIdsAreUniqueAndProductionIdsCarryNoStep) {
  std::map<std::string, std::string> seen;  // id or alias -> the kernel it names
  const std::regex step(R"(\.(sm90_)?[0-9][0-9]_)");  // ".08_cp_async", ".sm90_07_tma_store"
  for (const auto& k : Registry::instance().gemm_kernels()) {
    for (const std::string& name : [&] {
           std::vector<std::string> v = k.info.aliases;
           v.push_back(k.info.id);
           return v;
         }()) {
      const auto [it, fresh] = seen.emplace(name, k.info.id);
      EXPECT_TRUE(fresh) << name << " names " << it->second << " and " << k.info.id;
    }
    if (k.info.family == "simt" || k.info.family == "sm90") {
      EXPECT_FALSE(std::regex_search(k.info.id, step)) << k.info.id;
      EXPECT_EQ(k.info.id.rfind("gemm.cuda." + k.info.family + ".", 0), 0u) << k.info.id;
      EXPECT_LE(k.info.aliases.size(), 1u) << k.info.id;
    }
  }
}

}  // namespace
}  // namespace tilekit
