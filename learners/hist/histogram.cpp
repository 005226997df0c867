#include "learners/hist/histogram.hpp"
#include "learners/parallel.hpp"

#include <algorithm>
#include <omp.h>
#include <stdexcept>

namespace veil::learners {

namespace {

template <class Bin>
void accumulate(std::span<const Bin> bins, std::size_t m,
                const std::uint32_t* offsets, std::span<const grad_pair> grads,
                std::span<const std::uint32_t> rows, grad_sum* hist) {
  // Rows of a deep node are scattered: fetch the bins and gradients of a row
  // a few iterations ahead (XGBoost does the same).
  constexpr std::size_t ahead = 16;
  const std::size_t count = rows.size();
  for (std::size_t i = 0; i < count; ++i) {
    if (i + ahead < count) {
      auto next = static_cast<std::size_t>(rows[i + ahead]);
      __builtin_prefetch(bins.data() + next * m);
      __builtin_prefetch(bins.data() + next * m + m - 1);
      __builtin_prefetch(grads.data() + next);
    }
    auto r = rows[i];
    const Bin* row = bins.data() + static_cast<std::size_t>(r) * m;
    const grad_pair gp = grads[r];
    for (std::size_t f = 0; f < m; ++f) {
      grad_sum& s = hist[offsets[f] + row[f]];
      s.g += gp.g;
      s.h += gp.h;
    }
  }
}

} // namespace

void build_histogram(const bin_matrix& bins, std::span<const grad_pair> grads,
                     std::span<const std::uint32_t> rows,
                     std::span<grad_sum> hist, int threads) {
  const auto& layout = bins.layout();
  std::vector<std::uint32_t> offsets(layout.features());
  for (std::size_t f = 0; f < offsets.size(); ++f)
    offsets[f] = layout.offset(f);
  auto m = bins.features();
  auto run = [&](std::span<const std::uint32_t> part, grad_sum* out) {
    bins.visit([&](auto b) {
      accumulate(b, m, offsets.data(), grads, part, out);
      return 0;
    });
  };
  int t = threads_for(rows.size() * std::max<std::size_t>(m, 1), threads);
  if (t <= 1) {
    run(rows, hist.data());
    return;
  }
  // Thread 0 writes into `hist` itself; the others into private copies.
  std::vector<std::vector<grad_sum>> priv(t - 1,
                                          std::vector<grad_sum>(hist.size()));
#pragma omp parallel num_threads(t)
  {
    // OpenMP may give fewer threads than asked for (nested inside another
    // parallel region, thread limits, dynamic adjustment): split the rows
    // over the team actually running, or some blocks would be skipped.
    int team = omp_get_num_threads();
    int id = omp_get_thread_num();
    std::size_t lo = rows.size() * id / team;
    std::size_t hi = rows.size() * (id + 1) / team;
    run(rows.subspan(lo, hi - lo), id == 0 ? hist.data() : priv[id - 1].data());
  }
  for (auto& p : priv)
    for (std::size_t i = 0; i < hist.size(); ++i)
      hist[i] += p[i];
}

void subtract_histogram(std::span<const grad_sum> parent,
                        std::span<const grad_sum> sibling,
                        std::span<grad_sum> out) {
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = parent[i] - sibling[i];
}

std::vector<grad_sum> histogram_set::take_buffer() {
  if (spare_.empty())
    return std::vector<grad_sum>(slots_);
  auto buf = std::move(spare_.back());
  spare_.pop_back();
  std::fill(buf.begin(), buf.end(), grad_sum{});
  return buf;
}

void histogram_set::compute(const bin_matrix& bins,
                            std::span<const grad_pair> grads,
                            std::span<const node_request> nodes, int threads) {
  for (auto& n : nodes) {
    if (!n.build)
      continue;
    auto buf = take_buffer();
    build_histogram(bins, grads, n.rows, buf, threads);
    hists_[n.node] = std::move(buf);
  }
  for (auto& n : nodes)
    if (!n.build)
      derive(n.node, n.parent, n.sibling);
  retain(nodes);
}

void histogram_set::put(std::int32_t node, std::vector<grad_sum> hist) {
  if (hist.size() != slots_)
    throw std::logic_error("histogram_set::put: wrong histogram size");
  hists_[node] = std::move(hist);
}

void histogram_set::derive(std::int32_t node, std::int32_t parent,
                           std::int32_t sibling) {
  auto buf = take_buffer();
  subtract_histogram(of(parent), of(sibling), buf);
  hists_[node] = std::move(buf);
}

void histogram_set::retain(std::span<const node_request> keep) {
  for (auto it = hists_.begin(); it != hists_.end();) {
    bool kept = std::any_of(keep.begin(), keep.end(),
                            [&](auto& n) { return n.node == it->first; });
    if (kept) {
      ++it;
    } else {
      spare_.push_back(std::move(it->second));
      it = hists_.erase(it);
    }
  }
}

std::span<const grad_sum> histogram_set::of(std::int32_t node) const {
  auto it = hists_.find(node);
  if (it == hists_.end())
    throw std::logic_error("histogram_set: no histogram for node " +
                           std::to_string(node));
  return it->second;
}

void histogram_set::clear() {
  for (auto& [node, h] : hists_)
    spare_.push_back(std::move(h));
  hists_.clear();
}

} // namespace veil::learners
