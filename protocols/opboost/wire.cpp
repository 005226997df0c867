#include "protocols/opboost/wire.hpp"

#include "protocols/bits.hpp"

namespace veil::protocols::opboost {

namespace {

struct sizer {
  std::size_t operator()(const schema& m) const {
    std::size_t n = 4 + sizeof(std::uint32_t) + vec_bytes(m.kinds) +
                    vec_bytes(m.lower) + vec_bytes(m.upper) +
                    vec_bytes(m.fill) + 16;
    for (const auto& s : m.names)
      n += str_bytes(s);
    return n;
  }
  std::size_t operator()(const ranks& m) const {
    return 4 + vec_bytes(m.values);
  }
  std::size_t operator()(const split_request& m) const {
    return vec_bytes(m.offsets) + vec_bytes(m.ranks);
  }
  std::size_t operator()(const split_values& m) const {
    return vec_bytes(m.values);
  }
  std::size_t operator()(const predict_request&) const { return 8; }
  std::size_t operator()(const predict_values& m) const {
    return 8 + vec_bytes(m.values);
  }
  std::size_t operator()(const failure& m) const { return failure_bytes(m); }
};

struct namer {
  const char* operator()(const schema&) const { return "M0 schema"; }
  const char* operator()(const ranks&) const { return "M1 ranks"; }
  const char* operator()(const split_request&) const {
    return "M2 split_request";
  }
  const char* operator()(const split_values&) const {
    return "M3 split_values";
  }
  const char* operator()(const predict_request&) const {
    return "predict_request";
  }
  const char* operator()(const predict_values&) const {
    return "M4 predict_values";
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

} // namespace veil::protocols::opboost
