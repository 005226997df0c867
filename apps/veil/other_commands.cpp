#include <cstdio>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>
#include <unistd.h>

#include "apps/veil/commands.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/data/synthetic.hpp"
#include "learners/input_error.hpp"
#include "learners/metrics/metrics.hpp"
#include "learners/model/xgboost_export.hpp"
#include "protocols/descriptor.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::apps {

using learners::dataset;

std::string predictions_csv(const std::vector<double>& preds, std::size_t k,
                            const std::vector<std::string>& ids) {
  auto n = k == 0 ? 0 : preds.size() / k;
  bool with_ids = ids.size() == n && n > 0;
  std::ostringstream s;
  s.precision(9);
  if (with_ids)
    s << "id,";
  if (k == 1) {
    s << "prediction\n";
  } else {
    for (std::size_t c = 0; c < k; ++c)
      s << "p" << c << (c + 1 < k ? "," : "\n");
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (with_ids)
      s << ids[i] << ",";
    for (std::size_t c = 0; c < k; ++c)
      s << preds[c * n + i] << (c + 1 < k ? "," : "\n");
  }
  return s.str();
}

int run_predict(const predict_options& o) {
  check_files(
      {{"--model", o.model}, {"--data", o.data}, {"--config", o.config}},
      {{"--out", o.out}, {"--report", o.report}});
  auto json = learners::read_json_file(o.model, "model");
  if (!o.config.empty() || protocols::session::is_federated_model(json))
    return run_federated_predict(o, json);
  if (o.data.empty())
    throw input_error("--data: give the rows to predict");
  if (!o.report.empty() || !o.overrides.empty())
    throw input_error(std::string(o.report.empty() ? "--set" : "--report") +
                      ": only for a federated model");
  learners::model m;
  try {
    m = learners::model_from_json(json);
  } catch (const input_error& e) {
    throw input_error(o.model + ": " + e.what());
  }
  learners::read_options ro;
  ro.label = o.label;
  ro.id = o.id;
  auto d = learners::read_table(o.data, ro);
  auto obj = m.make_objective();
  auto preds = m.predict(d, o.threads);
  if (d.has_labels()) {
    obj.check_labels(d.labels());
    // One line, as train prints its metrics.
    std::cout << "predicted " << d.rows() << " rows: "
              << format_metrics(learners::evaluate(obj, d.labels(), preds))
              << "\n";
  }
  if (!o.out.empty())
    learners::write_file_atomically(
        o.out,
        predictions_csv(preds, static_cast<std::size_t>(m.outputs()),
                        d.has_ids() ? d.ids() : std::vector<std::string>{}));
  return 0;
}

int run_help(const std::string& protocol, bool markdown) {
  if (protocol.empty() && markdown) {
    std::cout << protocols::model_parts_markdown();
    return 0;
  }
  if (protocol.empty()) {
    std::cout << "Protocols (veil help PROTOCOL for its parties and "
                 "settings):\n";
    for (const auto* d : protocols::all_protocols()) {
      std::cout << "  ";
      for (std::size_t i = 0; i < d->names.size(); ++i)
        std::cout << (i ? ", " : "") << d->names[i];
      std::cout << "\n      " << d->summary << "\n";
    }
    return 0;
  }
  const auto* d = protocols::find_protocol(protocol);
  if (!d) {
    std::string known;
    for (const auto* x : protocols::all_protocols())
      for (const auto& n : x->names)
        known += (known.empty() ? "" : ", ") + n;
    throw input_error("veil help " + protocol + ": no such protocol (" + known +
                      ")");
  }
  std::cout << (markdown ? protocols::settings_markdown(*d)
                         : protocols::help_text(*d));
  return 0;
}

int run_export(const export_options& o) {
  if (o.format != "xgboost")
    throw input_error("--format " + o.format + ": expected xgboost");
  check_files({{"--model", o.model}}, {{"--out", o.out}});
  auto m = learners::load_model(o.model);
  learners::export_xgboost(m, o.out);
  return 0;
}

std::string with_suffix(const std::string& path, const std::string& part) {
  auto dot = path.find('.', path.find_last_of('/') + 1);
  if (dot == std::string::npos)
    return path + part;
  return path.substr(0, dot) + part + path.substr(dot);
}

int run_generate(const generate_options& o) {
  if (o.kind == "bovw")
    return run_generate_bovw(o);
  dataset d;
  if (o.kind == "classification") {
    learners::classification_spec s;
    s.rows = o.rows;
    s.features = o.features;
    s.informative = o.informative;
    s.redundant = o.redundant;
    s.classes = static_cast<std::size_t>(o.classes);
    s.seed = o.seed;
    d = learners::make_classification(s);
  } else if (o.kind == "regression") {
    learners::regression_spec s;
    s.rows = o.rows;
    s.features = o.features;
    s.informative = o.informative;
    s.noise = o.noise;
    s.seed = o.seed;
    d = learners::make_regression(s);
  } else {
    throw input_error("--kind " + o.kind +
                      ": expected classification, regression or bovw");
  }
  if (o.test_fraction <= 0) {
    learners::write_csv(d, o.out);
    std::cout << "wrote " << o.out << " (" << d.rows() << " rows)\n";
    return 0;
  }
  if (o.test_fraction >= 1)
    throw input_error("--test-fraction must be below 1");
  // Rows come shuffled from the generator: the tail is a random test set.
  auto test_rows = static_cast<std::size_t>(o.test_fraction * d.rows());
  std::vector<std::size_t> head(d.rows() - test_rows), tail(test_rows);
  std::iota(head.begin(), head.end(), 0);
  std::iota(tail.begin(), tail.end(), head.size());
  auto name = [&](const std::string& part) { return with_suffix(o.out, part); };
  learners::write_csv(d.select_rows(head), name("_train"));
  learners::write_csv(d.select_rows(tail), name("_test"));
  std::cout << "wrote " << name("_train") << " (" << head.size()
            << " rows) and " << name("_test") << " (" << tail.size()
            << " rows)\n";
  return 0;
}

} // namespace veil::apps
