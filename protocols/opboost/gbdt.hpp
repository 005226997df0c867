#pragma once

// GBDT for OpBoost's Party A (spec opboost §5.4, "GBDT" variant): Friedman's
// gradient boosting with first-order ("gradient-only") leaf values. Every
// round fits a least-squares regression tree to the negative gradients of
// the loss: the learners' tree grower with every hessian set to 1, so that
// a node's weight -G / (n + lambda) is the mean negative gradient (lambda =
// 0) and a split's gain is the variance reduction. The loss, margins,
// prediction and model format are XGBoost's (learners::objective).
//
// [D] This is not Smile's L2-TreeBoost, whose binary leaves take a Newton
// step; it is the gradient-only GBDT the task asks for: learners::train
// with leaf_rule::gradient.

#include "learners/boost/booster.hpp"
#include "learners/data/dataset.hpp"

namespace veil::protocols::opboost {

/// The paper's GBDT settings: 80 rounds, eta 0.1, depth 3, lambda 0,
/// min_child_weight 1 (one row per child, hessians being 1).
learners::booster_params gbdt_defaults();

/// Trains gradient-only GBDT on `train` (labels required). Uses rounds,
/// tree (max_depth, eta, lambda, gamma, min_child_weight), max_bin, threads,
/// base_score and objective of `p` (its leaf rule is always gradient); no
/// validation set, no early stopping.
/// Throws veil::input_error like learners::train.
/// `on_round` is called after each round.
learners::training_result train_gbdt(
    const learners::dataset& train, const learners::booster_params& p,
    const std::function<void(const learners::round_info&)>& on_round = {});

} // namespace veil::protocols::opboost
