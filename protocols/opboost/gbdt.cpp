#include "protocols/opboost/gbdt.hpp"

namespace veil::protocols::opboost {

learners::booster_params gbdt_defaults() {
  learners::booster_params p;
  p.rounds = 80;
  p.leaf = learners::leaf_rule::gradient;
  p.tree.eta = 0.1;
  p.tree.max_depth = 3;
  p.tree.lambda = 0;
  p.tree.min_child_weight = 1;
  return p;
}

learners::training_result
train_gbdt(const learners::dataset& train, const learners::booster_params& p,
           const std::function<void(const learners::round_info&)>& on_round) {
  auto q = p;
  q.leaf = learners::leaf_rule::gradient;
  q.eval_train = false;
  return learners::train(train, nullptr, q, on_round);
}

} // namespace veil::protocols::opboost
