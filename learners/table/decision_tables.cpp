#include "learners/table/decision_tables.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "learners/input_error.hpp"

namespace veil::learners {

void table_params::validate() const {
  if (tables < 1)
    throw input_error("tables (--trees) must be at least 1");
  if (depth < 1 || depth > 10)
    throw input_error("depth (--depth) must be in [1, 10] for a table");
  if (buckets < 2)
    throw input_error("buckets must be at least 2");
  if (!(lambda > 0) || !std::isfinite(lambda))
    throw input_error("lambda must be positive: it keeps H + lambda away "
                      "from 0");
  if (!(eta > 0) || !std::isfinite(eta))
    throw input_error("eta must be positive");
}

std::vector<std::size_t> table_bucket_bounds(std::size_t rows, int buckets) {
  auto b = static_cast<std::size_t>(buckets);
  std::vector<std::size_t> out(b + 1);
  for (std::size_t i = 0; i <= b; ++i)
    out[i] = i * rows / b;
  return out;
}

std::vector<std::uint32_t> stable_order(std::span<const float> column) {
  std::vector<std::uint32_t> order(column.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return column[a] < column[b]; });
  return order;
}

std::size_t table_model::leaf(std::size_t t, const dataset& x,
                              std::size_t r) const {
  std::size_t k = 0;
  for (const auto& test : tables[t].tests)
    k = 2 * k +
        (x.value(r, static_cast<std::size_t>(test.feature)) >= test.threshold);
  return k;
}

std::vector<double> table_model::predict(const dataset& x) const {
  std::vector<double> out(x.rows(), 0);
  for (std::size_t t = 0; t < tables.size(); ++t)
    for (std::size_t r = 0; r < x.rows(); ++r)
      out[r] += tables[t].leaves[leaf(t, x, r)];
  return out;
}

namespace {

/// The index of the first smallest value.
std::size_t argmin_first(const std::vector<double>& v) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] < v[best])
      best = i;
  return best;
}

} // namespace

table_model train_tables(const dataset& x, const table_params& p) {
  p.validate();
  auto n = x.rows();
  auto features = x.features();
  if (!x.has_labels())
    throw input_error("decision tables: the training data have no labels");
  if (static_cast<std::size_t>(p.buckets) > n)
    throw input_error("buckets (" + std::to_string(p.buckets) +
                      ") exceed the training rows (" + std::to_string(n) + ")");
  for (std::size_t j = 0; j < features; ++j)
    for (auto v : x.column(j))
      if (is_missing(v))
        throw input_error("decision tables: feature " + x.feature_names()[j] +
                          " has missing values (Privet's buckets need every "
                          "value)");
  auto sigmoid =
      p.sigmoid ? p.sigmoid : [](double v) { return 1 / (1 + std::exp(-v)); };
  auto divide = p.divide ? p.divide : [](double a, double b) { return a / b; };
  std::vector<std::vector<std::uint32_t>> order(features);
  for (std::size_t j = 0; j < features; ++j)
    order[j] = stable_order(x.column(j));
  auto bounds = table_bucket_bounds(n, p.buckets);
  auto buckets = static_cast<std::size_t>(p.buckets);
  const auto& y = x.labels();
  std::vector<double> score(n, 0), g(n), h(n);
  table_model model;
  for (int t = 0; t < p.tables; ++t) {
    for (std::size_t i = 0; i < n; ++i) {
      if (p.task == table_task::regression) {
        g[i] = score[i] - y[i];
        h[i] = 1;
      } else {
        double pr = sigmoid(score[i]);
        g[i] = pr - y[i];
        h[i] = pr * (1 - pr);
      }
    }
    // node[i]: the row's node at the current level.
    std::vector<std::size_t> node(n, 0);
    decision_table table;
    for (int d = 0; d < p.depth; ++d) {
      std::size_t nodes = std::size_t{1} << d;
      std::vector<double> sigma(features), gamma(features);
      for (std::size_t j = 0; j < features; ++j) {
        std::vector<double> delta(buckets - 1, 0);
        for (std::size_t k = 0; k < nodes; ++k) {
          std::vector<double> alpha(buckets, 0), beta(buckets, 0);
          for (std::size_t b = 0; b < buckets; ++b)
            for (auto s = bounds[b]; s < bounds[b + 1]; ++s) {
              auto i = order[j][s];
              if (node[i] == k) {
                alpha[b] += g[i];
                beta[b] += h[i];
              }
            }
          double G = std::accumulate(alpha.begin(), alpha.end(), 0.0);
          double H = std::accumulate(beta.begin(), beta.end(), 0.0);
          double gl = 0, hl = 0;
          for (std::size_t c = 0; c + 1 < buckets; ++c) {
            gl += alpha[c];
            hl += beta[c];
            double gr = G - gl, hr = H - hl;
            // −(G_L w_L + G_R w_R): the paper's −½ Σ G²/(H+λ) without the
            // ½, which does not move the argmin.
            delta[c] -=
                gl * divide(gl, hl + p.lambda) + gr * divide(gr, hr + p.lambda);
          }
        }
        auto q = argmin_first(delta);
        gamma[j] = static_cast<double>(q);
        sigma[j] = delta[q];
      }
      auto f = argmin_first(sigma);
      auto q = static_cast<std::size_t>(gamma[f]);
      float thr = x.value(order[f][bounds[q + 1]], f);
      table.tests.push_back({static_cast<std::int32_t>(f), thr});
      for (std::size_t i = 0; i < n; ++i)
        node[i] = 2 * node[i] + (x.value(i, f) >= thr);
    }
    std::size_t leaves = std::size_t{1} << p.depth;
    std::vector<double> G(leaves, 0), H(leaves, 0);
    for (std::size_t i = 0; i < n; ++i) {
      G[node[i]] += g[i];
      H[node[i]] += h[i];
    }
    table.leaves.resize(leaves);
    for (std::size_t k = 0; k < leaves; ++k)
      table.leaves[k] = -p.eta * divide(G[k], H[k] + p.lambda);
    for (std::size_t i = 0; i < n; ++i)
      score[i] += table.leaves[node[i]];
    model.tables.push_back(std::move(table));
  }
  return model;
}

model to_model(const table_model& tables, table_task task,
               std::vector<std::string> feature_names) {
  model m;
  m.objective = task == table_task::binary ? objective_kind::binary_logistic
                                           : objective_kind::reg_squarederror;
  m.base_margin = {0.0};
  m.feature_names = std::move(feature_names);
  m.weak_learner = "decision_table";
  for (const auto& t : tables.tables) {
    regression_tree tree;
    auto depth = t.tests.size();
    // Heap order: node i's children are 2i + 1 and 2i + 2; level d holds
    // nodes 2^d − 1 .. 2^(d+1) − 2, the leaves last, in leaf-index order.
    std::size_t total = (std::size_t{2} << depth) - 1;
    tree.nodes.resize(total);
    for (std::size_t i = 0; i < total; ++i) {
      auto& n = tree.nodes[i];
      n.parent = i == 0 ? -1 : static_cast<std::int32_t>((i - 1) / 2);
      std::size_t level = 0;
      while ((std::size_t{2} << level) - 1 <= i)
        ++level;
      if (level < depth) {
        n.left = static_cast<std::int32_t>(2 * i + 1);
        n.right = static_cast<std::int32_t>(2 * i + 2);
        n.feature = t.tests[level].feature;
        n.threshold = t.tests[level].threshold;
      } else {
        n.value =
            static_cast<float>(t.leaves[i - ((std::size_t{1} << depth) - 1)]);
      }
    }
    m.trees.push_back(std::move(tree));
  }
  return m;
}

double robust_sigmoid(double x) {
  double e = std::pow(1 - std::abs(x) / 256, 256);
  double den = 1 + e, z = 0.75;
  for (int i = 0; i < 5; ++i)
    z = z * (2 - den * z);
  return x < 0 ? 1 - z : z;
}

double scaled_division(double x, double y, int s, int steps) {
  double scaled = std::ldexp(y, -s), z = 1;
  for (int i = 0; i < steps; ++i)
    z = z * (2 - scaled * z);
  return x * std::ldexp(z, -s);
}

} // namespace veil::learners
