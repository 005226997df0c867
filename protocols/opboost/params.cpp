#include "protocols/opboost/params.hpp"

#include <cmath>

#include "learners/input_error.hpp"

namespace veil::protocols::opboost {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok)
    throw input_error(what);
}

} // namespace

void mechanism_params::validate(const domain& d) const {
  require(std::isfinite(epsilon) && epsilon > 0 && epsilon <= 1000,
          "parameter opboost.epsilon = " + std::to_string(epsilon) +
              " is out of range: expected (0, 1000]");
  require(epsilon >= 1e-9,
          "parameter opboost.epsilon = " + std::to_string(epsilon) +
              " is too small (below 1e-9)");
  if (kind == mechanism_kind::local_map || kind == mechanism_kind::adj_map)
    require(theta >= 1 && theta <= d.size(),
            "parameter opboost.theta = " + std::to_string(theta) +
                " is out of range: expected 1 to |D| = " +
                std::to_string(d.size()));
  if (kind == mechanism_kind::adj_map) {
    require(std::isfinite(alpha) && alpha > 0 && alpha <= 1e6,
            "parameter opboost.alpha = " + std::to_string(alpha) +
                " is out of range: expected (0, 1e6]");
    require(alpha >= 1e-9, "parameter opboost.alpha is too small");
    if (dsize == dsize_rule::range_width)
      require(d.hi > d.lo, "opboost.dsize = range-width needs |D| >= 2");
  }
  if (kind == mechanism_kind::piecewise)
    require(d.hi > d.lo, "the piecewise mechanism needs |D| >= 2");
}

learners::booster_params params::paper_booster() {
  learners::booster_params p;
  p.rounds = 80;
  p.tree.eta = 0.1;
  p.tree.max_depth = 3;
  return p;
}

void params::validate() const {
  // Values and midpoints must be exact in the model's float thresholds.
  constexpr std::int64_t limit = std::int64_t{1} << 22;
  require(dom.lo <= dom.hi, "opboost domain: lo must be <= hi");
  require(dom.lo >= -limit && dom.hi <= limit,
          "opboost domain: bounds must lie in [-2^22, 2^22] so that "
          "thresholds are exact floats");
  mechanism.validate(dom);
  booster.validate();
}

std::string to_string(mechanism_kind k) {
  switch (k) {
  case mechanism_kind::identity:
    return "identity";
  case mechanism_kind::global_map:
    return "global-map";
  case mechanism_kind::local_map:
    return "local-map";
  case mechanism_kind::adj_map:
    return "adj-map";
  case mechanism_kind::piecewise:
    return "piecewise";
  }
  return "?";
}

std::string to_string(sampler_kind k) {
  return k == sampler_kind::exponential ? "exponential" : "discrete-laplace";
}

std::string to_string(learner_kind k) {
  return k == learner_kind::xgboost ? "xgboost" : "gbdt";
}

std::string to_string(threshold_rule k) {
  return k == threshold_rule::midpoint ? "midpoint" : "upper";
}

mechanism_kind parse_mechanism(const std::string& name) {
  for (auto k : {mechanism_kind::identity, mechanism_kind::global_map,
                 mechanism_kind::local_map, mechanism_kind::adj_map,
                 mechanism_kind::piecewise})
    if (to_string(k) == name)
      return k;
  throw input_error("unknown opboost.mechanism '" + name +
                    "': expected global-map, local-map, adj-map, piecewise "
                    "or identity");
}

sampler_kind parse_sampler(const std::string& name) {
  if (name == "exponential")
    return sampler_kind::exponential;
  if (name == "discrete-laplace")
    return sampler_kind::discrete_laplace;
  throw input_error("unknown opboost.sampler '" + name +
                    "': expected exponential or discrete-laplace");
}

learner_kind parse_learner(const std::string& name) {
  if (name == "xgboost")
    return learner_kind::xgboost;
  if (name == "gbdt")
    return learner_kind::gbdt;
  throw input_error("unknown opboost.learner '" + name +
                    "': expected xgboost or gbdt");
}

threshold_rule parse_threshold_rule(const std::string& name) {
  if (name == "midpoint")
    return threshold_rule::midpoint;
  if (name == "upper")
    return threshold_rule::upper;
  throw input_error("unknown opboost.threshold '" + name +
                    "': expected midpoint or upper");
}

} // namespace veil::protocols::opboost
