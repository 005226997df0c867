#include "protocols/feverless/wire.hpp"

#include "protocols/bits.hpp"

namespace veil::protocols::feverless {

namespace {

std::size_t ticket_bytes(const std::vector<crypto::lottery_ticket>& v) {
  return sizeof(std::uint32_t) +
         v.size() * (sizeof(crypto::score) + sizeof(crypto::signature));
}

struct sizer {
  std::size_t operator()(const key_announce& m) const {
    return 12 + 32 + 32 + 64 + vec_bytes(m.paillier_key);
  }
  std::size_t operator()(const label_census& m) const {
    return vec_bytes(m.holds);
  }
  std::size_t operator()(const query_batch& m) const {
    return 8 + vec_bytes(m.qids) + vec_bytes(m.nodes) + vec_bytes(m.offsets) +
           vec_bytes(m.ids) + vec_bytes(m.nonces);
  }
  std::size_t operator()(const lead_tickets& m) const {
    return 8 + ticket_bytes(m.tickets);
  }
  std::size_t operator()(const threshold_tickets& m) const {
    return 12 + vec_bytes(m.qids) + vec_bytes(m.attempts) +
           ticket_bytes(m.tickets);
  }
  std::size_t operator()(const noise_offers& m) const {
    return 12 + vec_bytes(m.volunteer) + ticket_bytes(m.tickets) +
           vec_bytes(m.g) + vec_bytes(m.h);
  }
  std::size_t operator()(const noise_notice& m) const {
    return 16 + vec_bytes(m.selected);
  }
  std::size_t operator()(const masked_sums& m) const {
    return 8 + vec_bytes(m.g) + vec_bytes(m.h);
  }
  std::size_t operator()(const plain_sums& m) const {
    return 8 + vec_bytes(m.g) + vec_bytes(m.h);
  }
  std::size_t operator()(const encrypted_sums& m) const {
    return 8 + vec_bytes(m.g) + vec_bytes(m.h);
  }
  std::size_t operator()(const best_gains& m) const {
    return 8 + vec_bytes(m.gains) + vec_bytes(m.has_totals);
  }
  std::size_t operator()(const node_decisions& m) const {
    return 8 + vec_bytes(m.split_nodes) + vec_bytes(m.goes_left_bits) +
           vec_bytes(m.left_weights) + vec_bytes(m.right_weights) +
           vec_bytes(m.leaf_nodes) + vec_bytes(m.leaf_weights);
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

std::size_t payload_bytes(const message& m) {
  return std::visit(sizer{}, m);
}

} // namespace veil::protocols::feverless
