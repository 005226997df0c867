#pragma once

// Reciprocal, division, exponential and sigmoid on fixed-point shares
// (spec privet §4.9–4.10), by Newton–Raphson and the limit (1 + x/2^k)^2^k.
// The defaults are the spec's sound versions; the paper's literal ones are
// kept behind `paper_*` to document that they do not converge (a
// 0.632-capped reciprocal whose start is 1 ulp, a non-monotone sigmoid).

#include "protocols/mpc/arithmetic.hpp"
#include "protocols/mpc/masked.hpp"

namespace veil::protocols::mpc {

/// This party's share of x + c for a public real c (P_1 adds it).
words add_public(const party& self, std::span<const word> x, double c);

/// Newton steps from z = 1 on y' = y / 2^s for 1/y' to f = 20 bits when
/// y ≥ `smallest`: e_K = (1 − y')^(2^K) ≤ exp(−2^(K−s) smallest) must
/// fall below 2^-21, so 2^(K−s) smallest ≥ 16 suffices: K = s + 4 for
/// y ≥ 1 (the spec's s + 6 spends two more steps).
int newton_steps(int s, double smallest = 1);

/// x and ≈ x / y, both masked (masked.hpp), for 0 < y ≤ 2^s and
/// |x / y| < 2^(22 − s) (the spec's DivScaled): Newton from z = 1 on y' =
/// y / 2^s for 2^s / y, `iterations` (default newton_steps(s)) steps, the
/// first on a public z; every product masked. s ≤ 21 keeps every raw
/// product below 2^62. Rounds: 2 iterations (one word per element each),
/// where mul_fixed's Newton took 4 (six words).
struct quotient {
  masked numerator, ratio;
};
task<quotient> divide_masked(party& self, words x, words y, int s,
                             int iterations = 0);

/// divide_masked's ratio as additive shares.
task<words> divide_scaled(party& self, words x, words y, int s,
                          int iterations = 0);

/// Newton's reciprocal from a public start z0: z ← z (2 − y z),
/// `iterations` times (the paper: z0 = 2^-20, 20 iterations; the robust
/// sigmoid: z0 = 0.75, 5 on y in (1, 2]).
task<words> reciprocal(party& self, words y, double z0, int iterations);

/// e^x ≈ (1 + x / 2^k)^(2^k): one truncation and k squarings.
task<words> exponential(party& self, words x, int k);

/// The spec's robust sigmoid: the sign s of x, e = exp(−|x|) with 2^k =
/// 256, r = 1 / (1 + e) by 5 Newton steps from 0.75, then r or 1 − r by
/// the sign. Absolute error below 1.5·10⁻³ for |x| ≤ 30; valid for
/// |x| ≤ 256.
task<words> sigmoid(party& self, words x);

/// The paper's: 1 / (1 + exp(−x)) with 2^k = 4 and reciprocal(2^-20, 20).
/// Wrong (spec §4.10): kept to show it.
task<words> paper_sigmoid(party& self, words x);

} // namespace veil::protocols::mpc
