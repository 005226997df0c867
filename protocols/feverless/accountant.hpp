#pragma once

// Noise calibration and privacy accounting of FEVERLESS (spec feverless
// §7.6, §12.3). The paper states its guarantee per query only; this adds
// the honest total over the training (an addition, spec §12.3 [D]).

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
  /// (epsilon, delta)-DP of one released sum (infinite without noise).
  double release_epsilon = 0;
  double release_delta = 0;
  /// Non-empty when the stated guarantee is doubtful or absent.
  std::string warning;
};

/// Calibrates sigma for `p` (mode, budget, calibration, noise switch). A
/// total budget is divided over `record_query_bound` = NT·d·f queries, each
/// releasing two sums:
///  - composition::basic: each sum gets (eps/(2K), delta/(2K)), and sigma
///    follows from the calibration switch;
///  - composition::zcdp: rho_total = (sqrt(ln(1/delta) + eps) -
///    sqrt(ln(1/delta)))^2 solves eps = rho + 2 sqrt(rho ln(1/delta)); each
///    sum gets rho_total/(2K), so sigma = sqrt(K / rho_total); the per-sum
///    epsilon reported is the exact one of that sigma at delta/(2K).
/// Throws veil::input_error when p is invalid.
noise_calibration calibrate(const params& p, std::uint64_t record_query_bound);

/// The smallest epsilon for which Gaussian noise `sigma` (per unit
/// sensitivity) is (epsilon, delta)-DP: the inverse of dp::analytic_delta.
double analytic_epsilon(double sigma, double delta);

/// What a client can say about the privacy of the training so far.
struct privacy_report {
  /// false for plain mode and for noise off: no differential privacy.
  bool protected_sums = false;
  double sigma = 0;
  /// Guarantee of one released sum (G or H of one query).
  double release_epsilon = 0;
  double release_delta = 0;
  /// Guarantee of one (G, H) query under basic composition: 2x the above.
  double query_epsilon = 0;
  double query_delta = 0;
  /// zCDP of one released sum: 1 / (2 sigma^2).
  double release_rho = 0;
  /// Queries this client sourced, answered (sent a value for), and all
  /// queries of the session so far.
  std::uint64_t queries_caused = 0;
  std::uint64_t queries_answered = 0;
  std::uint64_t queries_total = 0;
  /// The most queries any one record took part in so far (counted: a
  /// record is in a query when its id is among the query's missing ids).
  std::uint64_t record_queries = 0;
  /// The a-priori bound NT·d·f: a record is in one bucket per (node on its
  /// path, feature).
  std::uint64_t record_query_bound = 0;
  /// Total over record_queries queries under basic composition.
  double basic_epsilon = 0;
  double basic_delta = 0;
  /// Total under zCDP: rho summed over 2·record_queries releases, and the
  /// (epsilon, zcdp_delta)-DP it implies.
  double zcdp_rho = 0;
  double zcdp_epsilon = 0;
  double zcdp_delta = 0;
  /// Non-empty when the stated guarantee is doubtful or absent.
  std::string warning;
};

/// Counts queries per record and turns the counts into a privacy_report.
class privacy_accountant {
public:
  privacy_accountant() = default;

  /// Starts accounting for `rows` records.
  void configure(const params& p, const noise_calibration& c,
                 std::uint64_t record_query_bound, std::size_t rows);

  /// One query of the session with its missing ids (each < rows).
  void count_query(std::span<const std::uint32_t> ids);
  void caused(std::uint64_t n) { caused_ += n; }
  void answered(std::uint64_t n) { answered_ += n; }

  privacy_report report() const;

private:
  mode mode_ = mode::plain;
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
