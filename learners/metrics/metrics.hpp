#pragma once

#include <map>
#include <span>
#include <string>

#include "learners/objective/objective.hpp"

namespace veil::learners {

/// Area under the ROC curve of scores against 0/1 labels; tied scores count
/// one half (the Mann-Whitney statistic). NaN when one class is absent.
double auc(std::span<const float> labels, std::span<const double> scores);

/// Share of rows whose probability of class 1 is on the label's side of 0.5.
double binary_accuracy(std::span<const float> labels,
                       std::span<const double> probs);

/// Mean negative log-likelihood, probabilities clipped to [1e-15, 1-1e-15].
double logloss(std::span<const float> labels, std::span<const double> probs);

double mse(std::span<const float> labels, std::span<const double> preds);
double rmse(std::span<const float> labels, std::span<const double> preds);

/// Share of rows whose most probable class (output-major probabilities of
/// `classes` outputs) is the label; ties go to the lower class.
double multiclass_accuracy(std::span<const float> labels,
                           std::span<const double> probs, int classes);

/// Mean negative log-probability of the true class (clipped at 1e-15).
double multiclass_logloss(std::span<const float> labels,
                          std::span<const double> probs, int classes);

/// The metrics the report carries for an objective, from its transformed
/// predictions: auc, accuracy, logloss for binary; accuracy, logloss for
/// multi-class; rmse, mse for regression.
std::map<std::string, double> evaluate(const objective& obj,
                                       std::span<const float> labels,
                                       std::span<const double> predictions);

/// The metric early stopping watches for an objective, and whether larger is
/// better: auc for binary, logloss for multi-class, rmse for regression.
std::pair<std::string, bool> default_metric(const objective& obj);

} // namespace veil::learners
