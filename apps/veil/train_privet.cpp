// `veil train --protocol privet-plain`: Privet's plaintext reference (spec
// privet §3.4) on one party, reported as centralized training is: the
// tables as a Veil model (weak_learner "decision_table"), the metrics,
// --model-out and --report. The secure protocol (`privet`) runs on the
// MPC runtime in protocols/privet but has no actors yet.
#include <chrono>
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/veil/commands.hpp"
#include "apps/veil/settings.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/input_error.hpp"
#include "learners/metrics/metrics.hpp"
#include "learners/table/decision_tables.hpp"
#include "protocols/privet/descriptor.hpp"
#include "protocols/privet/train.hpp"

namespace veil::apps {

namespace {

using nlohmann::json;

/// The tables' settings: the paper's defaults (10 tables of depth 3,
/// lambda 1, eta 1; protocols::privet::params) unless the flags or
/// lambda/eta say otherwise, and the privet.* settings (`approximate`
/// set from privet.approximate); every other learner setting refused.
protocols::privet::params privet_params_of(const train_options& o,
                                           learners::table_task task,
                                           bool& approximate) {
  protocols::privet::params p;
  p.task = task;
  const learners::booster_params generic;
  if (o.params.rounds != generic.rounds)
    p.tables = o.params.rounds;
  if (o.params.tree.max_depth != generic.tree.max_depth)
    p.depth = o.params.tree.max_depth;
  learners::booster_params learner;
  approximate = false;
  const auto& d = protocols::privet::descriptor();
  for (const auto& s : o.settings) {
    auto eq = s.find('=');
    auto key = s.substr(0, eq);
    auto value = eq == std::string::npos ? std::string() : s.substr(eq + 1);
    if (const auto* setting = d.find(key)) {
      protocols::check_setting(*setting, value, "--set " + s);
      if (key == "privet.buckets")
        p.buckets = static_cast<int>(*protocols::parse_finite(value));
      else if (key == "privet.approximate")
        approximate = value == "true";
      continue;
    }
    if (key != "lambda" && key != "eta" && key != "reg_lambda" &&
        key != "learning_rate")
      throw input_error("--set " + s +
                        ": privet-plain takes --trees, "
                        "--depth, lambda, eta and the privet.* settings");
    apply_setting(learner, s);
  }
  if (learner.tree.lambda != generic.tree.lambda)
    p.lambda = learner.tree.lambda;
  if (learner.tree.eta != generic.tree.eta)
    p.eta = learner.tree.eta;
  return p;
}

} // namespace

int run_privet_plain_train(const train_options& o) {
  if (o.parties > 1)
    throw input_error("--parties " + std::to_string(o.parties) +
                      ": privet-plain trains on one party");
  if (o.epsilon > 0 || o.delta > 0)
    throw input_error("--epsilon/--delta: privet-plain adds no noise");
  if (!o.categorical.empty())
    throw input_error("--categorical: only for --protocol opboost");
  if (o.link.enabled())
    throw input_error("--set net.*: privet-plain has no links to emulate");
  auto kind = learners::parse_objective(o.objective);
  if (kind == learners::objective_kind::multi_softmax)
    throw input_error("--objective " + o.objective +
                      ": privet-plain trains binary:logistic or "
                      "reg:squarederror");
  auto task = kind == learners::objective_kind::binary_logistic
                  ? learners::table_task::binary
                  : learners::table_task::regression;
  bool approximate = false;
  auto p = privet_params_of(o, task, approximate);
  auto data = load_train_data(o, kind);
  const auto& train_set = data.train;
  auto t = approximate
               ? protocols::privet::approximation_aware(p, train_set.rows())
               : protocols::privet::exact_reference(p);
  auto start = std::chrono::steady_clock::now();
  auto tables = learners::train_tables(train_set, t);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  auto model = learners::to_model(tables, task, train_set.feature_names());
  const auto& eval_set = data.have_test ? data.test : train_set;
  auto preds = model.predict(eval_set);
  auto metrics =
      learners::evaluate(model.make_objective(), eval_set.labels(), preds);
  std::cout << "trained " << tables.tables.size()
            << " decision tables of depth " << t.depth << " (" << t.buckets
            << " buckets) on " << train_set.rows() << " rows x "
            << train_set.features() << " features in " << std::fixed
            << std::setprecision(3) << seconds << " s\n"
            << std::defaultfloat << (data.have_test ? "test" : "train") << ": "
            << format_metrics(metrics) << "\n";
  std::vector<learners::output_file> outputs;
  if (!o.model_out.empty())
    outputs.push_back({o.model_out, learners::to_json(model).dump(1) + "\n"});
  if (!o.report.empty()) {
    json report = {{"veil_version", VEIL_VERSION},
                   {"protocol", o.protocol},
                   {"data", data.name},
                   {"objective", learners::to_string(kind)},
                   {"rows", train_set.rows()},
                   {"test_rows", data.have_test ? data.test.rows() : 0},
                   {"features", train_set.features()},
                   {"parties", 1},
                   {"weak_learner", model.weak_learner},
                   {"trees", model.trees.size()},
                   {"params",
                    {{"tables", t.tables},
                     {"depth", t.depth},
                     {"buckets", t.buckets},
                     {"lambda", t.lambda},
                     {"eta", t.eta},
                     {"approximate", approximate}}},
                   {"metrics", metrics},
                   {"metrics_on", data.have_test ? "test" : "train"},
                   {"train_seconds", seconds},
                   {"privacy", {{"mechanism", "none"}}}};
    outputs.push_back({o.report, report.dump(2) + "\n"});
  }
  learners::write_files_atomically(outputs);
  return 0;
}

} // namespace veil::apps
