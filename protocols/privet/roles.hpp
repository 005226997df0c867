#pragma once

// Privet's roles as state machines without I/O (the actors carry their
// messages): a computing party, which runs its side of training or
// prediction as an mpc task and turns each suspension into messages (its
// round's words to every peer, or an ask to the dealer), and the dealer,
// which hands out seeds and answers the last party's asks. A party waits
// for every peer's words of a round before it resumes; words of a later
// round wait in a buffer (a peer may be one round ahead).

#include <map>
#include <memory>
#include <optional>

#include "learners/data/dataset.hpp"
#include "protocols/mpc/dealer.hpp"
#include "protocols/mpc/party.hpp"
#include "protocols/outcome.hpp"
#include "protocols/privet/train.hpp"
#include "protocols/privet/wire.hpp"

namespace veil::protocols::privet {

/// A request on the wire and back (nullopt: no such correlation, or a
/// count or shift out of range).
correlation_ask ask_of(const mpc::correlation_request& r);
std::optional<mpc::correlation_request> request_of(const correlation_ask& a);

class computing_party {
public:
  /// Party `id` of `parties` with its columns `own` of the training rows
  /// (the labels at party 0). `own_seed` 0: its own sharing
  /// randomness from the operating system.
  computing_party(int id, int parties, params p, column_map map,
                  learners::dataset own, std::uint64_t own_seed = 0);
  ~computing_party();
  computing_party(const computing_party&) = delete; // its task refers to it
  computing_party& operator=(const computing_party&) = delete;

  /// Training begins once both this call and the dealer's seed have come
  /// (in either order: the seed may overtake the session's train step).
  outcome<outbox> start();
  outcome<outbox> on_message(party_id from, const message& m);

  bool trained() const { return model_.has_value(); }
  bool training_done() const { return trained(); }
  const party_model& model() const { return *model_; }
  /// Starts a prediction of `rows` (this party's columns of them) after
  /// training (any number of times; asked while training or the previous
  /// prediction is still finishing, it starts after): SecInfer, and the
  /// scores to the label holder (train.hpp's predict).
  outcome<outbox> start_predict(learners::dataset rows);
  bool predicted() const { return scores_.has_value(); }
  bool predict_done() const { return predicted(); }
  /// The rows' raw scores (fixed point) at party 0; empty elsewhere.
  const mpc::words& scores() const { return *scores_; }
  /// The rows' margins (decoded scores) at party 0; empty elsewhere.
  std::vector<double> predicted_margins() const;
  /// Exchanges so far (the online rounds, training and predictions).
  std::uint64_t rounds() const { return round_; }

private:
  outcome<outbox> begin_training();
  void begin_predict();
  outcome<outbox> pump();
  outbox exchange_messages();

  int id_, parties_;
  params params_;
  column_map map_;
  learners::dataset own_, rows_;
  std::uint64_t own_seed_;
  bool started_ = false;
  /// Rows asked for before the training or the previous prediction ended.
  std::optional<learners::dataset> waiting_rows_;
  std::optional<crypto::key32> seed_;
  std::unique_ptr<mpc::party> party_;
  std::optional<mpc::task<party_model>> training_;
  std::optional<mpc::task<mpc::words>> predicting_;
  std::optional<party_model> model_;
  std::optional<mpc::words> scores_;
  std::uint64_t round_ = 0; ///< the exchange this party waits at
  bool asked_ = false;      ///< an ask to the dealer is out
  /// The dealer's answers sent ahead (the last party), by (kind, call).
  std::map<std::pair<std::uint8_t, std::uint64_t>, std::vector<std::uint64_t>>
      ahead_;
  std::map<std::uint64_t, std::map<party_id, std::vector<std::uint64_t>>>
      early_;
};

class dealer_role {
public:
  /// The dealer of `parties` parties; `seed` 0: seeds from the operating
  /// system. `ahead`: the requests it answers before the online phase
  /// (training_requests); anything else it answers when asked.
  dealer_role(int parties, std::uint64_t seed = 0,
              std::vector<mpc::correlation_request> ahead = {});
  /// Answers `requests` ahead, at start() (replacing the constructor's).
  void answer_ahead(std::vector<mpc::correlation_request> requests) {
    ahead_ = std::move(requests);
  }
  /// The answers to the requests known ahead (to the last party), then
  /// every party's seed: the last party's comes after its answers, so it
  /// starts with all of them at hand.
  outbox start();
  outcome<outbox> on_message(party_id from, const message& m);
  /// Words of corrections sent (the seeds besides): the offline traffic.
  std::uint64_t correction_words() const { return dealer_.correction_words(); }
  /// Asks answered on demand (not ahead).
  std::uint64_t asks() const { return asks_; }

private:
  mpc::dealer dealer_;
  std::vector<mpc::correlation_request> ahead_;
  std::uint64_t asks_ = 0;
};

} // namespace veil::protocols::privet
