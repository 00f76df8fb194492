// entry.cuh — the registry entry of one instance (a policy run by a composed schedule), and the
// rules that say which parts go together, written once.
#pragma once

#include "cuda/gemm/sm90/launch.cuh"

namespace tilekit::cuda::sm90 {

template <typename P, typename Schedule>
Status opt_into_wgmma_smem() {
  for (int variant = 0; variant < 16; ++variant) {  // A, B MN-major; C transposed; promoted per k-step
    const WgmmaKernelFn kernel = wgmma_kernel<P, Schedule>(variant & 1, variant & 2, variant & 4, variant & 8);
    TILEKIT_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(smem_bytes<P, Schedule>())));
  }
  return Status::ok();
}

// The registry entry of policy P run by `Schedule`: id gemm.cuda.sm90.<types>.<tile><words>, the
// id it had before (stem `former_name`) as its alias, `step` (its place in docs/hopper.md's walk)
// and its rank in the selector's default order.
template <typename P, typename Schedule>
GemmKernel make_wgmma_entry(const std::string& words, const char* former_name, int step,
                            int auto_rank) {
  constexpr bool kStreamK = Schedule::kStreamK;
  static_assert(Schedule::kClusterM == 1 ||
                    (!Schedule::kPingPong && P::kParts == 1 &&
                     std::is_same_v<typename Schedule::Module, PersistentSchedule>),
                "clusters share B's k-tiles of whole tiles walked persistently, one part, both "
                "consumers");
  static_assert(!Schedule::kPingPong || !kStreamK, "ping-pong consumers take whole tiles");
  static_assert(!Schedule::kSplitTiles ||
                    (!Schedule::kPingPong && Schedule::kClusterM == 1),
                "the split-tiles sum (sum_share) reads the two consumers' accumulators of whole tiles");
  static_assert(!P::kARegisters || (!Schedule::kPingPong && Schedule::kClusterM == 1),
                "A in registers: two consumers, no clusters");
  EntrySpec s = cuda_spec("sm90", "sm90", step);
  s.types = gemm_types<P>();
  s.suffix = P::suffix() + words;
  // A row listed under an id it had before answers to it too; a row new to the table has none.
  if (former_name[0] != '\0')
    s.aliases = {std::string("gemm.cuda.") + former_name + "." + types_tag(s.types) + "." +
                 P::suffix()};
  s.tiling = P::tiling();
  s.tiling.schedule = schedule_tag<typename Schedule::Module>();
  // Stream-K cuts k into ranges per shape by its plan; GemmProblem::split_k does not reach it, so
  // the tiling does not declare a run-time split (TileDesc::split_k = -1): the tuner measured
  // each "split" of these kernels as a separate candidate, all of them the same run.
  s.requirements = P::kParts == 2 ? "any shape, layout, op and ld (A and B split K-major into "
                                     "two TF32 parts in the workspace)"
                 : P::kARegisters ? "any shape, layout, op and ld (TMA rounds the operands to TF32 as it "
                                    "loads them, an MN-major A through registers; of two MN-major "
                                    "operands the smaller, or an operand TMA cannot read, is prepared "
                                    "K-major in the workspace)"
                 : P::kTf32 ? "any shape, layout, op and ld (TMA rounds a K-major operand to TF32 as "
                              "it loads it; an MN-major or unaligned one is prepared K-major in the "
                              "workspace)"
                            : "16-bit A and B, f32 C; any shape, layout, op and ld (an ld TMA cannot "
                              "read, or a large operand's rows off 128-byte lines, is repacked into "
                              "the workspace)";
  if constexpr (P::kShortSideAlongN)
    s.requirements += "; a narrow tile: C's short side along its n (A and B swapped where m < n)" +
                      std::string(P::kTf32 || P::kBn >= 64 ? "" : ", a short side stored K-major");
  s.requirements += Schedule::kRefuses;
  s.auto_rank = auto_rank;
  s.min_sm = 90;
  s.max_sm = 90;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo* d) {
    TILEKIT_RETURN_IF_ERROR(check_wgmma_problem(p, gemm_types<P>()));
    const WgmmaView v = kernel_view<P>(p);
    if (const std::string why = view_refusal<P>(v); !why.empty()) return not_supported(why);
    const WgmmaShape<P, Schedule::kClusterM> shape(v);
    // Without a device (a CPU caller asking), the H200's 132 SMs, as workspace_bytes assumes.
    const int sms = d != nullptr ? d->sm_count : 132;
    const std::string why = Schedule::refuses(sms, shape.units, shape.k_tiles);
    return why.empty() ? Status::ok() : not_supported(why);
  };
  k.workspace_bytes = [](const GemmProblem& p, const DeviceInfo* d) {
    const WgmmaView v = kernel_view<P>(p);
    const WgmmaShape<P, Schedule::kClusterM> shape(v);
    // Without a device (a CPU caller asking), the H200's 132 SMs. (A cluster schedule's plan is
    // given SMs rather than clusters here: it needs no workspace either way.)
    const WgmmaPlan plan = Schedule::plan(d != nullptr ? d->sm_count : 132, shape.units, shape.k_tiles);
    return WgmmaWorkspace<P>(v, plan, off_line_reads<P, Schedule>()).total();
  };
  k.initialize = [](const GemmProblem&, const Context&, Workspace) {
    return opt_into_wgmma_smem<P, Schedule>();
  };
  k.launch = launch_wgmma<P, Schedule>;
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(wgmma_kernel<P, Schedule>(false, true)), P::kThreads,
                            smem_bytes<P, Schedule>(), out);
  };
  return k;
}

}  // namespace tilekit::cuda::sm90
