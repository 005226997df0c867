// Privet on Breast Cancer (spec privet §8.4 item 13; the paper's Table
// III setting: 10 tables of depth 3, 32 buckets, 4 parties), one seeded
// 80/20 split: against the approximation-aware reference the same tests
// and the same accuracy; against the exact reference accuracy within 2
// test rows and AUC within 0.005 (the spec's float simulation differed by
// up to 2 rows and 0.0013, from the sigmoid's approximation alone).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <random>

#include "learners/data/csv_reader.hpp"
#include "learners/metrics/metrics.hpp"
#include "learners/table/decision_tables.hpp"
#include "protocols/mpc/local_network.hpp"
#include "protocols/privet/train.hpp"

namespace mpc = veil::protocols::mpc;
namespace pv = veil::protocols::privet;
namespace learners = veil::learners;

namespace {

const std::string data_file =
    std::string(VEIL_SHARED_DIR) + "/datasets/breast_cancer_wisconsin.csv.gz";

double accuracy_of(const std::vector<float>& y, const std::vector<double>& s) {
  double right = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    right += (s[i] > 0) == (y[i] > 0.5f);
  return right / static_cast<double>(y.size());
}

} // namespace

BOOST_AUTO_TEST_SUITE(privet)
BOOST_AUTO_TEST_SUITE(breast_cancer)

BOOST_AUTO_TEST_CASE(matches_the_references_on_the_papers_setting) {
  if (!std::ifstream(data_file).good()) {
    BOOST_TEST_MESSAGE("skipped: no " << data_file);
    return;
  }
  learners::read_options ro;
  ro.label = "label";
  auto all = learners::read_table(data_file, ro);
  std::vector<std::size_t> rows(all.rows());
  std::iota(rows.begin(), rows.end(), 0u);
  std::shuffle(rows.begin(), rows.end(), std::mt19937_64(2024));
  auto cut = rows.size() * 8 / 10;
  std::vector<std::size_t> tr(rows.begin(),
                              rows.begin() + static_cast<long>(cut)),
      te(rows.begin() + static_cast<long>(cut), rows.end());
  auto train = all.select_rows(tr), test = all.select_rows(te);

  const int parties = 4;
  pv::params p; // binary, 10 tables, depth 3, 32 buckets, lambda 1
  // Features in contiguous blocks, the label with party 0.
  auto map = pv::column_map::blocks(all.features(), parties);
  mpc::local_network net(parties, 33);
  std::vector<std::vector<std::int32_t>> features;
  auto opened =
      net.run<mpc::words>([&](mpc::party& self) -> mpc::task<mpc::words> {
        auto mine = map.part(train, self.id());
        auto model = co_await pv::train(self, p, map, mine);
        if (self.id() == 0)
          for (const auto& t : model.tables)
            features.push_back(t.features);
        auto theirs = map.part(test, self.id());
        auto scores = co_await pv::infer(self, model, map, theirs, p.depth);
        co_return co_await self.open(std::move(scores));
      });
  auto secure = mpc::decode_all(opened[0]);

  auto aware = pv::approximation_aware(p, train.rows());
  auto ref = learners::train_tables(train, aware);
  learners::table_params exact = aware;
  exact.sigmoid = nullptr;
  exact.divide = nullptr;
  auto plain = learners::train_tables(train, exact);

  std::size_t same_tests = 0, tests = 0;
  for (std::size_t t = 0; t < ref.tables.size(); ++t)
    for (std::size_t d = 0; d < ref.tables[t].tests.size(); ++d) {
      ++tests;
      same_tests += features[t][d] == ref.tables[t].tests[d].feature;
    }
  auto ref_scores = ref.predict(test), plain_scores = plain.predict(test);
  const auto& y = test.labels();
  double acc = accuracy_of(y, secure), acc_ref = accuracy_of(y, ref_scores),
         acc_plain = accuracy_of(y, plain_scores);
  double auc = learners::auc(y, secure),
         auc_plain = learners::auc(y, plain_scores);
  BOOST_TEST_MESSAGE(
      "Breast Cancer, 4 parties: secure accuracy "
      << acc << " AUC " << auc << "; approximation-aware " << acc_ref
      << "; exact " << acc_plain << " AUC " << auc_plain << "; same tests "
      << same_tests << "/" << tests << "; online " << net.traffic().bytes()
      << " bytes in " << net.traffic().rounds << " rounds; dealer "
      << 8 * net.dealer_words() << " bytes");
  BOOST_TEST(same_tests == tests);
  BOOST_TEST(acc == acc_ref);
  BOOST_TEST(std::abs(acc - acc_plain) * static_cast<double>(y.size()) <= 2.0);
  BOOST_TEST(std::abs(auc - auc_plain) <= 0.005);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
