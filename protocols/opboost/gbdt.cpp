#include "protocols/opboost/gbdt.hpp"

#include <chrono>
#include <numeric>

#include "learners/binning/bin_matrix.hpp"
#include "learners/binning/quantile_cuts.hpp"
#include "learners/input_error.hpp"
#include "learners/tree/local_split_finder.hpp"
#include "learners/tree/tree_grower.hpp"

namespace veil::protocols::opboost {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

} // namespace

learners::booster_params gbdt_defaults() {
  learners::booster_params p;
  p.rounds = 80;
  p.tree.eta = 0.1;
  p.tree.max_depth = 3;
  p.tree.lambda = 0;
  p.tree.min_child_weight = 1;
  return p;
}

learners::training_result train_gbdt(const learners::dataset& train,
                                     const learners::booster_params& p) {
  p.validate();
  if (!train.has_labels())
    throw input_error("the training data has no label column");
  if (train.rows() == 0)
    throw input_error("the training data has no rows");
  learners::objective obj(p.objective, p.num_class);
  obj.check_labels(train.labels());

  learners::training_result result;
  auto& m = result.model;
  m.objective = p.objective;
  m.num_class = obj.outputs() > 1 ? p.num_class : 1;
  m.feature_names = train.feature_names();
  m.weak_learner = p.tree.oblivious ? "decision_table" : "tree";
  if (std::isnan(p.base_score)) {
    m.base_margin = obj.initial_margin(train.labels());
  } else {
    double b = p.base_score;
    if (p.objective == learners::objective_kind::binary_logistic)
      b = std::log(b / (1 - b));
    m.base_margin.assign(static_cast<std::size_t>(obj.outputs()), b);
  }

  auto t0 = clock_type::now();
  auto cuts = learners::quantile_cuts::compute(train, p.max_bin, p.threads);
  learners::bin_matrix bins(train, cuts, p.threads);
  result.bin_seconds = seconds_since(t0);

  auto n = train.rows();
  auto k = static_cast<std::size_t>(obj.outputs());
  std::vector<double> margins(n * k);
  for (std::size_t c = 0; c < k; ++c)
    std::fill(margins.begin() + c * n, margins.begin() + (c + 1) * n,
              m.base_margin[c]);
  std::vector<learners::grad_pair> grads(n * k);
  std::vector<std::uint32_t> all_rows(n);
  std::iota(all_rows.begin(), all_rows.end(), 0u);
  learners::local_split_finder finder(bins, cuts, p.tree, p.threads);

  for (int round = 1; round <= p.rounds; ++round) {
    obj.gradients(train.labels(), margins, grads, p.threads);
    for (auto& gp : grads)
      gp.h = 1; // gradient-only: least squares on the negative gradient
    for (std::size_t c = 0; c < k; ++c) {
      std::span<const learners::grad_pair> g(grads.data() + c * n, n);
      learners::tree_grower grower(p.tree, g, all_rows, p.threads);
      finder.start_tree();
      while (!grower.done())
        grower.apply(finder.decide(grower.frontier(), g));
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
      m.trees.push_back(std::move(t));
    }
    learners::round_info info;
    info.round = round;
    info.rounds = p.rounds;
    result.history.push_back(info);
    result.best_round = round;
  }
  result.train_seconds = seconds_since(t0);
  return result;
}

} // namespace veil::protocols::opboost
