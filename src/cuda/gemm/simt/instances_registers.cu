// instances_registers.cu — the register-staged rows of the instance table (instances.cuh), every
// row's registry spec (id, former id, rank), and the family's registration in table order.
#include <algorithm>

#include "cuda/gemm/simt/instances.cuh"
#include "cuda/gemm/simt/mainloop_registers.cuh"

namespace tilekit::cuda::simt {

namespace {

// The id the row's kernel had while the family was a ladder of steps; it resolves for one
// release (Registry aliases), then goes with this function. Former step 09 named its layout and
// tile order at the end of the id, step 10 its split-K.
std::string former_id(const Instance& row) {
  const std::string stem = std::string("gemm.cuda.") + row.former_name + ".f32";
  if (row.mainloop == Mainloop::kSkinnyRows) return stem;
  std::string tail;
  if (row.step == 9)
    tail = std::string(row.layout == SharedLayout::kSwizzled ? "_sw" : "_pad") +
           (row.scheduler == Scheduler::kTileGroups ? "_g8" : "_row");
  if (row.step == 10) tail = "_splitk";
  return stem + "." + tile_name(row.shape) + tail;
}

}  // namespace

EntrySpec instance_spec(const Instance& row) {
  EntrySpec s = cuda_spec("simt", "simt", row.step);
  if (row.mainloop == Mainloop::kSkinnyRows) {
    s.suffix = "skinny_m8";
  } else {
    s.suffix = tile_name(row.shape) + "." + mainloop_name(row.mainloop);
    if (row.layout == SharedLayout::kSwizzled) s.suffix += ".swizzled";
    s.suffix += std::string(".") + scheduler_name(row.scheduler);
  }
  if (*row.former_name != '\0') s.aliases = {former_id(row)};
  s.auto_rank = row.auto_rank;
  return s;
}

void make_register_rows(std::vector<IndexedEntry>* out) {
  add_rows_of<Mainloop::kThreadTiles>(out, [](auto row_index) {
    constexpr size_t row = decltype(row_index)::value;
    return make_thread_tiles_entry<ThreadTilePolicy<ShapeOf<row>>>(instance_spec(kInstances[row]));
  });
  add_rows_of<Mainloop::kWarpTiles>(out, [](auto row_index) {
    constexpr size_t row = decltype(row_index)::value;
    return make_warp_tiles_entry<WarpTilePolicy<ShapeOf<row>>>(instance_spec(kInstances[row]));
  });
}

}  // namespace tilekit::cuda::simt

namespace tilekit::cuda {

// Every row of the table, registered in table order.
void register_gemm_simt(Registry& r) {
  std::vector<simt::IndexedEntry> entries;
  for (auto make : {simt::make_register_rows, simt::make_cp_async_rows,
                    simt::make_branch_free_rows, simt::make_straight_rows,
                    simt::make_cross_tile_rows, simt::make_packed_rows, simt::make_skinny_rows})
    make(&entries);
  std::sort(entries.begin(), entries.end(),
            [](const simt::IndexedEntry& x, const simt::IndexedEntry& y) { return x.row < y.row; });
  for (simt::IndexedEntry& e : entries) r.add(std::move(e.kernel));
}

}  // namespace tilekit::cuda
