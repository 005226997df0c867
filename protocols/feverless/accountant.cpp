#include "protocols/feverless/accountant.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "learners/input_error.hpp"
#include "protocols/dp/gaussian.hpp"

namespace veil::protocols::feverless {

namespace {

double sigma_for(calibration c, double epsilon, double delta) {
  return c == calibration::classical ? dp::classical_sigma(epsilon, delta)
                                     : dp::analytic_sigma(epsilon, delta);
}

/// Whether Gaussian noise `sigma` gives (epsilon, delta)-DP; the relative
/// 1e-9 absorbs the bisection's rounding.
bool honours(double sigma, double epsilon, double delta) {
  return dp::analytic_delta(sigma, epsilon) <= delta * (1 + 1e-9);
}

std::string num(double x) {
  std::ostringstream os;
  os.precision(3);
  os << x;
  return os.str();
}

/// x with 3 significant digits, rounded up: a guarantee is never printed
/// stronger than it is.
std::string num_up(double x) {
  if (!(x > 0) || !std::isfinite(x))
    return num(x);
  double scale = std::pow(10.0, std::floor(std::log10(x)) - 2);
  double up = std::ceil(x / scale * (1 - 1e-12)) * scale;
  return num(up);
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
  // e^epsilon beyond a double (about e^709) bounds nothing: a budget like
  // --epsilon 1e300 is a mistake, not a setting.
  if (p.epsilon > 700 && !p.noise_below_unit)
    throw input_error(
        "feverless parameter epsilon = " + num(p.epsilon) +
        ": e^epsilon is beyond any number, so the guarantee protects "
        "nothing; give a smaller epsilon, or train without noise with "
        "--protocol feverless-plain (feverless.noise_below_unit = true "
        "accepts it)");
  auto k = static_cast<double>(std::max<std::uint64_t>(record_query_bound, 1));
  if (p.budget == budget_kind::per_query) {
    c.release_epsilon = p.epsilon;
    c.release_delta = p.delta;
    c.sigma = sigma_for(p.calib, p.epsilon, p.delta);
    if (!honours(c.sigma, p.epsilon, p.delta)) {
      // Spec §12.3 caveat 1: the classical formula under-noises for large
      // epsilon. The paper's setting stays runnable, with its true delta.
      c.release_delta = dp::analytic_delta(c.sigma, p.epsilon);
      c.warning = "the classical calibration sqrt(2 ln(1.25/delta))/epsilon "
                  "gives sigma = " +
                  num(c.sigma) + ", which is only (" + num(p.epsilon) + ", " +
                  num(c.release_delta) + ")-DP per released sum, not (" +
                  num(p.epsilon) + ", " + num(p.delta) +
                  "): the report uses the true delta (feverless.calibration "
                  "= analytic gives the delta asked for)";
    }
  } else if (p.total_split == composition::basic) {
    c.release_epsilon = p.epsilon / k;
    c.release_delta = p.delta / k;
    c.sigma = sigma_for(p.calib, c.release_epsilon, c.release_delta);
    if (!honours(c.sigma, c.release_epsilon, c.release_delta))
      throw input_error(
          "feverless parameter calibration = classical cannot honour the "
          "total budget: its sigma is not (" +
          num(c.release_epsilon) + ", " + num(c.release_delta) +
          ")-DP per released sum (use calibration = analytic)");
  } else {
    double l = std::log(1.0 / p.delta);
    double root = std::sqrt(l + p.epsilon) - std::sqrt(l);
    double rho_total = root * root;
    c.sigma = std::sqrt(k / (2 * rho_total));
    c.release_delta = p.delta / k;
    c.release_epsilon = analytic_epsilon(c.sigma, c.release_delta);
  }
  // The sampler rounds noise finer than the unit 2^-F up to one unit: the
  // guarantee still holds, but protects nothing (a budget like --epsilon
  // 1e300 is a mistake, not a setting).
  auto finest = p.hessian_noise ? std::min(p.sensitivity_g, p.sensitivity_h)
                                : p.sensitivity_g;
  if (std::ldexp(c.sigma * finest, p.frac_bits) < 1 && !p.noise_below_unit)
    throw input_error(
        "feverless parameter epsilon = " + num(p.epsilon) +
        ": its noise (sigma " + num(c.sigma) +
        " per unit of sensitivity) is finer than the fixed point's unit "
        "2^-" +
        std::to_string(p.frac_bits) +
        " and protects nothing; give a smaller epsilon, or train without "
        "noise with --protocol feverless-plain (feverless.noise_below_unit "
        "= true accepts it)");
  return c;
}

void privacy_accountant::configure(const params& p, const noise_calibration& c,
                                   std::uint64_t record_query_bound,
                                   std::size_t rows) {
  mode_ = p.protocol;
  source_noise_ = p.source_noise;
  budget_ = p.budget;
  split_ = p.total_split;
  delta_ = p.delta;
  calib_ = c;
  bound_ = record_query_bound;
  per_record_.assign(rows, 0);
  max_per_record_ = 0;
}

void privacy_accountant::count_records(std::span<const std::uint32_t> rows,
                                       std::uint32_t queries) {
  for (auto r : rows) {
    auto n = per_record_[r] += queries;
    max_per_record_ = std::max(max_per_record_, n);
  }
}

privacy_report privacy_accountant::report() const {
  privacy_report r;
  r.sigma = calib_.sigma;
  r.protected_sums = mode_ != mode::plain && calib_.sigma > 0;
  r.local = mode_ == mode::ldp;
  r.against = mode_ == mode::ahe ? "every client but the source (it holds "
                                   "the Paillier key and can decrypt each "
                                   "reply)"
              : source_noise_    ? "any one other client"
                                 : "every client but the one that drew a "
                                   "query's noise (feverless.source_noise = "
                                   "false)";
  r.release_epsilon = calib_.release_epsilon;
  r.release_delta = calib_.release_delta;
  r.release_rho = r.protected_sums ? dp::gaussian_rho(r.sigma) : inf;
  r.queries_caused = caused_;
  r.queries_answered = answered_;
  r.queries_total = total_;
  r.record_query_bound = bound_;
  r.realised_record_queries = max_per_record_;
  r.total_delta = delta_;
  r.warning = calib_.warning;
  if (!r.protected_sums) {
    r.total_epsilon = r.total_rho = r.basic_epsilon = r.realised_epsilon = inf;
    r.total_delta = r.basic_delta = 1;
    return r;
  }
  auto k = static_cast<double>(bound_);
  auto realised = static_cast<double>(max_per_record_);
  r.basic_epsilon = k * r.release_epsilon;
  r.basic_delta = std::min(1.0, k * r.release_delta);
  // One label-dependent sum (G) per query: H follows from public margins.
  r.total_rho = k * r.release_rho;
  r.total_by_zcdp =
      !(budget_ == budget_kind::total && split_ == composition::basic);
  if (r.total_by_zcdp) {
    r.total_epsilon = dp::zcdp_to_epsilon(r.total_rho, delta_);
    r.realised_epsilon = dp::zcdp_to_epsilon(realised * r.release_rho, delta_);
  } else {
    r.total_epsilon = r.basic_epsilon;
    r.total_delta = r.basic_delta;
    r.realised_epsilon = realised * r.release_epsilon;
  }
  return r;
}

std::string privacy_report::headline() const {
  if (!protected_sums)
    return "no differential privacy (" +
           (warning.empty() ? std::string("no noise") : warning) + ")";
  return "each label: (" + num_up(total_epsilon) + ", " + num_up(total_delta) +
         ")-DP over the whole training against " + against + ", by " +
         (total_by_zcdp ? "zCDP" : "basic composition") + " over at most " +
         std::to_string(record_query_bound) +
         " queries per record; per query: (" + num_up(release_epsilon) + ", " +
         num_up(release_delta) + ")-DP" +
         (local ? "; every client noises its own sums (local DP)" : "");
}

} // namespace veil::protocols::feverless
