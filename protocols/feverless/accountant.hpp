#pragma once

// Noise calibration and privacy accounting of FEVERLESS (spec feverless
// §7.6, §12.3). The paper states its guarantee per query only; this adds
// the total over the training (an addition, spec §12.3 [D]), fixed before
// training from the most queries one record can join.
//
// Neighbouring training sets: the same rows, columns and label holders, and
// one row's label changed (label-level DP). Every released quantity (the
// noisy bucket sums G and H, and the gains and leaf weights computed from
// them) is computed with margins that follow from the public model, so a
// changed label moves the row's gradient g by exactly 1 and leaves its
// hessian h as it is: a hessian sum is a function of public values, and
// only the gradient sum of a query is charged. Veil noises G with Δ_g = 1
// and, as the paper does, H with Δ_h = 1/4 (spec §7.6).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocols/feverless/params.hpp"

namespace veil::protocols::feverless {

/// The noise of one released sum (a G or an H of one query) and the
/// guarantee it buys. The noise of a sum with sensitivity Δ has standard
/// deviation Δ·sigma.
struct noise_calibration {
  /// Noise multiplier per unit of sensitivity; 0 = no noise.
  double sigma = 0;
  /// (epsilon, delta)-DP of one released sum (infinite without noise). With
  /// the classical calibration at a large epsilon, delta is the true one of
  /// sigma (larger than the delta asked for).
  double release_epsilon = 0;
  double release_delta = 0;
  /// Non-empty when the stated guarantee is absent or weaker than asked.
  std::string warning;
};

/// Calibrates sigma for `p` (mode, budget, calibration, noise switch). A
/// total budget is divided over `record_query_bound` = NT·d·f queries, each
/// releasing one label-dependent sum (its G):
///  - composition::basic: each G gets (eps/K, delta/K), and sigma follows
///    from the calibration switch;
///  - composition::zcdp: rho_total = (sqrt(ln(1/delta) + eps) -
///    sqrt(ln(1/delta)))^2 solves eps = rho + 2 sqrt(rho ln(1/delta)); each
///    G gets rho_total/K, so sigma = sqrt(K / (2 rho_total)); the per-sum
///    epsilon reported is the exact one of that sigma at delta/K.
/// The classical calibration (the paper's) is only proven for epsilon < 1;
/// where its sigma does not give the (epsilon, delta) asked for, the true
/// delta of that sigma (dp::analytic_delta) is reported and used, with a
/// warning, and a total budget that would then be exceeded is refused.
/// Throws veil::input_error when p is invalid or cannot be honoured.
noise_calibration calibrate(const params& p, std::uint64_t record_query_bound);

/// The smallest epsilon for which Gaussian noise `sigma` (per unit
/// sensitivity) is (epsilon, delta)-DP: the inverse of dp::analytic_delta.
double analytic_epsilon(double sigma, double delta);

/// What a client can say about the privacy of the training.
struct privacy_report {
  /// false for plain mode and for noise off: no differential privacy.
  bool protected_sums = false;
  /// ldp: every client noises its own partial sums (local DP); otherwise
  /// one noise leader per query adds the noise (global DP).
  bool local = false;
  /// Whom the guarantee holds against: "any one other client"; without
  /// the source's own draw, not the client that drew a query's noise; in
  /// ahe mode, not the source (it holds the Paillier key).
  std::string against;
  double sigma = 0;
  /// Guarantee of one released gradient sum G, and so of one query (its H
  /// does not depend on the labels).
  double release_epsilon = 0;
  double release_delta = 0;
  /// zCDP of one released gradient sum: 1 / (2 sigma^2).
  double release_rho = 0;
  /// Queries this client sourced, answered (sent a value for), and all
  /// queries of the session so far.
  std::uint64_t queries_caused = 0;
  std::uint64_t queries_answered = 0;
  std::uint64_t queries_total = 0;
  /// The a-priori bound K = NT·d·f, fixed before training: a record is in
  /// one bucket per (node on its path, feature), and every non-empty bucket
  /// of a queried feature is released (its source's own rows included).
  std::uint64_t record_query_bound = 0;
  /// The headline: each label's guarantee over the whole training, over K
  /// queries. By zCDP (rho adds up), except for a total budget divided by
  /// basic composition, where it is the basic total.
  bool total_by_zcdp = true;
  double total_epsilon = 0;
  double total_delta = 0;
  double total_rho = 0;
  /// Basic composition over K queries (K times the per-query guarantee).
  double basic_epsilon = 0;
  double basic_delta = 0;
  /// Realised (known only after training): the most queries any one record
  /// joined, and the zCDP total over that many. At most the bound.
  std::uint64_t realised_record_queries = 0;
  double realised_epsilon = 0;
  /// Non-empty when the stated guarantee is absent or weaker than asked.
  std::string warning;

  /// One line in plain words, epsilon and delta rounded up: "each label:
  /// (1.5, 1e-05)-DP over the whole training against any one other client,
  /// by zCDP over at most 160 queries per record; per query: ..."
  std::string headline() const;
};

/// Counts the queries each record joins and turns the counts into a
/// privacy_report.
class privacy_accountant {
public:
  privacy_accountant() = default;

  /// Starts accounting for `rows` records.
  void configure(const params& p, const noise_calibration& c,
                 std::uint64_t record_query_bound, std::size_t rows);
  /// Per record: the queries it joined so far.
  const std::vector<std::uint32_t>& record_queries() const {
    return per_record_;
  }

  /// `n` queries of the session.
  void count_queries(std::uint64_t n) { total_ += n; }
  /// Every record of `rows` (each < rows) joined `queries` more queries: one
  /// per feature queried at each node on their path, whoever labels them
  /// (the client gives a tree's counts at its leaves).
  void count_records(std::span<const std::uint32_t> rows,
                     std::uint32_t queries);
  void caused(std::uint64_t n) { caused_ += n; }
  void answered(std::uint64_t n) { answered_ += n; }

  privacy_report report() const;

private:
  mode mode_ = mode::plain;
  bool source_noise_ = true;
  budget_kind budget_ = budget_kind::per_query;
  composition split_ = composition::zcdp;
  double delta_ = 0;
  noise_calibration calib_;
  std::uint64_t bound_ = 0;
  std::vector<std::uint32_t> per_record_;
  std::uint32_t max_per_record_ = 0;
  std::uint64_t caused_ = 0;
  std::uint64_t answered_ = 0;
  std::uint64_t total_ = 0;
};

} // namespace veil::protocols::feverless
