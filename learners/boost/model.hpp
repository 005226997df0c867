#pragma once

#include <string>
#include <vector>

#include "learners/data/dataset.hpp"
#include "learners/objective/objective.hpp"
#include "learners/tree/regression_tree.hpp"

namespace veil::learners {

/// A boosted ensemble: margin = base_margin[k] + sum of the trees of output
/// k. Trees are stored round by round, outputs() trees per round.
class model {
public:
  objective_kind objective = objective_kind::binary_logistic;
  int num_class = 1;
  std::vector<double> base_margin = {0.0};
  std::vector<std::string> feature_names;
  /// "tree" or "decision_table".
  std::string weak_learner = "tree";
  std::vector<regression_tree> trees;
  /// Empty for a model that predicts on its own. A federated session's
  /// model file sets it: what the file holds of the model and how to
  /// predict with it (load_model refuses such a file with this text, so
  /// that `veil predict` and `veil export` never give wrong answers from a
  /// part).
  std::string federated;

  learners::objective make_objective() const {
    return learners::objective(objective, num_class);
  }
  int outputs() const { return make_objective().outputs(); }
  std::size_t rounds() const {
    return trees.size() / static_cast<std::size_t>(outputs());
  }

  /// Margins of every row, output-major. `d` may have its columns in any
  /// order and extra columns: they are matched by name; a missing one is an
  /// input_error naming it.
  std::vector<double> predict_margin(const dataset& d, int threads = 1) const;

  /// Transformed predictions (probabilities or values), output-major.
  std::vector<double> predict(const dataset& d, int threads = 1) const;

  /// `d` with exactly this model's features, in this model's order.
  dataset align(const dataset& d) const;
};

} // namespace veil::learners
