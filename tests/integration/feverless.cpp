// FEVERLESS across real OS processes on 127.0.0.1: four clients, two of
// them on `veil node`s, each loading its own file (labels spread by the
// files' label columns). feverless-plain trains exactly the model of the
// same session in one process; feverless (with noise) runs and reports its
// privacy; a node killed mid-training fails the session within the timeout
// with an error naming its client. --model-out writes the public model (no
// thresholds) and one split table per client.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>

#include "tests/integration/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil::test;
using namespace std::chrono_literals;

namespace {

const char* const clients[] = {"bank", "shop", "insurer", "telco"};

/// Four clients' train and test files (2000 + 500 rows, 8 features x0..x7,
/// an id column): every file holds every column; row i's label is in
/// client (i * 7 + i / 3) % 4's file only. Rows of client 2's files come in
/// reverse order (the id alignment puts them back).
struct spread_data {
  temp_dir dir;

  spread_data() {
    lcg next(2026);
    for (auto [part, rows] : {std::pair{"train", 2000}, {"test", 500}}) {
      std::vector<std::string> lines;
      std::vector<int> owner, label;
      for (int i = 0; i < rows; ++i) {
        double x[8];
        for (auto& v : x)
          v = next();
        std::string line = std::string(part) + std::to_string(i);
        for (auto v : x)
          line += "," + std::to_string(v);
        lines.push_back(line);
        label.push_back(x[0] + 0.6 * x[3] - 0.4 * x[6] + 0.3 * next() > 0.75);
        owner.push_back((i * 7 + i / 3) % 4);
      }
      for (int c = 0; c < 4; ++c) {
        std::string text = "id,x0,x1,x2,x3,x4,x5,x6,x7,label\n";
        for (int k = 0; k < rows; ++k) {
          int i = c == 2 ? rows - 1 - k : k;
          text += lines[i] + "," +
                  (owner[i] == c ? std::to_string(label[i]) : "") + "\n";
        }
        dir.file(std::string(clients[c]) + "_" + part + ".csv", text);
      }
    }
  }

  /// A node serving the train and test files of the parties `names`
  /// under their file names ("shop_train.csv", as session() names them).
  std::vector<std::string> node(const std::vector<std::string>& names,
                                const std::string& store = "") const {
    return node_serving_parties(dir.dir().string(), names, store);
  }

  /// A session file; `where[c]` is "local" or "127.0.0.1:PORT".
  std::string session(const std::string& protocol, int trees, double timeout,
                      const std::vector<std::string>& where,
                      const std::string& name) const {
    // feverless-plain takes no budget (it adds no noise).
    std::string t = "timeout_seconds = " + std::to_string(timeout) +
                    "\n\n[protocol]\nname = \"" + protocol + "\"\n" +
                    (protocol == "feverless-plain" ? "" : "epsilon = 4\n") +
                    "feverless.buckets = 8\n\n"
                    "[learner]\ntrees = " +
                    std::to_string(trees) + "\nmax_depth = 3\neta = 0.3\n\n";
    for (int c = 0; c < 4; ++c) {
      std::string n = clients[c];
      t += "[[party]]\nname = \"" + n + "\"\ndata = \"" + n +
           "_train.csv\"\ntest = \"" + n +
           "_test.csv\"\nid = \"id\"\nlabel = \"label\"\nfeatures = [\"x" +
           std::to_string(2 * c) + "\", \"x" + std::to_string(2 * c + 1) +
           "\"]\nlocation = \"" + where[c] + "\"\n\n";
    }
    return dir.file(name, t);
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(feverless)

BOOST_AUTO_TEST_CASE(two_clients_on_nodes_train_the_model_of_one_process) {
  spread_data d;
  process shop(d.node({"shop"}, d.dir / "shop-store"));
  process telco(d.node({"telco"}, d.dir / "telco-store"));
  auto shop_at = node_address(shop), telco_at = node_address(telco);
  auto remote = d.session("feverless-plain", 4, 20,
                          {"local", shop_at, "local", telco_at}, "remote.toml");
  auto local = d.session("feverless-plain", 4, 20,
                         {"local", "local", "local", "local"}, "local.toml");
  auto [rc, out] =
      run_veil({"train", "--config", remote, "--report", d.dir / "remote.json",
                "--model-out", d.dir / "remote-model.json"},
               60s);
  BOOST_REQUIRE_MESSAGE(rc == 0, "veil train: " << out);
  BOOST_TEST(contains(out, "4 clients, 2 on other nodes"), out);
  BOOST_TEST(shop.wait(10s) == 0);
  BOOST_TEST(telco.wait(10s) == 0);
  BOOST_TEST(contains(shop.output(), "party shop started (feverless)"));
  auto [rc2, out2] =
      run_veil({"train", "--config", local, "--report", d.dir / "local.json",
                "--model-out", d.dir / "local-model.json"},
               60s);
  BOOST_REQUIRE_MESSAGE(rc2 == 0, "veil train: " << out2);
  BOOST_TEST(contains(out2, "4 clients in this process"), out2);

  // Exactly the same public model and split tables (each session gives
  // its model a fresh id).
  BOOST_TEST(without_model_id(read_json(d.dir / "remote-model.json")) ==
             without_model_id(read_json(d.dir / "local-model.json")));
  // The clients on nodes keep their tables in their nodes' stores.
  auto id = read_json(d.dir / "remote-model.json")["session"]["model_id"]
                .get<std::string>();
  for (std::string c : clients) {
    auto table = c == "shop" || c == "telco"
                     ? d.dir / (c + "-store/" + id + "." + c + ".part")
                     : d.dir / ("remote-model.json." + c);
    BOOST_REQUIRE_MESSAGE(std::filesystem::exists(table), table);
    BOOST_TEST(without_model_id(read_json(table)) ==
               without_model_id(read_json(d.dir / ("local-model.json." + c))));
  }
  auto r = read_json(d.dir / "remote.json");
  auto l = read_json(d.dir / "local.json");
  BOOST_TEST(r["metrics"]["auc"].get<double>() ==
             l["metrics"]["auc"].get<double>());
  BOOST_TEST(r["metrics"]["auc"].get<double>() > 0.75);
  BOOST_TEST(r["metrics_on"] == "test");
  BOOST_TEST(r["rows"] == 2000);
  BOOST_TEST(r["test_rows"] == 500);
  BOOST_TEST(r["parties"] == 4);
  BOOST_TEST(r["privacy"]["mechanism"] == "none");
  BOOST_TEST(r["bytes"]["per_party"]["shop"]["received"] ==
             l["bytes"]["per_party"]["shop"]["received"]);
}

// Early stopping with the clients' labels in their own files: the
// coordinator gathers the test labels first, evaluates every tree as
// client 0 predicts it, and every client, here or on a node, keeps the
// best trees: the same stop, model and history as in one process.
BOOST_AUTO_TEST_CASE(early_stopping_with_clients_on_nodes) {
  spread_data d;
  process shop(d.node({"shop"}));
  auto shop_at = node_address(shop);
  auto remote = d.session("feverless-plain", 60, 20,
                          {"local", shop_at, "local", "local"}, "remote.toml");
  auto local = d.session("feverless-plain", 60, 20,
                         {"local", "local", "local", "local"}, "local.toml");
  nlohmann::json reports[2];
  int k = 0;
  for (const auto& file : {remote, local}) {
    auto report = d.dir / ("es" + std::to_string(k) + ".json");
    auto [rc, out] =
        run_veil({"train", "--config", file, "--depth", "6", "--eta", "1",
                  "--set", "early_stopping_rounds=2", "--report", report},
                 60s);
    BOOST_REQUIRE_MESSAGE(rc == 0, "veil train: " << out);
    BOOST_TEST(contains(out, "stopped early at round"), out);
    reports[k++] = read_json(report);
  }
  BOOST_TEST(shop.wait(10s) == 0);
  const auto& e = reports[0]["early_stopping"];
  BOOST_TEST(e["stopped"] == true);
  BOOST_TEST(reports[0]["trees"] == e["best_round"]);
  BOOST_TEST(e["best_score"] == reports[0]["metrics"]["auc"]);
  BOOST_TEST(e == reports[1]["early_stopping"]);
  BOOST_TEST(reports[0]["history"] == reports[1]["history"]);
  BOOST_TEST(reports[0]["metrics"] == reports[1]["metrics"]);
}

BOOST_AUTO_TEST_CASE(a_noisy_model_predicts_later_through_clients_on_nodes) {
  // FEVERLESS with noise, two clients on nodes: each client keeps its
  // split table where it runs; later, clients on fresh nodes restore them
  // and predict the test rows as the training session did, exactly.
  spread_data d;
  auto model = d.dir / "model.json";
  {
    process shop(d.node({"shop"}, d.dir / "shop-store"));
    process telco(d.node({"telco"}, d.dir / "telco-store"));
    auto file =
        d.session("feverless", 3, 20,
                  {"local", node_address(shop), "local", node_address(telco)},
                  "train.toml");
    auto [rc, out] = run_veil({"train", "--config", file, "--report",
                               d.dir / "train.json", "--model-out", model},
                              60s);
    BOOST_REQUIRE_MESSAGE(rc == 0, "veil train: " << out);
    BOOST_TEST(shop.wait(10s) == 0);
    BOOST_TEST(telco.wait(10s) == 0);
  }
  auto t = read_json(d.dir / "train.json");
  BOOST_TEST(t["split_tables_exported"].empty());
  BOOST_TEST(t["model_parts"].size() == 4u);
  process shop(d.node({"shop"}, d.dir / "shop-store"));
  process telco(d.node({"telco"}, d.dir / "telco-store"));
  auto file =
      d.session("feverless", 3, 20,
                {"local", node_address(shop), "local", node_address(telco)},
                "predict.toml");
  auto [rc, out] =
      run_veil({"predict", "--model", model, "--config", file, "--report",
                d.dir / "predict.json", "--out", d.dir / "p.csv"},
               60s);
  BOOST_REQUIRE_MESSAGE(rc == 0, "veil predict: " << out);
  BOOST_TEST(contains(out, "predicted 500 rows with 4 parties"), out);
  // One row per prediction, by id, in client 0's order.
  auto csv = read_text(d.dir / "p.csv");
  BOOST_TEST(csv.rfind("id,prediction\ntest0,", 0) == 0, csv.substr(0, 40));
  auto p = read_json(d.dir / "predict.json");
  for (auto metric : {"auc", "logloss", "accuracy"})
    BOOST_TEST(t["metrics"][metric].get<double>() ==
                   p["metrics"][metric].get<double>(),
               metric);
}

BOOST_AUTO_TEST_CASE(feverless_with_noise_runs_across_processes) {
  spread_data d;
  process shop(d.node({"shop", "telco"}));
  auto shop_at = node_address(shop);
  auto file = d.session("feverless", 2, 20,
                        {"local", shop_at, "local", shop_at}, "noisy.toml");
  auto [rc, out] =
      run_veil({"train", "--config", file, "--report", d.dir / "r.json"}, 60s);
  BOOST_REQUIRE_MESSAGE(rc == 0, "veil train: " << out);
  BOOST_TEST(contains(out, "privacy: each label: (4, 1e-05)-DP over the "
                           "whole training against any one other "
                           "client, by zCDP"),
             out);
  BOOST_TEST(shop.wait(10s) == 0);
  BOOST_TEST(contains(shop.output(), "party telco started (feverless)"));
  auto r = read_json(d.dir / "r.json");
  const auto& pv = r["privacy"];
  BOOST_TEST(pv["mechanism"] == "discrete gaussian in the fixed point (2^-32 "
                                "units), one noise leader per query");
  BOOST_TEST(pv["budget"] == "total");
  BOOST_TEST(pv["budget_epsilon"].get<double>() == 4.0);
  BOOST_TEST(pv["sigma"].get<double>() > 0);
  BOOST_TEST(std::fabs(pv["total"]["epsilon"].get<double>() - 4.0) <= 1e-9);
  BOOST_TEST(pv["total"]["by"] == "zcdp");
  BOOST_TEST(pv["realised"]["epsilon"].get<double>() <= 4.0 + 1e-9);
  BOOST_TEST(r["params"]["buckets"] == 8);
  BOOST_TEST(r["trees"] == 2);
}

BOOST_AUTO_TEST_CASE(a_node_killed_mid_training_fails_the_session) {
  spread_data d;
  process shop(d.node({"shop"}));
  process telco(d.node({"telco"}));
  auto shop_at = node_address(shop), telco_at = node_address(telco);
  // Far more trees than can finish before the node dies.
  auto file = d.session("feverless-plain", 60000, 3,
                        {"local", shop_at, "local", telco_at}, "s.toml");
  process train({"train", "--config", file});
  BOOST_REQUIRE_MESSAGE(telco.wait_for(std::regex("party telco started"), 20s),
                        "node output: " << telco.output());
  std::this_thread::sleep_for(1500ms); // loading, then training
  BOOST_REQUIRE_MESSAGE(train.running(),
                        "the session ended early: " << train.output());
  auto killed = std::chrono::steady_clock::now();
  telco.kill(SIGKILL);
  auto rc = train.wait(15s);
  auto took = std::chrono::steady_clock::now() - killed;
  BOOST_TEST_MESSAGE("veil train: " << train.output());
  BOOST_TEST(rc == 1);
  BOOST_TEST((took < 6s)); // the timeout (3 s) plus slack
  BOOST_TEST(contains(train.output(), "veil: error:"));
  BOOST_TEST(contains(train.output(), "telco ended"), train.output());
  BOOST_TEST(contains(train.output(), "at step"), train.output());
  // The other node's client ends with the session; --once ends the node.
  BOOST_TEST(shop.wait(15s) == 0);
}

BOOST_AUTO_TEST_CASE(bad_parameters_and_labels_stop_with_code_2) {
  spread_data d;
  std::vector<std::string> here(4, "local");
  auto file = d.session("feverless", 2, 10, here, "s.toml");
  auto text = read_text(file);
  auto bad = d.dir.file("bad.toml",
                        text.replace(text.find("feverless.buckets = 8"), 21,
                                     "feverless.election = \"per_bach\""));
  auto [rc, out] = run_veil({"train", "--config", bad}, 30s);
  BOOST_TEST(rc == 2);
  BOOST_TEST(contains(out, bad +
                               ":6: [protocol] feverless.election = "
                               "per_bach: expected chain, signed or per_batch"),
             out);
  // The shop labels every row too: the counts do not add up.
  d.dir.file("shop_train.csv", [&] {
    auto t = read_text(d.dir / "bank_train.csv");
    std::string all;
    std::size_t at = 0;
    for (auto nl = t.find('\n'); nl != std::string::npos;
         at = nl + 1, nl = t.find('\n', at)) {
      auto line = t.substr(at, nl - at);
      all += line + (line.back() == ',' ? "1" : "") + "\n";
    }
    return all;
  }());
  auto [rc2, out2] = run_veil({"train", "--config", file}, 30s);
  BOOST_TEST(rc2 == 2);
  BOOST_TEST(contains(out2, "labels for 2000 training rows"), out2);
  BOOST_TEST(contains(out2, "shop 2000"), out2);
}

BOOST_AUTO_TEST_CASE(a_row_labelled_by_two_clients_stops_the_session) {
  // The bank gives up its label of train0 and also labels train4, the
  // shop's: every client's count is unchanged, the label census sees it.
  spread_data d;
  std::vector<std::string> here(4, "local");
  auto file = d.session("feverless", 1, 10, here, "s.toml");
  auto t = read_text(d.dir / "bank_train.csv");
  auto row0 = t.find("\ntrain0,") + 1;
  auto end0 = t.find('\n', row0);
  t.erase(t.rfind(',', end0) + 1, end0 - t.rfind(',', end0) - 1);
  auto end4 = t.find('\n', t.find("\ntrain4,") + 1);
  BOOST_REQUIRE(t[end4 - 1] == ',');
  t.insert(end4, "1");
  d.dir.file("bank_train.csv", t);
  auto [rc, out] = run_veil({"train", "--config", file}, 30s);
  BOOST_TEST(rc == 2); // bad data, not a failing party
  BOOST_TEST(contains(out, "at step label_census: every row's label"), out);
  BOOST_TEST(contains(out, "data row 1 has no label, data row 5 has 2 labels"),
             out);
  BOOST_TEST(!contains(out, "refused"), out);
}

BOOST_AUTO_TEST_SUITE_END()
