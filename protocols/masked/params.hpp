#pragma once

// MaskedXGBoost's settings and what they fix before training (spec
// maskedxgboost §4.6 S1, §5.5): ρ from the passive parties' budget, the
// active party's per-release budget from its own, and the guarantee both
// print. Both roles and the coordinator calibrate from the same params, so
// they agree without a message.

#include <cstdint>
#include <string>

#include "protocols/masked/calibration.hpp"

namespace veil::protocols::masked {

/// How the active party (AP) sizes the noise energy C of a candidate
/// (§5.2): for the worst left set (the whole node: no extra disclosure),
/// or from the left counts n_A the passive party (PP) sends with its noise
/// (they disclose the counts, which Theorem 3 does not cover).
enum class energy_mode { worst, adaptive };

struct params {
  /// The AP's budget (--epsilon, --delta) ...
  double epsilon_ap = 1;
  double delta_ap = 1e-3;
  /// ... and the PP's, per noise matrix; δ_PP 0 means 1/n (n training rows).
  double epsilon_pp = 1;
  double delta_pp = 0;
  /// Noise columns per candidate: ε_PP > W ln 2 (ε_PP = 1 forces W = 1).
  int w = 1;
  /// The released gradients and hessians are clipped to |g| ≤ μ/2,
  /// 0 ≤ h ≤ μ/2: the paper's μ = 2e/(e + 1). μ ≥ 2 clips nothing (a
  /// logistic gradient lies in (−1, 1)).
  double mu = 1.4621171572600098;
  masked::accounting accounting = masked::accounting::per_step;
  masked::sensitivity sensitivity = masked::sensitivity::vector;
  energy_mode energy = energy_mode::worst;
  /// Calibrate ⟨g⟩ and ⟨h⟩ with half the budget each (basic composition
  /// of the two releases; the paper gives each the whole budget).
  bool split_gh = true;
  tail_method tail = tail_method::exact;
  /// σ2 = 0: only the structured noise, which cancels in the PP's sums
  /// exactly. No protection of the AP's gradient sums: a check that the
  /// protocol is lossless, never for real data.
  bool lossless_check = false;
  /// 0: noise from the operating system's CSPRNG; otherwise a fixed seed
  /// (tests and reproducible experiments: the noise is then predictable).
  std::uint64_t seed = 0;
  /// HE-XGBoost: bits of the Paillier modulus.
  int paillier_bits = 2048;

  /// Throws veil::input_error naming the first setting out of range
  /// (ε_PP ≤ W ln 2 included).
  void validate() const;
};

/// What params fix for a training of `trees` trees of depth `depth` on
/// `rows` rows with `passives` passive parties, before it starts.
struct calibration {
  double rho = 0;    ///< σ1²/σ2² (Theorem 3)
  double sigma1 = 0; ///< √ρ
  double sigma2 = 1; ///< 0 with lossless_check
  int w = 1;
  double delta_pp = 0; ///< as used (1/rows when not given)
  /// What one release ⟨g⟩_i or ⟨h⟩_i may spend, and the k it was
  /// divided by.
  release_budget release;
  std::uint64_t steps = 0; ///< T·D·passives
};

/// What the active party applied, as it reports it after training (the
/// session prints these, not its own recomputation): per release (ε0, δ0)
/// and the k it divided by, ρ (MaskedXGBoost) or the noise's standard
/// deviation (the LDP baselines).
struct applied {
  double epsilon0 = 0;
  double delta0 = 0;
  std::uint64_t divided_over = 0;
  double rho = 0;
  double noise_stddev = 0;
};

/// `max_candidates`: the most candidates a PP scores at one node (the
/// strict accounting counts every candidate's release; the PPs report it
/// at setup). Throws input_error when the budgets cannot be met.
calibration calibrate(const params& p, std::uint64_t rows, int trees, int depth,
                      int passives, std::uint64_t max_candidates = 1);

/// C of a candidate with `left` of a node's `rows` instances on its left
/// (`left` is ignored in energy_mode::worst).
double candidate_energy(const params& p, const calibration& c,
                        std::uint64_t rows, std::uint64_t left);

const char* to_string(accounting a);
const char* to_string(sensitivity s);
const char* to_string(energy_mode e);

} // namespace veil::protocols::masked
