#include "learners/tree/tree_grower.hpp"
#include "learners/parallel.hpp"

#include <algorithm>
#include <stdexcept>

namespace veil::learners {

namespace {

// XGBoost's kRtEps: gains at or below it are rounding noise, not splits.
constexpr double min_gain = 1e-6;

} // namespace

grad_sum sum_gradients(std::span<const grad_pair> grads,
                       std::span<const std::uint32_t> rows) {
  grad_sum s;
  for (auto r : rows)
    s += grads[r];
  return s;
}

tree_grower::tree_grower(const tree_params& p, std::span<const grad_pair> grads,
                         std::vector<std::uint32_t> rows, int threads)
    : params_(p), grads_(grads), threads_(std::max(threads, 1)),
      partition_(std::move(rows)) {
  auto root = add_node(-1, sum_gradients(grads_, partition_.rows_of(0)));
  node_request req;
  req.node = root;
  req.sum = sums_[root];
  req.rows = rows_of(root);
  frontier_.push_back(req);
}

std::int32_t tree_grower::add_node(std::int32_t parent, const grad_sum& sum) {
  auto id = static_cast<std::int32_t>(tree_.nodes.size());
  tree_node n;
  n.parent = parent;
  n.sum_hess = sum.h;
  n.value = static_cast<float>(params_.eta * calc_weight(params_, sum));
  tree_.nodes.push_back(n);
  sums_.push_back(sum);
  depth_.push_back(parent < 0 ? 0 : depth_[parent] + 1);
  return id;
}

bool tree_grower::accepts(const split_decision& d) const {
  const auto& s = d.split;
  if (!s.valid() || s.gain <= min_gain || s.gain < params_.gamma)
    return false;
  // A decision table splits every node of the level, empty ones included.
  if (params_.oblivious)
    return true;
  return s.left.h > 0 && s.right.h > 0;
}

void tree_grower::apply(std::span<const split_decision> decisions) {
  if (decisions.size() != frontier_.size())
    throw std::invalid_argument(
        "tree_grower: expected " + std::to_string(frontier_.size()) +
        " decisions, got " + std::to_string(decisions.size()));
  // Match decisions to frontier nodes and check them before changing state.
  std::vector<const split_decision*> by_node(frontier_.size(), nullptr);
  for (const auto& d : decisions) {
    auto it = std::find_if(frontier_.begin(), frontier_.end(),
                           [&](auto& n) { return n.node == d.node; });
    if (it == frontier_.end())
      throw std::invalid_argument("tree_grower: node " +
                                  std::to_string(d.node) +
                                  " is not on the frontier");
    auto k = static_cast<std::size_t>(it - frontier_.begin());
    if (by_node[k])
      throw std::invalid_argument("tree_grower: two decisions for node " +
                                  std::to_string(d.node));
    if (accepts(d) && d.goes_left.size() != it->rows.size())
      throw std::invalid_argument(
          "tree_grower: node " + std::to_string(d.node) + " has " +
          std::to_string(it->rows.size()) + " rows, goes_left has " +
          std::to_string(d.goes_left.size()));
    by_node[k] = &d;
  }
  if (params_.oblivious) {
    // A level either splits as a whole or not at all.
    bool all = std::all_of(by_node.begin(), by_node.end(),
                           [&](auto* d) { return accepts(*d); });
    if (!all) {
      for (auto& n : frontier_)
        make_leaf(n.node);
      frontier_.clear();
      return;
    }
  }
  // Children ids are handed out in frontier order, left then right.
  std::vector<node_split> splits;
  auto next_id = static_cast<std::int32_t>(tree_.nodes.size());
  for (std::size_t k = 0; k < frontier_.size(); ++k) {
    const auto& d = *by_node[k];
    if (!accepts(d))
      continue;
    splits.push_back({frontier_[k].node, next_id, next_id + 1, d.goes_left});
    next_id += 2;
  }
  partition_.split(splits, threads_);
  std::vector<node_request> next;
  for (std::size_t k = 0; k < frontier_.size(); ++k) {
    const auto& d = *by_node[k];
    auto id = frontier_[k].node;
    if (!accepts(d)) {
      make_leaf(id);
      continue;
    }
    auto lsize = partition_.size(static_cast<std::int32_t>(tree_.nodes.size()));
    auto rsize =
        partition_.size(static_cast<std::int32_t>(tree_.nodes.size()) + 1);
    grad_sum ls = sum_gradients(
        grads_,
        partition_.rows_of(static_cast<std::int32_t>(tree_.nodes.size())));
    grad_sum rs = sums_[id] - ls;
    auto lid = add_node(id, ls);
    auto rid = add_node(id, rs);
    auto& n = tree_.nodes[id];
    n.left = lid;
    n.right = rid;
    n.feature = d.feature;
    n.bin = d.split.bin;
    n.threshold = d.threshold;
    n.default_left = d.split.default_left;
    n.gain = static_cast<float>(d.split.gain);
    n.owner = d.owner;
    // The unscaled weight, as XGBoost's base_weights.
    n.value = static_cast<float>(calc_weight(params_, sums_[id]));
    int child_depth = depth_[id] + 1;
    if (child_depth >= params_.max_depth) {
      make_leaf(lid);
      make_leaf(rid);
      continue;
    }
    // Of two siblings, the smaller one is built and the other derived.
    bool left_builds = lsize <= rsize;
    auto request = [&](std::int32_t child, std::int32_t sib, bool builds) {
      node_request req;
      req.node = child;
      req.parent = id;
      req.sibling = sib;
      req.depth = child_depth;
      req.sum = sums_[child];
      req.build = builds;
      next.push_back(req);
    };
    request(lid, rid, left_builds);
    request(rid, lid, !left_builds);
  }
  // Row spans are taken after all partitions, as they point into the
  // partition.
  for (auto& req : next)
    req.rows = rows_of(req.node);
  frontier_ = std::move(next);
}

void tree_grower::make_leaf(std::int32_t id) {
  auto& n = tree_.nodes[id];
  n.left = n.right = -1;
  n.value = static_cast<float>(params_.eta * calc_weight(params_, sums_[id]));
}

} // namespace veil::learners
