// `veil train --protocol ldp-boost`: LDP boosting (spec ldp-boosting) on
// one table dealt in this process: the rows of --data shuffled (--seed),
// the data user's own labelled rows from ldp.user_data or a held-out
// ldp.user_fraction, the rows it is evaluated on from --test or a held-out
// ldp.test_fraction, and the rest dealt ldp.samples_per_owner to each
// owner, every owner an actor. Without --data: the spec's synthetic set
// (§7.3: make_classification, 20 features, 10 informative and 10
// redundant) of 200,000 rows (--rows). Prints the test error
// after each round and the privacy each owner's one release spends;
// --report adds the ensemble and how training went.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "actors/ldpboost_session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/progress.hpp"
#include "apps/veil/protocols.hpp"
#include "apps/veil/settings.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/data/synthetic.hpp"
#include "learners/input_error.hpp"
#include "protocols/ldpboost/deal.hpp"
#include "protocols/ldpboost/settings.hpp"

namespace veil::apps {

namespace {

using nlohmann::json;
namespace lb = protocols::ldpboost;

/// The ldp.* settings (protocols/ldpboost/settings.hpp) after the flags.
lb::named_settings ldp_settings_of(const train_options& o) {
  lb::named_settings c;
  const learners::booster_params generic;
  if (o.params.rounds != generic.rounds)
    c.params.rounds = o.params.rounds;
  if (o.epsilon > 0)
    c.params.epsilon = o.epsilon;
  for (const auto& s : o.settings) {
    auto eq = s.find('=');
    auto key = s.substr(0, eq);
    auto value = eq == std::string::npos ? std::string() : s.substr(eq + 1);
    if (!lb::apply_setting(c, key, value, "--set " + s))
      throw input_error("--set " + s +
                        ": ldp-boost takes --trees (rounds), --epsilon and "
                        "the ldp.* settings");
  }
  return c;
}

/// The three sets: owners' rows, the data user's, the evaluation rows.
struct three_sets {
  learners::labelled_rows owners, user, test;
  std::string name;
  int classes = 2;
};

three_sets sets_of(const train_options& o, const lb::named_settings& c) {
  three_sets out;
  learners::labelled_rows all;
  int classes = 2;
  if (o.data.empty()) {
    learners::classification_spec s; // spec §7.3
    s.rows = o.synthetic_rows == train_options{}.synthetic_rows
                 ? 200000
                 : o.synthetic_rows;
    s.features = 20;
    s.informative = 10;
    s.redundant = 10;
    s.seed = o.seed;
    all = lb::rows_of(learners::make_classification(s), "synthetic", classes);
    out.name = "synthetic (spec ldp-boosting §7.3, " + std::to_string(s.rows) +
               " rows)";
  } else {
    learners::read_options ro;
    ro.label = o.label;
    all = lb::rows_of(learners::read_table(o.data, ro), o.data, classes);
    out.name = o.data;
  }
  all = lb::shuffled(all, o.seed);
  // Fractions of the whole (the spec's 75 / 20 / 5).
  const auto total = static_cast<double>(all.rows());
  auto take = [&](double fraction) {
    auto n = std::min(all.rows(), static_cast<std::size_t>(fraction * total));
    auto part = lb::slice(all, all.rows() - n, n);
    all = lb::slice(all, 0, all.rows() - n);
    return part;
  };
  learners::read_options ro;
  ro.label = o.label;
  int more = 2;
  if (!o.test.empty())
    out.test = lb::rows_of(learners::read_table(o.test, ro), o.test, more);
  else
    out.test = take(c.test_fraction);
  classes = std::max(classes, more);
  if (!c.user_data.empty())
    out.user =
        lb::rows_of(learners::read_table(c.user_data, ro), c.user_data, more);
  else if (!c.owner_nodes.empty())
    out.user = take(1.0); // the owners are on their nodes
  else
    out.user = take(c.user_fraction);
  classes = std::max(classes, more);
  for (const auto* s : {&out.test, &out.user})
    if (s->features != all.features)
      throw input_error("the evaluation rows and the data user's rows must "
                        "have the training data's " +
                        std::to_string(all.features) + " feature columns");
  if (out.user.rows() == 0)
    throw input_error("the data user has no rows of its own: raise "
                      "ldp.user_fraction or give ldp.user_data");
  if (c.owner_nodes.empty())
    out.owners = std::move(all);
  out.classes = classes;
  return out;
}

/// ldp.owner_nodes: "HOST:PORT/DATASET,..." as blocks of owners, each
/// loading the dataset its node serves under that name.
std::vector<actors::party_spec> owner_nodes_of(const std::string& list,
                                               const std::string& label) {
  std::vector<actors::party_spec> out;
  std::size_t at = 0;
  while (at <= list.size()) {
    auto comma = list.find(',', at);
    auto item = list.substr(at, comma == std::string::npos ? std::string::npos
                                                           : comma - at);
    auto slash = item.find('/');
    actors::party_spec p;
    if (slash == std::string::npos || slash + 1 == item.size() ||
        !parse_location(item.substr(0, slash), p.host, p.port))
      throw input_error("--set ldp.owner_nodes: \"" + item +
                        "\" is not HOST:PORT/DATASET");
    p.name = "owners" + std::to_string(out.size() + 1);
    p.data.path = item.substr(slash + 1);
    p.data.label_column = label;
    out.push_back(std::move(p));
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  return out;
}

/// Each owner's guarantee, in words.
std::string privacy_line(const lb::params& p, std::size_t per_owner) {
  std::ostringstream os;
  if (p.mech == lb::mechanism::identity)
    return "none: ldp.mechanism=identity releases the owners' data as it is";
  os << "each owner makes one " << lb::to_string(p.mech)
     << " release in its lifetime: epsilon = " << p.epsilon << " local DP "
     << "for its " << per_owner << " rows together";
  if (p.base == lb::learner::ncc)
    os << " (each row released at "
       << p.epsilon / static_cast<double>(per_owner)
       << ", composed); NOT covered, as in the paper (spec §6.5): each "
          "row's label and its SAMME weight go in the clear, and the "
          "weight tells which rows the earlier rounds misclassified";
  os << "; the data user learns which owners took part";
  return os.str();
}

} // namespace

int run_ldpboost_train(const train_options& o) {
  if (o.delta > 0)
    throw input_error("--delta: LDP boosting's guarantee is pure epsilon-LDP");
  if (!o.categorical.empty())
    throw input_error("--categorical: only for --protocol opboost");
  if (!o.model_out.empty())
    throw input_error("--model-out: LDP boosting's ensemble is the data "
                      "user's; --report holds it");
  if (o.parties != 0)
    throw input_error("--parties: LDP boosting's owners are the rows dealt "
                      "ldp.samples_per_owner each");
  if (o.objective != "binary:logistic" && o.objective != "multi:softmax")
    throw input_error("--objective " + o.objective +
                      ": LDP boosting classifies (SAMME)");
  auto timeout = checked_timeout(o.timeout, "--timeout");
  auto c = ldp_settings_of(o);
  auto sets = sets_of(o, c);
  c.params.classes = sets.classes;
  c.params.validate();
  actors::ldpboost_config cfg;
  lb::dealt_table dealt;
  if (o.tls.enabled() && c.owner_nodes.empty())
    throw input_error("--tls-*: the owners are in this process; TLS is for "
                      "owners on nodes (ldp.owner_nodes)");
  if (c.owner_nodes.empty()) {
    dealt = lb::deal_owners(sets.owners, c.per_owner, sets.user, sets.test);
  } else {
    if (c.per_owner == 0)
      throw input_error("ldp.samples_per_owner must be at least 1");
    cfg.tls = o.tls;
    dealt.parties.push_back({"user", sets.user, sets.test});
    cfg.remote_parties = owner_nodes_of(c.owner_nodes, o.label);
    cfg.per_owner = static_cast<std::uint32_t>(c.per_owner);
  }
  std::size_t owners = dealt.parties.size() - 1;
  cfg.params = c.params;
  cfg.parties = std::move(dealt.parties);
  cfg.timeout = timeout;
  cfg.link = o.link;
  if (cfg.remote_parties.empty())
    std::cerr << "veil: note: " << owners << " owners of " << c.per_owner
              << " rows, ";
  else
    std::cerr << "veil: note: owners of " << c.per_owner << " rows on "
              << cfg.remote_parties.size() << " nodes, ";
  std::cerr << sets.user.rows() << " rows at the data user, "
            << sets.test.rows() << " to evaluate on";
  if (dealt.unused > 0)
    std::cerr << " (" << dealt.unused << " rows left over)";
  std::cerr << "\n";
  if (o.plan)
    return print_plan("ldp-boost",
                      cfg.remote_parties.empty()
                          ? std::to_string(owners) + " owners"
                          : "owners on " +
                                std::to_string(cfg.remote_parties.size()) +
                                " nodes",
                      privacy_line(c.params, c.per_owner));
  std::cerr << "privacy: " << privacy_line(c.params, c.per_owner) << "\n";
  actors::ldpboost_outcome out;
  {
    progress_printer progress(o.quiet, "round");
    out =
        actors::ldpboost_session::run(std::move(cfg), {}, progress.callback());
  }
  if (!out.ok())
    return session_failure(out);
  const auto& r = *out.result;
  owners = r.owners;
  double wrong = 0;
  for (std::size_t i = 0; i < r.margins.size(); ++i)
    wrong += r.margins[i] != r.labels[i];
  double error =
      r.margins.empty() ? 0 : wrong / static_cast<double>(r.margins.size());
  std::cout << "trained " << r.ensemble.size() << " "
            << lb::to_string(c.params.base) << " rounds with " << owners
            << " owners (" << r.burned << " asked, " << r.silent << " silent, "
            << r.rejected << " attempts rejected) in " << std::fixed
            << std::setprecision(3) << r.train_seconds << " s\n"
            << std::defaultfloat;
  if (!r.stopped.empty())
    std::cout << "stopped early: " << r.stopped << "\n";
  std::cout << "test error by round:";
  for (auto e : r.staged_test_errors)
    std::cout << " " << std::setprecision(4) << e;
  std::cout << "\ntest: accuracy " << 1 - error << "  error " << error << "\n"
            << "privacy: " << privacy_line(c.params, c.per_owner) << "\n";
  if (!o.report.empty()) {
    json members = json::array();
    for (std::size_t m = 0; m < r.ensemble.size(); ++m) {
      json j = {{"alpha", r.alpha[m]}, {"train_error", r.errors[m]}};
      std::visit(
          [&](const auto& h) {
            using T = std::decay_t<decltype(h)>;
            if constexpr (std::is_same_v<T, learners::nearest_centroid>)
              j["centroids"] = h.centroids;
            else if constexpr (std::is_same_v<T, learners::stump>)
              j["stump"] = {{"feature", h.feature},
                            {"threshold", h.threshold},
                            {"leaf", {h.leaf[0], h.leaf[1]}}};
            else
              j["theta"] = h.theta;
          },
          r.ensemble[m]);
      members.push_back(j);
    }
    std::uint64_t sent = 0;
    for (const auto& q : r.parties)
      sent += q.bytes.total_sent();
    json report = {{"veil_version", VEIL_VERSION},
                   {"protocol", "ldp-boost"},
                   {"data", sets.name},
                   {"owners", owners},
                   {"samples_per_owner", c.per_owner},
                   {"user_rows", sets.user.rows()},
                   {"test_rows", sets.test.rows()},
                   {"classes", c.params.classes},
                   {"params",
                    {{"learner", lb::to_string(c.params.base)},
                     {"mechanism", lb::to_string(c.params.mech)},
                     {"epsilon", c.params.epsilon},
                     {"rounds", c.params.rounds},
                     {"owners_per_round", c.params.owners_per_round},
                     {"max_attempts", c.params.max_attempts}}},
                   {"metrics", {{"accuracy", 1 - error}, {"error", error}}},
                   {"metrics_on", "test"},
                   {"staged_test_errors", r.staged_test_errors},
                   {"ensemble", members},
                   {"scaling", {{"lower", r.lower}, {"upper", r.upper}}},
                   {"owners_asked", r.burned},
                   {"owners_silent", r.silent},
                   {"attempts_rejected", r.rejected},
                   {"stopped", r.stopped},
                   {"train_seconds", r.train_seconds},
                   {"bytes", {{"total", sent}}},
                   {"privacy",
                    {{"mechanism", lb::to_string(c.params.mech)},
                     {"epsilon_per_owner", c.params.epsilon},
                     {"statement", privacy_line(c.params, c.per_owner)}}}};
    learners::write_files_atomically({{o.report, report.dump(2) + "\n"}});
  }
  return 0;
}

int run_ldpboost_config(const session_config& c, const train_options& o) {
  // The party with the label is the data user's table, dealt as veil train
  // --data deals it; the others are owner blocks on their nodes.
  auto context = c.source + ": ";
  const auto& user = c.parties[c.active_party()];
  auto where = context + "party " + user.name + ": ";
  if (!user.is_local())
    throw input_error(where + "the data user (the party with the label) "
                              "runs in this process");
  if (!user.id.empty())
    throw input_error(where + "ldp-boost aligns no rows (each owner holds "
                              "rows of its own): no id column");
  if (!user.features.empty()) {
    std::vector<std::string> all;
    for (const auto& h : learners::csv_header(user.data))
      if (h != user.label)
        all.push_back(h);
    if (user.features != all)
      throw input_error(where + "ldp-boost reads every feature column of " +
                        user.data + " in its order; list none, or all");
  }
  train_options flags = o;
  flags.config.clear();
  flags.protocol = "ldp-boost";
  flags.data = user.data;
  flags.test = user.test;
  flags.label = user.label;
  flags.params = c.params;
  flags.tls = {c.tls.certificate, c.tls.key, c.tls.ca};
  flags.settings.clear();
  for (const auto& [k, v] : c.protocol_params)
    flags.settings.push_back(k + "=" + v);
  // A file shared by several protocols (veil repl's) may set the trees'
  // keys: they do not apply here, and the note says so.
  for (const auto& [k, v] : c.learner_keys)
    if (k != "trees" && k != "num_boost_round")
      std::cerr << "veil: note: " << c.source << ": [learner] " << k
                << " does not apply to ldp-boost (it takes trees, its "
                   "rounds): not used\n";
  std::string nodes;
  for (const auto& q : c.parties) {
    if (&q == &user)
      continue;
    if (q.is_local())
      throw input_error(context + "party " + q.name +
                        ": an ldp-boost session's other parties are owner "
                        "blocks on veil nodes (at HOST:PORT, data naming the "
                        "node's dataset); the owners in this process are "
                        "dealt from " +
                        user.name + "'s table");
    if (!q.id.empty() || !q.test.empty() || !q.features.empty())
      throw input_error(context + "party " + q.name +
                        ": an owner block takes its location and data (the "
                        "dataset its node deals to owners) only, no id, "
                        "test or features");
    nodes += (nodes.empty() ? "" : ",") + q.location + "/" + q.data;
  }
  if (!nodes.empty()) {
    if (c.protocol_params.contains("ldp.owner_nodes"))
      throw input_error(context + "ldp.owner_nodes and owner parties: name "
                                  "the owner blocks one way");
    flags.settings.push_back("ldp.owner_nodes=" + nodes);
  }
  try {
    return run_ldpboost_train(flags);
  } catch (const input_error& e) {
    // Its checks speak of flags: these values are the file's.
    throw input_error(context + e.what());
  }
}

int predict_ldpboost(const prediction_plan&, const predict_options&,
                     const protocols::session::federated_model&,
                     federated_prediction&) {
  throw input_error("LDP boosting writes no model file to predict from");
}

} // namespace veil::apps
