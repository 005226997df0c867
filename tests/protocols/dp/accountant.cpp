// What mechanisms spend, and the sums per record.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "protocols/dp/accountant.hpp"

namespace vdp = veil::protocols::dp;

BOOST_AUTO_TEST_SUITE(dp)
BOOST_AUTO_TEST_SUITE(accountant)

BOOST_AUTO_TEST_CASE(bounds_follow_the_definitions) {
  vdp::privacy_cost global{vdp::guarantee::dldp, 0.1, 0, 0, 0, "g"};
  BOOST_TEST(global.bound(5) == 0.5, boost::test_tools::tolerance(1e-12));
  vdp::privacy_cost adj{
      vdp::guarantee::partition_dldp, 0.1, 0.9091, 0.0909, 10, "a"};
  // ceil(t/theta) eps_prt + theta eps_ner (Def. 4.4).
  BOOST_TEST(adj.bound(1) == 0.9091 + 0.909,
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(adj.bound(11) == 2 * 0.9091 + 0.909,
             boost::test_tools::tolerance(1e-12));
  vdp::privacy_cost local{
      vdp::guarantee::within_partition_dldp, 0.1, 0, 0.1, 4, "l"};
  BOOST_TEST(std::isinf(local.bound(1, false)));
  vdp::privacy_cost none{vdp::guarantee::none, 0, 0, 0, 0, "identity"};
  BOOST_TEST(std::isinf(none.bound(1)));
}

BOOST_AUTO_TEST_CASE(totals_add_up_per_kind) {
  vdp::accountant a;
  a.add("age", {vdp::guarantee::dldp, 0.08, 0, 0, 0, "global-map"});
  a.add("hours", {vdp::guarantee::dldp, 0.08, 0, 0, 0, "global-map"});
  a.add("fnlwgt", {vdp::guarantee::partition_dldp, 0.08, 0.3, 0.02, 4, "adj"});
  BOOST_TEST(a.total(vdp::guarantee::dldp).epsilon == 0.16,
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(a.total(vdp::guarantee::partition_dldp).epsilon_prt == 0.3);
  BOOST_TEST(!a.any_unprotected());
  auto text = a.report();
  BOOST_TEST(text.find("total per record over 2 feature(s) with dLDP") !=
             std::string::npos);
  a.add("id", {vdp::guarantee::none, 0, 0, 0, 0, "identity"});
  BOOST_TEST(a.any_unprotected());
  BOOST_TEST(a.report().find("WARNING") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
