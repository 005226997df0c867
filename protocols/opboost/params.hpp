#pragma once

// OpBoost's settings (spec opboost §1, §2.5, §4, §5): the unified discrete
// domain, the desensitization mechanism and its budget, and Party A's
// learner. Names are parsed here once (command line and session files).

#include <cstdint>
#include <string>

#include "learners/boost/booster.hpp"

namespace veil::protocols::opboost {

/// The unified discrete domain D⊥ = [lo, hi] of the pre-processed values
/// (spec §1, §3). The tree-boosting experiments use [1, 10].
struct domain {
  std::int64_t lo = 1;
  std::int64_t hi = 10;

  /// |D⊥| = hi - lo + 1.
  std::int64_t size() const { return hi - lo + 1; }
  bool contains(std::int64_t x) const { return lo <= x && x <= hi; }
  friend bool operator==(const domain&, const domain&) = default;
};

/// Which desensitization Party B applies (spec §4). `identity` sends the
/// pre-processed values' order unchanged: no protection, for tests and
/// baselines only.
enum class mechanism_kind {
  identity,
  global_map,
  local_map,
  adj_map,
  piecewise
};

/// How the exponential-score laws are sampled; both give the same law
/// (spec §4.0 (c)) exactly, with integer arithmetic only.
/// - exponential: exact exponential mechanism, O(1) expected coins;
/// - discrete_laplace: the paper's resampling of Lap_Z(2/eps) until in
///   range (1/acceptance draws, up to ~1000 for small eps_ner).
enum class sampler_kind { exponential, discrete_laplace };

/// Where partitions start (spec §4.2, §10 item 11):
/// - anchored [D]: P_j = [lo + j theta, min(lo + (j+1) theta - 1, hi)], the
///   last one possibly shorter;
/// - reference [R]: P_j = [j theta, j theta + theta - 1] in absolute
///   coordinates (the reference code's floor(v / theta)); outputs can fall
///   slightly outside D⊥ in the edge partitions.
enum class partition_layout { anchored, reference };

/// The |D⊥| of eps_ner = eps / (alpha + theta / Dsize) (spec §2.5):
/// domain_size = hi - lo + 1 (the paper, default); range_width = hi - lo
/// (what reproduces the paper's Table 5).
enum class dsize_rule { domain_size, range_width };

/// How a Party B user's budget covers its features (spec §4.5):
/// per_feature = every feature gets the full epsilon, so a record spends
/// r epsilon (the reference experiments [R]); split = epsilon / r each.
enum class budget_split { per_feature, split };

/// Party A's learner (spec §5.4): XGBoost (Newton leaf values), or GBDT
/// (Friedman's gradient boosting: least-squares trees on the negative
/// gradients, leaf value = mean negative gradient; "gradient-only").
enum class learner_kind { xgboost, gbdt };

/// The value-space threshold that replaces a rank split k | k+1 (spec §5.5):
/// midpoint = (v(k) + v(k+1)) / 2 (the reference code, default);
/// upper = v(k+1), which is the threshold centralized training on the same
/// values would pick (learners' cut convention). Both route every training
/// row as the rank split does; they differ only on unseen values between
/// v(k) and v(k+1). The rule is always "left iff x < threshold".
enum class threshold_rule { midpoint, upper };

/// The mechanism of every Party B feature (spec §4).
struct mechanism_params {
  mechanism_kind kind = mechanism_kind::global_map;
  sampler_kind sampler = sampler_kind::exponential;
  /// The dLDP budget per unit distance (Global-map: exact; Adj-map: the
  /// nominal value the split is derived from, see §2.5; Local-map: eps_ner;
  /// Piecewise: LDP epsilon). Taken as the rational the decimal denotes
  /// (0.08 = 2/25). In (0, 1000].
  double epsilon = 1.28;
  /// Partition length theta (Local-map, Adj-map). In [1, |D⊥|].
  std::int64_t theta = 4;
  /// alpha = eps_prt / (theta eps_ner) (Adj-map). In (0, 10^6].
  double alpha = 1;
  dsize_rule dsize = dsize_rule::domain_size;
  partition_layout layout = partition_layout::anchored;

  /// Throws veil::input_error naming the first bad field.
  void validate(const domain& d) const;
};

/// The whole protocol's settings.
struct params {
  domain dom;
  mechanism_params mechanism;
  budget_split budget = budget_split::per_feature;
  learner_kind learner = learner_kind::xgboost;
  threshold_rule threshold = threshold_rule::midpoint;
  /// Party A's boosting settings; the paper's defaults (spec §5.4): 80
  /// rounds, eta 0.1, depth 3. max_bin must be at least the number of
  /// distinct ranks per column for exact greedy splits (|D⊥| suffices for
  /// the map mechanisms).
  learners::booster_params booster = paper_booster();

  /// Throws veil::input_error naming the first bad field.
  void validate() const;

  static learners::booster_params paper_booster();
};

/// "identity", "global-map", "local-map", "adj-map", "piecewise".
std::string to_string(mechanism_kind k);
std::string to_string(sampler_kind k);
std::string to_string(learner_kind k);
std::string to_string(threshold_rule k);
/// Parsers: throw veil::input_error naming the value and the choices.
mechanism_kind parse_mechanism(const std::string& name);
sampler_kind parse_sampler(const std::string& name);
learner_kind parse_learner(const std::string& name);
threshold_rule parse_threshold_rule(const std::string& name);

} // namespace veil::protocols::opboost
