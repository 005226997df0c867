#include "protocols/dp/discrete_laplace.hpp"

#include <cmath>
#include <cstdlib>

namespace veil::protocols::dp {

discrete_laplace::discrete_laplace(rational rate) : rate_(rate) {
  if (rate_.is_zero())
    throw std::invalid_argument("discrete Laplace: the rate must be > 0");
}

double discrete_laplace::q() const {
  return std::exp(-rate_.value());
}

double discrete_laplace::pmf(std::int64_t z) const {
  // (1 - q)/(1 + q) = tanh(rate / 2), accurate for tiny rates.
  double r = rate_.value();
  return std::tanh(r / 2) * std::exp(-r * static_cast<double>(std::llabs(z)));
}

double discrete_laplace::variance() const {
  double r = rate_.value();
  double one_minus_q = -std::expm1(-r);
  return 2 * std::exp(-r) / (one_minus_q * one_minus_q);
}

privacy_cost discrete_laplace::cost() const {
  privacy_cost c;
  c.kind = guarantee::dldp;
  c.epsilon = rate_.value();
  c.mechanism = "discrete Laplace";
  return c;
}

bounded_discrete_laplace::bounded_discrete_laplace(std::int64_t lo,
                                                   std::int64_t hi,
                                                   rational rate,
                                                   std::uint64_t max_attempts)
    : lo_(lo), hi_(hi), lap_(rate), max_attempts_(max_attempts) {
  if (lo > hi)
    throw std::invalid_argument("bounded discrete Laplace: empty range");
  if (max_attempts == 0)
    throw std::invalid_argument("bounded discrete Laplace: no attempts");
}

double bounded_discrete_laplace::acceptance(std::int64_t centre) const {
  centre = clamp(centre);
  double r = lap_.rate().value();
  double q = std::exp(-r);
  auto a = static_cast<double>(centre - lo_);
  auto b = static_cast<double>(hi_ - centre);
  // 1 + q - q^(a+1) - q^(b+1) = (1 - q^(a+1)) + q (1 - q^b), no cancellation.
  double num = -std::expm1(-r * (a + 1)) + q * -std::expm1(-r * b);
  return num / (1 + q);
}

double bounded_discrete_laplace::min_acceptance() const {
  double r = lap_.rate().value();
  auto n = static_cast<double>(hi_ - lo_) + 1;
  return -std::expm1(-r * n) / (1 + std::exp(-r));
}

privacy_cost bounded_discrete_laplace::cost() const {
  privacy_cost c;
  c.kind = guarantee::dldp;
  c.epsilon = 2 * lap_.rate().value();
  c.mechanism = "bounded discrete Laplace";
  return c;
}

double paper_lemma_4_10_total(double lambda, std::int64_t l, std::int64_t u) {
  double q = std::exp(-1 / lambda);
  double sum = 0;
  for (std::int64_t z = l; z <= u; ++z)
    sum += std::pow(q, static_cast<double>(std::llabs(z)));
  double tau = 2 / (sum * (1 - q)); // the paper's normalizer
  return tau * (1 - q) / (1 + q) * sum;
}

} // namespace veil::protocols::dp
