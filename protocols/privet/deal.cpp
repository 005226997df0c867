#include "protocols/privet/deal.hpp"

#include <algorithm>
#include <cmath>

#include "learners/input_error.hpp"

namespace veil::protocols::privet {

label_map standardize_labels(learners::dataset& d) {
  auto& y = d.labels();
  label_map m;
  if (y.empty())
    return m;
  double sum = 0, squares = 0;
  for (float v : y)
    sum += v;
  m.mean = sum / static_cast<double>(y.size());
  for (float v : y)
    squares += (v - m.mean) * (v - m.mean);
  double sd = std::sqrt(squares / static_cast<double>(y.size()));
  m.sd = sd > 0 ? sd : 1;
  for (auto& v : y)
    v = static_cast<float>((v - m.mean) / m.sd);
  return m;
}

double regression_gradient_bound(const learners::dataset& d) {
  double top = 0;
  for (float v : d.labels())
    top = std::max(top, std::abs(static_cast<double>(v)));
  return std::max(1.0, 2 * top);
}

dealt_table deal_table(const learners::dataset& train_set,
                       const learners::dataset& eval_set, int computing) {
  if (computing < 2)
    throw input_error("--parties " + std::to_string(computing) +
                      ": Privet needs at least 2 computing parties");
  if (static_cast<std::size_t>(computing) > train_set.features())
    throw input_error("--parties " + std::to_string(computing) +
                      ": the data has " + std::to_string(train_set.features()) +
                      " feature columns, fewer than one per party");
  dealt_table out;
  out.map = column_map::blocks(train_set.features(), computing);
  for (int p = 0; p < computing; ++p) {
    party_data d;
    d.name = "party" + std::to_string(p);
    d.features = out.map.part(train_set, p);
    if (eval_set.rows() > 0) {
      d.eval = out.map.part(eval_set, p);
      d.eval.labels().clear();
    }
    out.parties.push_back(std::move(d));
  }
  out.parties.push_back({dealer_name, {}, {}});
  return out;
}

} // namespace veil::protocols::privet
