// `veil repl`: build a session by hand (a table, its parties and columns,
// a protocol and its settings), train it with live progress (Ctrl-C ends
// the session on every party and leaves the REPL usable), look at what it
// gave, compare protocols, and save the session as the TOML file that
// `veil train --config` reads. Line editing, history and completion come
// from libedit. With -f FILE, or a standard input that is not a terminal,
// every command is echoed and the first error ends the run with exit 1:
// a script is a reproducible experiment.
//
// Training writes the session to a file in a private working folder and
// runs it as `veil train --config` does (the same checks, the same
// report); the report and the model it leaves there answer evaluate,
// bytes, importance, trees, privacy, predict and export.

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include <unistd.h>

#include <editline/readline.h>
#include <nlohmann/json.hpp>

#include "actors/session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/kept_session.hpp"
#include "apps/veil/protocols.hpp"
#include "apps/veil/session_config.hpp"
#include "apps/veil/settings.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"
#include "protocols/descriptor.hpp"

namespace veil::apps {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct command_help {
  const char* name;
  const char* usage;
  const char* what;
};

const std::vector<command_help>& commands() {
  static const std::vector<command_help> c = {
      {"help", "help [COMMAND]", "list the commands, or say what one does"},
      {"load", "load FILE [test FILE]",
       "the table the parties' columns come from (CSV, label column named "
       "by `label`), and its test rows"},
      {"label", "label NAME", "the label column's name (default label)"},
      {"deal", "deal N",
       "N parties in this process, party1..partyN, the table's features "
       "dealt in contiguous blocks, the label with party1"},
      {"party", "party NAME COLUMN,... [label] [at HOST:PORT] [data FILE]",
       "add or replace a party holding these columns (with the label if "
       "`label` is said), in this process or on a veil node (there FILE is "
       "the name the node serves its data under)"},
      {"drop", "drop NAME", "remove a party"},
      {"parties", "parties", "list the parties and their columns"},
      {"protocol", "protocol NAME", "the protocol to train with"},
      {"set", "set KEY=VALUE",
       "a learner setting (trees=10, max_depth=3, ...), a net.* setting or "
       "one of the protocol's settings (veil help PROTOCOL)"},
      {"show", "show", "the session as the TOML veil train --config reads"},
      {"save", "save FILE", "write the session file"},
      {"open", "open FILE", "read a session file (replaces this session)"},
      {"privacy", "privacy",
       "the guarantee the protocol and settings fix before training (as veil "
       "train --plan prints it), and the last training's"},
      {"train", "train",
       "train the session (live progress; Ctrl-C ends it on every party)"},
      {"evaluate", "evaluate", "the last training's metrics"},
      {"bytes", "bytes", "what each party sent and received"},
      {"importance", "importance", "the features' importance (gain)"},
      {"trees", "trees [N|all]", "print the trained trees (default 1)"},
      {"predict", "predict OUT.csv",
       "predict the parties' test rows federated, through the trained "
       "session's parties (alive since train; each answers for its own "
       "splits), and write the predictions"},
      {"export", "export FILE [xgboost]",
       "copy the model file (or write it as XGBoost JSON)"},
      {"compare", "compare --protocols P,... [--epsilons E,...] [--repeats N]",
       "veil compare with the same flags (--out defaults to compare): each "
       "federated protocol on the parties as typed, centralized on the "
       "loaded table"},
      {"quit", "quit", "leave (also exit, or Ctrl-D)"},
  };
  return c;
}

/// The words of a line (spaces separate; no quoting).
std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string w;
  while (in >> w)
    out.push_back(w);
  return out;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == ',') {
      if (!cur.empty())
        out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty())
    out.push_back(cur);
  return out;
}

/// A TOML string.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\')
      out += '\\';
    out += ch;
  }
  return out + "\"";
}

/// A value typed after KEY=: numbers and booleans as they are, anything
/// else a string.
std::string toml_value(const std::string& v) {
  if (v == "true" || v == "false")
    return v;
  char* end = nullptr;
  std::strtod(v.c_str(), &end);
  if (!v.empty() && end == v.c_str() + v.size())
    return v;
  return quoted(v);
}

struct repl_party {
  std::string name;
  std::vector<std::string> columns;
  bool label = false;
  std::string location = "local";
  std::string data; ///< empty: the loaded table
  std::string test; ///< empty: the loaded table's test rows, if any
};

class repl {
public:
  explicit repl(bool echo) : echo_(echo) {
    // A fresh folder of its own (0700), never one somebody made first.
    auto pattern = (fs::temp_directory_path() / "veil-repl-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw input_error("cannot make a working folder in " +
                        fs::temp_directory_path().string());
    work_ = pattern;
  }
  ~repl() {
    std::error_code ec;
    fs::remove_all(work_, ec);
  }
  repl(const repl&) = delete;
  repl& operator=(const repl&) = delete;

  /// Runs one line; throws input_error for a user's mistake.
  bool run(const std::string& line);

  std::vector<std::string> party_names() const {
    std::vector<std::string> n;
    for (const auto& p : parties_)
      n.push_back(p.name);
    return n;
  }
  std::vector<std::string> setting_names() const;

private:
  /// The session file's text; paths relative to `folder` (the file's) when
  /// given, so that a saved session moves with its data.
  std::string toml(const fs::path& folder = {}) const;
  fs::path session_file() const { return work_ / "session.toml"; }
  /// The session the last training ran (predict's parties).
  fs::path trained_file() const { return work_ / "trained.toml"; }
  fs::path report_file() const { return work_ / "report.json"; }
  fs::path model_file() const { return work_ / "model.json"; }
  json last_report() const;
  /// The last training's model file; throws when its protocol writes none.
  std::string trained_model() const;
  /// The protocol deals one table itself (LDP boosting's owners): the
  /// parties typed are not its parties, except owner blocks on nodes.
  bool one_table() const {
    const auto* d = protocols::find_protocol(protocol_);
    return d && d->one_table;
  }
  /// Throws unless the session has its parties (or, one_table, a table).
  void need_parties() const {
    if (one_table() && table_.empty() &&
        std::none_of(parties_.begin(), parties_.end(),
                     [](const repl_party& p) { return p.label; }))
      throw input_error("no table: load FILE first");
    if (!one_table() && parties_.size() < 2)
      throw input_error("a session needs at least 2 parties (deal N, or "
                        "party NAME ...)");
  }
  void need_table() const {
    if (table_.empty())
      throw input_error("no table: load FILE first");
  }
  void train();
  /// The guarantee the settings fix (veil train --plan on the session),
  /// and the last training's, if any.
  void privacy();
  void load(const std::vector<std::string>& w);
  void deal(const std::vector<std::string>& w);
  void party(const std::vector<std::string>& w);
  void open(const std::string& path);
  void compare(const std::vector<std::string>& w);

  bool echo_;
  fs::path work_;
  std::string table_, test_, label_ = "label";
  std::vector<std::string> columns_; ///< the table's, label included
  std::vector<repl_party> parties_;
  std::string protocol_ = "plain";
  /// KEY=VALUE as typed, in order (a later one replaces an earlier one).
  std::vector<std::pair<std::string, std::string>> settings_;
  bool trained_ = false;
  std::string trained_protocol_;
  /// The last training's parties, alive for predictions (none after a
  /// protocol without a kept session, or once it ended).
  std::unique_ptr<kept_session> kept_;
};

std::vector<std::string> repl::setting_names() const {
  auto out = setting_keys();
  for (const auto& k : net_setting_keys())
    out.push_back(k);
  if (const auto* d = protocols::find_protocol(protocol_))
    for (const auto& s : d->settings)
      if (s.applies_to(protocol_))
        out.push_back(s.key);
  return out;
}

std::string repl::toml(const fs::path& folder) const {
  auto path = [&](const std::string& p) {
    if (folder.empty() || p.empty())
      return p;
    auto rel = fs::absolute(p).lexically_relative(fs::absolute(folder));
    return rel.empty() ? p : rel.string();
  };
  std::ostringstream t;
  t << "# written by veil repl; veil train --config reads it\n";
  std::map<std::string, std::string> learner, protocol, net;
  std::string timeout;
  const auto* d = protocols::find_protocol(protocol_);
  auto learner_keys = setting_keys();
  // Another protocol's settings wait for it: only this one's are written.
  for (const auto& [k, v] : settings_) {
    if (k == "timeout" || k == "timeout_seconds")
      timeout = v;
    else if (k.rfind("net.", 0) == 0)
      net[k.substr(4)] = v;
    else if (d && d->find_for(protocol_, k))
      protocol[k] = v;
    else if (std::find(learner_keys.begin(), learner_keys.end(), k) !=
             learner_keys.end())
      learner[k] = v;
  }
  if (!timeout.empty())
    t << "timeout_seconds = " << toml_value(timeout) << "\n";
  t << "\n[protocol]\nname = " << quoted(protocol_) << "\n";
  for (const auto& [k, v] : protocol)
    t << quoted(k) << " = " << toml_value(v) << "\n";
  if (!learner.empty()) {
    t << "\n[learner]\n";
    for (const auto& [k, v] : learner)
      t << k << " = " << toml_value(v) << "\n";
  }
  if (!net.empty()) {
    t << "\n[net]\n";
    for (const auto& [k, v] : net)
      t << k << " = " << toml_value(v) << "\n";
  }
  auto written = parties_;
  if (one_table()) {
    // The table is the data user's, its owners dealt from it in this
    // process; a party on a node is a block of owners there.
    written.clear();
    repl_party user;
    user.name = "user";
    user.label = true;
    for (const auto& p : parties_)
      if (p.label && p.location == "local")
        user = {p.name, {}, true, "local", p.data, p.test};
    written.push_back(user);
    for (const auto& p : parties_)
      if (p.location != "local")
        written.push_back({p.name, {}, false, p.location, p.data, p.test});
  }
  for (const auto& p : written) {
    t << "\n[[party]]\nname = " << quoted(p.name) << "\ndata = "
      << quoted(p.location != "local" ? p.data
                                      : path(p.data.empty() ? table_ : p.data))
      << "\n";
    if (!p.test.empty())
      t << "test = " << quoted(p.location != "local" ? p.test : path(p.test))
        << "\n";
    else if (!test_.empty() && p.location == "local" && p.data.empty())
      t << "test = " << quoted(path(test_)) << "\n";
    if (!p.columns.empty()) {
      t << "features = [";
      for (std::size_t i = 0; i < p.columns.size(); ++i)
        t << (i ? ", " : "") << quoted(p.columns[i]);
      t << "]\n";
    }
    if (p.label)
      t << "label = " << quoted(label_) << "\n";
    if (p.location != "local")
      t << "location = " << quoted(p.location) << "\n";
  }
  return t.str();
}

std::string repl::trained_model() const {
  last_report();
  if (!fs::exists(model_file())) {
    const auto* d = protocols::find_protocol(trained_protocol_);
    throw input_error(trained_protocol_ + " writes no model file" +
                      (d && !d->model_file.empty() ? " (" + d->model_file + ")"
                                                   : std::string()));
  }
  return model_file().string();
}

json repl::last_report() const {
  if (!trained_ || !fs::exists(report_file()))
    throw input_error("nothing trained yet: train first");
  std::ifstream in(report_file());
  return json::parse(in);
}

void repl::load(const std::vector<std::string>& w) {
  if (w.size() != 2 && !(w.size() == 4 && w[2] == "test"))
    throw input_error("usage: load FILE [test FILE]");
  auto header = learners::csv_header(w[1]); // throws, naming the file
  if (std::find(header.begin(), header.end(), label_) == header.end())
    throw input_error(w[1] + ": no column \"" + label_ +
                      "\" (say which is the label: label NAME)");
  if (w.size() == 4)
    learners::csv_header(w[3]);
  table_ = fs::absolute(w[1]).string();
  test_ = w.size() == 4 ? fs::absolute(w[3]).string() : "";
  columns_ = header;
  std::cout << "table " << w[1] << ": " << header.size() - 1 << " features and "
            << label_ << (test_.empty() ? "" : "; test rows from " + w[3])
            << "\n";
}

void repl::deal(const std::vector<std::string>& w) {
  need_table();
  if (w.size() != 2)
    throw input_error("usage: deal N");
  int n = 0;
  try {
    n = std::stoi(w[1]);
  } catch (const std::exception&) {
  }
  std::vector<std::string> features;
  for (const auto& c : columns_)
    if (c != label_)
      features.push_back(c);
  if (n < 2 || static_cast<std::size_t>(n) > features.size())
    throw input_error("deal N: N from 2 to the table's " +
                      std::to_string(features.size()) + " features");
  parties_.clear();
  for (int q = 0; q < n; ++q) {
    repl_party p;
    p.name = "party" + std::to_string(q + 1);
    auto from = features.size() * static_cast<std::size_t>(q) /
                static_cast<std::size_t>(n);
    auto to = features.size() * static_cast<std::size_t>(q + 1) /
              static_cast<std::size_t>(n);
    p.columns.assign(features.begin() + static_cast<long>(from),
                     features.begin() + static_cast<long>(to));
    p.label = q == 0;
    parties_.push_back(std::move(p));
  }
  run("parties");
}

void repl::party(const std::vector<std::string>& w) {
  if (w.size() < 3)
    throw input_error("usage: party NAME COLUMN,... [label] [at HOST:PORT] "
                      "[data FILE]");
  repl_party p;
  p.name = w[1];
  if (!protocols::session::valid_name(p.name))
    throw input_error("party " + p.name +
                      ": a name is letters, digits, '_' and '-'");
  p.columns = split_commas(w[2]);
  for (std::size_t i = 3; i < w.size(); ++i) {
    if (w[i] == "label") {
      p.label = true;
    } else if (w[i] == "at" && i + 1 < w.size()) {
      std::string host;
      std::uint16_t port = 0;
      if (!parse_location(w[i + 1], host, port))
        throw input_error("party " + p.name + ": at " + w[i + 1] +
                          " is not HOST:PORT");
      p.location = w[++i];
    } else if (w[i] == "data" && i + 1 < w.size()) {
      p.data = w[++i];
    } else {
      throw input_error("party " + p.name + ": what is \"" + w[i] +
                        "\"? (label, at HOST:PORT, data FILE)");
    }
  }
  if (p.location == "local" && p.data.empty()) {
    need_table();
    for (const auto& c : p.columns)
      if (std::find(columns_.begin(), columns_.end(), c) == columns_.end() ||
          c == label_)
        throw input_error("party " + p.name + ": the table has no feature \"" +
                          c + "\"");
  }
  if (p.label)
    for (auto& q : parties_)
      q.label = false;
  auto it = std::find_if(parties_.begin(), parties_.end(),
                         [&](const repl_party& q) { return q.name == p.name; });
  if (it != parties_.end())
    *it = std::move(p);
  else
    parties_.push_back(std::move(p));
}

void repl::open(const std::string& path) {
  auto c = load_session(path); // checks it as veil train --config does
  parties_.clear();
  settings_.clear();
  protocol_ = c.protocol;
  table_.clear();
  test_.clear();
  for (const auto& q : c.parties) {
    repl_party p;
    p.name = q.name;
    p.columns = q.features;
    p.label = !q.label.empty();
    if (p.label)
      label_ = q.label;
    p.location = q.location;
    p.data = q.data;
    p.test = q.test;
    if (table_.empty() && q.is_local()) {
      table_ = q.data;
      test_ = q.test;
    }
    parties_.push_back(std::move(p));
  }
  for (const auto& [k, v] : c.protocol_params)
    settings_.push_back({k, v});
  for (const auto& kv : c.learner_keys)
    settings_.push_back(kv);
  for (const auto& kv : c.net_settings)
    settings_.push_back(kv);
  if (c.timeout_seconds != 60)
    settings_.push_back({"timeout", std::to_string(c.timeout_seconds)});
  if (!table_.empty())
    columns_ = learners::csv_header(table_);
  std::cout << "session " << path << ": " << protocol_ << ", "
            << parties_.size() << " parties\n";
}

void repl::train() {
  need_parties();
  learners::write_files_atomically({{session_file().string(), toml()}});
  // The last training's report, model and parts go: a part is written
  // only over a part of the same protocol.
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(work_, ec))
    if (f.path().filename().string().rfind("model.json", 0) == 0 ||
        f.path() == report_file())
      fs::remove(f.path(), ec);
  trained_ = false;
  kept_.reset(); // the earlier parties end before new ones start
  train_options o;
  o.keep = &kept_;
  o.config = session_file().string();
  o.report = report_file().string();
  if (const auto* d = protocols::find_protocol(protocol_);
      d && d->writes_models)
    o.model_out = model_file().string();
  o.quiet = false;
  actors::clear_interrupt();
  int rc = 1;
  try {
    rc = run_config_train(o);
  } catch (...) {
    kept_.reset(); // kept before its report failed: the parties go too
    actors::clear_interrupt();
    throw;
  }
  bool interrupted = actors::interrupt_requested();
  actors::clear_interrupt();
  if (rc != 0)
    kept_.reset(); // its report failed: the parties go with it
  if (rc != 0 && interrupted)
    throw input_error("training interrupted: the session ended on every "
                      "party; train again when ready");
  if (rc != 0)
    throw input_error("training failed (above)");
  fs::copy_file(session_file(), trained_file(),
                fs::copy_options::overwrite_existing);
  trained_ = true;
  trained_protocol_ = protocol_;
}

void repl::privacy() {
  need_parties();
  auto plan = work_ / "plan.toml";
  learners::write_files_atomically({{plan.string(), toml()}});
  train_options o;
  o.config = plan.string();
  o.plan = true;
  try {
    if (run_config_train(o) != 0)
      throw input_error("the session's settings were refused (above)");
  } catch (const input_error& e) {
    if (!trained_)
      throw;
    // What the last training stated still holds for it.
    std::cout << "no plan: " << e.what() << "\n";
  }
  if (!trained_)
    return;
  auto r = last_report();
  std::cout << "the last training (" << r.value("protocol", "")
            << ") stated: " << report_guarantee(report_file().string()) << "\n";
  if (r["privacy"].contains("report") && r["privacy"]["report"].is_string())
    std::cout << r["privacy"]["report"].get<std::string>();
}

void repl::compare(const std::vector<std::string>& w) {
  need_table();
  compare_options c;
  auto cores = std::thread::hardware_concurrency();
  c.params.threads = cores == 0 ? 1 : static_cast<int>(cores);
  for (const auto& [k, v] : settings_)
    if (k == "timeout" || k == "timeout_seconds")
      c.timeout = std::stod(v);
  c.data = fs::proximate(table_).string(); // as typed, where it can be
  c.test = test_.empty() ? test_ : fs::proximate(test_).string();
  c.label = label_;
  // The session's learner settings hold for the runs on the table too
  // (centralized): its objective names the metrics.
  auto learner_keys = setting_keys();
  for (const auto& [k, v] : settings_)
    if (std::find(learner_keys.begin(), learner_keys.end(), k) !=
        learner_keys.end()) {
      apply_setting(c.params, k + "=" + v);
      if (k == "objective")
        c.objective = v;
    }
  for (std::size_t i = 1; i < w.size(); ++i) {
    auto value = [&]() -> std::string {
      if (i + 1 >= w.size())
        throw input_error("compare: " + w[i] + " needs a value");
      return w[++i];
    };
    const auto& f = w[i];
    auto number = [&](const std::string& text) {
      auto x = protocols::parse_finite(text);
      if (!x)
        throw input_error("compare " + f + " " + text + ": not a number");
      return *x;
    };
    auto count = [&]() {
      auto x = number(value());
      if (x != std::floor(x) || x < 1 || x > 1e6)
        throw input_error("compare " + f + ": a whole number from 1");
      return static_cast<int>(x);
    };
    if (f == "--protocols")
      c.protocols = split_commas(value());
    else if (f == "--epsilons")
      for (const auto& e : split_commas(value()))
        c.epsilons.push_back(number(e));
    else if (f == "--repeats")
      c.repeats = count();
    else if (f == "--trees")
      c.params.rounds = count();
    else if (f == "--depth")
      c.params.tree.max_depth = count();
    else if (f == "--out")
      c.out = value();
    else if (f == "--set")
      c.settings.push_back(value());
    else
      throw input_error("compare: unknown flag " + f +
                        " (--protocols, --epsilons, --repeats, --trees, "
                        "--depth, --out, --set)");
  }
  // Each federated protocol runs on the parties as this session holds
  // them: a session file per protocol, as train would write it.
  if (!parties_.empty()) {
    auto kept = protocol_;
    std::string held;
    for (const auto& p : parties_)
      held +=
          (held.empty() ? "" : "; ") + p.name + ": " +
          (p.columns.empty() ? std::string("its file's columns")
                             : std::to_string(p.columns.size()) + " columns") +
          (p.label ? " and the label" : "");
    try {
      for (const auto& name : c.protocols) {
        // centralized and privet-plain train one party on the table.
        if (!find_federated(name) || name == "privet-plain")
          continue;
        protocol_ = name;
        need_parties();
        auto file = work_ / ("compare-" + name + ".toml");
        learners::write_files_atomically({{file.string(), toml()}});
        auto checked = load_session(file.string());
        for (const auto& q : checked.parties)
          if (q.test.empty())
            throw input_error("compare: party " + q.name +
                              " has no test rows; load FILE test FILE (or "
                              "give each party its test file) so that every "
                              "protocol is scored on the same rows");
        c.sessions[name] = file.string();
      }
    } catch (...) {
      protocol_ = kept;
      throw;
    }
    protocol_ = kept;
    c.sessions_note = "The federated protocols ran on this session's "
                      "parties (" +
                      held + "), scored on their test rows.";
  }
  actors::clear_interrupt();
  int rc = 0;
  try {
    rc = run_compare(c);
  } catch (...) {
    actors::clear_interrupt();
    throw;
  }
  if (rc != 0)
    throw input_error("compare: some runs failed (above)");
}

bool repl::run(const std::string& line) {
  auto w = words_of(line);
  if (w.empty() || w[0][0] == '#')
    return true;
  const auto& cmd = w[0];
  if (cmd == "quit" || cmd == "exit")
    return false;
  if (cmd == "help") {
    if (w.size() == 1) {
      for (const auto& c : commands())
        std::cout << "  " << c.usage << "\n      " << c.what << "\n";
      return true;
    }
    for (const auto& c : commands())
      if (w[1] == c.name) {
        std::cout << c.usage << ": " << c.what << "\n";
        return true;
      }
    throw input_error("help: no command \"" + w[1] + "\"");
  }
  if (cmd == "load")
    load(w);
  else if (cmd == "label" && w.size() == 2)
    label_ = w[1];
  else if (cmd == "deal")
    deal(w);
  else if (cmd == "party")
    party(w);
  else if (cmd == "drop" && w.size() == 2) {
    auto before = parties_.size();
    std::erase_if(parties_,
                  [&](const repl_party& p) { return p.name == w[1]; });
    if (parties_.size() == before)
      throw input_error("drop: no party \"" + w[1] + "\"");
  } else if (cmd == "parties") {
    for (const auto& p : parties_) {
      std::cout << "  " << p.name << " (" << p.location << "): ";
      for (std::size_t i = 0; i < p.columns.size(); ++i)
        std::cout << (i ? ", " : "") << p.columns[i];
      std::cout << (p.label ? "; the label" : "") << "\n";
    }
    if (parties_.empty())
      std::cout << "  none yet (deal N, or party NAME COLUMNS)\n";
  } else if (cmd == "protocol" && w.size() == 2) {
    bool known = false;
    for (const auto& p : known_protocols())
      known = known || p.name == w[1];
    if (!known || !find_federated(w[1]))
      throw input_error("protocol " + w[1] + ": a session runs one of " +
                        federated_protocol_names());
    if (w[1] == "privet-plain")
      throw input_error("protocol privet-plain trains one party on the "
                        "table, not a session's parties: compare "
                        "--protocols privet-plain,... runs it beside them");
    protocol_ = w[1];
    if (one_table())
      std::cout << protocol_
                << " deals the table's rows to its owners in this process "
                   "(the data user's and the evaluation rows held out); a "
                   "party at HOST:PORT is a block of owners on its node, "
                   "the other parties are not used\n";
  } else if (cmd == "set" && w.size() == 2) {
    auto eq = w[1].find('=');
    if (eq == std::string::npos || eq == 0)
      throw input_error("usage: set KEY=VALUE");
    auto key = w[1].substr(0, eq);
    // Checked as veil train --config would, on this session.
    auto names = setting_names();
    if (std::find(names.begin(), names.end(), key) == names.end() &&
        key != "timeout")
      throw input_error("set " + key + ": not a learner, net.* or " +
                        protocol_ + " setting (veil help " + protocol_ + ")");
    auto before = settings_;
    std::erase_if(settings_, [&](const auto& kv) { return kv.first == key; });
    settings_.push_back({key, w[1].substr(eq + 1)});
    if ((parties_.size() >= 2 || one_table()) && !table_.empty()) {
      // Checked as the whole session file would be read, in a file of its
      // own (the trained session's stays as it was).
      auto check = work_ / "check.toml";
      learners::write_files_atomically({{check.string(), toml()}});
      try {
        load_session(check.string());
      } catch (const input_error& e) {
        settings_ = std::move(before);
        throw input_error("set " + w[1] + ": " + e.what());
      }
    }
  } else if (cmd == "show") {
    std::cout << toml();
  } else if (cmd == "save" && w.size() == 2) {
    auto folder = fs::absolute(w[1]).parent_path();
    learners::write_files_atomically({{w[1], toml(folder)}});
    load_session(w[1]); // what was written reads back
    std::cout << "saved " << w[1] << " (veil train --config " << w[1] << ")\n";
  } else if (cmd == "open" && w.size() == 2) {
    open(w[1]);
  } else if (cmd == "train") {
    train();
  } else if (cmd == "evaluate") {
    auto r = last_report();
    std::cout << "metrics on the " << r.value("metrics_on", "test") << " rows:";
    for (const auto& [k, v] : r["metrics"].items())
      std::cout << "  " << k << " " << v;
    std::cout << "\n";
  } else if (cmd == "bytes") {
    auto r = last_report();
    for (const auto& [name, b] : r["bytes"]["per_party"].items()) {
      std::uint64_t sent = 0, got = 0;
      for (const auto& [k, v] : b["sent"].items())
        sent += v.get<std::uint64_t>();
      for (const auto& [k, v] : b["received"].items())
        got += v.get<std::uint64_t>();
      std::cout << "  " << name << ": sent " << sent << " B, received " << got
                << " B\n";
    }
    std::cout << "  total sent: " << r["bytes"]["total"] << " B\n";
  } else if (cmd == "importance") {
    auto r = last_report();
    if (!r.contains("importance"))
      throw input_error("the report has no importance");
    std::cout << r["importance"].dump(2) << "\n";
  } else if (cmd == "privacy") {
    privacy();
  } else if (cmd == "trees") {
    inspect_options o;
    o.model = trained_model();
    o.trees = w.size() > 1 ? w[1] : "1";
    run_inspect(o);
  } else if (cmd == "predict" && w.size() == 2 && kept_) {
    last_report();
    if (!kept_->has_rows())
      throw input_error("predict: the parties have no test rows to predict "
                        "(load FILE test FILE, or give each party its test "
                        "file, and train again)");
    federated_prediction got;
    if (kept_->predict(got) != 0) {
      kept_.reset();
      throw input_error("predict: the trained session ended (above); train "
                        "again");
    }
    auto csv =
        show_prediction(got, kept_->model(),
                        trained_protocol_ + ", through the trained session");
    learners::write_files_atomically({{w[1], csv}});
    std::cout << "predictions written to " << w[1] << "\n";
  } else if (cmd == "predict" && w.size() == 2) {
    predict_options o;
    o.model = trained_model();
    o.config = trained_file().string();
    o.out = w[1];
    if (run_predict(o) != 0)
      throw input_error("predict failed (above)");
  } else if (cmd == "export" && (w.size() == 2 || w.size() == 3)) {
    auto model = trained_model();
    if (w.size() == 3 && w[2] == "xgboost") {
      export_options o;
      o.model = model;
      o.out = w[1];
      run_export(o);
    } else {
      std::ifstream in(model);
      std::stringstream s;
      s << in.rdbuf();
      learners::write_files_atomically({{w[1], s.str()}});
      std::cout << "model written to " << w[1] << "\n";
    }
  } else if (cmd == "compare") {
    compare(w);
  } else {
    auto it =
        std::find_if(commands().begin(), commands().end(),
                     [&](const command_help& c) { return cmd == c.name; });
    throw input_error(it != commands().end()
                          ? "usage: " + std::string(it->usage)
                          : "no command \"" + cmd + "\" (help lists them)");
  }
  return true;
}

// -- line editing -------------------------------------------------------

repl* completing = nullptr;
std::vector<std::string> candidates;

char* next_candidate(const char* text, int state) {
  static std::size_t at;
  if (state == 0)
    at = 0;
  std::string prefix = text;
  while (at < candidates.size()) {
    const auto& c = candidates[at++];
    if (c.rfind(prefix, 0) == 0)
      return ::strdup(c.c_str());
  }
  return nullptr;
}

char** complete(const char* text, int start, int) {
  candidates.clear();
  rl_completion_append_character = ' ';
  auto before =
      words_of(std::string(rl_line_buffer, static_cast<std::size_t>(start)));
  if (before.empty()) {
    for (const auto& c : commands())
      candidates.push_back(c.name);
  } else if (before[0] == "protocol" || before.back() == "--protocols") {
    for (const auto* d : protocols::all_protocols())
      for (const auto& n : d->names)
        candidates.push_back(n);
  } else if (before[0] == "set") {
    for (const auto& k : completing->setting_names())
      candidates.push_back(k + "=");
    rl_completion_append_character = '\0'; // the value follows the '='
  } else if (before[0] == "drop" || before[0] == "party") {
    candidates = completing->party_names();
  } else if (before[0] == "help") {
    for (const auto& c : commands())
      candidates.push_back(c.name);
  } else {
    return nullptr; // file names (libedit's default)
  }
  rl_attempted_completion_over = 1;
  return rl_completion_matches(text, next_candidate);
}

extern "C" void on_interrupt(int) {
  actors::request_interrupt();
}

std::string history_file() {
  if (const char* h = std::getenv("VEIL_HISTORY"))
    return h;
  if (const char* home = std::getenv("HOME"))
    return std::string(home) + "/.veil_history";
  return "";
}

} // namespace

int run_repl(const repl_options& o) {
  std::istream* script = nullptr;
  std::ifstream file;
  if (!o.file.empty()) {
    file.open(o.file);
    if (!file)
      throw input_error("-f " + o.file + ": cannot read it");
    script = &file;
  } else if (!::isatty(STDIN_FILENO)) {
    script = &std::cin;
  }
  repl r(script != nullptr);
  // Ctrl-C ends a training session, never the REPL.
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  if (script) {
    std::string line;
    int number = 0;
    while (std::getline(*script, line)) {
      ++number;
      if (words_of(line).empty())
        continue;
      std::cout << "veil> " << line << std::endl;
      try {
        if (!r.run(line))
          return 0;
      } catch (const std::exception& e) {
        std::cerr << "veil: error: "
                  << (o.file.empty() ? "line " : o.file + ":") << number << ": "
                  << e.what() << "\n";
        return 1;
      }
    }
    // Ctrl-C while reading (not restarted) or a read error: the script did
    // not run to its end.
    if (actors::interrupt_requested() || script->bad()) {
      std::cerr << "veil: error: the script was interrupted after line "
                << number << "\n";
      return 1;
    }
    return 0;
  }
  completing = &r;
  rl_attempted_completion_function = complete;
  auto history = history_file();
  using_history();
  if (!history.empty())
    read_history(history.c_str());
  std::cout << "veil repl: help lists the commands; Tab completes; Ctrl-C "
               "stops a training; Ctrl-D leaves\n";
  while (true) {
    actors::clear_interrupt();
    char* raw = readline("veil> ");
    if (!raw) {
      std::cout << "\n";
      if (actors::interrupt_requested())
        continue; // Ctrl-C at the prompt drops the line, as a shell does
      break;      // Ctrl-D
    }
    std::string line = raw;
    std::free(raw);
    if (words_of(line).empty())
      continue;
    add_history(line.c_str());
    if (!history.empty())
      write_history(history.c_str());
    try {
      if (!r.run(line))
        break;
    } catch (const std::exception& e) {
      std::cerr << "veil: error: " << e.what() << "\n";
    }
  }
  return 0;
}

} // namespace veil::apps
