#pragma once

// The Piecewise Mechanism (Wang et al., "Collecting and Analyzing
// Multidimensional Data with Local Differential Privacy", ICDE 2019): the LDP
// baseline of every OpBoost experiment (spec opboost §4.6). Input t in
// [-1, 1], output in [-C, C]:
//   C = (e^(eps/2) + 1) / (e^(eps/2) - 1),
//   l(t) = (C + 1)/2 t - (C - 1)/2,  r(t) = l(t) + C - 1,
//   density p_high on [l(t), r(t)], p_low = p_high / e^eps elsewhere.
// A continuous mechanism: it draws 53-bit uniforms (no exact integer
// sampler exists for a continuous output) and is kept only as the baseline.

#include <cstdint>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/accountant.hpp"

namespace veil::protocols::dp {

class piecewise {
public:
  /// Throws std::invalid_argument unless epsilon > 0 and finite.
  explicit piecewise(double epsilon);

  /// One draw for the input t (clamped to [-1, 1]).
  template <class Engine>
  double operator()(Engine& g, double t) const {
    t = t < -1 ? -1 : (t > 1 ? 1 : t);
    double lo = left(t), hi = right(t);
    if (crypto::uniform_open01(g) < p_in_)
      return lo + (c_ - 1) * crypto::uniform_open01(g);
    // Uniform over [-C, l) U (r, C], total length C + 1.
    double u = (c_ + 1) * crypto::uniform_open01(g);
    double left_len = lo + c_;
    return u < left_len ? -c_ + u : hi + (u - left_len);
  }

  /// C: the output lies in [-C, C].
  double bound() const { return c_; }
  double left(double t) const { return (c_ + 1) / 2 * t - (c_ - 1) / 2; }
  double right(double t) const { return left(t) + c_ - 1; }
  /// Probability of the high-density band: e^(eps/2) / (e^(eps/2) + 1).
  double p_in() const { return p_in_; }
  double density_high() const { return p_in_ / (c_ - 1); }
  double density_low() const { return (1 - p_in_) / (c_ + 1); }
  /// P(a <= output < b | input t).
  double interval_probability(double t, double a, double b) const;

  /// epsilon-LDP.
  privacy_cost cost() const;
  double epsilon() const { return epsilon_; }

private:
  double epsilon_;
  double c_;
  double p_in_;
};

} // namespace veil::protocols::dp
