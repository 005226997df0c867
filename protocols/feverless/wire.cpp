#include "protocols/feverless/wire.hpp"

#include "protocols/bits.hpp"

namespace veil::protocols::feverless {

namespace {

struct namer {
  const char* operator()(const key_announce&) const { return "key_announce"; }
  const char* operator()(const label_census&) const { return "label_census"; }
  const char* operator()(const query_batch&) const { return "query"; }
  const char* operator()(const lead_tickets&) const { return "lead"; }
  const char* operator()(const threshold_tickets&) const { return "thresh"; }
  const char* operator()(const noise_offers&) const { return "noise"; }
  const char* operator()(const noise_notice&) const { return "notify"; }
  const char* operator()(const masked_sums&) const { return "masked"; }
  const char* operator()(const plain_sums&) const { return "plain_sums"; }
  const char* operator()(const encrypted_sums&) const { return "encrypted"; }
  const char* operator()(const best_gains&) const { return "gain"; }
  const char* operator()(const node_decisions&) const { return "split"; }
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

} // namespace veil::protocols::feverless
