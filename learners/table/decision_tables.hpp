#pragma once

// Gradient boosted decision tables (oblivious trees) as Privet trains them
// (spec privet §3), in the clear: the plaintext reference the secure
// protocol must match (`--protocol privet-plain`). Per feature, one stable
// sort and B equal-frequency buckets over sorted positions (public: they
// depend on N and B only); per level one test (F_d < t_d) shared by every
// node; leaf k = Σ_d [x(F_d) ≥ t_d] 2^(D−1−d); scores summed over the
// level's nodes, the minimum wins (lowest index on ties); no base score,
// no min_child_weight. The sigmoid and the division are pluggable, so the
// same code also gives the "approximation-aware" reference that computes
// as the secure protocol does (decision_tables_approximations).

#include <cstdint>
#include <functional>
#include <vector>

#include "learners/boost/model.hpp"
#include "learners/data/dataset.hpp"

namespace veil::learners {

enum class table_task { regression, binary };

struct table_params {
  table_task task = table_task::binary;
  int tables = 10;  ///< T
  int depth = 3;    ///< D
  int buckets = 32; ///< B
  double lambda = 1;
  double eta = 1; ///< the paper has no shrinkage
  /// 1 / (1 + e^−x), and x / y for y ≥ λ: exact by default.
  std::function<double(double)> sigmoid;
  std::function<double(double, double)> divide;
  /// Throws input_error naming the setting out of range.
  void validate() const;
};

struct table_test {
  std::int32_t feature = 0;
  float threshold = 0; ///< x < threshold goes left
};

struct decision_table {
  std::vector<table_test> tests; ///< one per level
  std::vector<double> leaves;    ///< 2^D
};

struct table_model {
  std::vector<decision_table> tables;
  /// 2^D leaf index of row `r` of `x` under table `t`.
  std::size_t leaf(std::size_t t, const dataset& x, std::size_t r) const;
  /// Σ over tables of the row's leaf value (the raw score).
  std::vector<double> predict(const dataset& x) const;
};

/// The tables as a Veil model (weak_learner "decision_table"): each table
/// a full tree whose level d splits on (F_d < t_d), leaves in the order of
/// the leaf index; no base margin (Privet starts from 0); leaf values in
/// float as every model. Binary: binary:logistic; regression:
/// reg:squarederror.
model to_model(const table_model& tables, table_task task,
               std::vector<std::string> feature_names);

/// The bucket boundaries: bucket b is sorted positions [⌊bN/B⌋,
/// ⌊(b+1)N/B⌋).
std::vector<std::size_t> table_bucket_bounds(std::size_t rows, int buckets);

/// Each feature's stable ascending sort of the rows (ties by row index).
std::vector<std::uint32_t> stable_order(std::span<const float> column);

/// Trains on `x` (labels: the targets, 0/1 for binary). Throws
/// input_error for missing values, no labels, or B > N.
table_model train_tables(const dataset& x, const table_params& p);

/// The secure protocol's approximations in double precision (spec privet
/// §4.9–4.10): the robust sigmoid (sign, (1 − |x|/256)^256, five Newton
/// steps from 0.75) and the scaled division (Newton from 1 on y/2^s,
/// `steps` steps), for a reference that computes as the protocol does.
double robust_sigmoid(double x);
double scaled_division(double x, double y, int s, int steps);

} // namespace veil::learners
