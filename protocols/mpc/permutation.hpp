#pragma once

// SecPerm and SecDisc (spec privet §4.11–4.12): shared vectors permuted by
// a permutation only its owner knows (a feature's sorting order), and then
// summed per equal-frequency bucket of that order, with no truncation: the
// bucket sums are bit-exact.

#include <cstdint>
#include <vector>

#include "protocols/mpc/party.hpp"

namespace veil::protocols::mpc {

/// Shares of apply(π, x) for every x of `xs` (one length n), π the
/// owner's (the others pass an empty π). The owner sends π_s = π_p⁻¹ ∘ π
/// to the others and they send it x − r, in one round; every vector has a
/// fresh (r, apply(π_p, r)) from the dealer. Throws std::runtime_error on
/// a π_s that is not a permutation of [0, n).
task<std::vector<words>> permute(party& self, int owner,
                                 std::vector<std::uint32_t> pi,
                                 std::vector<words> xs);

/// Sorted positions [bounds[b], bounds[b + 1]) are bucket b:
/// bounds[b] = ⌊b n / buckets⌋ (public: they depend on n and B only).
std::vector<std::size_t> bucket_bounds(std::size_t n, int buckets);

/// SecDisc: for every x of `xs`, the sums of x over the owner's buckets
/// (x permuted by `order`, the owner's stable sorting permutation, then
/// summed per bucket): `buckets` shares per vector.
task<std::vector<words>> bucket_sums(party& self, int owner,
                                     std::vector<std::uint32_t> order,
                                     std::vector<words> xs, int buckets);

} // namespace veil::protocols::mpc
