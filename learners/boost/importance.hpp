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
/// descending total gain (ties by name).
std::vector<feature_importance> importance(const model& m);

/// A split some party owns, by position in a model whose own copy of the
/// split does not name its feature (a federated model's public part).
struct named_split {
  std::int32_t tree = 0;
  std::int32_t node = 0;
  std::string feature;
};

/// The importance of the features of `splits` (one party's split table),
/// with each split's gain and cover read from `m` at its position. Throws
/// std::out_of_range for a position that is no split of `m`.
std::vector<feature_importance>
importance_of_splits(const model& m, const std::vector<named_split>& splits);

/// What each party's splits did, whatever their features: "feature" is the
/// party's name (`parties` by owner id). What a federated model's public
/// part tells about every party.
std::vector<feature_importance>
importance_by_owner(const model& m, const std::vector<std::string>& parties);

} // namespace veil::learners
