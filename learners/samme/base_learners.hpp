#pragma once

// The base learners LDP boosting boosts (spec ldp-boosting §5): a
// nearest-centroid classifier, a decision stump chosen by misclassification
// impurity, and L2-regularised logistic regression, each fitted on
// weighted rows in the clear (the protocol fits them from LDP releases
// instead: protocols/ldpboost builds the same models from aggregates).
// Classes are 0..K−1; features are rows of doubles, already scaled.

#include <cstdint>
#include <span>
#include <vector>

namespace veil::learners {

/// Rows × features, row-major, with labels 0..K−1.
struct labelled_rows {
  std::size_t features = 0;
  std::vector<double> x; ///< rows * features
  std::vector<int> y;
  std::size_t rows() const { return y.size(); }
  std::span<const double> row(std::size_t i) const {
    return {x.data() + i * features, features};
  }
};

/// argmin_k ‖x − μ_k‖₂ (ties: the lowest k).
struct nearest_centroid {
  std::vector<std::vector<double>> centroids; ///< K × d
  int predict(std::span<const double> x) const;
  /// Weighted class means (Σ w x / Σ w per class); a class without weight
  /// gets no centroid and is never predicted: throws std::invalid_argument
  /// when no class has weight.
  static nearest_centroid fit(const labelled_rows& d, std::span<const double> w,
                              int classes);
};

/// Binary: class leaf[a] on branch a = [x_j ≥ threshold].
struct stump {
  std::size_t feature = 0;
  double threshold = 0;
  int leaf[2] = {0, 1};
  int predict(std::span<const double> x) const {
    return leaf[x[feature] >= threshold ? 1 : 0];
  }
  /// For each feature, the cross-table differences Δ_{j,a} = s_{a,0} −
  /// s_{a,1} (weights of the rows on branch a with label 0 minus label 1)
  /// at the given thresholds: 2d values, (j, a) in order (spec §5.2).
  static std::vector<double> differences(const labelled_rows& d,
                                         std::span<const double> w,
                                         std::span<const double> thresholds);
  /// The stump of the largest φ_j = |Δ_{j,0}| + |Δ_{j,1}| (ties: the
  /// lowest j), leaf a = 0 where Δ_{j,a} ≥ 0: the minimum-impurity stump
  /// from (possibly noisy) differences.
  static stump from_differences(std::span<const double> delta,
                                std::span<const double> thresholds);
  /// Per feature, the midpoint threshold between consecutive distinct
  /// values with the least weighted misclassification (its best leaf
  /// labelling): the data user's thresholds (spec §5.2 [X]).
  static std::vector<double> best_thresholds(const labelled_rows& d,
                                             std::span<const double> w);
};

/// Binary: class 1 where θᵀx ≥ 0.
struct logistic_regression {
  std::vector<double> theta;
  int predict(std::span<const double> x) const;
  /// argmin Σ_i w_i l(θ; x_i, y_i) + (λ/2)‖θ‖² by Newton's method (no
  /// intercept; spec §5.3), to ‖∇‖∞ < 1e−10 or 100 steps.
  static logistic_regression fit(const labelled_rows& d,
                                 std::span<const double> w, double lambda);
};

} // namespace veil::learners
