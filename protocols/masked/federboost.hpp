#pragma once

// FederBoost (Tian et al.; spec maskedxgboost §6.4), MaskedXGBoost's
// baseline that protects the passive party's features instead of the
// active party's gradients: each passive party cuts every feature into
// equal-frequency buckets, perturbs every row's bucket id by B-ary
// randomized response under ε_PP and sends the ids once; the active party
// trains on them alone and tells the passive party which bucket bounds its
// splits use, so that prediction routes rows by their true values.

#include <cstdint>
#include <vector>

#include "learners/binning/bin_matrix.hpp"
#include "learners/binning/quantile_cuts.hpp"
#include "protocols/crypto/random.hpp"

namespace veil::protocols::masked {

/// Probability that B-ary randomized response over `domain` values keeps
/// the true one: e^ε / (e^ε + domain − 1); every other value has
/// 1 / (e^ε + domain − 1). ε-LDP per value.
double keep_probability(double epsilon, int domain);

/// Every feature's bucket ids (its bins; a missing value is one more id),
/// perturbed by randomized response: the domain of each feature, then the
/// ids feature after feature.
struct perturbed_buckets {
  std::vector<std::int32_t> domains;
  std::vector<std::uint16_t> ids;
};

perturbed_buckets perturb_buckets(const learners::bin_matrix& bins,
                                  double epsilon, crypto::seeded_random& rng);

/// A split "id < t" the active party found on a perturbed column, as the
/// passive party applies it to true values: left iff x < threshold, a
/// missing value left iff default_left.
struct bucket_split {
  float threshold = 0;
  bool default_left = false;
};
bucket_split true_split(const learners::quantile_cuts& cuts,
                        const learners::bin_matrix& bins, std::size_t feature,
                        float id_threshold);

} // namespace veil::protocols::masked
