// `veil train --protocol privet-plain` as a user runs it (Privet's
// plaintext reference, spec privet §3.4) on Breast Cancer: the report's
// AUC is the reference's (learners/table, computed here), with the
// protocol's approximations too; the model file is an ordinary Veil model
// that `veil predict` scores the same; what the tables cannot take is
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

BOOST_AUTO_TEST_SUITE_END()
