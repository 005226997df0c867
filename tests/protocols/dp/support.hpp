#pragma once

// Statistical and exact checks shared by the dp and opboost tests:
// a chi-square goodness-of-fit test with pooled sparse cells, and an engine
// that enumerates every random choice of a sampler's attempt exactly.

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/seeds.hpp"

namespace veil::test {

/// Seeds of the dp and opboost tests (derived from the base seed).
inline constexpr std::uint64_t dp_seed = seed + 101;
inline constexpr std::uint64_t opboost_seed = seed + 102;

/// Result of a chi-square goodness-of-fit test.
struct gof_result {
  double statistic = 0;
  int df = 0;
  double p_value = 1;
  /// The statistic's critical value at the test's significance level.
  double critical = 0;
  /// Total variation between the empirical and the exact law.
  double tv = 0;
  /// Cells with positive probability (before pooling).
  std::size_t support = 0;
  /// Draws that landed on a probability-0 cell.
  std::uint64_t impossible = 0;
};

/// Pearson's chi-square of `counts` (n draws) against `probs` (summing to
/// 1), after pooling adjacent cells, in order, until each pooled cell
/// expects at least 5 draws (a leftover tail joins the last cell).
/// df = pooled cells - 1; `alpha` is the significance level of `critical`.
inline gof_result chi_square(const std::vector<std::uint64_t>& counts,
                             const std::vector<double>& probs, double alpha) {
  gof_result r;
  std::uint64_t n = 0;
  for (auto c : counts)
    n += c;
  std::vector<double> obs, exp;
  double o = 0, e = 0;
  for (std::size_t k = 0; k < probs.size(); ++k) {
    if (probs[k] <= 0) {
      r.impossible += counts[k];
      continue;
    }
    ++r.support;
    r.tv += std::fabs(static_cast<double>(counts[k]) / static_cast<double>(n) -
                      probs[k]);
    o += static_cast<double>(counts[k]);
    e += probs[k] * static_cast<double>(n);
    if (e >= 5) {
      obs.push_back(o);
      exp.push_back(e);
      o = e = 0;
    }
  }
  r.tv /= 2;
  if (e > 0 || o > 0) {
    if (obs.empty()) {
      obs.push_back(o);
      exp.push_back(e);
    } else {
      obs.back() += o;
      exp.back() += e;
    }
  }
  for (std::size_t k = 0; k < obs.size(); ++k)
    r.statistic += (obs[k] - exp[k]) * (obs[k] - exp[k]) / exp[k];
  r.df = static_cast<int>(obs.size()) - 1;
  if (r.df >= 1) {
    boost::math::chi_squared dist(r.df);
    r.p_value = boost::math::cdf(complement(dist, r.statistic));
    r.critical = boost::math::quantile(complement(dist, alpha));
  }
  return r;
}

/// Checks a gof_result: no impossible draw, statistic below the critical
/// value (p > alpha), and TV < 3 sqrt(support / n) (spec opboost §9.1).
inline void require_fit(const gof_result& r, std::uint64_t n,
                        const std::string& what) {
  BOOST_TEST_MESSAGE(what << ": chi2 = " << r.statistic << ", df = " << r.df
                          << ", critical = " << r.critical
                          << ", p = " << r.p_value << ", TV = " << r.tv);
  BOOST_TEST(r.impossible == 0u, what << ": draws on impossible outputs");
  BOOST_TEST(r.df >= 1, what << ": too few draws for a test");
  BOOST_TEST(r.statistic <= r.critical,
             what << ": chi2 = " << r.statistic << " > critical " << r.critical
                  << " (df " << r.df << ", p " << r.p_value << ")");
  double tv_bound =
      3 * std::sqrt(static_cast<double>(r.support) / static_cast<double>(n));
  BOOST_TEST(r.tv < tv_bound, what << ": TV " << r.tv << " >= " << tv_bound);
}

/// Takes `draws` outputs of `draw()` on [lo, hi], requires that none falls
/// outside, and checks their frequencies against the exact law `pmf(o)`
/// (chi_square at significance `alpha`, then require_fit).
template <class Draw, class Pmf>
void require_draws_fit(Draw draw, std::int64_t lo, std::int64_t hi, Pmf pmf,
                       std::uint64_t draws, double alpha,
                       const std::string& what) {
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(hi - lo + 1));
  std::uint64_t outside = 0;
  for (std::uint64_t i = 0; i < draws; ++i) {
    auto o = draw();
    if (o < lo || o > hi) {
      ++outside;
      continue;
    }
    ++counts[static_cast<std::size_t>(o - lo)];
  }
  BOOST_TEST(outside == 0u);
  std::vector<double> probs;
  probs.reserve(counts.size());
  for (auto o = lo; o <= hi; ++o)
    probs.push_back(pmf(o));
  require_fit(chi_square(counts, probs, alpha), draws, what);
}

/// Thrown by enumerating engines when a path's probability falls below the
/// pruning threshold.
struct pruned_path {};

/// An engine that, run again and again on one path of choices after
/// another, visits every execution of a sampler's attempt with its exact
/// probability (in long double). It provides uniform_below and bernoulli
/// (rational, exact weights; bernoulli_u128 for 128-bit parts) and, when
/// ExpCoins, bernoulli_exp (and bernoulli_exp_u128) as one coin
/// with weight exp(-num/den), so that composite samplers can be checked
/// given an exact Bernoulli(exp(-x)).
template <bool ExpCoins>
class path_engine {
public:
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~std::uint64_t{0}; }
  result_type operator()() {
    throw std::logic_error("path_engine: raw bits are not enumerable");
  }

  struct choice {
    std::vector<long double> weights;
    std::size_t index = 0;
  };

  path_engine(std::vector<choice>& path, long double prune)
      : path_(path), prune_(prune) {}

  std::uint64_t uniform_below(std::uint64_t n) {
    std::vector<long double> w(n, 1.0L / static_cast<long double>(n));
    return take(std::move(w));
  }
  bool bernoulli(std::uint64_t num, std::uint64_t den) {
    long double p = static_cast<long double>(num) / den;
    return take({1 - p, p}) == 1;
  }
  bool bernoulli_exp(std::uint64_t num, std::uint64_t den) requires ExpCoins {
    long double p = std::exp(-static_cast<long double>(num) / den);
    return take({1 - p, p}) == 1;
  }
  /// The 128-bit coins of discrete_gaussian.hpp, likewise.
  bool bernoulli_u128(unsigned __int128 num, unsigned __int128 den) {
    long double p = num >= den ? 1
                               : static_cast<long double>(num) /
                                     static_cast<long double>(den);
    return take({1 - p, p}) == 1;
  }
  bool bernoulli_exp_u128(unsigned __int128 num,
                          unsigned __int128 den) requires ExpCoins {
    long double p = std::exp(-static_cast<long double>(num) /
                             static_cast<long double>(den));
    return take({1 - p, p}) == 1;
  }

  long double probability() const { return prob_; }

private:
  std::size_t take(std::vector<long double> w) {
    if (pos_ == path_.size())
      path_.push_back({std::move(w), 0});
    const auto& c = path_[pos_++];
    prob_ *= c.weights[c.index];
    if (prob_ < prune_)
      throw pruned_path{};
    return c.index;
  }

  std::vector<choice>& path_;
  long double prune_;
  std::size_t pos_ = 0;
  long double prob_ = 1;
};

/// The exact law of one attempt: accepted outcomes with their
/// probabilities, the rejected mass and the pruned mass (paths below
/// `prune`); the three sum to 1.
struct attempt_law {
  std::map<std::int64_t, long double> accepted;
  long double rejected = 0;
  long double pruned = 0;

  long double accepted_mass() const {
    long double s = 0;
    for (auto& [k, p] : accepted)
      s += p;
    return s;
  }
};

template <bool ExpCoins, class Attempt>
attempt_law enumerate_attempt(Attempt attempt, long double prune) {
  using engine = path_engine<ExpCoins>;
  attempt_law law;
  std::vector<typename engine::choice> path;
  while (true) {
    engine g(path, prune);
    // The probability of the path so far, for pruned paths.
    long double p = 1;
    try {
      std::optional<std::int64_t> out = attempt(g);
      p = g.probability();
      if (out)
        law.accepted[*out] += p;
      else
        law.rejected += p;
    } catch (const pruned_path&) {
      p = 1;
      for (auto& c : path)
        p *= c.weights[c.index];
      // Only the choices made so far count: the prefix is the path.
      law.pruned += p;
    }
    // Next path: drop exhausted trailing choices, advance the last one.
    // The run that threw may have stopped before consuming the whole
    // recorded path only if it was pruned at its last choice, so the
    // recorded path is exactly the visited prefix.
    while (!path.empty() && path.back().index + 1 == path.back().weights.size())
      path.pop_back();
    if (path.empty())
      return law;
    ++path.back().index;
  }
}

} // namespace veil::test
