#include "protocols/plain/wire.hpp"

namespace veil::protocols::plain {

namespace {

struct sizer {
  std::size_t operator()(const setup&) const { return 8; }
  std::size_t operator()(const setup_done& m) const {
    return vec_bytes(m.bins_per_feature);
  }
  std::size_t operator()(const tree_start& m) const {
    return 4 + vec_bytes(m.grads);
  }
  std::size_t operator()(const level_request& m) const {
    std::size_t n = 9 + vec_bytes(m.build) + sizeof(std::uint32_t);
    for (const auto& s : m.splits)
      n += 12 + vec_bytes(s.goes_left_bits);
    return n;
  }
  std::size_t operator()(const histograms& m) const {
    return 8 + vec_bytes(m.nodes) + vec_bytes(m.sums);
  }
  std::size_t operator()(const split_query& m) const {
    return 8 + vec_bytes(m.nodes) + vec_bytes(m.features) + vec_bytes(m.bins) +
           vec_bytes(m.default_left);
  }
  std::size_t operator()(const split_answer& m) const {
    return 8 + vec_bytes(m.nodes) + vec_bytes(m.goes_left_bits);
  }
  std::size_t operator()(const predict_query& m) const {
    return 4 + vec_bytes(m.trees) + vec_bytes(m.nodes) + vec_bytes(m.offsets) +
           vec_bytes(m.rows);
  }
  std::size_t operator()(const predict_answer& m) const {
    return 4 + vec_bytes(m.goes_left_bits);
  }
  std::size_t operator()(const failure& m) const { return failure_bytes(m); }
};

struct namer {
  const char* operator()(const setup&) const { return "setup"; }
  const char* operator()(const setup_done&) const { return "setup_done"; }
  const char* operator()(const tree_start&) const { return "tree_start"; }
  const char* operator()(const level_request&) const { return "level_request"; }
  const char* operator()(const histograms&) const { return "histograms"; }
  const char* operator()(const split_query&) const { return "split_query"; }
  const char* operator()(const split_answer&) const { return "split_answer"; }
  const char* operator()(const predict_query&) const { return "predict_query"; }
  const char* operator()(const predict_answer&) const {
    return "predict_answer";
  }
  const char* operator()(const failure&) const { return "failure"; }
};

} // namespace

const char* message_name(const message& m) {
  return std::visit(namer{}, m);
}

std::size_t payload_bytes(const message& m) {
  return std::visit(sizer{}, m);
}

} // namespace veil::protocols::plain
