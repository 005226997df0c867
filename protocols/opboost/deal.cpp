// Dealing one table to OpBoost's parties (protocols/opboost/deal.hpp).
#include "protocols/opboost/deal.hpp"

#include <algorithm>
#include <memory>
#include <sstream>

#include "learners/input_error.hpp"
#include "protocols/crypto/random.hpp"

namespace veil::protocols::opboost {

namespace {

/// Values of `column` outside [lower, upper] (NaN is missing, not outside).
std::size_t count_outside(std::span<const float> column, const feature_map& m) {
  std::size_t n = 0;
  for (float x : column)
    n += (x < m.lower || x > m.upper) ? 1 : 0;
  return n;
}

learners::dataset without_labels(learners::dataset d) {
  d.labels().clear();
  return d;
}

} // namespace

dealt_table deal_table(const learners::dataset& train_set,
                       const learners::dataset& eval_set, bool have_test,
                       std::size_t n,
                       const std::vector<std::string>& categorical,
                       const public_bounds& bounds, const params& p,
                       bool private_prediction, const std::string& data_name) {
  dealt_table out;
  // Columns: the categorical ones to Party A, the rest dealt out in order.
  std::vector<std::size_t> a_cols, rest;
  for (const auto& name : categorical) {
    auto j = train_set.feature_index(name);
    if (j < 0)
      throw input_error("--categorical " + name + ": no such column in " +
                        data_name);
    if (std::find(a_cols.begin(), a_cols.end(), static_cast<std::size_t>(j)) ==
        a_cols.end())
      a_cols.push_back(static_cast<std::size_t>(j));
  }
  for (std::size_t j = 0; j < train_set.features(); ++j)
    if (std::find(a_cols.begin(), a_cols.end(), j) == a_cols.end())
      rest.push_back(j);
  auto passives = n - 1;
  if (passives > rest.size())
    throw input_error("--parties " + std::to_string(n) + ": " + data_name +
                      " has only " + std::to_string(rest.size()) +
                      " numeric (non --categorical) columns; each of the " +
                      std::to_string(passives) +
                      " Party B users needs at least one");
  auto eval_cols = [&](const std::vector<std::size_t>& cols) {
    std::vector<std::size_t> out;
    for (auto j : cols) {
      auto k = eval_set.feature_index(train_set.feature_names()[j]);
      if (k < 0)
        throw input_error("the test data lacks column '" +
                          train_set.feature_names()[j] + "'");
      out.push_back(static_cast<std::size_t>(k));
    }
    return out;
  };

  // Non-private prediction (spec §5.6): every model feature of the eval
  // rows in plaintext at Party A, Party B's pre-processed with its public
  // constants; the model's feature order is Party A's, then each Party B's.
  auto add_plain = [&](const learners::dataset& eval,
                       const std::vector<feature_map>* maps) {
    learners::dataset next(eval.rows(), out.plain_eval.feature_names());
    for (std::size_t j = 0; j < out.plain_eval.features(); ++j)
      std::copy(out.plain_eval.column(j).begin(),
                out.plain_eval.column(j).end(), next.column(j).begin());
    auto names = next.feature_names();
    names.insert(names.end(), eval.feature_names().begin(),
                 eval.feature_names().end());
    learners::dataset joined(eval.rows(), names);
    for (std::size_t j = 0; j < next.features(); ++j)
      std::copy(next.column(j).begin(), next.column(j).end(),
                joined.column(j).begin());
    for (std::size_t j = 0; j < eval.features(); ++j) {
      auto col = eval.column(j);
      auto dst = joined.column(next.features() + j);
      for (std::size_t i = 0; i < eval.rows(); ++i)
        dst[i] = maps ? static_cast<float>(map_value((*maps)[j], p.dom, col[i]))
                      : col[i];
    }
    out.plain_eval = std::move(joined);
  };

  {
    party_data a;
    a.name = "party0";
    a.features = train_set.select_columns(a_cols);
    a.eval = without_labels(eval_set.select_columns(eval_cols(a_cols)));
    if (!private_prediction)
      add_plain(a.eval, nullptr);
    out.parties.push_back(std::move(a));
  }
  // Public bounds must name a Party B (numeric, desensitized) column.
  for (const auto& [column, b] : bounds) {
    auto j = train_set.feature_index(column);
    if (j < 0)
      throw input_error(b.origin + ": no column '" + column + "' in " +
                        data_name);
    if (std::find(a_cols.begin(), a_cols.end(), static_cast<std::size_t>(j)) !=
        a_cols.end())
      throw input_error(b.origin + ": column '" + column +
                        "' is --categorical: Party A holds it in plaintext "
                        "and it is not pre-processed; public bounds apply to "
                        "the Party B (numeric) columns");
  }
  // Each Party B column: its public bounds, or (the reference code's
  // behaviour [R]) its training min and max, with a warning naming it.
  // Values outside public bounds are clamped to them (spec §3), not refused:
  // public bounds are fixed before anyone sees the data, so refusing would
  // push users to data-fitted bounds (the leak public bounds avoid), and the
  // dLDP guarantee is on the mapped value whatever the raw one was. The
  // command line says once which columns had values clamped.
  auto pick_map = [&](const learners::dataset& cols,
                      const learners::dataset& eval, std::size_t j) {
    const auto& name = cols.feature_names()[j];
    auto it = bounds.find(name);
    if (it == bounds.end()) {
      out.fitted.push_back(name);
      out.bounds_report["fitted"].push_back(name);
      return fit_bounds(cols.column(j));
    }
    const auto& m = it->second.map;
    out.bounds_report["public"][name] = {m.lower, m.upper};
    out.bounds_report["public_columns"].push_back(name);
    auto n_train = count_outside(cols.column(j), m);
    auto n_eval = have_test ? count_outside(eval.column(j), m) : 0;
    if (n_train + n_eval > 0) {
      out.bounds_report["clamped"][name] = {{"train", n_train},
                                            {"test", n_eval}};
      std::ostringstream os;
      os << name << " (" << n_train << " training";
      if (have_test)
        os << ", " << n_eval << " test";
      os << " values outside [" << m.lower << ", " << m.upper << "])";
      out.clamped.push_back(os.str());
    }
    return m;
  };
  for (std::size_t q = 0; q < passives; ++q) {
    std::vector<std::size_t> mine(
        rest.begin() + static_cast<std::ptrdiff_t>(rest.size() * q / passives),
        rest.begin() +
            static_cast<std::ptrdiff_t>(rest.size() * (q + 1) / passives));
    party_data b;
    b.name = "party" + std::to_string(q + 1);
    b.features = without_labels(train_set.select_columns(mine));
    b.eval = without_labels(eval_set.select_columns(eval_cols(mine)));
    for (std::size_t j = 0; j < b.features.features(); ++j)
      b.maps.push_back(pick_map(b.features, b.eval, j));
    if (!private_prediction)
      add_plain(b.eval, &b.maps);
    out.parties.push_back(std::move(b));
  }
  return out;
}

std::string bounds_error(const std::map<std::string, feature_map>& bounds,
                         const std::vector<std::vector<std::string>>& columns,
                         const std::string& party_a) {
  for (const auto& [column, m] : bounds) {
    std::size_t owner = 0;
    while (owner < columns.size() &&
           std::find(columns[owner].begin(), columns[owner].end(), column) ==
               columns[owner].end())
      ++owner;
    if (owner == columns.size())
      return "public bounds for column \"" + column +
             "\", which no party holds";
    if (owner == 0)
      return "public bounds for column \"" + column + "\" of " + party_a +
             " (Party A): it holds its columns in plaintext and they are not "
             "pre-processed; bounds apply to Party B columns";
  }
  return {};
}

std::vector<feature_map> maps_for(const learners::dataset& cols,
                                  const std::vector<std::string>& columns,
                                  const std::vector<double>& lower,
                                  const std::vector<double>& upper) {
  std::vector<feature_map> maps;
  for (std::size_t j = 0; j < cols.features(); ++j) {
    const auto& name = cols.feature_names()[j];
    auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) {
      maps.push_back(fit_bounds(cols.column(j)));
      continue;
    }
    auto k = static_cast<std::size_t>(it - columns.begin());
    feature_map m;
    m.lower = lower.at(k);
    m.upper = upper.at(k);
    m.validate(name);
    maps.push_back(m);
  }
  return maps;
}

namespace {

/// crypto::system_random (neither copyable nor movable) as a movable
/// std-style engine for random_engine.
struct system_engine : crypto::word_engine {
  std::unique_ptr<crypto::system_random> g =
      std::make_unique<crypto::system_random>();
  result_type operator()() { return (*g)(); }
};

} // namespace

random_engine party_random(std::optional<std::uint64_t> test_seed,
                           std::int32_t index) {
  if (test_seed)
    return random_engine(crypto::seeded_random(
        *test_seed * 1000 + static_cast<std::uint64_t>(index)));
  return random_engine(system_engine{});
}

} // namespace veil::protocols::opboost
