#pragma once

// The fixed seeds of the tests, in one place: a test that draws random data
// takes its seed from here, so that every run sees the same numbers and a
// failure reproduces.

#include <cstdint>

namespace veil::test {

/// The base seed.
inline constexpr std::uint64_t seed = 0x5EA1;

/// Per-area seeds, derived from the base seed so that the areas draw
/// unrelated streams.
inline constexpr std::uint64_t binning_seed = seed + 1;
inline constexpr std::uint64_t histogram_seed = seed + 2;
inline constexpr std::uint64_t split_seed = seed + 3;
inline constexpr std::uint64_t objective_seed = seed + 4;
inline constexpr std::uint64_t metrics_seed = seed + 5;
inline constexpr std::uint64_t tree_seed = seed + 6;

} // namespace veil::test
