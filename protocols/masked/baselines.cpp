#include "protocols/masked/baselines.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "learners/split/split.hpp"

namespace veil::protocols::masked {

ldp_release ldp_calibrate(const params& p, std::uint64_t rows, int trees,
                          int passives, bool hessians) {
  p.validate();
  // One release per tree and passive party (depth 1: not per level).
  auto mode = p.accounting;
  std::uint64_t k = releases(mode, trees, 1, 1, passives);
  if (mode == accounting::strict && !hessians)
    k /= 2; // strict counts g and h; FedXGBoost-LDP releases g only
  ldp_release out;
  out.budget = per_release(p.epsilon_ap, p.delta_ap, k);
  if (hessians && p.split_gh && mode != accounting::strict) {
    out.budget.epsilon /= 2;
    out.budget.delta /= 2;
  }
  double r = chernoff_budget(out.budget.epsilon, out.budget.delta);
  double n =
      p.sensitivity == sensitivity::record ? 1.0 : static_cast<double>(rows);
  out.stddev = p.lossless_check ? 0.0 : std::sqrt(n * p.mu * p.mu / r);
  return out;
}

std::optional<scored> best_noisy_candidate(
    const learners::bin_matrix& bins, std::span<const std::uint32_t> rows,
    std::span<const candidate> candidates, std::span<const double> g,
    std::span<const double> h, const learners::tree_params& tp) {
  bool counts = h.empty();
  // Per feature and bin (the last slot: missing), the noisy sums.
  const auto& layout = bins.layout();
  std::vector<learners::grad_sum> hist(layout.slots());
  learners::grad_sum node;
  for (auto r : rows) {
    learners::grad_sum x{g[r], counts ? 1.0 : h[r]};
    node += x;
    for (std::size_t f = 0; f < layout.features(); ++f)
      hist[layout.offset(f) + static_cast<std::uint32_t>(bins.bin(r, f))] += x;
  }
  double parent = learners::weight_score(node, tp.lambda, tp.max_delta_step);
  std::optional<scored> best;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    auto f = static_cast<std::size_t>(c.feature);
    const auto* hf = hist.data() + layout.offset(f);
    learners::grad_sum l;
    for (int b = 0; b <= c.bin; ++b)
      l += hf[b];
    if (c.default_left)
      l += hf[layout.bins(f)];
    auto r = node - l;
    if (tp.min_child_weight > 0 &&
        (l.h < tp.min_child_weight || r.h < tp.min_child_weight))
      continue;
    if (!(l.h + tp.lambda > 0 && r.h + tp.lambda > 0))
      continue;
    double gain = learners::split_gain(
        learners::weight_score(l, tp.lambda, tp.max_delta_step) +
        learners::weight_score(r, tp.lambda, tp.max_delta_step) - parent);
    if (!best || gain > best->gain)
      best = scored{i, gain};
  }
  return best;
}

} // namespace veil::protocols::masked
