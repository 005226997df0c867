// `veil train --protocol privet-plain` as a user runs it (Privet's
// plaintext reference, spec privet §3.4) on Breast Cancer: the report's
// AUC is the reference's (learners/table, computed here), with the
// protocol's approximations too; the model file is an ordinary Veil model
// that `veil predict` scores the same; what the tables cannot take is
// refused, naming it. `veil train --protocol privet` (the secure protocol
// as actors) opens the approximation-aware reference's feature per level
// and reaches its accuracy, on classification and on a regression set
// whose targets the label holder standardises; what it cannot do yet is
// refused, naming it.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "learners/data/csv_reader.hpp"
#include "learners/metrics/metrics.hpp"
#include "learners/table/decision_tables.hpp"
#include "protocols/privet/train.hpp"
#include "tests/support/files.hpp"
#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using veil::test::contains;
using veil::test::read_json;
using veil::test::run_veil;
using veil::test::temp_dir;
namespace learners = veil::learners;

namespace {

const std::string breast_cancer =
    std::string(VEIL_SHARED_DIR) + "/datasets/breast_cancer_wisconsin.csv.gz";

/// The reference's AUC on its own training rows.
double reference_auc(bool approximate) {
  learners::read_options ro;
  ro.label = "label";
  auto d = learners::read_table(breast_cancer, ro);
  // 10 tables of depth 3, 32 buckets, lambda 1, eta 1 both ways.
  auto t = approximate ? veil::protocols::privet::approximation_aware(
                             veil::protocols::privet::params{}, d.rows())
                       : learners::table_params{};
  auto m = learners::train_tables(d, t);
  return learners::auc(d.labels(), m.predict(d));
}

} // namespace

BOOST_AUTO_TEST_SUITE(privet_cli)

BOOST_AUTO_TEST_CASE(reports_the_references_metrics_and_a_model_file) {
  if (!std::ifstream(breast_cancer).good()) {
    BOOST_TEST_MESSAGE("skipped: no " << breast_cancer);
    return;
  }
  temp_dir dir;
  for (bool approximate : {false, true}) {
    auto r = run_veil("train --protocol privet-plain --data " + breast_cancer +
                      (approximate ? " --set privet.approximate=true" : "") +
                      " --model-out " + (dir / "m.json") + " --report " +
                      (dir / "r.json"));
    BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
    BOOST_TEST(contains(r.output, "10 decision tables of depth 3"), r.output);
    auto j = read_json(dir / "r.json");
    BOOST_TEST(j["weak_learner"] == "decision_table");
    BOOST_TEST(j["params"]["approximate"].get<bool>() == approximate);
    // Leaves go through float in the model file: AUC to 1e-6.
    BOOST_TEST(std::abs(j["metrics"]["auc"].get<double>() -
                        reference_auc(approximate)) < 1e-6);
  }
  auto p = run_veil("predict --model " + (dir / "m.json") + " --data " +
                    breast_cancer + " --label label");
  BOOST_REQUIRE_MESSAGE(p.status == 0, p.output);
  BOOST_TEST(contains(p.output, "auc"), p.output);
}

BOOST_AUTO_TEST_CASE(refuses_what_the_tables_cannot_take) {
  if (!std::ifstream(breast_cancer).good())
    return;
  auto bins = run_veil("train --protocol privet-plain --data " + breast_cancer +
                       " --set max_bin=16");
  BOOST_TEST(bins.status == 2);
  BOOST_TEST(contains(bins.output, "--set max_bin=16"), bins.output);
  auto buckets = run_veil("train --protocol privet-plain --data " +
                          breast_cancer + " --set privet.buckets=1");
  BOOST_TEST(buckets.status == 2);
  BOOST_TEST(contains(buckets.output, "privet.buckets"), buckets.output);
  auto multi = run_veil("train --protocol privet-plain --data " +
                        breast_cancer + " --objective multi:softmax");
  BOOST_TEST(multi.status == 2);
  BOOST_TEST(contains(multi.output, "binary:logistic or reg:squarederror"),
             multi.output);
  auto parties = run_veil("train --protocol privet-plain --parties 3 --data " +
                          breast_cancer);
  BOOST_TEST(parties.status == 2);
}

BOOST_AUTO_TEST_CASE(secure_tables_open_the_references_features) {
  if (!std::ifstream(breast_cancer).good())
    return;
  temp_dir dir;
  auto plain =
      run_veil("train --protocol privet-plain --trees 4 --data " +
               breast_cancer + " --set privet.approximate=true --model-out " +
               (dir / "m.json") + " --report " + (dir / "p.json"));
  BOOST_REQUIRE_MESSAGE(plain.status == 0, plain.output);
  auto secure = run_veil("train --protocol privet --parties 4 --trees 4 "
                         "--quiet --data " +
                         breast_cancer + " --report " + (dir / "s.json"));
  BOOST_REQUIRE_MESSAGE(secure.status == 0, secure.output);
  BOOST_TEST(contains(secure.output, "4 computing parties and the dealer"),
             secure.output);
  BOOST_TEST(contains(secure.output, "every feature's best bucket"),
             secure.output);
  auto s = read_json(dir / "s.json"), p = read_json(dir / "p.json");
  // The reference's features per level, from its model file (heap order:
  // level d's first node is 2^d - 1).
  auto m = read_json(dir / "m.json");
  const auto& names = m["features"];
  BOOST_REQUIRE(s["tables"].size() == 4u);
  for (std::size_t t = 0; t < 4; ++t)
    for (std::size_t d = 0; d < 3; ++d) {
      auto node = m["trees"][t]["nodes"][(std::size_t{1} << d) - 1];
      BOOST_TEST(s["tables"][t][d] == names[node["feature"].get<int>()],
                 "table " << t << " level " << d);
    }
  // Fixed point against double: the same accuracy, AUC within 0.005 (spec
  // §8.4 item 13).
  BOOST_TEST(s["metrics"]["accuracy"].get<double>() ==
             p["metrics"]["accuracy"].get<double>());
  BOOST_TEST(std::abs(s["metrics"]["auc"].get<double>() -
                      p["metrics"]["auc"].get<double>()) < 0.005);
  BOOST_TEST(s["online_bytes"].get<double>() > 0);
  BOOST_TEST(s["dealer_bytes"].get<double>() > 0);
  BOOST_TEST(s["parties"] == 5); // and the dealer
}

BOOST_AUTO_TEST_CASE(secure_regression_maps_standardised_targets_back) {
  const std::string ccpp =
      std::string(VEIL_SHARED_DIR) + "/datasets/ccpp.csv.gz";
  if (!std::ifstream(ccpp).good())
    return;
  temp_dir dir;
  auto common = " --objective reg:squarederror --trees 3 --data " + ccpp;
  auto plain = run_veil("train --protocol privet-plain --set "
                        "privet.approximate=true --report " +
                        (dir / "p.json") + common);
  BOOST_REQUIRE_MESSAGE(plain.status == 0, plain.output);
  auto secure = run_veil("train --protocol privet --parties 2 --quiet "
                         "--report " +
                         (dir / "s.json") + common);
  BOOST_REQUIRE_MESSAGE(secure.status == 0, secure.output);
  auto s = read_json(dir / "s.json"), p = read_json(dir / "p.json");
  double rmse_plain = p["metrics"]["rmse"].get<double>();
  // In the targets' unit (MW, sd about 17): 1e-3 of the reference's.
  BOOST_TEST(rmse_plain < 10);
  BOOST_TEST(std::abs(s["metrics"]["rmse"].get<double>() - rmse_plain) <
             1e-3 * rmse_plain);
}

BOOST_AUTO_TEST_CASE(secure_refuses_what_it_cannot_do_yet) {
  if (!std::ifstream(breast_cancer).good())
    return;
  temp_dir dir;
  auto model = run_veil("train --protocol privet --data " + breast_cancer +
                        " --model-out " + (dir / "m.json"));
  BOOST_TEST(model.status == 2);
  BOOST_TEST(contains(model.output, "--model-out"), model.output);
  BOOST_TEST(!std::ifstream(dir / "m.json").good());
  auto approximate = run_veil("train --protocol privet --data " +
                              breast_cancer + " --set privet.approximate=true");
  BOOST_TEST(approximate.status == 2);
  BOOST_TEST(contains(approximate.output, "only for --protocol privet-plain"),
             approximate.output);
  auto hide = run_veil("train --protocol privet-plain --data " + breast_cancer +
                       " --set privet.hide_buckets=true");
  BOOST_TEST(hide.status == 2);
  BOOST_TEST(contains(hide.output, "only for --protocol privet"), hide.output);
  auto one =
      run_veil("train --protocol privet --parties 1 --data " + breast_cancer);
  BOOST_TEST(one.status == 2);
  BOOST_TEST(contains(one.output, "2 to 256 computing parties"), one.output);
  auto budget =
      run_veil("train --protocol privet --epsilon 1 --data " + breast_cancer);
  BOOST_TEST(budget.status == 2);
  BOOST_TEST(contains(budget.output, "adds no noise"), budget.output);
}

BOOST_AUTO_TEST_SUITE_END()
