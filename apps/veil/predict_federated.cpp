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
#include "apps/veil/protocols.hpp"
#include "apps/veil/session_config.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/input_error.hpp"
#include "learners/metrics/metrics.hpp"
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

/// The parties of the session file (with `overrides`), checked against the
/// model's.
prediction_plan plan_from_file(const predict_options& o,
                               const session::federated_model& fm,
                               std::vector<std::string> overrides,
                               rows_from on) {
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
  // The party that predicts is the model's first (the plain active party,
  // FEVERLESS's client 0, OpBoost's Party A): it alone gets the model. With
  // a protocol that spreads labels (FEVERLESS) any party may hold some.
  if (fm.protocol.rfind("feverless", 0) != 0)
    for (const auto& q : c.parties)
      if (!q.label.empty() && q.name != fm.parties[0])
        throw input_error(o.config + ": party \"" + q.name +
                          "\" names a label column, but " + fm.parties[0] +
                          " holds the labels in this model: the labels (and "
                          "the model) go to " +
                          fm.parties[0] + " only");
  check_local_files(c);
  prediction_plan plan;
  bool have_test = true;
  auto specs = party_specs(c, plan.remote, have_test);
  for (const auto& name : fm.parties)
    for (auto& s : specs)
      if (s.name == name)
        plan.parties.push_back(std::move(s));
  for (auto& s : plan.parties) {
    if (on == rows_from::data)
      s.test_path = s.data.path;
    else if (s.test_path.empty())
      throw input_error(o.config + ": party \"" + s.name +
                        "\" has no test file to predict; give it one (test = "
                        "...) or predict its data: --set predict_on=data");
  }
  plan.timeout = c.timeout();
  plan.link = c.link;
  plan.tls = {c.tls.certificate, c.tls.key, c.tls.ca};
  return plan;
}

/// Every party in this process, each reading its columns of `o.data`; the
/// first holds the labels, if the file has them (they give the metrics).
prediction_plan plan_in_process(const predict_options& o,
                                const session::federated_model& fm) {
  if (o.data.empty())
    throw input_error(o.model + " is a federated model: give the rows to "
                                "predict (--data FILE, every party reads its "
                                "columns there) or the session file of its "
                                "parties (--config SESSION)");
  bool labeled = !fm.label_column.empty();
  if (labeled) {
    auto header = csv_header(o.data);
    labeled = std::find(header.begin(), header.end(), fm.label_column) !=
              header.end();
  }
  prediction_plan plan;
  for (std::size_t q = 0; q < fm.parties.size(); ++q) {
    actors::party_spec s;
    s.name = fm.parties[q];
    s.data.path = o.data;
    s.data.id_column = fm.id_column;
    s.data.feature_columns = fm.features[q];
    s.data.label_column = q == 0 && labeled ? fm.label_column : "";
    s.test_path = o.data;
    plan.parties.push_back(std::move(s));
  }
  return plan;
}

} // namespace

std::string show_prediction(const federated_prediction& got,
                            const learners::model& model,
                            const std::string& where) {
  auto k = static_cast<std::size_t>(model.outputs());
  auto rows = got.margins.size() / k;
  auto preds = model.make_objective().transform(got.margins, rows);
  std::cout << "predicted " << rows << " rows with " << got.names.size()
            << " parties (" << where << ")\n";
  if (!got.metrics.empty())
    std::cout << format_metrics(got.metrics) << "\n";
  if (!got.privacy.empty())
    std::cout << "privacy: " << got.privacy << "\n";
  return predictions_csv(preds, k, got.ids);
}

int run_federated_predict(const predict_options& o,
                          const nlohmann::json& model) {
  auto fm = session::federated_model_from_json(model, o.model);
  const auto* protocol = find_federated(fm.protocol);
  if (!protocol)
    throw input_error(o.model + ": a " + fm.protocol +
                      " model; veil predict runs federated prediction for " +
                      federated_protocol_names() + " models in this build");
  auto overrides = o.overrides;
  auto on = take_predict_on(overrides);
  prediction_plan plan;
  if (!o.config.empty()) {
    for (const auto& [flag, value] :
         {std::pair{"--data", o.data}, {"--label", o.label}, {"--id", o.id}})
      if (!value.empty())
        throw input_error(std::string(flag) + ": not with --config (the "
                                              "session file names each "
                                              "party's rows and columns)");
    plan = plan_from_file(o, fm, overrides, on);
  } else {
    if (!overrides.empty())
      throw input_error("--set " + overrides.front() +
                        ": without --config, veil predict takes only "
                        "--set predict_on");
    if (!o.label.empty() || !o.id.empty())
      throw input_error(std::string(o.label.empty() ? "--id" : "--label") +
                        ": a federated model reads the label and id columns "
                        "it was trained with");
    plan = plan_in_process(o, fm);
  }
  federated_prediction got;
  if (int rc = protocol->predict(plan, o, fm, got))
    return rc;
  auto k = static_cast<std::size_t>(fm.model.outputs());
  auto rows = got.margins.size() / k;
  auto csv = show_prediction(
      got, fm.model,
      fm.protocol + ", " +
          (plan.remote == 0 ? std::string("all in this process")
                            : std::to_string(plan.remote) + " on other nodes"));
  std::vector<learners::output_file> outputs;
  if (!o.out.empty())
    outputs.push_back({o.out, csv});
  if (!o.report.empty()) {
    json per_party = json::object();
    std::uint64_t total = 0;
    for (const auto& b : got.bytes) {
      per_party[b.party] = party_bytes_json(b, false, got.names);
      total += b.total_sent();
    }
    json report = {{"veil_version", VEIL_VERSION},
                   {"protocol", fm.protocol},
                   {"model", o.model},
                   {"rows", rows},
                   {"parties", got.names.size()},
                   {"party_names", got.names},
                   {"metrics", got.metrics},
                   {"predict_seconds", got.seconds},
                   {"bytes", {{"total", total}, {"per_party", per_party}}}};
    outputs.push_back({o.report, report.dump(2) + "\n"});
  }
  learners::write_files_atomically(outputs); // together, after success
  return 0;
}

} // namespace veil::apps
