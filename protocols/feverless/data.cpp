// A FEVERLESS client's data (protocols/feverless/data.hpp).
#include "protocols/feverless/data.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>

#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"
#include "protocols/crypto/random.hpp"

namespace veil::protocols::feverless {

void check_binary(const learners::dataset& d, const std::string& what) {
  if (!d.has_labels())
    throw input_error(what + ": no label column");
  for (float y : d.labels())
    if (y != 0.0f && y != 1.0f)
      throw input_error(what + ": FEVERLESS trains binary classification; "
                               "labels must be 0 or 1");
}

learners::dataset column_block(const learners::dataset& d, std::size_t lo,
                               std::size_t hi) {
  std::vector<std::size_t> cols(hi - lo);
  std::iota(cols.begin(), cols.end(), lo);
  auto part = d.select_columns(cols);
  part.labels().clear();
  return part;
}

std::vector<client_data> deal_table(const learners::dataset& train_set,
                                    const learners::dataset& eval_set,
                                    std::size_t n, std::uint64_t seed,
                                    const std::string& data_name) {
  auto m = train_set.features();
  if (n > m)
    throw input_error("--parties " + std::to_string(n) + ": " + data_name +
                      " has only " + std::to_string(m) +
                      " feature columns; each client needs at least one");
  std::vector<std::size_t> bounds;
  for (std::size_t c = 0; c <= n; ++c)
    bounds.push_back(m * c / n);
  auto rows = train_set.rows();
  std::vector<std::size_t> perm(rows);
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937_64 gen(seed);
  std::shuffle(perm.begin(), perm.end(), gen);
  std::vector<std::size_t> owner(rows);
  for (std::size_t k = 0; k < rows; ++k)
    owner[perm[k]] = k * n / rows;
  std::vector<client_data> out;
  for (std::size_t c = 0; c < n; ++c) {
    client_data s;
    s.name = "client" + std::to_string(c);
    s.features = column_block(train_set, bounds[c], bounds[c + 1]);
    for (std::size_t i = 0; i < rows; ++i)
      if (owner[i] == c) {
        s.labels.rows.push_back(static_cast<std::uint32_t>(i));
        s.labels.labels.push_back(train_set.labels()[i]);
      }
    s.eval = column_block(eval_set, bounds[c], bounds[c + 1]);
    out.push_back(std::move(s));
  }
  return out;
}

/// Reads a client's file: the features, and the label column (if any) as
/// labels with NaN for an empty cell. Throws input_error.
namespace {

/// Throws input_error naming `path`, the row and `column` for a label of
/// `d` other than 0, 1 or NaN (another client's row).
void check_client_labels(const learners::dataset& d, const std::string& path,
                         const std::string& column) {
  for (std::size_t i = 0; i < d.labels().size(); ++i) {
    float y = d.labels()[i];
    if (!std::isnan(y) && y != 0.0f && y != 1.0f)
      throw input_error(path + ": data row " + std::to_string(i + 1) +
                        ": label column \"" + column +
                        "\" holds neither 0 nor 1; FEVERLESS labels are 0, "
                        "1, or empty (a row another party labels)");
  }
}

} // namespace

learners::dataset read_client_rows(const session::data_spec& spec) {
  learners::read_options o;
  o.id = spec.id_column;
  o.columns = spec.feature_columns;
  o.redact_values = true; // its errors go to the coordinator
  const auto& label = spec.label_column;
  // The reader refuses an empty label cell, which here marks another
  // client's row: read the label column as a feature (empty = missing).
  if (!label.empty() && !o.columns.empty())
    o.columns.push_back(label);
  auto d = learners::read_table(spec.path, o);
  if (label.empty()) {
    d.labels().clear(); // LibSVM rows always carry one: not this client's
    return d;
  }
  if (d.has_labels()) { // LibSVM: the label is every row's first token
    check_client_labels(d, spec.path, label);
    return d;
  }
  auto j = d.feature_index(label);
  if (j < 0)
    throw input_error(spec.path + ": the label column \"" + label +
                      "\" is not in the file");
  std::vector<std::size_t> rest;
  for (std::size_t k = 0; k < d.features(); ++k)
    if (static_cast<long>(k) != j)
      rest.push_back(k);
  auto col = d.column(static_cast<std::size_t>(j));
  std::vector<float> labels(col.begin(), col.end());
  auto ids = std::move(d.ids());
  d = d.select_columns(rest);
  d.labels() = std::move(labels);
  d.ids() = std::move(ids);
  check_client_labels(d, spec.path, label);
  return d;
}

client_data client_from_loaded(learners::dataset train,
                               const learners::dataset* test) {
  client_data s;
  auto labels = std::move(train.labels());
  train.labels().clear();
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (!std::isnan(labels[i])) {
      s.labels.rows.push_back(static_cast<std::uint32_t>(i));
      s.labels.labels.push_back(labels[i]);
    }
  s.features = std::move(train);
  if (test) {
    s.eval = *test; // the caller keeps the labels (the coordinator asks)
    s.eval.labels().clear();
  }
  return s;
}

crypto::identity client_identity(std::optional<std::uint64_t> test_seed,
                                 std::int32_t index) {
  if (!test_seed)
    return crypto::identity{};
  crypto::key32 k;
  for (int i = 0; i < 8; ++i)
    k.data()[i] = static_cast<std::uint8_t>(*test_seed >> (8 * i));
  k.data()[8] = static_cast<std::uint8_t>(index);
  k.data()[9] = 0xFE;
  return crypto::identity(k);
}

random_engine client_random(std::optional<std::uint64_t> test_seed,
                            std::int32_t index) {
  if (test_seed)
    return crypto::seeded_random(*test_seed * 1000 +
                                 static_cast<std::uint64_t>(index) + 1);
  return [g = std::make_shared<crypto::system_random>()] { return (*g)(); };
}

training_report report_of(const client& role, bool export_splits) {
  training_report t;
  t.privacy = role.privacy();
  if (t.privacy.warning.empty())
    t.privacy.warning = role.warning();
  if (!export_splits)
    return t;
  for (const auto& [key, s] : role.own_splits()) {
    t.split_trees.push_back(key.first);
    t.split_nodes.push_back(key.second);
    t.split_features.push_back(s.feature);
    t.split_buckets.push_back(s.bucket);
    t.split_thresholds.push_back(s.threshold);
    t.split_default_left.push_back(s.default_left ? 1 : 0);
  }
  return t;
}

std::optional<split_table> splits_of(const training_report& t) {
  auto n = t.split_trees.size();
  if (t.split_nodes.size() != n || t.split_features.size() != n ||
      t.split_buckets.size() != n || t.split_thresholds.size() != n ||
      t.split_default_left.size() != n)
    return std::nullopt;
  split_table out;
  for (std::size_t k = 0; k < n; ++k)
    out[{t.split_trees[k], t.split_nodes[k]}] =
        owned_split{t.split_features[k], t.split_buckets[k],
                    t.split_thresholds[k], t.split_default_left[k] != 0};
  return out;
}

} // namespace veil::protocols::feverless
