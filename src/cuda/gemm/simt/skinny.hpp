// skinny.hpp — the SIMT family's kernel for C with a handful of rows (m <= 8 in the row-major
// view): B streamed once through registers at the memory roofline, k sliced, the slices summed in
// the kernel in a fixed order (skinny.cu says how).
#pragma once

#include "core/kernel_entry.hpp"

namespace tilekit::cuda {

// Its registry entry, named and ranked by `s` (the instance table's row).
GemmKernel make_skinny_entry(EntrySpec s);

}  // namespace tilekit::cuda
