// `veil train --protocol privet`: Privet (spec privet §5) on one table
// dealt to --parties computing parties in this process (contiguous column
// blocks, the labels with party0) and the dealer, every party an actor
// (actors/privet_party.cpp): training on additive shares, each level's
// feature opened, the thresholds kept by their owners, the leaves shared;
// the evaluation rows predicted by SecInfer with the scores opened to
// party0 only. Prints the metrics, the online and the dealer's bytes apart,
// what is opened; --report adds the tables' public features.
//
// `veil train --protocol privet-plain`: Privet's plaintext reference (spec
// privet §3.4) on one party, reported as centralized training is: the
// tables as a Veil model (weak_learner "decision_table"), the metrics,
// --model-out and --report.
//
// Regression targets are standardised by the label holder (spec §8.2) in
// both, and predictions mapped back.
#include <chrono>
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "actors/alignment.hpp"
#include "actors/privet_session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/kept_session.hpp"
#include "apps/veil/progress.hpp"
#include "apps/veil/protocols.hpp"
#include "apps/veil/session_config.hpp"
#include "apps/veil/settings.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"
#include "learners/metrics/metrics.hpp"
#include "learners/table/decision_tables.hpp"
#include "protocols/privet/deal.hpp"
#include "protocols/privet/settings.hpp"
#include "protocols/privet/train.hpp"

namespace veil::apps {

namespace {

using nlohmann::json;
namespace pv = protocols::privet;

/// The tables' settings: the paper's defaults (10 tables of depth 3,
/// lambda 1, eta 1; pv::params) unless the flags or lambda/eta say
/// otherwise, and the privet.* settings (protocols/privet/settings.hpp);
/// every other learner setting refused. `secure`: for `privet`.
pv::named_settings privet_settings_of(const train_options& o,
                                      learners::table_task task, bool secure) {
  pv::named_settings named;
  auto& p = named.params;
  p.task = task;
  const learners::booster_params generic;
  if (o.params.rounds != generic.rounds)
    p.tables = o.params.rounds;
  if (o.params.tree.max_depth != generic.tree.max_depth)
    p.depth = o.params.tree.max_depth;
  learners::booster_params learner;
  for (const auto& s : o.settings) {
    auto eq = s.find('=');
    auto key = s.substr(0, eq);
    auto value = eq == std::string::npos ? std::string() : s.substr(eq + 1);
    if (pv::apply_setting(named, key, value, "--set " + s, secure))
      continue;
    if (key != "lambda" && key != "eta" && key != "reg_lambda" &&
        key != "learning_rate")
      throw input_error("--set " + s + ": " + o.protocol +
                        " takes --trees, --depth, lambda, eta and the "
                        "privet.* settings");
    apply_setting(learner, s);
  }
  if (learner.tree.lambda != generic.tree.lambda)
    p.lambda = learner.tree.lambda;
  if (learner.tree.eta != generic.tree.eta)
    p.eta = learner.tree.eta;
  return named;
}

/// The objective as a table task; refuses multi-class.
learners::table_task task_of(const train_options& o,
                             learners::objective_kind kind) {
  if (kind == learners::objective_kind::multi_softmax)
    throw input_error("--objective " + o.objective + ": " + o.protocol +
                      " trains binary:logistic or reg:squarederror");
  return kind == learners::objective_kind::binary_logistic
             ? learners::table_task::binary
             : learners::table_task::regression;
}

void refuse_noise_flags(const train_options& o) {
  if (o.epsilon > 0 || o.delta > 0)
    throw input_error("--epsilon/--delta: " + o.protocol +
                      " adds no noise (its protection is secret sharing)");
  if (!o.categorical.empty())
    throw input_error("--categorical: only for --protocol opboost");
}

/// Standardises a regression training set's labels (the label holder's
/// map) and declares its gradient bound; classification stays as it is.
pv::label_map prepare_labels(learners::dataset& train, pv::params& p) {
  if (p.task != learners::table_task::regression)
    return {};
  auto m = pv::standardize_labels(train);
  p.gradient_bound = pv::regression_gradient_bound(train);
  return m;
}

int run_privet_plain(const train_options& o) {
  if (o.parties > 1)
    throw input_error("--parties " + std::to_string(o.parties) +
                      ": privet-plain trains on one party");
  refuse_noise_flags(o);
  if (o.link.enabled())
    throw input_error("--set net.*: privet-plain has no links to emulate");
  auto kind = learners::parse_objective(o.objective);
  auto named = privet_settings_of(o, task_of(o, kind), false);
  auto& p = named.params;
  const bool approximate = named.approximate;
  auto data = load_train_data(o, kind);
  if (o.plan)
    return print_plan("privet-plain",
                      std::to_string(data.train.rows()) + " rows",
                      "none: one party trains on all the data");
  auto train_set = data.train;
  auto labels = prepare_labels(train_set, p);
  auto t = approximate ? pv::approximation_aware(p, train_set.rows())
                       : pv::exact_reference(p);
  auto start = std::chrono::steady_clock::now();
  auto tables = learners::train_tables(train_set, t);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  auto model = learners::to_model(tables, p.task, train_set.feature_names());
  // Back to the targets' unit: the leaves times sd, the mean as base.
  for (auto& tree : model.trees)
    for (auto& n : tree.nodes)
      if (n.is_leaf())
        n.value = static_cast<float>(n.value * labels.sd);
  model.base_margin = {labels.mean};
  const auto& eval_set = data.have_test ? data.test : data.train;
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

/// Bytes of the online phase (the computing parties' rounds) and of the
/// dealer (its seeds and corrections, and the asks it got).
struct privet_bytes {
  std::uint64_t online = 0, dealer = 0;
};

privet_bytes bytes_of(const std::vector<protocols::session::byte_stats>& b) {
  privet_bytes out;
  if (b.empty())
    return out;
  for (std::size_t c = 0; c + 1 < b.size(); ++c)
    for (std::size_t k = 0; k < b[c].types.size(); ++k)
      if (b[c].types[k] == "round_words")
        out.online += b[c].sent[k];
  out.dealer = b.back().total_sent() + b.back().total_received();
  return out;
}

/// What is opened to whom, in words.
std::string privacy_line(const pv::params& p, int computing) {
  return "additive secret sharing over Z_2^64 among " +
         std::to_string(computing) +
         " parties (semi-honest; the dealer honest and colluding with no "
         "party); opened to all: each level's feature" +
         (p.hide_buckets
              ? std::string(" (each threshold stays with its owner)")
              : std::string(" and every feature's best bucket (outside the "
                            "paper's own ideal functionality; --set "
                            "privet.hide_buckets=true keeps them shared)")) +
         "; the leaves stay shared; predictions to party0 only";
}

/// A Privet session ready to run: the parties given their data (the
/// label holder first) and what the report needs of the data.
struct privet_run {
  pv::named_settings named;
  pv::dealt_table dealt;
  pv::label_map labels;
  learners::objective_kind kind = learners::objective_kind::binary_logistic;
  std::string data_name;
  /// The evaluation rows' labels (the test rows', or the training rows').
  std::vector<float> eval_labels;
  bool have_test = false;
  std::size_t rows = 0;
};

int run_privet_session(privet_run run, const train_options& o);

int run_privet_secure(const train_options& o) {
  int n = o.parties == 0 ? 3 : o.parties;
  if (n < 2 || n > 256)
    throw input_error("--parties " + std::to_string(n) +
                      ": --protocol privet needs 2 to 256 computing parties "
                      "(the dealer comes besides)");
  refuse_noise_flags(o);
  privet_run run;
  run.kind = learners::parse_objective(o.objective);
  run.named = privet_settings_of(o, task_of(o, run.kind), true);
  auto data = load_train_data(o, run.kind);
  auto train_set = data.train;
  run.labels = prepare_labels(train_set, run.named.params);
  const auto& eval_set = data.have_test ? data.test : data.train;
  run.dealt = pv::deal_table(train_set, eval_set, n);
  run.data_name = data.name;
  run.eval_labels = eval_set.labels();
  run.have_test = data.have_test;
  run.rows = train_set.rows();
  return run_privet_session(std::move(run), o);
}

int run_privet_session(privet_run run, const train_options& o) {
  if (!o.model_out.empty())
    throw input_error("--model-out: Privet's parties keep no model part "
                      "files yet (the leaf values stay secret-shared at the "
                      "parties); --report holds the public structure, and "
                      "--protocol privet-plain writes the reference model");
  auto timeout = checked_timeout(o.timeout, "--timeout");
  auto& p = run.named.params;
  const bool dealer_ahead = run.named.dealer_ahead;
  const auto kind = run.kind;
  const auto& labels = run.labels;
  // Refuse a ring the rows would overflow before any party starts.
  pv::division_scale(p, run.rows);
  auto& dealt = run.dealt;
  int n = static_cast<int>(dealt.parties.size()) - 1;
  actors::privet_config cfg;
  cfg.params = p;
  cfg.map = dealt.map;
  cfg.parties = std::move(dealt.parties);
  cfg.dealer_ahead = dealer_ahead;
  cfg.timeout = timeout;
  cfg.link = o.link;
  if (o.plan)
    return print_plan("privet",
                      std::to_string(n) +
                          " computing parties and the "
                          "dealer, " +
                          std::to_string(run.rows) + " rows",
                      privacy_line(p, n));
  // A kept session's predictions: the scores opened to party0, mapped back
  // to the targets' unit, scored against the evaluation labels here.
  auto converted = [labels, kind, eval = run.eval_labels](
                       actors::privet_result& r, const learners::model& model,
                       federated_prediction& got) {
    // Scored below against the evaluation labels, in the targets' unit.
    take_prediction(r, r.parties, false, model, got);
    for (auto& m : got.margins)
      m = labels.to_target(m);
    learners::objective obj(kind);
    got.metrics =
        learners::evaluate(obj, eval, obj.transform(got.margins, eval.size()));
  };
  learners::model shape; // the scores' objective (the tables stay shared)
  shape.objective = kind;
  actors::privet_outcome out;
  {
    progress_printer progress(o.quiet, "table");
    out = train_session<actors::privet_protocol>(
        std::move(cfg), {}, progress.callback(), o, converted, &shape);
  }
  if (!out.ok())
    return session_failure(out);
  const auto& r = *out.result;
  auto margins = r.margins;
  for (auto& m : margins)
    m = labels.to_target(m);
  auto sum = summary_of(r, r.parties);
  sum.protocol = "privet";
  sum.data = run.data_name;
  sum.objective = learners::to_string(kind);
  sum.trees = r.tables.size();
  sum.rounds = r.tables.size();
  sum.metrics_on = run.have_test ? "test" : "train";
  sum.test_rows = run.have_test ? margins.size() : 0;
  learners::objective obj(kind);
  sum.metrics = learners::evaluate(
      obj, run.eval_labels, obj.transform(margins, run.eval_labels.size()));
  auto bytes = bytes_of(sum.bytes);
  // The public structure: each table's feature per level, by name.
  std::vector<std::string> names;
  for (const auto& f : r.features)
    names.insert(names.end(), f.begin(), f.end());
  json tables = json::array();
  for (const auto& t : r.tables) {
    json levels = json::array();
    for (auto f : t)
      levels.push_back(f >= 0 && static_cast<std::size_t>(f) < names.size()
                           ? json(names[static_cast<std::size_t>(f)])
                           : json(f));
    tables.push_back(levels);
  }
  std::cout << "trained " << r.tables.size() << " decision tables of depth "
            << p.depth << " (" << p.buckets << " buckets) on " << r.rows
            << " rows x " << sum.total_features() << " features in "
            << std::fixed << std::setprecision(3) << r.train_seconds
            << " s (privet, " << n
            << " computing parties and the dealer in this process; "
            << (dealer_ahead ? "offline " : "dealer on demand, ")
            << r.offline_seconds << " s; online " << human_bytes(bytes.online)
            << " in " << r.rounds << " rounds, dealer "
            << human_bytes(bytes.dealer) << ")\n"
            << std::defaultfloat;
  if (auto line =
          network_line(o.link, sum.bytes, r.train_seconds + r.predict_seconds);
      !line.empty())
    std::cout << line << "\n";
  std::cout << sum.metrics_on << " (SecInfer, scores opened to party0): "
            << format_metrics(sum.metrics) << "\n"
            << "privacy: " << privacy_line(p, n) << "\n";
  if (p.paper_sigmoid)
    std::cerr << "veil: warning: privet.sigmoid=paper is the paper's limit "
                 "exponential, which does not train (spec §4.10)\n";
  if (p.truncation == protocols::mpc::truncation::paper)
    std::cerr << "veil: warning: privet.truncation=paper fails with "
                 "probability about |x|/2^64 per value (spec §4.5)\n";
  if (!o.report.empty()) {
    sum.params = {
        {"tables", p.tables},
        {"depth", p.depth},
        {"buckets", p.buckets},
        {"lambda", p.lambda},
        {"eta", p.eta},
        {"hide_buckets", p.hide_buckets},
        {"sigmoid", p.paper_sigmoid ? "paper" : "robust"},
        {"truncation", p.truncation == protocols::mpc::truncation::paper
                           ? "paper"
                           : "exact"}};
    sum.privacy = {{"mechanism", "secret sharing"},
                   {"opened", privacy_line(p, n)}};
    sum.importance_note = "none: the coordinator sees only each level's "
                          "feature (the report's tables)";
    auto report = federated_report(sum, o);
    report["weak_learner"] = "decision_table";
    report["tables"] = tables;
    report["online_rounds"] = r.rounds;
    report["offline_seconds"] = r.offline_seconds;
    report["dealer"] = dealer_ahead ? "ahead" : "on_demand";
    report["online_bytes"] = bytes.online;
    report["dealer_bytes"] = bytes.dealer;
    learners::write_files_atomically({{o.report, report.dump(2) + "\n"}});
  }
  return 0;
}

} // namespace

int run_privet_train(const train_options& o) {
  return o.protocol == "privet-plain" ? run_privet_plain(o)
                                      : run_privet_secure(o);
}

int run_privet_config(const session_config& c, const train_options& o) {
  auto context = c.source + ": ";
  if (c.protocol == "privet-plain")
    throw input_error(context + "privet-plain trains on one party: veil train "
                                "--protocol privet-plain --data FILE");
  // The settings as veil train's flags give them: [learner]'s trees and
  // depth in the booster, the rest as --set.
  train_options flags = o;
  flags.protocol = "privet";
  flags.objective = learners::to_string(c.params.objective);
  flags.params = c.params;
  flags.settings.clear();
  for (const auto& [k, v] : c.protocol_params)
    flags.settings.push_back(k + "=" + v);
  for (const auto& [k, v] : c.learner_keys) {
    if (k == "lambda" || k == "reg_lambda" || k == "eta" ||
        k == "learning_rate")
      flags.settings.push_back(k + "=" + v);
    else if (k != "trees" && k != "num_boost_round" && k != "depth" &&
             k != "max_depth" && k != "objective")
      // A file shared by several protocols (veil repl's): said, not used.
      std::cerr << "veil: note: " << c.source << ": [learner] " << k
                << " does not apply to Privet's decision tables (they take "
                   "trees, depth, lambda and eta): not used\n";
  }
  privet_run run;
  run.kind = c.params.objective;
  try {
    run.named = privet_settings_of(flags, task_of(flags, run.kind), true);
  } catch (const input_error& e) {
    throw input_error(context + e.what());
  }
  // Every party here, given its columns at spawn: the label holder first
  // (party 0 of the protocol), the others in the file's order.
  std::vector<const party_config*> order = {&c.parties[c.active_party()]};
  for (const auto& q : c.parties)
    if (&q != order.front())
      order.push_back(&q);
  std::vector<learners::dataset> train, test;
  std::vector<std::string> names;
  for (const auto* q : order) {
    if (!q->is_local())
      throw input_error(context + "party " + q->name + " at " + q->location +
                        ": Privet's parties run in this process (each is "
                        "given its columns at spawn); keep every party local");
    if (q->name == pv::dealer_name)
      throw input_error(context + "party \"" + q->name +
                        "\": the name of Privet's dealer; choose another");
    learners::read_options r;
    r.label = q->label;
    r.id = q->id;
    r.columns = q->features;
    r.redact_values = true;
    train.push_back(learners::read_table(q->data, r));
    if (!q->test.empty())
      test.push_back(learners::read_table(q->test, r));
    names.push_back(q->name);
  }
  // Rows line up as a session's parties align them: by id, or by position.
  auto align = [&](std::vector<learners::dataset>& sets, const char* what) {
    std::vector<protocols::session::data_summary> summaries;
    for (const auto& d : sets) {
      protocols::session::data_summary sum;
      sum.rows = d.rows();
      sum.ids = d.ids();
      summaries.push_back(std::move(sum));
    }
    actors::row_orders orders;
    if (auto e = actors::align_rows(names, summaries, !order[0]->id.empty(),
                                    what, orders);
        !e.empty())
      throw input_error(context + e);
    for (std::size_t q = 0; q < orders.size() && q < sets.size(); ++q)
      if (!orders[q].empty())
        if (auto e = actors::apply_order(sets[q], orders[q]); !e.empty())
          throw input_error(context + e);
  };
  align(train, "training");
  run.have_test = !test.empty();
  if (run.have_test)
    align(test, "test");
  auto& evaluated = run.have_test ? test : train;
  if (!evaluated[0].has_labels())
    throw input_error(context + "party " + names[0] + "'s " +
                      (run.have_test ? "test" : "training") +
                      " rows have no label column " + order[0]->label);
  run.eval_labels = evaluated[0].labels();
  run.labels = prepare_labels(train[0], run.named.params);
  run.rows = train[0].rows();
  run.data_name = c.source;
  for (std::size_t q = 0; q < train.size(); ++q) {
    for (std::size_t f = 0; f < train[q].features(); ++f) {
      run.dealt.map.owner.push_back(static_cast<int>(q));
      run.dealt.map.local.push_back(f);
    }
    pv::party_data d{names[q], std::move(train[q]), {}};
    // The rows to predict: the test rows, or the training rows.
    d.eval = run.have_test ? std::move(test[q]) : d.features;
    d.eval.labels().clear();
    run.dealt.parties.push_back(std::move(d));
  }
  run.dealt.parties.push_back({pv::dealer_name, {}, {}});
  return run_privet_session(std::move(run), o);
}

int predict_privet(const prediction_plan&, const predict_options&,
                   const protocols::session::federated_model&,
                   federated_prediction&) {
  throw input_error("Privet writes no model file to predict from yet");
}

} // namespace veil::apps
