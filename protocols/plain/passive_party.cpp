#include "protocols/plain/passive_party.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "learners/hist/histogram.hpp"
#include "learners/input_error.hpp"

namespace veil::protocols::plain {

namespace {

/// An outbox of one message to the active party (not an initializer list:
/// that would copy the message's vectors).
outbox to_active(message m) {
  outbox out;
  out.push_back({0, std::move(m)});
  return out;
}

} // namespace

std::vector<std::uint8_t> route(const learners::dataset& d,
                                const owned_split& s,
                                std::span<const std::uint32_t> rows) {
  std::vector<std::uint8_t> out(rows.size());
  auto col = d.column(static_cast<std::size_t>(s.feature));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    float x = col[rows[i]];
    out[i] = learners::is_missing(x) ? s.default_left : x < s.threshold;
  }
  return out;
}

passive_party::passive_party(learners::dataset train, exchange ex,
                             masked::params masking, party_id self)
    : train_(std::move(train)), exchange_(ex), masking_(masking), self_(self) {
  if (exchange_ != exchange::histograms)
    masking_.validate();
}

passive_party::passive_party(split_table splits, learners::dataset predict)
    : predict_(std::move(predict)), splits_(std::move(splits)) {
  for (const auto& [key, s] : splits_)
    if (s.feature < 0 ||
        static_cast<std::size_t>(s.feature) >= predict_.features())
      throw input_error("split table: tree " + std::to_string(key.first) +
                        " node " + std::to_string(key.second) +
                        " names feature " + std::to_string(s.feature) + " of " +
                        std::to_string(predict_.features()));
}

outcome<outbox> passive_party::on_message(party_id from, message m) {
  if (from != 0)
    return refuse("message", "only the active party (0) may send to a "
                             "passive party, got party " +
                                 std::to_string(from));
  if (auto* x = std::get_if<setup>(&m))
    return on_setup(*x);
  if (auto* x = std::get_if<tree_start>(&m))
    return on_tree_start(std::move(*x));
  if (auto* x = std::get_if<level_request>(&m))
    return on_level(*x);
  if (auto* x = std::get_if<split_query>(&m))
    return on_split_query(*x);
  if (auto* x = std::get_if<bucket_splits>(&m))
    return on_bucket_splits(*x);
  if (auto* x = std::get_if<encrypted_gradients>(&m))
    return on_encrypted_gradients(*x);
  if (auto* x = std::get_if<noisy_gradients>(&m))
    return on_noisy_gradients(std::move(*x));
  if (auto* x = std::get_if<masked_sums>(&m))
    return on_masked_sums(*x);
  if (auto* x = std::get_if<scored_split_query>(&m))
    return on_scored_query(*x);
  if (auto* x = std::get_if<predict_query>(&m))
    return on_predict(*x);
  return refuse("message", std::string("a passive party does not expect ") +
                               message_name(m));
}

outcome<outbox> passive_party::on_setup(const setup& m) {
  if (m.max_bin < 2 || m.max_bin > 65535 || m.threads < 1)
    return refuse("setup", "max_bin or threads out of range");
  threads_ = m.threads;
  try {
    cuts_ = learners::quantile_cuts::compute(train_, m.max_bin, threads_);
  } catch (const input_error& e) {
    return refuse("setup", e.what());
  }
  bins_ = learners::bin_matrix(train_, cuts_, threads_);
  ready_ = true;
  if (exchange_ == exchange::federboost) {
    // Its bucket ids, perturbed once for the whole training (ε_PP per
    // value).
    masked::noise_source source(masking_.seed,
                                static_cast<std::uint64_t>(self_));
    crypto::seeded_random rng(source.next_key());
    auto ids = masked::perturb_buckets(bins_, masking_.epsilon_pp, rng);
    return to_active(bucket_ids{std::move(ids.domains), std::move(ids.ids)});
  }
  setup_done reply;
  if (exchange_ == exchange::he) {
    he_key_ = paillier::public_key::from_bytes(m.paillier_key, m.paillier_bits);
    if (!he_key_ || m.paillier_bits != masking_.paillier_bits)
      return refuse("setup", "not a Paillier public key of the session's " +
                                 std::to_string(masking_.paillier_bits) +
                                 " bits");
    he_pack_.emplace(*he_key_, train_.rows());
  }
  if (passives_score(exchange_)) {
    try {
      m.tree_settings.validate();
      // Only ρ, σ2 and W matter here: the PP's own budget fixes them.
      if (exchange_ == exchange::masked)
        calibration_ = masked::calibrate(masking_, train_.rows(), 1, 1, 1);
    } catch (const input_error& e) {
      return refuse("setup", e.what());
    }
    tree_params_ = m.tree_settings;
    noise_.emplace(masking_.seed, static_cast<std::uint64_t>(self_));
    reply.max_candidates = masked::max_candidates(train_.features(), m.max_bin);
    return to_active(std::move(reply));
  }
  for (std::size_t f = 0; f < cuts_.features(); ++f)
    reply.bins_per_feature.push_back(cuts_.bins(f));
  return to_active(std::move(reply));
}

outcome<outbox> passive_party::on_tree_start(tree_start&& m) {
  if (!ready_)
    return refuse("tree_start", "no setup received yet");
  // MaskedXGBoost's gradients travel masked, never in the clear.
  auto want = exchange_ == exchange::histograms ? train_.rows() : 0;
  if (m.grads.size() != want)
    return refuse("tree_start", "expected " + std::to_string(want) +
                                    " gradient pairs, got " +
                                    std::to_string(m.grads.size()));
  if (m.tree < 0 || m.tree <= tree_)
    return refuse("tree_start", "tree ids must increase");
  tree_ = m.tree;
  depth_ = -1;
  grads_ = std::move(m.grads);
  std::vector<std::uint32_t> rows(train_.rows());
  std::iota(rows.begin(), rows.end(), 0u);
  partition_ = learners::row_partition(std::move(rows));
  return outbox{};
}

outcome<outbox> passive_party::on_level(const level_request& m) {
  if (m.tree != tree_)
    return refuse("level_request", "for tree " + std::to_string(m.tree) +
                                       ", current tree is " +
                                       std::to_string(tree_));
  if (m.depth != depth_ + 1)
    return refuse("level_request", "levels must come in order");
  depth_ = m.depth;
  std::vector<std::vector<std::uint8_t>> flags;
  std::vector<learners::node_split> splits;
  for (const auto& s : m.splits) {
    if (!partition_.contains(s.node))
      return refuse("level_request",
                    "split of unknown node " + std::to_string(s.node));
    auto n = partition_.size(s.node);
    if (s.goes_left_bits.size() != packed_size(n))
      return refuse("level_request", "split of node " + std::to_string(s.node) +
                                         " has the wrong number of bits");
    flags.push_back(unpack_bits(s.goes_left_bits, 0, n));
  }
  for (std::size_t k = 0; k < m.splits.size(); ++k)
    splits.push_back(
        {m.splits[k].node, m.splits[k].left, m.splits[k].right, flags[k]});
  try {
    partition_.split(splits, threads_);
  } catch (const std::invalid_argument& e) {
    return refuse("level_request", e.what());
  }
  if (m.last)
    return outbox{};
  if (exchange_ == exchange::masked)
    return noise_for(m);
  if (passives_score(exchange_))
    return scores_for(m);
  if (exchange_ == exchange::he)
    return encrypted_for(m);
  histograms reply;
  reply.tree = m.tree;
  reply.depth = m.depth;
  auto slots = bins_.layout().slots();
  reply.sums.assign(m.build.size() * slots, {});
  for (std::size_t k = 0; k < m.build.size(); ++k) {
    auto node = m.build[k];
    if (!partition_.contains(node))
      return refuse("level_request",
                    "histogram of unknown node " + std::to_string(node));
    reply.nodes.push_back(node);
    learners::build_histogram(
        bins_, grads_, partition_.rows_of(node),
        std::span<learners::grad_sum>(reply.sums.data() + k * slots, slots),
        threads_);
  }
  return to_active(std::move(reply));
}

outcome<outbox> passive_party::on_split_query(const split_query& m) {
  // Naming a feature and a bin is plain's: with another exchange the
  // features stay here, and answering would hand over any partition.
  if (exchange_ != exchange::histograms && exchange_ != exchange::he)
    return refuse("split_query", "this party splits only by its own best "
                                 "candidate (scored_split_query)");
  auto k = m.nodes.size();
  if (m.tree != tree_ || m.depth != depth_)
    return refuse("split_query", "not for the current level");
  if (m.features.size() != k || m.bins.size() != k ||
      m.default_left.size() != k)
    return refuse("split_query", "field lengths differ");
  split_answer reply;
  reply.tree = m.tree;
  reply.depth = m.depth;
  for (std::size_t i = 0; i < k; ++i) {
    auto f = m.features[i];
    if (f < 0 || static_cast<std::size_t>(f) >= train_.features())
      return refuse("split_query", "feature index out of range");
    if (m.bins[i] < 0 || m.bins[i] >= cuts_.bins(f))
      return refuse("split_query", "bin out of range");
    if (!partition_.contains(m.nodes[i]))
      return refuse("split_query", "unknown node");
    owned_split s{f, cuts_.threshold(f, m.bins[i]), m.default_left[i] != 0};
    splits_[{m.tree, m.nodes[i]}] = s;
    reply.nodes.push_back(m.nodes[i]);
    append_bits(reply.goes_left_bits,
                route(train_, s, partition_.rows_of(m.nodes[i])));
  }
  return to_active(std::move(reply));
}

outcome<outbox> passive_party::noise_for(const level_request& m) {
  noise_matrices reply;
  reply.tree = m.tree;
  reply.depth = m.depth;
  level_nodes_.clear();
  candidates_.clear();
  best_.clear();
  auto w = static_cast<std::size_t>(calibration_->w);
  std::size_t values = 0;
  for (auto node : m.build) {
    if (!partition_.contains(node))
      return refuse("level_request",
                    "noise for unknown node " + std::to_string(node));
    auto rows = partition_.rows_of(node);
    candidates_.push_back(masked::node_candidates(bins_, rows));
    values += candidates_.back().size() * w * rows.size();
    level_nodes_.push_back(node);
    reply.nodes.push_back(node);
    reply.candidates.push_back(
        static_cast<std::uint32_t>(candidates_.back().size()));
    if (masking_.energy == masked::energy_mode::adaptive)
      for (const auto& c : candidates_.back())
        reply.left_counts.push_back(c.left);
  }
  reply.noise.resize(values); // the level's noise is one message (M1)
  std::size_t at = 0;
  for (std::size_t i = 0; i < level_nodes_.size(); ++i) {
    auto rows = partition_.rows_of(level_nodes_[i]);
    auto size = candidates_[i].size() * w * rows.size();
    masked::make_noise(bins_, rows, candidates_[i], *calibration_, *noise_,
                       threads_, {reply.noise.data() + at, size});
    at += size;
  }
  return to_active(std::move(reply));
}

outcome<outbox>
passive_party::on_encrypted_gradients(const encrypted_gradients& m) {
  if (exchange_ != exchange::he || !he_key_)
    return refuse("encrypted_gradients", "not an HE-XGBoost session");
  if (m.tree != tree_)
    return refuse("encrypted_gradients", "not for the current tree");
  auto cts = masked::read_ciphertexts(*he_key_, m.ciphertexts, train_.rows());
  if (!cts)
    return refuse("encrypted_gradients",
                  "expected " + std::to_string(train_.rows()) +
                      " ciphertexts under the session's key");
  he_grads_ = std::move(*cts);
  return outbox{};
}

outcome<outbox> passive_party::encrypted_for(const level_request& m) {
  if (he_grads_.size() != train_.rows())
    return refuse("level_request", "no encrypted gradients for this tree");
  encrypted_histograms reply;
  reply.tree = m.tree;
  reply.depth = m.depth;
  for (auto node : m.build) {
    if (!partition_.contains(node))
      return refuse("level_request",
                    "histogram of unknown node " + std::to_string(node));
    reply.nodes.push_back(node);
    masked::encrypted_histogram(*he_key_, *he_pack_, he_grads_, bins_,
                                partition_.rows_of(node), reply.ciphertexts,
                                threads_);
  }
  return to_active(std::move(reply));
}

outcome<outbox> passive_party::on_bucket_splits(const bucket_splits& m) {
  if (exchange_ != exchange::federboost || !ready_)
    return refuse("bucket_splits", "not a FederBoost session");
  auto k = m.nodes.size();
  if (m.features.size() != k || m.thresholds.size() != k)
    return refuse("bucket_splits", "field lengths differ");
  for (std::size_t i = 0; i < k; ++i) {
    auto f = m.features[i];
    if (f < 0 || static_cast<std::size_t>(f) >= train_.features() ||
        !std::isfinite(m.thresholds[i]))
      return refuse("bucket_splits", "feature or threshold out of range");
    auto s = masked::true_split(cuts_, bins_, static_cast<std::size_t>(f),
                                m.thresholds[i]);
    splits_[{m.tree, m.nodes[i]}] = {f, s.threshold, s.default_left};
  }
  return outbox{};
}

outcome<outbox> passive_party::on_noisy_gradients(noisy_gradients&& m) {
  bool hessians = exchange_ == exchange::xgboost_ldp;
  if (exchange_ != exchange::xgboost_ldp &&
      exchange_ != exchange::fedxgboost_ldp)
    return refuse("noisy_gradients", "not an LDP baseline's session");
  if (m.tree != tree_)
    return refuse("noisy_gradients", "not for the current tree");
  if (m.g.size() != train_.rows() ||
      m.h.size() != (hessians ? train_.rows() : 0))
    return refuse("noisy_gradients",
                  "expected " + std::to_string(train_.rows()) + " gradients" +
                      (hessians ? " and hessians" : ""));
  for (auto* v : {&m.g, &m.h})
    for (double x : *v)
      if (!std::isfinite(x))
        return refuse("noisy_gradients", "a value is not finite");
  noisy_g_ = std::move(m.g);
  noisy_h_ = std::move(m.h);
  return outbox{};
}

outcome<outbox> passive_party::scores_for(const level_request& m) {
  if (noisy_g_.size() != train_.rows())
    return refuse("level_request", "no noisy gradients for this tree");
  passive_scores reply;
  reply.tree = m.tree;
  reply.depth = m.depth;
  level_nodes_.clear();
  candidates_.clear();
  best_.clear();
  for (auto node : m.build) {
    if (!partition_.contains(node))
      return refuse("level_request",
                    "scores for unknown node " + std::to_string(node));
    auto rows = partition_.rows_of(node);
    candidates_.push_back(masked::node_candidates(bins_, rows));
    auto best = masked::best_noisy_candidate(bins_, rows, candidates_.back(),
                                             noisy_g_, noisy_h_, tree_params_);
    level_nodes_.push_back(node);
    reply.nodes.push_back(node);
    best_.push_back(best ? static_cast<std::int64_t>(best->index) : -1);
    reply.gains.push_back(best ? best->gain
                               : -std::numeric_limits<double>::infinity());
  }
  return to_active(std::move(reply));
}

outcome<outbox> passive_party::on_masked_sums(const masked_sums& m) {
  if (exchange_ != exchange::masked)
    return refuse("masked_sums", "not a MaskedXGBoost session");
  if (m.tree != tree_ || m.depth != depth_ || m.nodes != level_nodes_ ||
      !best_.empty())
    return refuse("masked_sums", "not for the noise of the current level");
  if (m.sums.size() != 2 * m.nodes.size())
    return refuse("masked_sums", "one G and H per node expected");
  std::size_t need = 0;
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    need += 2 * candidates_[i].size() * partition_.size(m.nodes[i]);
  if (m.masked.size() != need)
    return refuse("masked_sums", "wrong number of masked values");
  passive_scores reply;
  reply.tree = m.tree;
  reply.depth = m.depth;
  reply.nodes = m.nodes;
  std::size_t at = 0;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    auto rows = partition_.rows_of(m.nodes[i]);
    auto size = 2 * candidates_[i].size() * rows.size();
    auto best = masked::best_candidate(
        bins_, rows, candidates_[i], {m.masked.data() + at, size},
        m.sums[2 * i], m.sums[2 * i + 1], tree_params_, threads_);
    at += size;
    best_.push_back(best ? static_cast<std::int64_t>(best->index) : -1);
    reply.gains.push_back(best ? best->gain
                               : -std::numeric_limits<double>::infinity());
  }
  return to_active(std::move(reply));
}

outcome<outbox> passive_party::on_scored_query(const scored_split_query& m) {
  if (!passives_score(exchange_))
    return refuse("scored_split_query", "this party scores no candidates");
  if (m.tree != tree_ || m.depth != depth_ || best_.empty())
    return refuse("scored_split_query", "not for the current level");
  split_answer reply;
  reply.tree = m.tree;
  reply.depth = m.depth;
  for (auto node : m.nodes) {
    auto it = std::find(level_nodes_.begin(), level_nodes_.end(), node);
    if (it == level_nodes_.end())
      return refuse("scored_split_query",
                    "node " + std::to_string(node) + " was not scored");
    auto i = static_cast<std::size_t>(it - level_nodes_.begin());
    if (best_[i] < 0)
      return refuse("scored_split_query",
                    "node " + std::to_string(node) + " has no candidate");
    const auto& c = candidates_[i][static_cast<std::size_t>(best_[i])];
    owned_split s{c.feature, cuts_.threshold(c.feature, c.bin), c.default_left};
    splits_[{m.tree, node}] = s;
    reply.nodes.push_back(node);
    append_bits(reply.goes_left_bits,
                route(train_, s, partition_.rows_of(node)));
  }
  return to_active(std::move(reply));
}

outcome<outbox> passive_party::on_predict(const predict_query& m) {
  auto k = m.nodes.size();
  if (m.trees.size() != k || m.offsets.size() != k + 1 ||
      (k > 0 && m.offsets.back() != m.rows.size()))
    return refuse("predict_query", "field lengths differ");
  predict_answer reply;
  reply.depth = m.depth;
  for (std::size_t i = 0; i < k; ++i) {
    auto it = splits_.find({m.trees[i], m.nodes[i]});
    if (it == splits_.end())
      return refuse("predict_query", "no split of this party at tree " +
                                         std::to_string(m.trees[i]) + " node " +
                                         std::to_string(m.nodes[i]));
    if (m.offsets[i] > m.offsets[i + 1])
      return refuse("predict_query", "offsets decrease");
    std::span<const std::uint32_t> rows(m.rows.data() + m.offsets[i],
                                        m.offsets[i + 1] - m.offsets[i]);
    for (auto r : rows)
      if (r >= predict_.rows())
        return refuse("predict_query", "row out of range");
    append_bits(reply.goes_left_bits, route(predict_, it->second, rows));
  }
  return to_active(std::move(reply));
}

} // namespace veil::protocols::plain
