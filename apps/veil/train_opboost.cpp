// `veil train --protocol opboost`: Party A (party 0) holds the label and the
// --categorical columns in plaintext; the other columns, numeric, are dealt
// out in contiguous near-equal blocks to --parties - 1 Party B users, which
// desensitize them with a dLDP mechanism (spec opboost §4, §5). All parties
// run in this process as actors; Party A predicts the --test rows privately
// (the Party B users desensitize their columns of them afresh). The report
// adds the privacy guarantee per feature and per record.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "actors/opboost_session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/settings.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"
#include "learners/metrics/metrics.hpp"
#include "protocols/opboost/gbdt.hpp"
#include "protocols/opboost/privacy.hpp"

namespace veil::apps {

using learners::dataset;
using nlohmann::json;
namespace op = protocols::opboost;
namespace dp = protocols::dp;

namespace {

json cost_json(const dp::privacy_cost& c) {
  json j = {{"guarantee", dp::to_string(c.kind)},
            {"mechanism", c.mechanism},
            {"describe", c.describe()}};
  switch (c.kind) {
  case dp::guarantee::ldp:
  case dp::guarantee::dldp:
    j["epsilon"] = c.epsilon;
    break;
  case dp::guarantee::partition_dldp:
    j["epsilon"] = c.epsilon;
    j["epsilon_prt"] = c.epsilon_prt;
    j["epsilon_ner"] = c.epsilon_ner;
    j["theta"] = c.theta;
    break;
  case dp::guarantee::within_partition_dldp:
    j["epsilon_ner"] = c.epsilon_ner;
    j["theta"] = c.theta;
    break;
  case dp::guarantee::none:
    break;
  }
  return j;
}

json privacy_json(const op::params& p, const actors::opboost_result& r,
                  bool predicted) {
  json j;
  j["mechanism"] = op::to_string(p.mechanism.kind);
  j["sampler"] = op::to_string(p.mechanism.sampler);
  j["epsilon"] = p.mechanism.epsilon;
  j["theta"] = p.mechanism.theta;
  j["alpha"] = p.mechanism.alpha;
  j["budget"] = p.budget == op::budget_split::split ? "split" : "per_feature";
  j["domain"] = {p.dom.lo, p.dom.hi};
  json per_feature = json::array();
  for (const auto& e : r.spent.entries()) {
    auto c = cost_json(e.cost);
    c["feature"] = e.what;
    per_feature.push_back(c);
  }
  j["per_feature"] = per_feature;
  json total = json::object();
  for (auto kind :
       {dp::guarantee::ldp, dp::guarantee::dldp, dp::guarantee::partition_dldp,
        dp::guarantee::within_partition_dldp}) {
    bool any = false;
    for (const auto& e : r.spent.entries())
      any = any || e.cost.kind == kind;
    if (any)
      total[dp::to_string(kind)] = cost_json(r.spent.total(kind));
  }
  j["total_per_record"] = total;
  j["unprotected"] = r.spent.any_unprotected();
  if (p.mechanism.kind == op::mechanism_kind::adj_map)
    j["partition_budget_note"] = op::partition_budget_note;
  if (predicted)
    j["prediction_note"] =
        "private prediction: each Party B desensitized its columns of every "
        "predicted record afresh, spending the per-record budget again on "
        "that record";
  j["report"] = r.privacy_report;
  return j;
}

} // namespace

int run_opboost_train(const train_options& o) {
  int n = o.parties == 0 ? 3 : o.parties;
  if (n < 2)
    throw input_error(
        "--parties " + std::to_string(n) +
        ": --protocol opboost needs at least 2 parties (Party A with the "
        "labels and at least one Party B with numeric columns); for one "
        "party use --protocol centralized");
  if (n > 256)
    throw input_error("--parties " + std::to_string(n) +
                      ": at most 256 parties");
  if (!(o.timeout > 0) || !std::isfinite(o.timeout) || o.timeout > 86400)
    throw input_error("--timeout " + std::to_string(o.timeout) +
                      ": expected seconds in (0, 86400]");
  if (o.delta > 0)
    throw input_error("--delta: OpBoost's guarantees are pure (dLDP/LDP); "
                      "there is no delta");

  // Protocol settings first (the learner decides the booster defaults).
  op::params p;
  std::vector<std::string> learner_settings;
  for (const auto& s : o.settings) {
    auto eq = s.find('=');
    auto key = s.substr(0, eq);
    auto value = eq == std::string::npos ? std::string() : s.substr(eq + 1);
    if (key == "opboost.mechanism")
      p.mechanism.kind = op::parse_mechanism(value);
    else if (key == "opboost.sampler")
      p.mechanism.sampler = op::parse_sampler(value);
    else if (key == "opboost.theta")
      p.mechanism.theta = static_cast<std::int64_t>(parse_number(key, value));
    else if (key == "opboost.alpha")
      p.mechanism.alpha = parse_number(key, value);
    else if (key == "opboost.learner")
      p.learner = op::parse_learner(value);
    else if (key == "opboost.threshold")
      p.threshold = op::parse_threshold_rule(value);
    else if (key.rfind("opboost.", 0) == 0)
      throw input_error("--set " + s +
                        ": unknown OpBoost key (opboost.mechanism, "
                        "opboost.sampler, opboost.theta, opboost.alpha, "
                        "opboost.learner, opboost.threshold)");
    else
      learner_settings.push_back(s);
  }
  if (o.epsilon > 0)
    p.mechanism.epsilon = o.epsilon;
  // Party A's learner: the paper's defaults (or GBDT's), then the learner
  // flags that differ from the generic defaults, then the other --set keys.
  p.booster = p.learner == op::learner_kind::gbdt ? op::gbdt_defaults()
                                                  : op::params::paper_booster();
  const learners::booster_params generic;
  auto& bp = p.booster;
  if (o.params.rounds != generic.rounds)
    bp.rounds = o.params.rounds;
  if (o.params.tree.max_depth != generic.tree.max_depth)
    bp.tree.max_depth = o.params.tree.max_depth;
  if (o.params.tree.eta != generic.tree.eta)
    bp.tree.eta = o.params.tree.eta;
  if (o.params.tree.lambda != generic.tree.lambda)
    bp.tree.lambda = o.params.tree.lambda;
  if (o.params.max_bin != generic.max_bin)
    bp.max_bin = o.params.max_bin;
  bp.threads = o.params.threads;
  bp.objective = o.params.objective;
  bp.num_class = o.params.num_class;
  for (const auto& s : learner_settings)
    apply_setting(bp, s);

  auto data = load_train_data(o, bp.objective);
  auto& train_set = data.train;
  auto& test_set = data.test;
  const auto& data_name = data.name;
  bool have_test = data.have_test;
  if (!train_set.has_labels())
    throw input_error(data_name + ": no label column");
  if (bp.objective == learners::objective_kind::multi_softmax &&
      bp.num_class == 0) {
    float top = 0;
    for (float y : train_set.labels())
      top = std::max(top, y);
    bp.num_class = static_cast<int>(top) + 1;
  }
  if (bp.num_class == 0)
    bp.num_class = 2;
  p.validate();
  const dataset& eval_set = have_test ? test_set : train_set;

  // Columns: the categorical ones to Party A, the rest dealt out in order.
  std::vector<std::size_t> a_cols, rest;
  for (const auto& name : o.categorical) {
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
  auto passives = static_cast<std::size_t>(n - 1);
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

  actors::opboost_config cfg;
  cfg.params = p;
  cfg.timeout = std::chrono::milliseconds(
      std::max<std::int64_t>(1, std::llround(o.timeout * 1000)));
  json party_features = json::object();
  {
    actors::opboost_party_spec a;
    a.name = "party0";
    a.features = select_columns(train_set, a_cols, true);
    a.eval = select_columns(eval_set, eval_cols(a_cols), false);
    party_features[a.name] = a.features.feature_names();
    cfg.parties.push_back(std::move(a));
  }
  // [D] No public bounds are given on the command line: every Party B
  // column's pre-processing bounds are fitted to its training values.
  std::cerr << "veil: warning: the pre-processing bounds of every Party B "
               "column were taken from the data (its min and max), which "
               "reveals each column's range to Party A; OpBoost assumes "
               "public bounds fixed in advance\n";
  for (std::size_t q = 0; q < passives; ++q) {
    std::vector<std::size_t> mine(
        rest.begin() + static_cast<std::ptrdiff_t>(rest.size() * q / passives),
        rest.begin() +
            static_cast<std::ptrdiff_t>(rest.size() * (q + 1) / passives));
    actors::opboost_party_spec b;
    b.name = "party" + std::to_string(q + 1);
    b.features = select_columns(train_set, mine, false);
    for (std::size_t j = 0; j < b.features.features(); ++j)
      b.maps.push_back(op::fit_bounds(b.features.column(j)));
    b.eval = select_columns(eval_set, eval_cols(mine), false);
    party_features[b.name] = b.features.feature_names();
    cfg.parties.push_back(std::move(b));
  }
  auto out = actors::run_opboost_session(std::move(cfg));
  if (!out.ok()) {
    std::cerr << "veil: error: " << out.error << "\n";
    return out.code == protocols::session::errc::bad_input ? 2 : 1;
  }
  const auto& r = *out.result;
  auto obj = r.model.make_objective();
  auto preds = obj.transform(r.margins, eval_set.rows());
  auto metrics = learners::evaluate(obj, eval_set.labels(), preds);
  std::uint64_t total_bytes = 0;
  json per_party = json::object();
  for (const auto& pr : r.parties) {
    total_bytes += pr.bytes.total_sent();
    per_party[pr.name] = party_bytes_json(pr.bytes, true);
  }
  auto rows = train_set.rows();
  std::cout << "trained " << r.model.trees.size() << " trees on " << rows
            << " rows x " << train_set.features() << " features in "
            << std::fixed << std::setprecision(3) << r.train_seconds
            << " s (opboost, " << op::to_string(p.learner) << ", " << n
            << " parties in this process, " << total_bytes
            << " bytes exchanged)\n"
            << std::defaultfloat << (have_test ? "test" : "train")
            << " (private prediction): " << format_metrics(metrics) << "\n";
  std::cout << "privacy: " << op::to_string(p.mechanism.kind) << " per "
            << "Party B feature";
  for (auto kind :
       {dp::guarantee::ldp, dp::guarantee::dldp, dp::guarantee::partition_dldp,
        dp::guarantee::within_partition_dldp}) {
    bool any = false;
    for (const auto& e : r.spent.entries())
      any = any || e.cost.kind == kind;
    if (any)
      std::cout << "; per record: " << r.spent.total(kind).describe();
  }
  if (r.spent.any_unprotected())
    std::cout << "; NO protection";
  std::cout << "\n";
  if (p.mechanism.kind == op::mechanism_kind::identity)
    std::cerr << "veil: warning: the identity mechanism gives no protection "
                 "(tests and baselines only)\n";

  if (!o.model_out.empty())
    learners::save_model(r.model, o.model_out);
  if (!o.report.empty()) {
    json report = {
        {"veil_version", "0.1.0"},
        {"protocol", "opboost"},
        {"data", data_name},
        {"objective", learners::to_string(bp.objective)},
        {"rows", rows},
        {"test_rows", have_test ? test_set.rows() : 0},
        {"features", train_set.features()},
        {"parties", n},
        {"party_features", party_features},
        {"trees", r.model.trees.size()},
        {"party_b_splits", r.splits},
        {"params",
         {{"learner", op::to_string(p.learner)},
          {"threshold", op::to_string(p.threshold)},
          {"rounds", bp.rounds},
          {"max_depth", bp.tree.max_depth},
          {"eta", bp.tree.eta},
          {"lambda", bp.tree.lambda},
          {"max_bin", bp.max_bin}}},
        {"bounds", "taken from the training data"},
        {"metrics", metrics},
        {"metrics_on", have_test ? "test" : "train"},
        {"prediction", "private"},
        {"train_seconds", r.train_seconds},
        {"predict_seconds", r.predict_seconds},
        {"timeout_seconds", o.timeout},
        {"bytes", {{"total", total_bytes}, {"per_party", per_party}}},
        {"privacy", privacy_json(p, r, true)},
        {"history", json::array()}};
    learners::write_file_atomically(o.report, report.dump(2) + "\n");
  }
  return 0;
}

} // namespace veil::apps
