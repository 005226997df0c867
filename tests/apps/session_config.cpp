// Session files (docs/session.md): a good file fills session_config with
// paths resolved against its folder; every bad one stops with an input_error
// naming the file, the line and the key or party.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "apps/veil/session_config.hpp"
#include "learners/input_error.hpp"
#include "tests/support/errors.hpp"
#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

namespace fs = std::filesystem;
using veil::apps::apply_override;
using veil::apps::check_local_files;
using veil::apps::load_session;
using veil::test::error_of;
using veil::test::temp_dir;

namespace {

using veil::test::contains;

/// The 1-based line of `text` where `what` first occurs.
int line_of(const std::string& text, const std::string& what) {
  auto at = text.find(what);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, what << " not in the file");
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

const std::string two_parties = R"(protocol = "plain"

[learner]
trees = 10

[[party]]
name = "bank"
data = "bank.csv"
label = "y"

[[party]]
name = "shop"
data = "shop.csv"
)";

/// Replaces the first `from` in `text` with `to`.
std::string edit(std::string text, const std::string& from,
                 const std::string& to) {
  auto at = text.find(from);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, from << " not in the file");
  return text.replace(at, from.size(), to);
}

/// A session file written to a fresh folder.
struct session_file {
  temp_dir tmp;
  std::string text;
  std::string path;
  explicit session_file(std::string t) : text(std::move(t)) {
    path = tmp.file("session.toml", text);
  }
  /// The message load_session gives; checks that it names the file and,
  /// when `at` is given, the line where `at` is.
  std::string error(const std::string& at = "") const {
    auto msg = error_of([&] { load_session(path); });
    BOOST_TEST_INFO("message: " << msg);
    BOOST_TEST(contains(msg, path));
    if (!at.empty())
      BOOST_TEST(
          contains(msg, path + ":" + std::to_string(line_of(text, at)) + ": "));
    return msg;
  }
};

/// The message for a file that is `two_parties` with one edit.
std::string error_with(const std::string& from, const std::string& to,
                       const std::string& at = "") {
  session_file f(edit(two_parties, from, to));
  return f.error(at);
}

} // namespace

BOOST_AUTO_TEST_SUITE(session_config)

BOOST_AUTO_TEST_CASE(a_good_file_fills_every_field) {
  session_file f(R"(# a comment
protocol = "plain"
timeout_seconds = 12.5

[learner]
trees = 7
max_depth = 4
eta = 0.25
lambda = 2
objective = "binary:logistic"
weak_learner = "decision_table"
eval_train = true

[[party]]
name = "bank"
data = "bank.csv"
test = "tests/bank_test.csv"
id = "customer_id"
label = "defaulted"
features = ["income", "balance"]
location = "local"

[[party]]
name = "shop-2_b"
data = "shop_train"
test = "shop_test.csv"
id = "customer_id"
location = "10.0.0.5:4242"

[[party]]
name = "insurer"
data = "insurer.csv"
test = "insurer_test.csv"
id = "customer_id"
location = "[::1]:65535"

[tls]
certificate = "node.pem"
key = "/etc/veil/node.key"
ca = "ca.pem"
)");
  auto dir = f.tmp.dir();
  auto c = load_session(f.path);
  BOOST_TEST(c.source == f.path);
  BOOST_TEST(c.protocol == "plain");
  BOOST_TEST(c.protocol_params.empty());
  BOOST_TEST(c.timeout_seconds == 12.5);
  BOOST_TEST(c.params.rounds == 7);
  BOOST_TEST(c.params.tree.max_depth == 4);
  BOOST_TEST(c.params.tree.eta == 0.25);
  BOOST_TEST(c.params.tree.lambda == 2.0);
  BOOST_TEST(c.params.tree.oblivious);
  BOOST_TEST(c.params.eval_train);
  BOOST_TEST(c.params.num_class == 0); // inferred from the labels
  BOOST_REQUIRE(c.parties.size() == 3u);
  BOOST_TEST(c.active_party() == 0u);

  auto& bank = c.parties[0];
  BOOST_TEST(bank.name == "bank");
  BOOST_TEST(bank.data == (dir / "bank.csv").string());
  BOOST_TEST(bank.test == (dir / "tests/bank_test.csv").string());
  BOOST_TEST(bank.id == "customer_id");
  BOOST_TEST(bank.label == "defaulted");
  BOOST_TEST((bank.features == std::vector<std::string>{"income", "balance"}));
  BOOST_TEST(bank.is_local());
  BOOST_TEST(bank.host.empty());
  BOOST_TEST(bank.port == 0);

  auto& shop = c.parties[1];
  BOOST_TEST(shop.name == "shop-2_b");
  // At a node: the names of datasets it serves, not paths.
  BOOST_TEST(shop.data == "shop_train");
  BOOST_TEST(shop.test == "shop_test.csv");
  BOOST_TEST(shop.label.empty());
  BOOST_TEST(shop.features.empty());
  BOOST_TEST(!shop.is_local());
  BOOST_TEST(shop.location == "10.0.0.5:4242");
  BOOST_TEST(shop.host == "10.0.0.5");
  BOOST_TEST(shop.port == 4242);

  BOOST_TEST(c.parties[2].host == "::1");
  BOOST_TEST(c.parties[2].port == 65535);

  BOOST_TEST(c.tls.enabled());
  BOOST_TEST(c.tls.certificate == (dir / "node.pem").string());
  BOOST_TEST(c.tls.key == "/etc/veil/node.key");
  BOOST_TEST(c.tls.ca == (dir / "ca.pem").string());
}

BOOST_AUTO_TEST_CASE(defaults) {
  session_file f(R"([[party]]
name = "a"
data = "a.csv"
label = "y"
[[party]]
name = "b"
data = "b.csv"
)");
  auto c = load_session(f.path);
  veil::learners::booster_params d;
  BOOST_TEST(c.protocol == "plain");
  BOOST_TEST(c.timeout_seconds == 60.0);
  BOOST_TEST(c.params.rounds == d.rounds);
  BOOST_TEST(c.params.tree.max_depth == d.tree.max_depth);
  BOOST_TEST(c.params.num_class == 0);
  BOOST_TEST(!c.tls.enabled());
  BOOST_TEST(c.parties[1].location == "local");
  BOOST_TEST(c.parties[1].id.empty());
  BOOST_TEST(c.parties[1].test.empty());
}

BOOST_AUTO_TEST_CASE(relative_session_paths_give_absolute_data_paths) {
  temp_dir tmp;
  tmp.file("s.toml", two_parties);
  fs::create_directory(tmp / "sub");
  auto old = fs::current_path();
  fs::current_path(tmp / "sub");
  auto c = load_session("../s.toml");
  fs::current_path(old);
  BOOST_TEST(c.source == "../s.toml");
  BOOST_TEST(c.parties[0].data == (tmp.dir() / "bank.csv").string());
}

BOOST_AUTO_TEST_CASE(a_missing_or_unreadable_session_file) {
  temp_dir tmp;
  auto msg = error_of([&] { load_session(tmp / "nope.toml"); });
  BOOST_TEST(contains(msg, tmp / "nope.toml"));
  BOOST_TEST(contains(msg, "not found"));
  msg = error_of([&] { load_session(tmp.dir().string()); });
  BOOST_TEST(contains(msg, "folder"));
}

BOOST_AUTO_TEST_CASE(syntax_errors_name_file_and_line) {
  auto msg = error_with("trees = 10", "trees = ", "trees =");
  BOOST_TEST(contains(msg, "TOML syntax error"));
  BOOST_TEST(contains(msg, "trees"));
  msg = error_with("data = \"bank.csv\"",
                   "data = \"bank.csv\"\ndata = \"again.csv\"",
                   "data = \"again.csv\"");
  BOOST_TEST(contains(msg, "already exists"));
  msg = error_with("name = \"shop\"", "name = \"shop", "name = \"shop");
}

BOOST_AUTO_TEST_CASE(unknown_keys_and_tables_do_not_pass) {
  auto msg =
      error_with("protocol = \"plain\"", "protocl = \"plain\"", "protocl");
  BOOST_TEST(contains(msg, "unknown key \"protocl\""));
  BOOST_TEST(contains(msg, "did you mean \"protocol\""));

  msg = error_with("[learner]", "[learnr]", "[learnr]");
  BOOST_TEST(contains(msg, "unknown table \"learnr\""));
  BOOST_TEST(contains(msg, "did you mean \"learner\""));

  msg = error_with("[[party]]", "[[partys]]", "[[partys]]");
  BOOST_TEST(contains(msg, "unknown array of tables \"partys\""));

  msg = error_with("data = \"shop.csv\"", "data = \"shop.csv\"\nlable = \"z\"",
                   "lable");
  BOOST_TEST(contains(msg, "party \"shop\""));
  BOOST_TEST(contains(msg, "unknown key \"lable\""));
  BOOST_TEST(contains(msg, "did you mean \"label\""));

  msg = error_with("trees = 10", "max_dpeth = 3", "max_dpeth");
  BOOST_TEST(contains(msg, "[learner] max_dpeth"));
  BOOST_TEST(contains(msg, "unknown setting \"max_dpeth\""));

  msg = error_with("data = \"shop.csv\"",
                   "data = \"shop.csv\"\n[tls]\ncertificate = \"c\"\n"
                   "key = \"k\"\nca = \"a\"\ncrl = \"r\"",
                   "crl");
  BOOST_TEST(contains(msg, "[tls]"));
  BOOST_TEST(contains(msg, "unknown key \"crl\""));
}

BOOST_AUTO_TEST_CASE(wrong_types) {
  auto msg = error_with("name = \"shop\"", "name = 3", "name = 3");
  BOOST_TEST(contains(msg, "[[party]] #2 name: expected a string, got an "
                           "integer"));
  msg = error_with("data = \"shop.csv\"",
                   "data = \"shop.csv\"\nfeatures = \"age\"", "features");
  BOOST_TEST(contains(msg, "party \"shop\" features: expected an array"));
  msg = error_with("data = \"shop.csv\"",
                   "data = \"shop.csv\"\nfeatures = [\"age\", 3]", "features");
  BOOST_TEST(contains(msg, "party \"shop\" features: expected a string"));
  msg = error_with("protocol = \"plain\"",
                   "protocol = \"plain\"\ntimeout_seconds = \"60\"",
                   "timeout_seconds");
  BOOST_TEST(contains(msg, "timeout_seconds: expected a number, got a "
                           "string"));
  msg = error_with("trees = 10", "trees = 10.5", "trees");
  BOOST_TEST(contains(msg, "[learner] trees = 10.5"));
  BOOST_TEST(contains(msg, "not an integer"));
  msg = error_with("trees = 10", "trees = 100.0", "trees");
  BOOST_TEST(contains(msg, "not an integer"));
  msg = error_with("trees = 10", "eta = \"0.3\"", "eta");
  BOOST_TEST(contains(msg, "[learner] eta: expected a number, got a string"));
  msg = error_with("trees = 10", "eval_train = \"true\"", "eval_train");
  BOOST_TEST(contains(msg, "expected a boolean"));
  msg = error_with("trees = 10", "eta = [0.3]", "eta");
  BOOST_TEST(contains(msg, "got an array"));
  session_file single("[party]\nname = \"bank\"\ndata = \"b.csv\"\n");
  msg = single.error("[party]");
  BOOST_TEST(contains(msg, "write [[party]]"));
  msg = error_with("[learner]\ntrees = 10", "learner = 10", "learner");
  BOOST_TEST(contains(msg, "[learner]: expected a table, got an integer"));
  msg = error_with("label = \"y\"", "label = \"\"", "label");
  BOOST_TEST(contains(msg, "party \"bank\" label is empty"));
}

BOOST_AUTO_TEST_CASE(a_party_needs_a_name_and_data) {
  auto msg = error_with("name = \"shop\"\n", "", "[[party]]\ndata = \"shop");
  BOOST_TEST(contains(msg, "[[party]] #2 has no name"));
  msg = error_with("data = \"shop.csv\"\n", "", "[[party]]\nname = \"shop\"");
  BOOST_TEST(contains(msg, "party \"shop\" has no data file"));
  msg = error_with("name = \"shop\"", "name = \"shop 2\"", "shop 2");
  BOOST_TEST(contains(msg, "\"shop 2\" may only hold letters"));
  session_file none("[learner]\ntrees = 3\n");
  msg = none.error();
  BOOST_TEST(contains(msg, "no [[party]]"));
}

BOOST_AUTO_TEST_CASE(duplicate_party_names) {
  auto msg = error_with("name = \"shop\"", "name = \"bank\"",
                        "[[party]]\nname = \"bank\"\ndata = \"shop.csv\"");
  BOOST_TEST(contains(msg, "party name \"bank\" is used twice"));
  BOOST_TEST(contains(
      msg, "line " + std::to_string(line_of(two_parties, "[[party]]"))));
}

BOOST_AUTO_TEST_CASE(exactly_one_party_has_the_label) {
  auto msg = error_with("label = \"y\"\n", "");
  BOOST_TEST(contains(msg, "no party has a label"));
  auto text = edit(two_parties, "data = \"shop.csv\"",
                   "data = \"shop.csv\"\nlabel = \"target\"");
  session_file f(text);
  msg = f.error("[[party]]\nname = \"shop\"");
  BOOST_TEST(contains(msg, "\"bank\""));
  BOOST_TEST(contains(msg, "\"shop\""));
  BOOST_TEST(contains(msg, "both have a label"));
}

BOOST_AUTO_TEST_CASE(bad_locations) {
  for (auto bad :
       {"10.0.0.5", "host:0", "host:65536", "host:abc", ":4242",
        "host:", "::1:4242", "[::1]", "[]:1", "Local", "host:99999999"}) {
    BOOST_TEST_CONTEXT(bad) {
      auto msg = error_with("data = \"shop.csv\"",
                            std::string("data = \"shop.csv\"\nlocation = \"") +
                                bad + "\"",
                            "location");
      BOOST_TEST(contains(msg, "party \"shop\": location \"" +
                                   std::string(bad) + "\""));
      BOOST_TEST(contains(msg, "1 to 65535"));
    }
  }
  session_file f(edit(two_parties, "data = \"shop.csv\"",
                      "data = \"shop.csv\"\nlocation = \"node-2.lan:1\""));
  auto c = load_session(f.path);
  BOOST_TEST(c.parties[1].host == "node-2.lan");
  BOOST_TEST(c.parties[1].port == 1);
}

BOOST_AUTO_TEST_CASE(learner_parameters_out_of_range) {
  auto msg = error_with("trees = 10", "max_depth = 40", "max_depth");
  BOOST_TEST(contains(msg, "[learner] max_depth"));
  BOOST_TEST(contains(msg, "out of range"));
  msg = error_with("trees = 10", "learning_rate = 0", "learning_rate");
  BOOST_TEST(contains(msg, "[learner] learning_rate"));
  msg = error_with("trees = 10", "trees = 0", "trees");
  BOOST_TEST(contains(msg, "[learner] trees"));
  msg = error_with("trees = 10", "weak_learner = \"forest\"", "weak_learner");
  BOOST_TEST(contains(msg, "tree or decision_table"));
  msg = error_with("trees = 10", "objective = \"binary:hinge\"", "objective");
  BOOST_TEST(contains(msg, "[learner] objective"));
  // The key the message names is blamed, not the one before it.
  msg = error_with("trees = 10", "objective = \"multi:softmax\"\nnum_class = 1",
                   "num_class");
  BOOST_TEST(contains(msg, "[learner] num_class"));
  // multi:softmax without num_class: inferred from the labels later.
  session_file ok(
      edit(two_parties, "trees = 10", "objective = \"multi:softmax\""));
  BOOST_TEST(load_session(ok.path).params.num_class == 0);
}

BOOST_AUTO_TEST_CASE(protocols) {
  auto msg = error_with("\"plain\"", "\"plian\"", "protocol");
  BOOST_TEST(contains(msg, "unknown protocol \"plian\""));
  BOOST_TEST(contains(msg, "did you mean \"plain\""));
  BOOST_TEST(contains(msg, "centralized, plain"));

  // The table form names the protocol and holds its parameters.
  session_file table(edit(two_parties, "protocol = \"plain\"",
                          "[protocol]\nname = \"centralized\""));
  BOOST_TEST(load_session(table.path).protocol == "centralized");
  msg = error_with("protocol = \"plain\"",
                   "[protocol]\nname = \"plain\"\nepsilon = 1.0", "epsilon");
  BOOST_TEST(contains(msg, "protocol plain has no parameter \"epsilon\""));
  msg = error_with("protocol = \"plain\"", "[protocol]\nepsilon = 1.0",
                   "[protocol]");
  BOOST_TEST(contains(msg, "[protocol] has no name"));

  // A federated protocol needs two parties; centralized does not.
  auto one = edit(two_parties,
                  "[[party]]\nname = \"shop\"\ndata = "
                  "\"shop.csv\"\n",
                  "");
  session_file f(one);
  msg = f.error("protocol");
  BOOST_TEST(contains(msg, "protocol plain is federated and needs at least 2 "
                           "parties, the session has 1"));
  session_file c(edit(one, "\"plain\"", "\"centralized\""));
  BOOST_TEST(load_session(c.path).parties.size() == 1u);
}

BOOST_AUTO_TEST_CASE(timeouts) {
  for (auto bad : {"0", "-1", "86401", "nan", "inf"}) {
    BOOST_TEST_CONTEXT(bad) {
      auto msg = error_with("protocol = \"plain\"",
                            std::string("protocol = \"plain\"\n"
                                        "timeout_seconds = ") +
                                bad,
                            "timeout_seconds");
      BOOST_TEST(
          contains(msg, "timeout_seconds: expected a number in (0, 86400]"),
          msg);
    }
  }
}

BOOST_AUTO_TEST_CASE(emulated_links) {
  session_file f(edit(two_parties, "[learner]",
                      "[net]\nlatency_ms = 5\nbandwidth_mbps = 100\n\n"
                      "[learner]"));
  auto c = load_session(f.path);
  BOOST_TEST(c.link.latency_ms == 5.0);
  BOOST_TEST(c.link.bandwidth_mbps == 100.0);
  apply_override(c, "net.latency_ms=0.02");
  apply_override(c, "net.bandwidth_mbps=10000");
  BOOST_TEST(c.link.latency_ms == 0.02);
  BOOST_TEST(c.link.bandwidth_mbps == 10000.0);
  // No [net]: no emulation.
  session_file none(two_parties);
  BOOST_TEST(!load_session(none.path).link.enabled());

  auto msg = error_with("[learner]", "[net]\nlatency_ms = -1\n\n[learner]",
                        "latency_ms = -1");
  BOOST_TEST(contains(msg, "[net] latency_ms: expected a number in [0, "
                           "60000]"));
  msg =
      error_with("[learner]", "[net]\njitter_ms = 1\n\n[learner]", "jitter_ms");
  BOOST_TEST(contains(msg, "jitter_ms"));
  msg = error_with("[learner]", "[net]\nbandwidth_mbps = \"fast\"\n\n[learner]",
                   "bandwidth_mbps");
  BOOST_TEST(contains(msg, "expected a number"));
  msg = error_of([&] { apply_override(c, "net.bandwidth_mbps=-3"); });
  BOOST_TEST(contains(msg, "--set net.bandwidth_mbps=-3: expected a number "
                           "in [0, "));
  msg = error_of([&] { apply_override(c, "net.latency=3"); });
  BOOST_TEST(contains(msg, "unknown setting net.latency"));
  msg = error_of([&] { apply_override(c, "net.latency_ms=abc"); });
  BOOST_TEST(contains(msg, "net.latency_ms=abc: expected a number in [0, "
                           "60000]"));

  // The idle bound is a [net] key too, and a --set one.
  session_file idle(edit(two_parties, "[learner]",
                         "[net]\nidle_timeout = 3600\n\n[learner]"));
  BOOST_TEST(load_session(idle.path).link.idle_seconds == 3600.0);
  apply_override(c, "net.idle_timeout=90");
  BOOST_TEST(c.link.idle_seconds == 90.0);
  msg = error_of([&] { apply_override(c, "net.idle_timeout=-1"); });
  BOOST_TEST(contains(msg, "net.idle_timeout=-1: expected a number in [0, "
                           "604800]"));
}

BOOST_AUTO_TEST_CASE(tls_needs_all_three_files) {
  auto msg = error_with("data = \"shop.csv\"",
                        "data = \"shop.csv\"\n[tls]\ncertificate = \"c.pem\"",
                        "[tls]");
  BOOST_TEST(contains(msg, "[tls] has certificate but not key or ca"));
  msg = error_with("data = \"shop.csv\"",
                   "data = \"shop.csv\"\n[tls]\nkey = \"k\"\nca = \"a\"",
                   "[tls]");
  BOOST_TEST(contains(msg, "[tls] has key and ca but not certificate"));
  msg =
      error_with("data = \"shop.csv\"", "data = \"shop.csv\"\n[tls]", "[tls]");
  BOOST_TEST(contains(msg, "[tls] is empty"));
}

BOOST_AUTO_TEST_CASE(columns_across_parties) {
  // An id column on one party only.
  auto msg = error_with("label = \"y\"", "label = \"y\"\nid = \"cid\"",
                        "[[party]]\nname = \"shop\"");
  BOOST_TEST(contains(msg, "party \"shop\" has no id column, but party "
                           "\"bank\""));
  // A test file on one party only.
  msg = error_with("data = \"shop.csv\"",
                   "data = \"shop.csv\"\ntest = \"shop_test.csv\"",
                   "[[party]]\nname = \"bank\"");
  BOOST_TEST(contains(msg, "party \"bank\" has no test file"));
  // A feature twice, the label or id as a feature, a feature of two parties.
  msg = error_with("label = \"y\"", "label = \"y\"\nfeatures = [\"a\", \"a\"]",
                   "features");
  BOOST_TEST(contains(msg, "party \"bank\": feature \"a\" is listed twice"));
  msg = error_with("label = \"y\"", "label = \"y\"\nfeatures = [\"a\", \"y\"]",
                   "features");
  BOOST_TEST(contains(msg, "feature \"y\" is also its label column"));
  msg = error_with("label = \"y\"",
                   "label = \"y\"\nid = \"k\"\nfeatures = [\"k\"]", "features");
  BOOST_TEST(contains(msg, "feature \"k\" is also its id column"));
  msg = error_with("label = \"y\"", "label = \"y\"\nid = \"y\"", "label =");
  BOOST_TEST(contains(msg, "label \"y\" is also the id column"));
  msg = error_with("label = \"y\"", "label = \"y\"\nfeatures = []", "features");
  BOOST_TEST(contains(msg, "names no column"));
  auto text = edit(edit(two_parties, "label = \"y\"",
                        "label = \"y\"\nfeatures = [\"a\", \"b\"]"),
                   "data = \"shop.csv\"",
                   "data = \"shop.csv\"\nfeatures = [\"c\", \"b\"]");
  session_file f(text);
  msg = f.error("[[party]]\nname = \"shop\"");
  BOOST_TEST(contains(msg, "party \"shop\" lists feature \"b\", which party "
                           "\"bank\""));
}

BOOST_AUTO_TEST_CASE(overrides) {
  session_file f(two_parties);
  auto c = load_session(f.path);
  apply_override(c, "eta=0.1");
  apply_override(c, "trees=5");
  apply_override(c, "max_depth=3");
  apply_override(c, "timeout=2.5");
  apply_override(c, "protocol=centralized");
  BOOST_TEST(c.params.tree.eta == 0.1);
  BOOST_TEST(c.params.rounds == 5);
  BOOST_TEST(c.params.tree.max_depth == 3);
  BOOST_TEST(c.timeout_seconds == 2.5);
  BOOST_TEST(c.protocol == "centralized");

  auto before = c.params.tree.eta;
  auto msg = error_of([&] { apply_override(c, "eta=5"); });
  BOOST_TEST(contains(msg, "--set eta=5"));
  BOOST_TEST(contains(msg, "out of range"));
  BOOST_TEST(c.params.tree.eta == before); // unchanged on error
  msg = error_of([&] { apply_override(c, "max_dpeth=3"); });
  BOOST_TEST(contains(msg, "unknown setting \"max_dpeth\""));
  BOOST_TEST(contains(msg, "timeout"));
  msg = error_of([&] { apply_override(c, "trees=many"); });
  BOOST_TEST(contains(msg, "not an integer"));
  msg = error_of([&] { apply_override(c, "timeout=0"); });
  BOOST_TEST(contains(msg, "--set timeout=0"));
  msg = error_of([&] { apply_override(c, "timeout=soon"); });
  BOOST_TEST(contains(msg, "not a number"));
  BOOST_TEST(c.timeout_seconds == 2.5);
  msg = error_of([&] { apply_override(c, "protocol=nope"); });
  BOOST_TEST(contains(msg, "unknown protocol \"nope\""));
  msg = error_of([&] { apply_override(c, "eta"); });
  BOOST_TEST(contains(msg, "KEY=VALUE"));
  BOOST_TEST(c.protocol == "centralized");

  c.parties.pop_back();
  msg = error_of([&] { apply_override(c, "protocol=plain"); });
  BOOST_TEST(contains(msg, "needs at least 2 parties"));
}

BOOST_AUTO_TEST_CASE(a_party_at_a_node_names_a_dataset_not_a_file) {
  for (auto data : {"/etc/passwd", "../shop.csv", "data/shop.csv"}) {
    session_file f(edit(two_parties, "data = \"shop.csv\"",
                        std::string("data = \"") + data +
                            "\"\nlocation = \"127.0.0.1:4242\""));
    auto msg = error_of([&] { load_session(f.path); });
    BOOST_TEST(contains(msg, std::string("party \"shop\" data \"") + data +
                                 "\": a party on a node names the dataset"),
               msg);
    BOOST_TEST(contains(msg, "veil node --data NAME=PATH"), msg);
  }
}

BOOST_AUTO_TEST_CASE(a_node_file_lists_datasets_columns_and_store) {
  session_file f(R"(store = "parts"
[datasets.adult_train]
path = "adult_train.csv.gz"
columns = ["age", "workclass"]
id = "person"
[datasets.bank]
path = "/srv/bank.csv"
)");
  auto c = veil::apps::load_node_file(f.path);
  BOOST_TEST(c.store == (f.tmp / "parts"));
  BOOST_REQUIRE(c.datasets.size() == 2u);
  BOOST_TEST(c.datasets["adult_train"].path == (f.tmp / "adult_train.csv.gz"));
  BOOST_TEST((c.datasets["adult_train"].columns ==
              std::vector<std::string>{"age", "workclass"}));
  BOOST_TEST(c.datasets["adult_train"].id == "person");
  BOOST_TEST(c.datasets["bank"].path == "/srv/bank.csv");
  BOOST_TEST(!c.datasets["bank"].restricted());
  BOOST_TEST(c.datasets["bank"].columns.empty());
  for (auto [text, expected] :
       {std::pair{"[datasets.x]\npath = \"a\"\nsecret = 1\n", "unknown key"},
        {"[datasets.x]\ncolumns = [\"a\"]\n", "dataset \"x\" has no path"},
        {"[datasets.x]\npath = \"a\"\ncolumns = []\n", "allows no column"},
        {"[datasets.\"a/b\"]\npath = \"a\"\n", "a dataset name is made of"},
        {"store = \"s\"\n", "no [datasets.NAME] table"},
        {"[datasets.x]\npath = \"a\"\ncolumns = [\"k\"]\nid = \"k\"\n",
         "is also in columns"}}) {
    session_file g(text);
    auto msg = error_of([&] { veil::apps::load_node_file(g.path); });
    BOOST_TEST(contains(msg, g.path), msg);
    BOOST_TEST(contains(msg, expected), msg);
  }
}

BOOST_AUTO_TEST_CASE(check_local_files_names_party_and_file) {
  session_file f(edit(two_parties, "data = \"shop.csv\"",
                      "data = \"shop.csv\"\nlocation = \"127.0.0.1:4242\""));
  auto c = load_session(f.path);
  // shop is remote: only bank's file is checked here.
  auto msg = error_of([&] { check_local_files(c); });
  BOOST_TEST(contains(msg, f.path));
  BOOST_TEST(contains(msg, "party \"bank\" data file"));
  BOOST_TEST(contains(msg, f.tmp / "bank.csv"));
  BOOST_TEST(contains(msg, "does not exist"));

  f.tmp.file("bank.csv", "a,y\n1,0\n");
  check_local_files(c);

  fs::create_directory(f.tmp / "folder.csv");
  c.parties[0].data = f.tmp / "folder.csv";
  msg = error_of([&] { check_local_files(c); });
  BOOST_TEST(contains(msg, "is a folder"));

  c.parties[0].data = f.tmp.file("empty.csv", "");
  msg = error_of([&] { check_local_files(c); });
  BOOST_TEST(contains(msg, "is empty"));

  if (::geteuid() != 0) { // root reads anything
    c.parties[0].data = f.tmp.file("secret.csv", "a,y\n");
    ::chmod(c.parties[0].data.c_str(), 0);
    msg = error_of([&] { check_local_files(c); });
    BOOST_TEST(contains(msg, "cannot be read"));
  }

  c.parties[0].data = f.tmp / "bank.csv";
  c.parties[0].test = f.tmp / "bank_test.csv";
  msg = error_of([&] { check_local_files(c); });
  BOOST_TEST(contains(msg, "party \"bank\" test file"));
  c.parties[0].test.clear();

  c.tls = {f.tmp / "bank.csv", f.tmp / "bank.csv", f.tmp / "ca.pem"};
  msg = error_of([&] { check_local_files(c); });
  BOOST_TEST(contains(msg, "[tls] ca file"));
}

BOOST_AUTO_TEST_CASE(the_adult_examples_parse) {
  for (auto name : {"adult-3-parties", "adult-3-nodes"}) {
    BOOST_TEST_CONTEXT(name) {
      auto path = std::string(VEIL_SOURCE_DIR) + "/examples/" + name + ".toml";
      auto c = load_session(path);
      BOOST_TEST(c.protocol == "plain");
      BOOST_REQUIRE(c.parties.size() == 3u);
      BOOST_TEST(c.parties[c.active_party()].name == "bank");
      BOOST_TEST(c.parties[c.active_party()].label == "label");
      BOOST_TEST(c.params.rounds == 100);
      BOOST_TEST(c.params.tree.max_depth == 6);
      // The parties split Adult's 14 feature columns between them.
      std::multiset<std::string> columns;
      for (auto& p : c.parties) {
        BOOST_TEST(p.id.empty());
        if (p.is_local())
          BOOST_TEST(fs::path(p.data) ==
                     fs::path(std::string(VEIL_SOURCE_DIR) +
                              "/../shared/datasets/adult_train.csv.gz")
                         .lexically_normal());
        else // the name its node serves the file under
          BOOST_TEST(p.data == "adult_train");
        columns.insert(p.features.begin(), p.features.end());
      }
      std::multiset<std::string> adult = {"age",
                                          "workclass",
                                          "fnlwgt",
                                          "education",
                                          "education_num",
                                          "marital_status",
                                          "occupation",
                                          "relationship",
                                          "race",
                                          "sex",
                                          "capital_gain",
                                          "capital_loss",
                                          "hours_per_week",
                                          "native_country"};
      BOOST_TEST((columns == adult));
      if (fs::exists(std::string(VEIL_SHARED_DIR) +
                     "/datasets/adult_train.csv.gz"))
        check_local_files(c);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_documented_example_parses) {
  std::ifstream in(std::string(VEIL_SOURCE_DIR) + "/docs/session.md");
  BOOST_REQUIRE(in);
  std::string doc((std::istreambuf_iterator<char>(in)),
                  std::istreambuf_iterator<char>());
  // The first TOML block is the complete example.
  auto begin = doc.find("```toml\n");
  BOOST_REQUIRE(begin != std::string::npos);
  begin += 8;
  auto end = doc.find("```", begin);
  session_file f(doc.substr(begin, end - begin));
  auto c = load_session(f.path);
  BOOST_REQUIRE(c.parties.size() == 2u);
  BOOST_TEST(c.parties[0].features.size() == 2u);
  BOOST_TEST(c.parties[1].host == "10.0.0.5");
  BOOST_TEST(c.parties[1].data == "shop");
  BOOST_TEST(c.tls.enabled());
}

BOOST_AUTO_TEST_CASE(feverless_spreads_labels_and_takes_its_parameters) {
  auto text = edit(edit(two_parties, "protocol = \"plain\"",
                        "[protocol]\nname = \"feverless\"\nepsilon = 1.5\n"
                        "delta = 1e-6\npaillier.bits = 2048\n\n"
                        "[protocol.feverless]\nbuckets = 8\n"
                        "election = \"per_batch\""),
                   "data = \"shop.csv\"", "data = \"shop.csv\"\nlabel = \"y\"");
  session_file f(text);
  auto c = load_session(f.path);
  BOOST_TEST(c.protocol == "feverless");
  BOOST_TEST(c.parties[0].label == "y");
  BOOST_TEST(c.parties[1].label == "y");
  BOOST_TEST(c.protocol_params.at("epsilon") == "1.5");
  BOOST_TEST(c.protocol_params.at("delta") == "1e-06");
  BOOST_TEST(c.protocol_params.at("feverless.buckets") == "8");
  BOOST_TEST(c.protocol_params.at("paillier.bits") == "2048");
  BOOST_TEST(c.protocol_params.at("feverless.election") == "per_batch");
  // A parameter of the protocol on the command line; others are refused.
  apply_override(c, "feverless.buckets=5");
  apply_override(c, "epsilon=3");
  BOOST_TEST(c.protocol_params.at("feverless.buckets") == "5");
  BOOST_TEST(c.protocol_params.at("epsilon") == "3");
  auto msg = error_of([&] { apply_override(c, "feverless.bukets=5"); });
  BOOST_TEST(contains(msg, "unknown setting \"feverless.bukets\""), msg);
  // Back to plain: it has none of these parameters, and only one party
  // may hold labels.
  msg = error_of([&] { apply_override(c, "protocol=plain"); });
  BOOST_TEST(contains(msg, "--set protocol=plain"), msg);
  BOOST_TEST(contains(msg, "protocol plain has no parameter"), msg);
  auto no_params = c;
  no_params.protocol_params.clear();
  msg = error_of([&] { apply_override(no_params, "protocol=plain"); });
  BOOST_TEST(contains(msg, "--set protocol=plain"), msg);
  BOOST_TEST(contains(msg, "both have a label"), msg);
  BOOST_TEST(c.protocol == "feverless");
  for (auto name : {"feverless-plain", "feverless-ldp", "feverless-ahe"}) {
    apply_override(c, std::string("protocol=") + name);
    BOOST_TEST(c.protocol == name);
  }
}

BOOST_AUTO_TEST_CASE(feverless_parameter_typos_and_label_rules) {
  auto msg = error_with("protocol = \"plain\"",
                        "[protocol]\nname = \"feverless\"\n"
                        "feverless.bukets = 8",
                        "feverless.bukets");
  BOOST_TEST(contains(msg, "protocol feverless has no parameter "
                           "\"feverless.bukets\""),
             msg);
  BOOST_TEST(contains(msg, "feverless.buckets"), msg);
  // With a protocol that spreads labels, still at least one label holder.
  msg = error_with("protocol = \"plain\"\n\n[learner]\ntrees = 10\n\n"
                   "[[party]]\nname = \"bank\"\ndata = \"bank.csv\"\n"
                   "label = \"y\"",
                   "protocol = \"feverless\"\n\n[learner]\ntrees = 10\n\n"
                   "[[party]]\nname = \"bank\"\ndata = \"bank.csv\"");
  BOOST_TEST(contains(msg, "no party has a label: at least one [[party]]"),
             msg);
  // plain: the message says which protocols spread the labels.
  session_file f(edit(two_parties, "data = \"shop.csv\"",
                      "data = \"shop.csv\"\nlabel = \"y\""));
  msg = f.error("[[party]]\nname = \"shop\"");
  BOOST_TEST(contains(msg, "with protocol plain"), msg);
  BOOST_TEST(contains(msg, "feverless protocols spread them"), msg);
  // A label holder's test file must not be its training file: the test
  // labels are gathered for the metrics.
  auto text =
      edit(two_parties, "protocol = \"plain\"", "protocol = \"feverless\"");
  text = edit(text, "data = \"bank.csv\"",
              "data = \"bank.csv\"\ntest = \"bank.csv\"");
  text = edit(text, "data = \"shop.csv\"",
              "data = \"shop.csv\"\ntest = \"shop_test.csv\"");
  session_file same(text);
  msg = same.error("[[party]]\nname = \"bank\"");
  BOOST_TEST(contains(msg, "party \"bank\": its test file is its training "
                           "file"),
             msg);
}

BOOST_AUTO_TEST_CASE(opboost_takes_its_parameters_and_bounds_by_column) {
  auto text = edit(two_parties, "protocol = \"plain\"",
                   "[protocol]\nname = \"opboost\"\nepsilon = 0.5\n"
                   "opboost.mechanism = \"adj-map\"\nopboost.theta = 3\n"
                   "opboost.domain = \"1:20\"\n\n"
                   "[protocol.opboost.bounds]\nage = \"17:90\"\n"
                   "hours = \"1:99\"");
  session_file f(text);
  auto c = load_session(f.path);
  BOOST_TEST(c.protocol == "opboost");
  BOOST_TEST(c.protocol_params.at("epsilon") == "0.5");
  BOOST_TEST(c.protocol_params.at("opboost.mechanism") == "adj-map");
  BOOST_TEST(c.protocol_params.at("opboost.theta") == "3");
  BOOST_TEST(c.protocol_params.at("opboost.domain") == "1:20");
  BOOST_TEST(c.protocol_params.at("opboost.bounds.age") == "17:90");
  BOOST_TEST(c.protocol_params.at("opboost.bounds.hours") == "1:99");
  BOOST_TEST(c.protocol_param_lines.at("opboost.bounds.age") ==
             line_of(text, "age = "));
  // On the command line: any parameter, a column's bounds too.
  apply_override(c, "opboost.bounds.fnlwgt=1:2");
  apply_override(c, "opboost.theta=5");
  BOOST_TEST(c.protocol_params.at("opboost.bounds.fnlwgt") == "1:2");
  BOOST_TEST(c.protocol_params.at("opboost.theta") == "5");
  for (auto bad : {"opboost.bounds.=1:2", "opboost.thetta=2"}) {
    auto msg = error_of([&] { apply_override(c, bad); });
    BOOST_TEST(contains(msg, "unknown setting"), msg);
  }
  // A bounds file is resolved against the session file's folder.
  session_file g(edit(two_parties, "protocol = \"plain\"",
                      "[protocol]\nname = \"opboost\"\n"
                      "opboost.bounds = \"public/bounds.csv\""));
  auto d = load_session(g.path);
  BOOST_TEST(d.protocol_params.at("opboost.bounds") ==
             (fs::absolute(g.path).parent_path() / "public/bounds.csv")
                 .lexically_normal()
                 .string());
}

BOOST_AUTO_TEST_CASE(opboost_parameter_typos_and_label_rules) {
  auto msg = error_with("protocol = \"plain\"",
                        "[protocol]\nname = \"opboost\"\n"
                        "opboost.mechansim = \"global-map\"",
                        "opboost.mechansim");
  BOOST_TEST(contains(msg, "protocol opboost has no parameter "
                           "\"opboost.mechansim\""),
             msg);
  BOOST_TEST(contains(msg, "opboost.mechanism"), msg);
  BOOST_TEST(contains(msg, "opboost.bounds.COLUMN"), msg);
  // FEVERLESS's parameters are not OpBoost's.
  msg = error_with("protocol = \"plain\"",
                   "[protocol]\nname = \"opboost\"\nfeverless.buckets = 8",
                   "feverless.buckets");
  BOOST_TEST(contains(msg, "protocol opboost has no parameter"), msg);
  // Party A is the one party with the label.
  session_file f(
      edit(edit(two_parties, "protocol = \"plain\"", "protocol = \"opboost\""),
           "data = \"shop.csv\"", "data = \"shop.csv\"\nlabel = \"y\""));
  msg = f.error("[[party]]\nname = \"shop\"");
  BOOST_TEST(contains(msg, "exactly one party may hold the labels with "
                           "protocol opboost"),
             msg);
}

BOOST_AUTO_TEST_CASE(opboost_bad_values_name_file_line_and_key) {
  temp_dir dir;
  dir.file("bank.csv", "x,y\n1,0\n2,1\n3,0\n4,1\n");
  dir.file("shop.csv", "z\n5\n6\n7\n8\n");
  struct bad_case {
    std::string line;
    std::string key;
    std::string says;
  };
  for (const auto& k : std::vector<bad_case>{
           {"opboost.theta = \"x\"", "opboost.theta",
            "expected an integer in [1, inf)"},
           {"opboost.mechanism = \"nope\"", "opboost.mechanism", "nope"},
           {"opboost.domain = \"1.5:10\"", "opboost.domain", "integers"},
           {"opboost.bounds.z = \"3:1\"", "opboost.bounds.z", "must be below"},
           {"opboost.prediction = \"maybe\"", "opboost.prediction",
            "expected private"},
           {"opboost.bounds = \"none.csv\"", "opboost.bounds",
            "cannot open the bounds file"},
       }) {
    auto text = edit(two_parties, "protocol = \"plain\"",
                     "[protocol]\nname = \"opboost\"\n" + k.line);
    auto path = dir.file("session.toml", text);
    auto r = veil::test::run_veil("train --config " + path);
    BOOST_TEST(r.status == 2, k.line << ": " << r.output);
    auto where = path + ":" + std::to_string(line_of(text, k.line)) +
                 ": [protocol] " + k.key;
    BOOST_TEST(contains(r.output, where), k.line << ": " << r.output);
    BOOST_TEST(contains(r.output, k.says), k.line << ": " << r.output);
  }
}

BOOST_AUTO_TEST_SUITE_END()
