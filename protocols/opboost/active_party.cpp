#include "protocols/opboost/active_party.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "learners/boost/booster.hpp"
#include "learners/input_error.hpp"
#include "learners/objective/objective.hpp"
#include "protocols/opboost/gbdt.hpp"
#include "protocols/opboost/mechanism.hpp"
#include "protocols/opboost/privacy.hpp"
#include "protocols/opboost/validate.hpp"

namespace veil::protocols::opboost {

active_party::active_party(const params& p, learners::dataset own,
                           std::vector<party_id> passives)
    : params_(p), own_(std::move(own)) {
  params_.validate();
  if (!own_.has_labels())
    throw input_error("opboost: Party A's data has no label column");
  if (own_.rows() == 0 || own_.rows() >= (std::size_t{1} << 31))
    throw input_error("opboost: Party A needs 1 to 2^31 - 1 rows");
  learners::objective(params_.booster.objective, params_.booster.num_class)
      .check_labels(own_.labels());
  if (passives.empty())
    throw input_error("opboost: no Party B");
  std::set<party_id> seen;
  for (auto id : passives) {
    if (id <= 0 || !seen.insert(id).second)
      throw input_error("opboost: Party B ids must be > 0 and distinct");
    passive_state s;
    s.id = id;
    passives_.push_back(std::move(s));
  }
}

std::unique_ptr<active_party> active_party::restored(
    const params& p, learners::model m, std::vector<std::string> own,
    const std::vector<std::pair<party_id, std::vector<std::string>>>&
        passives) {
  std::unique_ptr<active_party> a(new active_party());
  a->params_ = p;
  auto names = own;
  a->own_ = learners::dataset(0, std::move(own));
  std::set<party_id> seen;
  for (const auto& [id, columns] : passives) {
    if (id <= 0 || !seen.insert(id).second)
      throw input_error("opboost: Party B ids must be > 0 and distinct");
    passive_state s;
    s.id = id;
    s.columns.names = columns;
    names.insert(names.end(), columns.begin(), columns.end());
    a->passives_.push_back(std::move(s));
  }
  if (names != m.feature_names)
    throw input_error("opboost: the parties' columns are not the model's "
                      "features (" +
                      std::to_string(names.size()) + " columns, " +
                      std::to_string(m.feature_names.size()) +
                      " features): the session's parties must be those "
                      "that trained it, with the same columns");
  for (const auto& t : m.trees)
    for (const auto& n : t.nodes)
      if (!n.is_leaf() &&
          (n.feature < 0 ||
           static_cast<std::size_t>(n.feature) >= names.size() ||
           !std::isfinite(n.threshold)))
        throw input_error("opboost: the model has a split without a feature "
                          "or a finite threshold: not an OpBoost model");
  a->model_ = std::move(m);
  a->phase_ = phase::trained;
  a->restored_ = true;
  return a;
}

active_party::passive_state* active_party::find(party_id p) {
  for (auto& s : passives_)
    if (s.id == p)
      return &s;
  return nullptr;
}

std::size_t active_party::feature_offset(party_id p) const {
  std::size_t offset = own_.features();
  if (p == 0)
    return 0;
  for (const auto& s : passives_) {
    if (s.id == p)
      return offset;
    offset += s.columns.names.size();
  }
  throw std::invalid_argument("opboost: unknown party " + std::to_string(p));
}

outcome<outbox> active_party::on_message(party_id from, const message& m) {
  auto* s = find(from);
  if (!s)
    return refuse(message_name(m),
                  "from unknown party " + std::to_string(from));
  if (auto* x = std::get_if<schema>(&m))
    return on_schema(*s, *x);
  if (auto* x = std::get_if<ranks>(&m))
    return on_ranks(*s, *x);
  if (auto* x = std::get_if<split_values>(&m))
    return on_split_values(*s, *x);
  if (auto* x = std::get_if<predict_values>(&m))
    return on_predict_values(*s, *x);
  if (auto* x = std::get_if<failure>(&m))
    return refuse("failure",
                  "Party " + std::to_string(from) + " failed at " + x->step);
  return refuse(message_name(m), "unexpected at Party A");
}

outcome<outbox> active_party::on_schema(passive_state& s, const schema& m) {
  const char* step = "M0 schema";
  if (phase_ != phase::collecting || s.has_schema)
    return refuse(step, "duplicate or late schema from party " +
                            std::to_string(s.id));
  if (auto e = validate(m, params_.dom, own_.rows()))
    return *e;
  // Column names are unique across all parties (spec §8.5).
  for (const auto& name : m.names) {
    if (own_.feature_index(name) >= 0)
      return refuse(step, "a column name clashes with Party A's");
    for (const auto& o : passives_)
      if (&o != &s && o.has_schema &&
          std::find(o.columns.names.begin(), o.columns.names.end(), name) !=
              o.columns.names.end())
        return refuse(step, "a column name clashes with party " +
                                std::to_string(o.id) + "'s");
  }
  s.columns = m;
  s.has_schema = true;
  return outbox{};
}

outcome<outbox> active_party::on_ranks(passive_state& s, const ranks& m) {
  const char* step = "M1 ranks";
  if (phase_ != phase::collecting || s.has_ranks)
    return refuse(step,
                  "duplicate or late ranks from party " + std::to_string(s.id));
  if (!s.has_schema)
    return refuse(step, "ranks before the schema");
  if (auto e = validate(m, s.columns, s.distinct))
    return *e;
  s.ranks = m.values;
  s.has_ranks = true;
  for (const auto& o : passives_)
    if (!o.has_ranks)
      return outbox{};
  return train();
}

outbox active_party::train() {
  // A1: own columns (plaintext) + every Party B's rank columns.
  std::vector<std::string> names = own_.feature_names();
  for (const auto& s : passives_)
    names.insert(names.end(), s.columns.names.begin(), s.columns.names.end());
  auto rows = own_.rows();
  matrix_ = learners::dataset(rows, names);
  matrix_.labels() = own_.labels();
  for (std::size_t j = 0; j < own_.features(); ++j) {
    auto src = own_.column(j);
    std::copy(src.begin(), src.end(), matrix_.column(j).begin());
  }
  std::size_t col = own_.features();
  for (const auto& s : passives_) {
    for (std::size_t f = 0; f < s.columns.names.size(); ++f, ++col) {
      auto dst = matrix_.column(col);
      for (std::size_t i = 0; i < rows; ++i)
        dst[i] = static_cast<float>(s.ranks[f * rows + i]); // exact < 2^24
    }
  }
  // A2: train locally, no communication.
  rank_model_ =
      params_.learner == learner_kind::xgboost
          ? learners::train(matrix_, nullptr, params_.booster, on_round_).model
          : train_gbdt(matrix_, params_.booster, on_round_).model;
  // A3: the ranks around every Party B split.
  splits_.clear();
  std::vector<std::vector<std::set<std::int32_t>>> wanted(passives_.size());
  std::vector<std::size_t> first(passives_.size());
  for (std::size_t q = 0, off = own_.features(); q < passives_.size(); ++q) {
    first[q] = off;
    off += passives_[q].columns.names.size();
    wanted[q].resize(passives_[q].columns.names.size());
  }
  for (std::size_t t = 0; t < rank_model_.trees.size(); ++t) {
    const auto& nodes = rank_model_.trees[t].nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const auto& n = nodes[i];
      if (n.is_leaf() || static_cast<std::size_t>(n.feature) < own_.features())
        continue;
      std::size_t q = passives_.size() - 1;
      while (static_cast<std::size_t>(n.feature) < first[q])
        --q;
      rank_split r;
      r.tree = t;
      r.node = static_cast<std::int32_t>(i);
      r.owner = passives_[q].id;
      r.feature = static_cast<std::size_t>(n.feature) - first[q];
      // "left iff rank < c": k_R = ceil(c), k_L = k_R - 1; clamped to the
      // ranks that exist [D] (spec §5.5 item 5).
      std::int32_t top = passives_[q].distinct[r.feature] - 1;
      auto kr = static_cast<std::int32_t>(
          std::ceil(static_cast<double>(n.threshold)));
      kr = std::clamp(kr, std::min(1, top), top);
      r.k_right = kr;
      r.k_left = std::max(kr - 1, 0);
      wanted[q][r.feature].insert(r.k_left);
      wanted[q][r.feature].insert(r.k_right);
      splits_.push_back(r);
    }
  }
  // A4: one request per Party B, empty ranges for unused features.
  outbox out;
  for (std::size_t q = 0; q < passives_.size(); ++q) {
    split_request req;
    req.offsets.push_back(0);
    for (const auto& ks : wanted[q]) {
      req.ranks.insert(req.ranks.end(), ks.begin(), ks.end());
      req.offsets.push_back(static_cast<std::uint32_t>(req.ranks.size()));
    }
    passives_[q].request = req;
    out.push_back({passives_[q].id, std::move(req)});
  }
  model_ = rank_model_;
  phase_ = phase::awaiting_values;
  return out;
}

outcome<outbox> active_party::on_split_values(passive_state& s,
                                              const split_values& m) {
  const char* step = "M3 split_values";
  if (phase_ != phase::awaiting_values || s.has_values)
    return refuse(step, "unexpected or duplicate values from party " +
                            std::to_string(s.id));
  if (auto e = validate(m, s.request))
    return *e;
  // A5 for this party's splits: rank threshold -> value threshold.
  auto value_of = [&](std::size_t f, std::int32_t k) {
    auto lo = s.request.ranks.begin() + s.request.offsets[f];
    auto hi = s.request.ranks.begin() + s.request.offsets[f + 1];
    auto it = std::lower_bound(lo, hi, k);
    return m.values[static_cast<std::size_t>(it - s.request.ranks.begin())];
  };
  for (const auto& r : splits_) {
    if (r.owner != s.id)
      continue;
    double vl = value_of(r.feature, r.k_left);
    double vr = value_of(r.feature, r.k_right);
    double tau =
        params_.threshold == threshold_rule::midpoint ? (vl + vr) / 2 : vr;
    // Values are integers in [-2^22, 2^22] (validated): tau is an exact
    // float with v(k_L) < tau <= v(k_R), so every training row goes where it
    // went in rank space.
    model_.trees[r.tree].nodes[static_cast<std::size_t>(r.node)].threshold =
        static_cast<float>(tau);
  }
  s.has_values = true;
  for (const auto& o : passives_)
    if (!o.has_values)
      return outbox{};
  finish_training();
  return outbox{};
}

void active_party::finish_training() {
  phase_ = phase::trained;
}

learners::staged_margins active_party::staged_margins() const {
  return learners::stage_margins(model_, predict_matrix_);
}

std::vector<double>
active_party::predict_margin_plain(const learners::dataset& eval) const {
  if (!training_done())
    throw std::logic_error("opboost: predict before training is done");
  if (restored_)
    throw input_error("opboost: a restored Party A predicts privately only "
                      "(it holds no Party B's pre-processing constants)");
  // Party B's raw columns -> D⊥ with the announced constants (spec §5.6).
  auto mapped = model_.align(eval);
  for (const auto& s : passives_) {
    for (std::size_t f = 0; f < s.columns.names.size(); ++f) {
      auto j = mapped.feature_index(s.columns.names[f]);
      feature_map fm{s.columns.lower[f], s.columns.upper[f], s.columns.fill[f]};
      for (auto& x : mapped.column(static_cast<std::size_t>(j)))
        x = static_cast<float>(map_value(fm, params_.dom, x));
    }
  }
  return model_.predict_margin(mapped, params_.booster.threads);
}

outbox active_party::start_private_predict(learners::dataset own_eval) {
  if (!training_done() || phase_ == phase::predicting)
    throw std::logic_error("opboost: private prediction needs a trained, "
                           "idle Party A");
  std::vector<std::size_t> cols;
  for (const auto& name : own_.feature_names()) {
    auto j = own_eval.feature_index(name);
    if (j < 0)
      throw input_error("opboost: prediction data lacks Party A's column '" +
                        name + "'");
    cols.push_back(static_cast<std::size_t>(j));
  }
  predict_own_ = own_eval.select_columns(cols);
  ++batch_;
  phase_ = phase::predicting;
  outbox out;
  for (auto& s : passives_) {
    s.has_prediction = false;
    out.push_back({s.id, predict_request{batch_, static_cast<std::uint32_t>(
                                                     own_eval.rows())}});
  }
  return out;
}

outcome<outbox> active_party::on_predict_values(passive_state& s,
                                                const predict_values& m) {
  const char* step = "M4 predict_values";
  if (phase_ != phase::predicting || s.has_prediction)
    return refuse(step, "unexpected or duplicate values from party " +
                            std::to_string(s.id));
  if (auto e =
          validate(m, batch_, static_cast<std::uint32_t>(predict_own_.rows()),
                   s.columns.names.size()))
    return *e;
  s.prediction = m;
  s.has_prediction = true;
  for (const auto& o : passives_)
    if (!o.has_prediction)
      return outbox{};
  finish_prediction();
  return outbox{};
}

void active_party::finish_prediction() {
  auto rows = predict_own_.rows();
  std::vector<std::string> names = own_.feature_names();
  for (const auto& s : passives_)
    names.insert(names.end(), s.columns.names.begin(), s.columns.names.end());
  predict_matrix_ = learners::dataset(rows, names);
  for (std::size_t j = 0; j < own_.features(); ++j) {
    auto src = predict_own_.column(j);
    std::copy(src.begin(), src.end(), predict_matrix_.column(j).begin());
  }
  std::size_t col = own_.features();
  for (auto& s : passives_) {
    for (std::size_t f = 0; f < s.columns.names.size(); ++f, ++col) {
      auto dst = predict_matrix_.column(col);
      for (std::size_t i = 0; i < rows; ++i)
        dst[i] = static_cast<float>(s.prediction.values[f * rows + i]);
    }
    s.prediction = predict_values{};
  }
  predicted_ = model_.predict_margin(predict_matrix_, params_.booster.threads);
  phase_ = phase::predicted;
}

dp::accountant active_party::spent() const {
  dp::accountant a;
  for (const auto& s : passives_) {
    auto r = s.columns.names.size();
    auto eps = dp::rational::from_double(params_.mechanism.epsilon);
    if (params_.budget == budget_split::split && r > 0)
      eps = eps / dp::rational{r, 1};
    auto cost = make_desensitizer(params_.mechanism, params_.dom, eps).cost();
    for (const auto& name : s.columns.names)
      a.add("party " + std::to_string(s.id) + " / " + name, cost);
  }
  return a;
}

std::string active_party::privacy_report() const {
  std::vector<std::vector<std::string>> by_party;
  for (const auto& s : passives_)
    by_party.push_back(s.columns.names);
  return opboost::privacy_report(params_, by_party);
}

} // namespace veil::protocols::opboost
