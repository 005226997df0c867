#pragma once

// A small dense neural network for regression: ReLU hidden layers and a
// linear output, mean squared error, Adam with L2 weight decay, mini
// batches, early stopping on a held-out share of the training rows. Inputs
// and targets are standardised inside (the attacks that use it see values
// from 10⁻¹ to 10⁴ side by side). Single precision: the fits it serves
// need no more, and it halves the time.
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

namespace veil::learners {

struct mlp_params {
  std::vector<int> hidden{64, 64, 64, 64};
  double learning_rate = 1e-3;
  double weight_decay = 0.01; ///< L2, added to the gradient (Adam's)
  int batch = 256;
  int max_epochs = 100;
  /// Stop after this many epochs without a better held-out loss; the
  /// weights of the best epoch are kept.
  int patience = 8;
  double validation_share = 0.1;
  std::uint64_t seed = 1; ///< initial weights, shuffles, held-out rows
};

/// How the fit went: mean squared error (standardised targets) per epoch
/// on the training rows and on the held-out ones.
struct mlp_history {
  std::vector<double> train_loss;
  std::vector<double> validation_loss;
  int best_epoch = 0;
};

class mlp_regressor {
public:
  /// Rows are samples: x is n × inputs, y is n × outputs. Throws
  /// std::invalid_argument on mismatched or empty inputs.
  mlp_history fit(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y,
                  const mlp_params& p);
  /// n × outputs for x (n × inputs), in the targets' units.
  Eigen::MatrixXd predict(const Eigen::MatrixXd& x) const;

private:
  struct layer {
    Eigen::MatrixXf w; // out × in
    Eigen::VectorXf b;
  };
  std::vector<layer> layers_;
  Eigen::RowVectorXd x_mean_, x_scale_, y_mean_, y_scale_;

  /// Activations of every layer for a standardised batch (inputs ×
  /// samples, column per sample); the last is the output.
  void forward(const Eigen::MatrixXf& x, std::vector<Eigen::MatrixXf>& a) const;
  double loss(const Eigen::MatrixXf& x, const Eigen::MatrixXf& y) const;
};

} // namespace veil::learners
