#include "learners/boost/model.hpp"

#include <algorithm>

#include "learners/input_error.hpp"
#include "learners/parallel.hpp"

namespace veil::learners {

dataset model::align(const dataset& d) const {
  if (d.feature_names() == feature_names)
    return d;
  std::vector<std::size_t> cols;
  for (const auto& name : feature_names) {
    auto j = d.feature_index(name);
    if (j < 0)
      throw input_error("the model uses feature \"" + name +
                        "\", which the data does not have");
    cols.push_back(static_cast<std::size_t>(j));
  }
  return d.select_columns(cols);
}

std::vector<double> model::predict_margin(const dataset& input,
                                          int threads) const {
  dataset aligned;
  const dataset* dp = &input;
  if (input.feature_names() != feature_names) {
    aligned = align(input);
    dp = &aligned;
  }
  const dataset& d = *dp;
  auto n = d.rows();
  auto k = static_cast<std::size_t>(outputs());
  std::vector<double> out(n * k);
  for (std::size_t c = 0; c < k; ++c)
    std::fill(out.begin() + c * n, out.begin() + (c + 1) * n, base_margin[c]);
  // Accumulate in float, tree by tree, as XGBoost does, so that an exported
  // model predicts the same margins to the last bits. Rows go in blocks so
  // that a tree's walk reads nearby values of each (column-major) feature.
  constexpr std::size_t block = 256;
  auto blocks = (n + block - 1) / block;
#pragma omp parallel for schedule(static)                                      \
    num_threads(threads_for(n* trees.size() * 8, threads))
  for (std::size_t bi = 0; bi < blocks; ++bi) {
    std::size_t lo = bi * block, hi = std::min(n, lo + block);
    std::vector<float> acc((hi - lo) * k);
    for (std::size_t c = 0; c < k; ++c)
      std::fill(acc.begin() + c * (hi - lo), acc.begin() + (c + 1) * (hi - lo),
                static_cast<float>(base_margin[c]));
    for (const auto& t : trees) {
      float* a = acc.data() + static_cast<std::size_t>(t.target) * (hi - lo);
      for (std::size_t i = lo; i < hi; ++i)
        a[i - lo] += t.predict(d, i);
    }
    for (std::size_t c = 0; c < k; ++c)
      for (std::size_t i = lo; i < hi; ++i)
        out[c * n + i] = acc[c * (hi - lo) + i - lo];
  }
  return out;
}

std::vector<double> model::predict(const dataset& d, int threads) const {
  return make_objective().transform(predict_margin(d, threads), d.rows());
}

} // namespace veil::learners
