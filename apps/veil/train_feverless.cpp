// `veil train --protocol feverless` (and its baselines feverless-plain,
// feverless-ldp, feverless-ahe): one table's columns split evenly in
// contiguous blocks over N clients that run in this process as actors, the
// labels spread uniformly at random over them (spec feverless §14.1); the
// report adds the privacy guarantee (per query and the honest total).
#include <cmath>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "actors/feverless_session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/settings.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"
#include "learners/metrics/metrics.hpp"

namespace veil::apps {

using learners::dataset;
using nlohmann::json;
namespace fv = protocols::feverless;

namespace {

dataset columns(const dataset& d, std::size_t lo, std::size_t hi) {
  std::vector<std::size_t> cols(hi - lo);
  std::iota(cols.begin(), cols.end(), lo);
  return select_columns(d, cols, false);
}

void check_binary(const dataset& d, const std::string& what) {
  if (!d.has_labels())
    throw input_error(what + ": no label column");
  for (float y : d.labels())
    if (y != 0.0f && y != 1.0f)
      throw input_error(what + ": FEVERLESS trains binary classification; "
                               "labels must be 0 or 1");
}

json privacy_json(const fv::params& p, const fv::privacy_report& r) {
  json j;
  if (p.protocol == fv::mode::plain) {
    j["mechanism"] = "none";
    j["note"] = "plaintext partial sums are exchanged (baseline)";
  } else if (!p.noise) {
    j["mechanism"] = "none";
    j["note"] = "noise is off";
  } else {
    j["mechanism"] = p.protocol == fv::mode::ldp
                         ? "gaussian (local: every client adds its own)"
                         : "gaussian (one noise leader per query)";
  }
  j["budget"] = p.budget == fv::budget_kind::total ? "total" : "per_query";
  j["budget_epsilon"] = p.epsilon;
  j["budget_delta"] = p.delta;
  j["calibration"] =
      p.calib == fv::calibration::analytic ? "analytic" : "classical";
  j["composition"] = p.total_split == fv::composition::zcdp ? "zcdp" : "basic";
  j["sigma"] = r.sigma;
  j["per_query"] = {{"epsilon", r.query_epsilon},
                    {"delta", r.query_delta},
                    {"release_epsilon", r.release_epsilon},
                    {"release_delta", r.release_delta},
                    {"release_rho", r.release_rho}};
  j["total"] = {
      {"record_queries", r.record_queries},
      {"record_query_bound", r.record_query_bound},
      {"queries", r.queries_total},
      {"basic", {{"epsilon", r.basic_epsilon}, {"delta", r.basic_delta}}},
      {"zcdp",
       {{"rho", r.zcdp_rho},
        {"epsilon", r.zcdp_epsilon},
        {"delta", r.zcdp_delta}}}};
  if (!r.warning.empty())
    j["warning"] = r.warning;
  return j;
}

} // namespace

int run_feverless_train(const train_options& o) {
  fv::params p;
  if (o.protocol == "feverless")
    p.protocol = fv::mode::feverless;
  else if (o.protocol == "feverless-plain")
    p.protocol = fv::mode::plain;
  else if (o.protocol == "feverless-ldp")
    p.protocol = fv::mode::ldp;
  else if (o.protocol == "feverless-ahe")
    p.protocol = fv::mode::ahe;
  else
    throw input_error("--protocol " + o.protocol +
                      ": expected feverless, feverless-plain, feverless-ldp "
                      "or feverless-ahe");
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
  if (!(o.timeout > 0) || !std::isfinite(o.timeout) || o.timeout > 86400)
    throw input_error("--timeout " + std::to_string(o.timeout) +
                      ": expected seconds in (0, 86400]");

  // Learner settings: the flags, then --set (learner keys as for plain).
  auto bp = o.params;
  std::optional<double> query_epsilon;
  for (const auto& s : o.settings) {
    auto eq = s.find('=');
    auto key = s.substr(0, eq);
    auto value = eq == std::string::npos ? std::string() : s.substr(eq + 1);
    if (key == "feverless.query_epsilon") {
      query_epsilon = parse_number(key, value);
    } else if (key == "feverless.calibration") {
      if (value == "analytic")
        p.calib = fv::calibration::analytic;
      else if (value == "classical")
        p.calib = fv::calibration::classical;
      else
        throw input_error("--set " + s + ": expected analytic or classical");
    } else if (key == "feverless.election") {
      if (value == "per_query")
        p.election = fv::election_scope::per_query;
      else if (value == "per_batch")
        p.election = fv::election_scope::per_batch;
      else
        throw input_error("--set " + s + ": expected per_query or per_batch");
    } else if (key == "feverless.buckets") {
      p.buckets = static_cast<int>(parse_number(key, value));
    } else if (key == "paillier.bits") {
      p.paillier_bits = static_cast<int>(parse_number(key, value));
    } else {
      apply_setting(bp, s);
    }
  }
  p.trees = bp.rounds;
  p.max_depth = bp.tree.max_depth;
  p.eta = bp.tree.eta;
  p.lambda = bp.tree.lambda;
  p.gamma = bp.tree.gamma;
  p.session = o.seed;
  if (query_epsilon) {
    if (o.epsilon > 0)
      throw input_error("--epsilon (a total budget) and --set "
                        "feverless.query_epsilon (per query): give one");
    p.budget = fv::budget_kind::per_query;
    p.epsilon = *query_epsilon;
  } else {
    p.budget = fv::budget_kind::total;
    p.epsilon = o.epsilon > 0 ? o.epsilon : 2.0;
  }
  p.delta = o.delta > 0 ? o.delta : 1e-5;
  p.validate();

  auto data = load_train_data(o, learners::objective_kind::binary_logistic);
  auto& train_set = data.train;
  auto& test_set = data.test;
  const auto& data_name = data.name;
  bool have_test = data.have_test;
  check_binary(train_set, data_name);
  if (have_test)
    check_binary(test_set, o.test.empty() ? "the test rows" : o.test);
  auto m = train_set.features();
  if (static_cast<std::size_t>(n) > m)
    throw input_error("--parties " + std::to_string(n) + ": " + data_name +
                      " has only " + std::to_string(m) +
                      " feature columns; each client needs at least one");
  const dataset& eval_set = have_test ? test_set : train_set;

  // Columns: contiguous near-equal blocks. Labels: a random permutation of
  // the rows (seeded by --seed) cut into n equal parts.
  std::vector<std::size_t> bounds;
  for (int c = 0; c <= n; ++c)
    bounds.push_back(m * static_cast<std::size_t>(c) /
                     static_cast<std::size_t>(n));
  auto rows = train_set.rows();
  std::vector<std::size_t> perm(rows);
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937_64 gen(o.seed);
  std::shuffle(perm.begin(), perm.end(), gen);
  std::vector<int> owner(rows);
  for (std::size_t k = 0; k < rows; ++k)
    owner[perm[k]] = static_cast<int>(k * static_cast<std::size_t>(n) / rows);

  actors::feverless_config cfg;
  cfg.params = p;
  cfg.timeout = std::chrono::milliseconds(
      std::max<std::int64_t>(1, std::llround(o.timeout * 1000)));
  for (int c = 0; c < n; ++c) {
    actors::feverless_client_spec s;
    s.name = "client" + std::to_string(c);
    s.features = columns(train_set, bounds[c], bounds[c + 1]);
    for (std::size_t i = 0; i < rows; ++i)
      if (owner[i] == c) {
        s.labels.rows.push_back(static_cast<std::uint32_t>(i));
        s.labels.labels.push_back(train_set.labels()[i]);
      }
    s.eval = columns(eval_set, bounds[c], bounds[c + 1]);
    cfg.clients.push_back(std::move(s));
  }
  auto out = actors::run_feverless_session(std::move(cfg));
  if (!out.ok()) {
    std::cerr << "veil: error: " << out.error << "\n";
    return out.code == protocols::session::errc::bad_input ? 2 : 1;
  }
  const auto& r = *out.result;
  auto obj = r.model.make_objective();
  auto preds = obj.transform(r.margins, eval_set.rows());
  auto metrics = learners::evaluate(obj, eval_set.labels(), preds);
  std::uint64_t total_bytes = 0;
  json per_party = json::object();
  json party_features = json::object();
  for (std::size_t c = 0; c < r.clients.size(); ++c) {
    const auto& b = r.clients[c].bytes;
    total_bytes += b.total_sent();
    per_party[r.clients[c].name] = party_bytes_json(b, false);
    party_features[r.clients[c].name] = bounds[c + 1] - bounds[c];
  }
  const auto& pr = r.privacy;
  std::cout << "trained " << r.model.trees.size() << " trees on " << rows
            << " rows x " << m << " features in " << std::fixed
            << std::setprecision(3) << r.train_seconds << " s (" << o.protocol
            << ", " << n << " clients in this process, " << total_bytes
            << " bytes exchanged)\n"
            << std::defaultfloat << (have_test ? "test" : "train") << ": "
            << format_metrics(metrics) << "\n";
  if (pr.protected_sums)
    std::cout << "privacy: per query (" << pr.query_epsilon << ", "
              << pr.query_delta << ")-DP; total over " << pr.record_queries
              << " queries per record: (" << pr.zcdp_epsilon << ", "
              << pr.zcdp_delta << ") by zCDP, (" << pr.basic_epsilon << ", "
              << pr.basic_delta << ") by basic composition\n";
  else
    std::cout << "privacy: none (" << fv::to_string(p.protocol)
              << (p.noise ? "" : ", noise off") << ")\n";
  if (!pr.warning.empty())
    std::cerr << "veil: warning: " << pr.warning << "\n";

  if (!o.model_out.empty())
    learners::save_model(r.model, o.model_out);
  if (!o.report.empty()) {
    json report = {
        {"veil_version", "0.1.0"},
        {"protocol", o.protocol},
        {"data", data_name},
        {"objective", "binary:logistic"},
        {"rows", rows},
        {"test_rows", have_test ? test_set.rows() : 0},
        {"features", m},
        {"parties", n},
        {"party_features", party_features},
        {"trees", r.model.trees.size()},
        {"params",
         {{"max_depth", p.max_depth},
          {"eta", p.eta},
          {"lambda", p.lambda},
          {"gamma", p.gamma},
          {"buckets", p.buckets},
          {"election", fv::to_string(p.election)},
          {"paillier_bits", p.paillier_bits}}},
        {"metrics", metrics},
        {"metrics_on", have_test ? "test" : "train"},
        {"train_seconds", r.train_seconds},
        {"predict_seconds", r.predict_seconds},
        {"timeout_seconds", o.timeout},
        {"bytes", {{"total", total_bytes}, {"per_party", per_party}}},
        {"privacy", privacy_json(p, pr)},
        {"history", json::array()}};
    learners::write_file_atomically(o.report, report.dump(2) + "\n");
  }
  return 0;
}

} // namespace veil::apps
