#include "protocols/privet/roles.hpp"

#include <exception>
#include <string>

namespace veil::protocols::privet {

namespace {

constexpr std::uint64_t largest_count = std::uint64_t{1} << 32;

void put(std::vector<std::uint64_t>& out, const mpc::component& c) {
  out.insert(out.end(), {static_cast<std::uint64_t>(c.kind), c.call, c.count,
                         static_cast<std::uint64_t>(c.bits),
                         static_cast<std::uint64_t>(c.part)});
}

std::optional<mpc::component> take(const std::vector<std::uint64_t>& in,
                                   std::size_t at) {
  if (in[at] >= mpc::item_kinds || in[at + 2] > largest_count ||
      in[at + 3] > 62 || in[at + 4] > 2)
    return std::nullopt;
  return mpc::component{static_cast<mpc::item>(in[at]), in[at + 1],
                        static_cast<std::size_t>(in[at + 2]),
                        static_cast<int>(in[at + 3]),
                        static_cast<int>(in[at + 4])};
}

} // namespace

correlation_ask ask_of(const mpc::correlation_request& r) {
  correlation_ask a{static_cast<std::uint8_t>(r.kind),
                    r.call,
                    r.count,
                    r.owner,
                    r.length,
                    r.bits,
                    {}};
  for (const auto& o : r.operands)
    put(a.operands, o);
  return a;
}

std::optional<mpc::correlation_request> request_of(const correlation_ask& a) {
  if (a.kind >= mpc::item_kinds || a.count > largest_count ||
      a.length > largest_count || a.bits < 0 || a.bits > 62)
    return std::nullopt;
  mpc::correlation_request r;
  r.kind = static_cast<mpc::item>(a.kind);
  r.call = a.call;
  r.count = static_cast<std::size_t>(a.count);
  r.owner = a.owner;
  r.length = static_cast<std::size_t>(a.length);
  r.bits = a.bits;
  if (a.operands.size() % 5 != 0 || a.operands.size() > 20)
    return std::nullopt;
  for (std::size_t at = 0; at < a.operands.size(); at += 5) {
    auto o = take(a.operands, at);
    if (!o)
      return std::nullopt;
    r.operands.push_back(*o);
  }
  return r;
}

const char* message_name(const message& m) {
  struct namer {
    const char* operator()(const round_words&) const { return "round_words"; }
    const char* operator()(const dealer_seed&) const { return "dealer_seed"; }
    const char* operator()(const correlation_ask&) const {
      return "correlation_ask";
    }
    const char* operator()(const correlation_answer&) const {
      return "correlation_answer";
    }
    const char* operator()(const failure&) const { return "failure"; }
  };
  return std::visit(namer{}, m);
}

computing_party::computing_party(int id, int parties, params p, column_map map,
                                 learners::dataset own, std::uint64_t own_seed)
    : id_(id), parties_(parties), params_(std::move(p)), map_(std::move(map)),
      own_(std::move(own)), own_seed_(own_seed) {}

computing_party::~computing_party() = default;

outbox computing_party::exchange_messages() {
  outbox out;
  const auto& words = party_->outgoing();
  for (int q = 0; q < parties_; ++q)
    if (q != id_)
      out.push_back(
          {q, round_words{round_, words[static_cast<std::size_t>(q)]}});
  return out;
}

outcome<outbox> computing_party::pump() {
  outbox out;
  while (true) {
    // A finished task: its result, or what it failed on (a peer's words
    // of the wrong length, say) as a refusal.
    bool finished = (training_ && training_->done()) ||
                    (predicting_ && predicting_->done());
    if (finished) {
      try {
        if (training_) {
          model_ = training_->result();
          training_.reset();
        } else {
          scores_ = predicting_->result();
          predicting_.reset();
        }
        if (waiting_rows_) {
          // Asked to predict while its last round (of training or of the
          // previous prediction) was still coming.
          begin_predict();
          continue;
        }
      } catch (const std::exception& e) {
        training_.reset();
        predicting_.reset();
        return refuse("mpc", e.what());
      }
      return out;
    }
    if (party_->waiting_for_dealer()) {
      const auto& wanted = party_->request();
      auto known =
          ahead_.find({static_cast<std::uint8_t>(wanted.kind), wanted.call});
      if (known != ahead_.end()) {
        auto words = std::move(known->second);
        ahead_.erase(known);
        try {
          party_->deliver_correction(std::move(words));
        } catch (const std::exception& e) {
          return refuse("correlation_answer", e.what());
        }
        continue;
      }
      if (!asked_) {
        out.push_back({parties_, ask_of(party_->request())});
        asked_ = true;
      }
      return out;
    }
    // At an exchange: send this round's words once, then resume when
    // every peer's have come.
    auto& waiting = early_[round_];
    if (!waiting.count(-1)) {
      auto msgs = exchange_messages();
      out.insert(out.end(), msgs.begin(), msgs.end());
      waiting[-1]; // sent
    }
    if (waiting.size() < static_cast<std::size_t>(parties_)) // peers + sent
      return out;
    std::vector<mpc::words> from_each(static_cast<std::size_t>(parties_));
    for (auto& [q, w] : waiting)
      if (q >= 0)
        from_each[static_cast<std::size_t>(q)] = std::move(w);
    early_.erase(round_);
    ++round_;
    party_->deliver(std::move(from_each));
  }
}

outcome<outbox> computing_party::start() {
  if (started_)
    return refuse("train", "a second time");
  started_ = true;
  return begin_training();
}

outcome<outbox> computing_party::begin_training() {
  if (!started_ || !seed_)
    return outbox{};
  party_ = std::make_unique<mpc::party>(id_, parties_, *seed_, own_seed_);
  training_.emplace(train(*party_, params_, map_, own_));
  training_->start();
  return pump();
}

std::vector<double> computing_party::predicted_margins() const {
  return mpc::decode_all(*scores_);
}

outcome<outbox> computing_party::on_message(party_id from, const message& m) {
  if (const auto* s = std::get_if<dealer_seed>(&m)) {
    if (from != parties_ || seed_)
      return refuse("dealer_seed", "only the dealer's, once");
    if (s->seed.size() != crypto::key32::size())
      return refuse("dealer_seed", "not a 32-byte seed");
    seed_.emplace();
    std::copy(s->seed.begin(), s->seed.end(), seed_->data());
    return begin_training();
  }
  // A peer's words may come before the dealer's seed: they wait.
  if (const auto* w = std::get_if<round_words>(&m)) {
    if (from < 0 || from >= parties_ || from == id_)
      return refuse("round_words", "not from a computing party");
    if (w->round < round_ || w->round > round_ + 1)
      return refuse("round_words", "round " + std::to_string(w->round) +
                                       " while at round " +
                                       std::to_string(round_));
    auto& slot = early_[w->round];
    if (slot.count(from))
      return refuse("round_words", "a second message for one round");
    slot[from] = w->words;
    if (!party_ || !party_->waiting())
      return outbox{};
    return pump();
  }
  if (const auto* a = std::get_if<correlation_answer>(&m)) {
    if (from != parties_ || id_ != parties_ - 1)
      return refuse("correlation_answer", "only the dealer's, to the last "
                                          "party");
    if (!asked_) {
      // Sent ahead of the online phase: kept until the party gets there.
      if (!ahead_.emplace(std::make_pair(a->kind, a->call), a->words).second)
        return refuse("correlation_answer", "a second answer to one call");
      return outbox{};
    }
    const auto& r = party_->request();
    if (a->call != r.call || a->kind != static_cast<std::uint8_t>(r.kind))
      return refuse("correlation_answer", "the answer to another ask");
    asked_ = false;
    try {
      party_->deliver_correction(a->words);
    } catch (const std::exception& e) {
      return refuse("correlation_answer", e.what());
    }
    return pump();
  }
  if (!party_)
    return refuse(message_name(m), "before the dealer's seed");
  return refuse(message_name(m), "not a computing party's message");
}

outcome<outbox> computing_party::start_predict(learners::dataset rows) {
  if (!started_ || waiting_rows_)
    return refuse("predict", "before training, or twice at once");
  waiting_rows_ = std::move(rows);
  // The label holder may finish training or a prediction (and the session
  // ask for the next prediction) before this party has that last round's
  // words: the prediction starts when they have come.
  if (!model_ || predicting_)
    return outbox{};
  begin_predict();
  return pump();
}

void computing_party::begin_predict() {
  // The rows the finished task read are gone only now.
  rows_ = std::move(*waiting_rows_);
  waiting_rows_.reset();
  scores_.reset();
  predicting_.emplace(predict(*party_, *model_, map_, rows_, params_.depth));
  predicting_->start();
}

dealer_role::dealer_role(int parties, std::uint64_t seed,
                         std::vector<mpc::correlation_request> ahead)
    : dealer_(parties, seed), ahead_(std::move(ahead)) {}

outbox dealer_role::start() {
  outbox out;
  const int last = dealer_.parties() - 1;
  for (const auto& r : ahead_)
    out.push_back({last, correlation_answer{static_cast<std::uint8_t>(r.kind),
                                            r.call, dealer_.answer(r)}});
  ahead_.clear();
  for (int p = 0; p < dealer_.parties(); ++p) {
    const auto& key = dealer_.seed_of(p);
    out.push_back({p, dealer_seed{std::vector<std::uint8_t>(
                          key.data(), key.data() + key.size())}});
  }
  return out;
}

outcome<outbox> dealer_role::on_message(party_id from, const message& m) {
  const auto* a = std::get_if<correlation_ask>(&m);
  if (!a)
    return refuse(message_name(m), "not a dealer's message");
  if (from != dealer_.parties() - 1)
    return refuse("correlation_ask", "only the last party asks");
  auto request = request_of(*a);
  if (!request)
    return refuse("correlation_ask", "no such correlation");
  const auto& r = *request;
  if (r.kind == mpc::item::permutation &&
      (r.owner < 0 || r.owner >= dealer_.parties()))
    return refuse("correlation_ask", "no such owner");
  try {
    ++asks_;
    return outbox{
        {from, correlation_answer{a->kind, a->call, dealer_.answer(r)}}};
  } catch (const std::exception& e) {
    return refuse("correlation_ask", e.what());
  }
}

} // namespace veil::protocols::privet
