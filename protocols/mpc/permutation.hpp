#pragma once

// SecPerm and SecDisc (spec privet §4.11–4.12): shared vectors permuted by
// a permutation only its owner knows (a feature's sorting order), and then
// summed per equal-frequency bucket of that order, with no truncation: the
// bucket sums are bit-exact.

#include <cstdint>
#include <vector>

#include "protocols/mpc/party.hpp"

namespace veil::protocols::mpc {

/// One permutation of shared vectors: the owner, its permutation π (the
/// others pass an empty one) and the vectors (one length n).
struct permutation_job {
  int owner = 0;
  std::vector<std::uint32_t> pi;
  std::vector<words> xs;
};

/// Shares of gather(π, x) for every x of every job, all jobs in one round:
/// each owner sends π_s = π_p⁻¹ ∘ π to the others and they send it x − r;
/// every vector has a fresh (r, gather(π_p, r)) from the dealer. Throws
/// std::runtime_error on a π_s that is not a permutation of [0, n) or
/// words of the wrong length.
task<std::vector<std::vector<words>>>
permute_all(party& self, std::vector<permutation_job> jobs);

/// One job's permute_all.
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
/// SecDisc for every job (each permuted by its owner's sorting order) in
/// one round: per job, `buckets` shares per vector.
task<std::vector<std::vector<words>>>
bucket_sums_all(party& self, std::vector<permutation_job> jobs, int buckets);

} // namespace veil::protocols::mpc
