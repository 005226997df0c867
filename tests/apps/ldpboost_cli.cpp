// `veil train --protocol ldp-boost` as a user runs it: on the spec's
// synthetic data, the owners dealt from the rows and the report's staged
// errors one per round, the non-private pipeline (identity) as good as its
// own first learner, Piecewise's noise costing accuracy but not all of it;
// what it cannot take is refused, naming it, and nothing is written.
#include <boost/test/unit_test.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/files.hpp"
#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using veil::test::contains;
using veil::test::read_json;
using veil::test::run_veil;
using veil::test::temp_dir;

BOOST_AUTO_TEST_SUITE(ldpboost_cli)

BOOST_AUTO_TEST_CASE(boosts_on_the_synthetic_data_and_reports_each_round) {
  temp_dir dir;
  const std::string common =
      "train --protocol ldp-boost --rows 40000 --seed 1 --trees 5 "
      "--set ldp.owners_per_round=500 --quiet --report ";
  auto plain =
      run_veil(common + (dir / "i.json") + " --set ldp.mechanism=identity");
  BOOST_REQUIRE_MESSAGE(plain.status == 0, plain.output);
  auto noisy = run_veil(common + (dir / "p.json") + " --epsilon 7");
  BOOST_REQUIRE_MESSAGE(noisy.status == 0, noisy.output);
  BOOST_TEST(contains(noisy.output, "each owner makes one piecewise release"),
             noisy.output);
  // What epsilon does not cover is said (spec §6.5).
  BOOST_TEST(contains(noisy.output, "its SAMME weight go in the clear"),
             noisy.output);
  auto i = read_json(dir / "i.json"), p = read_json(dir / "p.json");
  // 40,000 rows: 20% to evaluate on, 5% at the data user, 75% dealt 4 each.
  BOOST_TEST(i["owners"] == 7500);
  BOOST_TEST(i["test_rows"] == 8000);
  BOOST_TEST(i["user_rows"] == 2000);
  BOOST_TEST(i["staged_test_errors"].size() == i["ensemble"].size());
  BOOST_TEST(i["ensemble"].size() == 5u);
  double plain_error = i["metrics"]["error"].get<double>();
  double noisy_error = p["metrics"]["error"].get<double>();
  // Chance is 0.5; the non-private boosted centroids do far better, and the
  // noise costs something but leaves it well above chance on 8,000 rows
  // (a standard error of 0.0056 at 0.5).
  BOOST_TEST(plain_error < 0.3);
  BOOST_TEST(noisy_error < 0.4);
  BOOST_TEST(p["privacy"]["epsilon_per_owner"] == 7.0);
  // The last staged error is the reported one.
  BOOST_TEST(i["staged_test_errors"].back().get<double>() == plain_error);
}

BOOST_AUTO_TEST_CASE(refuses_what_it_cannot_take) {
  temp_dir dir;
  auto model = run_veil("train --protocol ldp-boost --rows 2000 "
                        "--model-out " +
                        (dir / "m.json"));
  BOOST_TEST(model.status == 2);
  BOOST_TEST(contains(model.output, "--model-out"), model.output);
  BOOST_TEST(!std::ifstream(dir / "m.json").good());
  auto key = run_veil("train --protocol ldp-boost --rows 2000 --set "
                      "max_depth=3");
  BOOST_TEST(key.status == 2);
  BOOST_TEST(contains(key.output, "--set max_depth=3"), key.output);
  auto mech = run_veil("train --protocol ldp-boost --rows 2000 "
                       "--set ldp.mechanism=gauss");
  BOOST_TEST(mech.status == 2);
  BOOST_TEST(contains(mech.output, "ldp.mechanism"), mech.output);
  auto regression = run_veil("train --protocol ldp-boost --objective "
                             "reg:squarederror --rows 2000");
  BOOST_TEST(regression.status == 2);
  BOOST_TEST(contains(regression.output, "classifies"), regression.output);
  // A file with a missing value: named with its row and column.
  std::ofstream(dir / "d.csv") << "a,b,label\n1,2,0\n3,,1\n";
  auto missing =
      run_veil("train --protocol ldp-boost --data " + (dir / "d.csv"));
  BOOST_TEST(missing.status == 2);
  BOOST_TEST(contains(missing.output, "row 2, b: a missing value"),
             missing.output);
}

BOOST_AUTO_TEST_CASE(image_features_refuse_what_they_cannot_read) {
  temp_dir dir;
  auto none = run_veil("generate --kind bovw --out " + (dir / "f.csv"));
  BOOST_TEST(none.status == 2);
  BOOST_TEST(contains(none.output, "--images"), none.output);
  std::ofstream(dir / "small.csv") << "a,b,label\n1,2,0\n";
  auto narrow = run_veil("generate --kind bovw --images " +
                         (dir / "small.csv") + " --out " + (dir / "f.csv"));
  BOOST_TEST(narrow.status == 2);
  BOOST_TEST(contains(narrow.output, "2 pixel columns, expected 784"),
             narrow.output);
  auto pair = run_veil("generate --kind bovw --pair 3,3 --images " +
                       (dir / "small.csv") + " --out " + (dir / "f.csv"));
  BOOST_TEST(pair.status == 2);
  BOOST_TEST(contains(pair.output, "--pair 3,3"), pair.output);
  BOOST_TEST(!std::ifstream(dir / "f_train.csv").good());
}

BOOST_AUTO_TEST_SUITE_END()
