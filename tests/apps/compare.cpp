// `veil compare` as a user runs it: a grid of protocols × budgets ×
// repetitions on one split. Each cell's numbers are those of the same
// `veil train` run on the same files (the plain protocol's AUC checked
// against a run of its own); protocols without a budget run once per
// repetition; a run that fails is recorded in the table with its error
// and the command exits 1; an unknown protocol or budget is refused
// before anything runs. The plots are drawn when gnuplot is installed.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support/files.hpp"
#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using veil::test::contains;
using veil::test::csv_rows;
using veil::test::read_json;
using veil::test::run_veil;
using veil::test::temp_dir;

namespace {

/// A small binary table split in two files (veil generate).
struct small_split : veil::test::generated_split {
  small_split() : generated_split(600, 3) {}
};

} // namespace

BOOST_AUTO_TEST_SUITE(compare)

BOOST_AUTO_TEST_CASE(each_cell_is_the_run_of_veil_train) {
  small_split d;
  auto out = d.dir / "cmp";
  auto r = run_veil("compare --data " + d.train + " --test " + d.test +
                    " --protocols plain,opboost --epsilons 1,4 --repeats 2 "
                    "--trees 3 --depth 2 --quiet --out " +
                    out);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(contains(r.output, "| plain | – |"), r.output);
  BOOST_TEST(contains(r.output, "| opboost | 1.00 |"), r.output);
  BOOST_TEST(contains(r.output, "| opboost | 4.00 |"), r.output);
  auto rows = csv_rows(out + "/compare.csv");
  // The header, 2 plain runs and 2 × 2 opboost runs.
  BOOST_REQUIRE_EQUAL(rows.size(), 7u);
  BOOST_TEST(rows[0][0] == "protocol");
  BOOST_TEST(rows[0][4] == "auc");
  for (std::size_t i = 1; i < rows.size(); ++i)
    BOOST_TEST(rows[i][3] == "1", "run " << i);
  // plain's AUC is that of veil train on the same files with the first
  // run's seed.
  auto t =
      run_veil("train --protocol plain --data " + d.train + " --test " +
               d.test + " --trees 3 --depth 2 --seed 42 --quiet --report " +
               d.dir / "plain.json");
  BOOST_REQUIRE_MESSAGE(t.status == 0, t.output);
  double auc = read_json(d.dir / "plain.json")["metrics"]["auc"];
  BOOST_TEST(std::abs(std::stod(rows[1][4]) - auc) < 1e-6);
  // opboost's budget reached its runs: its guarantee names it.
  BOOST_TEST(contains(rows[3][8], "1-dLDP"), rows[3][8]);
  BOOST_TEST(contains(rows[5][8], "4-dLDP"), rows[5][8]);
  auto summary = csv_rows(out + "/summary.csv");
  BOOST_TEST(summary.size() == 4u); // header, plain, opboost at 1 and 4
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0)
    for (const auto* plot :
         {"/utility.svg", "/time.svg", "/bytes.svg", "/utility.png"})
      BOOST_TEST(contains(veil::test::read_text(out + plot).substr(0, 200),
                          std::string(plot).find("png") != std::string::npos
                              ? "PNG"
                              : "<svg"),
                 plot);
}

BOOST_AUTO_TEST_CASE(a_failed_run_is_recorded_and_fails_the_command) {
  small_split d;
  auto out = d.dir / "cmp";
  // plain takes no opboost settings: every plain run fails, opboost's run.
  auto r = run_veil("compare --data " + d.train + " --test " + d.test +
                    " --protocols plain,opboost --epsilons 2 --repeats 1 "
                    "--trees 2 --depth 2 --quiet --set opboost.theta=2 "
                    "--out " +
                    out);
  BOOST_TEST(r.status == 1, r.output);
  BOOST_TEST(contains(r.output, "| plain | – |"), r.output);
  BOOST_TEST(contains(r.output, "failed: "), r.output);
  BOOST_TEST(contains(r.output, "veil: error: plain run 1 failed:"), r.output);
  auto rows = csv_rows(out + "/compare.csv");
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  BOOST_TEST(rows[1][3] == "0");
  BOOST_TEST(rows[2][3] == "1");
}

BOOST_AUTO_TEST_CASE(a_split_of_data_and_refusals) {
  small_split d;
  auto out = d.dir / "cmp";
  auto r = run_veil("compare --data " + d.train +
                    " --protocols centralized --repeats 1 --trees 2 --quiet "
                    "--out " +
                    out);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  // 450 rows: a seeded 80/20 split.
  BOOST_TEST(contains(r.output, "of 360 training and 90 test rows"), r.output);
  auto bad = run_veil("compare --data " + d.train +
                      " --protocols plain,nonesuch --out " + out);
  BOOST_TEST(bad.status == 2);
  BOOST_TEST(contains(bad.output, "no protocol \"nonesuch\""), bad.output);
  auto eps = run_veil("compare --data " + d.train +
                      " --protocols opboost --epsilons 1,-2 --out " + out);
  BOOST_TEST(eps.status == 2);
  BOOST_TEST(contains(eps.output, "--epsilons"), eps.output);
}

BOOST_AUTO_TEST_SUITE_END()
