// LDP boosting's owners on real `veil node` processes on 127.0.0.1: each
// node deals the file it serves to owner actors of its own, and the data
// user in the process of `veil train` asks them through one block message
// per attempt. With the identity mechanism and every owner asked in the
// one round, the centroids are those of the same owners in one process
// (nearest centroid's class means do not depend on the owners' order); a
// node killed while it loads fails the session within the timeout, naming
// its block; a node with fewer rows than one owner's, and a malformed
// ldp.owner_nodes, are refused with errors that say so.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <sys/stat.h>

#include "tests/integration/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil::test;
using namespace std::chrono_literals;

namespace {

const char* const header = "x0,x1,x2,x3,label\n";

/// `rows` rows of 4 features and a label from seed `seed`.
std::string rows_text(int rows, std::uint64_t seed) {
  lcg next(seed);
  std::string t = header;
  for (int i = 0; i < rows; ++i) {
    double x[4];
    for (auto& v : x)
      v = next();
    bool y = x[0] + 0.7 * x[2] - 0.4 * x[3] + 0.3 * next() > 0.8;
    for (double v : x)
      t += std::to_string(v) + ",";
    t += y ? "1\n" : "0\n";
  }
  return t;
}

struct owner_files {
  temp_dir dir;
  std::string a, b, both, user;
  owner_files() {
    auto ta = rows_text(1200, 5), tb = rows_text(800, 6);
    a = dir.file("a.csv", ta);
    b = dir.file("b.csv", tb);
    both = dir.file("both.csv", ta + tb.substr(std::string(header).size()));
    user = dir.file("user.csv", rows_text(600, 7));
  }
};

std::vector<std::string> owner_node(const std::string& path) {
  return node_serving({"owners=" + path});
}

/// veil train's arguments for one round of nearest centroids without noise
/// that asks every one of the 500 owners (4 rows each), the data user's
/// rows and the evaluation rows both user.csv.
std::vector<std::string> one_round(const owner_files& f,
                                   const std::string& data,
                                   const std::string& report) {
  return {"train",
          "--protocol",
          "ldp-boost",
          "--data",
          data,
          "--test",
          f.user,
          "--set",
          "ldp.user_data=" + f.user,
          "--set",
          "ldp.mechanism=identity",
          "--set",
          "ldp.owners_per_round=500",
          "--trees",
          "1",
          "--timeout",
          "10",
          "--quiet",
          "--report",
          report};
}

} // namespace

BOOST_AUTO_TEST_SUITE(ldpboost)

BOOST_AUTO_TEST_CASE(owners_on_two_nodes_train_the_model_of_one_process) {
  owner_files f;
  process a(owner_node(f.a)), b(owner_node(f.b));
  auto where = node_address(a) + "/owners," + node_address(b) + "/owners";
  auto args = one_round(f, f.user, f.dir / "nodes.json");
  args.insert(args.end(), {"--set", "ldp.owner_nodes=" + where});
  auto [rc, out] = run_veil(args, 60s);
  BOOST_TEST_MESSAGE("veil train, owners on nodes: " << out);
  BOOST_REQUIRE_EQUAL(rc, 0);
  BOOST_TEST(contains(out, "with 500 owners (500 asked, 0 silent"), out);
  auto [rc_local, out_local] =
      run_veil(one_round(f, f.both, f.dir / "local.json"), 60s);
  BOOST_REQUIRE_MESSAGE(rc_local == 0, out_local);
  auto nodes = read_json(f.dir / "nodes.json"),
       local = read_json(f.dir / "local.json");
  BOOST_TEST(nodes["owners"] == 500);
  BOOST_TEST(local["owners"] == 500);
  BOOST_TEST(nodes["metrics"]["error"] == local["metrics"]["error"]);
  const auto &cn = nodes["ensemble"][0]["centroids"],
             &cl = local["ensemble"][0]["centroids"];
  BOOST_REQUIRE_EQUAL(cn.size(), cl.size());
  for (std::size_t k = 0; k < cn.size(); ++k) {
    BOOST_REQUIRE_EQUAL(cn[k].size(), 4u);
    for (std::size_t j = 0; j < cn[k].size(); ++j)
      BOOST_TEST(std::abs(cn[k][j].get<double>() - cl[k][j].get<double>()) <
                     1e-12,
                 "class " << k << ", feature " << j);
  }
  // The ensemble crossed to each node once, in one block request.
  BOOST_TEST(a.wait(15s) == 0);
  BOOST_TEST(b.wait(15s) == 0);
}

BOOST_AUTO_TEST_CASE(a_node_killed_mid_session_fails_the_session) {
  owner_files f;
  // The second node's file is a pipe nobody writes to: its block blocks
  // loading it, so the session is surely under way when its node dies.
  auto pipe = f.dir.file("pipe.csv", rows_text(10, 9));
  process a(owner_node(f.a)), b(owner_node(pipe));
  node_address(b); // it serves the file; now it becomes the pipe
  std::filesystem::remove(pipe);
  BOOST_REQUIRE(::mkfifo(pipe.c_str(), 0600) == 0);
  auto where = node_address(a) + "/owners," + node_address(b) + "/owners";
  auto args = one_round(f, f.user, f.dir / "r.json");
  args[args.size() - 4] = "3"; // --timeout 3
  args.insert(args.end(), {"--set", "ldp.owner_nodes=" + where});
  process train(args);
  BOOST_REQUIRE_MESSAGE(b.wait_for(std::regex("party owners2 started"), 20s),
                        "node output: " << b.output());
  std::this_thread::sleep_for(300ms);
  BOOST_REQUIRE_MESSAGE(train.running(),
                        "the session ended early: " << train.output());
  auto killed = std::chrono::steady_clock::now();
  b.kill(SIGKILL);
  auto rc = train.wait(15s);
  auto took = std::chrono::steady_clock::now() - killed;
  BOOST_TEST_MESSAGE("veil train: " << train.output());
  BOOST_TEST(rc == 1);
  BOOST_TEST((took < 6s)); // the timeout (3 s) plus slack
  BOOST_TEST(contains(train.output(), "owners2"), train.output());
  BOOST_TEST(contains(train.output(), "load the owners' rows"), train.output());
  BOOST_TEST(a.wait(15s) == 0); // its block ends with the session
}

BOOST_AUTO_TEST_CASE(too_few_rows_and_bad_locations_are_refused) {
  owner_files f;
  auto three = f.dir.file("three.csv", rows_text(3, 8));
  process a(owner_node(three));
  auto args = one_round(f, f.user, f.dir / "r.json");
  args.insert(args.end(),
              {"--set", "ldp.owner_nodes=" + node_address(a) + "/owners"});
  auto [rc, out] = run_veil(args, 30s);
  BOOST_TEST(rc != 0);
  BOOST_TEST(contains(out, "owners1: its 3 rows make no owner of 4 rows"), out);
  for (const auto* bad : {"127.0.0.1/owners", "127.0.0.1:99999/owners",
                          "127.0.0.1:4000/", "localhost:4000"}) {
    auto wrong = one_round(f, f.user, f.dir / "r.json");
    wrong.insert(wrong.end(), {"--set", std::string("ldp.owner_nodes=") + bad});
    auto [rc_bad, out_bad] = run_veil(wrong, 30s);
    BOOST_TEST(rc_bad != 0, bad);
    BOOST_TEST(contains(out_bad, "is not HOST:PORT/DATASET"), out_bad);
  }
}

BOOST_AUTO_TEST_SUITE_END()
