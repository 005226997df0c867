#include "learners/boost/booster.hpp"
#include "learners/boost/early_stopping.hpp"

#include <chrono>
#include <numeric>
#include <optional>

#include "learners/binning/bin_matrix.hpp"
#include "learners/binning/quantile_cuts.hpp"
#include "learners/input_error.hpp"
#include "learners/metrics/metrics.hpp"
#include "learners/parallel.hpp"
#include "learners/tree/local_split_finder.hpp"
#include "learners/tree/tree_grower.hpp"

namespace veil::learners {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

void require(bool ok, const std::string& what) {
  if (!ok)
    throw input_error(what);
}

/// The margin XGBoost's base_score stands for.
std::vector<double> base_margin(const objective& obj, double base_score,
                                std::span<const float> labels) {
  if (std::isnan(base_score))
    return obj.initial_margin(labels);
  double m = base_score;
  if (obj.kind() == objective_kind::binary_logistic)
    m = std::log(base_score / (1 - base_score));
  return std::vector<double>(obj.outputs(), m);
}

} // namespace

void booster_params::validate() const {
  tree.validate();
  require(rounds >= 1 && rounds <= 100000,
          "parameter trees = " + std::to_string(rounds) +
              " is out of range: expected 1 to 100000");
  require(max_bin >= 2 && max_bin <= 65535,
          "parameter max_bin = " + std::to_string(max_bin) +
              " is out of range: expected 2 to 65535");
  require(threads >= 1 && threads <= 1024,
          "parameter threads = " + std::to_string(threads) +
              " is out of range: expected 1 to 1024");
  require(early_stopping_rounds >= 0,
          "parameter early_stopping_rounds must be >= 0");
  require(early_stopping_rounds == 0 || eval_rounds,
          "parameter early_stopping_rounds needs eval_rounds = true (it "
          "watches every round)");
  if (objective == objective_kind::multi_softmax)
    require(num_class >= 2 && num_class <= 10000,
            "parameter num_class = " + std::to_string(num_class) +
                " is out of range: multi:softmax needs 2 to 10000 classes");
  if (!std::isnan(base_score)) {
    if (objective == objective_kind::binary_logistic)
      require(base_score > 0 && base_score < 1,
              "parameter base_score must be a probability in (0, 1) for "
              "binary:logistic");
    else
      require(std::isfinite(base_score), "parameter base_score must be finite");
  }
}

training_result train(const dataset& train_set, const dataset* valid,
                      const booster_params& p,
                      const std::function<void(const round_info&)>& on_round) {
  p.validate();
  require(train_set.has_labels(), "the training data has no label column");
  require(train_set.rows() > 0, "the training data has no rows");
  require(train_set.rows() < (std::size_t{1} << 32) - 1,
          "the training data has more than 2^32 rows");
  objective obj(p.objective, p.num_class);
  obj.check_labels(train_set.labels());
  dataset valid_aligned;
  if (valid) {
    require(valid->has_labels(), "the validation data has no label column");
    obj.check_labels(valid->labels());
  }

  training_result result;
  auto& m = result.model;
  m.objective = p.objective;
  m.num_class = obj.outputs() > 1 ? p.num_class : 1;
  m.feature_names = train_set.feature_names();
  m.weak_learner = p.tree.oblivious ? "decision_table" : "tree";
  m.base_margin = base_margin(obj, p.base_score, train_set.labels());
  if (valid)
    valid_aligned = m.align(*valid);

  auto t0 = clock_type::now();
  auto cuts = quantile_cuts::compute(train_set, p.max_bin, p.threads);
  bin_matrix bins(train_set, cuts, p.threads);
  result.bin_seconds = seconds_since(t0);

  auto n = train_set.rows();
  auto k = static_cast<std::size_t>(obj.outputs());
  std::vector<double> margins(n * k);
  for (std::size_t c = 0; c < k; ++c)
    std::fill(margins.begin() + c * n, margins.begin() + (c + 1) * n,
              m.base_margin[c]);
  // Every round is evaluated when there is a validation set, whoever
  // watches: the history is part of the result, not of the terminal.
  std::optional<round_watcher> watch;
  if (valid && p.eval_rounds)
    watch.emplace(obj, valid_aligned.labels(), m.base_margin,
                  p.early_stopping_rounds, p.rounds, margin_sums::as_training);
  std::vector<double> round_margins(watch ? valid_aligned.rows() * k : 0);
  std::vector<grad_pair> grads(n * k);
  std::vector<std::uint32_t> all_rows(n);
  std::iota(all_rows.begin(), all_rows.end(), 0u);
  local_split_finder finder(bins, cuts, p.tree, p.threads);

  for (int round = 1; round <= p.rounds; ++round) {
    obj.gradients(train_set.labels(), margins, grads, p.threads);
    if (p.leaf == leaf_rule::gradient)
      for (auto& gp : grads)
        gp.h = 1; // least squares on the negative gradient
    for (std::size_t c = 0; c < k; ++c) {
      std::span<const grad_pair> g(grads.data() + c * n, n);
      tree_grower grower(p.tree, g, all_rows, p.threads);
      finder.start_tree();
      while (!grower.done())
        grower.apply(finder.decide(grower.frontier(), g));
      // Training margins from the leaves' rows: no need to re-predict.
      const auto& tree = grower.tree();
      for (std::size_t id = 0; id < tree.nodes.size(); ++id) {
        if (!tree.nodes[id].is_leaf())
          continue;
        double v = tree.nodes[id].value;
        for (auto r : grower.rows_of(static_cast<std::int32_t>(id)))
          margins[c * n + r] += v;
      }
      auto t = grower.take_tree();
      t.target = static_cast<int>(c);
      if (watch) {
        auto vn = valid_aligned.rows();
#pragma omp parallel for num_threads(threads_for(vn * 8, p.threads))           \
    schedule(static)
        for (std::size_t i = 0; i < vn; ++i)
          round_margins[c * vn + i] = t.predict(valid_aligned, i);
      }
      m.trees.push_back(std::move(t));
    }
    round_info info;
    info.round = round;
    info.rounds = p.rounds;
    if (p.eval_train)
      info.train = evaluate(obj, train_set.labels(), obj.transform(margins, n));
    bool stop = watch && watch->add_round(round_margins);
    if (watch)
      info.valid = watch->history().back().valid;
    result.history.push_back(info);
    if (on_round)
      on_round(info);
    if (stop)
      break;
  }
  if (watch)
    result.early_stop = watch->outcome();
  result.best_round = static_cast<int>(result.history.size());
  if (watch && watch->enabled()) { // keep the best rounds only
    result.best_round = result.early_stop.best_round;
    m.trees.resize(static_cast<std::size_t>(result.best_round) * k);
  }
  result.train_seconds = seconds_since(t0);
  return result;
}

} // namespace veil::learners
