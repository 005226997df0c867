#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "learners/binning/bin_matrix.hpp"
#include "learners/hist/gradients.hpp"
#include "learners/tree/node_request.hpp"

namespace veil::learners {

/// Adds grads[r] into hist[slot of (r, f)] for every row r in `rows` and
/// every feature f. `hist` must hold layout().slots() zeroed sums. With
/// threads > 1 and enough rows, each thread fills a private copy over a
/// block of rows and the copies are summed.
void build_histogram(const bin_matrix& bins, std::span<const grad_pair> grads,
                     std::span<const std::uint32_t> rows,
                     std::span<grad_sum> hist, int threads = 1);

/// out = parent - sibling, slot by slot.
void subtract_histogram(std::span<const grad_sum> parent,
                        std::span<const grad_sum> sibling,
                        std::span<grad_sum> out);

/// The histograms of the nodes of one frontier, and of the frontier before
/// it while the subtraction trick still needs them.
class histogram_set {
public:
  explicit histogram_set(std::uint32_t slots) : slots_(slots) {}

  /// Computes the histogram of every requested node: built from the rows
  /// where `build` is set, else the parent's minus the sibling's. Then drops
  /// the histograms of the previous frontier.
  void compute(const bin_matrix& bins, std::span<const grad_pair> grads,
               std::span<const node_request> nodes, int threads);

  /// Stores a histogram computed elsewhere (e.g. received from a party).
  void put(std::int32_t node, std::vector<grad_sum> hist);

  /// Derives `node` as parent - sibling, both already present.
  void derive(std::int32_t node, std::int32_t parent, std::int32_t sibling);

  /// Forgets every histogram except those of `keep`.
  void retain(std::span<const node_request> keep);

  std::span<const grad_sum> of(std::int32_t node) const;
  bool contains(std::int32_t node) const { return hists_.count(node) > 0; }
  void clear();

private:
  std::vector<grad_sum> take_buffer();

  std::uint32_t slots_;
  std::unordered_map<std::int32_t, std::vector<grad_sum>> hists_;
  std::vector<std::vector<grad_sum>> spare_;
};

} // namespace veil::learners
