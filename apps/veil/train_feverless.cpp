// `veil train --protocol feverless` (and its baselines feverless-plain,
// feverless-ldp, feverless-ahe): one table's columns split evenly in
// contiguous blocks over N clients that run in this process as actors, the
// labels spread uniformly at random over them (spec feverless §14.1); or,
// with --config, each party's own file (labels spread by the parties' label
// columns), locally or on its `veil node`. The report adds the privacy
// guarantee (per query and the honest total).
#include <cmath>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "actors/feverless_session.hpp"
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
#include "protocols/feverless/data.hpp"
#include "protocols/feverless/settings.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::apps {

/// What a FEVERLESS prediction session gave (the labels are client 0's).
void feverless_prediction(actors::feverless_result& r,
                          const learners::model& model,
                          federated_prediction& got);

using learners::dataset;
using nlohmann::json;
namespace fv = protocols::feverless;
namespace session = protocols::session;

namespace {

/// What the printing and the report say about the session's data.
struct run_info {
  std::string protocol;
  std::string data_name;
  /// "4 clients in this process", "4 clients, 2 on other nodes".
  std::string where;
  /// "test", "train", or empty: no metrics.
  std::string metrics_on;
  /// The labels of the evaluation rows (metrics_on non-empty).
  const std::vector<float>* labels = nullptr;
  /// max_delta_step is the noisy modes' default, not the user's.
  bool default_clamp = false;
  /// For the model file: the label and id columns a prediction session of
  /// the parties in this process reads (client 0 holds every label).
  std::string label_column;
  std::string id_column;
  /// Where the clients kept their parts (none without --model-out).
  protocols::session::model_parts parts;
};

/// Prints a FEVERLESS session's outcome and writes --model-out (the public
/// model, and each client's split table beside it) and --report.
int report_feverless(const actors::feverless_outcome& out, const fv::params& p,
                     const train_options& o, const run_info& info) {
  if (!out.ok())
    return session_failure(out);
  const auto& r = *out.result;
  auto sum = summary_of(r, r.parties);
  sum.protocol = info.protocol;
  sum.data = info.data_name;
  sum.objective = "binary:logistic";
  sum.test_rows = info.metrics_on == "test" ? r.test_rows : 0;
  sum.metrics_on = info.metrics_on;
  if (!info.metrics_on.empty()) {
    auto obj = r.model.make_objective();
    auto preds = obj.transform(r.margins, info.labels->size());
    sum.metrics = learners::evaluate(obj, *info.labels, preds);
  }
  sum.history = r.history; // evaluated round by round (early stopping)
  sum.early_stop = r.early_stop;
  if (sum.history.empty() && info.metrics_on == "test" &&
      !r.staged.values.empty())
    sum.history = learners::staged_history(r.model, *info.labels, r.staged);
  // The public model names each split's owner, not its feature.
  sum.importance =
      importance_json(learners::importance_by_owner(r.model, sum.names));
  sum.importance_note =
      "by party: the public model names each split's owner, not its feature; "
      "each client learns its own features' importance from its split table "
      "(veil inspect MODEL --part MODEL.<client>, where it runs)";
  const auto& pr = r.privacy;
  std::cout << "trained " << sum.trees << " trees on " << r.rows << " rows x "
            << sum.total_features() << " features in " << std::fixed
            << std::setprecision(3) << r.train_seconds << " s ("
            << info.protocol << ", " << info.where << ", "
            << human_bytes(sum.total_bytes()) << " exchanged)\n"
            << std::defaultfloat;
  if (auto line =
          network_line(o.link, sum.bytes, r.train_seconds + r.predict_seconds);
      !line.empty())
    std::cout << line << "\n";
  if (info.metrics_on.empty())
    std::cout << "no test files: no metrics (the training labels stay with "
                 "their parties)\n";
  else
    std::cout << info.metrics_on << ": " << format_metrics(sum.metrics)
              << (info.metrics_on == "train"
                      ? " (from the exact training labels in this process: "
                        "outside the guarantee below)"
                      : "")
              << "\n";
  if (auto line = r.early_stop.describe("test"); !line.empty())
    std::cout << line << "\n";
  std::cout << fv::privacy_text(p, pr, info.default_clamp);
  for (const auto& w : fv::privacy_warnings(p, pr))
    std::cerr << "veil: warning: " << w << "\n";

  // Each client kept its split table where it runs (cfg.parts): this
  // process writes the public model (no split's feature or threshold,
  // spec §8.4) and the session's parties.
  std::vector<learners::output_file> outputs; // committed together
  if (!info.parts.empty()) {
    session::federated_model fm;
    fm.model = r.model;
    fm.protocol = info.protocol;
    fm.parties = sum.names;
    fm.features = r.features;
    fm.label_column = info.label_column;
    fm.id_column = info.id_column;
    sum.model_parts = save_session_model(
        o, std::move(fm), info.parts,
        "each split's owner, no feature and no "
        "threshold",
        sum.names, "each client keeps its split table", outputs);
  }
  if (!o.report.empty()) {
    sum.params = {{"max_depth", p.max_depth},
                  {"eta", p.eta},
                  {"lambda", p.lambda},
                  {"gamma", p.gamma},
                  {"max_delta_step", p.max_delta_step},
                  {"max_delta_step_is_default", info.default_clamp},
                  {"buckets", p.buckets},
                  {"election", fv::to_string(p.election)},
                  {"hide_labels", p.hide_labels},
                  {"paillier_bits", p.paillier_bits},
                  {"paillier_threads", p.paillier_threads}};
    sum.privacy = fv::privacy_json(p, pr);
    auto report = federated_report(sum, o);
    report["queries"] = pr.queries_total;
    report["metrics_note"] =
        info.metrics_on == "train"
            ? "computed from the exact training labels in this process, "
              "outside the privacy guarantee"
            : "";
    outputs.push_back({o.report, report.dump(2) + "\n"});
  }
  learners::write_files_atomically(outputs); // together, after success
  return 0;
}

} // namespace

int run_feverless_train(const train_options& o) {
  fv::params p;
  p.protocol = fv::parse_mode(o.protocol);
  int n = o.parties == 0 ? 4 : o.parties;
  if (n < 2)
    throw input_error(
        "--parties " + std::to_string(n) + ": --protocol " + o.protocol +
        " needs at least 2 clients (the labels are spread over them and "
        "each client sums the others' gradients); for one party use "
        "--protocol centralized");
  if (n > 256)
    throw input_error("--parties " + std::to_string(n) +
                      ": at most 256 clients");
  if (o.params.objective != learners::objective_kind::binary_logistic)
    throw input_error("--protocol " + o.protocol +
                      " trains binary:logistic only");
  auto timeout = checked_timeout(o.timeout, "--timeout");

  // Learner settings: the flags, then --set (learner keys as for plain).
  auto bp = o.params;
  fv::named_settings fs;
  fs.epsilon = o.epsilon;
  fs.delta = o.delta;
  for (const auto& s : o.settings) {
    auto eq = s.find('=');
    auto key = s.substr(0, eq);
    auto value = eq == std::string::npos ? std::string() : s.substr(eq + 1);
    if (key == "epsilon" || key == "delta" ||
        !fv::apply_setting(p, fs, key, value, "--set " + s))
      apply_setting(bp, s);
    if (key == "max_delta_step")
      fs.max_delta_step_given = true;
  }
  p.session = o.seed;
  fv::finish_params(p, bp, fs, "");

  auto data = load_train_data(o, learners::objective_kind::binary_logistic);
  auto& train_set = data.train;
  auto& test_set = data.test;
  const auto& data_name = data.name;
  bool have_test = data.have_test;
  fv::check_binary(train_set, data_name);
  if (have_test)
    fv::check_binary(test_set, o.test.empty() ? "the test rows" : o.test);
  const dataset& eval_set = have_test ? test_set : train_set;
  actors::feverless_config cfg;
  cfg.params = p;
  cfg.timeout = timeout;
  cfg.link = o.link;
  cfg.parts = parts_for(o.model_out);
  auto parts = cfg.parts;
  cfg.parties = fv::deal_table(train_set, eval_set, static_cast<std::size_t>(n),
                               o.seed, data_name);
  if (bp.early_stopping_rounds > 0) {
    if (!have_test)
      throw input_error("--set early_stopping_rounds: it watches the test "
                        "rows; give them with --test");
    cfg.early_stopping_rounds = bp.early_stopping_rounds;
    cfg.eval_labels = test_set.labels();
  }
  if (o.plan)
    return print_plan(o.protocol,
                      std::to_string(n) + " clients, " +
                          std::to_string(train_set.rows()) + " rows",
                      fv::planned_privacy(p, train_set.features()));
  actors::feverless_outcome out;
  {
    progress_printer progress(o.quiet, "tree");
    out =
        actors::feverless_session::run(std::move(cfg), {}, progress.callback());
  }
  run_info info{o.protocol,
                data_name,
                std::to_string(n) + " clients in this process",
                have_test ? "test" : "train",
                &eval_set.labels(),
                fv::default_clamp(p, fs),
                o.data.empty() ? "label" : o.label,
                o.id,
                parts};
  return report_feverless(out, p, o, info);
}

int run_feverless_config(const session_config& c, const train_options& o) {
  auto context = c.source + ": ";
  fv::params p;
  p.protocol = fv::parse_mode(c.protocol);
  fv::named_settings fs;
  for (const auto& [key, value] : c.protocol_params) {
    auto line = c.protocol_param_lines.find(key);
    auto where = line == c.protocol_param_lines.end()
                     ? c.source + ": --set " + key + "=" + value
                     : c.source + ":" + std::to_string(line->second) +
                           ": [protocol] " + key + " = " + value;
    if (!fv::apply_setting(p, fs, key, value, where))
      throw input_error(where + ": not a FEVERLESS parameter");
  }
  fs.max_delta_step_given = c.learner_keys.count("max_delta_step") > 0;
  // A fresh session id: it is signed into every key announcement.
  p.session = std::random_device{}();
  p.session = (p.session << 32) ^ std::random_device{}();
  fv::finish_params(p, c.params, fs, context);

  auto file = session_file(c, o);
  if (c.params.early_stopping_rounds > 0 && !file.have_test)
    throw input_error(context + "early_stopping_rounds watches the test "
                                "rows: give every client a test file");
  actors::feverless_party_config cfg;
  file.fill(cfg);
  cfg.params = p;
  cfg.early_stopping_rounds = c.params.early_stopping_rounds;
  if (o.plan) {
    auto shape = plan_shape(cfg.parties);
    std::uint64_t features = 0;
    for (const auto& f : shape.features)
      features += f.size();
    return print_plan(c.protocol, shape.describe(),
                      fv::planned_privacy(p, features));
  }
  actors::feverless_outcome out;
  {
    progress_printer progress(o.quiet, "tree");
    out = train_session<actors::feverless_protocol>(
        cfg, file.tls, progress.callback(), o, feverless_prediction);
  }
  file.name_file(out);
  run_info info{c.protocol,
                c.source,
                file.where("clients"),
                file.have_test ? "test" : "",
                out.ok() ? &out.result->labels : nullptr,
                fv::default_clamp(p, fs),
                c.parties[c.active_party()].label,
                c.parties[c.active_party()].id,
                cfg.parts};
  return report_feverless(out, p, o, info);
}

void feverless_prediction(actors::feverless_result& r,
                          const learners::model& model,
                          federated_prediction& got) {
  take_prediction(r, r.parties, r.labelled, model, got);
}

int predict_feverless(const prediction_plan& plan, const predict_options& o,
                      const protocols::session::federated_model& fm,
                      federated_prediction& got) {
  auto out = actors::feverless_session::run(
      prediction_config<actors::feverless_party_config>(plan, o, fm), plan.tls);
  if (!out.ok())
    return session_failure(out);
  feverless_prediction(*out.result, fm.model, got);
  return 0;
}

} // namespace veil::apps
