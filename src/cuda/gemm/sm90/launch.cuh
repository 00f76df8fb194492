// launch.cuh — the host side of a launch: the view a policy computes, its workspace (repacked or
// prepared operands, partial tiles), the tensor maps, the plan of its tile scheduler and the
// launch itself, with its cluster shape when it has one.
#pragma once

#include <algorithm>
#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/common/per_device_cache.hpp"
#include "cuda/gemm/sm90/kernel.cuh"
#include "cuda/gemm/sm90/schedule.hpp"

namespace tilekit::cuda::sm90 {

// The types a policy's kernels implement.
template <typename P>
constexpr GemmTypes gemm_types() {
  if constexpr (P::kOperands == Operands::kTf32 || P::kOperands == Operands::kTf32ARegisters)
    return GemmTypes{DType::kF32, DType::kF32, DType::kF32, Compute::kTF32};
  if constexpr (P::kOperands == Operands::kTf32x3)
    return GemmTypes{DType::kF32, DType::kF32, DType::kF32, Compute::kF32x3TF32};
  constexpr DType t = std::is_same_v<typename P::Element, __nv_bfloat16> ? DType::kBF16 : DType::kF16;
  return GemmTypes{t, t, DType::kF32, Compute::kBF16};
}

// `units`: what the walk hands out, tiles or (with clusters) groups of kCluster tiles stacked along m.
template <typename P, int kCluster = 1>
struct WgmmaShape {
  int units = 0, k_tiles = 0;
  explicit WgmmaShape(const WgmmaView& v) : k_tiles(static_cast<int>((v.k + P::kBk - 1) / P::kBk)) {
    const auto tiles_m = static_cast<int>((v.m + P::kBm - 1) / P::kBm);
    const auto tiles_n = static_cast<int>((v.n + P::kBn - 1) / P::kBn);
    units = (tiles_m + kCluster - 1) / kCluster * tiles_n;
  }
};

// Whether the tf32 kernel of policy P reads `o` where it is (through a rounding tensor map)
// rather than a prepared copy: never for 3xTF32, whose parts are split in the pre-pass; A of
// an MN-major A read through registers too (`is_a`).
template <typename P>
bool reads_in_place(const TmaOperand& o, bool mn_major, int64_t uses, bool is_a) {
  if (P::kParts != 1) return false;
  return P::kARegisters && is_a ? tf32_reads_in_place_either_major(o, mn_major, uses)
                                : tf32_reads_in_place(o, mn_major, uses);
}

// The view a policy's kernels compute. A narrow tile's swaps A and B (C then stored transposed)
// where m < n, so that the short side lies along its n (WgmmaPolicy). Otherwise an
// A-from-registers policy swaps them when B alone is MN-major, so that B becomes the A it reads
// through registers; and when both are and B is the larger (n > m), so that the one prepared
// K-major in the workspace is the smaller (tf32 TN 48 × 8000 × 8000: A's 1.5 MB instead of B's
// 256 MB).
template <typename P>
WgmmaView kernel_view(const GemmProblem& p) {
  const WgmmaView v = wgmma_view(p);
  if constexpr (P::kShortSideAlongN) return v.m < v.n ? transposed_view(v) : v;
  if (P::kARegisters && v.b_mn_major && (!v.a_mn_major || v.n > v.m)) return transposed_view(v);
  return v;
}

// Why a narrow 16-bit tile cannot run view `v`, or empty: an MN-major B is loaded in 128-byte
// lines of n (64 elements), wider than a 16- or 32-wide tile. Such a short side (x stored
// transposed in xᵀ·W, B of a tall NN product) goes to the 64-wide tile.
template <typename P>
std::string view_refusal(const WgmmaView& v) {
  if constexpr (!P::kTf32 && P::kBn * sizeof(typename P::Element) < 128) {
    if (v.b_mn_major)
      return "the short side is stored MN-major: its 128-byte lines are wider than the " +
             std::to_string(P::kBn) + "-wide tile";
  }
  return {};
}

// How the tile of P run by Schedule reads 16-bit rows off 128-byte lines (repack_pays).
template <typename P, typename Schedule>
constexpr OffLineReads off_line_reads() {
  return OffLineReads{P::kBm == 128 && P::kBn == 256, Schedule::kClusterM > 1};
}

// Workspace, in order: A and B as TMA reads them where they are not read in place (16-bit:
// repacked when repack_pays; tf32: prepared unless reads_in_place, `parts` copies each), then
// the partial tiles of stream-K or split tiles (one per block) and their flags.
template <typename P>
struct WgmmaWorkspace {
  size_t a = 0, b = 0, partials = 0, flags = 0;
  bool a_in_place = true, b_in_place = true;  // tf32: no prepared copy
  WgmmaWorkspace(const WgmmaView& v, const WgmmaPlan& plan, OffLineReads reads) {
    if constexpr (P::kTf32) {
      a_in_place = reads_in_place<P>(v.a, v.a_mn_major, v.n, true);
      b_in_place = reads_in_place<P>(v.b, v.b_mn_major, v.m, false);
      if (!a_in_place) a = P::kParts * tf32_part_bytes(v.m, v.k);
      if (!b_in_place) b = P::kParts * tf32_part_bytes(v.n, v.k);
    } else {
      a = repack_bytes(v.a, v.n, reads);
      b = repack_bytes(v.b, v.m, reads);
    }
    if (plan.partial_tiles()) {
      partials = static_cast<size_t>(plan.blocks) * P::kBm * P::kBn * sizeof(float);
      flags = static_cast<size_t>(plan.blocks) * sizeof(int);
    }
  }
  size_t total() const { return a + b + partials + flags; }
};

// The operands as the kernel's tensor maps read them.
struct PlacedOperands {
  TmaOperand a, b, a_small, b_small;
  bool a_mn_major = false, b_mn_major = false;
};

// One tf32 operand (`mn` rows of k once K-major) as its tensor map reads it: `o` itself when
// read in place, else prepared K-major (and split: `small`) into the `bytes` at `at`.
inline Status place_tf32_operand(const TmaOperand& o, bool mn_major, bool in_place, int64_t mn,
                                 int64_t k, int parts, uint8_t* at, size_t bytes, cudaStream_t stream,
                                 TmaOperand* big, TmaOperand* small) {
  if (in_place) {
    *big = o;
    return Status::ok();
  }
  const int64_t ld = tf32_prepared_ld(k);
  auto* big_data = reinterpret_cast<float*>(at);
  float* small_data = parts == 2 ? reinterpret_cast<float*>(at + bytes / 2) : nullptr;
  TILEKIT_RETURN_IF_ERROR(prepare_tf32_operand(o, mn_major, k, big_data, small_data, stream));
  *big = TmaOperand{big_data, mn, k, ld};
  *small = TmaOperand{small_data, mn, k, ld};
  return Status::ok();
}

// tf32: each operand read in place or prepared K-major (and split) into the workspace.
template <typename P>
Status prepare_tf32_operands(const WgmmaView& v, const WgmmaWorkspace<P>& layout, uint8_t* base,
                             cudaStream_t stream, PlacedOperands* out) {
  TILEKIT_RETURN_IF_ERROR(place_tf32_operand(v.a, v.a_mn_major, layout.a_in_place, v.m, v.k,
                                             P::kParts, base, layout.a, stream, &out->a,
                                             &out->a_small));
  TILEKIT_RETURN_IF_ERROR(place_tf32_operand(v.b, v.b_mn_major, layout.b_in_place, v.n, v.k,
                                             P::kParts, base + layout.a, layout.b, stream, &out->b,
                                             &out->b_small));
  // A prepared copy is K-major; so is any B read in place, and any A but one read through registers.
  out->a_mn_major = layout.a_in_place && v.a_mn_major;
  out->b_mn_major = false;
  return Status::ok();
}

// Places A and B where the kernel's tensor maps read them and zeroes the stream-K flags
// (`flags`: null without stream-K), launching what that takes on `stream`.
template <typename P>
Status place_operands(const WgmmaView& v, const WgmmaWorkspace<P>& layout, Workspace ws, int* flags,
                      cudaStream_t stream, PlacedOperands* out) {
  auto* base = static_cast<uint8_t*>(ws.data);
  const auto flag_count = static_cast<int64_t>(layout.flags / sizeof(int));
  if constexpr (P::kTf32) {
    if (flags != nullptr) TILEKIT_CUDA_TRY(cudaMemsetAsync(flags, 0, layout.flags, stream));
    return prepare_tf32_operands<P>(v, layout, base, stream, out);
  } else {
    *out = PlacedOperands{v.a, v.b, {}, {}, v.a_mn_major, v.b_mn_major};
    return prepare_16bit_operands(&out->a, layout.a ? base : nullptr, &out->b,
                                  layout.b ? base + layout.a : nullptr, flags, flag_count, stream);
  }
}

// The tensor maps: K-major boxes of kBk × (kBm or kBn); MN-major boxes of 128 bytes × kBk. With clusters
// a block loads 1/kCluster of B's k-tile: K-major boxes of kBn / kCluster rows.
template <typename P, int kCluster = 1>
Status encode_maps(const PlacedOperands& o, OperandMaps* maps) {
  constexpr DType type = gemm_types<P>().a;
  // tf32's maps round what they load (a prepared copy is already rounded: no change to it).
  constexpr bool kRound = P::kTf32 && P::kParts == 1;
  // An MN-major box is kBk lines of 128 bytes (64 16-bit or 32 FP32 elements: kBk again).
  TILEKIT_RETURN_IF_ERROR(
      encode_tile_map(&maps->a, o.a, type, P::kBk, o.a_mn_major ? P::kBk : P::kBm, kRound));
  TILEKIT_RETURN_IF_ERROR(encode_tile_map(&maps->b, o.b, type, P::kBk,
                                          o.b_mn_major ? P::kBk : P::kBn / kCluster, kRound));
  if constexpr (P::kParts == 2) {
    TILEKIT_RETURN_IF_ERROR(encode_tile_map(&maps->a_small, o.a_small, type, P::kBk, P::kBm));
    TILEKIT_RETURN_IF_ERROR(encode_tile_map(&maps->b_small, o.b_small, type, P::kBk, P::kBn));
  }
  return Status::ok();
}

// Whether TMA can store C, given as stored (`rows` lines of `cols` floats, `ld` apart; the A-from-
// registers view's transposed C is the view's Cᵀ): a 16-byte-aligned base, a row pitch of whole 16 bytes, and
// rows of whole 16 bytes too: a TMA store clips a box at C's last column only to the next
// 16-byte boundary, so with cols % 4 ≠ 0 it would write up to 3 floats past each row's end (into
// the padding of a larger ld: the registry's guard-band cases caught it). Otherwise (a 4097-wide
// C) the consumers store from registers.
inline bool tma_can_store_c(const TmaOperand& c) {
  return c.rows > 0 && c.cols > 0 && c.cols % 4 == 0 && c.ld % 4 == 0 &&
         reinterpret_cast<uintptr_t>(c.data) % 16 == 0;
}

inline Status sm_count(int device, int* out) {
  TILEKIT_CUDA_TRY(cudaDeviceGetAttribute(out, cudaDevAttrMultiProcessorCount, device));
  return Status::ok();
}

template <typename P>
WgmmaArgs wgmma_args(const WgmmaView& v, const WgmmaPlan& plan, int group_rows) {
  WgmmaArgs args;
  args.m = static_cast<int>(v.m);
  args.n = static_cast<int>(v.n);
  args.k = static_cast<int>(v.k);
  args.tiles_m = static_cast<int>((v.m + P::kBm - 1) / P::kBm);
  args.tiles_n = static_cast<int>((v.n + P::kBn - 1) / P::kBn);
  args.k_tiles = static_cast<int>((v.k + P::kBk - 1) / P::kBk);
  args.group_rows = group_rows;
  args.alpha = v.alpha;
  args.beta = v.beta;
  args.c = v.c;
  args.ldc = v.ldc;
  args.c_pairs = v.ldc % 2 == 0 && reinterpret_cast<uintptr_t>(v.c) % 8 == 0;
  args.whole_tiles = plan.whole_tiles;
  args.stream_k_iters = plan.stream_k_iters;
  args.split_pieces = plan.split_pieces;  // 0 but in split-tiles plans
  return args;
}

// A launch of `blocks` blocks of policy P in clusters of Schedule::kClusterM (`attr` holds the
// cluster shape and must outlive the config).
template <typename P, typename Schedule>
cudaLaunchConfig_t cluster_launch(int blocks, cudaStream_t stream, cudaLaunchAttribute* attr) {
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = Schedule::kClusterM;
  attr->val.clusterDim.y = attr->val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(P::kThreads);
  config.dynamicSmemBytes = smem_bytes<P, Schedule>();
  config.stream = stream;
  config.attrs = attr;
  config.numAttrs = 1;
  return config;
}

// How many clusters of kCluster blocks of this kernel the device holds at once (the
// walk assumes them all resident, as a persistent walk does its blocks). Asked once per device.
template <typename P, typename Schedule>
Status resident_clusters(int device, int* out) {
  static PerDeviceCache cache;
  return cache.get(device, out, [](int* clusters) {
    cudaLaunchAttribute cluster;
    const cudaLaunchConfig_t config = cluster_launch<P, Schedule>(Schedule::kClusterM, nullptr, &cluster);
    TILEKIT_CUDA_TRY(cudaOccupancyMaxActiveClusters(clusters, wgmma_kernel<P, Schedule>(false, false), &config));
    if (*clusters < 1) return Status(StatusCode::kNotSupported, "no cluster of this kernel fits the device");
    return Status::ok();
  });
}

// The launch, with its cluster shape when the schedule uses clusters. (Programmatic dependent
// launch behind the repack, the GEMM's blocks setting up while the repack's last blocks run,
// measured slower: docs/hopper.md, "Tried and not kept".)
template <typename P, typename Schedule>
Status launch_kernel(WgmmaKernelFn kernel, int blocks, cudaStream_t stream, const OperandMaps& maps,
                     const WgmmaArgs& args) {
  if constexpr (Schedule::kClusterM == 1) {
    kernel<<<blocks, P::kThreads, smem_bytes<P, Schedule>(), stream>>>(maps, args);
  } else {
    cudaLaunchAttribute cluster;
    const cudaLaunchConfig_t config = cluster_launch<P, Schedule>(blocks, stream, &cluster);
    TILEKIT_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, maps, args));
  }
  TILEKIT_CUDA_CHECK_LAUNCH("wgmma_gemm_kernel");
  return Status::ok();
}

// Runs p with the blocks and tile order of `Schedule` (its scheduler's plan and kGroupRows).
template <typename P, typename Schedule>
Status launch_wgmma(const GemmProblem& p, const Context& ctx, Workspace ws) {
  constexpr int kCluster = Schedule::kClusterM;
  const WgmmaView v = kernel_view<P>(p);
  if (const std::string why = view_refusal<P>(v); !why.empty()) return not_supported(why);
  auto stream = static_cast<cudaStream_t>(ctx.stream);
  int sms = 0;
  TILEKIT_RETURN_IF_ERROR(sm_count(ctx.device, &sms));
  // Context::sm_limit leaves SMs to work beside this kernel (prepare_kernel sized the workspace
  // for the same limit: the plan may differ, stream-K on fewer SMs).
  if (ctx.sm_limit > 0) sms = std::min(sms, ctx.sm_limit);
  // Without clusters a plan places blocks on `slots` SMs; with them, clusters on `slots`.
  int slots = sms;
  if constexpr (kCluster > 1) {
    TILEKIT_RETURN_IF_ERROR((resident_clusters<P, Schedule>(ctx.device, &slots)));
    slots = std::max(1, std::min(slots, sms / kCluster));
  }
  const WgmmaShape<P, kCluster> shape(v);
  const WgmmaPlan plan = Schedule::plan(slots, shape.units, shape.k_tiles);
  const WgmmaWorkspace<P> layout(v, plan, off_line_reads<P, Schedule>());
  if (ws.bytes < layout.total())
    return invalid_argument("workspace of " + std::to_string(ws.bytes) + " bytes, the kernel needs " +
                            std::to_string(layout.total()));
  WgmmaArgs args = wgmma_args<P>(v, plan, Schedule::kGroupRows);
  if (plan.partial_tiles()) {
    auto* area = static_cast<uint8_t*>(ws.data) + layout.a + layout.b;
    args.partials = reinterpret_cast<float*>(area);
    args.flags = reinterpret_cast<int*>(area + layout.partials);
  }
  PlacedOperands placed;
  TILEKIT_RETURN_IF_ERROR(place_operands<P>(v, layout, ws, args.flags, stream, &placed));
  OperandMaps maps;
  TILEKIT_RETURN_IF_ERROR((encode_maps<P, kCluster>(placed, &maps)));
  if constexpr (Schedule::EpiloguePart::kAsyncStores) {
    // A-from-registers policies store 32 × 32 pair boxes, of Cᵀ where the view is transposed (its rows are C's).
    const TmaOperand c = v.c_transposed ? TmaOperand{v.c, v.n, v.m, v.ldc} : TmaOperand{v.c, v.m, v.n, v.ldc};
    args.c_tma = tma_can_store_c(c);
    if (args.c_tma)
      TILEKIT_RETURN_IF_ERROR(encode_tile_map(&maps.c, c, DType::kF32, StoreBox::kCols,
                                              P::kARegisters ? PairBox::kRows : StoreBox::kRows));
  }
  const bool promote_steps = P::kPromote && shape.k_tiles <= kStepPromotionMaxTiles;
  const WgmmaKernelFn kernel =
      wgmma_kernel<P, Schedule>(placed.a_mn_major, placed.b_mn_major, v.c_transposed, promote_steps);
  return launch_kernel<P, Schedule>(kernel, plan.blocks, stream, maps, args);
}

}  // namespace tilekit::cuda::sm90
