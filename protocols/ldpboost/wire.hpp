#pragma once

// LDP boosting's messages (spec ldp-boosting §4.1): the data user asks the
// owners it selected for one perturbed share each; an owner answers once
// in its lifetime. The request carries the ensemble so far (the owners'
// weights are computed lazily from it at selection time, spec §4.3: the
// same weights as eager updates after every round, without a broadcast to
// every owner each round). Plain structs, no CAF.

#include <cstdint>
#include <variant>
#include <vector>

#include "learners/samme/base_learners.hpp"
#include "protocols/bits.hpp"

namespace veil::protocols::ldpboost {

using party_id = std::int32_t; ///< the data user is 0, owners 1..L

/// One accepted base classifier.
using member = std::variant<learners::nearest_centroid, learners::stump,
                            learners::logistic_regression>;

struct share_request {
  std::uint32_t round = 0;
  std::uint32_t attempt = 0;
  /// The accepted rounds so far: α and the classifier of each.
  std::vector<double> alpha;
  std::vector<member> ensemble;
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

using protocols::failure;

using message = std::variant<share_request, share_reply, failure>;
using envelope = addressed<message>;
using outbox = std::vector<envelope>;

const char* message_name(const message& m);

} // namespace veil::protocols::ldpboost
