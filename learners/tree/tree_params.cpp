#include "learners/tree/tree_params.hpp"

#include <cmath>

#include "learners/input_error.hpp"

namespace veil::learners {

namespace {

void require(bool ok, const char* field, double value, const char* range) {
  if (!ok)
    throw input_error(std::string("parameter ") + field + " = " +
                      std::to_string(value) + " is out of range: " + range);
}

} // namespace

void tree_params::validate() const {
  require(max_depth >= 1 && max_depth <= 30, "max_depth", max_depth,
          "expected 1 to 30");
  require(eta > 0 && eta <= 1, "eta", eta, "expected 0 < eta <= 1");
  require(lambda >= 0 && std::isfinite(lambda), "lambda", lambda,
          "expected >= 0");
  require(gamma >= 0 && std::isfinite(gamma), "gamma", gamma, "expected >= 0");
  require(min_child_weight >= 0 && std::isfinite(min_child_weight),
          "min_child_weight", min_child_weight, "expected >= 0");
  require(max_delta_step >= 0 && std::isfinite(max_delta_step),
          "max_delta_step", max_delta_step, "expected >= 0 (0 = no limit)");
}

} // namespace veil::learners
