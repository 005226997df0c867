#include "protocols/opboost/mechanism.hpp"

#include <sstream>

#include "learners/input_error.hpp"

namespace veil::protocols::opboost {

namespace {

std::string short_number(double x) {
  std::ostringstream os;
  os.precision(6);
  os << x;
  return os.str();
}

std::string suffix(sampler_kind s) {
  return "/" + to_string(s);
}

/// The length of the last partition (anchored layouts may end short).
std::int64_t last_length(const partitioning& p) {
  return p.range(p.last()).size();
}

} // namespace

partitioning::partitioning(domain d, std::int64_t theta,
                           partition_layout layout)
    : d_(d), theta_(theta), layout_(layout) {
  if (theta < 1 || d.lo > d.hi)
    throw std::invalid_argument("partitioning: theta must be >= 1");
  first_ = index_of(d.lo);
  last_ = index_of(d.hi);
}

distance_sampler::distance_sampler(std::int64_t lo, std::int64_t hi,
                                   dp::rational h, sampler_kind kind)
    : s_(dp::exponential_mechanism(lo, hi, h)) {
  if (kind == sampler_kind::exponential)
    return;
  dp::bounded_discrete_laplace b(lo, hi, h);
  double expected = 1 / b.min_acceptance();
  if (!(expected <= static_cast<double>(b.max_attempts()) / 64))
    throw input_error(
        "opboost.sampler = discrete-laplace cannot honour this budget: a "
        "draw on a range of " +
        std::to_string(hi - lo + 1) + " values at rate " +
        short_number(h.value()) + " needs " + short_number(expected) +
        " resampling rounds on average, too close to the cap of " +
        std::to_string(b.max_attempts()) +
        "; use opboost.sampler = exponential (same law)");
  s_ = b;
}

double distance_sampler::worst_expected_draws() const {
  if (auto* b = std::get_if<dp::bounded_discrete_laplace>(&s_))
    return 1 / b->min_acceptance();
  const auto& e = std::get<dp::exponential_mechanism>(s_);
  return 1 / std::min(e.acceptance(e.lo()), e.acceptance(e.hi()));
}

dp::privacy_cost identity_map::cost() const {
  dp::privacy_cost c;
  c.kind = dp::guarantee::none;
  c.mechanism = name();
  return c;
}

global_map::global_map(domain d, dp::rational epsilon, sampler_kind s)
    : d_(d), eps_(epsilon), kind_(s), sampler_(d.lo, d.hi, half(epsilon), s) {}

dp::privacy_cost global_map::cost() const {
  dp::privacy_cost c;
  c.kind = dp::guarantee::dldp;
  c.epsilon = eps_.value();
  c.mechanism = name();
  return c;
}

std::string global_map::name() const {
  return "global-map" + suffix(kind_);
}

local_map::local_map(domain d, dp::rational epsilon, std::int64_t theta,
                     sampler_kind s, partition_layout layout)
    : d_(d), eps_(epsilon), kind_(s), parts_(d, theta, layout),
      full_(0, theta - 1, global_map::half(epsilon), s),
      short_(0, last_length(parts_) - 1, global_map::half(epsilon), s) {}

dp::privacy_cost local_map::cost() const {
  dp::privacy_cost c;
  c.kind = dp::guarantee::within_partition_dldp;
  c.epsilon = eps_.value();
  c.epsilon_ner = eps_.value();
  c.theta = parts_.theta();
  c.mechanism = name();
  return c;
}

std::string local_map::name() const {
  return "local-map" + suffix(kind_);
}

adj_budget split_budget(dp::rational epsilon, dp::rational alpha,
                        std::int64_t theta, std::int64_t dsize) {
  if (theta < 1 || dsize < 1)
    throw std::invalid_argument("split_budget: theta and Dsize must be >= 1");
  adj_budget b;
  b.epsilon = epsilon;
  auto ratio = dp::rational::make(static_cast<std::uint64_t>(theta),
                                  static_cast<std::uint64_t>(dsize));
  b.eps_ner = epsilon / (alpha + ratio);
  b.eps_prt = alpha * b.eps_ner * static_cast<std::uint64_t>(theta);
  return b;
}

adj_map::adj_map(domain d, dp::rational epsilon, dp::rational alpha,
                 std::int64_t theta, sampler_kind s, dsize_rule dsize,
                 partition_layout layout)
    : d_(d), budget_(split_budget(
                 epsilon, alpha, theta,
                 dsize == dsize_rule::domain_size ? d.size() : d.hi - d.lo)),
      alpha_(alpha), kind_(s), parts_(d, theta, layout),
      prt_(0, parts_.count() - 1, global_map::half(budget_.eps_prt), s),
      full_(0, theta - 1, global_map::half(budget_.eps_ner), s),
      short_(0, last_length(parts_) - 1, global_map::half(budget_.eps_ner), s) {
}

dp::privacy_cost adj_map::cost() const {
  dp::privacy_cost c;
  c.kind = dp::guarantee::partition_dldp;
  c.epsilon = budget_.epsilon.value();
  c.epsilon_prt = budget_.eps_prt.value();
  c.epsilon_ner = budget_.eps_ner.value();
  c.theta = parts_.theta();
  c.mechanism = name();
  return c;
}

std::string adj_map::name() const {
  return "adj-map" + suffix(kind_) + " (alpha " + short_number(alpha_.value()) +
         ")";
}

piecewise_map::piecewise_map(domain d, double epsilon)
    : d_(d), pm_(epsilon),
      centre_(static_cast<double>(d.lo) + static_cast<double>(d.hi - d.lo) / 2),
      half_(static_cast<double>(d.hi - d.lo) / 2) {
  if (d.hi <= d.lo)
    throw input_error("the piecewise mechanism needs |D| >= 2");
  double reach = pm_.bound() * half_ + 1;
  constexpr double limit = 4194304.0; // 2^22
  if (!(std::fabs(centre_) + reach <= limit))
    throw input_error("the piecewise mechanism's outputs at epsilon " +
                      short_number(epsilon) +
                      " could leave [-2^22, 2^22]: raise epsilon or shrink "
                      "the domain");
  support_.lo = static_cast<std::int64_t>(
      std::floor(-pm_.bound() * half_ + centre_ + 0.5));
  support_.hi = static_cast<std::int64_t>(
      std::floor(pm_.bound() * half_ + centre_ + 0.5));
}

dp::privacy_cost piecewise_map::cost() const {
  auto c = pm_.cost();
  c.mechanism = name();
  return c;
}

desensitizer make_desensitizer(const mechanism_params& p, const domain& d,
                               dp::rational epsilon) {
  p.validate(d);
  if (epsilon.is_zero())
    throw input_error("opboost: the budget per feature rounds to 0");
  switch (p.kind) {
  case mechanism_kind::identity:
    return desensitizer(identity_map(d));
  case mechanism_kind::global_map:
    return desensitizer(global_map(d, epsilon, p.sampler));
  case mechanism_kind::local_map:
    return desensitizer(local_map(d, epsilon, p.theta, p.sampler, p.layout));
  case mechanism_kind::adj_map:
    return desensitizer(adj_map(d, epsilon, dp::rational::from_double(p.alpha),
                                p.theta, p.sampler, p.dsize, p.layout));
  case mechanism_kind::piecewise:
    return desensitizer(piecewise_map(d, epsilon.value()));
  }
  throw std::logic_error("make_desensitizer: unknown mechanism");
}

desensitizer make_desensitizer(const mechanism_params& p, const domain& d) {
  p.validate(d);
  return make_desensitizer(p, d, dp::rational::from_double(p.epsilon));
}

} // namespace veil::protocols::opboost
