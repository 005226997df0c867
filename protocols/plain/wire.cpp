#include "protocols/plain/wire.hpp"

namespace veil::protocols::plain {

namespace {

struct namer {
  const char* operator()(const setup&) const { return "setup"; }
  const char* operator()(const setup_done&) const { return "setup_done"; }
  const char* operator()(const tree_start&) const { return "tree_start"; }
  const char* operator()(const level_request&) const { return "level_request"; }
  const char* operator()(const histograms&) const { return "histograms"; }
  const char* operator()(const noisy_gradients&) const {
    return "noisy_gradients";
  }
  const char* operator()(const bucket_ids&) const { return "bucket_ids"; }
  const char* operator()(const encrypted_gradients&) const {
    return "encrypted_gradients";
  }
  const char* operator()(const encrypted_histograms&) const {
    return "encrypted_histograms";
  }
  const char* operator()(const bucket_splits&) const { return "bucket_splits"; }
  const char* operator()(const noise_matrices&) const {
    return "noise_matrices";
  }
  const char* operator()(const masked_sums&) const { return "masked_sums"; }
  const char* operator()(const passive_scores&) const {
    return "passive_scores";
  }
  const char* operator()(const scored_split_query&) const {
    return "scored_split_query";
  }
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

} // namespace veil::protocols::plain
