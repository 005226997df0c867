// OpBoost's mechanisms (spec opboost §4, §9.1): every mechanism and sampler
// draws from its exact law, on small domains (the paper's [1, 10],
// [-50, 49]) and on domains of 10^4 values.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "learners/input_error.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/opboost/mechanism.hpp"
#include "tests/protocols/dp/support.hpp"

namespace vdp = veil::protocols::dp;
namespace vcrypto = veil::protocols::crypto;
namespace vop = veil::protocols::opboost;
namespace vt = veil::test;

namespace {

struct config {
  vop::mechanism_kind kind;
  double epsilon;
  std::int64_t theta = 4;
  double alpha = 1;
  vop::domain dom{1, 10};
  vop::partition_layout layout = vop::partition_layout::anchored;
};

vop::mechanism_params params_of(const config& c, vop::sampler_kind s) {
  vop::mechanism_params p;
  p.kind = c.kind;
  p.sampler = s;
  p.epsilon = c.epsilon;
  p.theta = c.theta;
  p.alpha = c.alpha;
  p.layout = c.layout;
  return p;
}

std::string describe(const config& c, vop::sampler_kind s, std::int64_t x) {
  return vop::to_string(c.kind) + "/" + vop::to_string(s) + " eps " +
         std::to_string(c.epsilon) + " theta " + std::to_string(c.theta) +
         " alpha " + std::to_string(c.alpha) + " D [" +
         std::to_string(c.dom.lo) + ", " + std::to_string(c.dom.hi) + "] x " +
         std::to_string(x);
}

/// Draws `n` outputs of x and tests them against the mechanism's exact PMF
/// at significance alpha.
void check_draws(const vop::desensitizer& m, std::int64_t x, std::uint64_t n,
                 double alpha, vcrypto::seeded_random& g,
                 const std::string& what) {
  auto sup = m.support();
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(sup.size()));
  std::uint64_t outside = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    auto o = m(g, x);
    if (o < sup.lo || o > sup.hi) {
      ++outside;
      continue;
    }
    ++counts[static_cast<std::size_t>(o - sup.lo)];
  }
  BOOST_TEST(outside == 0u, what << ": draws outside the support");
  std::vector<double> probs;
  for (double l : m.log_pmf<double>(x))
    probs.push_back(std::exp(l));
  vt::require_fit(vt::chi_square(counts, probs, alpha), n, what);
}

/// The spec's grid (§9.1) for one mechanism on [1, 10] and [-50, 49]: the
/// domain ends, partition edges and middles as inputs.
std::vector<std::pair<config, std::int64_t>> grid(vop::mechanism_kind kind,
                                                  std::vector<double> epsilons,
                                                  bool with_wide = true) {
  std::vector<std::pair<config, std::int64_t>> out;
  for (double eps : epsilons)
    for (std::int64_t theta : {2, 4, 10}) {
      for (double alpha : {0.4, 1.0, 10.0}) {
        if (kind != vop::mechanism_kind::adj_map && alpha != 1.0)
          continue;
        config c{kind, eps, theta, alpha};
        for (std::int64_t x : {1, 4, 5, 10})
          out.push_back({c, x});
      }
      if (kind == vop::mechanism_kind::global_map)
        break; // theta does not matter
    }
  // A domain with negative values and ten partitions of ten.
  config wide{kind, 0.1, 10, 1.0, {-50, 49}};
  if (with_wide)
    for (std::int64_t x : {-50, -41, 0, 5, 49})
      out.push_back({wide, x});
  return out;
}

/// Worst-case expected resampling rounds of one discrete-Laplace draw.
double expected_rounds(const vop::desensitizer& m) {
  auto rounds = [](std::int64_t n, const vdp::rational& eps) {
    auto h = vop::global_map::half(eps);
    return 1 / vdp::bounded_discrete_laplace(0, n - 1, h).min_acceptance();
  };
  if (auto* a = std::get_if<vop::adj_map>(&m.get()))
    return rounds(a->parts().count(), a->budget().eps_prt) +
           rounds(a->parts().theta(), a->budget().eps_ner);
  if (auto* l = std::get_if<vop::local_map>(&m.get()))
    return rounds(l->parts().theta(),
                  vdp::rational::from_double(l->cost().epsilon));
  if (auto* g = std::get_if<vop::global_map>(&m.get()))
    return rounds(g->support().size(), g->epsilon());
  return 1;
}

void check_grid(const std::vector<std::pair<config, std::int64_t>>& cases,
                vop::sampler_kind s, std::uint64_t draws, std::uint64_t seed) {
  vcrypto::seeded_random g(seed);
  // Bonferroni over the cases of this test case.
  double alpha = 1e-3 / static_cast<double>(cases.size());
  BOOST_TEST_MESSAGE(cases.size() << " cases, alpha " << alpha);
  for (const auto& [c, x] : cases) {
    auto m = vop::make_desensitizer(params_of(c, s), c.dom);
    // The resampling sampler costs 1/acceptance rounds per value (up to
    // ~2000 for eps = 0.01, alpha = 10, theta = 2): a budget of rounds per
    // case and at least 1000 draws keep the test case fast; the
    // chi-square is valid at any n (sparse cells are pooled).
    std::uint64_t n = draws;
    if (s == vop::sampler_kind::discrete_laplace) {
      double budget = 1.5e7 / static_cast<double>(cases.size());
      n = std::clamp<std::uint64_t>(
          static_cast<std::uint64_t>(budget / expected_rounds(m)), 1000, draws);
    }
    check_draws(m, x, n, alpha, g, describe(c, s, x));
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(opboost)
BOOST_AUTO_TEST_SUITE(mechanism)

BOOST_AUTO_TEST_CASE(exact_laws_sum_to_one) {
  for (auto kind :
       {vop::mechanism_kind::identity, vop::mechanism_kind::global_map,
        vop::mechanism_kind::local_map, vop::mechanism_kind::adj_map,
        vop::mechanism_kind::piecewise})
    for (auto layout :
         {vop::partition_layout::anchored, vop::partition_layout::reference}) {
      config c{kind, 0.08, 4, 0.4, {1, 10}, layout};
      auto m = vop::make_desensitizer(
          params_of(c, vop::sampler_kind::exponential), c.dom);
      for (std::int64_t x = 1; x <= 10; ++x) {
        double s = 0;
        for (double l : m.log_pmf<double>(x))
          s += std::exp(l);
        BOOST_TEST(s == 1.0, boost::test_tools::tolerance(1e-12));
      }
    }
}

BOOST_AUTO_TEST_CASE(global_map_exponential_fits) {
  check_grid(grid(vop::mechanism_kind::global_map, {0.01, 0.08, 1.28, 5.12}),
             vop::sampler_kind::exponential, 200000, vt::opboost_seed + 1);
}

BOOST_AUTO_TEST_CASE(global_map_discrete_laplace_fits) {
  check_grid(grid(vop::mechanism_kind::global_map, {0.01, 0.08, 1.28, 5.12}),
             vop::sampler_kind::discrete_laplace, 200000, vt::opboost_seed + 2);
}

BOOST_AUTO_TEST_CASE(local_map_exponential_fits) {
  check_grid(grid(vop::mechanism_kind::local_map, {0.01, 0.08, 1.28, 5.12}),
             vop::sampler_kind::exponential, 100000, vt::opboost_seed + 3);
}

BOOST_AUTO_TEST_CASE(local_map_discrete_laplace_fits) {
  check_grid(grid(vop::mechanism_kind::local_map, {0.01, 0.08, 1.28, 5.12}),
             vop::sampler_kind::discrete_laplace, 100000, vt::opboost_seed + 4);
}

BOOST_AUTO_TEST_CASE(adj_map_exponential_fits) {
  check_grid(grid(vop::mechanism_kind::adj_map, {0.01, 0.08, 1.28, 5.12}),
             vop::sampler_kind::exponential, 50000, vt::opboost_seed + 5);
}

BOOST_AUTO_TEST_CASE(adj_map_discrete_laplace_fits_small_epsilon) {
  // The slowest: within-partition draws need up to ~2000 resampling rounds
  // at eps = 0.01, alpha = 10, theta = 2.
  check_grid(grid(vop::mechanism_kind::adj_map, {0.01, 0.08}, false),
             vop::sampler_kind::discrete_laplace, 50000, vt::opboost_seed + 6);
}

BOOST_AUTO_TEST_CASE(adj_map_discrete_laplace_fits_large_epsilon) {
  check_grid(grid(vop::mechanism_kind::adj_map, {1.28, 5.12}),
             vop::sampler_kind::discrete_laplace, 50000, vt::opboost_seed + 10);
}

/// D = [1, 10^4], 10^6 draws per case.
struct big_case {
  config c;
  vop::sampler_kind s;
  std::int64_t x;
};

void check_big(const std::vector<big_case>& cases, std::uint64_t seed) {
  vcrypto::seeded_random g(seed);
  double alpha = 1e-3 / static_cast<double>(cases.size());
  for (const auto& k : cases) {
    auto m = vop::make_desensitizer(params_of(k.c, k.s), k.c.dom);
    check_draws(m, k.x, 1000000, alpha, g, describe(k.c, k.s, k.x));
  }
}

constexpr vop::domain big{1, 10000};

BOOST_AUTO_TEST_CASE(global_and_local_map_fit_on_ten_thousand_values) {
  using vop::mechanism_kind;
  using vop::sampler_kind;
  check_big(
      {
          {{mechanism_kind::global_map, 0.002, 1, 1, big},
           sampler_kind::exponential,
           1},
          {{mechanism_kind::global_map, 0.002, 1, 1, big},
           sampler_kind::discrete_laplace,
           5000},
          {{mechanism_kind::global_map, 0.0001, 1, 1, big},
           sampler_kind::exponential,
           9000},
          {{mechanism_kind::local_map, 0.01, 1000, 1, big},
           sampler_kind::exponential,
           2500},
          {{mechanism_kind::local_map, 0.01, 1000, 1, big},
           sampler_kind::discrete_laplace,
           10000},
      },
      vt::opboost_seed + 7);
}

BOOST_AUTO_TEST_CASE(adj_map_and_piecewise_fit_on_ten_thousand_values) {
  using vop::mechanism_kind;
  using vop::sampler_kind;
  check_big(
      {
          {{mechanism_kind::adj_map, 0.01, 100, 1, big},
           sampler_kind::exponential,
           4321},
          {{mechanism_kind::adj_map, 0.05, 100, 5, big},
           sampler_kind::discrete_laplace,
           1},
          {{mechanism_kind::adj_map, 0.5, 300, 0.4, big},
           sampler_kind::exponential,
           9999},
          {{mechanism_kind::piecewise, 0.5, 1, 1, big},
           sampler_kind::exponential,
           1},
          {{mechanism_kind::piecewise, 2.56, 1, 1, big},
           sampler_kind::exponential,
           7000},
      },
      vt::opboost_seed + 11);
}

BOOST_AUTO_TEST_CASE(reference_layout_and_piecewise_fit) {
  // The reference code's absolute partitions: [0,3], [4,7], [8,11] for
  // D = [1, 10], theta = 4, so outputs 0 and 11 occur. Piecewise with the
  // integer wrapper. 8 cases (alpha = 1e-3 / 8).
  vcrypto::seeded_random g(vt::opboost_seed + 8);
  config ref_adj{vop::mechanism_kind::adj_map,    0.32, 4, 2.0, {1, 10},
                 vop::partition_layout::reference};
  config ref_local{vop::mechanism_kind::local_map,  0.32, 4, 1.0, {1, 10},
                   vop::partition_layout::reference};
  auto adj = vop::make_desensitizer(
      params_of(ref_adj, vop::sampler_kind::discrete_laplace), ref_adj.dom);
  BOOST_TEST(adj.support().lo == 0);
  BOOST_TEST(adj.support().hi == 11);
  double alpha = 1e-3 / 8;
  for (std::int64_t x : {1, 10}) {
    check_draws(adj, x, 200000, alpha, g,
                describe(ref_adj, vop::sampler_kind::discrete_laplace, x));
    auto local = vop::make_desensitizer(
        params_of(ref_local, vop::sampler_kind::exponential), ref_local.dom);
    check_draws(local, x, 200000, alpha, g,
                describe(ref_local, vop::sampler_kind::exponential, x));
  }
  for (double eps : {0.08, 1.28})
    for (std::int64_t x : {1, 10}) {
      config pw{vop::mechanism_kind::piecewise, eps};
      auto m = vop::make_desensitizer(
          params_of(pw, vop::sampler_kind::exponential), pw.dom);
      check_draws(m, x, 200000, alpha, g,
                  describe(pw, vop::sampler_kind::exponential, x));
    }
}

BOOST_AUTO_TEST_CASE(identity_and_local_map_keep_what_they_should) {
  vcrypto::seeded_random g(vt::opboost_seed + 9);
  vop::mechanism_params p;
  p.kind = vop::mechanism_kind::identity;
  auto id = vop::make_desensitizer(p, {1, 10});
  for (std::int64_t x = 1; x <= 10; ++x)
    BOOST_TEST(id(g, x) == x);
  BOOST_TEST((id.cost().kind == vdp::guarantee::none));
  // Local-map never leaves the partition of x (anchored: [9, 10] is short).
  p.kind = vop::mechanism_kind::local_map;
  p.theta = 4;
  p.epsilon = 0.01;
  auto local = vop::make_desensitizer(p, {1, 10});
  for (int i = 0; i < 1000; ++i) {
    auto o = local(g, 10);
    BOOST_TEST((o == 9 || o == 10));
  }
}

BOOST_AUTO_TEST_CASE(budget_split_matches_the_spec) {
  // spec §2.5: D = [1, 100], theta = 10, eps = 0.1.
  auto eps = vdp::rational::from_double(0.1);
  auto b = vop::split_budget(eps, vdp::rational::from_double(0.2), 10, 100);
  BOOST_TEST(vdp::to_string(b.eps_ner) == "1/3");
  BOOST_TEST(vdp::to_string(b.eps_prt) == "2/3");
  b = vop::split_budget(eps, vdp::rational{1, 1}, 10, 100);
  BOOST_TEST(vdp::to_string(b.eps_ner) == "1/11");
  BOOST_TEST(vdp::to_string(b.eps_prt) == "10/11");
  b = vop::split_budget(eps, vdp::rational{5, 1}, 10, 100);
  BOOST_TEST(b.eps_ner.value() == 0.0196, boost::test_tools::tolerance(3e-3));
  BOOST_TEST(b.eps_prt.value() == 0.9804, boost::test_tools::tolerance(1e-4));
  // The costs the mechanisms report.
  vop::mechanism_params p;
  p.kind = vop::mechanism_kind::adj_map;
  p.epsilon = 0.1;
  p.theta = 10;
  p.alpha = 1;
  auto cost = vop::make_desensitizer(p, {1, 100}).cost();
  BOOST_TEST((cost.kind == vdp::guarantee::partition_dldp));
  BOOST_TEST(cost.epsilon_ner == 1.0 / 11, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(cost.bound(1) == 10.0 / 11 + 10.0 / 11,
             boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(unhonourable_configurations_are_refused) {
  vop::mechanism_params p;
  p.kind = vop::mechanism_kind::adj_map;
  p.sampler = vop::sampler_kind::discrete_laplace;
  p.epsilon = 1e-5;
  p.theta = 4;
  p.alpha = 10;
  // Resampling would need ~10^6 rounds per value: refused, with advice.
  BOOST_CHECK_THROW(vop::make_desensitizer(p, {1, 10}), veil::input_error);
  p.sampler = vop::sampler_kind::exponential; // same law, O(1) rounds
  BOOST_CHECK_NO_THROW(vop::make_desensitizer(p, {1, 10}));
  p.theta = 11;
  BOOST_CHECK_THROW(vop::make_desensitizer(p, {1, 10}), veil::input_error);
  p.theta = 4;
  p.epsilon = -1;
  BOOST_CHECK_THROW(vop::make_desensitizer(p, {1, 10}), veil::input_error);
  BOOST_CHECK_THROW(vop::parse_mechanism("local"), veil::input_error);
  BOOST_TEST((vop::parse_sampler("discrete-laplace") ==
              vop::sampler_kind::discrete_laplace));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
