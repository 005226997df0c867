#include "learners/metrics/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace veil::learners {

namespace {

constexpr double clip = 1e-15;

} // namespace

double auc(std::span<const float> labels, std::span<const double> scores) {
  auto n = labels.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](auto a, auto b) { return scores[a] < scores[b]; });
  // Sum of the (average, for ties) ranks of the positives.
  double pos = 0, rank_sum = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && scores[order[j]] == scores[order[i]])
      ++j;
    double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k)
      if (labels[order[k]] > 0.5f) {
        pos += 1;
        rank_sum += avg_rank;
      }
    i = j;
  }
  double neg = static_cast<double>(n) - pos;
  if (pos == 0 || neg == 0)
    return std::numeric_limits<double>::quiet_NaN();
  return (rank_sum - pos * (pos + 1) / 2) / (pos * neg);
}

double binary_accuracy(std::span<const float> labels,
                       std::span<const double> probs) {
  std::size_t hit = 0;
  for (std::size_t i = 0; i < labels.size(); ++i)
    hit += (probs[i] > 0.5) == (labels[i] > 0.5f);
  return labels.empty() ? 0 : static_cast<double>(hit) / labels.size();
}

double logloss(std::span<const float> labels, std::span<const double> probs) {
  double s = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    double p = std::clamp(probs[i], clip, 1 - clip);
    s -= labels[i] > 0.5f ? std::log(p) : std::log(1 - p);
  }
  return labels.empty() ? 0 : s / labels.size();
}

double mse(std::span<const float> labels, std::span<const double> preds) {
  double s = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    double d = preds[i] - labels[i];
    s += d * d;
  }
  return labels.empty() ? 0 : s / labels.size();
}

double rmse(std::span<const float> labels, std::span<const double> preds) {
  return std::sqrt(mse(labels, preds));
}

double multiclass_accuracy(std::span<const float> labels,
                           std::span<const double> probs, int classes) {
  auto n = labels.size();
  std::size_t hit = 0;
  for (std::size_t i = 0; i < n; ++i) {
    int best = 0;
    for (int c = 1; c < classes; ++c)
      if (probs[c * n + i] > probs[best * n + i])
        best = c;
    hit += static_cast<float>(best) == labels[i];
  }
  return n == 0 ? 0 : static_cast<double>(hit) / n;
}

double multiclass_logloss(std::span<const float> labels,
                          std::span<const double> probs, int classes) {
  auto n = labels.size();
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) {
    auto c = static_cast<std::size_t>(labels[i]);
    if (c >= static_cast<std::size_t>(classes))
      continue;
    s -= std::log(std::max(probs[c * n + i], clip));
  }
  return n == 0 ? 0 : s / n;
}

std::map<std::string, double> evaluate(const objective& obj,
                                       std::span<const float> labels,
                                       std::span<const double> predictions) {
  switch (obj.kind()) {
  case objective_kind::binary_logistic:
    return {{"auc", auc(labels, predictions)},
            {"accuracy", binary_accuracy(labels, predictions)},
            {"logloss", logloss(labels, predictions)}};
  case objective_kind::reg_squarederror:
    return {{"rmse", rmse(labels, predictions)},
            {"mse", mse(labels, predictions)}};
  case objective_kind::multi_softmax:
    return {
        {"accuracy", multiclass_accuracy(labels, predictions, obj.num_class())},
        {"logloss", multiclass_logloss(labels, predictions, obj.num_class())}};
  }
  return {};
}

std::pair<std::string, bool> default_metric(const objective& obj) {
  switch (obj.kind()) {
  case objective_kind::binary_logistic:
    return {"auc", true};
  case objective_kind::reg_squarederror:
    return {"rmse", false};
  case objective_kind::multi_softmax:
    return {"logloss", false};
  }
  return {"auc", true};
}

} // namespace veil::learners
