#include "learners/tree/local_split_finder.hpp"
#include "learners/parallel.hpp"

namespace veil::learners {

std::vector<std::uint8_t> route_rows(const bin_matrix& bins, std::size_t f,
                                     int bin, bool default_left,
                                     std::span<const std::uint32_t> rows) {
  std::vector<std::uint8_t> out(rows.size());
  int missing = bins.layout().bins(f);
  auto m = bins.features();
  bins.visit([&](auto b) {
    constexpr std::size_t ahead = 16; // scattered rows: fetch ahead
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i + ahead < rows.size())
        __builtin_prefetch(
            &b[static_cast<std::size_t>(rows[i + ahead]) * m + f]);
      int v = b[static_cast<std::size_t>(rows[i]) * m + f];
      out[i] = v == missing ? default_left : v <= bin;
    }
    return 0;
  });
  return out;
}

local_split_finder::local_split_finder(const bin_matrix& bins,
                                       const quantile_cuts& cuts,
                                       const tree_params& p, int threads)
    : bins_(bins), cuts_(cuts), params_(p), threads_(threads),
      hists_(bins.layout().slots()) {}

void local_split_finder::start_tree() {
  hists_.clear();
}

std::vector<split_decision>
local_split_finder::decide(std::span<const node_request> frontier,
                           std::span<const grad_pair> grads) {
  hists_.compute(bins_, grads, frontier, threads_);
  std::vector<split_decision> out(frontier.size());
  if (params_.oblivious) {
    std::vector<std::span<const grad_sum>> hs;
    std::vector<grad_sum> sums;
    for (auto& n : frontier) {
      hs.push_back(hists_.of(n.node));
      sums.push_back(n.sum);
    }
    auto shared = best_shared_split(params_, bins_.layout(), hs, sums);
    for (std::size_t k = 0; k < frontier.size(); ++k)
      out[k].split = shared;
  } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(                     \
    threads_for(frontier.size() * bins_.layout().slots(), threads_))
    for (std::size_t k = 0; k < frontier.size(); ++k)
      out[k].split = best_split(params_, bins_.layout(),
                                hists_.of(frontier[k].node), frontier[k].sum);
  }
  std::size_t total_rows = 0;
  for (auto& n : frontier)
    total_rows += n.rows.size();
#pragma omp parallel for num_threads(threads_for(total_rows, threads_))        \
    schedule(dynamic, 1)
  for (std::size_t k = 0; k < frontier.size(); ++k) {
    auto& d = out[k];
    d.node = frontier[k].node;
    if (!d.split.valid())
      continue;
    d.feature = d.split.feature;
    d.threshold = cuts_.threshold(d.split.feature, d.split.bin);
    d.goes_left = route_rows(bins_, d.split.feature, d.split.bin,
                             d.split.default_left, frontier[k].rows);
  }
  return out;
}

} // namespace veil::learners
