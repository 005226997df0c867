#include "learners/mlp/regressor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace veil::learners {

namespace {

/// Column means and standard deviations (1 where a column is constant).
void moments(const Eigen::MatrixXd& m, Eigen::RowVectorXd& mean,
             Eigen::RowVectorXd& scale) {
  mean = m.colwise().mean();
  scale = ((m.rowwise() - mean).array().square().colwise().sum() /
           static_cast<double>(m.rows()))
              .sqrt();
  for (Eigen::Index j = 0; j < scale.size(); ++j)
    if (!(scale[j] > 0) || !std::isfinite(scale[j]))
      scale[j] = 1;
}

/// (m − mean) / scale, transposed to one column per sample.
Eigen::MatrixXf standardised(const Eigen::MatrixXd& m,
                             const Eigen::RowVectorXd& mean,
                             const Eigen::RowVectorXd& scale) {
  return ((m.rowwise() - mean).array().rowwise() / scale.array())
      .matrix()
      .transpose()
      .cast<float>();
}

Eigen::MatrixXf gather(const Eigen::MatrixXf& m,
                       const std::vector<Eigen::Index>& columns,
                       std::size_t from, std::size_t to) {
  Eigen::MatrixXf out(m.rows(), static_cast<Eigen::Index>(to - from));
  for (std::size_t k = from; k < to; ++k)
    out.col(static_cast<Eigen::Index>(k - from)) = m.col(columns[k]);
  return out;
}

struct adam_state {
  Eigen::MatrixXf mw, vw;
  Eigen::VectorXf mb, vb;
};

} // namespace

void mlp_regressor::forward(const Eigen::MatrixXf& x,
                            std::vector<Eigen::MatrixXf>& a) const {
  a.resize(layers_.size() + 1);
  a[0] = x;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    a[l + 1] = (layers_[l].w * a[l]).colwise() + layers_[l].b;
    if (l + 1 < layers_.size())
      a[l + 1] = a[l + 1].cwiseMax(0.0f);
  }
}

double mlp_regressor::loss(const Eigen::MatrixXf& x,
                           const Eigen::MatrixXf& y) const {
  if (x.cols() == 0)
    return 0;
  std::vector<Eigen::MatrixXf> a;
  double sum = 0;
  const Eigen::Index chunk = 4096;
  for (Eigen::Index c = 0; c < x.cols(); c += chunk) {
    auto k = std::min(chunk, x.cols() - c);
    forward(x.middleCols(c, k), a);
    sum += (a.back() - y.middleCols(c, k)).cast<double>().squaredNorm();
  }
  return sum / static_cast<double>(y.size());
}

mlp_history mlp_regressor::fit(const Eigen::MatrixXd& x,
                               const Eigen::MatrixXd& y, const mlp_params& p) {
  if (x.rows() == 0 || x.cols() == 0 || y.cols() == 0 || x.rows() != y.rows())
    throw std::invalid_argument("mlp_regressor::fit: x and y need the same, "
                                "non-zero number of rows");
  if (p.batch < 1 || p.max_epochs < 1 || !(p.learning_rate > 0))
    throw std::invalid_argument("mlp_regressor::fit: batch, epochs and "
                                "learning rate must be positive");
  moments(x, x_mean_, x_scale_);
  moments(y, y_mean_, y_scale_);
  Eigen::MatrixXf xs = standardised(x, x_mean_, x_scale_);
  Eigen::MatrixXf ys = standardised(y, y_mean_, y_scale_);

  std::mt19937_64 rng(p.seed);
  std::vector<Eigen::Index> order(static_cast<std::size_t>(x.rows()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::shuffle(order.begin(), order.end(), rng);
  auto held = static_cast<std::size_t>(
      std::floor(p.validation_share * static_cast<double>(order.size())));
  if (held >= order.size())
    held = 0;
  std::vector<Eigen::Index> train(order.begin() + static_cast<long>(held),
                                  order.end());
  Eigen::MatrixXf xv = gather(xs, order, 0, held);
  Eigen::MatrixXf yv = gather(ys, order, 0, held);

  // He initialisation for the ReLU layers, 1/in for the linear output.
  layers_.clear();
  std::vector<adam_state> adam;
  auto in = static_cast<Eigen::Index>(x.cols());
  auto widths = p.hidden;
  widths.push_back(static_cast<int>(y.cols()));
  for (std::size_t l = 0; l < widths.size(); ++l) {
    auto out = static_cast<Eigen::Index>(widths[l]);
    double gain = l + 1 < widths.size() ? 2.0 : 1.0;
    std::normal_distribution<float> init(
        0.0f, static_cast<float>(std::sqrt(gain / static_cast<double>(in))));
    layer L{Eigen::MatrixXf(out, in), Eigen::VectorXf::Zero(out)};
    for (Eigen::Index k = 0; k < L.w.size(); ++k)
      L.w.data()[k] = init(rng);
    layers_.push_back(std::move(L));
    adam.push_back({Eigen::MatrixXf::Zero(out, in),
                    Eigen::MatrixXf::Zero(out, in), Eigen::VectorXf::Zero(out),
                    Eigen::VectorXf::Zero(out)});
    in = out;
  }

  const float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  const auto lr = static_cast<float>(p.learning_rate);
  const auto decay = static_cast<float>(p.weight_decay);
  long step = 0;
  mlp_history h;
  double best = std::numeric_limits<double>::infinity();
  auto best_layers = layers_;
  std::vector<Eigen::MatrixXf> a;
  for (int epoch = 0; epoch < p.max_epochs; ++epoch) {
    std::shuffle(train.begin(), train.end(), rng);
    double epoch_loss = 0;
    for (std::size_t from = 0; from < train.size();
         from += static_cast<std::size_t>(p.batch)) {
      auto to =
          std::min(train.size(), from + static_cast<std::size_t>(p.batch));
      Eigen::MatrixXf xb = gather(xs, train, from, to);
      Eigen::MatrixXf yb = gather(ys, train, from, to);
      forward(xb, a);
      Eigen::MatrixXf dz = a.back() - yb;
      epoch_loss += static_cast<double>(dz.squaredNorm());
      dz *= 2.0f / static_cast<float>(dz.size());
      ++step;
      float c1 = 1 - std::pow(beta1, static_cast<float>(step));
      float c2 = 1 - std::pow(beta2, static_cast<float>(step));
      for (std::size_t l = layers_.size(); l-- > 0;) {
        auto& L = layers_[l];
        Eigen::MatrixXf gw = dz * a[l].transpose() + decay * L.w;
        Eigen::VectorXf gb = dz.rowwise().sum();
        if (l > 0) // the gradient for the layer below, before L changes
          dz = (L.w.transpose() * dz)
                   .cwiseProduct((a[l].array() > 0.0f).cast<float>().matrix());
        auto& s = adam[l];
        s.mw = beta1 * s.mw + (1 - beta1) * gw;
        s.vw = beta2 * s.vw + (1 - beta2) * gw.cwiseAbs2();
        s.mb = beta1 * s.mb + (1 - beta1) * gb;
        s.vb = beta2 * s.vb + (1 - beta2) * gb.cwiseAbs2();
        L.w.array() -=
            lr * (s.mw.array() / c1) / ((s.vw.array() / c2).sqrt() + eps);
        L.b.array() -=
            lr * (s.mb.array() / c1) / ((s.vb.array() / c2).sqrt() + eps);
      }
    }
    h.train_loss.push_back(epoch_loss /
                           static_cast<double>(train.size() * ys.rows()));
    double v = held > 0 ? loss(xv, yv) : h.train_loss.back();
    h.validation_loss.push_back(v);
    if (v < best) {
      best = v;
      best_layers = layers_;
      h.best_epoch = epoch;
    } else if (epoch - h.best_epoch >= p.patience) {
      break;
    }
  }
  layers_ = std::move(best_layers);
  return h;
}

Eigen::MatrixXd mlp_regressor::predict(const Eigen::MatrixXd& x) const {
  if (layers_.empty())
    throw std::logic_error("mlp_regressor::predict before fit");
  if (x.cols() != x_mean_.size())
    throw std::invalid_argument("mlp_regressor::predict: wrong number of "
                                "inputs");
  Eigen::MatrixXf xs = standardised(x, x_mean_, x_scale_);
  Eigen::MatrixXd out(x.rows(), y_mean_.size());
  std::vector<Eigen::MatrixXf> a;
  const Eigen::Index chunk = 4096;
  for (Eigen::Index c = 0; c < xs.cols(); c += chunk) {
    auto k = std::min(chunk, xs.cols() - c);
    forward(xs.middleCols(c, k), a);
    out.middleRows(c, k) = a.back().transpose().cast<double>();
  }
  out = (out.array().rowwise() * y_scale_.array()).rowwise() + y_mean_.array();
  return out;
}

} // namespace veil::learners
