// kernel_select.hpp — which kernels a benchmark runs: `--kernels GLOB[,GLOB...]`.
//
// Every glob must select at least one kernel on the run's backend. A glob that selects none is
// an error naming it, never a silent run of whatever else was selected (the baseline alone,
// say): `--kernels 'gemm.cuda.cublas*'` on a machine without a GPU must say so at once.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "tilekit/registry.hpp"

namespace tilekit::bench {

// "gemm.cpu.blocked*,gemm.cpu.openblas*" → its globs; an empty piece is an error.
inline Status split_kernel_globs(const std::string& spec, std::vector<std::string>* out) {
  out->clear();
  std::stringstream ss(spec);
  for (std::string glob; std::getline(ss, glob, ',');) {
    if (glob.empty()) return invalid_argument("--kernels: '" + spec + "' has an empty glob");
    out->push_back(glob);
  }
  if (!spec.empty() && spec.back() == ',')
    return invalid_argument("--kernels: '" + spec + "' has an empty glob");
  return Status::ok();
}

// The kernels of `list` on `backend` that the globs of `spec` select, in registration order.
// An empty spec selects every kernel of `op` on the backend except the slow references.
template <typename K>
Status select_kernels(const KernelList<K>& list, const std::string& spec, const std::string& op,
                      Backend backend, std::vector<const K*>* out) {
  out->clear();
  std::vector<std::string> globs;
  TILEKIT_RETURN_IF_ERROR(split_kernel_globs(spec, &globs));
  const bool by_default = globs.empty();
  if (by_default) globs.push_back(op + "." + backend_name(backend) + ".*");
  for (const std::string& glob : globs) {
    int on_other_backends = 0;
    bool matched = false;
    for (const K* k : list.match(glob)) {
      if (k->info.backend != backend) {
        ++on_other_backends;
        continue;
      }
      if (k->info.is_reference && by_default) continue;  // the slow oracle: only when named
      matched = true;
      if (std::find(out->begin(), out->end(), k) == out->end()) out->push_back(k);
    }
    if (matched || by_default) continue;
    const std::string other = backend == Backend::kCpu ? "cuda" : "cpu";
    if (on_other_backends > 0)
      return invalid_argument("--kernels: '" + glob + "' matches only " + other + " " + op +
                              " kernels, but this run is on the " + backend_name(backend) +
                              " backend" +
                              (backend == Backend::kCpu ? " (no GPU is in use)" : ""));
    const bool names_cuda = glob.find("cuda") != std::string::npos;
    return invalid_argument("--kernels: '" + glob + "' matches no " + op + " kernel on the " +
                            backend_name(backend) + " backend" +
                            (backend == Backend::kCpu && names_cuda
                                 ? " (CUDA kernels need a GPU and a CUDA build: `tilekit devices`)"
                                 : " (`tilekit list` shows them)"));
  }
  std::sort(out->begin(), out->end());  // pointers into one vector: registration order
  return Status::ok();
}

}  // namespace tilekit::bench
