#include "learners/objective/objective.hpp"

#include <algorithm>
#include <cmath>

#include "learners/input_error.hpp"
#include "learners/parallel.hpp"

namespace veil::learners {

namespace {

constexpr float min_hessian = 1e-16f;

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

} // namespace

std::string to_string(objective_kind k) {
  switch (k) {
  case objective_kind::binary_logistic:
    return "binary:logistic";
  case objective_kind::reg_squarederror:
    return "reg:squarederror";
  case objective_kind::multi_softmax:
    return "multi:softmax";
  }
  return "?";
}

objective_kind parse_objective(const std::string& name) {
  if (name == "binary:logistic")
    return objective_kind::binary_logistic;
  if (name == "reg:squarederror")
    return objective_kind::reg_squarederror;
  if (name == "multi:softmax" || name == "multi:softprob")
    return objective_kind::multi_softmax;
  throw input_error("unknown objective \"" + name +
                    "\": expected binary:logistic, reg:squarederror or "
                    "multi:softmax");
}

objective::objective(objective_kind kind, int num_class)
    : kind_(kind),
      num_class_(kind == objective_kind::multi_softmax ? num_class : 1) {
  if (kind == objective_kind::multi_softmax && num_class < 2)
    throw input_error("multi:softmax needs num_class >= 2, got " +
                      std::to_string(num_class));
}

void objective::check_labels(std::span<const float> labels) const {
  for (std::size_t i = 0; i < labels.size(); ++i) {
    float y = labels[i];
    bool ok = std::isfinite(y);
    const char* want = "a finite number";
    if (kind_ == objective_kind::binary_logistic) {
      ok = y == 0 || y == 1;
      want = "0 or 1";
    } else if (kind_ == objective_kind::multi_softmax) {
      ok = y >= 0 && y < num_class_ && y == std::floor(y);
      want = "an integer class in [0, num_class)";
    }
    if (!ok) {
      // A value label under a classification objective: say which fits.
      bool looks_numeric = std::isfinite(y) && y != std::floor(y);
      throw input_error(
          "label of data row " + std::to_string(i + 1) + " is " +
          std::to_string(y) + "; " + to_string(kind_) + " expects " + want +
          (looks_numeric && kind_ != objective_kind::reg_squarederror
               ? " (for a numeric label use --objective reg:squarederror)"
               : ""));
    }
  }
}

void objective::gradients(std::span<const float> labels,
                          std::span<const double> margins,
                          std::span<grad_pair> out, int threads) const {
  auto n = labels.size();
  switch (kind_) {
  case objective_kind::binary_logistic:
#pragma omp parallel for num_threads(threads_for(n* outputs(), threads))       \
    schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      double p = sigmoid(margins[i]);
      out[i] = {static_cast<float>(p - labels[i]),
                std::max(static_cast<float>(p * (1 - p)), min_hessian)};
    }
    break;
  case objective_kind::reg_squarederror:
#pragma omp parallel for num_threads(threads_for(n* outputs(), threads))       \
    schedule(static)
    for (std::size_t i = 0; i < n; ++i)
      out[i] = {static_cast<float>(margins[i] - labels[i]), 1.0f};
    break;
  case objective_kind::multi_softmax: {
    auto k = static_cast<std::size_t>(num_class_);
#pragma omp parallel for num_threads(threads_for(n* outputs(), threads))       \
    schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      double mx = margins[i];
      for (std::size_t c = 1; c < k; ++c)
        mx = std::max(mx, margins[c * n + i]);
      double z = 0;
      for (std::size_t c = 0; c < k; ++c)
        z += std::exp(margins[c * n + i] - mx);
      for (std::size_t c = 0; c < k; ++c) {
        double p = std::exp(margins[c * n + i] - mx) / z;
        double y = labels[i] == static_cast<float>(c) ? 1.0 : 0.0;
        out[c * n + i] = {
            static_cast<float>(p - y),
            std::max(static_cast<float>(2.0 * p * (1.0 - p)), min_hessian)};
      }
    }
    break;
  }
  }
}

std::vector<double>
objective::initial_margin(std::span<const float> labels) const {
  auto n = static_cast<double>(std::max<std::size_t>(labels.size(), 1));
  switch (kind_) {
  case objective_kind::binary_logistic: {
    double pos = 0;
    for (float y : labels)
      pos += y;
    // Clamp so that a one-class training set gives a finite margin.
    double p = std::clamp(pos / n, 1e-6, 1 - 1e-6);
    return {std::log(p / (1 - p))};
  }
  case objective_kind::reg_squarederror: {
    double s = 0;
    for (float y : labels)
      s += y;
    return {s / n};
  }
  case objective_kind::multi_softmax: {
    std::vector<double> count(num_class_, 0);
    for (float y : labels)
      count[static_cast<std::size_t>(y)] += 1;
    std::vector<double> out(num_class_);
    for (int c = 0; c < num_class_; ++c)
      out[c] = std::log(std::max(count[c] / n, 1e-6));
    return out;
  }
  }
  return {0.0};
}

std::vector<double> objective::transform(std::span<const double> margins,
                                         std::size_t rows) const {
  std::vector<double> out(margins.begin(), margins.end());
  if (kind_ == objective_kind::binary_logistic) {
    for (auto& x : out)
      x = sigmoid(x);
  } else if (kind_ == objective_kind::multi_softmax) {
    auto k = static_cast<std::size_t>(num_class_);
    for (std::size_t i = 0; i < rows; ++i) {
      double mx = margins[i];
      for (std::size_t c = 1; c < k; ++c)
        mx = std::max(mx, margins[c * rows + i]);
      double z = 0;
      for (std::size_t c = 0; c < k; ++c)
        z += std::exp(margins[c * rows + i] - mx);
      for (std::size_t c = 0; c < k; ++c)
        out[c * rows + i] = std::exp(margins[c * rows + i] - mx) / z;
    }
  }
  return out;
}

} // namespace veil::learners
