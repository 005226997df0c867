#include "protocols/feverless/accountant.hpp"

#include <cmath>
#include <limits>

#include "protocols/dp/gaussian.hpp"

namespace veil::protocols::feverless {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

double sigma_for(calibration c, double epsilon, double delta) {
  return c == calibration::classical ? dp::classical_sigma(epsilon, delta)
                                     : dp::analytic_sigma(epsilon, delta);
}

} // namespace

double analytic_epsilon(double sigma, double delta) {
  // analytic_delta(sigma, eps) falls as eps grows: bisect.
  double lo = 0, hi = 1;
  while (dp::analytic_delta(sigma, hi) > delta && hi < 1e9)
    hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    double mid = 0.5 * (lo + hi);
    (dp::analytic_delta(sigma, mid) > delta ? lo : hi) = mid;
  }
  return hi;
}

noise_calibration calibrate(const params& p, std::uint64_t record_query_bound) {
  p.validate();
  noise_calibration c;
  if (p.protocol == mode::plain) {
    c.release_epsilon = inf;
    c.release_delta = 1;
    c.warning = "plain mode: partial sums travel in plaintext, no privacy";
    return c;
  }
  if (!p.noise) {
    c.release_epsilon = inf;
    c.release_delta = 1;
    c.warning = "noise is off: the sums carry no differential privacy";
    return c;
  }
  auto k = static_cast<double>(std::max<std::uint64_t>(record_query_bound, 1));
  if (p.budget == budget_kind::per_query) {
    c.release_epsilon = p.epsilon;
    c.release_delta = p.delta;
    c.sigma = sigma_for(p.calib, p.epsilon, p.delta);
  } else if (p.total_split == composition::basic) {
    c.release_epsilon = p.epsilon / (2 * k);
    c.release_delta = p.delta / (2 * k);
    c.sigma = sigma_for(p.calib, c.release_epsilon, c.release_delta);
  } else {
    double l = std::log(1.0 / p.delta);
    double root = std::sqrt(l + p.epsilon) - std::sqrt(l);
    double rho_total = root * root;
    c.sigma = std::sqrt(k / rho_total);
    c.release_delta = p.delta / (2 * k);
    c.release_epsilon = analytic_epsilon(c.sigma, c.release_delta);
  }
  if (p.calib == calibration::classical && c.release_epsilon >= 1 &&
      !(p.budget == budget_kind::total && p.total_split == composition::zcdp))
    c.warning = "classical Gaussian calibration sqrt(2 ln(1.25/delta))/epsilon "
                "is only proven for epsilon < 1; with epsilon = " +
                std::to_string(c.release_epsilon) +
                " per released sum the stated (epsilon, delta) guarantee may "
                "not hold (use calibration = analytic)";
  return c;
}

void privacy_accountant::configure(const params& p, const noise_calibration& c,
                                   std::uint64_t record_query_bound,
                                   std::size_t rows) {
  mode_ = p.protocol;
  delta_ = p.delta;
  calib_ = c;
  bound_ = record_query_bound;
  per_record_.assign(rows, 0);
  max_per_record_ = 0;
}

void privacy_accountant::count_query(std::span<const std::uint32_t> ids) {
  ++total_;
  for (auto i : ids) {
    auto n = ++per_record_[i];
    if (n > max_per_record_)
      max_per_record_ = n;
  }
}

privacy_report privacy_accountant::report() const {
  privacy_report r;
  r.sigma = calib_.sigma;
  r.protected_sums = mode_ != mode::plain && calib_.sigma > 0;
  r.release_epsilon = calib_.release_epsilon;
  r.release_delta = calib_.release_delta;
  r.query_epsilon = 2 * r.release_epsilon;
  r.query_delta = std::min(1.0, 2 * r.release_delta);
  r.release_rho = r.protected_sums ? dp::gaussian_rho(r.sigma) : inf;
  r.queries_caused = caused_;
  r.queries_answered = answered_;
  r.queries_total = total_;
  r.record_queries = max_per_record_;
  r.record_query_bound = bound_;
  auto k = static_cast<double>(max_per_record_);
  r.zcdp_delta = delta_;
  if (!r.protected_sums) {
    r.basic_epsilon = r.zcdp_epsilon = r.zcdp_rho = inf;
    r.basic_delta = 1;
  } else {
    r.basic_epsilon = k * r.query_epsilon;
    r.basic_delta = std::min(1.0, k * r.query_delta);
    r.zcdp_rho = 2 * k * r.release_rho;
    r.zcdp_epsilon = dp::zcdp_to_epsilon(r.zcdp_rho, r.zcdp_delta);
  }
  r.warning = calib_.warning;
  return r;
}

} // namespace veil::protocols::feverless
