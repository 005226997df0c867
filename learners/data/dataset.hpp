#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace veil::learners {

/// A missing feature value.
inline constexpr float missing_value = std::numeric_limits<float>::quiet_NaN();

inline bool is_missing(float x) {
  return std::isnan(x);
}

/// Features stored column by column (float, like XGBoost, so that thresholds
/// compare bit for bit the same here and in an exported XGBoost model), with
/// optional labels and sample ids.
class dataset {
public:
  dataset() = default;

  /// An all-missing dataset of the given shape.
  dataset(std::size_t rows, std::vector<std::string> feature_names)
      : rows_(rows), feature_names_(std::move(feature_names)),
        values_(rows_ * feature_names_.size(), missing_value) {}

  std::size_t rows() const { return rows_; }
  std::size_t features() const { return feature_names_.size(); }
  const std::vector<std::string>& feature_names() const {
    return feature_names_;
  }

  std::span<float> column(std::size_t j) {
    return {values_.data() + j * rows_, rows_};
  }
  std::span<const float> column(std::size_t j) const {
    return {values_.data() + j * rows_, rows_};
  }
  float value(std::size_t row, std::size_t j) const {
    return values_[j * rows_ + row];
  }
  float& value(std::size_t row, std::size_t j) {
    return values_[j * rows_ + row];
  }

  bool has_labels() const { return !labels_.empty(); }
  /// One label per row, or empty when this dataset holds none.
  std::vector<float>& labels() { return labels_; }
  const std::vector<float>& labels() const { return labels_; }

  bool has_ids() const { return !ids_.empty(); }
  /// One sample id per row, or empty when no id column was named.
  std::vector<std::string>& ids() { return ids_; }
  const std::vector<std::string>& ids() const { return ids_; }

  /// Index of the feature called `name`, or -1.
  long feature_index(const std::string& name) const {
    for (std::size_t j = 0; j < feature_names_.size(); ++j)
      if (feature_names_[j] == name)
        return static_cast<long>(j);
    return -1;
  }

  /// The rows `rows` of this dataset, in that order (labels and ids too).
  dataset select_rows(std::span<const std::size_t> rows) const;

  /// The columns `cols` of this dataset, in that order; labels and ids kept.
  dataset select_columns(std::span<const std::size_t> cols) const;

private:
  std::size_t rows_ = 0;
  std::vector<std::string> feature_names_;
  std::vector<float> values_; // column-major, rows_ * features()
  std::vector<float> labels_;
  std::vector<std::string> ids_;
};

} // namespace veil::learners
