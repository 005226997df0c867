#include "protocols/ldpboost/roles.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "learners/input_error.hpp"
#include "learners/samme/samme.hpp"
#include "protocols/dp/bernoulli.hpp"
#include "protocols/dp/vector_ldp.hpp"

namespace veil::protocols::ldpboost {

namespace {

/// Whether member `m` reads only features below `d` and predicts classes
/// below `classes`.
bool fits(const member& m, std::size_t d, int classes) {
  if (const auto* c = std::get_if<learners::nearest_centroid>(&m)) {
    if (c->centroids.size() != static_cast<std::size_t>(classes))
      return false;
    for (const auto& mu : c->centroids)
      if (!mu.empty() && mu.size() != d)
        return false;
    return true;
  }
  if (const auto* s = std::get_if<learners::stump>(&m))
    return s->feature < d && classes == 2;
  return std::get<learners::logistic_regression>(m).theta.size() == d;
}

/// A member as learners/samme's classifiers (predict(row) -> class).
struct as_classifier {
  const member& m;
  int predict(std::span<const double> x) const {
    return ldpboost::predict(m, x);
  }
};

} // namespace

encoded_ensemble encode(const std::vector<member>& ensemble) {
  encoded_ensemble e;
  auto put = [&](double v) { e.numbers.push_back(v); };
  for (const auto& m : ensemble) {
    e.kinds.push_back(static_cast<std::uint8_t>(m.index()));
    if (const auto* c = std::get_if<learners::nearest_centroid>(&m)) {
      put(static_cast<double>(c->centroids.size()));
      for (const auto& mu : c->centroids) {
        put(static_cast<double>(mu.size()));
        e.numbers.insert(e.numbers.end(), mu.begin(), mu.end());
      }
    } else if (const auto* s = std::get_if<learners::stump>(&m)) {
      put(static_cast<double>(s->feature));
      put(s->threshold);
      put(s->leaf[0]);
      put(s->leaf[1]);
    } else {
      const auto& theta = std::get<learners::logistic_regression>(m).theta;
      put(static_cast<double>(theta.size()));
      e.numbers.insert(e.numbers.end(), theta.begin(), theta.end());
    }
  }
  return e;
}

std::optional<std::vector<member>> decode(const encoded_ensemble& e) {
  constexpr double most = 1 << 20; // counts, lengths, features, classes
  std::size_t at = 0;
  auto take = [&](double& v) {
    if (at >= e.numbers.size() || !std::isfinite(e.numbers[at]))
      return false;
    v = e.numbers[at++];
    return true;
  };
  auto count = [&](std::size_t& n) {
    double v = 0;
    if (!take(v) || v < 0 || v > most || v != std::floor(v))
      return false;
    n = static_cast<std::size_t>(v);
    return true;
  };
  std::vector<member> out;
  for (auto kind : e.kinds) {
    if (kind == 0) {
      learners::nearest_centroid c;
      std::size_t k = 0;
      if (!count(k))
        return std::nullopt;
      c.centroids.resize(k);
      for (auto& mu : c.centroids) {
        std::size_t len = 0;
        if (!count(len))
          return std::nullopt;
        mu.resize(len);
        for (auto& v : mu)
          if (!take(v))
            return std::nullopt;
      }
      out.push_back(std::move(c));
    } else if (kind == 1) {
      learners::stump s;
      std::size_t feature = 0, leaf0 = 0, leaf1 = 0;
      if (!count(feature) || !take(s.threshold) || !count(leaf0) ||
          !count(leaf1) || leaf0 > 1 || leaf1 > 1)
        return std::nullopt;
      s.feature = feature;
      s.leaf[0] = static_cast<int>(leaf0);
      s.leaf[1] = static_cast<int>(leaf1);
      out.push_back(s);
    } else if (kind == 2) {
      learners::logistic_regression lr;
      std::size_t d = 0;
      if (!count(d))
        return std::nullopt;
      lr.theta.resize(d);
      for (auto& v : lr.theta)
        if (!take(v))
          return std::nullopt;
      out.push_back(std::move(lr));
    } else {
      return std::nullopt;
    }
  }
  if (at != e.numbers.size())
    return std::nullopt;
  return out;
}

const char* message_name(const message& m) {
  struct namer {
    const char* operator()(const share_request&) const {
      return "share_request";
    }
    const char* operator()(const share_reply&) const { return "share_reply"; }
    const char* operator()(const block_request&) const {
      return "block_request";
    }
    const char* operator()(const block_reply&) const { return "block_reply"; }
    const char* operator()(const failure&) const { return "failure"; }
  };
  return std::visit(namer{}, m);
}

void params::validate() const {
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    throw input_error("epsilon must be a positive number");
  if (classes < 2)
    throw input_error("ldp: at least two classes");
  if (base != learner::ncc && classes != 2)
    throw input_error("ldp.learner: stumps and logistic regression are "
                      "binary (spec §5.5)");
  if (rounds < 1)
    throw input_error("--trees (rounds) must be at least 1");
  if (owners_per_round < 1)
    throw input_error("ldp.owners_per_round must be at least 1");
  if (max_attempts < 1)
    throw input_error("ldp.max_attempts must be at least 1");
  if (!(lr_lambda > 0))
    throw input_error("ldp.lambda must be positive");
}

const char* to_string(learner l) {
  switch (l) {
  case learner::ncc:
    return "ncc";
  case learner::stump:
    return "stump";
  case learner::lr:
    return "lr";
  }
  return "?";
}

const char* to_string(mechanism m) {
  switch (m) {
  case mechanism::piecewise:
    return "piecewise";
  case mechanism::duchi:
    return "duchi";
  case mechanism::laplace:
    return "laplace";
  case mechanism::identity:
    return "identity";
  }
  return "?";
}

scaling scaling::of(const learners::labelled_rows& rows) {
  scaling s;
  s.lower.assign(rows.features, std::numeric_limits<double>::infinity());
  s.upper.assign(rows.features, -std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < rows.rows(); ++i)
    for (std::size_t j = 0; j < rows.features; ++j) {
      s.lower[j] = std::min(s.lower[j], rows.row(i)[j]);
      s.upper[j] = std::max(s.upper[j], rows.row(i)[j]);
    }
  return s;
}

learners::labelled_rows scaling::apply(learners::labelled_rows rows) const {
  for (std::size_t i = 0; i < rows.rows(); ++i)
    for (std::size_t j = 0; j < rows.features; ++j) {
      auto& v = rows.x[i * rows.features + j];
      double span = upper[j] - lower[j];
      v = span > 0 ? std::clamp(2 * (v - lower[j]) / span - 1, -1.0, 1.0) : 0;
    }
  return rows;
}

int predict(const member& m, std::span<const double> x) {
  return std::visit([&](const auto& h) { return h.predict(x); }, m);
}

int vote(const std::vector<double>& alpha, const std::vector<member>& ensemble,
         int classes, std::span<const double> x) {
  std::vector<double> votes(static_cast<std::size_t>(classes), 0);
  for (std::size_t m = 0; m < ensemble.size(); ++m) {
    auto c = predict(ensemble[m], x);
    if (c >= 0)
      votes[static_cast<std::size_t>(c)] += alpha[m];
  }
  return static_cast<int>(std::max_element(votes.begin(), votes.end()) -
                          votes.begin());
}

// -- owner --------------------------------------------------------------------

owner::owner(party_id id, learners::labelled_rows rows, const scaling& bounds,
             params p, std::uint64_t seed)
    : id_(id), rows_(bounds.apply(std::move(rows))), params_(std::move(p)),
      seed_(seed) {}

std::vector<double> owner::perturb(std::span<const double> v, double epsilon) {
  ++calls_;
  per_call_ = epsilon;
  auto run = [&](auto& g) -> std::vector<double> {
    switch (params_.mech) {
    case mechanism::piecewise:
      return dp::piecewise_vector(epsilon, v.size())(g, v);
    case mechanism::duchi:
      return dp::duchi_vector(epsilon, v.size())(g, v);
    case mechanism::laplace:
      return dp::laplace_vector(epsilon, v.size())(g, v);
    case mechanism::identity:
      break;
    }
    return {v.begin(), v.end()};
  };
  return system_ ? run(*system_) : run(*seeded_);
}

outcome<outbox> owner::on_message(party_id from, const message& m) {
  const auto* r = std::get_if<share_request>(&m);
  if (!r)
    return refuse(message_name(m), "an owner answers share requests only");
  if (from != 0)
    return refuse("share_request", "not from the data user");
  if (used_)
    return refuse("share_request", "this owner has answered once: its "
                                   "budget is spent");
  auto ensemble = decode(r->ensemble);
  if (!ensemble)
    return refuse("share_request", "a malformed ensemble");
  if (r->alpha.size() != ensemble->size())
    return refuse("share_request", "alpha and ensemble differ in length");
  // Members that read past this owner's features would misclassify by
  // reading out of bounds: refused.
  for (const auto& m : *ensemble)
    if (!fits(m, rows_.features, params_.classes))
      return refuse("share_request", "a member of another shape");
  used_ = true;
  // Its generator lives for its one release only: a buffered system
  // generator is 4 KB, and a session may hold 100,000 owners.
  if (seed_ == 0)
    system_ = std::make_unique<crypto::system_random>();
  else
    seeded_.emplace(seed_ * 1000003u + static_cast<std::uint64_t>(id_));
  struct release_generator {
    owner& o;
    ~release_generator() {
      o.system_.reset();
      o.seeded_.reset();
    }
  } done{*this};
  const auto n = rows_.rows(), d = rows_.features;
  // Lazy SAMME weights (log domain): −log N + Σ_m α_m [y ≠ T_m(x)].
  std::vector<double> logw(n, -std::log(static_cast<double>(n)));
  for (std::size_t m = 0; m < ensemble->size(); ++m)
    for (std::size_t i = 0; i < n; ++i)
      if (predict((*ensemble)[m], rows_.row(i)) != rows_.y[i])
        logw[i] += r->alpha[m];
  std::vector<double> w(n);
  double top = *std::max_element(logw.begin(), logw.end()), total = 0;
  for (std::size_t i = 0; i < n; ++i)
    total += w[i] = std::exp(logw[i] - top);
  share_reply reply{r->round, r->attempt, {}, {}, {}};
  switch (params_.base) {
  case learner::ncc: {
    // Raw weights (the centroid's weighted mean is scale-free); the budget
    // split over the rows (spec §4.4).
    double scale = std::exp(top);
    for (std::size_t i = 0; i < n; ++i) {
      double wi = w[i] * scale;
      auto x = perturb(rows_.row(i), params_.epsilon / static_cast<double>(n));
      for (auto v : x)
        reply.values.push_back(wi * v);
      reply.labels.push_back(rows_.y[i]);
      reply.weights.push_back(wi);
    }
    break;
  }
  case learner::stump: {
    for (auto& v : w)
      v /= total;
    if (r->thresholds.size() != d)
      return refuse("share_request", "thresholds for another number of "
                                     "features");
    auto delta = learners::stump::differences(rows_, w, r->thresholds);
    reply.values = perturb(delta, params_.epsilon);
    break;
  }
  case learner::lr: {
    for (auto& v : w)
      v /= total;
    auto theta =
        learners::logistic_regression::fit(rows_, w, params_.lr_lambda).theta;
    for (auto& t : theta)
      t = std::clamp(t, -1.0, 1.0); // |θ| ≤ 1 already with λ = 1 (§5.3)
    reply.values = perturb(theta, params_.epsilon);
    break;
  }
  }
  return outbox{{0, std::move(reply)}};
}

// -- data user
// ------------------------------------------------------------------

data_user::data_user(learners::labelled_rows own, std::size_t owners, params p,
                     std::uint64_t seed)
    : bounds_(scaling::of(own)), params_(std::move(p)), pick_(seed) {
  params_.validate();
  if (own.rows() == 0)
    throw input_error("ldp: the data user needs labelled rows of its own");
  own_ = bounds_.apply(std::move(own));
  pool_.resize(owners);
  std::iota(pool_.begin(), pool_.end(), party_id{1});
  weights_.assign(own_.rows(), 1.0 / static_cast<double>(own_.rows()));
}

outbox data_user::start() {
  round_ = 0;
  attempt_ = 0;
  return begin_attempt();
}

outbox data_user::begin_attempt() {
  ++attempt_;
  auto h = params_.owners_per_round;
  if (pool_.size() < h) {
    log_.stopped = "the pool of unused owners is exhausted (" +
                   std::to_string(pool_.size()) + " left, " +
                   std::to_string(h) + " needed)";
    done_ = true;
    return {};
  }
  // H owners without replacement; they are burned whatever happens.
  for (std::size_t k = 0; k < h; ++k)
    std::swap(pool_[k], pool_[k + dp::uniform_below(pick_, pool_.size() - k)]);
  asked_ =
      std::set<party_id>(pool_.begin(), pool_.begin() + static_cast<long>(h));
  pool_.erase(pool_.begin(), pool_.begin() + static_cast<long>(h));
  log_.burned += h;
  heard_.clear();
  replies_.clear();
  share_request r;
  r.round = round_;
  r.attempt = attempt_;
  r.alpha = alpha_;
  r.ensemble = encode(ensemble_);
  if (params_.base == learner::stump)
    r.thresholds = learners::stump::best_thresholds(own_, weights_);
  thresholds_ = r.thresholds;
  outbox out;
  for (auto id : asked_)
    out.push_back({id, r});
  return out;
}

std::optional<member> data_user::aggregate() const {
  if (replies_.empty())
    return std::nullopt;
  const auto d = own_.features;
  switch (params_.base) {
  case learner::ncc: {
    auto k = static_cast<std::size_t>(params_.classes);
    std::vector<std::vector<double>> sum(k, std::vector<double>(d, 0));
    std::vector<double> weight(k, 0);
    for (const auto& r : replies_)
      for (std::size_t i = 0; i < r.labels.size(); ++i) {
        auto c = static_cast<std::size_t>(r.labels[i]);
        for (std::size_t j = 0; j < d; ++j)
          sum[c][j] += r.values[i * d + j];
        weight[c] += r.weights[i];
      }
    learners::nearest_centroid ncc;
    ncc.centroids.resize(k);
    for (std::size_t c = 0; c < k; ++c) {
      if (!(weight[c] > 0))
        return std::nullopt; // a class without samples: reject ([X])
      ncc.centroids[c] = sum[c];
      for (auto& v : ncc.centroids[c])
        v /= weight[c];
    }
    return ncc;
  }
  case learner::stump:
  case learner::lr: {
    auto len = params_.base == learner::stump ? 2 * d : d;
    std::vector<double> mean(len, 0);
    for (const auto& r : replies_)
      for (std::size_t j = 0; j < len; ++j)
        mean[j] += r.values[j] / static_cast<double>(replies_.size());
    if (params_.base == learner::stump)
      return learners::stump::from_differences(mean, thresholds_);
    learners::logistic_regression lr;
    lr.theta = std::move(mean);
    return lr;
  }
  }
  return std::nullopt;
}

outcome<outbox> data_user::maybe_finish() {
  if (heard_.size() < asked_.size())
    return outbox{};
  auto t = aggregate();
  candidate_ = t;
  double alpha = 0, err = 1;
  if (t) {
    err = learners::weighted_error(as_classifier{*t}, own_, weights_);
    alpha = learners::samme_alpha(err, params_.classes);
  }
  if (!(alpha > 0)) {
    ++log_.rejected;
    if (static_cast<int>(attempt_) >= params_.max_attempts) {
      log_.stopped = "round " + std::to_string(round_ + 1) + ": no attempt " +
                     "of " + std::to_string(params_.max_attempts) +
                     " beat chance";
      done_ = true;
      return outbox{};
    }
    return begin_attempt();
  }
  // Accepted: the user's weights follow SAMME (spec §4.3 [A]).
  learners::samme_update(as_classifier{*t}, alpha, own_, weights_);
  alpha_.push_back(alpha);
  ensemble_.push_back(std::move(*t));
  log_.errors.push_back(err);
  ++round_;
  attempt_ = 0;
  if (static_cast<int>(round_) >= params_.rounds) {
    done_ = true;
    return outbox{};
  }
  return begin_attempt();
}

outcome<outbox> data_user::on_message(party_id from, const message& m) {
  const auto* r = std::get_if<share_reply>(&m);
  if (!r)
    return refuse(message_name(m), "the data user takes share replies only");
  if (skipped_.contains(from))
    return outbox{}; // late: skipped as silent half a timeout ago
  if (!asked_.contains(from) || heard_.contains(from))
    return refuse("share_reply", "not asked in this attempt, or twice");
  if (r->round != round_ || r->attempt != attempt_)
    return refuse("share_reply", "for another round or attempt");
  const auto d = own_.features;
  bool ok = false;
  switch (params_.base) {
  case learner::ncc:
    ok = r->values.size() == r->labels.size() * d &&
         r->weights.size() == r->labels.size() &&
         std::all_of(r->labels.begin(), r->labels.end(),
                     [&](auto y) { return y >= 0 && y < params_.classes; }) &&
         std::all_of(r->weights.begin(), r->weights.end(),
                     [](double w) { return w >= 0 && std::isfinite(w); });
    break;
  case learner::stump:
    ok = r->values.size() == 2 * d;
    break;
  case learner::lr:
    ok = r->values.size() == d;
    break;
  }
  if (!ok)
    return refuse("share_reply", "a share of the wrong shape");
  heard_.insert(from);
  replies_.push_back(*r);
  return maybe_finish();
}

std::vector<party_id> data_user::waiting() const {
  std::vector<party_id> out;
  for (auto q : asked_)
    if (!heard_.contains(q))
      out.push_back(q);
  return out;
}

outcome<outbox> data_user::on_silent(party_id owner) {
  if (!asked_.contains(owner) || heard_.contains(owner))
    return outbox{};
  heard_.insert(owner);
  skipped_.insert(owner);
  ++log_.silent;
  return maybe_finish();
}

} // namespace veil::protocols::ldpboost
