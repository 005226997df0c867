// A session across real OS processes on 127.0.0.1: two `veil node`s and the
// coordinator (`veil train --config`, with the active party in its own
// process). The model is the same as with every party in one process, so
// the test AUC is too; a node killed mid-training ends the session with an
// error naming its party, within the timeout.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>

#include "tests/integration/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil::test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(sessions)

BOOST_AUTO_TEST_CASE(three_processes_train_and_predict_as_in_one) {
  if (!have_adult()) {
    BOOST_TEST_MESSAGE("skipped: " << adult("train") << " is missing");
    return;
  }
  temp_dir dir;
  adult_nodes nodes(dir);
  auto& shop = nodes.shop;
  auto& insurer = nodes.insurer;
  auto remote = dir.file("remote.toml", nodes.session(10, 4));
  auto local =
      dir.file("local.toml", adult_session(10, 4, 30, "local", "local"));
  auto [rc, out] =
      run_veil({"train", "--config", remote, "--report", dir / "remote.json",
                "--model-out", dir / "model.json"},
               120s);
  BOOST_REQUIRE_MESSAGE(rc == 0, "veil train: " << out);
  BOOST_TEST(contains(out, "2 on other nodes"));
  // --once: each node exits after its session.
  BOOST_TEST(shop.wait(10s) == 0);
  BOOST_TEST(insurer.wait(10s) == 0);
  BOOST_TEST(contains(shop.output(), "party shop started"));

  auto [rc2, out2] = run_veil(
      {"train", "--config", local, "--report", dir / "local.json"}, 120s);
  BOOST_REQUIRE_MESSAGE(rc2 == 0, "veil train: " << out2);
  auto r = read_json(dir / "remote.json");
  auto l = read_json(dir / "local.json");
  double auc = r["metrics"]["auc"], auc_local = l["metrics"]["auc"];
  BOOST_TEST(std::abs(auc - auc_local) <= 1e-12);
  BOOST_TEST(auc > 0.85);
  BOOST_TEST(r["trees"] == 10);
  BOOST_TEST(r["parties"] == 3);
  BOOST_TEST(r["bytes"]["per_party"]["shop"]["received"] ==
             l["bytes"]["per_party"]["shop"]["received"]);
  // Each node keeps its party's part in its own store, whatever the
  // coordinator's paths; the coordinator keeps its own part.
  auto id =
      read_json(dir / "model.json")["session"]["model_id"].get<std::string>();
  BOOST_TEST(
      std::filesystem::exists(dir / ("shop-store/" + id + ".shop.part")));
  BOOST_TEST(!std::filesystem::exists(dir / "model.json.shop"));
  BOOST_TEST(contains(shop.output(), "party shop started (plain) for actor "),
             shop.output());
  BOOST_TEST(contains(shop.output(), "datasets adult_train, adult_test"),
             shop.output());
  BOOST_TEST(r["split_tables_exported"].empty());
}

BOOST_AUTO_TEST_CASE(a_model_predicts_later_through_parties_on_nodes) {
  // Trained with two parties on nodes, each keeping its split table on its
  // node; later, a prediction session over fresh nodes restores the parts
  // and gives the training session's test metrics exactly (the margins
  // are the same bit for bit: any difference moves the log loss).
  if (!have_adult()) {
    BOOST_TEST_MESSAGE("skipped: " << adult("train") << " is missing");
    return;
  }
  temp_dir dir;
  auto model = dir / "model.json";
  {
    adult_nodes nodes(dir);
    auto file = dir.file("train.toml", nodes.session(8, 4));
    auto [rc, out] = run_veil({"train", "--config", file, "--report",
                               dir / "train.json", "--model-out", model},
                              120s);
    BOOST_REQUIRE_MESSAGE(rc == 0, "veil train: " << out);
    BOOST_TEST(nodes.shop.wait(10s) == 0);
    BOOST_TEST(nodes.insurer.wait(10s) == 0);
  }
  // The coordinator's file cannot predict alone, and says how.
  auto [rc0, out0] =
      run_veil({"export", "--model", model, "--out", dir / "x.json"}, 30s);
  BOOST_TEST(rc0 == 2);
  BOOST_TEST(contains(out0, "--config SESSION"), out0);

  adult_nodes nodes(dir);
  auto file = dir.file("predict.toml", nodes.session(8, 4));
  auto [rc, out] =
      run_veil({"predict", "--model", model, "--config", file, "--report",
                dir / "predict.json", "--out", dir / "p.csv"},
               120s);
  BOOST_REQUIRE_MESSAGE(rc == 0, "veil predict: " << out);
  BOOST_TEST(contains(out, "2 on other nodes"), out);
  auto t = read_json(dir / "train.json");
  auto p = read_json(dir / "predict.json");
  for (auto metric : {"auc", "logloss", "accuracy"}) {
    double trained = t["metrics"][metric], predicted = p["metrics"][metric];
    BOOST_TEST(trained == predicted, metric);
  }
  BOOST_TEST(p["rows"] == t["test_rows"]);

  // The labels (and with them the model) go to the model's active party
  // only: a session file that moves the label to another party is refused
  // before anything is sent.
  auto moved = adult_session(8, 4, 30, "local", "local");
  auto at = moved.find("label = \"label\"\n");
  BOOST_REQUIRE(at != std::string::npos);
  moved.erase(at, 16);
  auto shop_at = moved.find("name = \"shop\"\n");
  BOOST_REQUIRE(shop_at != std::string::npos);
  moved.insert(shop_at + 14, "label = \"label\"\n");
  auto [rc4, out4] = run_veil(
      {"predict", "--model", model, "--config", dir.file("moved.toml", moved)},
      60s);
  BOOST_TEST(rc4 == 2);
  BOOST_TEST(contains(out4, "bank holds the labels in this model"), out4);

  // A party whose part is gone from its node's store fails the session,
  // naming it; the node's paths stay on the node.
  auto id = read_json(model)["session"]["model_id"].get<std::string>();
  BOOST_REQUIRE(
      std::filesystem::remove(dir / ("insurer-store/" + id + ".insurer.part")));
  process shop3(adult_node(dir / "shop-store"));
  process insurer3(adult_node(dir / "insurer-store"));
  auto [rc2, out2] = run_veil(
      {"predict", "--model", model, "--config",
       dir.file("again.toml", adult_session(8, 4, 30, node_address(shop3),
                                            node_address(insurer3)))},
      60s);
  BOOST_TEST(rc2 == 2);
  BOOST_TEST(contains(out2, "insurer"), out2);
  BOOST_TEST(contains(out2, "its node's store"), out2);
  BOOST_TEST(!contains(out2, dir / "insurer-store"), out2);
}

BOOST_AUTO_TEST_CASE(the_repl_predicts_through_parties_kept_on_nodes) {
  // veil repl keeps the trained session's parties alive on their nodes:
  // two predictions through them give the training's test metrics, and the
  // nodes (--once) end their session only when the REPL leaves. The plan
  // before training needs no node.
  if (!have_adult()) {
    BOOST_TEST_MESSAGE("skipped: " << adult("train") << " is missing");
    return;
  }
  temp_dir dir;
  adult_nodes nodes(dir);
  auto file = dir.file("s.toml", nodes.session(6, 4));
  auto script = dir.file(
      "s.veil", "open " + file + "\nprivacy\ntrain\npredict " + dir / "p1.csv" +
                    "\npredict " + dir / "p2.csv" + "\n");
  auto [rc, out] = run_veil({"repl", "-f", script}, 120s);
  BOOST_REQUIRE_MESSAGE(rc == 0, "veil repl: " << out);
  BOOST_TEST(contains(out, "plan: plain, 3 parties; nothing trained"), out);
  BOOST_TEST(contains(out, "2 on other nodes"), out);
  // Both predictions went through the same parties: the nodes served one
  // session each, and the test metrics are the training's.
  std::regex auc("auc ([0-9.]+)");
  std::vector<std::string> aucs;
  for (auto it = std::sregex_iterator(out.begin(), out.end(), auc);
       it != std::sregex_iterator(); ++it)
    aucs.push_back((*it)[1]);
  BOOST_REQUIRE_MESSAGE(aucs.size() >= 3, out);
  BOOST_TEST(aucs[aucs.size() - 1] == aucs[aucs.size() - 3], out);
  BOOST_TEST(aucs[aucs.size() - 2] == aucs[aucs.size() - 3], out);
  BOOST_TEST(read_text(dir / "p1.csv") == read_text(dir / "p2.csv"));
  BOOST_TEST(nodes.shop.wait(10s) == 0, nodes.shop.output());
  BOOST_TEST(nodes.insurer.wait(10s) == 0, nodes.insurer.output());
}

BOOST_AUTO_TEST_CASE(a_node_killed_mid_training_fails_the_session) {
  if (!have_adult()) {
    BOOST_TEST_MESSAGE("skipped: " << adult("train") << " is missing");
    return;
  }
  temp_dir dir;
  process shop(adult_node());
  process insurer(adult_node());
  auto shop_at = node_address(shop), insurer_at = node_address(insurer);
  // Enough trees that the session is still training when the node dies.
  auto file =
      dir.file("s.toml", adult_session(5000, 6, 5, shop_at, insurer_at));
  process train({"train", "--config", file});
  BOOST_REQUIRE_MESSAGE(
      insurer.wait_for(std::regex("party insurer started"), 30s),
      "node output: " << insurer.output());
  std::this_thread::sleep_for(1500ms); // loading Adult, then training
  BOOST_REQUIRE_MESSAGE(train.running(),
                        "the session ended early: " << train.output());
  auto killed = std::chrono::steady_clock::now();
  insurer.kill(SIGKILL);
  auto rc = train.wait(20s);
  auto took = std::chrono::steady_clock::now() - killed;
  BOOST_TEST_MESSAGE("veil train: " << train.output());
  BOOST_TEST(rc != 0);
  BOOST_TEST(rc != -1);     // it exited by itself
  BOOST_TEST((took < 12s)); // the timeout (5 s) plus the watchdog's slack
  BOOST_TEST(contains(train.output(), "insurer"));
  BOOST_TEST(contains(train.output(), "veil: error:"));
  // The other node's party ends with the session, and --once ends the node.
  BOOST_TEST(shop.wait(15s) == 0);
}

// docs/session.md: SIGINT or SIGTERM stop a node, also mid-session: its
// parties end with it, the session fails naming them, and the node's log
// says how each of its parties ended.
BOOST_AUTO_TEST_CASE(sigterm_stops_a_node_mid_session) {
  if (!have_adult()) {
    BOOST_TEST_MESSAGE("skipped: " << adult("train") << " is missing");
    return;
  }
  temp_dir dir;
  process shop(adult_node("", false)); // not --once
  process insurer(adult_node());
  auto shop_at = node_address(shop), insurer_at = node_address(insurer);
  auto file =
      dir.file("s.toml", adult_session(5000, 6, 5, shop_at, insurer_at));
  process train({"train", "--config", file});
  BOOST_REQUIRE_MESSAGE(shop.wait_for(std::regex("party shop started"), 30s),
                        "node output: " << shop.output());
  std::this_thread::sleep_for(1500ms);
  BOOST_REQUIRE_MESSAGE(train.running(),
                        "the session ended early: " << train.output());
  auto stopped = std::chrono::steady_clock::now();
  shop.kill(SIGTERM);
  BOOST_TEST(shop.wait(10s) == 0, "node output: " << shop.output());
  auto rc = train.wait(20s);
  auto took = std::chrono::steady_clock::now() - stopped;
  BOOST_TEST(rc != 0);
  BOOST_TEST(rc != -1);
  BOOST_TEST((took < 10s));
  BOOST_TEST(contains(train.output(), "shop"), train.output());
  BOOST_TEST(contains(train.output(), "was stopped"), train.output());
  BOOST_TEST(contains(shop.output(), "stopping (SIGTERM)"), shop.output());
  // The other node's party ended too, and its log says so.
  BOOST_TEST(insurer.wait(15s) == 0);
  BOOST_TEST(contains(insurer.output(), "party insurer "), insurer.output());
}

BOOST_AUTO_TEST_SUITE_END()
