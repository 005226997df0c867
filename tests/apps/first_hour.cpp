// What a newcomer sees, without a terminal (scripts, CI, notebooks) and
// with one: per-round history, early stopping and feature importance in
// every protocol's report, progress lines, and `veil inspect`.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using nlohmann::json;
using veil::test::contains;
using veil::test::run_veil;
using veil::test::temp_dir;

namespace {

json read_report(const std::string& path) {
  json j;
  std::ifstream(path) >> j;
  return j;
}

/// Built-in synthetic data, small: the protocol's own flags follow.
std::string small(const std::string& protocol) {
  return "train --protocol " + protocol +
         " --rows 3000 --features 8 --threads 1 ";
}

const char* const protocols[] = {"centralized", "plain", "feverless",
                                 "opboost"};

} // namespace

BOOST_AUTO_TEST_SUITE(first_hour)

// stdout and stderr are a pipe here: the report must not care.
BOOST_AUTO_TEST_CASE(history_and_importance_without_a_terminal) {
  temp_dir dir;
  for (std::string protocol : protocols) {
    auto report = dir / (protocol + ".json");
    auto extra = protocol == "opboost" ? "--categorical f0 " : "";
    auto r = run_veil(small(protocol) + extra + "--trees 4 --report " + report);
    BOOST_REQUIRE_MESSAGE(r.status == 0, protocol << ": " << r.output);
    auto rep = read_report(report);
    const auto& h = rep["history"];
    BOOST_REQUIRE_MESSAGE(h.size() == 4u, protocol << ": " << h.dump());
    BOOST_TEST(rep["early_stopping"]["enabled"] == false);
    for (std::size_t i = 0; i < 4; ++i) {
      BOOST_TEST(h[i]["round"] == i + 1);
      BOOST_TEST(h[i]["test"].contains("auc"), protocol << " round " << i);
    }
    // The last round's metrics are the model's, as the final prediction
    // sums them (plain evaluates rounds in double, the prediction in float).
    for (auto key : {"auc", "logloss", "accuracy"}) {
      double last = h[3]["test"][key];
      double final_metric = rep["metrics"][key];
      BOOST_TEST(std::fabs(last - final_metric) <= 1e-6,
                 protocol << " " << key << ": " << last << " against "
                          << final_metric);
    }
    BOOST_TEST(rep["importance"].size() > 0u, protocol);
    BOOST_TEST(rep.contains("early_stopping"), protocol);
    // Progress: one line per round off a terminal, with the elapsed time.
    BOOST_TEST(contains(r.output, "/4] "), protocol << ": " << r.output);
    BOOST_TEST(!contains(r.output, "\r"), protocol);
  }
  // Importance: every feature by name where the coordinator knows them; by
  // party for FEVERLESS, whose public model hides each split's feature.
  for (std::string protocol : {"centralized", "plain", "opboost"}) {
    auto rep = read_report(dir / (protocol + ".json"));
    for (const auto& [feature, f] : rep["importance"].items()) {
      BOOST_TEST(feature.size() > 1u);
      BOOST_TEST(feature[0] == 'f', protocol << ": " << feature);
      BOOST_TEST(f["weight"].get<int>() > 0);
      BOOST_TEST(f["total_gain"].get<double>() >= f["gain"].get<double>());
    }
  }
  auto fev = read_report(dir / "feverless.json");
  for (const auto& [party, f] : fev["importance"].items())
    BOOST_TEST(party.rfind("client", 0) == 0u, party);
  BOOST_TEST(contains(fev["importance_note"].get<std::string>(), "--part"));
  // The plain protocol's model is centralized training's: so are its
  // history and importance.
  auto c = read_report(dir / "centralized.json");
  auto p = read_report(dir / "plain.json");
  BOOST_TEST(c["importance"] == p["importance"]);
  for (std::size_t i = 0; i < 4; ++i)
    BOOST_TEST(c["history"][i]["test"] == p["history"][i]["test"]);
}

BOOST_AUTO_TEST_CASE(early_stopping_says_where_it_stopped) {
  temp_dir dir;
  // Deep trees at eta 1 overfit 3,000 rows within a few rounds.
  auto flags = std::string("--trees 200 --depth 8 --eta 1 ") +
               "--set early_stopping_rounds=3 --report ";
  json reports[2];
  int k = 0;
  for (std::string protocol : {"centralized", "plain"}) {
    auto report = dir / (protocol + ".json");
    auto r = run_veil(small(protocol) + "--model-out " +
                      (dir / (protocol + "-m.json")) + " " + flags + report);
    BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
    BOOST_TEST(contains(r.output, "stopped early at round"), r.output);
    auto rep = read_report(report);
    const auto& e = rep["early_stopping"];
    BOOST_TEST(e["enabled"] == true);
    BOOST_TEST(e["stopped"] == true);
    BOOST_TEST(e["metric"] == "auc");
    BOOST_TEST(e["last_round"].get<int>() < 200);
    BOOST_TEST(e["best_round"].get<int>() + 3 == e["last_round"].get<int>());
    BOOST_TEST(rep["best_round"] == e["best_round"]);
    // The model keeps the best rounds; the history shows every round run.
    BOOST_TEST(rep["trees"] == e["best_round"]);
    BOOST_TEST(rep["history"].size() == e["last_round"].get<std::size_t>());
    reports[k++] = rep;
  }
  // Same trees, so the same stop.
  BOOST_TEST(reports[0]["early_stopping"] == reports[1]["early_stopping"]);
  // The parts kept where the parties run hold the kept trees' splits only.
  auto part = run_veil("inspect " + (dir / "plain-m.json") + " --part " +
                       (dir / "plain-m.json.party1"));
  BOOST_TEST(part.status == 0, part.output);
  // FEVERLESS: the coordinator holds the test labels and evaluates each
  // tree as client 0 predicts it; the clients keep the best trees, and the
  // final prediction is the best round's.
  auto f = run_veil(small("feverless") + "--model-out " + (dir / "f-m.json") +
                    " " + flags + (dir / "f.json"));
  BOOST_REQUIRE_MESSAGE(f.status == 0, f.output);
  for (auto client : {"client0", "client3"}) {
    auto own = run_veil("inspect " + (dir / "f-m.json") + " --part " +
                        (dir / "f-m.json.") + client);
    BOOST_TEST(own.status == 0, own.output);
  }
  BOOST_TEST(contains(f.output, "stopped early at round"), f.output);
  auto fr = read_report(dir / "f.json");
  const auto& fe = fr["early_stopping"];
  BOOST_TEST(fe["stopped"] == true);
  BOOST_TEST(fe["best_round"].get<int>() + 3 == fe["last_round"].get<int>());
  BOOST_TEST(fr["trees"] == fe["best_round"]);
  BOOST_TEST(fr["history"].size() == fe["last_round"].get<std::size_t>());
  // Summed in float as the final prediction sums them: equal.
  BOOST_TEST(fe["best_score"] == fr["metrics"]["auc"]);
  // Where no party can evaluate a round during training, the refusal says
  // why.
  auto o = run_veil(small("opboost") + "--categorical f0 " + flags +
                    (dir / "o.json"));
  BOOST_TEST(o.status == 2);
  BOOST_TEST(contains(o.output, "trains on ranks"), o.output);
}

// On a terminal (script(1) gives one) the line is redrawn in place.
BOOST_AUTO_TEST_CASE(progress_on_a_terminal) {
  for (std::string protocol : protocols) {
    auto extra = protocol == "opboost" ? "--categorical f0 " : "";
    auto inner = std::string(VEIL_BINARY_DIR) + "/veil " + small(protocol) +
                 extra + "--trees 3";
    auto r =
        run_veil("--version >/dev/null; script -qec '" + inner + "' /dev/null");
    BOOST_REQUIRE_MESSAGE(r.status == 0, protocol << ": " << r.output);
    bool redrawn = contains(r.output, "\r[round 3/3]") ||
                   contains(r.output, "\r[tree 3/3]");
    BOOST_TEST(redrawn, protocol << ": " << r.output);
    auto quiet = run_veil("--version >/dev/null; script -qec '" + inner +
                          " --quiet' /dev/null");
    BOOST_TEST(!contains(quiet.output, "3/3]"),
               protocol << ": " << quiet.output);
  }
}

BOOST_AUTO_TEST_CASE(inspect_shows_importance_and_trees) {
  temp_dir dir;
  auto r = run_veil(small("centralized") + "--trees 3 --model-out " +
                    (dir / "m.json") + " --report " + (dir / "r.json"));
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  auto i = run_veil("inspect " + (dir / "m.json") + " --trees all");
  BOOST_REQUIRE_MESSAGE(i.status == 0, i.output);
  BOOST_TEST(contains(i.output, "binary:logistic, 3 trees"), i.output);
  BOOST_TEST(contains(i.output, "importance of every feature"));
  BOOST_TEST(contains(i.output, "tree 2:"));
  BOOST_TEST(contains(i.output, "yes=1,no=2"));
  // The most important feature first, as the report ranks it.
  auto rep = read_report(dir / "r.json");
  std::string top;
  double best = -1;
  for (const auto& [feature, f] : rep["importance"].items())
    if (f["total_gain"].get<double>() > best) {
      best = f["total_gain"];
      top = feature;
    }
  auto at = i.output.find("total_cover\n");
  BOOST_REQUIRE(at != std::string::npos);
  BOOST_TEST(i.output.substr(at + 12, 2 + top.size()) == "  " + top);

  // FEVERLESS: the public model names owners only; a client's part adds
  // its own features.
  r = run_veil(small("feverless") + "--trees 2 --model-out " +
               (dir / "f.json"));
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  auto pub = run_veil("inspect " + (dir / "f.json"));
  BOOST_REQUIRE_MESSAGE(pub.status == 0, pub.output);
  BOOST_TEST(contains(pub.output, "not in this file"), pub.output);
  BOOST_TEST(contains(pub.output, "feature hidden of client"), pub.output);
  auto own = run_veil("inspect " + (dir / "f.json") + " --part " +
                      (dir / "f.json.client1"));
  BOOST_REQUIRE_MESSAGE(own.status == 0, own.output);
  BOOST_TEST(contains(own.output, "client1's features"), own.output);
  // A part of another model is refused, naming it.
  r = run_veil(small("feverless") + "--trees 2 --model-out " +
               (dir / "g.json"));
  auto wrong = run_veil("inspect " + (dir / "f.json") + " --part " +
                        (dir / "g.json.client1"));
  BOOST_TEST(wrong.status == 2);
  BOOST_TEST(contains(wrong.output, "g.json.client1"), wrong.output);
}

// eval_rounds=false: no per-round cost, no history; early stopping needs
// the rounds evaluated and says so.
BOOST_AUTO_TEST_CASE(rounds_not_evaluated_on_request) {
  temp_dir dir;
  for (std::string protocol : {"centralized", "plain"}) {
    auto report = dir / (protocol + ".json");
    auto r = run_veil(small(protocol) +
                      "--trees 3 --set eval_rounds=false "
                      "--report " +
                      report);
    BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
    auto rep = read_report(report);
    BOOST_TEST(rep["history"].size() == 0u, protocol);
    BOOST_TEST(rep["metrics"].contains("auc"), protocol);
    auto both = run_veil(small(protocol) + "--trees 3 --set eval_rounds=false "
                                           "--set early_stopping_rounds=2");
    BOOST_TEST(both.status == 2, protocol);
    BOOST_TEST(contains(both.output, "needs eval_rounds"), both.output);
  }
}

// Values that meant "not set" inside are refused when given, and so is a
// budget a protocol would not spend.
BOOST_AUTO_TEST_CASE(nonsense_is_refused) {
  temp_dir dir;
  struct refusal {
    std::string args, says;
  };
  for (const auto& [args, says] : std::vector<refusal>{
           {"plain --parties 0", "--parties 0: expected at least"},
           {"centralized --parties -3", "--parties -3: expected at least"},
           {"plain --epsilon 1", "adds no noise"},
           {"centralized --epsilon 1", "adds no noise"},
           {"feverless-plain --epsilon 1", "adds no noise"},
           {"centralized --set base_score=nan", "expected a finite number"},
       }) {
    auto r =
        run_veil("train --rows 3000 --features 8 --trees 1 --protocol " + args);
    BOOST_TEST(r.status == 2, args << ": " << r.output);
    BOOST_TEST(contains(r.output, says), args << ": " << r.output);
  }
  // A model file whose num_class would size every prediction.
  auto t = run_veil(small("centralized") + "--trees 1 --quiet --model-out " +
                    (dir / "m.json"));
  BOOST_REQUIRE(t.status == 0);
  nlohmann::json m;
  std::ifstream(dir / "m.json") >> m;
  m["num_class"] = 1000000000;
  std::ofstream(dir / "bad.json") << m.dump();
  auto p = run_veil("inspect " + (dir / "bad.json"));
  BOOST_TEST(p.status == 2);
  BOOST_TEST(contains(p.output, "num_class 1000000000"), p.output);
}

// The privacy lines say what is conditional or known only afterwards.
BOOST_AUTO_TEST_CASE(privacy_wording) {
  temp_dir dir;
  auto r = run_veil(small("opboost") +
                    "--categorical f0 --trees 2 --set "
                    "opboost.bounds.f1=-10:10 --report " +
                    (dir / "o.json"));
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(contains(r.output, "CONDITIONAL for 6 column(s) whose bounds "
                                "were fitted"),
             r.output);
  auto rep = read_report(dir / "o.json");
  int conditional = 0;
  for (const auto& f : rep["privacy"]["per_feature"]) {
    bool c = f["conditional"];
    BOOST_TEST(c == (f["feature"].get<std::string>().find("/ f1") ==
                     std::string::npos),
               f.dump());
    conditional += c;
  }
  BOOST_TEST(conditional == 6);
  auto f = run_veil(small("feverless") + "--trees 2");
  BOOST_REQUIRE_MESSAGE(f.status == 0, f.output);
  BOOST_TEST(contains(f.output, "realised in this run (known only after "
                                "training, not the guarantee)"),
             f.output);
}

// A node without TLS listens on this machine only unless told the network
// is trusted (issue "Nodes that trust no one").
BOOST_AUTO_TEST_CASE(an_open_node_needs_tls_or_insecure) {
  for (auto address : {"0.0.0.0:0", "10.1.2.3:0", "[::]:0"}) {
    auto r = run_veil(std::string("node --listen ") + address);
    BOOST_TEST(r.status == 2, address << ": " << r.output);
    BOOST_TEST(contains(r.output, "without TLS a node accepts sessions from "
                                  "anyone"),
               r.output);
    BOOST_TEST(contains(r.output, "--insecure"), r.output);
  }
}

// A party's errors reach the coordinator: a file that is no table never
// has its content quoted (issue "Nodes that trust no one").
BOOST_AUTO_TEST_CASE(a_party_error_quotes_no_file_content) {
  temp_dir dir;
  auto secret = dir.file("secret.txt", "TOP SECRET first line\nmore\n");
  auto session = dir.file("s.toml", "[protocol]\nname = \"plain\"\n"
                                    "[[party]]\nname = \"a\"\ndata = \"" +
                                        secret +
                                        "\"\nlabel = \"label\"\n"
                                        "[[party]]\nname = \"b\"\ndata = \"" +
                                        secret + "\"\n");
  auto r = run_veil("train --config " + session);
  BOOST_TEST(r.status == 2, r.output);
  BOOST_TEST(contains(r.output, "secret.txt"), r.output); // named
  BOOST_TEST(!contains(r.output, "SECRET"), r.output);    // not quoted
}

BOOST_AUTO_TEST_CASE(messages_say_what_happened) {
  temp_dir dir;
  auto g = run_veil("generate --rows 100 --features 3 --informative 2 "
                    "--redundant 0 --test-fraction 0.2 --out " +
                    (dir / "s.csv.gz"));
  BOOST_REQUIRE_MESSAGE(g.status == 0, g.output);
  BOOST_TEST(contains(g.output, "wrote " + (dir / "s_train.csv.gz") +
                                    " (80 rows) and " +
                                    (dir / "s_test.csv.gz") + " (20 rows)"),
             g.output);
  auto t = run_veil("train --quiet --data " + (dir / "s_train.csv.gz") +
                    " --trees 2 --model-out " + (dir / "m.json"));
  BOOST_REQUIRE_MESSAGE(t.status == 0, t.output);
  auto p = run_veil("predict --model " + (dir / "m.json") + " --data " +
                    (dir / "s_test.csv.gz") + " --label label");
  BOOST_REQUIRE_MESSAGE(p.status == 0, p.output);
  BOOST_TEST(contains(p.output, "predicted 20 rows: accuracy "), p.output);
  // A numeric label under the default objective points at the right one.
  auto r = run_veil("generate --kind regression --rows 50 --features 2 "
                    "--informative 2 --out " +
                    (dir / "r.csv"));
  BOOST_REQUIRE(r.status == 0);
  auto wrong = run_veil("train --quiet --data " + (dir / "r.csv"));
  BOOST_TEST(wrong.status == 2);
  BOOST_TEST(contains(wrong.output, "--objective reg:squarederror"),
             wrong.output);
  // Byte counts in human units.
  auto f = run_veil(small("plain") + "--trees 2 --quiet");
  BOOST_TEST(std::regex_search(f.output,
                               std::regex(R"(, [0-9.]+ [kMG]?B exchanged\))")),
             f.output);
}

BOOST_AUTO_TEST_SUITE_END()
