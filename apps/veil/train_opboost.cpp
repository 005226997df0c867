// `veil train --protocol opboost`: Party A (party 0) holds the label and the
// --categorical columns in plaintext; the other columns, numeric, are dealt
// out in contiguous near-equal blocks to --parties - 1 Party B users, which
// desensitize them with a dLDP mechanism (spec opboost §4, §5). All parties
// run in this process as actors; Party A predicts the --test rows privately
// (the Party B users desensitize their columns of them afresh), or with
// --set opboost.prediction=non-private from the plaintext rows mapped to D⊥
// (the paper's evaluation). Pre-processing: --set opboost.domain=LO:HI and
// public bounds per column (opboost.bounds.COLUMN=LO:HI, opboost.bounds=FILE);
// columns without them use their data's min and max, with a warning. The
// report adds the privacy guarantee per feature and per record and which
// columns used public bounds. With --config (run_opboost_config), the party
// with the label is Party A and every other one a Party B, each loading its
// own file here or on its `veil node`; Party A predicts the test rows
// privately.
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "actors/opboost_session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/kept_session.hpp"
#include "apps/veil/progress.hpp"
#include "apps/veil/protocols.hpp"
#include "apps/veil/session_config.hpp"
#include "apps/veil/settings.hpp"
#include "learners/boost/importance.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/boost/staged.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"
#include "learners/metrics/metrics.hpp"
#include "protocols/opboost/deal.hpp"
#include "protocols/opboost/preprocess.hpp"
#include "protocols/opboost/privacy.hpp"
#include "protocols/opboost/settings.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::apps {

/// What an OpBoost prediction session gave (private prediction).
void opboost_prediction(actors::opboost_result& r, const learners::model& model,
                        federated_prediction& got);

using learners::dataset;
using nlohmann::json;
namespace op = protocols::opboost;
namespace session = protocols::session;
namespace dp = protocols::dp;

namespace {

/// What the printing and the report of an OpBoost session say about it.
struct opboost_run_info {
  std::string data_name;
  /// "3 parties in this process", "3 parties, 2 on other nodes".
  std::string where;
  /// "test", "train", or empty: no metrics.
  std::string metrics_on;
  /// The labels and margins of the evaluation rows (metrics_on non-empty).
  const std::vector<float>* labels = nullptr;
  const std::vector<double>* margins = nullptr;
  /// Their margins after each round (the history), when known.
  const learners::staged_margins* staged = nullptr;
  bool private_prediction = true;
  /// {"public": {column: [lo, hi]}, "public_columns": [...], "fitted":
  /// [...], "clamped": {...}}
  json bounds;
  /// For the model file: Party A's label and id columns, and where the
  /// Party Bs kept their parts (none without --model-out).
  std::string label_column;
  std::string id_column;
  protocols::session::model_parts parts;
};

void warn_fitted_bounds(const std::vector<std::string>& fitted) {
  if (auto w = op::fitted_bounds_warning(fitted); !w.empty())
    std::cerr << "veil: warning: " << w << "\n";
}

int report_opboost(const actors::opboost_outcome& out, const op::params& p,
                   const train_options& o, const opboost_run_info& info);

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& s : names)
    out += (out.empty() ? "" : ", ") + s;
  return out;
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
  auto timeout = checked_timeout(o.timeout, "--timeout");
  if (o.delta > 0)
    throw input_error("--delta: OpBoost's guarantees are pure (dLDP/LDP); "
                      "there is no delta");

  // Protocol settings first (the learner decides the booster defaults).
  op::named_settings os;
  std::vector<std::string> learner_settings;
  for (const auto& s : o.settings) {
    auto eq = s.find('=');
    auto key = s.substr(0, eq);
    auto value = eq == std::string::npos ? std::string() : s.substr(eq + 1);
    if (key == "epsilon" || !op::apply_setting(os, key, value, "--set " + key))
      learner_settings.push_back(s);
  }
  auto& p = os.params;
  const op::public_bounds given = os.bounds();
  bool private_prediction = os.private_prediction;
  if (o.epsilon > 0)
    p.mechanism.epsilon = o.epsilon;
  // Party A's learner: the paper's defaults (or GBDT's), then the learner
  // flags that differ from the generic defaults, then the other --set keys.
  p.booster = op::booster_for(p, o.params);
  auto& bp = p.booster;
  for (const auto& s : learner_settings)
    apply_setting(bp, s);
  op::refuse_unused_learner_settings(bp, "--set ");

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

  auto dealt = op::deal_table(train_set, eval_set, have_test,
                              static_cast<std::size_t>(n), o.categorical, given,
                              p, private_prediction, data_name);
  actors::opboost_config cfg;
  cfg.params = p;
  cfg.predict = private_prediction;
  cfg.parts = parts_for(o.model_out);
  auto parts = cfg.parts; // cfg moves into the session
  cfg.timeout = timeout;
  cfg.link = o.link;
  cfg.parties = std::move(dealt.parties);
  if (o.categorical.empty())
    std::cerr << "veil: note: no --categorical columns: Party A holds the "
                 "labels only, and every feature column is dealt to a Party B "
                 "and perturbed as a number (name categorical code columns "
                 "with --categorical so that Party A keeps them in "
                 "plaintext)\n";
  warn_fitted_bounds(dealt.fitted);
  if (!dealt.clamped.empty())
    std::cerr << "veil: note: values outside their column's public bounds "
                 "were clamped to the bounds before mapping to the domain "
                 "(OpBoost pre-processing): "
              << join(dealt.clamped) << "\n";
  if (o.plan) {
    std::vector<std::vector<std::string>> party_b;
    for (std::size_t q = 1; q < cfg.parties.size(); ++q)
      party_b.push_back(cfg.parties[q].features.feature_names());
    return print_plan(
        "opboost",
        std::to_string(n) + " parties, " + std::to_string(train_set.rows()) +
            " rows",
        op::privacy_headline(p, op::planned_spend(p, party_b),
                             op::fitted_columns(dealt.bounds_report)));
  }
  actors::opboost_outcome out;
  {
    progress_printer progress(o.quiet, "tree");
    out = actors::opboost_session::run(std::move(cfg), {}, progress.callback());
  }
  std::vector<double> margins;
  learners::staged_margins staged;
  if (out.ok()) {
    margins =
        private_prediction
            ? out.result->margins
            : out.result->model.predict_margin(dealt.plain_eval, bp.threads);
    staged = private_prediction
                 ? out.result->staged
                 : learners::stage_margins(out.result->model, dealt.plain_eval);
  }
  opboost_run_info info;
  info.data_name = data_name;
  info.where = std::to_string(n) + " parties in this process";
  info.metrics_on = have_test ? "test" : "train";
  info.labels = &eval_set.labels();
  info.margins = &margins;
  info.staged = &staged;
  info.private_prediction = private_prediction;
  info.bounds = dealt.bounds_report;
  info.label_column = o.data.empty() ? "label" : o.label;
  info.id_column = o.id;
  info.parts = parts;
  return report_opboost(out, p, o, info);
}

namespace {

int report_opboost(const actors::opboost_outcome& out, const op::params& p,
                   const train_options& o, const opboost_run_info& info) {
  if (!out.ok())
    return session_failure(out);
  const auto& r = *out.result;
  const auto& bp = p.booster;
  auto sum = summary_of(r, r.parties);
  sum.protocol = "opboost";
  sum.data = info.data_name;
  sum.objective = learners::to_string(bp.objective);
  sum.test_rows = info.metrics_on == "test" ? info.margins->size() : 0;
  sum.metrics_on = info.metrics_on;
  if (!info.metrics_on.empty()) {
    auto obj = r.model.make_objective();
    auto preds = obj.transform(*info.margins, info.labels->size());
    sum.metrics = learners::evaluate(obj, *info.labels, preds);
  }
  std::cout << "trained " << sum.trees << " trees on " << r.rows << " rows x "
            << sum.total_features() << " features in " << std::fixed
            << std::setprecision(3) << r.train_seconds << " s (opboost, "
            << op::to_string(p.learner) << ", " << info.where << ", "
            << human_bytes(sum.total_bytes()) << " exchanged)\n"
            << std::defaultfloat;
  if (auto line =
          network_line(o.link, sum.bytes, r.train_seconds + r.predict_seconds);
      !line.empty())
    std::cout << line << "\n";
  if (info.metrics_on.empty())
    std::cout << "no test files: no metrics (the labels stay with Party "
                 "A's node)\n";
  else
    std::cout << info.metrics_on
              << (info.private_prediction ? " (private prediction): "
                                          : " (non-private prediction): ")
              << format_metrics(sum.metrics) << "\n";
  if (info.metrics_on == "test" && info.staged && !info.staged->values.empty())
    sum.history = learners::staged_history(r.model, *info.labels, *info.staged);
  // Party A holds the whole model, every split's feature named.
  sum.importance = importance_json(
      learners::importance(with_column_names(r.model, r.features)));
  sum.importance_note = "every party's features: Party A trains on every "
                        "column's ranks and knows each split's feature";
  std::cout << "privacy: "
            << op::privacy_headline(p, r.spent, op::fitted_columns(info.bounds))
            << "\n";
  if (p.mechanism.kind == op::mechanism_kind::identity)
    std::cerr << "veil: warning: the identity mechanism gives no protection "
                 "(tests and baselines only)\n";

  // Each Party B kept its part where it runs (cfg.parts): its columns'
  // public constants and its mechanism. This process writes the model
  // (Party A's part: Party B thresholds in desensitized units, which raw
  // values must not meet) and the session's parties.
  std::vector<learners::output_file> outputs; // committed together
  if (!info.parts.empty()) {
    session::federated_model fm;
    fm.model = r.model;
    fm.protocol = "opboost";
    fm.parties = sum.names;
    fm.features = r.features;
    fm.label_column = info.label_column;
    fm.id_column = info.id_column;
    std::vector<std::string> bs(fm.parties.begin() + 1, fm.parties.end());
    sum.model_parts = save_session_model(
        o, std::move(fm), info.parts,
        "Party A's splits; Party B thresholds in desensitized units, which "
        "new rows reach only through their Party B",
        bs,
        "each Party B keeps its part (its columns' public bounds and its "
        "mechanism)",
        outputs);
  }
  if (!o.report.empty()) {
    sum.params = {{"learner", op::to_string(p.learner)},
                  {"threshold", op::to_string(p.threshold)},
                  {"rounds", bp.rounds},
                  {"max_depth", bp.tree.max_depth},
                  {"eta", bp.tree.eta},
                  {"lambda", bp.tree.lambda},
                  {"gamma", bp.tree.gamma},
                  {"min_child_weight", bp.tree.min_child_weight},
                  {"max_delta_step", bp.tree.max_delta_step},
                  {"max_bin", bp.max_bin}};
    sum.privacy = op::privacy_json(
        p, r.spent, r.privacy_report,
        info.private_prediction && !info.metrics_on.empty(), info.bounds);
    auto report = federated_report(sum, o);
    report["party_b_splits"] = r.splits;
    report["bounds"] = info.bounds;
    report["prediction"] = info.private_prediction ? "private" : "non-private";
    outputs.push_back({o.report, report.dump(2) + "\n"});
  }
  learners::write_files_atomically(outputs); // together, after success
  return 0;
}

} // namespace

int run_opboost_config(const session_config& c, const train_options& o) {
  auto context = c.source + ": ";
  op::named_settings os;
  for (const auto& [key, value] : c.protocol_params) {
    auto line = c.protocol_param_lines.find(key);
    auto where = line == c.protocol_param_lines.end()
                     ? c.source + ": --set " + key
                     : c.source + ":" + std::to_string(line->second) +
                           ": [protocol] " + key;
    if (!op::apply_setting(os, key, value, where))
      throw input_error(where + ": not an OpBoost parameter");
  }
  if (!os.private_prediction)
    throw input_error(context + "opboost.prediction = non-private needs every "
                                "party's test rows in plaintext at Party A: a "
                                "session's parties keep their rows, so Party A "
                                "predicts privately");
  auto& p = os.params;
  if (os.epsilon > 0)
    p.mechanism.epsilon = os.epsilon;
  p.booster = op::booster_for(p, c.params);
  auto& bp = p.booster;
  op::refuse_unused_learner_settings(bp, context + "[learner] ");
  if (bp.objective == learners::objective_kind::multi_softmax &&
      bp.num_class == 0)
    throw input_error(context + "multi:softmax with the opboost protocol "
                                "needs the number of classes: num_class in "
                                "[learner] or --set num_class=K");
  if (bp.num_class == 0)
    bp.num_class = 2;
  try {
    p.validate();
  } catch (const input_error& e) {
    throw input_error(context + e.what());
  }

  // Party A is the label holder; the others keep their order.
  auto file = session_file(c, o);
  actors::opboost_party_config cfg;
  file.fill(cfg);
  cfg.params = p;
  auto a = c.active_party();
  std::rotate(cfg.parties.begin(), cfg.parties.begin() + a,
              cfg.parties.begin() + a + 1); // Party A first, the rest in order
  json bounds_report = {{"public", json::object()},
                        {"public_columns", json::array()},
                        {"fitted", json::array()},
                        {"clamped", json::object()}};
  for (const auto& [column, b] : os.bounds()) {
    cfg.bounds[column] = b.map;
    bounds_report["public"][column] = {b.map.lower, b.map.upper};
    bounds_report["public_columns"].push_back(column);
  }
  if (o.plan) {
    // Party B's columns without public bounds are fitted where it runs.
    auto shape = plan_shape(cfg.parties);
    std::vector<std::vector<std::string>> party_b(shape.features.begin() + 1,
                                                  shape.features.end());
    std::vector<std::string> fitted;
    for (const auto& names : party_b)
      for (const auto& f : names)
        if (!cfg.bounds.contains(f))
          fitted.push_back(f);
    return print_plan(
        "opboost", shape.describe(),
        op::privacy_headline(p, op::planned_spend(p, party_b), fitted));
  }
  actors::opboost_outcome out;
  {
    progress_printer progress(o.quiet, "tree");
    out = train_session<actors::opboost_protocol>(
        cfg, file.tls, progress.callback(), o, opboost_prediction);
  }
  file.name_file(out);
  if (out.ok()) {
    warn_fitted_bounds(out.result->fitted);
    for (const auto& f : out.result->fitted)
      bounds_report["fitted"].push_back(f);
  }
  opboost_run_info info;
  info.data_name = c.source;
  info.where = file.where("parties");
  info.metrics_on = file.have_test ? "test" : "";
  if (out.ok()) {
    info.labels = &out.result->labels;
    info.margins = &out.result->margins;
    info.staged = &out.result->staged;
  }
  info.bounds = bounds_report;
  info.label_column = c.parties[a].label;
  info.id_column = c.parties[a].id;
  info.parts = cfg.parts;
  return report_opboost(out, p, o, info);
}

void opboost_prediction(actors::opboost_result& r, const learners::model& model,
                        federated_prediction& got) {
  take_prediction(r, r.parties, !r.labels.empty(), model, got);
  got.privacy = "every Party B desensitized its values of these rows afresh "
                "with its mechanism (private prediction): each row's Party B "
                "values spend the per-value budget of training once more, and "
                "two predictions of a row differ";
}

int predict_opboost(const prediction_plan& plan, const predict_options& o,
                    const protocols::session::federated_model& fm,
                    federated_prediction& got) {
  auto cfg = prediction_config<actors::opboost_party_config>(plan, o, fm);
  cfg.params.booster.threads = o.threads;
  cfg.features = fm.features;
  auto out = actors::opboost_session::run(cfg, plan.tls);
  if (!out.ok())
    return session_failure(out);
  opboost_prediction(*out.result, fm.model, got);
  return 0;
}

} // namespace veil::apps
