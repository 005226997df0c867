#include "protocols/privet/deal.hpp"

#include "learners/input_error.hpp"

namespace veil::protocols::privet {

dealt_table deal_table(const learners::dataset& train_set,
                       const learners::dataset& eval_set, int computing) {
  if (computing < 2)
    throw input_error("--parties " + std::to_string(computing) +
                      ": Privet needs at least 2 computing parties");
  if (static_cast<std::size_t>(computing) > train_set.features())
    throw input_error("--parties " + std::to_string(computing) +
                      ": the data has " +
                      std::to_string(train_set.features()) +
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
