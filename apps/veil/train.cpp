#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "apps/veil/commands.hpp"
#include "apps/veil/progress.hpp"
#include "apps/veil/protocols.hpp"
#include "apps/veil/settings.hpp"
#include "learners/boost/importance.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/data/synthetic.hpp"
#include "learners/input_error.hpp"
#include "learners/metrics/metrics.hpp"
#include "protocols/descriptor.hpp"

namespace veil::apps {

using learners::dataset;
using learners::training_result;
using nlohmann::json;

std::pair<dataset, dataset> builtin_data(const train_options& o,
                                         learners::objective_kind kind) {
  dataset all;
  if (o.synthetic == "classification") {
    if (kind != learners::objective_kind::binary_logistic &&
        kind != learners::objective_kind::multi_softmax)
      throw input_error("--synthetic classification needs a classification "
                        "objective");
    learners::classification_spec s;
    s.rows = o.synthetic_rows;
    s.features = o.synthetic_features;
    s.informative = std::max<std::size_t>(1, o.synthetic_features / 2);
    s.redundant = o.synthetic_features / 4;
    s.seed = o.seed;
    all = learners::make_classification(s);
  } else if (o.synthetic == "regression") {
    learners::regression_spec s;
    s.rows = o.synthetic_rows;
    s.features = o.synthetic_features;
    s.informative = std::max<std::size_t>(1, o.synthetic_features / 2);
    s.seed = o.seed;
    all = learners::make_regression(s);
  } else {
    throw input_error("--synthetic " + o.synthetic +
                      ": expected classification or regression");
  }
  // The generator shuffles rows, so the first 80% are a random 80%.
  std::vector<std::size_t> head(all.rows() * 4 / 5),
      tail(all.rows() - head.size());
  std::iota(head.begin(), head.end(), 0);
  std::iota(tail.begin(), tail.end(), head.size());
  return {all.select_rows(head), all.select_rows(tail)};
}

train_data load_train_data(const train_options& o,
                           learners::objective_kind kind) {
  train_data d;
  if (o.data.empty()) {
    std::tie(d.train, d.test) = builtin_data(o, kind);
    d.name = "synthetic:" + o.synthetic;
  } else {
    learners::read_options ro;
    ro.label = o.label;
    ro.id = o.id;
    d.train = learners::read_table(o.data, ro);
    d.name = o.data;
    if (!o.test.empty())
      d.test = learners::read_table(o.test, ro);
    else
      d.have_test = false;
  }
  return d;
}

dataset select_columns(const dataset& d, const std::vector<std::size_t>& cols,
                       bool labels) {
  auto part = d.select_columns(cols);
  if (!labels)
    part.labels().clear();
  return part;
}

double parse_number(const std::string& key, const std::string& v) {
  if (auto x = protocols::parse_finite(v))
    return *x;
  throw input_error("--set " + key + "=" + v + ": expected a number");
}

json booster_params_json(const learners::booster_params& p,
                         const learners::model& m) {
  return {{"max_depth", p.tree.max_depth},
          {"eta", p.tree.eta},
          {"lambda", p.tree.lambda},
          {"gamma", p.tree.gamma},
          {"min_child_weight", p.tree.min_child_weight},
          {"max_delta_step", p.tree.max_delta_step},
          {"max_bin", p.max_bin},
          {"threads", p.threads},
          {"num_class", p.objective == learners::objective_kind::multi_softmax
                            ? p.num_class
                            : 1},
          {"base_margin", m.base_margin},
          {"early_stopping_rounds", p.early_stopping_rounds}};
}

double checked_epsilon(const std::string& what, double epsilon) {
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    throw input_error(what + ": epsilon must be a positive number, got " +
                      std::to_string(epsilon));
  return epsilon;
}

double checked_delta(const std::string& what, double delta) {
  if (!(delta > 0 && delta < 1))
    throw input_error(what + ": delta must lie in (0, 1), got " +
                      std::to_string(delta));
  return delta;
}

std::string format_metrics(const std::map<std::string, double>& m) {
  std::ostringstream s;
  s << std::setprecision(6);
  bool first = true;
  for (auto& [k, v] : m) {
    s << (first ? "" : "  ") << k << " " << v;
    first = false;
  }
  return s.str();
}

json party_bytes_json(const protocols::session::byte_stats& b,
                      bool by_direction,
                      const std::vector<std::string>& names) {
  json by_type = json::object();
  for (std::size_t k = 0; k < b.types.size(); ++k)
    if (by_direction)
      by_type[b.types[k]] = {{"sent", b.sent[k]}, {"received", b.received[k]}};
    else
      by_type[b.types[k]] = b.sent[k] + b.received[k];
  json links = json::object();
  for (std::size_t k = 0; k < b.link_peers.size(); ++k) {
    auto q = static_cast<std::size_t>(b.link_peers[k]);
    auto to = q < names.size() ? names[q] : std::to_string(q);
    links[to] = {{"bytes_sent", b.link_bytes[k]}, {"turns", b.link_turns[k]}};
  }
  return {{"sent", b.total_sent()},
          {"received", b.total_received()},
          {"by_type", by_type},
          {"links", links},
          {"busy_seconds", b.busy_seconds}};
}

std::uint64_t federated_summary::total_bytes() const {
  std::uint64_t n = 0;
  for (const auto& b : bytes)
    n += b.total_sent();
  return n;
}

std::size_t federated_summary::total_features() const {
  std::size_t n = 0;
  for (const auto& f : features)
    n += f.size();
  return n;
}

json federated_report(const federated_summary& s, const train_options& o) {
  json per_party = json::object();
  json party_features = json::object();
  for (std::size_t q = 0; q < s.names.size(); ++q) {
    if (q < s.bytes.size())
      per_party[s.names[q]] =
          party_bytes_json(s.bytes[q], s.bytes_by_direction, s.names);
    if (q < s.features.size())
      party_features[s.names[q]] = s.features[q];
  }
  return {{"veil_version", VEIL_VERSION},
          {"protocol", s.protocol},
          {"data", s.data},
          {"objective", s.objective},
          {"rows", s.rows},
          {"test_rows", s.test_rows},
          {"features", s.total_features()},
          {"parties", s.names.size()},
          {"party_names", s.names},
          {"party_features", party_features},
          {"trees", s.trees},
          {"params", s.params},
          {"metrics", s.metrics},
          {"metrics_on", s.metrics_on.empty() ? "none" : s.metrics_on},
          {"train_seconds", s.train_seconds},
          {"predict_seconds", s.predict_seconds},
          {"timeout_seconds", o.timeout},
          {"bytes", {{"total", s.total_bytes()}, {"per_party", per_party}}},
          {"network",
           network_json(o.link, s.bytes, s.train_seconds + s.predict_seconds)},
          {"split_tables_exported", s.split_tables_exported},
          {"model_parts", s.model_parts},
          {"privacy", s.privacy},
          {"history", history_json(s.history)},
          {"early_stopping", early_stopping_json(s.early_stop)},
          {"rounds", s.rounds},
          // The model keeps its best round with early stopping, else all.
          {"best_round", s.early_stop.patience > 0
                             ? static_cast<std::size_t>(s.early_stop.best_round)
                             : s.rounds},
          {"importance", s.importance},
          {"importance_note", s.importance_note}};
}

std::string federated_note(const std::string& protocol,
                           const std::string& own) {
  return "the public part of a " + protocol +
         " federated model (its structure, leaf values and " + own +
         "); the parties keep their parts where they run (this file's "
         "name + .<party>). Predict through the parties: veil predict "
         "--model THIS --config SESSION, or --data FILE for a session that "
         "ran in one process";
}

protocols::session::model_parts parts_for(const std::string& model_out) {
  if (model_out.empty())
    return {};
  return {model_out, protocols::session::new_model_id(), {}};
}

json save_session_model(const train_options& o,
                        protocols::session::federated_model fm,
                        const protocols::session::model_parts& parts,
                        const std::string& own,
                        const std::vector<std::string>& holders,
                        const std::string& what,
                        std::vector<learners::output_file>& outputs) {
  namespace session = protocols::session;
  fm.model.federated = federated_note(fm.protocol, own);
  fm.model_id = parts.id;
  outputs.push_back({parts.path, session::federated_model_text(fm)});
  json out = json::object();
  bool on_nodes = false;
  for (const auto& h : holders) {
    bool node = std::find(parts.on_nodes.begin(), parts.on_nodes.end(), h) !=
                parts.on_nodes.end();
    out[h] = node ? "its node's store" : session::part_path(parts.path, h);
    on_nodes = on_nodes || node;
  }
  std::cerr << "veil: note: " << what << " where it runs ("
            << session::part_path(parts.path, "<party>")
            << (on_nodes ? "; on a node, in the node's --store" : "")
            << "); predict with veil predict --model " << parts.path
            << (o.config.empty() ? " --data FILE" : " --config " + o.config)
            << "\n";
  return out;
}

namespace {

/// The party that computed longest, and the sum over all.
std::pair<const protocols::session::byte_stats*, double>
busiest(const std::vector<protocols::session::byte_stats>& parties) {
  const protocols::session::byte_stats* top = nullptr;
  double sum = 0;
  for (const auto& b : parties) {
    sum += b.busy_seconds;
    if (!top || b.busy_seconds > top->busy_seconds)
      top = &b;
  }
  return {top, sum};
}

} // namespace

json network_json(const protocols::session::link_model& link,
                  const std::vector<protocols::session::byte_stats>& parties,
                  double seconds) {
  auto [top, sum] = busiest(parties);
  json j = {{"emulated", link.enabled()},
            {"compute_seconds_all_parties", sum},
            {"compute_seconds_busiest_party", top ? top->busy_seconds : 0.0},
            {"busiest_party", top ? top->party : ""}};
  if (link.enabled()) {
    j["latency_ms"] = link.latency_ms;
    j["bandwidth_mbps"] = link.bandwidth_mbps;
    j["emulated_seconds"] = seconds;
  }
  return j;
}

std::string
network_line(const protocols::session::link_model& link,
             const std::vector<protocols::session::byte_stats>& parties,
             double seconds) {
  if (!link.enabled())
    return "";
  auto [top, sum] = busiest(parties);
  std::ostringstream out;
  out << "network: links emulated at " << link.latency_ms << " ms, ";
  if (link.bandwidth_mbps > 0)
    out << link.bandwidth_mbps << " Mbps";
  else
    out << "unlimited bandwidth";
  out << std::fixed << std::setprecision(3) << ": training and prediction took "
      << seconds << " s emulated; the parties computed for " << sum
      << " s in all";
  if (top)
    out << " (the busiest, " << top->party << ", " << top->busy_seconds
        << " s)";
  return out.str();
}

json history_json(const std::vector<learners::round_info>& history) {
  json out = json::array();
  for (const auto& r : history) {
    json entry = {{"round", r.round}};
    if (!r.valid.empty())
      entry["test"] = r.valid;
    if (!r.train.empty())
      entry["train"] = r.train;
    if (entry.size() > 1)
      out.push_back(std::move(entry));
  }
  return out;
}

json early_stopping_json(const learners::early_stop_outcome& e) {
  if (e.patience <= 0)
    return {{"enabled", false}};
  return {{"enabled", true},
          {"rounds", e.patience},
          {"metric", e.metric},
          {"on", "test"},
          {"stopped", e.stopped},
          {"last_round", e.last_round},
          {"best_round", e.best_round},
          {"best_score", e.best_score}};
}

learners::model
with_column_names(learners::model m,
                  const std::vector<std::vector<std::string>>& features) {
  std::vector<std::string> names;
  for (const auto& f : features)
    names.insert(names.end(), f.begin(), f.end());
  if (names.size() == m.feature_names.size())
    m.feature_names = std::move(names);
  return m;
}

json importance_json(const std::vector<learners::feature_importance>& fs) {
  json out = json::object();
  for (const auto& f : fs)
    out[f.feature] = {{"weight", f.weight},
                      {"gain", f.gain()},
                      {"cover", f.cover()},
                      {"total_gain", f.total_gain},
                      {"total_cover", f.total_cover}};
  return out;
}

int print_plan(const std::string& protocol, const std::string& what,
               const std::string& guarantee) {
  // Some protocols' texts start as their after-training line does.
  std::string_view g = guarantee;
  if (g.starts_with("privacy: "))
    g.remove_prefix(9);
  while (g.ends_with('\n'))
    g.remove_suffix(1);
  std::cout << "plan: " << protocol << ", " << what
            << "; nothing trained\nprivacy (fixed before training): " << g
            << "\n";
  return 0;
}

std::size_t table_rows(const std::string& path, const std::string& label,
                       const std::string& id) {
  learners::read_options r;
  r.label = label;
  r.id = id;
  r.redact_values = true;
  if (!learners::is_libsvm_path(path))
    for (auto& c : learners::csv_header(path)) // no feature is parsed
      if (c != label && c != id)
        r.drop.push_back(std::move(c));
  return learners::read_table(path, r).rows();
}

int run_train(train_options o) {
  if (!o.config.empty())
    return run_config_train(o); // checks its files with the parties'
  const auto& t = o.tls;
  bool any_tls = !t.certificate.empty() || !t.key.empty() || !t.ca.empty();
  if (any_tls && !t.enabled())
    throw input_error("--tls-cert, --tls-key and --tls-ca go together (all "
                      "three PEM files)");
  if (any_tls && o.protocol != "ldp-boost")
    throw input_error("--tls-*: only for ldp-boost's owner nodes "
                      "(ldp.owner_nodes); other sessions on nodes name their "
                      "certificates in a session file's [tls] table");
  if (any_tls)
    check_files({{"--tls-cert", t.certificate},
                 {"--tls-key", t.key},
                 {"--tls-ca", t.ca}},
                {});
  // Federated parts go beside --model-out (MODEL.PARTY), checked by the
  // parties where they run.
  check_files({{"--data", o.data}, {"--test", o.test}},
              {{"--model-out", o.model_out}, {"--report", o.report}});
  auto& p = o.params;
  p.objective = learners::parse_objective(o.objective);
  p.num_class = 0; // 0 = infer from the labels unless --set num_class
  take_net_settings(o.settings, o.link);
  if (o.link.enabled() && o.protocol == "centralized")
    throw input_error("--set net.*: centralized training has no links to "
                      "emulate (use a federated --protocol)");
  if ((o.protocol == "centralized" || o.protocol == "plain") &&
      (o.epsilon > 0 || o.delta > 0))
    throw input_error("--epsilon/--delta: --protocol " + o.protocol +
                      " adds no noise, so a budget would be printed but not "
                      "spent (feverless and opboost take one)");
  if (const auto* protocol = find_federated(o.protocol))
    return protocol->train(o);
  if (o.protocol != "centralized") {
    std::string known = "centralized";
    for (const auto* d : protocols::all_protocols())
      for (const auto& n : d->names)
        if (n != "centralized")
          known += ", " + n;
    throw input_error("--protocol " + o.protocol +
                      ": not available in this build (available: " + known +
                      ")");
  }
  if (!o.categorical.empty())
    throw input_error("--categorical: only for --protocol opboost");
  for (const auto& s : o.settings)
    apply_setting(p, s);
  if (o.parties > 1)
    throw input_error("--parties " + std::to_string(o.parties) +
                      ": centralized training has one party (use --protocol "
                      "plain for a federated session)");

  auto data = load_train_data(o, p.objective);
  auto& train_set = data.train;
  auto& test_set = data.test;
  const auto& data_name = data.name;
  bool have_test = data.have_test;
  if (p.objective == learners::objective_kind::multi_softmax &&
      p.num_class == 0) {
    float top = 0;
    for (float y : train_set.labels())
      top = std::max(top, y);
    p.num_class = static_cast<int>(top) + 1;
  }
  if (p.num_class == 0)
    p.num_class = 2;
  if (o.plan)
    return print_plan("centralized", std::to_string(train_set.rows()) + " rows",
                      "none: one party trains on all the data");

  training_result result;
  {
    progress_printer progress(o.quiet, "round", "test");
    auto on_round = [&](const learners::round_info& r) {
      progress.show(static_cast<std::size_t>(r.round),
                    static_cast<std::size_t>(r.rounds), r.valid);
    };
    result = learners::train(train_set, have_test ? &test_set : nullptr, p,
                             on_round);
  }
  const dataset& eval_set = have_test ? test_set : train_set;
  auto obj = result.model.make_objective();
  auto preds = result.model.predict(eval_set, p.threads);
  auto metrics = learners::evaluate(obj, eval_set.labels(), preds);

  std::cout << "trained " << result.model.rounds() << " rounds ("
            << result.model.trees.size() << " "
            << (p.tree.oblivious ? "decision tables" : "trees") << ") on "
            << train_set.rows() << " rows x " << train_set.features()
            << " features in " << std::fixed << std::setprecision(3)
            << result.train_seconds << " s\n"
            << std::defaultfloat << (have_test ? "test" : "train") << ": "
            << format_metrics(metrics) << "\n";
  if (auto line = result.early_stop.describe("test"); !line.empty())
    std::cout << line << "\n";

  std::vector<learners::output_file> outputs;
  if (!o.model_out.empty())
    outputs.push_back(
        {o.model_out, learners::to_json(result.model).dump(1) + "\n"});
  if (!o.report.empty()) {
    json report = {
        {"veil_version", VEIL_VERSION},
        {"protocol", o.protocol},
        {"data", data_name},
        {"objective", learners::to_string(p.objective)},
        {"rows", train_set.rows()},
        {"test_rows", have_test ? test_set.rows() : 0},
        {"features", train_set.features()},
        {"parties", 1},
        {"weak_learner", result.model.weak_learner},
        {"trees", result.model.trees.size()},
        {"rounds", result.model.rounds()},
        {"best_round", result.best_round},
        {"params", booster_params_json(p, result.model)},
        {"metrics", metrics},
        {"metrics_on", have_test ? "test" : "train"},
        {"bin_seconds", result.bin_seconds},
        {"train_seconds", result.train_seconds},
        {"privacy", {{"mechanism", "none"}}},
        {"history", history_json(result.history)},
        {"early_stopping", early_stopping_json(result.early_stop)},
        {"importance", importance_json(learners::importance(result.model))}};
    outputs.push_back({o.report, report.dump(2) + "\n"});
  }
  learners::write_files_atomically(outputs); // together, after success
  return 0;
}

} // namespace veil::apps
