// instances_2.cu — the rows i of the instance table with i % kInstanceUnits == 2 (instances.cuh).
#include "cuda/gemm/sm90/instances.cuh"

namespace tilekit::cuda::sm90 {
namespace {
struct Unit {};  // keeps this unit's kernel symbols its own
}  // namespace

void make_instances_2(std::vector<IndexedEntry>* out) { make_unit_instances<2, Unit>(out); }

}  // namespace tilekit::cuda::sm90
