// `veil train --protocol plain`: one table's columns dealt out in order to
// N parties that run in this process as actors and train plaintext
// vertical federated XGBoost; the report adds the parties and the bytes
// they exchanged.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "actors/live_session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/progress.hpp"
#include "apps/veil/protocols.hpp"
#include "apps/veil/settings.hpp"
#include "learners/boost/importance.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"
#include "messages/plain.hpp"
#include "protocols/masked/settings.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::apps {

using nlohmann::json;
namespace session = protocols::session;
using plain_session = actors::live_session<actors::plain_protocol>;

namespace {

/// The feature columns of `path`, in file order: every column but the label
/// and the id.
std::vector<std::string> feature_columns(const std::string& path,
                                         const std::string& label,
                                         const std::string& id) {
  if (is_libsvm_path(path)) { // no header: the reader names the columns
    learners::read_options ro;
    ro.label = label;
    return learners::read_table(path, ro).feature_names();
  }
  auto names = csv_header(path);
  for (const auto& [name, what] : {std::pair{label, "label"}, {id, "id"}})
    if (!name.empty() &&
        std::find(names.begin(), names.end(), name) == names.end())
      throw input_error(path + ": the " + what + " column \"" + name +
                        "\" is not in the header");
  std::erase_if(names, [&](const std::string& n) {
    return n == label || (!id.empty() && n == id);
  });
  return names;
}

/// A scratch folder for the built-in data, removed on destruction.
struct scratch_dir {
  std::filesystem::path dir;
  scratch_dir() {
    static int counter = 0;
    auto base = std::filesystem::temp_directory_path();
    do
      dir = base / ("veil-train-" + std::to_string(::getpid()) + "-" +
                    std::to_string(counter++));
    while (!std::filesystem::create_directory(dir));
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

} // namespace

int run_plain_train(const train_options& o) {
  auto p = o.params;
  for (const auto& s : o.settings)
    apply_setting(p, s);
  return run_vertical_train(o, p, {});
}

int run_vertical_train(const train_options& o, learners::booster_params p,
                       const vertical_exchange& ex) {
  if (!o.categorical.empty())
    throw input_error("--categorical: only for --protocol opboost");
  // MaskedXGBoost and its baselines: the paper's 2 parties and partition.
  bool paper_partition = ex.kind != protocols::plain::exchange::histograms;
  int n = o.parties == 0 ? (paper_partition ? 2 : 3) : o.parties;
  if (n < 2)
    throw input_error("--parties " + std::to_string(n) + ": the " + ex.name() +
                      " protocol needs at least 2 parties (the "
                      "active party with the label and at least one passive "
                      "party); for one party use --protocol centralized");
  if (p.early_stopping_rounds > 0 && !o.data.empty() && o.test.empty())
    throw input_error("--set early_stopping_rounds: it watches the test "
                      "rows; give them with --test");
  auto timeout = checked_timeout(o.timeout, "--timeout");

  // Data files: the given ones, or the built-in data written to a scratch
  // folder (every party reads its own columns from the files).
  std::optional<scratch_dir> scratch;
  std::string train_path = o.data, test_path = o.test, label = o.label;
  std::string data_name = o.data;
  if (o.data.empty()) {
    auto [train_set, test_set] = builtin_data(o, p.objective);
    if (p.objective == learners::objective_kind::multi_softmax &&
        p.num_class == 0) {
      float top = 0;
      for (float y : train_set.labels())
        top = std::max(top, y);
      p.num_class = static_cast<int>(top) + 1;
    }
    scratch.emplace();
    train_path = (scratch->dir / "train.csv").string();
    test_path = (scratch->dir / "test.csv").string();
    label = "label";
    learners::write_csv(train_set, train_path, label);
    learners::write_csv(test_set, test_path, label);
    data_name = "synthetic:" + o.synthetic;
  }
  if (p.objective == learners::objective_kind::multi_softmax &&
      p.num_class == 0)
    throw input_error("multi:softmax with --protocol plain needs the number "
                      "of classes: --set num_class=K");
  if (p.num_class == 0)
    p.num_class = 2;

  // Deal the feature columns out in order: party q gets a contiguous block,
  // the first m % n parties one column more, so that global feature order
  // (party 0's columns, then party 1's, ...) is the file's.
  auto columns = feature_columns(train_path, label, o.id);
  auto m = columns.size();
  if (static_cast<std::size_t>(n) > m)
    throw input_error("--parties " + std::to_string(n) + ": " + train_path +
                      " has only " + std::to_string(m) +
                      " feature columns; each party needs at least one");
  actors::session_config cfg;
  cfg.params = p;
  cfg.exchange = ex.kind;
  cfg.masking = ex.masking;
  cfg.timeout = timeout;
  cfg.link = o.link;
  cfg.parts = parts_for(o.model_out);
  bool have_test = !test_path.empty();
  cfg.eval = have_test ? actors::evaluation::test : actors::evaluation::train;
  // MaskedXGBoost's partition (spec §7.1): the active party the first
  // half of the columns, the passive parties the rest, dealt evenly.
  auto first = paper_partition ? protocols::masked::active_columns(m) : 0;
  auto rest = m - first;
  auto dealt = static_cast<std::size_t>(paper_partition ? n - 1 : n);
  if (paper_partition && rest < dealt)
    throw input_error("--parties " + std::to_string(n) + ": " + train_path +
                      " has " + std::to_string(m) +
                      " feature columns; the passive parties share half of "
                      "them, one at least each");
  std::size_t next = 0;
  for (int q = 0; q < n; ++q) {
    auto slot = static_cast<std::size_t>(paper_partition ? q - 1 : q);
    auto width = paper_partition && q == 0
                     ? first
                     : rest / dealt + (slot < rest % dealt ? 1 : 0);
    actors::party_spec spec;
    spec.name = "party" + std::to_string(q);
    spec.data.path = train_path;
    spec.data.id_column = o.id;
    spec.data.label_column = q == 0 ? label : "";
    spec.data.feature_columns.assign(columns.begin() + next,
                                     columns.begin() + next + width);
    spec.test_path = test_path;
    next += width;
    cfg.parties.push_back(std::move(spec));
  }

  if (o.plan)
    return plan_vertical(cfg);
  actors::session_outcome out;
  {
    progress_printer progress(o.quiet, "tree");
    out = plain_session::run(cfg, {}, {}, progress.callback());
  }
  return report_federated(out, cfg, o, data_name, have_test,
                          std::to_string(n) + " parties in this process");
}

/// What a vertical session's settings fix before training, at `rows`
/// rows with parties of `widths` features (the active party first); none
/// for plain histograms.
std::optional<protocols::masked::guarantee>
vertical_guarantee(const actors::session_config& cfg, std::uint64_t rows,
                   const std::vector<std::size_t>& widths) {
  if (cfg.exchange == protocols::plain::exchange::histograms || widths.empty())
    return std::nullopt;
  std::uint64_t widest = 0;
  for (std::size_t q = 1; q < widths.size(); ++q)
    widest = std::max<std::uint64_t>(widest, widths[q]);
  return protocols::masked::fix_guarantee(
      protocols::masked::method_named(
          vertical_exchange{cfg.exchange, cfg.masking}.name()),
      cfg.masking, cfg.params, rows, static_cast<int>(widths.size()) - 1,
      widest);
}

int plan_vertical(const actors::session_config& cfg) {
  const auto name = vertical_exchange{cfg.exchange, cfg.masking}.name();
  if (cfg.exchange == protocols::plain::exchange::histograms)
    return print_plan(name, std::to_string(cfg.parties.size()) + " parties",
                      "none: plaintext gradients and histograms are "
                      "exchanged");
  auto shape = plan_shape(cfg.parties);
  // The active party (the label's) comes first, as the session orders them.
  std::vector<std::size_t> widths;
  for (std::size_t q = 0; q < cfg.parties.size(); ++q)
    if (!cfg.parties[q].data.label_column.empty())
      widths.insert(widths.begin(), shape.features[q].size());
    else
      widths.push_back(shape.features[q].size());
  auto g = vertical_guarantee(cfg, shape.rows, widths);
  return print_plan(name, shape.describe(),
                    g ? protocols::masked::privacy_text(*g) : "none");
}

int report_federated(const actors::session_outcome& out,
                     const actors::session_config& cfg, const train_options& o,
                     const std::string& data_name, bool have_test,
                     const std::string& where) {
  const auto& p = cfg.params;
  if (!out.ok())
    return session_failure(out);
  const auto& r = *out.result;
  auto protocol = vertical_exchange{cfg.exchange, cfg.masking}.name();
  std::vector<std::size_t> widths;
  for (std::size_t q = 0; q < r.features.size() && q < r.names.size(); ++q)
    widths.push_back(r.features[q].size());
  auto guarantee = vertical_guarantee(cfg, r.rows, widths);
  if (guarantee) {
    // What the active party applied is what the session states: it must be
    // what the settings fix (a party of another build could differ).
    protocols::masked::applied a;
    if (!r.report.empty() && messages::unpack(r.report, a)) {
      auto& release = guarantee->method == protocols::masked::method::masked
                          ? guarantee->fixed.release
                          : guarantee->ldp.budget;
      if (a.epsilon0 != release.epsilon || a.delta0 != release.delta ||
          a.divided_over != release.releases)
        std::cerr << "veil: warning: the active party applied (epsilon "
                  << a.epsilon0 << ", delta " << a.delta0
                  << ") per release, the settings fix (" << release.epsilon
                  << ", " << release.delta
                  << "): the report states what it applied\n";
      release.epsilon = a.epsilon0;
      release.delta = a.delta0;
      release.releases = a.divided_over;
      if (guarantee->method == protocols::masked::method::masked)
        guarantee->fixed.rho = a.rho;
      else
        guarantee->ldp.stddev = a.noise_stddev;
    }
  }
  federated_summary sum;
  sum.protocol = protocol;
  sum.data = data_name;
  sum.objective = learners::to_string(p.objective);
  sum.rows = r.rows;
  sum.test_rows = have_test ? r.test_rows : 0;
  sum.names = r.names;
  sum.features = r.features;
  sum.bytes = r.bytes;
  sum.bytes_by_direction = false;
  sum.trees = r.model.trees.size();
  sum.rounds = r.model.rounds();
  sum.metrics = session::metrics_of(r.metric_names, r.metric_values);
  sum.metrics_on = r.metrics_on;
  sum.train_seconds = r.train_seconds;
  sum.predict_seconds = r.predict_seconds;
  sum.history = session::from_wire(r.history, p.rounds);
  sum.early_stop = r.early_stop;
  // Where the passive parties score their own candidates (MaskedXGBoost
  // and its LDP baselines) their splits name the party only.
  sum.importance = importance_json(
      learners::importance(with_column_names(r.model, r.features)));
  sum.importance_note =
      protocols::plain::passives_score(cfg.exchange)
          ? "the active party's features by name; each passive party's "
            "splits under partyK:hidden (its feature stays with it)"
          : "every party's features: the active party knows which feature "
            "each split uses";
  std::cout << "trained " << r.model.rounds() << " rounds (" << sum.trees << " "
            << (p.tree.oblivious ? "decision tables" : "trees") << ") on "
            << r.rows << " rows x " << sum.total_features() << " features in "
            << std::fixed << std::setprecision(3) << r.train_seconds << " s ("
            << protocol << " protocol, " << where << ", "
            << human_bytes(sum.total_bytes()) << " exchanged)\n"
            << std::defaultfloat << r.metrics_on << ": "
            << format_metrics(sum.metrics) << "\n";
  if (auto line = r.early_stop.describe("test"); !line.empty())
    std::cout << line << "\n";
  if (guarantee)
    std::cout << protocols::masked::privacy_text(*guarantee) << "\n";
  if (auto line =
          network_line(o.link, r.bytes, r.train_seconds + r.predict_seconds);
      !line.empty())
    std::cout << line << "\n";

  // Each passive party kept its split table where it runs (cfg.parts):
  // this process writes the public model and the session's plan only.
  std::vector<learners::output_file> outputs; // committed together
  if (!cfg.parts.empty()) {
    session::federated_model fm;
    fm.model = r.model;
    fm.protocol = protocol;
    fm.parties = r.names;
    fm.features = r.features;
    for (const auto& s : cfg.parties)
      if (!s.data.label_column.empty()) {
        fm.label_column = s.data.label_column;
        fm.id_column = s.data.id_column;
      }
    sum.model_parts = save_session_model(
        o, std::move(fm), cfg.parts, "the active party's splits",
        std::vector<std::string>(r.names.begin() + 1, r.names.end()),
        "each passive party keeps its split table", outputs);
  }
  if (!o.report.empty()) {
    // Whose split tables reached this process (--model-out only).
    for (const auto& e : r.splits)
      if (!e.party.empty())
        sum.split_tables_exported.push_back(e.party);
    sum.params = booster_params_json(p, r.model);
    sum.privacy = guarantee
                      ? protocols::masked::privacy_json(*guarantee)
                      : json{{"mechanism", "none"},
                             {"note", "plaintext gradients and histograms "
                                      "are exchanged"}};
    auto report = federated_report(sum, o);
    report["weak_learner"] = r.model.weak_learner;
    report["bin_seconds"] = r.bin_seconds;
    report["load_seconds"] = r.load_seconds;
    outputs.push_back({o.report, report.dump(2) + "\n"});
  }
  learners::write_files_atomically(outputs); // together, after success
  return 0;
}

void plain_prediction(protocols::session::session_result& r,
                      const learners::model&, federated_prediction& got) {
  got.margins = std::move(r.margins);
  got.ids = std::move(r.ids);
  got.metrics = session::metrics_of(r.metric_names, r.metric_values);
  got.names = std::move(r.names);
  got.bytes = std::move(r.bytes);
  got.seconds = r.predict_seconds;
}

int predict_plain(const prediction_plan& plan, const predict_options& o,
                  const protocols::session::federated_model& fm,
                  federated_prediction& got) {
  auto cfg = prediction_config<actors::session_config>(plan, o, fm);
  cfg.params.objective = fm.model.objective;
  cfg.params.num_class = std::max(2, fm.model.num_class);
  cfg.params.threads = o.threads;
  cfg.eval = actors::evaluation::test;
  auto out = plain_session::run(cfg, plan.tls);
  if (!out.ok())
    return session_failure(out);
  plain_prediction(*out.result, fm.model, got);
  return 0;
}

} // namespace veil::apps
