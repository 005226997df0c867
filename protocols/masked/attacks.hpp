#pragma once

// The attacks MaskedXGBoost's paper runs against each side (spec
// maskedxgboost §7.6–7.7) besides the least-squares one of split.hpp: the
// active party's subset attack on a splitting vector, and the measures the
// audit reports them with.

#include <cstdint>
#include <span>
#include <vector>

namespace veil::protocols::masked {

/// The active party's attack on a noise matrix B (n × W, column-major) of
/// a splitting vector with `left` ones (the attacker knows n_A, §7.7):
/// the set S of `left` rows minimising Σ_w |Σ_{j∈S} b_jw| (without
/// disturbing noise the true left set sums to exactly 0), by exhaustive
/// search; 1 for the rows in S. n at most 30.
std::vector<std::uint8_t> subset_attack(std::span<const double> b,
                                        std::size_t n, int w, std::size_t left);

/// Share of positions where `guess` equals `truth`.
double bit_match(std::span<const std::uint8_t> guess,
                 std::span<const std::uint8_t> truth);

/// A binary guess against the truth: accuracy, balanced accuracy (the
/// mean of the two classes' recalls: 0.5 is chance) and the majority
/// class's share (what always guessing it scores).
struct label_score {
  double accuracy = 0;
  double balanced = 0;
  double majority = 0;
};
label_score score_labels(std::span<const std::uint8_t> guess,
                         std::span<const std::uint8_t> truth);

} // namespace veil::protocols::masked
