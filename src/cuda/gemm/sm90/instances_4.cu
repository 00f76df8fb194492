// instances_4.cu — the rows i of the instance table with i % kInstanceUnits == 4 (instances.cuh).
#include "cuda/gemm/sm90/instances.cuh"

namespace tilekit::cuda::sm90 {
namespace {
struct Unit {};  // keeps this unit's kernel symbols its own
}  // namespace

void make_instances_4(std::vector<IndexedEntry>* out) { make_unit_instances<4, Unit>(out); }

}  // namespace tilekit::cuda::sm90
