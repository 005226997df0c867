#include "protocols/dp/vector_ldp.hpp"

#include <stdexcept>

namespace veil::protocols::dp {

namespace {

/// ε, once it and D are checked.
double checked(double epsilon, std::size_t d, const char* who) {
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    throw std::invalid_argument(std::string(who) + ": epsilon must be > 0");
  if (d == 0)
    throw std::invalid_argument(std::string(who) + ": an empty vector");
  return epsilon;
}

privacy_cost ldp(double epsilon, const char* mechanism) {
  privacy_cost c;
  c.kind = guarantee::ldp;
  c.epsilon = epsilon;
  c.mechanism = mechanism;
  return c;
}

double log_binomial(std::size_t n, std::size_t k) {
  return std::lgamma(static_cast<double>(n) + 1) -
         std::lgamma(static_cast<double>(k) + 1) -
         std::lgamma(static_cast<double>(n - k) + 1);
}

} // namespace

piecewise_vector::piecewise_vector(double epsilon, std::size_t dimension)
    : epsilon_(checked(epsilon, dimension, "piecewise_vector")), d_(dimension),
      k_(std::max<std::size_t>(
          1, std::min<std::size_t>(dimension, static_cast<std::size_t>(
                                                  std::floor(epsilon / 2.5))))),
      one_(epsilon / static_cast<double>(k_)) {}

double piecewise_vector::variance(double t) const {
  t = detail::clamp1(t);
  double z = std::exp(epsilon_ / static_cast<double>(k_) / 2);
  double one = t * t / (z - 1) + (z + 3) / (3 * (z - 1) * (z - 1));
  double ratio = static_cast<double>(d_) / static_cast<double>(k_);
  return ratio * (one + t * t) - t * t;
}

privacy_cost piecewise_vector::cost() const {
  return ldp(epsilon_, "piecewise (multi-dimensional)");
}

double duchi_vector::c_d(std::size_t d) {
  if (d == 0)
    throw std::invalid_argument("duchi_vector: an empty vector");
  // In logs: 2^(D−1) / binom(D−1, ⌊(D−1)/2⌋), plus 1 for even D.
  double odd = std::exp((static_cast<double>(d) - 1) * std::log(2.0) -
                        log_binomial(d - 1, (d - 1) / 2));
  return d % 2 == 1 ? odd
                    : std::exp((static_cast<double>(d) - 1) * std::log(2.0) -
                               log_binomial(d - 1, d / 2)) +
                          1;
}

duchi_vector::duchi_vector(double epsilon, std::size_t dimension)
    : epsilon_(checked(epsilon, dimension, "duchi_vector")), d_(dimension) {
  double e = std::exp(epsilon);
  b_ = (e + 1) / std::expm1(epsilon) * c_d(dimension);
  p_upper_ = e / (e + 1);
  // Weights relative to the largest, binom(D, ⌊D/2⌋).
  double top = log_binomial(d_, d_ / 2);
  double acc = 0;
  for (std::size_t a = (d_ + 1) / 2; a <= d_; ++a)
    upper_cdf_.push_back(acc += std::exp(log_binomial(d_, a) - top));
  acc = 0;
  for (std::size_t a = 0; a <= d_ / 2; ++a)
    lower_cdf_.push_back(acc += std::exp(log_binomial(d_, a) - top));
}

privacy_cost duchi_vector::cost() const {
  return ldp(epsilon_, "duchi (multi-dimensional)");
}

laplace_vector::laplace_vector(double epsilon, std::size_t dimension)
    : epsilon_(checked(epsilon, dimension, "laplace_vector")), d_(dimension) {
  scale_ = 2 * static_cast<double>(dimension) / epsilon;
}

privacy_cost laplace_vector::cost() const {
  return ldp(epsilon_, "laplace (budget split over the coordinates)");
}

} // namespace veil::protocols::dp
