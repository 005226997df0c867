// `veil train --protocol plain` as a user runs it: the parties run in the
// process as actors, the model equals centralized training's (so the test
// AUC is the same), the report carries the parties and the bytes they
// exchanged, and a bad party count is a clear error.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/files.hpp"
#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using veil::test::adult;
using veil::test::contains;
using veil::test::have_adult;
using veil::test::read_json;
using veil::test::run_veil;
using veil::test::temp_dir;

BOOST_AUTO_TEST_SUITE(federated_cli)

BOOST_AUTO_TEST_CASE(plain_on_adult_equals_centralized) {
  if (!have_adult()) {
    BOOST_TEST_MESSAGE("skipped: no " << adult("train"));
    return;
  }
  temp_dir dir;
  auto common = " --data " + adult("train") + " --test " + adult("test") +
                " --trees 10 --threads 2 --quiet";
  auto fed =
      run_veil("train --protocol plain --parties 3" + common + " --report " +
               (dir / "fed.json") + " --model-out " + (dir / "m.json"));
  BOOST_REQUIRE_MESSAGE(fed.status == 0, fed.output);
  BOOST_TEST(contains(fed.output, "3 parties"), fed.output);
  BOOST_TEST(contains(fed.output, "keeps its split table where it runs"),
             fed.output);
  // The model predicts later through its parties (here all in this
  // process, each reading its columns of --data): the training session's
  // test metrics, exactly.
  auto p = run_veil("predict --model " + (dir / "m.json") + " --data " +
                    adult("test") + " --report " + (dir / "p.json") +
                    " --out " + (dir / "p.csv"));
  BOOST_REQUIRE_MESSAGE(p.status == 0, p.output);
  BOOST_TEST(contains(p.output, "predicted 16281 rows with 3 parties"),
             p.output);
  // The public part alone cannot predict: veil export says how.
  auto x = run_veil("export --model " + (dir / "m.json") + " --out " +
                    (dir / "x.json"));
  BOOST_TEST(x.status == 2, x.output);
  BOOST_TEST(contains(x.output, "plain federated model"), x.output);
  BOOST_TEST(contains(x.output, "--config SESSION"), x.output);
  auto central = run_veil("train --protocol centralized" + common +
                          " --report " + (dir / "central.json"));
  BOOST_REQUIRE_MESSAGE(central.status == 0, central.output);

  auto r = read_json(dir / "fed.json");
  auto c = read_json(dir / "central.json");
  BOOST_TEST(r["protocol"] == "plain");
  BOOST_TEST(r["parties"] == 3);
  BOOST_REQUIRE(r["party_names"].is_array());
  BOOST_REQUIRE_EQUAL(r["party_names"].size(), 3u);
  // Every field of the centralized report is there too.
  for (auto& [key, value] : c.items())
    BOOST_TEST(r.contains(key), "the plain report lacks " << key);
  BOOST_TEST(r["rows"] == c["rows"]);
  BOOST_TEST(r["features"] == c["features"]);
  BOOST_TEST(r["trees"] == 10);
  BOOST_TEST(r["privacy"]["mechanism"] == "none");
  BOOST_TEST(r["privacy"]["note"].is_string());
  // --model-out had each passive party keep its split table: none came
  // here, and the report says where they are.
  BOOST_TEST(r["split_tables_exported"].empty());
  BOOST_TEST(r["model_parts"]["party1"] == dir / "m.json.party1");
  auto pr = read_json(dir / "p.json");
  BOOST_TEST(pr["metrics"] == r["metrics"]);
  BOOST_TEST(pr["rows"] == r["test_rows"]);

  double auc = r["metrics"]["auc"];
  double central_auc = c["metrics"]["auc"];
  BOOST_TEST(std::abs(auc - central_auc) <= 1e-12,
             "plain AUC " << auc << " vs centralized " << central_auc);

  // Bytes: a total, and per party what it sent and received, by type.
  const auto& bytes = r["bytes"];
  std::uint64_t total = bytes["total"];
  BOOST_TEST(total > 0u);
  std::uint64_t sent = 0, received = 0;
  for (const auto& name : r["party_names"]) {
    const auto& p = bytes["per_party"][name.get<std::string>()];
    BOOST_REQUIRE_MESSAGE(p.is_object(), "no bytes for " << name);
    std::uint64_t s = p["sent"], rc = p["received"];
    BOOST_TEST(s > 0u);
    BOOST_TEST(rc > 0u);
    std::uint64_t by_type = 0;
    for (auto& [type, n] : p["by_type"].items())
      by_type += n.get<std::uint64_t>();
    BOOST_TEST(by_type == s + rc, "by_type counts both directions");
    sent += s;
    received += rc;
  }
  BOOST_TEST(sent == total);
  BOOST_TEST(received == total);
  BOOST_TEST(bytes["per_party"]["party1"]["by_type"].contains("histograms"));

  // The model files: the active party's part, each passive party's splits.
  auto active = read_json(dir / "m.json");
  BOOST_TEST(active["trees"].size() == 10u);
  for (auto name : {"party1", "party2"}) {
    auto table = read_json(dir / (std::string("m.json.") + name));
    BOOST_TEST(table["format"] == "veil-split-table");
    BOOST_TEST(table["party"] == name);
    BOOST_REQUIRE(table["splits"].is_array());
    BOOST_TEST(!table["splits"].empty());
    const auto& s = table["splits"][0];
    for (auto key : {"tree", "node", "feature", "threshold", "default_left"})
      BOOST_TEST(s.contains(key), "a split lacks " << key);
  }
  BOOST_TEST(!std::filesystem::exists(dir / "m.json.party0"));
}

BOOST_AUTO_TEST_CASE(built_in_data_runs_federated) {
  temp_dir dir;
  auto r = run_veil("train --protocol plain --parties 4 --trees 5 --rows 2000 "
                    "--quiet --report " +
                    (dir / "r.json"));
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  auto rep = read_json(dir / "r.json");
  BOOST_TEST(rep["parties"] == 4);
  BOOST_TEST(rep["data"] == "synthetic:classification");
  // 20 columns over 4 parties: 5 each, contiguous, in order.
  BOOST_TEST(rep["party_features"]["party0"].size() == 5u);
  BOOST_TEST(rep["party_features"]["party3"][4] == "f19");
  // No --model-out: no party's split table left it.
  BOOST_TEST(rep["split_tables_exported"].empty());
}

BOOST_AUTO_TEST_CASE(emulated_links_are_reported_for_every_protocol) {
  // The same flag for each protocol; the report gives the link, the
  // emulated training time and the parties' computing time apart.
  for (std::string protocol : {"plain", "feverless", "opboost"}) {
    BOOST_TEST_CONTEXT(protocol) {
      temp_dir dir;
      auto r = run_veil("train --protocol " + protocol +
                        " --parties 3 --trees 2 --depth 2 --rows 600 --quiet "
                        "--set net.latency_ms=2 --set net.bandwidth_mbps=50 "
                        "--report " +
                        (dir / "r.json"));
      BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
      BOOST_TEST(contains(r.output, "network: links emulated at 2 ms, 50 Mbps"),
                 r.output);
      auto rep = read_json(dir / "r.json");
      const auto& net = rep["network"];
      BOOST_TEST(net["emulated"] == true);
      BOOST_TEST(net["latency_ms"] == 2.0);
      BOOST_TEST(net["bandwidth_mbps"] == 50.0);
      BOOST_TEST(net["emulated_seconds"].get<double>() > 0.0);
      BOOST_TEST(net["compute_seconds_all_parties"].get<double>() > 0.0);
      for (auto& [name, party] : rep["bytes"]["per_party"].items())
        BOOST_TEST(!party["links"].empty(), name);
    }
  }
  auto r = run_veil("train --protocol centralized --trees 2 --rows 500 "
                    "--set net.latency_ms=5");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(contains(r.output, "centralized training has no links"), r.output);
  r = run_veil("train --protocol plain --trees 2 --rows 500 "
               "--set net.bandwidth_mbps=-1");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(contains(r.output, "--set net.bandwidth_mbps=-1"), r.output);
}

BOOST_AUTO_TEST_CASE(a_bad_party_count_is_a_clear_error) {
  auto r = run_veil("train --protocol plain --parties 1 --trees 2 --rows 500");
  BOOST_TEST(r.status != 0);
  BOOST_TEST(contains(r.output, "--parties 1"), r.output);
  BOOST_TEST(contains(r.output, "at least 2 parties"), r.output);

  r = run_veil("train --protocol plain --parties 21 --trees 2 --rows 500");
  BOOST_TEST(r.status != 0);
  BOOST_TEST(contains(r.output, "only 20 feature columns"), r.output);

  r = run_veil("train --protocol centralized --parties 3 --trees 2 "
               "--rows 500");
  BOOST_TEST(r.status != 0);
  BOOST_TEST(contains(r.output, "centralized training has one party"),
             r.output);

  r = run_veil("train --protocol plain --timeout 0 --trees 2 --rows 500");
  BOOST_TEST(r.status != 0);
  BOOST_TEST(contains(r.output, "--timeout"), r.output);
}

BOOST_AUTO_TEST_CASE(a_missing_file_names_the_file) {
  temp_dir dir;
  auto r = run_veil("train --protocol plain --data " + (dir / "nope.csv") +
                    " --trees 2");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(contains(r.output, "nope.csv"), r.output);
}

BOOST_AUTO_TEST_CASE(help_documents_the_federated_options) {
  auto r = run_veil("train --help");
  BOOST_TEST(r.status == 0);
  for (auto text : {"--parties", "--timeout", "plain", "FILE.<party-name>"})
    BOOST_TEST(contains(r.output, text), "train --help lacks " << text);
}

BOOST_AUTO_TEST_SUITE_END()
