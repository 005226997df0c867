#pragma once

#include <span>
#include <string>
#include <vector>

#include "learners/hist/gradients.hpp"

namespace veil::learners {

enum class objective_kind { binary_logistic, reg_squarederror, multi_softmax };

/// "binary:logistic", "reg:squarederror", "multi:softmax".
std::string to_string(objective_kind k);
/// Parses XGBoost's objective names; throws input_error naming the value.
objective_kind parse_objective(const std::string& name);

/// A loss with its gradients (XGBoost's formulas). Margins and gradients of
/// K outputs are stored output-major: index k * n + i for row i, output k.
class objective {
public:
  objective(objective_kind kind, int num_class = 1);

  objective_kind kind() const { return kind_; }
  /// Number of margins per row: num_class for softmax, else 1.
  int outputs() const {
    return kind_ == objective_kind::multi_softmax ? num_class_ : 1;
  }
  int num_class() const { return num_class_; }
  bool is_classification() const {
    return kind_ != objective_kind::reg_squarederror;
  }

  /// Checks every label is valid for this objective: {0,1} for logistic,
  /// integers in [0, num_class) for softmax, finite for regression. Throws
  /// input_error naming the first bad row (0-based data row).
  void check_labels(std::span<const float> labels) const;

  /// Gradient pairs at `margins` (n * outputs()), written to `out` (same).
  void gradients(std::span<const float> labels, std::span<const double> margins,
                 std::span<grad_pair> out, int threads = 1) const;

  /// The margin that best fits the labels with no trees: logit of the
  /// positive rate, the mean, or log class frequencies.
  std::vector<double> initial_margin(std::span<const float> labels) const;

  /// Turns margins into predictions: probabilities (binary: of class 1;
  /// softmax: per class, output-major), or the value itself for regression.
  std::vector<double> transform(std::span<const double> margins,
                                std::size_t rows) const;

private:
  objective_kind kind_;
  int num_class_;
};

} // namespace veil::learners
