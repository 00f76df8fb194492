// median.hpp — the median of a sample of times (internal): the middle value, or the mean of the
// two middle ones; 0 for an empty sample.
#pragma once

#include <algorithm>
#include <vector>

namespace tilekit {

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

}  // namespace tilekit
