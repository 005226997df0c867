#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "learners/boost/model.hpp"

namespace veil::learners {

/// How much a feature's splits did, XGBoost's get_score types: weight =
/// splits on it; gain and cover = mean loss reduction and mean hessian sum
/// of those splits; total_gain and total_cover their sums.
struct feature_importance {
  std::string feature;
  std::size_t weight = 0;
  double total_gain = 0;
  double total_cover = 0;

  double gain() const { return weight ? total_gain / double(weight) : 0; }
  double cover() const { return weight ? total_cover / double(weight) : 0; }
};

/// The importance of every feature of `m` that some split uses, by
/// descending total gain (ties by name). `owners`: count only splits whose
/// owner is listed (a federated party's own features); empty = every split.
std::vector<feature_importance>
importance(const model& m, const std::vector<std::int32_t>& owners = {});

} // namespace veil::learners
