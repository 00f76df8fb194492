// instances_0.cu — the rows i of the instance table with i % kInstanceUnits == 0 (instances.cuh).
#include <algorithm>

#include "cuda/gemm/sm90/instances.cuh"

namespace tilekit::cuda::sm90 {
namespace {
struct Unit {};  // keeps this unit's kernel symbols its own
}  // namespace

void make_instances_0(std::vector<IndexedEntry>* out) { make_unit_instances<0, Unit>(out); }

std::string instance_words(const Instance& row) {
  std::string w = row.operands == Operands::kTf32ARegisters ? ".a_regs" : "";
  w += row.consumers == Consumers::kPingPong ? ".ping_pong" : ".coop";
  w += std::string(".") + scheduler_word(row.scheduler);
  w += std::string(".") + epilogue_word(row.epilogue);
  if (row.cluster_m > 1) w += ".cluster" + std::to_string(row.cluster_m) + "x1";
  return w;
}

}  // namespace tilekit::cuda::sm90

namespace tilekit::cuda {

// Every row of the table, registered in table order.
void register_gemm_sm90(Registry& r) {
  std::vector<sm90::IndexedEntry> entries;
  for (auto make : {sm90::make_instances_0, sm90::make_instances_1, sm90::make_instances_2,
                    sm90::make_instances_3, sm90::make_instances_4, sm90::make_instances_5})
    make(&entries);
  std::sort(entries.begin(), entries.end(),
            [](const sm90::IndexedEntry& x, const sm90::IndexedEntry& y) { return x.row < y.row; });
  for (sm90::IndexedEntry& e : entries) r.add(std::move(e.kernel));
}

}  // namespace tilekit::cuda
