#pragma once

// LDP boosting's settings (spec ldp-boosting §4–5).

#include <cstdint>
#include <string>

namespace veil::protocols::ldpboost {

enum class learner { ncc, stump, lr };
enum class mechanism { piecewise, duchi, laplace, identity };

struct params {
  learner base = learner::ncc;
  mechanism mech = mechanism::piecewise;
  /// Every owner's budget for its one release (NCC: split over its rows).
  double epsilon = 5;
  int classes = 2;
  int rounds = 10;                     ///< M
  std::size_t owners_per_round = 2000; ///< H
  int max_attempts = 5;                ///< per round, then training stops
  double lr_lambda = 1;                ///< logistic regression's L2
  /// Throws input_error naming the setting out of range.
  void validate() const;
};

const char* to_string(learner l);
const char* to_string(mechanism m);

} // namespace veil::protocols::ldpboost
