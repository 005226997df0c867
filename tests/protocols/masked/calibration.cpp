// MaskedXGBoost's calibration against the spec's checked values (spec
// maskedxgboost §5, §9 items 7–9): R(ε, δ), the accountant, Theorem 3's
// algebra against a dense eigen-decomposition, the ρ table, the refusal of
// budgets Theorem 3 cannot meet.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cmath>
#include <random>

#include <Eigen/Dense>

#include "learners/input_error.hpp"
#include "protocols/masked/calibration.hpp"

using namespace veil::protocols::masked;

namespace {

/// Σ_b of a node whose `active` instances are left (§4.3): the circulant
/// block (2σ1² + σ2² on the diagonal, −σ1² between cyclic neighbours) and
/// 2σ1² + σ2² for each other instance.
Eigen::MatrixXd sigma_b(int n, int active, double s1sq, double s2sq) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  int first = n - active;
  for (int i = 0; i < n; ++i)
    m(i, i) = 2 * s1sq + s2sq;
  if (active == 1) // u ≡ 0: the one left instance has σ2² only
    m(first, first) = s2sq;
  for (int k = 0; k < active; ++k) {
    int i = first + k, j = first + (k + 1) % active;
    if (i != j) {
      m(i, j) -= s1sq;
      m(j, i) -= s1sq;
    }
  }
  return m;
}

} // namespace

BOOST_AUTO_TEST_SUITE(masked)
BOOST_AUTO_TEST_SUITE(calibration)

BOOST_AUTO_TEST_CASE(chernoff_budget_matches_the_spec_and_the_paper_form) {
  const double want[][2] = {{0.5, 0.017469}, {1, 0.067574}, {2, 0.253936},
                            {4, 0.909707},   {6, 1.860426}, {8, 3.039569}};
  for (auto [eps, r] : want) {
    BOOST_TEST(std::abs(chernoff_budget(eps, 1e-3) - r) <= 5e-7, eps);
    // Theorem 2's printed right-hand side, the same number.
    double l = std::log(1e-3);
    double paper = 2 * (eps - 2 * l - 2 * std::sqrt(l * (l - eps)));
    BOOST_TEST(std::abs(chernoff_budget(eps, 1e-3) - paper) <= 1e-9 * r, eps);
  }
}

BOOST_AUTO_TEST_CASE(the_accountant_reproduces_the_spec_and_spends_exactly) {
  const double eps[] = {0.5, 1, 2, 4, 6, 8};
  const double k60[] = {0.0160, 0.0312, 0.0591, 0.108, 0.150, 0.188};
  const double k360[] = {0.00655, 0.0127, 0.0242, 0.0443, 0.0619, 0.0776};
  for (int i = 0; i < 6; ++i) {
    for (auto [k, want] : {std::pair{60, k60[i]}, std::pair{360, k360[i]}}) {
      auto b = per_release(eps[i], 1e-3, static_cast<std::uint64_t>(k));
      BOOST_TEST(b.composition == "advanced");
      // Three significant digits, as the spec prints them.
      BOOST_TEST(std::abs(b.epsilon - want) <= 0.005 * want,
                 eps[i] << " over " << k << ": " << b.epsilon);
      BOOST_TEST(std::abs(b.delta - 1e-3 / (2 * k)) <= 1e-15);
      auto [e, d] = advanced_composition(b.epsilon, b.delta,
                                         static_cast<std::uint64_t>(k), 5e-4);
      BOOST_TEST(std::abs(e - eps[i]) <= 1e-9);
      BOOST_TEST(std::abs(d - 1e-3) <= 1e-15);
    }
  }
  auto one = per_release(2, 1e-3, 1);
  BOOST_TEST(one.epsilon == 2.0);
  BOOST_TEST(one.composition == "none");
  BOOST_TEST(releases(accounting::per_release, 10, 6, 32) == 1u);
  BOOST_TEST(releases(accounting::per_step, 10, 6, 32) == 60u);
  BOOST_TEST(releases(accounting::strict, 10, 6, 32) == 3840u);
  BOOST_TEST(releases(accounting::per_step, 10, 6, 32, 3) == 180u);
}

BOOST_AUTO_TEST_CASE(theorem3_eigenvalues_are_those_of_the_covariances) {
  struct vector_case {
    int n;
    double s1, s2;
    double k[3];
    double det_ratio; // |Σ2| / |Σ1|, 0 when the spec gives none
  };
  for (const auto& c :
       {vector_case{6, 1, 1, {-0.51054, 0.375, 0.68554}, 0.8815},
        vector_case{10, 1, 1, {-0.50541, 0.38182, 0.67632}, 0},
        vector_case{50, 1, 0.3, {-0.78392, 0.74164, 3.1187}, 0.6451},
        vector_case{10, 1, 0.3, {0, 0, 0}, 0.6697}}) {
    double rho = c.s1 * c.s1 / (c.s2 * c.s2);
    auto k = theorem3_eigenvalues(theorem3_abc(rho, c.n));
    // Dense: Σ1 = Σ_b(0, 1, …, 1), Σ2 = Σ_b(1, …, 1); Σ2⁻¹Σ1 − I.
    auto s1 = sigma_b(c.n, c.n - 1, c.s1 * c.s1, c.s2 * c.s2);
    auto s2 = sigma_b(c.n, c.n, c.s1 * c.s1, c.s2 * c.s2);
    Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> ges(s1, s2);
    std::vector<double> nonzero;
    for (int i = 0; i < c.n; ++i)
      if (std::abs(ges.eigenvalues()(i) - 1) > 1e-9)
        nonzero.push_back(ges.eigenvalues()(i) - 1);
    BOOST_REQUIRE_MESSAGE(nonzero.size() == 3u, "n = " << c.n);
    for (int i = 0; i < 3; ++i) {
      BOOST_TEST(std::abs(k[i] - nonzero[i]) <= 1e-9, "n = " << c.n);
      if (c.k[0] != 0)
        BOOST_TEST(std::abs(k[i] - c.k[i]) <= 1e-4, "n = " << c.n);
    }
    if (c.det_ratio > 0)
      BOOST_TEST(std::abs(s2.determinant() / s1.determinant() - c.det_ratio) <=
                     1e-4,
                 "n = " << c.n);
  }
  // The closed form equals the sums from n = 100 on, to 1e-8, for the ρ
  // calibration gives (the sums converge once n is well above √ρ).
  for (double rho : {1e-3, 0.0195, 1.0, 11.1}) {
    auto closed = theorem3_abc(rho), sums = theorem3_abc(rho, 100);
    BOOST_TEST(std::abs(closed.a - sums.a) <= 1e-8, rho);
    BOOST_TEST(std::abs(closed.b - sums.b) <= 1e-8, rho);
    BOOST_TEST(std::abs(closed.c - sums.c) <= 1e-8, rho);
  }
  auto one = theorem3_abc(1.0);
  BOOST_TEST(std::abs(one.a - 0.4472136) <= 1e-7);
  BOOST_TEST(std::abs(one.b - 0.1708204) <= 1e-7);
  BOOST_TEST(std::abs(one.c - 0.0652476) <= 1e-7);
  auto k = theorem3_eigenvalues(one);
  BOOST_TEST(std::abs(k[0] + 0.5052976) <= 1e-7);
  BOOST_TEST(std::abs(k[1] - 0.3819660) <= 1e-7);
  BOOST_TEST(std::abs(k[2] - 0.6761180) <= 1e-7);
  // The reverse direction's largest eigenvalue, -k1 / (1 + k1).
  BOOST_TEST(std::abs(-k[0] / (1 + k[0]) - 1.0214) <= 1e-4);
  // |Σ2| / |Σ1| stays in (1/4, 2) (the theorem's ln 2 rests on it): one
  // over the product of the generalized eigenvalues (the determinants
  // themselves overflow).
  for (int n : {4, 9, 40, 200})
    for (double rho : {1e-3, 0.1, 1.0, 10.0, 1e3}) {
      Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> g(
          sigma_b(n, n - 1, rho, 1), sigma_b(n, n, rho, 1));
      double r = 1 / g.eigenvalues().prod();
      BOOST_TEST((r > 0.25 && r < 2), "n " << n << " rho " << rho << ": " << r);
    }
}

BOOST_AUTO_TEST_CASE(rho_reproduces_the_spec_table) {
  struct row {
    double n_train, eps, rho;
  };
  // §5.3: W = 1, δ_PP = 1/n_train, exact tail, threshold 2ε − 2 ln 2.
  for (auto [n, eps, want] :
       {row{120000, 1, 0.0164}, row{26049, 1, 0.0195}, row{26049, 2, 0.0899},
        row{26049, 4, 0.267}, row{36169, 6, 0.477}, row{26049, 8, 0.807},
        row{160000, 8, 0.604}}) {
    double rho = choose_rho(eps, 1 / n, 1, tail_method::exact);
    BOOST_TEST(std::abs(rho - want) <= 0.005 * want,
               "n " << n << " eps " << eps << ": " << rho);
  }
  // The closed-form bound is about 4–5% more conservative (Credit 1,
  // ε_PP = 1: 0.0158).
  double bound = choose_rho(1, 1.0 / 120000, 1, tail_method::bound);
  BOOST_TEST(std::abs(bound - 0.0158) <= 0.005 * 0.0158, bound);
}

BOOST_AUTO_TEST_CASE(the_bound_is_never_below_the_exact_tail) {
  for (double rho : {1e-3, 0.02, 0.3, 1.0, 10.0})
    for (double eps : {1.0, 2.0, 4.0, 8.0}) {
      double exact = pp_delta(eps, 1, rho, tail_method::exact);
      double bound = pp_delta(eps, 1, rho, tail_method::bound);
      BOOST_TEST(bound >= exact * (1 - 1e-3), rho << ", " << eps);
    }
  // δ grows with ρ.
  BOOST_TEST(pp_delta(2, 1, 0.01, tail_method::exact) <
             pp_delta(2, 1, 0.1, tail_method::exact));
}

BOOST_AUTO_TEST_CASE(budgets_theorem3_cannot_meet_are_refused) {
  for (auto [eps, w] :
       {std::pair{1.0, 2}, std::pair{0.6, 1}, std::pair{2.0, 3}}) {
    try {
      choose_rho(eps, 1e-5, w, tail_method::bound);
      BOOST_ERROR("accepted epsilon_pp " << eps << " with W " << w);
    } catch (const veil::input_error& e) {
      std::string what = e.what();
      BOOST_TEST(what.find("epsilon_pp > W ln 2") != std::string::npos, what);
    }
  }
  // W = 3 needs ε_PP > 2.08 (Appendix F's example).
  BOOST_TEST(choose_rho(2.1, 1e-5, 3, tail_method::bound) > 0);
}

// §9 item 16: with C set by Theorem 2, the exact privacy loss of the worst
// pair of gradient vectors (v = μ on the left instances, ±μ on the right
// ones: the box's corner the bound is tight at) stays within (ε0, δ0):
// s² = vᵀ(CΣ_b)⁻¹v, δ = Φ(s/2 − ε0/s) − e^ε0 Φ(−s/2 − ε0/s).
BOOST_AUTO_TEST_CASE(theorem2_holds_exactly_for_the_worst_pair) {
  auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const double mu = 2 * std::exp(1.0) / (std::exp(1.0) + 1);
  for (double rho : {0.0164, 0.267, 1.0})
    for (auto [eps, k] : {std::pair{1.0, 60}, std::pair{8.0, 1}}) {
      auto b = per_release(eps, 1e-3, static_cast<std::uint64_t>(k));
      for (int active : {1, 3, 5}) {
        const int n = 8;
        auto sigma = sigma_b(n, active, rho, 1);
        double c = noise_energy(mu, rho, static_cast<std::uint64_t>(active),
                                static_cast<std::uint64_t>(n - active), b,
                                sensitivity::vector);
        Eigen::VectorXd v(n);
        for (int j = 0; j < n; ++j)
          v(j) = j < n - active ? (j % 2 ? mu : -mu) : mu;
        double s2 = v.dot((c * sigma).ldlt().solve(v));
        // The bound is tight: s² is Theorem 2's budget R(ε0, δ0) itself.
        BOOST_TEST(std::abs(s2 - chernoff_budget(b.epsilon, b.delta)) <=
                   1e-9 * s2);
        double s = std::sqrt(s2);
        double delta = phi(s / 2 - b.epsilon / s) -
                       std::exp(b.epsilon) * phi(-s / 2 - b.epsilon / s);
        BOOST_TEST(delta <= b.delta, "rho " << rho << " eps " << eps << " n_A "
                                            << active << ": " << delta << " > "
                                            << b.delta);
      }
    }
}

BOOST_AUTO_TEST_CASE(noise_energy_follows_theorem2) {
  release_budget b{1, 1e-3, 1, "none"};
  double r = chernoff_budget(1, 1e-3);
  // Worst case: all n_v instances active.
  BOOST_TEST(std::abs(noise_energy(1, 0.02, 1000, 0, b, sensitivity::vector) -
                      1000 / r) <= 1e-9 * 1000 / r);
  BOOST_TEST(std::abs(noise_energy(2, 0.5, 30, 70, b, sensitivity::vector) -
                      4 * (70 / 2.0 + 30) / r) <= 1e-12 * 4 * 65 / r);
  BOOST_TEST(std::abs(noise_energy(1, 0.02, 1000, 0, b, sensitivity::record) -
                      1 / r) <= 1e-12 / r);
}

// spec §9 item 17, Theorem 3 by Monte Carlo: for n = 8, m = (0, 1, …, 1)
// against m' = (1, …, 1) and one noise column, the probability that the
// privacy loss ln p(b)/p'(b) exceeds ε, under b ~ N(0, Σ1) (forward) and
// the reverse loss under b ~ N(0, Σ2), stays below the δ Theorem 3 gives
// (the larger of the two tails at t = 2ε − 2 ln 2, with the finite-n
// a, b, c) plus 3 standard errors; 400,000 draws each.
BOOST_AUTO_TEST_CASE(theorem3_bounds_the_privacy_loss_by_monte_carlo) {
  const int n = 8, draws = 400000;
  std::mt19937_64 gen(17);
  std::normal_distribution<double> z01;
  for (double rho : {0.1, 1.0})
    for (double eps : {1.0, 2.0}) {
      auto s1 = sigma_b(n, n - 1, rho, 1);
      auto s2 = sigma_b(n, n, rho, 1);
      Eigen::MatrixXd d = s1.inverse() - s2.inverse();
      double logdet = std::log(s2.determinant() / s1.determinant());
      auto k = theorem3_eigenvalues(theorem3_abc(rho, n));
      std::array<double, 3> reverse;
      for (int i = 0; i < 3; ++i)
        reverse[i] = -k[i] / (1 + k[i]);
      double t = 2 * eps - 2 * std::log(2.0);
      double delta = std::max(quadratic_tail(k, t, tail_method::exact),
                              quadratic_tail(reverse, t, tail_method::exact));
      for (int direction = 0; direction < 2; ++direction) {
        Eigen::LLT<Eigen::MatrixXd> chol(direction == 0 ? s1 : s2);
        Eigen::MatrixXd l = chol.matrixL();
        int above = 0;
        Eigen::VectorXd z(n);
        for (int i = 0; i < draws; ++i) {
          for (int j = 0; j < n; ++j)
            z(j) = z01(gen);
          Eigen::VectorXd b = l * z;
          // ln p1(b) - ln p2(b) = ½ ln(|Σ2|/|Σ1|) − ½ bᵀ(Σ1⁻¹ − Σ2⁻¹)b.
          double loss = 0.5 * logdet - 0.5 * b.dot(d * b);
          if ((direction == 0 ? loss : -loss) > eps)
            ++above;
        }
        double p = static_cast<double>(above) / draws;
        double se = std::sqrt(std::max(p, 1.0 / draws) * (1 - p) / draws);
        BOOST_TEST_MESSAGE("rho " << rho << " eps " << eps << " direction "
                                  << direction << ": P(loss > eps) " << p
                                  << ", delta " << delta);
        BOOST_TEST(p <= delta + 3 * se, "rho " << rho << " eps " << eps
                                               << " direction " << direction
                                               << ": " << p << " > " << delta);
      }
    }
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
