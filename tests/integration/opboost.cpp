// OpBoost across real OS processes on 127.0.0.1: Party A (the label
// holder) in the process of `veil train --config`, two Party B users each
// on a `veil node`, every party loading its own file. With the identity
// mechanism the model and the metrics are exactly those of the same
// session in one process; with a dLDP mechanism it runs and reports its
// budget; a node killed mid-session fails the session within the timeout
// with an error naming its party.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <sys/stat.h>

#include "tests/integration/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil::test;
using namespace std::chrono_literals;

namespace {

const char* const parties[] = {"bank", "shop", "insurer"};

/// Train and test files (1500 + 400 rows, x0..x7, an id column and the
/// label), one per party: every file holds every column, each party uses
/// its own (bank x0 x1 and the label, shop x2-x4, insurer x5-x7). The
/// insurer's rows come in reverse order (the id alignment puts them back).
struct op_data {
  temp_dir dir;

  op_data() {
    lcg next(77);
    for (auto [part, rows] : {std::pair{"train", 1500}, {"test", 400}}) {
      std::vector<std::string> lines;
      for (int i = 0; i < rows; ++i) {
        double x[8];
        for (auto& v : x)
          v = next();
        std::string line = std::string(part) + std::to_string(i);
        for (int j = 0; j < 8; ++j)
          line += "," + std::to_string(j == 4 ? 100 * x[j] : x[j]);
        bool y = x[0] + 0.8 * x[3] - 0.5 * x[6] + 0.3 * next() > 0.8;
        lines.push_back(line + "," + (y ? "1" : "0"));
      }
      for (int c = 0; c < 3; ++c) {
        std::string text = "id,x0,x1,x2,x3,x4,x5,x6,x7,label\n";
        for (int k = 0; k < rows; ++k)
          text += lines[c == 2 ? rows - 1 - k : k] + "\n";
        dir.file(std::string(parties[c]) + "_" + part + ".csv", text);
      }
    }
  }

  /// A session file; `where[c]` is "local" or "127.0.0.1:PORT".
  std::string session(const std::string& mechanism, double timeout,
                      const std::vector<std::string>& where,
                      const std::string& name) const {
    static const char* const features[] = {
        "\"x0\", \"x1\"", "\"x2\", \"x3\", \"x4\"", "\"x5\", \"x6\", \"x7\""};
    std::string t = "timeout_seconds = " + std::to_string(timeout) +
                    "\n\n[protocol]\nname = \"opboost\"\nepsilon = 2\n"
                    "opboost.mechanism = \"" +
                    mechanism +
                    "\"\n\n[protocol.opboost.bounds]\nx2 = \"0:1\"\n"
                    "x4 = \"0:100\"\n\n"
                    "[learner]\ntrees = 6\nmax_depth = 3\neta = 0.3\n\n";
    for (int c = 0; c < 3; ++c) {
      std::string n = parties[c];
      t += "[[party]]\nname = \"" + n + "\"\ndata = \"" + n +
           "_train.csv\"\ntest = \"" + n + "_test.csv\"\nid = \"id\"\n" +
           (c == 0 ? "label = \"label\"\n" : "") + "features = [" +
           features[c] + "]\nlocation = \"" + where[c] + "\"\n\n";
    }
    return dir.file(name, t);
  }

  /// A node serving the train and test files of the parties `names`
  /// under their file names ("shop_train.csv", as session() names them).
  std::vector<std::string> node(const std::vector<std::string>& names,
                                const std::string& store = "") const {
    return node_serving_parties(dir.dir().string(), names, store);
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(opboost)

BOOST_AUTO_TEST_CASE(party_bs_on_nodes_train_the_model_of_one_process) {
  op_data d;
  process shop(d.node({"shop"}, d.dir / "shop-store"));
  process insurer(d.node({"insurer"}, d.dir / "insurer-store"));
  auto shop_at = node_address(shop), insurer_at = node_address(insurer);
  auto remote =
      d.session("identity", 20, {"local", shop_at, insurer_at}, "remote.toml");
  auto local =
      d.session("identity", 20, {"local", "local", "local"}, "local.toml");
  auto [rc, out] =
      run_veil({"train", "--config", remote, "--report", d.dir / "remote.json",
                "--model-out", d.dir / "remote-model.json"},
               60s);
  BOOST_REQUIRE_MESSAGE(rc == 0, "veil train: " << out);
  BOOST_TEST(contains(out, "3 parties, 2 on other nodes"), out);
  BOOST_TEST(contains(out, "test (private prediction)"), out);
  // x3 (shop), x5, x6, x7 (insurer) have no public bounds.
  BOOST_TEST(contains(out, "column(s) x3, x5, x6, x7 were taken from the data"),
             out);
  BOOST_TEST(shop.wait(10s) == 0);
  BOOST_TEST(insurer.wait(10s) == 0);
  BOOST_TEST(contains(shop.output(), "party shop started (opboost)"));
  BOOST_TEST(contains(insurer.output(), "party insurer started (opboost)"));
  auto [rc2, out2] =
      run_veil({"train", "--config", local, "--report", d.dir / "local.json",
                "--model-out", d.dir / "local-model.json"},
               60s);
  BOOST_REQUIRE_MESSAGE(rc2 == 0, "veil train: " << out2);
  BOOST_TEST(contains(out2, "3 parties in this process"), out2);

  // The same model (each session gives it a fresh id).
  auto model = without_model_id(read_json(d.dir / "remote-model.json"));
  BOOST_TEST(model["trees"].size() == 6u);
  BOOST_TEST(model == without_model_id(read_json(d.dir / "local-model.json")));
  auto r = read_json(d.dir / "remote.json");
  auto l = read_json(d.dir / "local.json");
  BOOST_TEST(r["metrics"] == l["metrics"]);
  BOOST_TEST(r["metrics"]["auc"].get<double>() > 0.75);
  BOOST_TEST(r["metrics_on"] == "test");
  BOOST_TEST(r["rows"] == 1500);
  BOOST_TEST(r["test_rows"] == 400);
  BOOST_TEST(r["features"] == 8);
  BOOST_TEST(r["parties"] == 3);
  BOOST_TEST(r["trees"] == 6);
  BOOST_TEST(r["bounds"]["public_columns"] == l["bounds"]["public_columns"]);
  BOOST_TEST(r["bounds"]["fitted"].size() == 4u);
  BOOST_TEST(r["privacy"]["mechanism"] == "identity");
  BOOST_TEST(r["bytes"]["per_party"]["shop"]["received"] ==
             l["bytes"]["per_party"]["shop"]["received"]);
  BOOST_TEST(r["model_parts"].size() == 2u);

  // Later, the model predicts through Party B users on fresh nodes, each
  // restoring its part (bounds and mechanism) from the file it kept; with
  // the identity mechanism, the training session's metrics exactly.
  process shop2(d.node({"shop"}, d.dir / "shop-store"));
  process insurer2(d.node({"insurer"}, d.dir / "insurer-store"));
  auto again = d.session("identity", 20,
                         {"local", node_address(shop2), node_address(insurer2)},
                         "again.toml");
  auto [rc3, out3] =
      run_veil({"predict", "--model", d.dir / "remote-model.json", "--config",
                again, "--report", d.dir / "predict.json"},
               60s);
  BOOST_REQUIRE_MESSAGE(rc3 == 0, "veil predict: " << out3);
  BOOST_TEST(contains(out3, "predicted 400 rows with 3 parties (opboost, 2 on "
                            "other nodes)"),
             out3);
  auto p = read_json(d.dir / "predict.json");
  BOOST_TEST(p["metrics"] == r["metrics"]);
}

BOOST_AUTO_TEST_CASE(a_dldp_mechanism_runs_across_processes) {
  op_data d;
  process nodes(d.node({"shop", "insurer"}));
  auto nodes_at = node_address(nodes);
  auto file =
      d.session("global-map", 20, {"local", nodes_at, nodes_at}, "s.toml");
  auto [rc, out] =
      run_veil({"train", "--config", file, "--report", d.dir / "r.json"}, 60s);
  BOOST_REQUIRE_MESSAGE(rc == 0, "veil train: " << out);
  BOOST_TEST(contains(out, "privacy: each Party B value: 2-dLDP (global-map)"),
             out);
  BOOST_TEST(nodes.wait(10s) == 0);
  auto r = read_json(d.dir / "r.json");
  BOOST_TEST(r["privacy"]["epsilon"].get<double>() == 2.0);
  BOOST_TEST(r["privacy"]["per_feature"].size() == 6u);
  BOOST_TEST(r["privacy"].contains("prediction_note"));
}

BOOST_AUTO_TEST_CASE(a_node_killed_mid_session_fails_the_session) {
  op_data d;
  process shop(d.node({"shop"}));
  process insurer(d.node({"insurer"}));
  auto shop_at = node_address(shop), insurer_at = node_address(insurer);
  // The insurer's training file is a pipe nobody writes to: its party
  // blocks reading it, so that the session is surely under way (the other
  // parties have loaded theirs) when its node dies.
  auto pipe = d.dir / "insurer_train.csv";
  std::filesystem::remove(pipe);
  BOOST_REQUIRE(::mkfifo(pipe.c_str(), 0600) == 0);
  auto file =
      d.session("identity", 3, {"local", shop_at, insurer_at}, "s.toml");
  process train({"train", "--config", file});
  BOOST_REQUIRE_MESSAGE(
      insurer.wait_for(std::regex("party insurer started"), 20s),
      "node output: " << insurer.output());
  std::this_thread::sleep_for(300ms);
  BOOST_REQUIRE_MESSAGE(train.running(),
                        "the session ended early: " << train.output());
  auto killed = std::chrono::steady_clock::now();
  insurer.kill(SIGKILL);
  auto rc = train.wait(15s);
  auto took = std::chrono::steady_clock::now() - killed;
  BOOST_TEST_MESSAGE("veil train: " << train.output());
  BOOST_TEST(rc == 1);
  BOOST_TEST((took < 6s)); // the timeout (3 s) plus slack
  BOOST_TEST(contains(train.output(), "veil: error:"));
  BOOST_TEST(contains(train.output(), "insurer"), train.output());
  BOOST_TEST(contains(train.output(), "at step load training data"),
             train.output());
  // The shop's party ends with the session; --once ends its node.
  BOOST_TEST(shop.wait(15s) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
