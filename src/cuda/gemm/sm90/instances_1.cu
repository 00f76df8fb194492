// instances_1.cu — the rows i of the instance table with i % kInstanceUnits == 1 (instances.cuh).
#include "cuda/gemm/sm90/instances.cuh"

namespace tilekit::cuda::sm90 {
namespace {
struct Unit {};  // keeps this unit's kernel symbols its own
}  // namespace

void make_instances_1(std::vector<IndexedEntry>* out) { make_unit_instances<1, Unit>(out); }

}  // namespace tilekit::cuda::sm90
