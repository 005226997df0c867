#include "learners/boost/staged.hpp"

#include <stdexcept>

#include "learners/metrics/metrics.hpp"

namespace veil::learners {

std::size_t history_stride(std::size_t rounds, std::size_t values_per_round,
                           std::size_t budget) {
  auto total = rounds * std::max<std::size_t>(values_per_round, 1);
  return std::max<std::size_t>(1, (total + budget - 1) / budget);
}

namespace {

/// The 1-based rounds a staged history keeps.
std::vector<std::size_t> kept_rounds(std::size_t rounds, std::size_t stride) {
  std::vector<std::size_t> out;
  for (std::size_t r = stride; r <= rounds; r += stride)
    out.push_back(r);
  if (rounds > 0 && (out.empty() || out.back() != rounds))
    out.push_back(rounds);
  return out;
}

} // namespace

std::size_t staged_size(const model& m, std::size_t values,
                        std::size_t stride) {
  return kept_rounds(m.rounds(), std::max<std::size_t>(stride, 1)).size() *
         values;
}

staged_margins
stage_margins(const model& m, std::size_t rows,
              const std::function<float(std::size_t, std::size_t)>& leaf) {
  auto k = static_cast<std::size_t>(m.outputs());
  auto rounds = m.rounds();
  staged_margins s;
  s.stride = history_stride(rounds, rows * k);
  auto kept = kept_rounds(rounds, s.stride);
  s.values.assign(kept.size() * rows * k, 0);
  std::vector<float> acc(k);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t c = 0; c < k; ++c)
      acc[c] = static_cast<float>(m.base_margin[c]);
    std::size_t next = 0;
    for (std::size_t t = 0; t < m.trees.size(); ++t) {
      acc[static_cast<std::size_t>(m.trees[t].target)] += leaf(t, i);
      if ((t + 1) % k != 0 || next == kept.size() || (t + 1) / k != kept[next])
        continue;
      for (std::size_t c = 0; c < k; ++c)
        s.values[(next * k + c) * rows + i] = acc[c];
      ++next;
    }
  }
  return s;
}

staged_margins stage_margins(const model& m, const dataset& d) {
  auto aligned = m.align(d);
  return stage_margins(m, aligned.rows(), [&](std::size_t t, std::size_t i) {
    return m.trees[t].predict(aligned, i);
  });
}

std::vector<round_info> staged_history(const model& m,
                                       std::span<const float> labels,
                                       const staged_margins& s) {
  auto k = static_cast<std::size_t>(m.outputs());
  auto rows = labels.size();
  auto kept = kept_rounds(m.rounds(), std::max<std::size_t>(s.stride, 1));
  if (s.values.size() != kept.size() * rows * k)
    throw std::invalid_argument(
        "staged margins: " + std::to_string(s.values.size()) + " values for " +
        std::to_string(kept.size()) + " rounds of " + std::to_string(rows) +
        " rows");
  auto obj = m.make_objective();
  std::vector<round_info> out;
  std::vector<double> margins(rows * k);
  for (std::size_t j = 0; j < kept.size(); ++j) {
    for (std::size_t v = 0; v < rows * k; ++v)
      margins[v] = s.values[j * rows * k + v];
    round_info r;
    r.round = static_cast<int>(kept[j]);
    r.rounds = static_cast<int>(m.rounds());
    r.valid = evaluate(obj, labels, obj.transform(margins, rows));
    out.push_back(std::move(r));
  }
  return out;
}

} // namespace veil::learners
