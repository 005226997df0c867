#include "protocols/plain/active_party.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "learners/input_error.hpp"
#include "learners/metrics/metrics.hpp"
#include "learners/split/split.hpp"
#include "learners/tree/local_split_finder.hpp"
#include "protocols/dp/gaussian.hpp"

namespace veil::protocols::plain {

using learners::grad_pair;
using learners::grad_sum;
using learners::node_request;
using learners::split_candidate;
using learners::split_decision;

active_party::active_party(const learners::booster_params& p,
                           learners::dataset own,
                           std::vector<party_id> passives, exchange ex,
                           masked::params masking)
    : params_(p), objective_(p.objective, p.num_class), own_(std::move(own)),
      own_features_(own_.features()), passives_(std::move(passives)),
      exchange_(ex), masking_(masking) {
  params_.validate();
  if (exchange_ != exchange::histograms) {
    masking_.validate();
    if (params_.objective != learners::objective_kind::binary_logistic)
      throw input_error("MaskedXGBoost and its baselines train "
                        "binary:logistic only (its gradient bound mu assumes "
                        "it), not " +
                        learners::to_string(params_.objective));
    if (params_.tree.oblivious)
      throw input_error("MaskedXGBoost and its baselines grow trees, not "
                        "decision tables");
    // The AP's coefficients or noise: a stream of its own (stream 0).
    noise_.emplace(masking_.seed, 0);
  }
  if (!own_.has_labels())
    throw input_error("the active party holds no labels");
  objective_.check_labels(own_.labels());
  for (auto q : passives_)
    if (q <= 0)
      throw std::invalid_argument("passive party ids must be positive");
  own_cuts_ =
      learners::quantile_cuts::compute(own_, params_.max_bin, params_.threads);
  own_bins_ = learners::bin_matrix(own_, own_cuts_, params_.threads);
  own_hists_ = learners::histogram_set(own_bins_.layout().slots());
  layouts_.resize(passives_.size());
  offsets_.resize(passives_.size());
  waiting_.assign(passives_.size(), false);
  bucket_ids_.resize(passives_.size());
  model_.objective = params_.objective;
  model_.num_class = objective_.outputs() > 1 ? params_.num_class : 1;
  model_.weak_learner = params_.tree.oblivious ? "decision_table" : "tree";
  if (std::isnan(params_.base_score)) {
    model_.base_margin = objective_.initial_margin(own_.labels());
  } else {
    double m = params_.base_score;
    if (params_.objective == learners::objective_kind::binary_logistic)
      m = std::log(m / (1 - m));
    model_.base_margin.assign(objective_.outputs(), m);
  }
}

std::size_t active_party::party_index(party_id p) const {
  auto it = std::find(passives_.begin(), passives_.end(), p);
  return it == passives_.end()
             ? passives_.size()
             : static_cast<std::size_t>(it - passives_.begin());
}

std::int32_t active_party::feature_offset(party_id p) const {
  if (p == 0)
    return 0;
  return offsets_.at(party_index(p));
}

std::int32_t active_party::total_features() const {
  auto n = static_cast<std::int32_t>(own_.features());
  for (auto& l : layouts_)
    n += static_cast<std::int32_t>(l.features());
  return n;
}

std::span<const grad_pair> active_party::class_grads() const {
  auto n = own_.rows();
  return {grads_.data() + static_cast<std::size_t>(class_) * n, n};
}

active_party active_party::restored(learners::model m, std::size_t own_features,
                                    std::vector<party_id> passives) {
  active_party a(m.make_objective());
  a.own_features_ = own_features;
  a.passives_ = std::move(passives);
  a.waiting_.assign(a.passives_.size(), false);
  for (const auto& t : m.trees)
    for (const auto& n : t.nodes) {
      if (n.is_leaf())
        continue;
      if (n.owner == 0 ? (n.feature < 0 ||
                          static_cast<std::size_t>(n.feature) >= own_features ||
                          std::isnan(n.threshold))
                       : std::find(a.passives_.begin(), a.passives_.end(),
                                   n.owner) == a.passives_.end())
        throw input_error(
            "the model does not fit this session: a split of party " +
            std::to_string(n.owner) +
            (n.owner == 0 ? " on feature " + std::to_string(n.feature)
                          : std::string(", which is not in it")));
    }
  a.model_ = std::move(m);
  a.phase_ = phase::trained;
  return a;
}

void active_party::evaluate_rounds_on(learners::dataset own_valid) {
  if (phase_ != phase::idle)
    throw std::logic_error("active_party: evaluate_rounds_on after start");
  if (own_valid.features() != own_features_)
    throw input_error("the validation data of the active party has " +
                      std::to_string(own_valid.features()) +
                      " features, the training data has " +
                      std::to_string(own_features_));
  if (!own_valid.has_labels())
    throw input_error("the validation data of the active party has no "
                      "labels");
  objective_.check_labels(own_valid.labels());
  valid_ = std::move(own_valid);
  // As centralized training sums them: the same history and stop.
  watch_.emplace(objective_, valid_.labels(), model_.base_margin,
                 params_.early_stopping_rounds, params_.rounds,
                 learners::margin_sums::as_training);
}

const std::vector<learners::round_info>& active_party::history() const {
  static const std::vector<learners::round_info> none;
  return watch_ ? watch_->history() : none;
}

learners::early_stop_outcome active_party::early_stop() const {
  return watch_ ? watch_->outcome() : learners::early_stop_outcome{};
}

outbox active_party::start() {
  outbox out;
  if (passives_.empty()) {
    model_.feature_names = own_.feature_names();
    return begin_round();
  }
  setup s{params_.max_bin, params_.threads, params_.tree, 0, {}};
  if (exchange_ == exchange::he) {
    // The key pair is made here, before training (its time is the
    // session's, not a tree's).
    if (!masked::fits_rows(own_.rows()))
      throw input_error("HE-XGBoost's fixed point holds sums of at most "
                        "2^23 rows");
    crypto::seeded_random keyed(noise_->next_key());
    paillier::random_engine rng = [&keyed] { return keyed(); };
    he_key_.emplace(paillier::generate_key(masking_.paillier_bits, rng));
    he_pack_.emplace(he_key_->public_part(), own_.rows());
    s.paillier_bits = masking_.paillier_bits;
    s.paillier_key = he_key_->public_part().to_bytes();
  }
  for (auto q : passives_)
    out.push_back({q, s});
  std::fill(waiting_.begin(), waiting_.end(), true);
  phase_ = phase::awaiting_setup;
  return out;
}

outcome<outbox> active_party::on_message(party_id from, const message& m) {
  auto k = party_index(from);
  if (k == passives_.size())
    return refuse("message", "from unknown party " + std::to_string(from));
  if (auto* x = std::get_if<failure>(&m))
    return refuse(x->step.c_str(),
                  "party " + std::to_string(from) + " failed: " + x->reason);
  if (!waiting_[k])
    return refuse(message_name(m),
                  "party " + std::to_string(from) +
                      " sent a message that was not asked for");
  if (auto* x = std::get_if<setup_done>(&m);
      x && phase_ == phase::awaiting_setup && exchange_ != exchange::federboost)
    return on_setup_done(from, *x);
  if (auto* x = std::get_if<bucket_ids>(&m);
      x && phase_ == phase::awaiting_setup && exchange_ == exchange::federboost)
    return on_buckets(from, *x);
  if (auto* x = std::get_if<histograms>(&m);
      x && phase_ == phase::awaiting_histograms &&
      exchange_ == exchange::histograms)
    return on_histograms(from, *x);
  if (auto* x = std::get_if<encrypted_histograms>(&m);
      x && phase_ == phase::awaiting_histograms && exchange_ == exchange::he)
    return on_encrypted_histograms(from, *x);
  if (auto* x = std::get_if<noise_matrices>(&m);
      x && phase_ == phase::awaiting_masked)
    return on_noise(from, *x);
  if (auto* x = std::get_if<passive_scores>(&m);
      x && phase_ == phase::awaiting_masked)
    return on_scores(from, *x);
  if (auto* x = std::get_if<split_answer>(&m);
      x && phase_ == phase::awaiting_answers)
    return on_split_answer(from, *x);
  if (auto* x = std::get_if<predict_answer>(&m);
      x && (phase_ == phase::predicting || phase_ == phase::validating))
    return on_predict_answer(from, *x);
  return refuse(message_name(m), "unexpected at this step");
}

outcome<outbox> active_party::on_setup_done(party_id from,
                                            const setup_done& m) {
  auto k = party_index(from);
  for (auto b : m.bins_per_feature)
    if (b < 0 || b > 65535)
      return refuse("setup_done", "bin count out of range");
  if (passives_score(exchange_)) {
    // Its features stay hidden: one slot in the model stands for all.
    if (!m.bins_per_feature.empty() || m.max_candidates == 0 ||
        m.max_candidates > (1u << 24))
      return refuse("setup_done", "a MaskedXGBoost passive party reports "
                                  "no bins and a candidate count");
    layouts_[k] = learners::hist_layout(std::vector<int>{1});
    max_candidates_ = std::max(max_candidates_, m.max_candidates);
  } else {
    layouts_[k] = learners::hist_layout(
        std::vector<int>(m.bins_per_feature.begin(), m.bins_per_feature.end()));
  }
  waiting_[k] = false;
  if (std::any_of(waiting_.begin(), waiting_.end(), [](bool w) { return w; }))
    return outbox{};
  try {
    auto passives = static_cast<int>(passives_.size());
    if (exchange_ == exchange::masked)
      calibration_ =
          masked::calibrate(masking_, own_.rows(), params_.rounds,
                            params_.tree.max_depth, passives, max_candidates_);
    else if (passives_score(exchange_))
      ldp_ =
          masked::ldp_calibrate(masking_, own_.rows(), params_.rounds, passives,
                                exchange_ == exchange::xgboost_ldp);
  } catch (const input_error& e) {
    return refuse("setup_done", e.what());
  }
  // Global feature numbers: own features first, then each passive party's.
  // The model names passive features by party and local index only.
  auto next = static_cast<std::int32_t>(own_.features());
  model_.feature_names = own_.feature_names();
  passive_hists_.clear();
  for (std::size_t i = 0; i < passives_.size(); ++i) {
    offsets_[i] = next;
    next += static_cast<std::int32_t>(layouts_[i].features());
    passive_hists_.emplace_back(layouts_[i].slots());
    if (passives_score(exchange_)) {
      model_.feature_names.push_back("party" + std::to_string(passives_[i]) +
                                     ":hidden");
      continue;
    }
    for (std::size_t j = 0; j < layouts_[i].features(); ++j)
      model_.feature_names.push_back("party" + std::to_string(passives_[i]) +
                                     ":" + std::to_string(j));
  }
  return begin_round();
}

outcome<outbox> active_party::on_buckets(party_id from, const bucket_ids& m) {
  auto k = party_index(from);
  auto n = own_.rows();
  if (m.domains.empty() || m.domains.size() > 65535 ||
      m.ids.size() != m.domains.size() * n)
    return refuse("bucket_ids", "expected one id per row and feature");
  for (std::size_t f = 0; f < m.domains.size(); ++f) {
    if (m.domains[f] < 1 || m.domains[f] > 65536)
      return refuse("bucket_ids", "a domain is out of range");
    for (std::size_t r = 0; r < n; ++r)
      if (m.ids[f * n + r] >= m.domains[f])
        return refuse("bucket_ids", "an id is outside its domain");
  }
  bucket_ids_[k] = m;
  waiting_[k] = false;
  if (std::any_of(waiting_.begin(), waiting_.end(), [](bool w) { return w; }))
    return outbox{};
  // The perturbed ids become columns of the active party's own data, after
  // its own, party after party: it trains on all of them alone.
  auto own = own_features_;
  std::vector<std::string> names = own_.feature_names();
  for (std::size_t i = 0; i < passives_.size(); ++i)
    for (std::size_t f = 0; f < bucket_ids_[i].domains.size(); ++f)
      names.push_back("party" + std::to_string(passives_[i]) + ":" +
                      std::to_string(f));
  learners::dataset all(n, names);
  for (std::size_t f = 0; f < own; ++f) {
    auto from_col = own_.column(f);
    std::copy(from_col.begin(), from_col.end(), all.column(f).begin());
  }
  auto next = own;
  for (std::size_t i = 0; i < passives_.size(); ++i) {
    offsets_[i] = static_cast<std::int32_t>(next);
    layouts_[i] = learners::hist_layout(std::vector<int>(
        bucket_ids_[i].domains.size(), 1)); // feature counts only
    for (std::size_t f = 0; f < bucket_ids_[i].domains.size(); ++f, ++next) {
      auto col = all.column(next);
      for (std::size_t r = 0; r < n; ++r)
        col[r] = static_cast<float>(bucket_ids_[i].ids[f * n + r]);
    }
  }
  all.labels() = own_.labels();
  own_ = std::move(all);
  own_cuts_ =
      learners::quantile_cuts::compute(own_, params_.max_bin, params_.threads);
  own_bins_ = learners::bin_matrix(own_, own_cuts_, params_.threads);
  own_hists_ = learners::histogram_set(own_bins_.layout().slots());
  model_.feature_names = std::move(names);
  pending_buckets_.assign(passives_.size(), {});
  return begin_round();
}

outbox active_party::begin_round() {
  auto n = own_.rows();
  auto k = static_cast<std::size_t>(objective_.outputs());
  if (margins_.empty()) {
    margins_.resize(n * k);
    for (std::size_t c = 0; c < k; ++c)
      std::fill(margins_.begin() + c * n, margins_.begin() + (c + 1) * n,
                model_.base_margin[c]);
    grads_.resize(n * k);
  }
  objective_.gradients(own_.labels(), margins_, grads_, params_.threads);
  class_ = 0;
  return begin_tree();
}

outbox active_party::begin_tree() {
  ++tree_;
  depth_ = 0;
  std::vector<std::uint32_t> rows(own_.rows());
  std::iota(rows.begin(), rows.end(), 0u);
  grower_.emplace(params_.tree, class_grads(), std::move(rows),
                  params_.threads);
  own_hists_.clear();
  for (auto& h : passive_hists_)
    h.clear();
  outbox out;
  auto g = class_grads();
  if (passives_score(exchange_)) {
    // What is released, clipped to the bound the calibration assumes
    // (spec §3.3); the AP's own splits and leaves use g, h as they are.
    double half = masking_.mu / 2;
    released_g_.resize(g.size());
    released_h_.resize(g.size());
    for (std::size_t r = 0; r < g.size(); ++r) {
      released_g_[r] = std::clamp<double>(g[r].g, -half, half);
      released_h_[r] = std::clamp<double>(g[r].h, 0.0, half);
    }
    for (auto q : passives_) { // no gradients in the clear
      out.push_back({q, tree_start{tree_, {}}});
      if (ldp_)
        out.push_back({q, release_noisy()});
    }
    if (exchange_ == exchange::fedxgboost_ldp) {
      // Its own candidates on the passive parties' scale: rows counted in
      // place of hessians (spec §6.3).
      scoring_grads_.resize(g.size());
      for (std::size_t r = 0; r < g.size(); ++r)
        scoring_grads_[r] = {g[r].g, 1.0f};
    }
  } else if (exchange_ == exchange::he) {
    // One encryption of every row's (g, h) per tree, for every passive
    // party (each sums its own features' histograms).
    crypto::seeded_random keyed(noise_->next_key());
    paillier::random_engine rng = [&keyed] { return keyed(); };
    auto cts = masked::encrypt_gradients(he_key_->public_part(), *he_pack_, g,
                                         rng, params_.threads);
    for (auto q : passives_) {
      out.push_back({q, tree_start{tree_, {}}});
      out.push_back({q, encrypted_gradients{tree_, cts}});
    }
  } else if (exchange_ == exchange::histograms) {
    for (auto q : passives_)
      out.push_back({q, tree_start{tree_, {g.begin(), g.end()}}});
  }
  auto more = open_level({});
  out.insert(out.end(), std::make_move_iterator(more.begin()),
             std::make_move_iterator(more.end()));
  return out;
}

outbox active_party::open_level(std::vector<split_outcome> splits) {
  auto frontier = grower_->frontier();
  outbox out;
  level_request req;
  req.tree = tree_;
  req.depth = depth_;
  req.splits = std::move(splits);
  // Passive parties that score every node afresh have no histograms to
  // subtract.
  req.build = level_nodes(passives_score(exchange_));
  // FederBoost's active party trains alone on the perturbed ids.
  bool alone = passives_.empty() || exchange_ == exchange::federboost;
  if (!alone)
    for (auto q : passives_)
      out.push_back({q, req});
  own_hists_.compute(own_bins_,
                     exchange_ == exchange::fedxgboost_ldp
                         ? std::span<const grad_pair>(scoring_grads_)
                         : class_grads(),
                     frontier, params_.threads);
  if (alone)
    return evaluate();
  std::fill(waiting_.begin(), waiting_.end(), true);
  if (passives_score(exchange_)) {
    // MaskedXGBoost's scores come after its noise; the LDP baselines'
    // right away.
    passive_gains_.assign(
        passives_.size(),
        exchange_ == exchange::masked
            ? std::vector<double>{}
            : std::vector<double>(frontier.size(),
                                  -std::numeric_limits<double>::infinity()));
    phase_ = phase::awaiting_masked;
  } else {
    phase_ = phase::awaiting_histograms;
  }
  return out;
}

std::vector<std::int32_t> active_party::level_nodes(bool all) const {
  std::vector<std::int32_t> nodes;
  for (const auto& n : grower_->frontier())
    if (all || n.build)
      nodes.push_back(n.node);
  return nodes;
}

std::optional<masked::applied> active_party::applied() const {
  if (calibration_)
    return masked::applied{
        calibration_->release.epsilon, calibration_->release.delta,
        calibration_->release.releases, calibration_->rho, 0};
  if (ldp_)
    return masked::applied{ldp_->budget.epsilon, ldp_->budget.delta,
                           ldp_->budget.releases, 0, ldp_->stddev};
  return std::nullopt;
}

message active_party::release_noisy() {
  noisy_gradients m;
  m.tree = tree_;
  bool hessians = exchange_ == exchange::xgboost_ldp;
  crypto::seeded_random rng(noise_->next_key());
  m.g.resize(released_g_.size());
  for (std::size_t r = 0; r < m.g.size(); ++r)
    m.g[r] = released_g_[r] + ldp_->stddev * dp::standard_normal(rng);
  if (hessians) {
    m.h.resize(released_h_.size());
    for (std::size_t r = 0; r < m.h.size(); ++r)
      m.h[r] = released_h_[r] + ldp_->stddev * dp::standard_normal(rng);
  }
  return m;
}

outcome<outbox> active_party::on_noise(party_id from, const noise_matrices& m) {
  auto k = party_index(from);
  if (exchange_ != exchange::masked)
    return refuse("noise_matrices", "not a MaskedXGBoost session");
  if (m.tree != tree_ || m.depth != depth_)
    return refuse("noise_matrices", "not for the current level");
  if (!passive_gains_[k].empty())
    return refuse("noise_matrices", "sent twice for one level");
  auto frontier = grower_->frontier();
  if (m.nodes != level_nodes(true))
    return refuse("noise_matrices", "nodes differ from those asked for");
  if (m.candidates.size() != frontier.size())
    return refuse("noise_matrices", "one candidate count per node expected");
  bool adaptive = masking_.energy == masked::energy_mode::adaptive;
  auto w = static_cast<std::size_t>(calibration_->w);
  std::size_t values = 0, counted = 0;
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    auto n = frontier[i].rows.size();
    if (m.candidates[i] > max_candidates_)
      return refuse("noise_matrices", "more candidates than announced");
    values += m.candidates[i] * w * n;
    counted += m.candidates[i];
  }
  if (m.noise.size() != values)
    return refuse("noise_matrices", "wrong number of noise values");
  if (m.left_counts.size() != (adaptive ? counted : 0))
    return refuse("noise_matrices", "wrong number of left counts");
  for (double x : m.noise)
    if (!std::isfinite(x))
      return refuse("noise_matrices", "a noise value is not finite");
  masked_sums reply;
  reply.tree = tree_;
  reply.depth = depth_;
  reply.nodes = m.nodes;
  reply.masked.reserve(2 * values / w); // ⟨g⟩ and ⟨h⟩ per noise column set
  std::size_t noise_at = 0, count_at = 0;
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    auto rows = frontier[i].rows;
    auto l = m.candidates[i];
    std::span<const std::uint32_t> left;
    if (adaptive) {
      left = {m.left_counts.data() + count_at, l};
      for (auto c : left)
        if (c == 0 || c >= rows.size())
          return refuse("noise_matrices", "a left count is out of range");
    }
    auto [g, h] = masked::mask_gradients(
        released_g_, released_h_, rows,
        {m.noise.data() + noise_at, l * w * rows.size()}, left, l, masking_,
        *calibration_, *noise_, params_.threads, reply.masked);
    reply.sums.push_back(g);
    reply.sums.push_back(h);
    noise_at += l * w * rows.size();
    count_at += l;
  }
  passive_gains_[k].assign(frontier.size(),
                           -std::numeric_limits<double>::infinity());
  outbox out; // not an initializer list: that would copy the vectors
  out.push_back({from, std::move(reply)});
  return out;
}

outcome<outbox> active_party::on_scores(party_id from,
                                        const passive_scores& m) {
  auto k = party_index(from);
  if (m.tree != tree_ || m.depth != depth_)
    return refuse("passive_scores", "not for the current level");
  if (passive_gains_[k].empty())
    return refuse("passive_scores", "scores before the noise");
  if (m.nodes != level_nodes(true) || m.gains.size() != m.nodes.size())
    return refuse("passive_scores", "nodes differ from those asked for");
  for (double g : m.gains)
    if (std::isnan(g) || g == std::numeric_limits<double>::infinity())
      return refuse("passive_scores", "a gain is not a number");
  passive_gains_[k] = m.gains;
  waiting_[k] = false;
  if (std::any_of(waiting_.begin(), waiting_.end(), [](bool w) { return w; }))
    return outbox{};
  return evaluate();
}

outcome<outbox>
active_party::on_encrypted_histograms(party_id from,
                                      const encrypted_histograms& m) {
  // Decrypted, they are plain's histograms: the rest is plain's.
  auto k = party_index(from);
  histograms h;
  h.tree = m.tree;
  h.depth = m.depth;
  h.nodes = m.nodes;
  auto count = m.nodes.size() * layouts_[k].slots();
  try {
    h.sums =
        masked::decrypt_histograms(*he_key_, *he_pack_, m.ciphertexts, count,
                                   layouts_[k].slots(), params_.threads);
  } catch (const std::invalid_argument& e) {
    return refuse("encrypted_histograms", e.what());
  }
  return on_histograms(from, h);
}

outcome<outbox> active_party::on_histograms(party_id from,
                                            const histograms& m) {
  auto k = party_index(from);
  if (m.tree != tree_ || m.depth != depth_)
    return refuse("histograms", "not for the current level");
  auto frontier = grower_->frontier();
  std::vector<std::int32_t> want;
  for (const auto& n : frontier)
    if (n.build)
      want.push_back(n.node);
  if (m.nodes != want)
    return refuse("histograms", "nodes differ from those asked for");
  auto slots = layouts_[k].slots();
  if (m.sums.size() != want.size() * static_cast<std::size_t>(slots))
    return refuse("histograms", "wrong histogram size");
  for (const auto& s : m.sums)
    if (!std::isfinite(s.g) || !std::isfinite(s.h))
      return refuse("histograms", "a sum is not finite");
  auto& hs = passive_hists_[k];
  for (std::size_t i = 0; i < want.size(); ++i)
    hs.put(want[i],
           {m.sums.begin() + i * slots, m.sums.begin() + (i + 1) * slots});
  for (const auto& n : frontier)
    if (!n.build)
      hs.derive(n.node, n.parent, n.sibling);
  hs.retain(frontier);
  waiting_[k] = false;
  if (std::any_of(waiting_.begin(), waiting_.end(), [](bool w) { return w; }))
    return outbox{};
  return evaluate();
}

outbox active_party::evaluate() {
  auto frontier = grower_->frontier();
  const auto& tp = params_.tree;
  decisions_.assign(frontier.size(), {});
  decision_owner_.assign(frontier.size(), 0);
  // Best over every party's features; `better_than` breaks ties by global
  // feature index, so the order of parties does not matter.
  auto consider = [&](std::size_t i, split_candidate c, std::int32_t offset,
                      party_id owner) {
    if (!c.valid())
      return;
    c.feature += offset;
    if (c.better_than(decisions_[i].split)) {
      decisions_[i].split = c;
      decision_owner_[i] = owner;
    }
  };
  if (tp.oblivious) {
    std::vector<grad_sum> sums;
    for (const auto& n : frontier)
      sums.push_back(n.sum);
    auto shared = [&](const learners::histogram_set& hs,
                      const learners::hist_layout& layout) {
      std::vector<std::span<const grad_sum>> h;
      for (const auto& n : frontier)
        h.push_back(hs.of(n.node));
      return learners::best_shared_split(tp, layout, h, sums);
    };
    split_candidate best = shared(own_hists_, own_bins_.layout());
    party_id owner = 0;
    for (std::size_t k = 0; k < passives_.size(); ++k) {
      auto c = shared(passive_hists_[k], layouts_[k]);
      if (!c.valid())
        continue;
      c.feature += offsets_[k];
      if (c.better_than(best)) {
        best = c;
        owner = passives_[k];
      }
    }
    for (std::size_t i = 0; i < frontier.size(); ++i) {
      decisions_[i].split = best;
      decision_owner_[i] = owner;
    }
  } else {
    for (std::size_t i = 0; i < frontier.size(); ++i) {
      const auto& n = frontier[i];
      auto node_sum = n.sum;
      if (exchange_ == exchange::fedxgboost_ldp)
        node_sum.h = static_cast<double>(n.rows.size());
      consider(i,
               learners::best_split(tp, own_bins_.layout(),
                                    own_hists_.of(n.node), node_sum),
               0, 0);
      if (passives_score(exchange_)) {
        // A passive party's best by its own (noisy) score; which of its
        // candidates it is stays with it. It checked both children.
        for (std::size_t k = 0; k < passives_.size(); ++k) {
          double gain = passive_gains_[k][i];
          if (!std::isfinite(gain))
            continue;
          split_candidate c;
          c.gain = gain;
          c.feature = 0;
          c.bin = 0;
          c.left = c.right = grad_sum{0, 1};
          consider(i, c, offsets_[k], passives_[k]);
        }
        continue;
      }
      if (exchange_ == exchange::federboost)
        continue; // the perturbed ids are among its own columns
      for (std::size_t k = 0; k < passives_.size(); ++k)
        consider(i,
                 learners::best_split(tp, layouts_[k],
                                      passive_hists_[k].of(n.node), n.sum),
                 offsets_[k], passives_[k]);
    }
  }
  // Route own splits here; ask each passive owner for the rest, one query
  // per party.
  std::vector<split_query> queries(passives_.size());
  std::vector<scored_split_query> scored(passives_.size());
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    auto& d = decisions_[i];
    d.node = frontier[i].node;
    d.owner = decision_owner_[i];
    if (!grower_->accepts(d))
      continue;
    d.feature = d.split.feature;
    if (exchange_ == exchange::federboost &&
        static_cast<std::size_t>(d.feature) >= own_features_) {
      // A perturbed column: split here on the ids; its owner keeps the
      // bound on its true values (after the tree) and routes predictions.
      std::size_t k = passives_.size() - 1;
      while (d.feature < offsets_[k])
        --k;
      d.owner = passives_[k];
      d.goes_left =
          learners::route_rows(own_bins_, d.split.feature, d.split.bin,
                               d.split.default_left, frontier[i].rows);
      d.threshold = std::numeric_limits<float>::quiet_NaN();
      auto& b = pending_buckets_[k];
      b.tree = tree_;
      b.nodes.push_back(d.node);
      b.features.push_back(d.feature - offsets_[k]);
      b.thresholds.push_back(own_cuts_.threshold(d.split.feature, d.split.bin));
      continue;
    }
    if (d.owner == 0) {
      d.threshold = own_cuts_.threshold(d.split.feature, d.split.bin);
      d.goes_left =
          learners::route_rows(own_bins_, d.split.feature, d.split.bin,
                               d.split.default_left, frontier[i].rows);
    } else {
      d.threshold = std::numeric_limits<float>::quiet_NaN();
      auto k = party_index(d.owner);
      if (passives_score(exchange_)) {
        scored[k].tree = tree_;
        scored[k].depth = depth_;
        scored[k].nodes.push_back(d.node);
        continue;
      }
      auto& q = queries[k];
      q.tree = tree_;
      q.depth = depth_;
      q.nodes.push_back(d.node);
      q.features.push_back(d.split.feature - offsets_[k]);
      q.bins.push_back(d.split.bin);
      q.default_left.push_back(d.split.default_left);
    }
  }
  outbox out;
  std::fill(waiting_.begin(), waiting_.end(), false);
  for (std::size_t k = 0; k < passives_.size(); ++k) {
    if (!queries[k].nodes.empty()) {
      out.push_back({passives_[k], std::move(queries[k])});
      waiting_[k] = true;
    }
    if (!scored[k].nodes.empty()) {
      out.push_back({passives_[k], std::move(scored[k])});
      waiting_[k] = true;
    }
  }
  if (out.empty())
    return finish_level();
  phase_ = phase::awaiting_answers;
  return out;
}

outcome<outbox> active_party::on_split_answer(party_id from,
                                              const split_answer& m) {
  auto k = party_index(from);
  if (m.tree != tree_ || m.depth != depth_)
    return refuse("split_answer", "not for the current level");
  auto frontier = grower_->frontier();
  std::vector<std::int32_t> asked;
  for (std::size_t i = 0; i < frontier.size(); ++i)
    if (decisions_[i].owner == from && grower_->accepts(decisions_[i]))
      asked.push_back(frontier[i].node);
  if (m.nodes != asked)
    return refuse("split_answer", "nodes differ from those asked for");
  std::size_t need = 0;
  for (std::size_t i = 0; i < frontier.size(); ++i)
    if (decisions_[i].owner == from && grower_->accepts(decisions_[i]))
      need += packed_size(frontier[i].rows.size());
  if (m.goes_left_bits.size() != need)
    return refuse("split_answer", "wrong number of bits");
  std::size_t offset = 0;
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    if (decisions_[i].owner != from || !grower_->accepts(decisions_[i]))
      continue;
    auto rows = frontier[i].rows.size();
    decisions_[i].goes_left = unpack_bits(m.goes_left_bits, offset, rows);
    offset += packed_size(rows);
  }
  waiting_[k] = false;
  if (std::any_of(waiting_.begin(), waiting_.end(), [](bool w) { return w; }))
    return outbox{};
  return finish_level();
}

outbox active_party::finish_level() {
  std::vector<std::int32_t> split_nodes;
  for (const auto& d : decisions_)
    if (grower_->accepts(d))
      split_nodes.push_back(d.node);
  // Keep the flags: the passive parties mirror the partition from them.
  std::vector<std::vector<std::uint8_t>> flags;
  for (const auto& d : decisions_)
    if (grower_->accepts(d))
      flags.push_back(d.goes_left);
  grower_->apply(decisions_);
  const auto& nodes = grower_->tree().nodes;
  std::vector<split_outcome> outcomes;
  for (std::size_t i = 0; i < split_nodes.size(); ++i) {
    auto id = split_nodes[i];
    if (nodes[id].is_leaf())
      continue; // an oblivious level that did not split after all
    outcomes.push_back(
        {id, nodes[id].left, nodes[id].right, pack_bits(flags[i])});
    const auto& n = nodes[id];
    if (n.owner == 0)
      own_splits_[{tree_, id}] = {n.feature, n.threshold, n.default_left};
  }
  if (grower_->done())
    return finish_tree();
  ++depth_;
  return open_level(std::move(outcomes));
}

outbox active_party::finish_tree() {
  auto n = own_.rows();
  const auto& tree = grower_->tree();
  for (std::size_t id = 0; id < tree.nodes.size(); ++id) {
    if (!tree.nodes[id].is_leaf())
      continue;
    double v = tree.nodes[id].value;
    for (auto r : grower_->rows_of(static_cast<std::int32_t>(id)))
      margins_[static_cast<std::size_t>(class_) * n + r] += v;
  }
  auto t = grower_->take_tree();
  t.target = class_;
  model_.trees.push_back(std::move(t));
  grower_.reset();
  // FederBoost: each passive party learns its bounds before anything asks
  // it to route by them (one way, no answer).
  outbox out;
  for (std::size_t k = 0; k < pending_buckets_.size(); ++k)
    if (!pending_buckets_[k].nodes.empty())
      out.push_back(
          {passives_[k], std::exchange(pending_buckets_[k], bucket_splits{})});
  auto more = [&] {
    if (++class_ < objective_.outputs())
      return begin_tree();
    ++round_;
    return watch_ ? start_round_evaluation() : next_round();
  }();
  out.insert(out.end(), std::make_move_iterator(more.begin()),
             std::make_move_iterator(more.end()));
  return out;
}

outbox active_party::next_round() {
  bool stopped = watch_ && watch_->outcome().stopped;
  if (round_ < params_.rounds && !stopped)
    return begin_round();
  if (watch_ && watch_->enabled()) // the best rounds, as centralized training
    model_.trees.resize(static_cast<std::size_t>(watch_->outcome().best_round) *
                        static_cast<std::size_t>(objective_.outputs()));
  phase_ = phase::trained;
  std::fill(waiting_.begin(), waiting_.end(), false);
  return outbox{};
}

outbox active_party::start_round_evaluation() {
  auto k = static_cast<std::size_t>(objective_.outputs());
  first_tree_ = model_.trees.size() - k;
  positions_.assign(k * valid_.rows(), 0);
  predict_depth_ = 0;
  phase_ = phase::validating;
  return predict_step();
}

outbox active_party::finish_round_evaluation() {
  // The round's trees' leaf values, one tree per output.
  auto n = valid_.rows();
  std::vector<double> round(n * static_cast<std::size_t>(objective_.outputs()));
  for (std::size_t t = first_tree_; t < model_.trees.size(); ++t) {
    const auto& tree = model_.trees[t];
    auto* margins = round.data() + static_cast<std::size_t>(tree.target) * n;
    const auto* pos = positions_.data() + (t - first_tree_) * n;
    for (std::size_t i = 0; i < n; ++i)
      margins[i] += tree.nodes[pos[i]].value;
  }
  watch_->add_round(round);
  return next_round();
}

outbox active_party::start_predict(learners::dataset own_eval) {
  if (phase_ != phase::trained && phase_ != phase::predicted)
    throw std::logic_error("active_party: predict before training ended");
  if (own_eval.features() != own_features_)
    throw input_error("the prediction data of the active party has " +
                      std::to_string(own_eval.features()) +
                      " features, the training data had " +
                      std::to_string(own_features_));
  eval_ = std::move(own_eval);
  first_tree_ = 0;
  positions_.assign(model_.trees.size() * eval_.rows(), 0);
  predict_depth_ = 0;
  phase_ = phase::predicting;
  return predict_step();
}

outbox active_party::predict_step() {
  const auto& rows = predicting();
  auto n = rows.rows();
  // Tree after tree (so the groups come in ascending (tree, node) order):
  // walk own splits as far as they go, then bucket the rows waiting at a
  // passive party's split by node, each node's rows straight into its
  // owner's query. Only rows still moving need a walk: at the first step
  // every row, afterwards the rows just asked about (the rest are at a
  // leaf).
  std::vector<predict_query> next(passives_.size());
  std::vector<std::size_t> asked(passives_.size(), 0); // group cursors
  std::vector<std::int32_t> node_of;
  std::vector<std::uint32_t> row_of;
  std::vector<std::uint32_t> count, cursor, party_of;
  for (std::size_t t = first_tree_; t < model_.trees.size(); ++t) {
    const auto& nodes = model_.trees[t].nodes;
    auto* positions = positions_.data() + (t - first_tree_) * n;
    node_of.clear();
    row_of.clear();
    auto walk = [&](std::uint32_t i) {
      auto pos = positions[i];
      while (!nodes[pos].is_leaf() && nodes[pos].owner == 0) {
        const auto& nd = nodes[pos];
        float x = rows.value(i, static_cast<std::size_t>(nd.feature));
        bool left =
            learners::is_missing(x) ? nd.default_left : x < nd.threshold;
        pos = left ? nd.left : nd.right;
      }
      positions[i] = pos;
      if (!nodes[pos].is_leaf()) {
        node_of.push_back(pos);
        row_of.push_back(i);
      }
    };
    if (predict_depth_ == 0) {
      for (std::size_t i = 0; i < n; ++i)
        walk(static_cast<std::uint32_t>(i));
    } else {
      for (std::size_t k = 0; k < queries_.size(); ++k) {
        const auto& q = queries_[k];
        auto& g = asked[k];
        for (; g < q.nodes.size() && q.trees[g] == std::int32_t(t); ++g)
          for (auto j = q.offsets[g]; j < q.offsets[g + 1]; ++j)
            walk(q.rows[j]);
      }
    }
    if (row_of.empty())
      continue;
    count.assign(nodes.size(), 0);
    cursor.resize(nodes.size());
    party_of.resize(nodes.size());
    for (auto node : node_of)
      ++count[static_cast<std::size_t>(node)];
    for (std::size_t node = 0; node < nodes.size(); ++node) {
      if (count[node] == 0)
        continue;
      auto k = party_index(nodes[node].owner);
      auto& q = next[k];
      if (q.offsets.empty())
        q.offsets.push_back(0);
      q.trees.push_back(static_cast<std::int32_t>(t));
      q.nodes.push_back(static_cast<std::int32_t>(node));
      cursor[node] = q.offsets.back();
      q.offsets.push_back(q.offsets.back() + count[node]);
      q.rows.resize(q.offsets.back());
      party_of[node] = static_cast<std::uint32_t>(k);
    }
    for (std::size_t j = 0; j < row_of.size(); ++j) {
      auto node = static_cast<std::size_t>(node_of[j]);
      next[party_of[node]].rows[cursor[node]++] = row_of[j];
    }
  }
  // Each group's rows ascending, as the queries always had them (they are
  // already: a group's rows all come from one earlier group, in order).
  for (auto& q : next) {
    q.depth = predict_depth_;
    for (std::size_t g = 0; g + 1 < q.offsets.size(); ++g) {
      auto b = q.rows.begin() + q.offsets[g];
      auto e = q.rows.begin() + q.offsets[g + 1];
      if (!std::is_sorted(b, e))
        std::sort(b, e);
    }
  }
  outbox out;
  queries_ = std::move(next);
  std::fill(waiting_.begin(), waiting_.end(), false);
  for (std::size_t k = 0; k < passives_.size(); ++k) {
    if (queries_[k].nodes.empty())
      continue;
    out.push_back({passives_[k], queries_[k]});
    waiting_[k] = true;
  }
  if (!out.empty()) {
    ++predict_depth_;
    return out;
  }
  if (phase_ == phase::validating)
    return finish_round_evaluation();
  // Every row of every tree is at a leaf: sum as model::predict_margin does.
  auto k = static_cast<std::size_t>(objective_.outputs());
  predicted_.assign(n * k, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<float> acc(k);
    for (std::size_t c = 0; c < k; ++c)
      acc[c] = static_cast<float>(model_.base_margin[c]);
    for (std::size_t t = 0; t < model_.trees.size(); ++t) {
      const auto& tree = model_.trees[t];
      acc[static_cast<std::size_t>(tree.target)] +=
          tree.nodes[positions_[t * n + i]].value;
    }
    for (std::size_t c = 0; c < k; ++c)
      predicted_[c * n + i] = acc[c];
  }
  phase_ = phase::predicted;
  return outbox{};
}

outcome<outbox> active_party::on_predict_answer(party_id from,
                                                const predict_answer& m) {
  auto k = party_index(from);
  const auto& q = queries_[k];
  if (m.depth != q.depth)
    return refuse("predict_answer", "not for the current step");
  std::size_t need = 0;
  for (std::size_t g = 0; g < q.nodes.size(); ++g)
    need += packed_size(q.offsets[g + 1] - q.offsets[g]);
  if (m.goes_left_bits.size() != need)
    return refuse("predict_answer", "wrong number of bits");
  auto n = predicting().rows();
  std::size_t offset = 0;
  for (std::size_t g = 0; g < q.nodes.size(); ++g) {
    auto count = q.offsets[g + 1] - q.offsets[g];
    const auto* bits = m.goes_left_bits.data() + offset;
    offset += packed_size(count);
    const auto& nd = model_.trees[q.trees[g]].nodes[q.nodes[g]];
    auto* pos = positions_.data() +
                (static_cast<std::size_t>(q.trees[g]) - first_tree_) * n;
    const auto* rows = q.rows.data() + q.offsets[g];
    for (std::size_t j = 0; j < count; ++j)
      pos[rows[j]] = (bits[j / 8] >> (j % 8)) & 1u ? nd.left : nd.right;
  }
  waiting_[k] = false;
  if (std::any_of(waiting_.begin(), waiting_.end(), [](bool w) { return w; }))
    return outbox{};
  return predict_step();
}

} // namespace veil::protocols::plain
