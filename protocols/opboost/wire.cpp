#include "protocols/opboost/wire.hpp"

#include "protocols/bits.hpp"

namespace veil::protocols::opboost {

namespace {

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

} // namespace veil::protocols::opboost
