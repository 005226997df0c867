#include "learners/data/dataset.hpp"

namespace veil::learners {

dataset dataset::select_rows(std::span<const std::size_t> rows) const {
  dataset out(rows.size(), feature_names_);
  for (std::size_t j = 0; j < features(); ++j) {
    auto src = column(j);
    auto dst = out.column(j);
    for (std::size_t i = 0; i < rows.size(); ++i)
      dst[i] = src[rows[i]];
  }
  if (has_labels()) {
    out.labels_.reserve(rows.size());
    for (auto r : rows)
      out.labels_.push_back(labels_[r]);
  }
  if (has_ids()) {
    out.ids_.reserve(rows.size());
    for (auto r : rows)
      out.ids_.push_back(ids_[r]);
  }
  return out;
}

dataset dataset::select_columns(std::span<const std::size_t> cols) const {
  std::vector<std::string> names;
  for (auto c : cols)
    names.push_back(feature_names_[c]);
  dataset out(rows_, std::move(names));
  for (std::size_t j = 0; j < cols.size(); ++j) {
    auto src = column(cols[j]);
    std::copy(src.begin(), src.end(), out.column(j).begin());
  }
  out.labels_ = labels_;
  out.ids_ = ids_;
  return out;
}

} // namespace veil::learners
