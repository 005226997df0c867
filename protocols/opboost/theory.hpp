#pragma once

// The exact analysis tools of spec opboost §9.3-§9.4: privacy-loss ratios and
// order-preserving probabilities computed from the mechanisms' exact output
// laws (in any number type), and the paper's closed-form bounds (Theorems
// 4.2, 4.3, 4.6) to compare them with.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "protocols/opboost/params.hpp"

namespace veil::protocols::opboost {

/// max_o |ln P(o|x) - ln P(o|x')| from two log-PMFs over the same support:
/// +infinity when one output is possible under one input only.
template <class Real>
Real max_privacy_loss(const std::vector<Real>& la,
                      const std::vector<Real>& lb) {
  using std::abs;
  using std::isinf;
  Real worst = Real(0);
  const Real inf = std::numeric_limits<Real>::infinity();
  for (std::size_t o = 0; o < la.size(); ++o) {
    bool a_none = isinf(la[o]), b_none = isinf(lb[o]);
    if (a_none && b_none)
      continue;
    if (a_none || b_none)
      return inf;
    Real d = abs(la[o] - lb[o]);
    if (d > worst)
      worst = d;
  }
  return worst;
}

/// Pr[o2 > o1] for independent outputs o1 ~ P(.|x1), o2 ~ P(.|x2), from
/// log-PMFs over the same support (ties count as not preserved, Def. 2.4).
template <class Real>
Real prob_greater(const std::vector<Real>& l1, const std::vector<Real>& l2) {
  using std::exp;
  Real below = Real(0); // P(o1 < o)
  Real total = Real(0);
  for (std::size_t o = 0; o < l1.size(); ++o) {
    total += exp(l2[o]) * below;
    below += exp(l1[o]);
  }
  return total;
}

/// Pr[o2 > o1] from linear PMFs (same support).
template <class Real>
Real prob_greater_linear(const std::vector<Real>& p1,
                         const std::vector<Real>& p2) {
  Real below = Real(0);
  Real total = Real(0);
  for (std::size_t o = 0; o < p1.size(); ++o) {
    total += p2[o] * below;
    below += p1[o];
  }
  return total;
}

/// Total variation distance between two laws given as log-PMFs.
template <class Real>
Real total_variation(const std::vector<Real>& la, const std::vector<Real>& lb) {
  using std::abs;
  using std::exp;
  Real s = Real(0);
  for (std::size_t o = 0; o < la.size(); ++o)
    s += abs(exp(la[o]) - exp(lb[o]));
  return s / 2;
}

/// The log-PMFs of a mechanism for every input of D⊥, computed once.
template <class Real>
class pmf_table {
public:
  template <class Mechanism>
  pmf_table(const Mechanism& m, const domain& d) : d_(d) {
    using std::exp;
    rows_.reserve(static_cast<std::size_t>(d.size()));
    probs_.reserve(static_cast<std::size_t>(d.size()));
    for (std::int64_t x = d.lo; x <= d.hi; ++x) {
      rows_.push_back(m.template log_pmf<Real>(x));
      std::vector<Real> p;
      p.reserve(rows_.back().size());
      for (const auto& l : rows_.back())
        p.push_back(exp(l));
      probs_.push_back(std::move(p));
    }
  }

  /// log P(. | x) over the mechanism's support.
  const std::vector<Real>& of(std::int64_t x) const {
    return rows_[static_cast<std::size_t>(x - d_.lo)];
  }
  /// P(. | x).
  const std::vector<Real>& probabilities(std::int64_t x) const {
    return probs_[static_cast<std::size_t>(x - d_.lo)];
  }
  /// Pr[o(x2) > o(x1)].
  Real order_probability(std::int64_t x1, std::int64_t x2) const {
    return prob_greater_linear(probabilities(x1), probabilities(x2));
  }

  /// The exact worst-case privacy loss over all input pairs at distance t
  /// (spec §2.5's table, §9.3).
  Real worst_loss(std::int64_t t) const {
    Real worst = Real(0);
    for (std::int64_t x = d_.lo; x + t <= d_.hi; ++x) {
      Real l = max_privacy_loss(of(x), of(x + t));
      if (l > worst)
        worst = l;
    }
    return worst;
  }

  /// min over x1 of Pr[o(x1 + t) > o(x1)] (spec §4.1's "exact min").
  Real min_order_probability(std::int64_t t) const {
    Real best = Real(1);
    for (std::int64_t x = d_.lo; x + t <= d_.hi; ++x) {
      Real p = order_probability(x, x + t);
      if (p < best)
        best = p;
    }
    return best;
  }

private:
  domain d_;
  std::vector<std::vector<Real>> rows_;
  std::vector<std::vector<Real>> probs_;
};

/// Mean and standard deviation of a statistic.
struct moments {
  double mean = 0;
  double sd = 0;
};

/// The exact mean and standard deviation of the weighted Kendall tau_dr
/// (spec §7.3: <r,s>_w / <r,r>_w, w = dense-rank distance) between raw
/// values r and their desensitized values s, when counts[a] raw values
/// equal d.lo + a (each count > 0) and each is desensitized independently
/// by `m`. With Y = sgn(s_j - s_i) for r_i < r_j, tau_dr = sum w Y / W;
/// Var(sum w Y) adds w^2 Var(Y) over pairs and the covariances of pairs that
/// share one value, summed by value class: O(|D|^3 |support|).
template <class Mechanism>
moments tau_dr_moments(const Mechanism& m, const domain& d,
                       const std::vector<double>& counts) {
  const auto k = static_cast<std::size_t>(d.size());
  std::vector<std::vector<double>> p(k), sign(k);
  std::size_t s = 0;
  for (std::size_t a = 0; a < k; ++a) {
    for (double l :
         m.template log_pmf<double>(d.lo + static_cast<std::int64_t>(a)))
      p[a].push_back(std::exp(l));
    s = p[a].size();
  }
  // sign[b][o] = E[sgn(s_b - o)] = P_b(> o) - P_b(< o).
  for (std::size_t b = 0; b < k; ++b) {
    sign[b].resize(s);
    double below = 0;
    for (std::size_t o = 0; o < s; ++o) {
      double above = 1 - below - p[b][o];
      sign[b][o] = above - below;
      below += p[b][o];
    }
  }
  auto expect = [&](std::size_t a, auto&& f) {
    double e = 0;
    for (std::size_t o = 0; o < s; ++o)
      e += p[a][o] * f(o);
    return e;
  };
  // mu[a][b] = E[sgn(s_b - s_a)].
  std::vector<std::vector<double>> mu(k, std::vector<double>(k));
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = 0; b < k; ++b)
      mu[a][b] = expect(a, [&](std::size_t o) { return sign[b][o]; });
  double w_total = 0, mean = 0, var = 0;
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = a + 1; b < k; ++b) {
      double w = static_cast<double>(b - a), n = counts[a] * counts[b];
      double tie = expect(a, [&](std::size_t o) { return p[b][o]; });
      w_total += n * w;
      mean += n * w * mu[a][b];
      var += n * w * w * (1 - tie - mu[a][b] * mu[a][b]);
    }
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = 0; b < k; ++b) {
      if (b == a)
        continue;
      for (std::size_t c = 0; c < k; ++c) {
        if (c == a)
          continue;
        double pairs = counts[a] * counts[b] * (counts[c] - (b == c ? 1 : 0));
        double sigma = ((b > a) == (c > a)) ? 1 : -1;
        double joint =
            expect(a, [&](std::size_t o) { return sign[b][o] * sign[c][o]; });
        double cov = joint - mu[a][b] * mu[a][c];
        var += pairs * static_cast<double>(b > a ? b - a : a - b) *
               static_cast<double>(c > a ? c - a : a - c) * sigma * cov;
      }
    }
  return {mean / w_total, std::sqrt(std::max(var, 0.0)) / w_total};
}

/// Theorem 4.2's lower bound on Global-map's order-preserving probability
/// for pairs at distance t on a domain of `dsize` values:
/// 1 - ((1 - q^2) t + 1) / ((1 + q - q^(t+1) - q^(|D|-t)) (1 + q)) q^t,
/// q = e^(-eps/2).
double global_map_gamma_bound(double epsilon, std::int64_t dsize,
                              std::int64_t t);

/// Theorem 4.3: GRR's exact order-preserving probability for distance t.
double grr_gamma(double epsilon, std::int64_t dsize, std::int64_t t);

/// Theorem 4.6's Adj-map bound with partition distance T and k partitions,
/// q = e^(-eps_prt/2):
/// 1 - q^T ( ((1-q^2) T + 1) / ((1 + q - q^(T+1) - q^(k-T)) (1+q))
///           - (1-q)^2 (T+1) / (2 (1+q)^2) ).
/// With drop_q_k_minus_T the q^(k-T) term is left out, which is how the
/// paper's Table 5 was computed (spec §4.2, §9.4). Not a true lower bound.
double adj_map_gamma_bound(double eps_prt, std::int64_t T, std::int64_t k,
                           bool drop_q_k_minus_T);

} // namespace veil::protocols::opboost
