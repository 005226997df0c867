#pragma once

// SAMME (multi-class AdaBoost, spec ldp-boosting §3.1): α_m = log((1 −
// err)/err) + log(K − 1) from the weighted error of each base classifier;
// misclassified rows' weights grow by e^α; the ensemble votes with α.
// Generic over the base classifier (anything with predict(row) -> class).

#include <cmath>
#include <functional>
#include <span>
#include <vector>

#include "learners/samme/base_learners.hpp"

namespace veil::learners {

/// α for a weighted error `err` over K classes, err clamped to
/// [1e−12, 1 − 1e−12].
double samme_alpha(double err, int classes);

/// Σ_i w_i [y_i ≠ h(x_i)] / Σ_i w_i.
template <class Classifier>
double weighted_error(const Classifier& h, const labelled_rows& d,
                      std::span<const double> w) {
  double wrong = 0, total = 0;
  for (std::size_t i = 0; i < d.rows(); ++i) {
    total += w[i];
    if (h.predict(d.row(i)) != d.y[i])
      wrong += w[i];
  }
  return wrong / total;
}

/// w_i ← w_i e^{α [y_i ≠ h(x_i)]}, then Σ w = 1.
template <class Classifier>
void samme_update(const Classifier& h, double alpha, const labelled_rows& d,
                  std::vector<double>& w) {
  double total = 0;
  for (std::size_t i = 0; i < d.rows(); ++i) {
    if (h.predict(d.row(i)) != d.y[i])
      w[i] *= std::exp(alpha);
    total += w[i];
  }
  for (auto& v : w)
    v /= total;
}

template <class Classifier>
struct samme_ensemble {
  int classes = 2;
  std::vector<double> alpha;
  std::vector<Classifier> members;

  /// argmax_k Σ_m α_m [h_m(x) = k] (ties: the lowest k).
  int predict(std::span<const double> x) const {
    std::vector<double> votes(static_cast<std::size_t>(classes), 0);
    for (std::size_t m = 0; m < members.size(); ++m)
      votes[static_cast<std::size_t>(members[m].predict(x))] += alpha[m];
    int best = 0;
    for (int k = 1; k < classes; ++k)
      if (votes[static_cast<std::size_t>(k)] >
          votes[static_cast<std::size_t>(best)])
        best = k;
    return best;
  }
};

/// Centralized SAMME (Alg. 1) on `d` with `fit(d, w)` as the base
/// learner, `rounds` rounds; a round whose α ≤ 0 ends the boosting (the
/// learner is no better than chance on the weighted rows).
template <class Classifier>
samme_ensemble<Classifier>
train_samme(const labelled_rows& d, int classes, int rounds,
            const std::function<Classifier(const labelled_rows&,
                                           std::span<const double>)>& fit) {
  samme_ensemble<Classifier> e;
  e.classes = classes;
  std::vector<double> w(d.rows(), 1.0 / static_cast<double>(d.rows()));
  for (int m = 0; m < rounds; ++m) {
    auto h = fit(d, w);
    double a = samme_alpha(weighted_error(h, d, w), classes);
    if (!(a > 0))
      break;
    samme_update(h, a, d, w);
    e.alpha.push_back(a);
    e.members.push_back(std::move(h));
  }
  return e;
}

} // namespace veil::learners
