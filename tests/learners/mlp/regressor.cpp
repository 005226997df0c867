// The attack network's regressor: it learns a function no linear model
// can (so the layers and the back-propagation work), deterministically,
// and refuses mismatched inputs.
#include "learners/mlp/regressor.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <random>
#include <stdexcept>

using namespace veil::learners;

namespace {

/// n points uniform in [-2, 2]², with y = x1² − |x2| (uncorrelated with
/// x1 and x2: a linear fit explains none of it) and 2·x1 as a second
/// output.
void sample(std::size_t n, std::uint64_t seed, Eigen::MatrixXd& x,
            Eigen::MatrixXd& y) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-2, 2);
  x.resize(static_cast<Eigen::Index>(n), 2);
  y.resize(static_cast<Eigen::Index>(n), 2);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    x(i, 0) = u(g);
    x(i, 1) = u(g);
    y(i, 0) = x(i, 0) * x(i, 0) - std::abs(x(i, 1));
    y(i, 1) = 2 * x(i, 0);
  }
}

/// 1 − residual / total sum of squares of column c.
double r_squared(const Eigen::MatrixXd& y, const Eigen::MatrixXd& f, int c) {
  double mean = y.col(c).mean();
  double res = (y.col(c) - f.col(c)).squaredNorm();
  double tot = (y.col(c).array() - mean).square().sum();
  return 1 - res / tot;
}

} // namespace

BOOST_AUTO_TEST_SUITE(mlp)
BOOST_AUTO_TEST_SUITE(regressor)

BOOST_AUTO_TEST_CASE(learns_a_function_no_linear_model_can) {
  Eigen::MatrixXd x, y, xt, yt;
  sample(2000, 1, x, y);
  sample(1000, 2, xt, yt);
  // Least squares with an intercept: the linear model's best on held-out
  // points, near 0 for the first output by construction.
  Eigen::MatrixXd design(xt.rows(), 3);
  design << Eigen::VectorXd::Ones(xt.rows()), xt;
  Eigen::MatrixXd beta = design.colPivHouseholderQr().solve(yt);
  BOOST_TEST(r_squared(yt, design * beta, 0) < 0.05);

  mlp_regressor net;
  mlp_params p;
  p.max_epochs = 40;
  auto h = net.fit(x, y, p);
  BOOST_TEST(h.train_loss.back() < h.train_loss.front() / 20);
  auto f = net.predict(xt);
  BOOST_TEST(r_squared(yt, f, 0) > 0.95);
  BOOST_TEST(r_squared(yt, f, 1) > 0.99);
}

BOOST_AUTO_TEST_CASE(the_same_seed_gives_the_same_network) {
  Eigen::MatrixXd x, y;
  sample(600, 3, x, y);
  mlp_params p;
  p.max_epochs = 5;
  mlp_regressor a, b;
  a.fit(x, y, p);
  b.fit(x, y, p);
  BOOST_TEST((a.predict(x) - b.predict(x)).cwiseAbs().maxCoeff() == 0.0);
  p.seed = 2;
  mlp_regressor c;
  c.fit(x, y, p);
  BOOST_TEST((a.predict(x) - c.predict(x)).cwiseAbs().maxCoeff() > 0.0);
}

BOOST_AUTO_TEST_CASE(refuses_mismatched_inputs) {
  mlp_regressor net;
  Eigen::MatrixXd x(10, 2), y(9, 1);
  x.setZero();
  y.setZero();
  BOOST_CHECK_THROW(net.fit(x, y, {}), std::invalid_argument);
  BOOST_CHECK_THROW(net.predict(x), std::logic_error);
  Eigen::MatrixXd y10 = Eigen::MatrixXd::Zero(10, 1);
  net.fit(x, y10, {});
  BOOST_CHECK_THROW(net.predict(Eigen::MatrixXd::Zero(3, 5)),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
