#pragma once

#include "learners/data/dataset.hpp"

#include <cstddef>
#include <cstdint>

namespace veil::learners {

/// Parameters of make_classification, named and defaulted as in
/// scikit-learn (n_repeated = 0, weights balanced, hypercube = true,
/// shift = 0, scale = 1).
struct classification_spec {
  std::size_t rows = 10000;
  std::size_t features = 20;
  /// Features that carry the class signal.
  std::size_t informative = 10;
  /// Features that are random linear combinations of the informative ones.
  std::size_t redundant = 10;
  std::size_t classes = 2;
  std::size_t clusters_per_class = 2;
  /// Fraction of rows whose label is redrawn uniformly at random.
  double flip_y = 0.01;
  /// Half the side of the hypercube whose vertices are the cluster centres.
  double class_sep = 1.0;
  std::uint64_t seed = 42;
  /// Permute the rows, then the columns.
  bool shuffle = true;
};

/// A classification problem generated as scikit-learn's make_classification
/// does: one Gaussian cluster per (class, cluster) pair, centred on distinct
/// vertices of a hypercube in the informative subspace and given a random
/// covariance; then redundant features (linear combinations of the
/// informative ones), then N(0,1) noise features. Features are named
/// f0..f{n-1} by final position; labels are 0..classes-1.
///
/// Deterministic: the same spec gives bit-identical data on every platform
/// (std::mt19937_64 and our own uniform / normal conversions). It matches
/// scikit-learn in distribution, not bit for bit. Throws veil::input_error
/// naming the field when the spec is invalid.
dataset make_classification(const classification_spec& spec);

/// Parameters of make_regression, as in scikit-learn (n_targets = 1,
/// effective_rank = None).
struct regression_spec {
  std::size_t rows = 10000;
  std::size_t features = 20;
  /// Features with a non-zero coefficient: f0..f{informative-1}.
  std::size_t informative = 10;
  /// Standard deviation of the Gaussian noise added to the label.
  double noise = 0.1;
  double bias = 0.0;
  std::uint64_t seed = 42;
};

/// A regression problem as scikit-learn's make_regression builds it:
/// X ~ N(0,1), coefficients 100 * U(0,1) on the informative features (0 on
/// the others), y = X w + bias + noise * N(0,1). Rows are i.i.d. so they need
/// no shuffling; columns are not shuffled, so the informative features are
/// the first ones. y is computed from the float values stored, so with
/// noise = 0 it is linear in the features up to the rounding of y itself.
/// The features do not depend on `noise` or `bias` for a given seed.
/// Throws veil::input_error naming the field when the spec is invalid.
dataset make_regression(const regression_spec& spec);

} // namespace veil::learners
