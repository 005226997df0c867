#pragma once

// OpBoost's desensitization mechanisms (spec opboost §4): Global-map,
// Local-map and Adj-map, each with the exact exponential-mechanism sampler or
// the paper's bounded discrete Laplace resampling; the Piecewise mechanism as
// the LDP baseline; and the identity (no protection, tests only).
//
// Every mechanism is shaped like a std distribution with an input:
// operator()(engine, x) draws the desensitized value of x in D⊥; cost() says
// what it spends; log_pmf<Real>(x) gives the exact output law over support()
// (closed forms, evaluated in any number type: tests use 50-digit floats).

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "protocols/dp/accountant.hpp"
#include "protocols/dp/discrete_laplace.hpp"
#include "protocols/dp/exponential.hpp"
#include "protocols/dp/piecewise.hpp"
#include "protocols/dp/rational.hpp"
#include "protocols/opboost/params.hpp"

namespace veil::protocols::opboost {

/// The partitions of D⊥ of length theta (spec §4.2; see partition_layout).
class partitioning {
public:
  partitioning(domain d, std::int64_t theta, partition_layout layout);

  /// Index of the partition holding x.
  std::int64_t index_of(std::int64_t x) const {
    return layout_ == partition_layout::anchored ? (x - d_.lo) / theta_
                                                 : floor_div(x, theta_);
  }
  /// Indices run from first() to last().
  std::int64_t first() const { return first_; }
  std::int64_t last() const { return last_; }
  /// k, the number of partitions.
  std::int64_t count() const { return last_ - first_ + 1; }
  /// The values of partition j.
  domain range(std::int64_t j) const {
    if (layout_ == partition_layout::anchored)
      return {d_.lo + j * theta_,
              std::min(d_.lo + (j + 1) * theta_ - 1, d_.hi)};
    return {j * theta_, j * theta_ + theta_ - 1};
  }
  /// The union of the partitions: D⊥, or slightly more (reference layout).
  domain support() const { return {range(first_).lo, range(last_).hi}; }
  std::int64_t theta() const { return theta_; }

  static std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
  }

private:
  domain d_;
  std::int64_t theta_;
  partition_layout layout_;
  std::int64_t first_ = 0;
  std::int64_t last_ = 0;
};

/// Samples P(o) = exp(-h |o - c|) / S(c) on [lo, hi] with either sampler
/// (spec §4.0: the two laws are identical).
class distance_sampler {
public:
  /// With the discrete Laplace sampler, throws veil::input_error when the
  /// worst-case expected number of draws exceeds max_attempts / 64 (then the
  /// retry cap would be hit with probability above e^-64).
  distance_sampler(std::int64_t lo, std::int64_t hi, dp::rational h,
                   sampler_kind kind);

  template <class Engine>
  std::int64_t operator()(Engine& g, std::int64_t centre) const {
    if (auto* e = std::get_if<dp::exponential_mechanism>(&s_))
      return (*e)(g, centre);
    return std::get<dp::bounded_discrete_laplace>(s_)(g, centre);
  }

  /// Expected draws of the unbounded proposal at the worst centre.
  double worst_expected_draws() const;

private:
  std::variant<dp::exponential_mechanism, dp::bounded_discrete_laplace> s_;
};

/// No desensitization: o = x. No protection at all; for the equivalence
/// test and as a baseline.
class identity_map {
public:
  explicit identity_map(domain d) : d_(d) {}

  template <class Engine>
  std::int64_t operator()(Engine&, std::int64_t x) const {
    return x;
  }
  domain support() const { return d_; }
  dp::privacy_cost cost() const;
  std::string name() const { return "identity"; }

  template <class Real>
  std::vector<Real> log_pmf(std::int64_t x) const {
    std::vector<Real> out(static_cast<std::size_t>(d_.size()),
                          -std::numeric_limits<Real>::infinity());
    out[static_cast<std::size_t>(x - d_.lo)] = Real(0);
    return out;
  }

private:
  domain d_;
};

/// Global-map (Algorithm 1): the exponential mechanism with score
/// -|o - x| over all of D⊥ and rate epsilon/2; epsilon-dLDP (Theorem 4.1).
/// The DLAP variant is x + bounded Lap_Z(2/epsilon) (Theorem 4.11).
class global_map {
public:
  global_map(domain d, dp::rational epsilon, sampler_kind s);

  template <class Engine>
  std::int64_t operator()(Engine& g, std::int64_t x) const {
    return sampler_(g, x);
  }
  domain support() const { return d_; }
  dp::privacy_cost cost() const;
  std::string name() const;
  dp::rational epsilon() const { return eps_; }

  template <class Real>
  std::vector<Real> log_pmf(std::int64_t x) const {
    Real h = dp::to_real<Real>(half(eps_));
    Real lm = dp::log_mass(h, d_.lo, d_.hi, x);
    std::vector<Real> out;
    out.reserve(static_cast<std::size_t>(d_.size()));
    for (std::int64_t o = d_.lo; o <= d_.hi; ++o)
      out.push_back(-Real(static_cast<double>(std::abs(o - x))) * h - lm);
    return out;
  }

  static dp::rational half(const dp::rational& r) {
    return dp::rational::make(r.num, static_cast<unsigned __int128>(r.den) * 2);
  }

private:
  domain d_;
  dp::rational eps_;
  sampler_kind kind_;
  distance_sampler sampler_;
};

/// Local-map (spec §4.3): the exponential mechanism restricted to the
/// partition of x, with eps_ner = epsilon (the paper's experiments).
/// eps_ner-dLDP inside a partition; values in different partitions are
/// distinguishable (Theorem 4.7).
class local_map {
public:
  local_map(domain d, dp::rational epsilon, std::int64_t theta, sampler_kind s,
            partition_layout layout);

  template <class Engine>
  std::int64_t operator()(Engine& g, std::int64_t x) const {
    auto r = parts_.range(parts_.index_of(x));
    return r.lo + sampler_for(r)(g, x - r.lo);
  }
  domain support() const { return parts_.support(); }
  dp::privacy_cost cost() const;
  std::string name() const;
  const partitioning& parts() const { return parts_; }

  template <class Real>
  std::vector<Real> log_pmf(std::int64_t x) const {
    auto sup = support();
    std::vector<Real> out(static_cast<std::size_t>(sup.size()),
                          -std::numeric_limits<Real>::infinity());
    Real h = dp::to_real<Real>(global_map::half(eps_));
    auto r = parts_.range(parts_.index_of(x));
    Real lm = dp::log_mass(h, r.lo, r.hi, x);
    for (std::int64_t o = r.lo; o <= r.hi; ++o)
      out[static_cast<std::size_t>(o - sup.lo)] =
          -Real(static_cast<double>(std::abs(o - x))) * h - lm;
    return out;
  }

private:
  const distance_sampler& sampler_for(const domain& r) const {
    return r.size() == parts_.theta() ? full_ : short_;
  }

  domain d_;
  dp::rational eps_;
  sampler_kind kind_;
  partitioning parts_;
  // Samplers on [0, theta - 1] and on the last partition's shorter range:
  // the law depends on the offset of x within the partition only.
  distance_sampler full_;
  distance_sampler short_;
};

/// The budget split of Adj-map (spec §2.5):
///   eps_ner = eps / (alpha + theta / Dsize),  eps_prt = alpha theta eps_ner,
/// computed exactly in rationals (rounded down only if the parts would
/// exceed 2^32, which only lowers the budget).
struct adj_budget {
  dp::rational epsilon;
  dp::rational eps_ner;
  dp::rational eps_prt;
};
adj_budget split_budget(dp::rational epsilon, dp::rational alpha,
                        std::int64_t theta, std::int64_t dsize);

/// Adj-map (Algorithm 2 plus the within-partition step, spec §4.2): the
/// partition index is drawn by the exponential mechanism over partition
/// indices with eps_prt, then the value inside the drawn partition by the
/// exponential mechanism centred at x with eps_ner.
/// (eps_prt, eps_ner)-partition-dLDP (Theorem 4.5); see the report's note on
/// what the nominal epsilon means.
class adj_map {
public:
  adj_map(domain d, dp::rational epsilon, dp::rational alpha,
          std::int64_t theta, sampler_kind s, dsize_rule dsize,
          partition_layout layout);

  template <class Engine>
  std::int64_t operator()(Engine& g, std::int64_t x) const {
    std::int64_t m = parts_.index_of(x);
    std::int64_t j = parts_.first() + prt_(g, m - parts_.first());
    auto r = parts_.range(j);
    // Centred at x: x outside the partition acts as the nearer edge.
    const auto& s = r.size() == parts_.theta() ? full_ : short_;
    return r.lo + s(g, x - r.lo);
  }
  domain support() const { return parts_.support(); }
  dp::privacy_cost cost() const;
  std::string name() const;
  const partitioning& parts() const { return parts_; }
  const adj_budget& budget() const { return budget_; }

  template <class Real>
  std::vector<Real> log_pmf(std::int64_t x) const {
    auto sup = support();
    std::vector<Real> out(static_cast<std::size_t>(sup.size()),
                          -std::numeric_limits<Real>::infinity());
    Real hp = dp::to_real<Real>(global_map::half(budget_.eps_prt));
    Real hn = dp::to_real<Real>(global_map::half(budget_.eps_ner));
    std::int64_t m = parts_.index_of(x);
    for (std::int64_t j = parts_.first(); j <= parts_.last(); ++j) {
      Real lp = dp::log_pmf(hp, parts_.first(), parts_.last(), m, j);
      auto r = parts_.range(j);
      Real lm = dp::log_mass(hn, r.lo, r.hi, x);
      for (std::int64_t o = r.lo; o <= r.hi; ++o)
        out[static_cast<std::size_t>(o - sup.lo)] =
            lp - Real(static_cast<double>(std::abs(o - x))) * hn - lm;
    }
    return out;
  }

private:
  domain d_;
  adj_budget budget_;
  dp::rational alpha_;
  sampler_kind kind_;
  partitioning parts_;
  distance_sampler prt_;   // on partition offsets [0, k - 1]
  distance_sampler full_;  // on [0, theta - 1]
  distance_sampler short_; // on the last partition's range
};

/// The Piecewise mechanism on D⊥ with the reference code's integer wrapper
/// [R] (spec §4.6): t = (x - L - range/2) 2/range, o = round(t* range/2 + L +
/// range/2) with range = R - L. epsilon-LDP. Outputs may fall far outside
/// D⊥; they are ranked like any other values.
class piecewise_map {
public:
  /// Throws veil::input_error when outputs could leave [-2^22, 2^22].
  piecewise_map(domain d, double epsilon);

  template <class Engine>
  std::int64_t operator()(Engine& g, std::int64_t x) const {
    double t = (static_cast<double>(x) - centre_) / half_;
    return static_cast<std::int64_t>(
        std::floor(pm_(g, t) * half_ + centre_ + 0.5));
  }
  domain support() const { return support_; }
  dp::privacy_cost cost() const;
  std::string name() const { return "piecewise"; }
  const dp::piecewise& base() const { return pm_; }

  /// Exact up to double rounding of the interval ends (the mechanism itself
  /// is continuous and sampled with 53-bit uniforms).
  template <class Real>
  std::vector<Real> log_pmf(std::int64_t x) const {
    using std::log;
    double t = (static_cast<double>(x) - centre_) / half_;
    std::vector<Real> out;
    out.reserve(static_cast<std::size_t>(support_.size()));
    for (std::int64_t k = support_.lo; k <= support_.hi; ++k) {
      double a = (static_cast<double>(k) - 0.5 - centre_) / half_;
      double b = (static_cast<double>(k) + 0.5 - centre_) / half_;
      double p = pm_.interval_probability(t, a, b);
      out.push_back(p > 0 ? Real(log(Real(p)))
                          : -std::numeric_limits<Real>::infinity());
    }
    return out;
  }

private:
  domain d_;
  dp::piecewise pm_;
  double centre_;
  double half_;
  domain support_;
};

/// Any of the mechanisms above, chosen at run time.
class desensitizer {
public:
  using variant_type =
      std::variant<identity_map, global_map, local_map, adj_map, piecewise_map>;

  explicit desensitizer(variant_type m) : m_(std::move(m)) {}

  template <class Engine>
  std::int64_t operator()(Engine& g, std::int64_t x) const {
    return std::visit([&](const auto& m) { return m(g, x); }, m_);
  }
  domain support() const {
    return std::visit([](const auto& m) { return m.support(); }, m_);
  }
  dp::privacy_cost cost() const {
    return std::visit([](const auto& m) { return m.cost(); }, m_);
  }
  std::string name() const {
    return std::visit([](const auto& m) { return m.name(); }, m_);
  }
  template <class Real>
  std::vector<Real> log_pmf(std::int64_t x) const {
    return std::visit(
        [&](const auto& m) { return m.template log_pmf<Real>(x); }, m_);
  }
  const variant_type& get() const { return m_; }

private:
  variant_type m_;
};

/// The mechanism `p` describes on domain `d`, with budget `epsilon` (the
/// parameter's epsilon, or a share of it when the budget is split across
/// features). Throws veil::input_error for a configuration it cannot honour.
desensitizer make_desensitizer(const mechanism_params& p, const domain& d,
                               dp::rational epsilon);
/// Same, with epsilon = p.epsilon.
desensitizer make_desensitizer(const mechanism_params& p, const domain& d);

} // namespace veil::protocols::opboost
