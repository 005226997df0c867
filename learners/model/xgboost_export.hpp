#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "learners/boost/model.hpp"

namespace veil::learners {

/// The model in XGBoost 1.7's JSON model schema, as `Booster.save_model`
/// of xgboost 1.7.4 writes it ("version": [1, 7, 4]): `xgboost.Booster(
/// model_file=...)` loads it and predicts the same margins as
/// `model::predict_margin`, bit for bit in float (see the .cpp for how the
/// base margins are carried over). Objectives: "binary:logistic",
/// "reg:squarederror", "multi:softmax". Throws input_error naming what is
/// malformed (a tree's bad child index, an out-of-range feature, ...).
nlohmann::json to_xgboost_json(const model& m);

/// Writes to_xgboost_json(m) to `path` atomically (temporary file, then
/// rename). Throws input_error.
void export_xgboost(const model& m, const std::string& path);

} // namespace veil::learners
