// `veil predict` on a federated model: a prediction session over the
// parties that hold its parts. With --config, the session file's parties
// (local ones in this process, remote ones on their nodes) each read their
// test file (or, with --set predict_on=data, their data file); without,
// every party runs here and reads its columns of --data. The active party
// restores the public model this process holds, every other party its own
// part where it runs, and they predict as they did after training.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "actors/session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/session_config.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/input_error.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::apps {

using nlohmann::json;
namespace session = protocols::session;

namespace {

/// The rows each party predicts: its test file or its data file.
enum class rows_from { test, data };

rows_from take_predict_on(std::vector<std::string>& overrides) {
  rows_from on = rows_from::test;
  std::erase_if(overrides, [&](const std::string& kv) {
    if (kv.rfind("predict_on=", 0) != 0)
      return false;
    auto v = kv.substr(11);
    if (v != "test" && v != "data")
      throw input_error("--set predict_on=" + v + ": expected test or data");
    on = v == "test" ? rows_from::test : rows_from::data;
    return true;
  });
  return on;
}

/// The parties of session file `path` (with `overrides`), checked against
/// the model's.
actors::session_config plan_from_file(const predict_options& o,
                                      const session::federated_model& fm,
                                      std::vector<std::string> overrides,
                                      rows_from on, std::size_t& remote,
                                      actors::tls_files& tls) {
  auto c = load_session(o.config);
  for (const auto& kv : overrides)
    apply_override(c, kv);
  if (c.protocol != fm.protocol)
    throw input_error(o.config + ": protocol \"" + c.protocol + "\", but " +
                      o.model + " is a " + fm.protocol + " model");
  std::vector<std::string> names;
  for (const auto& q : c.parties)
    names.push_back(q.name);
  auto sorted = names, trained = fm.parties;
  std::sort(sorted.begin(), sorted.end());
  std::sort(trained.begin(), trained.end());
  if (sorted != trained) {
    std::string want;
    for (const auto& n : fm.parties)
      want += (want.empty() ? "" : ", ") + n;
    throw input_error(o.config + ": the model was trained by the parties " +
                      want + "; the session file names others");
  }
  check_local_files(c);
  actors::session_config cfg;
  bool have_test = true;
  cfg.parties = party_specs(c, remote, have_test);
  for (std::size_t q = 0; q < cfg.parties.size(); ++q) {
    auto& s = cfg.parties[q];
    if (on == rows_from::data)
      s.test_path = s.data.path;
    else if (s.test_path.empty())
      throw input_error(o.config + ": party \"" + s.name +
                        "\" has no test file to predict; give it one (test = "
                        "...) or predict its data: --set predict_on=data");
  }
  cfg.timeout = c.timeout();
  cfg.link = c.link;
  tls = {c.tls.certificate, c.tls.key, c.tls.ca};
  return cfg;
}

/// Every party in this process, each reading its columns of `o.data`.
actors::session_config plan_in_process(const predict_options& o,
                                       const session::federated_model& fm) {
  if (o.data.empty())
    throw input_error(o.model + " is a federated model: give the rows to "
                                "predict (--data FILE, every party reads its "
                                "columns there) or the session file of its "
                                "parties (--config SESSION)");
  // The label column is optional here: it gives the metrics.
  bool labeled = true;
  if (!fm.label_column.empty()) {
    auto header = csv_header(o.data);
    labeled = std::find(header.begin(), header.end(), fm.label_column) !=
              header.end();
  }
  actors::session_config cfg;
  for (std::size_t q = 0; q < fm.parties.size(); ++q) {
    actors::party_spec s;
    s.name = fm.parties[q];
    s.data.path = o.data;
    s.data.id_column = fm.id_column;
    s.data.feature_columns = fm.features[q];
    s.data.label_column = q == 0 && labeled ? fm.label_column : "";
    s.test_path = o.data;
    cfg.parties.push_back(std::move(s));
  }
  return cfg;
}

std::string predictions_csv(const std::vector<double>& preds, std::size_t k) {
  auto n = k == 0 ? 0 : preds.size() / k;
  std::ostringstream s;
  s << std::setprecision(17);
  if (k == 1) {
    s << "prediction\n";
  } else {
    for (std::size_t c = 0; c < k; ++c)
      s << "p" << c << (c + 1 < k ? "," : "\n");
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < k; ++c)
      s << preds[c * n + i] << (c + 1 < k ? "," : "\n");
  return s.str();
}

} // namespace

bool is_federated_model(const std::string& path) {
  auto j = learners::read_json_file(path, "model");
  return j.is_object() && j.contains("session") && j.contains("federated");
}

int run_federated_predict(const predict_options& o) {
  auto fm = session::load_federated_model(o.model);
  if (fm.protocol != "plain")
    throw input_error(o.model + ": a " + fm.protocol +
                      " model; veil predict runs federated prediction for "
                      "plain models in this build (predict " +
                      fm.protocol +
                      " in its training session: veil train with test files)");
  auto overrides = o.overrides;
  auto on = take_predict_on(overrides);
  std::size_t remote = 0;
  actors::tls_files tls;
  actors::session_config cfg;
  if (!o.config.empty()) {
    cfg = plan_from_file(o, fm, overrides, on, remote, tls);
  } else {
    if (!overrides.empty())
      throw input_error("--set " + overrides.front() +
                        ": without --config, veil predict takes only "
                        "--set predict_on");
    cfg = plan_in_process(o, fm);
  }
  cfg.params.objective = fm.model.objective;
  cfg.params.num_class = std::max(2, fm.model.num_class);
  cfg.params.threads = o.threads;
  cfg.eval = actors::evaluation::test;
  cfg.parts = o.model;
  cfg.restore = fm.model;

  auto out = remote == 0 && !tls.enabled()
                 ? actors::run_local_session(cfg)
                 : actors::run_distributed_session(cfg, tls);
  if (!out.ok()) {
    std::cerr << "veil: error: " << out.error << "\n";
    return out.code == session::errc::bad_input ? 2 : 1;
  }
  const auto& r = *out.result;
  auto obj = fm.model.make_objective();
  auto k = static_cast<std::size_t>(fm.model.outputs());
  auto preds = obj.transform(r.margins, r.test_rows);
  std::cout << "predicted " << r.test_rows << " rows with " << r.names.size()
            << " parties (" << fm.protocol << ", "
            << (remote == 0 ? std::string("all in this process")
                            : std::to_string(remote) + " on other nodes")
            << ")\n";
  std::map<std::string, double> metrics;
  for (std::size_t i = 0; i < r.metric_names.size(); ++i)
    metrics[r.metric_names[i]] = r.metric_values[i];
  if (!metrics.empty())
    std::cout << format_metrics(metrics) << "\n";
  if (!o.out.empty())
    learners::write_file_atomically(o.out, predictions_csv(preds, k));
  if (!o.report.empty()) {
    json per_party = json::object();
    std::uint64_t total = 0;
    for (const auto& b : r.bytes) {
      per_party[b.party] = party_bytes_json(b, false, r.names);
      total += b.total_sent();
    }
    json report = {{"veil_version", VEIL_VERSION},
                   {"protocol", fm.protocol},
                   {"model", o.model},
                   {"rows", r.test_rows},
                   {"parties", r.names.size()},
                   {"party_names", r.names},
                   {"metrics", metrics},
                   {"predict_seconds", r.predict_seconds},
                   {"bytes", {{"total", total}, {"per_party", per_party}}}};
    learners::write_file_atomically(o.report, report.dump(2) + "\n");
  }
  return 0;
}

} // namespace veil::apps
