// `veil train --config SESSION.toml`: the parties, their data and where they
// run come from a session file (apps/veil/session_config.hpp); local parties
// run in this process, remote ones on their `veil node`s.
#include <cmath>
#include <iostream>
#include <unistd.h>

#include "actors/live_session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/kept_session.hpp"
#include "apps/veil/progress.hpp"
#include "apps/veil/protocols.hpp"
#include "apps/veil/session_config.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"

namespace veil::apps {

std::vector<actors::party_spec>
party_specs(const session_config& c, std::size_t& remote, bool& have_test) {
  std::vector<actors::party_spec> out;
  remote = 0;
  have_test = true;
  for (const auto& q : c.parties) {
    actors::party_spec s;
    s.name = q.name;
    s.data.path = q.data;
    s.data.id_column = q.id;
    s.data.label_column = q.label;
    s.data.feature_columns = q.features;
    s.test_path = q.test;
    if (!q.is_local()) {
      s.host = q.host;
      s.port = q.port;
      ++remote;
    }
    have_test = have_test && !q.test.empty();
    out.push_back(std::move(s));
  }
  return out;
}

std::string file_session::where(const std::string& kind) const {
  auto n = std::to_string(parties.size()) + " " + kind;
  if (remote == 0 && !tls.enabled())
    return n + " in this process";
  return n + ", " + std::to_string(remote) + " on other nodes" +
         (tls.enabled() ? " over TLS" : "");
}

const std::string& file_session::source() const {
  return file->source;
}

std::string planned_shape::describe() const {
  return std::to_string(features.size()) + " parties, " + std::to_string(rows) +
         " rows" +
         (by_id ? " (the labelled party's; aligning by id keeps the rows "
                  "every party has, and fewer rows change the figures)"
                : "");
}

planned_shape plan_shape(const std::vector<actors::party_spec>& parties) {
  planned_shape s;
  for (const auto& p : parties) {
    const auto& d = p.data;
    bool need_file = !d.label_column.empty() || d.feature_columns.empty();
    if (need_file && p.is_remote())
      throw input_error("--plan: party " + p.name + "'s " +
                        (d.label_column.empty() ? "columns are" : "rows are") +
                        " in its file on " + p.host +
                        "; --plan reads them here (name its features in the "
                        "session file, and keep the label party local)");
    auto names = d.feature_columns;
    if (names.empty() && learners::is_libsvm_path(d.path)) {
      learners::read_options r;
      r.label = d.label_column;
      r.redact_values = true;
      names = learners::read_table(d.path, r).feature_names();
    } else if (names.empty()) {
      for (const auto& c : learners::csv_header(d.path))
        if (c != d.label_column && c != d.id_column)
          names.push_back(c);
    }
    s.features.push_back(std::move(names));
    if (!d.label_column.empty())
      s.rows = table_rows(d.path, d.label_column, d.id_column);
    s.by_id = s.by_id || !d.id_column.empty();
  }
  return s;
}

file_session session_file(const session_config& c, const train_options& o) {
  file_session s;
  s.file = &c;
  s.parties = party_specs(c, s.remote, s.have_test);
  s.tls = {c.tls.certificate, c.tls.key, c.tls.ca};
  s.parts = parts_for(o.model_out);
  for (const auto& p : c.parties)
    if (!p.is_local())
      s.parts.on_nodes.push_back(p.name);
  return s;
}

int run_config_train(const train_options& o) {
  if (!o.conflicting.empty()) {
    std::string flags;
    for (const auto& f : o.conflicting)
      flags += (flags.empty() ? "" : ", ") + f;
    throw input_error(flags + ": not with --config (the session file " +
                      o.config +
                      " names each party's data, test file, id and label "
                      "columns, and the protocol)");
  }
  auto c = load_session(o.config);
  for (const auto& kv : o.overrides)
    apply_override(c, kv);
  const auto* protocol = find_federated(c.protocol);
  if (!protocol)
    throw input_error(c.source + ": protocol \"" + c.protocol +
                      "\": veil train --config runs the " +
                      federated_protocol_names() + " protocols in this build");
  check_local_files(c);
  std::vector<named_file> inputs = {{"--config", o.config}};
  for (const auto& q : c.parties)
    if (q.is_local()) {
      inputs.push_back({"party " + q.name + "'s data", q.data});
      inputs.push_back({"party " + q.name + "'s test", q.test});
    }
  check_files(inputs, {{"--model-out", o.model_out}, {"--report", o.report}});
  auto with_file = o; // the reports give the file's timeout and links
  with_file.link = c.link;
  with_file.timeout = c.timeout_seconds;
  return protocol->train_config(c, with_file);
}

int run_plain_config(const session_config& c, const train_options& o) {
  return run_vertical_config(c, o, c.params, {});
}

int run_vertical_config(const session_config& c, const train_options& o,
                        learners::booster_params p,
                        const vertical_exchange& ex) {
  if (p.objective == learners::objective_kind::multi_softmax &&
      p.num_class == 0)
    throw input_error(c.source + ": multi:softmax with the " + ex.name() +
                      " protocol "
                      "needs the number of classes: num_class in "
                      "[learner] or --set num_class=K");
  if (p.num_class == 0)
    p.num_class = 2;

  auto file = session_file(c, o);
  if (p.early_stopping_rounds > 0 && !file.have_test)
    throw input_error(c.source + ": early_stopping_rounds watches the test "
                                 "rows: give every party a test file");
  actors::session_config cfg;
  file.fill(cfg);
  cfg.params = p;
  cfg.exchange = ex.kind;
  cfg.masking = ex.masking;
  cfg.eval =
      file.have_test ? actors::evaluation::test : actors::evaluation::train;
  if (o.plan)
    return plan_vertical(cfg);
  actors::session_outcome out;
  {
    progress_printer progress(o.quiet, "tree");
    out = train_session<actors::plain_protocol>(
        cfg, file.tls, progress.callback(), o, plain_prediction);
  }
  file.name_file(out);
  return report_federated(out, cfg, o, c.source, file.have_test,
                          file.where("parties"));
}

} // namespace veil::apps
