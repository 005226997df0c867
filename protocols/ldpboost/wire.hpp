#pragma once

// LDP boosting's messages (spec ldp-boosting §4.1): the data user asks the
// owners it selected for one perturbed share each; an owner answers once
// in its lifetime. The request carries the ensemble so far (the owners'
// weights are computed lazily from it at selection time, spec §4.3: the
// same weights as eager updates after every round, without a broadcast to
// every owner each round). Plain structs, no CAF.

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "learners/samme/base_learners.hpp"
#include "protocols/bits.hpp"

namespace veil::protocols::ldpboost {

using party_id = std::int32_t; ///< the data user is 0, owners 1..L

/// One accepted base classifier.
using member = std::variant<learners::nearest_centroid, learners::stump,
                            learners::logistic_regression>;

/// An ensemble as it travels: one kind per member (0 nearest centroid, 1
/// stump, 2 logistic regression) and the members' numbers one after the
/// other (nearest centroid: K, then per class its centroid's length and
/// values, 0 for a class without one; stump: feature, threshold, leaf 0,
/// leaf 1; logistic regression: d, then θ).
struct encoded_ensemble {
  std::vector<std::uint8_t> kinds;
  std::vector<double> numbers;
};

encoded_ensemble encode(const std::vector<member>& ensemble);
/// The members back; none if the encoding is malformed (a kind, a count or
/// a class out of range, numbers missing or left over, a non-finite one).
std::optional<std::vector<member>> decode(const encoded_ensemble& e);

struct share_request {
  std::uint32_t round = 0;
  std::uint32_t attempt = 0;
  /// The accepted rounds so far: α and the classifier of each.
  std::vector<double> alpha;
  encoded_ensemble ensemble;
  /// Stumps: this round's threshold per (scaled) feature.
  std::vector<double> thresholds;
};

/// An owner's one release: NCC, its rows' perturbed w·x′ (rows × d), their
/// labels and weights; stumps, the perturbed cross-table differences (2d);
/// logistic regression, its perturbed θ (d).
struct share_reply {
  std::uint32_t round = 0;
  std::uint32_t attempt = 0;
  std::vector<double> values;
  std::vector<std::int32_t> labels;
  std::vector<double> weights;
};

/// Data user -> a `veil node`'s block of owners (one party of the roster
/// hosting many owner actors): the same request for each of `owners`
/// (indices within the block). One message per block and attempt, not
/// one per owner: the ensemble crosses the network once.
struct block_request {
  std::vector<std::uint32_t> owners;
  share_request request;
};

/// A block of owners -> data user: owner `owner`'s (its index within the
/// block) one answer.
struct block_reply {
  std::uint32_t owner = 0;
  share_reply reply;
};

using protocols::failure;

using message = std::variant<share_request, share_reply, block_request,
                             block_reply, failure>;
using envelope = addressed<message>;
using outbox = std::vector<envelope>;

const char* message_name(const message& m);

} // namespace veil::protocols::ldpboost
