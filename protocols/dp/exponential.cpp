#include "protocols/dp/exponential.hpp"

namespace veil::protocols::dp {

exponential_mechanism::exponential_mechanism(std::int64_t lo, std::int64_t hi,
                                             rational h)
    : lo_(lo), hi_(hi), h_(h), lap_(h.is_zero() ? rational{1, 1} : h) {
  if (lo > hi)
    throw std::invalid_argument("exponential mechanism: empty range");
  if (h.is_zero())
    throw std::invalid_argument("exponential mechanism: the rate must be > 0");
  if (hi - lo >= (std::int64_t{1} << 31))
    throw std::invalid_argument(
        "exponential mechanism: the range must hold fewer than 2^31 values");
}

double exponential_mechanism::acceptance(std::int64_t centre) const {
  centre = clamp(centre);
  double h = h_.value();
  if (short_range(centre)) {
    auto n = static_cast<double>(hi_ - lo_) + 1;
    return std::exp(log_mass(h, lo_, hi_, centre)) / n;
  }
  return bounded_discrete_laplace(lo_, hi_, h_).acceptance(centre);
}

double exponential_mechanism::pmf(std::int64_t centre, std::int64_t o) const {
  if (o < lo_ || o > hi_)
    return 0;
  return std::exp(log_pmf(h_.value(), lo_, hi_, centre, o));
}

privacy_cost exponential_mechanism::cost() const {
  privacy_cost c;
  c.kind = guarantee::dldp;
  c.epsilon = 2 * h_.value();
  c.mechanism = "exponential mechanism";
  return c;
}

} // namespace veil::protocols::dp
