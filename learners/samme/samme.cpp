#include "learners/samme/samme.hpp"

#include <algorithm>

namespace veil::learners {

double samme_alpha(double err, int classes) {
  err = std::clamp(err, 1e-12, 1 - 1e-12);
  return std::log((1 - err) / err) + std::log(static_cast<double>(classes) - 1);
}

} // namespace veil::learners
