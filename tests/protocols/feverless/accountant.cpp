// Privacy accounting (spec feverless §7.6, §12.3): the per-query guarantee,
// the queries a record joins (counted), and the totals under basic
// composition and zCDP, on a configuration small enough to count by hand.
#include "tests/protocols/feverless/harness.hpp"

#include "protocols/dp/gaussian.hpp"

using namespace veil;
using namespace veil::test::fvl;

namespace {

/// 16 rows, 2 clients. Client 0 holds x0 = i % 4, client 1 holds
/// x1 = i / 4 and every label. With B = 4 each feature has 4 buckets of 4
/// rows. Client 0's root queries: one per bucket, missing ids = the 4 rows
/// of the bucket (it holds no label); client 1 holds every label, so its
/// buckets have no missing ids and it asks nothing. Depth 1: only the
/// root is queried. Per tree 4 queries, each row in exactly one; 2 trees:
/// 8 queries, each row in 2.
federation hand_session(const params& p) {
  dataset d(16, {"x0", "x1"});
  d.labels().resize(16);
  for (std::size_t i = 0; i < 16; ++i) {
    d.value(i, 0) = static_cast<float>(i % 4);
    d.value(i, 1) = static_cast<float>(i / 4);
    d.labels()[i] = (i % 4 >= 2) ? 1.0f : 0.0f;
  }
  auto f = make_federation(d, p, 2, std::vector<int>(16, 1), 3);
  run_training(f, 3);
  return f;
}

params hand_params() {
  params p;
  p.trees = 2;
  p.max_depth = 1;
  p.buckets = 4;
  p.session = 8;
  return p;
}

bool close(double a, double b, double rel = 1e-4) {
  return std::fabs(a - b) <= rel * std::max(std::fabs(b), 1e-12);
}

} // namespace

BOOST_AUTO_TEST_SUITE(feverless)
BOOST_AUTO_TEST_SUITE(accountant)

BOOST_AUTO_TEST_CASE(per_query_budget_by_hand) {
  auto p = hand_params();
  p.calib = calibration::classical;
  p.epsilon = 0.5;
  p.delta = 1e-5;
  auto f = hand_session(p);
  auto r0 = f.clients[0]->privacy();
  auto r1 = f.clients[1]->privacy();
  // Counts: client 0 caused all 8 queries, client 1 answered all 8.
  BOOST_TEST(r0.queries_caused == 8u);
  BOOST_TEST(r0.queries_answered == 0u);
  BOOST_TEST(r1.queries_caused == 0u);
  BOOST_TEST(r1.queries_answered == 8u);
  BOOST_TEST(r0.queries_total == 8u);
  BOOST_TEST(r1.queries_total == 8u);
  // Each record is in one query per tree: K = 2; the bound NT·d·f =
  // 2·1·2 = 4 (f counts both clients' features).
  BOOST_TEST(r0.record_queries == 2u);
  BOOST_TEST(r1.record_queries == 2u);
  BOOST_TEST(r0.record_query_bound == 4u);
  // sigma = sqrt(2 ln(1.25/1e-5)) / 0.5 = sqrt(2 · 11.73607) / 0.5
  //       = 4.844805 / 0.5 = 9.689610.
  BOOST_TEST(r0.protected_sums);
  BOOST_TEST(close(r0.sigma, 9.689610));
  BOOST_TEST(close(f.clients[1]->sigma(), 9.689610));
  // Per released sum (0.5, 1e-5); per (G, H) query (1.0, 2e-5).
  BOOST_TEST(r0.release_epsilon == 0.5);
  BOOST_TEST(r0.release_delta == 1e-5);
  BOOST_TEST(r0.query_epsilon == 1.0);
  BOOST_TEST(r0.query_delta == 2e-5);
  // Basic composition over K = 2 queries: (2.0, 4e-5).
  BOOST_TEST(r0.basic_epsilon == 2.0);
  BOOST_TEST(close(r0.basic_delta, 4e-5));
  // zCDP: rho per release = 1/(2 sigma^2) = 1/(2 · 93.88854) = 0.00532546;
  // 2 releases per query, K = 2: rho = 4 · 0.00532546 = 0.0213018;
  // epsilon = rho + 2 sqrt(rho ln(1/1e-5)) = 0.0213018 + 2 sqrt(0.0213018 ·
  // 11.51293) = 0.0213018 + 2 · 0.495219 = 1.011740 at delta = 1e-5.
  BOOST_TEST(close(r0.release_rho, 0.00532546));
  BOOST_TEST(close(r0.zcdp_rho, 0.0213018));
  BOOST_TEST(close(r0.zcdp_epsilon, 1.011740));
  BOOST_TEST(r0.zcdp_delta == 1e-5);
  // Classical calibration at epsilon < 1: no warning.
  BOOST_TEST(f.clients[0]->warning().empty());
}

BOOST_AUTO_TEST_CASE(classical_calibration_warns_from_epsilon_1) {
  auto p = hand_params();
  p.calib = calibration::classical;
  p.epsilon = 2;
  auto c = calibrate(p, 4);
  BOOST_TEST(close(c.sigma, 2.422403)); // spec §7.6 table: 2.42240
  BOOST_TEST(c.warning.find("only proven for epsilon < 1") !=
             std::string::npos);
  // The analytic default is valid for any epsilon, and needs less noise.
  p.calib = calibration::analytic;
  auto a = calibrate(p, 4);
  BOOST_TEST(a.warning.empty());
  BOOST_TEST(a.sigma < c.sigma);
  BOOST_TEST(close(protocols::dp::analytic_delta(a.sigma, 2), 1e-5, 1e-6));
  // Plain mode and noise off say they give no privacy.
  p.protocol = mode::plain;
  BOOST_TEST(!calibrate(p, 4).warning.empty());
  p.protocol = mode::feverless;
  p.noise = false;
  auto off = calibrate(p, 4);
  BOOST_TEST(off.sigma == 0.0);
  BOOST_TEST(!off.warning.empty());
}

BOOST_AUTO_TEST_CASE(total_budget_is_divided_over_the_bound) {
  // Total (1, 1e-5) over the bound K = NT·d·f = 4 queries, 2 sums each.
  auto p = hand_params();
  p.budget = budget_kind::total;
  p.epsilon = 1;
  p.delta = 1e-5;
  p.total_split = composition::basic;
  auto f = hand_session(p);
  auto r = f.clients[0]->privacy();
  // Basic: each sum gets (1/8, 1e-5/8) = (0.125, 1.25e-6), analytic sigma.
  BOOST_TEST(close(r.release_epsilon, 0.125));
  BOOST_TEST(close(r.release_delta, 1.25e-6));
  BOOST_TEST(close(r.sigma, protocols::dp::analytic_sigma(0.125, 1.25e-6)));
  // A record joined K = 2 of the 4 possible queries: half the budget.
  BOOST_TEST(r.record_queries == 2u);
  BOOST_TEST(close(r.basic_epsilon, 0.5));
  BOOST_TEST(close(r.basic_delta, 5e-6));
  // zCDP: rho_total = (sqrt(ln 1e5 + 1) - sqrt(ln 1e5))^2
  //   = (3.537362 - 3.393071)^2 = 0.0208199; sigma = sqrt(4 / rho_total)
  //   = 13.86120; at K = 2 half of rho_total is spent.
  p.total_split = composition::zcdp;
  auto g = hand_session(p);
  auto z = g.clients[1]->privacy();
  BOOST_TEST(close(z.sigma, 13.86120));
  BOOST_TEST(close(z.zcdp_rho, 0.0208199 / 2));
  BOOST_TEST(z.zcdp_epsilon < 1.0);
  // At the bound the whole budget would be spent.
  BOOST_TEST(close(protocols::dp::zcdp_to_epsilon(2 * 4 * z.release_rho, 1e-5),
                   1.0, 1e-6));
  // The per-sum epsilon reported is the exact one of that sigma at
  // delta / (2K).
  BOOST_TEST(close(protocols::dp::analytic_delta(z.sigma, z.release_epsilon),
                   1.25e-6, 1e-6));
}

BOOST_AUTO_TEST_CASE(plain_mode_reports_no_protection) {
  auto p = hand_params();
  p.protocol = mode::plain;
  auto f = hand_session(p);
  auto r = f.clients[0]->privacy();
  BOOST_TEST(!r.protected_sums);
  BOOST_TEST(std::isinf(r.release_epsilon));
  BOOST_TEST(std::isinf(r.basic_epsilon));
  BOOST_TEST(r.record_queries == 2u);
  BOOST_TEST(!f.clients[0]->warning().empty());
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
