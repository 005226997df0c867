#include "protocols/dp/piecewise.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace veil::protocols::dp {

namespace {

double overlap(double a, double b, double lo, double hi) {
  return std::max(0.0, std::min(b, hi) - std::max(a, lo));
}

} // namespace

piecewise::piecewise(double epsilon) : epsilon_(epsilon) {
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    throw std::invalid_argument("piecewise: epsilon must be > 0");
  double e = std::exp(epsilon / 2);
  // (e + 1)/(e - 1) with e - 1 = expm1 for small epsilon.
  c_ = (e + 1) / std::expm1(epsilon / 2);
  p_in_ = e / (e + 1);
}

double piecewise::interval_probability(double t, double a, double b) const {
  t = std::clamp(t, -1.0, 1.0);
  double lo = left(t), hi = right(t);
  return density_low() * overlap(a, b, -c_, c_) +
         (density_high() - density_low()) * overlap(a, b, lo, hi);
}

privacy_cost piecewise::cost() const {
  privacy_cost c;
  c.kind = guarantee::ldp;
  c.epsilon = epsilon_;
  c.mechanism = "piecewise";
  return c;
}

} // namespace veil::protocols::dp
