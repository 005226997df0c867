// `veil train --plan` states, before any party starts, the guarantee the
// training then states, for every protocol, and trains nothing; Privet and
// LDP boosting run from session files as from one table (Privet's parties
// holding the blocks --parties deals give its tables, LDP boosting's one
// table deals the same owners), and refuse what they cannot take, naming
// it.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/files.hpp"
#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using veil::test::contains;
using veil::test::read_json;
using veil::test::run_veil;
using veil::test::temp_dir;

namespace {

struct small_data : veil::test::generated_split {
  explicit small_data(int rows = 1600) : generated_split(rows, 5) {}
};

/// `veil train --config FILE` on `toml`, written to FILE in `dir`: refused
/// (exit 2) with `reason` in its output.
void require_refused(const temp_dir& dir, const std::string& file,
                     const std::string& toml, const std::string& reason) {
  std::ofstream(dir / file) << toml;
  auto r = run_veil("train --config " + dir / file);
  BOOST_TEST(r.status == 2, file);
  BOOST_TEST(contains(r.output, reason), r.output);
}

/// What --plan printed after "privacy (fixed before training): ", to the
/// end of its output.
std::string planned(const std::string& output) {
  const std::string tag = "privacy (fixed before training): ";
  auto at = output.find(tag);
  if (at == std::string::npos)
    return "";
  auto text = output.substr(at + tag.size());
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

} // namespace

BOOST_AUTO_TEST_SUITE(plan_and_sessions)

BOOST_AUTO_TEST_CASE(the_plan_states_what_the_training_states) {
  small_data d;
  struct one {
    std::string flags;
    /// The plan's text the training prints up to here (FEVERLESS's plan
    /// adds the noise's sigma, which training prints in other words).
    std::string until;
  };
  for (const auto& [flags, until] :
       {one{"--protocol feverless --epsilon 1", "; noise"},
        one{"--protocol opboost --epsilon 2", ""},
        one{"--protocol masked-xgboost --epsilon 1", ""},
        one{"--protocol federboost", ""}, one{"--protocol privet", ""}}) {
    auto common = "train --trees 3 --depth 3 --quiet " + flags + d.data();
    auto plan = run_veil(common + " --plan --report " + d.dir / "r.json");
    BOOST_REQUIRE_MESSAGE(plan.status == 0, plan.output);
    BOOST_TEST(!contains(plan.output, "trained "), plan.output);
    BOOST_TEST(!std::ifstream(d.dir / "r.json").good(), flags);
    auto text = planned(plan.output);
    if (!until.empty())
      text = text.substr(0, text.find(until));
    BOOST_REQUIRE_MESSAGE(text.size() > 20, plan.output);
    auto trained = run_veil(common);
    BOOST_REQUIRE_MESSAGE(trained.status == 0, trained.output);
    BOOST_TEST(contains(trained.output, text), flags << "\nplanned: " << text
                                                     << "\ntrained:\n"
                                                     << trained.output);
  }
  // LDP boosting's owners are dealt before its plan, as for training.
  small_data big(20000);
  auto ldp =
      "train --protocol ldp-boost --epsilon 3 --trees 2 --quiet" + big.data();
  auto plan = run_veil(ldp + " --plan");
  BOOST_REQUIRE_MESSAGE(plan.status == 0, plan.output);
  auto trained = run_veil(ldp);
  BOOST_TEST(contains(trained.output, "privacy: " + planned(plan.output)),
             trained.output);
  // privet-plain's plan trains nothing either.
  auto reference = run_veil("train --protocol privet-plain --plan --report " +
                            d.dir / "r.json" + d.data());
  BOOST_TEST(reference.status == 0, reference.output);
  BOOST_TEST(!contains(reference.output, "trained "), reference.output);
  BOOST_TEST(!std::ifstream(d.dir / "r.json").good());
  // No protection is said as plainly.
  auto plain = run_veil("train --protocol plain --plan" + d.data());
  BOOST_TEST(contains(plain.output, "plan: plain, 3 parties; nothing trained"),
             plain.output);
  BOOST_TEST(contains(planned(plain.output), "none: plaintext gradients"));
  // A session file's plan counts the label party's rows.
  std::ofstream(d.dir / "s.toml")
      << "[protocol]\nname = \"feverless\"\nepsilon = 1\n"
         "[[party]]\nname = \"a\"\ndata = \"d_train.csv\"\n"
         "features = [\"f0\", \"f1\", \"f2\"]\nlabel = \"label\"\n"
         "[[party]]\nname = \"b\"\ndata = \"d_train.csv\"\n"
         "features = [\"f3\", \"f4\", \"f5\"]\n";
  auto file = run_veil("train --config " + d.dir / "s.toml" + " --plan");
  BOOST_REQUIRE_MESSAGE(file.status == 0, file.output);
  BOOST_TEST(contains(file.output, "plan: feverless, 2 parties, 1200 rows"),
             file.output);
  // Over at most NT·d·f = 100 · 6 · 6 queries per record.
  BOOST_TEST(contains(planned(file.output), "(1, 1e-05)-DP"), file.output);
  BOOST_TEST(contains(planned(file.output), "at most 3600 queries"),
             file.output);
}

BOOST_AUTO_TEST_CASE(privet_from_a_session_file_trains_as_from_one_table) {
  small_data d;
  auto table = run_veil("train --protocol privet --parties 3 --trees 3 "
                        "--quiet --report " +
                        d.dir / "t.json" + d.data());
  BOOST_REQUIRE_MESSAGE(table.status == 0, table.output);
  // The blocks --parties 3 deals, the label holder named last in the file.
  auto party = [&](const std::string& name, const std::string& features,
                   bool label) {
    return "[[party]]\nname = \"" + name +
           "\"\ndata = \"d_train.csv\"\ntest = \"d_test.csv\"\nfeatures = [" +
           features + "]\n" + (label ? "label = \"label\"\n" : "");
  };
  std::ofstream(d.dir / "p.toml")
      << "[protocol]\nname = \"privet\"\n[learner]\ntrees = 3\n"
      << party("shop", "\"f2\", \"f3\"", false)
      << party("insurer", "\"f4\", \"f5\"", false)
      << party("bank", "\"f0\", \"f1\"", true);
  auto file = run_veil("train --config " + d.dir / "p.toml" +
                       " --quiet --report " + d.dir / "f.json");
  BOOST_REQUIRE_MESSAGE(file.status == 0, file.output);
  auto t = read_json(d.dir / "t.json"), f = read_json(d.dir / "f.json");
  BOOST_TEST(f["tables"] == t["tables"], f["tables"].dump());
  // Fixed point both ways: the truncations' one-ulp errors differ.
  BOOST_TEST(std::abs(f["metrics"]["auc"].get<double>() -
                      t["metrics"]["auc"].get<double>()) < 0.005);
  BOOST_TEST(f["party_names"][0] == "bank", f["party_names"].dump());
  // What it cannot take, named.
  require_refused(d.dir, "r.toml",
                  "[protocol]\nname = \"privet\"\n" +
                      party("bank", "\"f0\", \"f1\"", true) +
                      "[[party]]\nname = \"shop\"\ndata = \"d_train.csv\"\n"
                      "test = \"d_test.csv\"\nlocation = \"localhost:1\"\n",
                  "party shop at localhost:1: Privet's parties run in this "
                  "process");
  require_refused(d.dir, "n.toml",
                  "[protocol]\nname = \"privet\"\n" +
                      party("bank", "\"f0\", \"f1\"", true) +
                      party("dealer", "\"f2\"", false),
                  "the name of Privet's dealer");
}

BOOST_AUTO_TEST_CASE(ldp_boosting_from_a_session_file_is_its_one_table) {
  small_data d(20000);
  auto table = run_veil("train --protocol ldp-boost --trees 3 --quiet --set "
                        "ldp.mechanism=identity --report " +
                        d.dir / "t.json" + d.data());
  BOOST_REQUIRE_MESSAGE(table.status == 0, table.output);
  const std::string user = "[[party]]\nname = \"user\"\ndata = "
                           "\"d_train.csv\"\ntest = \"d_test.csv\"\n";
  std::ofstream(d.dir / "l.toml")
      << "[protocol]\nname = \"ldp-boost\"\n\"ldp.mechanism\" = "
         "\"identity\"\n[learner]\ntrees = 3\n"
      << user << "label = \"label\"\n";
  auto file = run_veil("train --config " + d.dir / "l.toml" +
                       " --quiet --report " + d.dir / "f.json");
  BOOST_REQUIRE_MESSAGE(file.status == 0, file.output);
  auto t = read_json(d.dir / "t.json"), f = read_json(d.dir / "f.json");
  // The same seed deals the same owners, data user's and evaluation rows
  // (which owners each round asks is the data user's own unseeded draw).
  for (const auto* key : {"owners", "user_rows", "test_rows", "params"})
    BOOST_TEST(f[key] == t[key], key << ": " << f[key].dump());
  // Without noise the centroids of 2,000 owners' rows beat chance (0.5)
  // on 5,000 rows by far more than a standard error of 0.007.
  BOOST_TEST(f["metrics"]["error"].get<double>() < 0.4);
  // Another party in this process, or ids, are not LDP boosting's.
  const std::string head =
      "[protocol]\nname = \"ldp-boost\"\n" + user + "label = \"label\"\n";
  require_refused(d.dir, "two.toml",
                  head + "[[party]]\nname = \"more\"\ndata = \"d_test.csv\"\n",
                  "party more: an ldp-boost session's other parties are "
                  "owner blocks");
  require_refused(d.dir, "subset.toml", head + "features = [\"f0\"]\n",
                  "reads every feature column");
  // An owner block on a node takes its location and dataset, nothing else.
  require_refused(d.dir, "block.toml",
                  head + "[[party]]\nname = \"owners\"\ndata = \"rows\"\n"
                         "id = \"rowid\"\nlocation = \"localhost:1\"\n",
                  "block.toml: party owners: an owner block takes its "
                  "location and data");
}

BOOST_AUTO_TEST_SUITE_END()
