#include "protocols/opboost/theory.hpp"

namespace veil::protocols::opboost {

double global_map_gamma_bound(double epsilon, std::int64_t dsize,
                              std::int64_t t) {
  double q = std::exp(-epsilon / 2);
  auto td = static_cast<double>(t);
  auto n = static_cast<double>(dsize);
  double num = (1 - q * q) * td + 1;
  double den = (1 + q - std::pow(q, td + 1) - std::pow(q, n - td)) * (1 + q);
  return 1 - num / den * std::pow(q, td);
}

double grr_gamma(double epsilon, std::int64_t dsize, std::int64_t t) {
  auto n = static_cast<double>(dsize);
  double e = std::exp(epsilon);
  double p1 = e / (n + e - 1);
  double p2 = 1 / (n + e - 1);
  return p1 * p1 + p1 * p2 * (n - 3) + p2 * p2 * (0.5 * n * (n - 3) + 2) +
         p2 * (p1 - p2) * static_cast<double>(t);
}

double adj_map_gamma_bound(double eps_prt, std::int64_t T, std::int64_t k,
                           bool drop_q_k_minus_T) {
  double q = std::exp(-eps_prt / 2);
  auto td = static_cast<double>(T);
  double qkt = drop_q_k_minus_T ? 0 : std::pow(q, static_cast<double>(k) - td);
  double first =
      ((1 - q * q) * td + 1) / ((1 + q - std::pow(q, td + 1) - qkt) * (1 + q));
  double second = (1 - q) * (1 - q) * (td + 1) / (2 * (1 + q) * (1 + q));
  return 1 - std::pow(q, td) * (first - second);
}

} // namespace veil::protocols::opboost
