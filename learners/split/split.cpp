#include "learners/split/split.hpp"

#include <vector>

namespace veil::learners {

namespace {

/// Calls visit(bin, default_left, left, right) for every candidate split of
/// feature f, in XGBoost 1.7's order: missing values right over ascending
/// bins, then, only when the node has missing values, missing values left
/// over descending bins.
template <class Visit>
void enumerate_feature(const hist_layout& layout,
                       std::span<const grad_sum> hist, std::size_t f,
                       const grad_sum& node_sum, bool has_missing,
                       Visit&& visit) {
  int bins = layout.bins(f);
  if (bins <= 0)
    return;
  const grad_sum* h = hist.data() + layout.offset(f);
  grad_sum left;
  for (int b = 0; b < bins; ++b) {
    left += h[b];
    visit(b, false, left, node_sum - left);
  }
  if (!has_missing)
    return;
  grad_sum right;
  for (int b = bins - 1; b >= 1; --b) {
    right += h[b];
    visit(b - 1, true, node_sum - right, right);
  }
}

bool has_missing(const hist_layout& layout, std::span<const grad_sum> hist,
                 std::size_t f) {
  const auto& miss = hist[layout.missing_slot(f)];
  return miss.g != 0 || miss.h != 0;
}

} // namespace

split_candidate best_split(const tree_params& p, const hist_layout& layout,
                           std::span<const grad_sum> hist,
                           const grad_sum& node_sum) {
  split_candidate best;
  double parent_gain = calc_gain(p, node_sum);
  for (std::size_t f = 0; f < layout.features(); ++f) {
    enumerate_feature(
        layout, hist, f, node_sum, has_missing(layout, hist, f),
        [&](int bin, bool dl, const grad_sum& l, const grad_sum& r) {
          if (l.h < p.min_child_weight || r.h < p.min_child_weight)
            return;
          split_candidate c;
          c.gain = split_gain(calc_gain(p, l) + calc_gain(p, r) - parent_gain);
          c.feature = static_cast<std::int32_t>(f);
          c.bin = bin;
          c.default_left = dl;
          c.left = l;
          c.right = r;
          if (c.better_than(best))
            best = c;
        });
  }
  return best;
}

split_candidate
best_shared_split(const tree_params& p, const hist_layout& layout,
                  std::span<const std::span<const grad_sum>> hists,
                  std::span<const grad_sum> node_sums) {
  split_candidate best;
  std::vector<double> parent_gain(node_sums.size());
  for (std::size_t k = 0; k < node_sums.size(); ++k)
    parent_gain[k] = calc_gain(p, node_sums[k]);
  // Candidates are keyed by (bin, default_left) per feature; sum the gains of
  // each node's enumeration into one table per feature.
  struct acc {
    double gain = 0;
    grad_sum left, right;
    bool seen = false;
  };
  for (std::size_t f = 0; f < layout.features(); ++f) {
    int bins = layout.bins(f);
    if (bins <= 0)
      continue;
    std::vector<acc> table(2 * static_cast<std::size_t>(bins));
    bool any_missing = false;
    for (std::size_t k = 0; k < hists.size(); ++k)
      any_missing = any_missing || has_missing(layout, hists[k], f);
    // Every node sees the same candidates: the missing-left direction is
    // enumerated for all nodes when any node has missing values.
    for (std::size_t k = 0; k < hists.size(); ++k)
      enumerate_feature(
          layout, hists[k], f, node_sums[k], any_missing,
          [&](int bin, bool dl, const grad_sum& l, const grad_sum& r) {
            auto& a = table[2 * static_cast<std::size_t>(bin) + (dl ? 1 : 0)];
            a.seen = true;
            a.left += l;
            a.right += r;
            if (l.h >= p.min_child_weight && r.h >= p.min_child_weight)
              a.gain += calc_gain(p, l) + calc_gain(p, r) - parent_gain[k];
          });
    for (int bin = 0; bin < bins; ++bin) {
      for (int dl = 0; dl <= 1; ++dl) {
        auto& a = table[2 * static_cast<std::size_t>(bin) + dl];
        if (!a.seen)
          continue;
        split_candidate c;
        c.gain = split_gain(a.gain);
        c.feature = static_cast<std::int32_t>(f);
        c.bin = bin;
        c.default_left = dl == 1;
        c.left = a.left;
        c.right = a.right;
        if (c.better_than(best))
          best = c;
      }
    }
  }
  return best;
}

} // namespace veil::learners
