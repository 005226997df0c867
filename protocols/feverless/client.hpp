#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "learners/binning/bin_matrix.hpp"
#include "learners/binning/quantile_cuts.hpp"
#include "learners/boost/model.hpp"
#include "learners/boost/staged.hpp"
#include "learners/data/dataset.hpp"
#include "learners/hist/gradients.hpp"
#include "learners/tree/regression_tree.hpp"
#include "learners/tree/row_partition.hpp"
#include "protocols/crypto/fixed_point.hpp"
#include "protocols/crypto/hash_chain.hpp"
#include "protocols/crypto/identity.hpp"
#include "protocols/crypto/key_agreement.hpp"
#include "protocols/crypto/lottery.hpp"
#include "protocols/dp/discrete_gaussian.hpp"
#include "protocols/dp/noise_reserve.hpp"
#include "protocols/feverless/accountant.hpp"
#include "protocols/feverless/bucket_split.hpp"
#include "protocols/feverless/params.hpp"
#include "protocols/feverless/wire.hpp"
#include "protocols/outcome.hpp"
#include "protocols/paillier/paillier.hpp"

namespace veil::protocols::feverless {

/// The labels a client holds (spec §3, Def. 1): strictly increasing row
/// indices and their 0/1 labels. Every row's label is held by exactly one
/// client of the session.
struct label_set {
  std::vector<std::uint32_t> rows;
  std::vector<float> labels;
};

/// A client's long-term Ed25519 identity and every client's public identity
/// key, by index (distributed out of band, spec §4.2). Feverless mode only.
struct credentials {
  crypto::identity identity;
  std::vector<crypto::public_key> keys;
};

/// Where every random draw of a client comes from: session keys, query
/// nonces, blindings r, Gaussian noise, volunteer selection. Production
/// passes crypto::system_random; tests pass crypto::seeded_random.
using random_engine = std::function<std::uint64_t()>;

/// A bucket's G and H side by side: one packed addition adds both, each
/// lane exactly as a lone addition would (IEEE doubles; integers mod 2^64).
template <class T>
struct lane_pair {
  typedef T lanes __attribute__((vector_size(2 * sizeof(T))));
  lanes v;
  friend lane_pair operator-(lane_pair a, lane_pair b) { return {a.v - b.v}; }
};
using double_pair = lane_pair<double>;
using fixed_pair = lane_pair<std::uint64_t>;

/// A split this client owns: its feature and threshold never leave it
/// (spec §8.4).
struct owned_split {
  std::int32_t feature = 0;  ///< local column
  std::int32_t bucket = 0;   ///< left iff bucket <= this
  float threshold = 0;       ///< left iff x < threshold
  bool default_left = false; ///< where a missing value goes

  bool goes_left(float x) const {
    return learners::is_missing(x) ? default_left : x < threshold;
  }
};

/// (tree, node) -> the split this client owns there.
using split_table =
    std::map<std::pair<std::int32_t, std::int32_t>, owned_split>;

/// A FEVERLESS client (paper Algorithms 1–5, reconstructed in spec
/// feverless §4–§8): holds feature columns and the labels of some rows, acts
/// as source client for its own features, as candidate and noise leader for
/// the queries of the others, and mirrors the public tree. The plain, LDP
/// and AHE baselines of spec §10.5 run through the same class
/// (params::protocol), and so does the per-batch election of spec §13.3
/// (params::election).
/// A state machine without I/O, clock, threads or logging: it takes one
/// message and returns the messages it wants sent; all randomness comes from
/// the injected engine.
///
/// Peer input is validated (lengths, ids in range, qids known, signatures)
/// and refused with a protocol_error; local input (data, parameters) that
/// cannot work throws veil::input_error from the constructor.
///
/// [D] Missing feature values (the paper has none): rows whose value is
/// missing form one more bucket of their feature, queried like the others,
/// and each split sends them to a learned default side, XGBoost's
/// enumeration (bucket_split.hpp); with noise off the model equals
/// centralized training's on the same data.
/// [D] Failure semantics: every expected message must arrive. A missing one
/// stalls the level and the hosting actor's timeout ends the session;
/// nothing is decoded from an incomplete set and qids are never reused.
/// The RETRY of spec §10.4 (a fresh qid over the live clients) is not done
/// on purpose: a vertical client that is gone takes its labels and its
/// split tables with it, so the survivors would train on without its rows'
/// gradients and leave trees nobody can evaluate (docs/session.md).
class client {
public:
  /// The chain election sends its selections with LEAD, and has no NOTIFY,
  /// up to this many clients (2^(n-3) - 1 bits per unit and receiver: 7 at
  /// 6 clients).
  static constexpr party_id max_hinted_clients = 6;

  /// @param p        session parameters (identical on every client)
  /// @param self     this client's index in [0, parties)
  /// @param parties  n, the number of clients, in [1, 256]
  /// @param features this client's columns (rows aligned across clients; any
  ///                 labels in it are ignored); at most 4096 columns
  /// @param labels   the rows whose labels this client holds
  /// @param creds    required in feverless and ahe mode, ignored otherwise
  /// @param rng      the randomness source
  /// @throws veil::input_error on invalid parameters or data
  client(const params& p, party_id self, party_id parties,
         learners::dataset features, label_set labels,
         std::optional<credentials> creds, random_engine rng);

  /// A client that only predicts (and answers the others' prediction
  /// queries), restored after its session from the public model and its
  /// own split table; `predict` holds its columns of the rows to predict
  /// (the split table's features index them).
  /// @throws veil::input_error if the model or the table does not fit
  static std::unique_ptr<client> restored(party_id self, party_id parties,
                                          learners::model public_model,
                                          split_table own_splits,
                                          learners::dataset predict);

  /// This client's feature columns (its split table's features index
  /// them).
  const std::vector<std::string>& feature_names() const {
    return data_.feature_names();
  }

  /// Starts the session: the key announcement to every other client, then
  /// whatever messages that arrived before start() allow.
  outcome<outbox> start();

  /// Handles one message from client `from` (taken: the role queues it
  /// until its phase without a copy).
  outcome<outbox> on_message(party_id from, message m);

  bool training_done() const { return phase_ == phase::trained; }

  /// Work a message brought that waits until the answer is on its way.
  /// With the chain election a client's LEAD goes out as soon as the
  /// level's batches are in, before it computes its part of every sum (and,
  /// up to max_hinted_clients, its masks; above, its NOTIFY goes out before
  /// them), so the peers' messages travel while it computes. A host sends the
  /// outbox, then calls resume() while this holds; without that, the next
  /// message does the work first. The messages and the model are the same
  /// either way.
  bool has_deferred_work() const {
    return parts_pending_ || masks_ == masks_state::due;
  }
  outcome<outbox> resume() { return advance(); }

  /// Round-by-round training (a session that evaluates every round): after
  /// each tree, the last one included, the client waits between trees
  /// (messages for the next tree queue) until next_tree() or
  /// stop_training(). Before start().
  void pause_between_trees(bool on) { pause_between_trees_ = on; }
  bool pauses_between_trees() const { return pause_between_trees_; }
  bool between_trees() const { return phase_ == phase::between_trees; }
  /// Trees finished so far.
  std::size_t trees_done() const { return model_.trees.size(); }
  /// Begins the next tree (and handles what queued for it).
  /// @throws std::logic_error when not between trees or after the last tree
  outcome<outbox> next_tree();
  /// Ends training between trees, keeping the first `keep` trees (early
  /// stopping keeps the best rounds; the privacy spent stays spent).
  /// @throws std::logic_error when not between trees
  void stop_training(std::size_t keep);

  /// The public model (spec §8.4): structure, owner of each split and leaf
  /// values (eta * w), identical on every client. Splits carry feature -1
  /// and a NaN threshold: those stay with their owner (own_splits()).
  /// Inner nodes hold their (noisy) unscaled weight as value and XGBoost's
  /// loss change 2 (L_split + gamma) as gain; sum_hess is unknown (0).
  const learners::model& model() const { return model_; }
  const split_table& own_splits() const { return own_splits_; }

  /// Noise multiplier per unit sensitivity (0 without noise); final once
  /// the setup is done (a total budget needs every client's feature count).
  double sigma() const { return calib_.sigma; }
  /// The privacy guarantee so far (spec §12.3).
  privacy_report privacy() const { return accountant_.report(); }
  /// Per record: the queries whose released sums contain it so far.
  const std::vector<std::uint32_t>& record_queries() const {
    return accountant_.record_queries();
  }
  /// Where this client's noise draws come from, once the setup fixed the
  /// noise (null before, and without noise): a host may fill it in time it
  /// would idle (dp::noise_reserve::fill), off the queries' path; the
  /// draws are the same either way.
  std::shared_ptr<dp::noise_reserve> noise_reserve() const { return reserve_; }
  /// Non-empty when the stated guarantee is doubtful or absent, e.g. the
  /// classical calibration with epsilon >= 1, plain mode, or noise off.
  const std::string& warning() const { return calib_.warning; }

  // --- Federated prediction (spec §9) ---

  /// This client's columns of the rows others may ask about.
  /// @throws veil::input_error on a column count mismatch or missing values
  void set_predict_data(learners::dataset d);
  /// Starts predicting the rows whose columns of this client are
  /// `own_eval`: walks the public trees, asking each split's owner for the
  /// directions of the rows at its nodes, level by level.
  /// @throws std::logic_error before training ended
  outbox start_predict(learners::dataset own_eval);
  /// The same for the trees from `first_tree` on only, also between trees
  /// (a round's evaluation): predicted_margins() are then those trees' sum.
  outbox start_predict(learners::dataset own_eval, std::size_t first_tree);
  bool predict_done() const { return predict_phase_ == predict_phase::done; }
  /// Margins of the predicted rows (base margin 0 + leaf values).
  const std::vector<double>& predicted_margins() const { return predicted_; }
  /// Their margins after each round (the coordinator's history).
  learners::staged_margins staged_margins() const;

  // --- Test hooks (params::test_hooks; empty otherwise) ---

  /// A query this client sourced (fixed-point modes): its leader (-1 in
  /// ldp mode), its election unit (the qid of the unit's first query),
  /// missing ids, the raw aggregate sum_c G^(c), sum_c H^(c) mod 2^64
  /// before decoding (without the source's own rows), every row of the
  /// bucket, whose labels the released sum covers, and the source's own
  /// noise draw on G (params::source_noise; 0 otherwise).
  struct query_trace {
    std::uint64_t qid = 0;
    party_id leader = -1;
    std::uint64_t unit = 0;
    std::vector<std::uint32_t> ids;
    std::uint64_t raw_g = 0;
    std::uint64_t raw_h = 0;
    std::vector<std::uint32_t> rows;
    std::uint64_t source_g = 0;
    /// What masks it (masks only): word `mask_word` of the pairwise
    /// streams keyed by `mask_key` (signed: its own qid, word 0; chain and
    /// per_batch: the source's first qid of the level, its place there).
    std::uint64_t mask_key = 0;
    std::size_t mask_word = 0;
  };
  const std::vector<query_trace>& traces() const { return traces_; }
  /// The encoded noise this client drew for each query whose aggregate it
  /// entered: as a selected volunteer, or as the leader when n = 2.
  struct noise_draw {
    std::uint64_t g = 0;
    std::uint64_t h = 0;
  };
  const std::map<std::uint64_t, noise_draw>& noise_draws() const {
    return noise_draws_;
  }
  /// For each query this client led: the attempts it took, the volunteers
  /// k̂ of the last attempt, and the k it kept (per_batch: those of the
  /// query's unit).
  struct selection {
    std::uint32_t attempts = 0;
    std::uint32_t volunteers = 0;
    std::uint32_t selected = 0;
  };
  const std::map<std::uint64_t, selection>& selections() const {
    return selections_;
  }
  /// Word `word` of the mask stream this client shares with `peer` under
  /// `key` (PRG(KDF(S, key, ctx))): what a colluder knows of the peer's
  /// mask of the query whose trace names that key and word. Empty unless
  /// test hooks are on and the setup is done.
  std::optional<std::uint64_t> pair_stream(party_id peer, std::uint64_t key,
                                           bool hessian,
                                           std::size_t word = 0) const;
  /// The gradients of this client's labels (label_rows() order).
  std::span<const learners::grad_pair> own_gradients() const { return grads_; }
  const std::vector<std::uint32_t>& label_rows() const { return label_rows_; }

private:
  enum class phase {
    idle,
    announce,
    census,
    query,
    lead,
    thresh,
    noise,
    notify,
    masked,
    gain,
    decide,
    between_trees,
    trained
  };
  enum class predict_phase { none, asking, done };

  /// One query of the current level, as every client sees it.
  struct level_query {
    std::uint64_t qid = 0;
    party_id source = 0;
    std::int32_t node = 0;
    std::uint32_t id_count = 0;         // own or listed queries only
    std::span<const std::uint32_t> ids; // listed only if lists_ids()
    std::uint32_t unit = 0;             // its election unit
    std::uint64_t n_g = 0, n_h = 0;     // encoded noise (as a volunteer)
    // What this client adds to its reply once selected: -r, the blinding of
    // the n + r it offered (the paper's order), or n itself (chain: drawn
    // after selection, docs/feverless-election.md).
    std::uint64_t selected_g = 0, selected_h = 0;
    std::uint64_t noise_g = 0, noise_h = 0; // Ñ_g, Ñ_h (as the leader)
  };

  /// Queries that share one leader election and volunteer selection: one
  /// query (per_query) or a source's whole batch of a level (per_batch).
  struct election_unit {
    std::uint64_t id = 0; // qid of its first query
    party_id source = 0;
    // queries_[first, first + count). 32 bits, as level_query::unit (2^32
    // queries would fill 400 GB), keep a unit in 32 bytes: the election
    // walks every unit of a level several times.
    std::uint32_t first = 0, count = 0;
    party_id leader = -1;
    std::uint32_t attempt = 0;
    bool pending = false; // waits for noise in the current round
    // This client as a candidate.
    bool volunteered = false;
    bool selected = false;
  };

  /// The buckets of one own feature at one frontier node: buckets
  /// `at` .. `at + buckets - 1` of the level's bucket_columns.
  struct own_feature {
    std::size_t node_pos = 0;
    std::int32_t feature = 0;
    std::size_t at = 0, buckets = 0;
    bool missing_slot = false; // last bucket: missing values
  };

  /// The buckets of every own feature of a level, one after another (a
  /// level has thousands of (node, feature) pairs: six vectors each were
  /// most of a run's allocations). Kept across levels for their capacity.
  struct bucket_columns {
    std::vector<std::uint32_t> count;
    std::vector<double> g, h; // plain: exact own part, then + decoded;
                              // otherwise the decoded whole sum
    std::vector<std::uint64_t> own_g, own_h; // fixed point: own part
    std::vector<std::int32_t> query;         // own query index, or -1
    void clear() {
      count.clear();
      g.clear();
      h.clear();
      own_g.clear();
      own_h.clear();
      query.clear();
    }
  };

  /// What the gains decided for a frontier node.
  struct node_plan {
    party_id splitter = -1; // argmax of the gains
    double gain = 0;        // its L_split
    bool split = false;
    party_id weigher = -1; // computes a stopped node's weight, -1: none
  };

  using status = std::optional<protocol_error>;

  /// Pairwise masks over DH seeds: feverless only.
  bool masks() const { return params_.protocol == mode::feverless; }
  /// Whether the H parts are masked too: only where they are not public.
  /// Without noise on H, a client's H part of a query is the sum of the
  /// public margins' hessians over the rows it labels among the query's,
  /// and without hide_labels the first batches' `held` bitmaps publish who
  /// labels which row (a single source that queries nothing, by
  /// elimination): a mask would hide nothing.
  bool masks_h() const;
  /// Leader election and noise injection: feverless and ahe.
  bool elects() const {
    return params_.protocol == mode::feverless || params_.protocol == mode::ahe;
  }
  bool ahe() const { return params_.protocol == mode::ahe; }
  /// The sums live in the fixed point (all but plain mode), where the noise
  /// is added and every non-empty bucket is queried.
  bool fixed_sums() const { return params_.protocol != mode::plain; }
  /// Noise is drawn (fixed-point modes with sigma > 0); final after setup.
  bool noisy() const { return fixed_sums() && calib_.sigma > 0; }
  bool per_batch() const {
    return params_.election == election_scope::per_batch;
  }
  /// One lottery nonce per source batch, not per query: per_batch, and
  /// chain (its tickets come from secret committed elements; the nonce
  /// only keeps a level's digest unpredictable).
  bool batch_nonce() const {
    return params_.election != election_scope::signed_query;
  }
  /// Hash-chain tickets (election_scope::chain) instead of signed ones.
  bool chained() const { return params_.election == election_scope::chain; }
  /// Chain with few clients: each client's LEAD carries its selections
  /// for every volunteer set a receiver may join (wire.hpp, lead_tickets),
  /// so the candidates work out their selection and the level has no
  /// NOTIFY phase. 2^(n-3) - 1 bits per unit and receiver, so only up to
  /// max_hinted_clients.
  bool hinted() const { return chained() && n_ <= max_hinted_clients; }
  /// The election units of source p's queries at this level.
  std::size_t unit_count(party_id p) const {
    return unit_first_[p + 1] - unit_first_[p];
  }
  /// hinted(): the selection flags `leader`'s LEAD carries to `candidate`,
  /// one per set of the candidate's fellow candidates for each unit of the
  /// sources other than these two (the units `leader` may lead and
  /// `candidate` may join).
  std::size_t selection_flags(party_id leader, party_id candidate) const;
  /// One mask stream per (peer, source batch, salt), not per query: every
  /// election but the paper's signed one (level_masks).
  bool vector_masks() const {
    return params_.election != election_scope::signed_query;
  }
  /// Queries keep their lists of missing ids (level_ids_): for the
  /// paper's signed lottery, which hashes them, and for test hooks.
  bool lists_ids() const {
    return params_.election == election_scope::signed_query ||
           params_.test_hooks;
  }
  /// This level's element index on every client's chains (1-based: each
  /// chain has one element per level of the session).
  std::uint64_t chain_index() const;
  std::uint64_t chain_length() const;
  /// The chain tickets of this level for `tag` at `attempt` from a
  /// client's element `x`, one per election unit.
  crypto::ticket_stream level_stream(const crypto::key32& x, std::uint8_t tag,
                                     std::uint32_t attempt) const;
  int peers() const { return n_ - 1; }
  std::size_t expected_index() const;
  const char* phase_name() const;
  void send(outbox& out, party_id to, message m);
  void broadcast(outbox& out, const message& m);
  outcome<outbox> advance();
  status finish_phase(outbox& out);

  status finish_announce(outbox& out);
  void send_census(outbox& out);
  status finish_census(outbox& out);
  void begin_tree(outbox& out);
  void begin_level(outbox& out);
  /// node_counts_ for the frontier, from `bins` (bins_'s rows); `at`: each
  /// query feature's first bucket in a node's counts, and their end.
  template <class Bins>
  void count_buckets(Bins bins, std::span<const std::size_t> at);
  status finish_query(outbox& out);
  status compute_parts();
  void digest_level();
  /// The level, qids and field lengths of source p's batch.
  status check_batch(party_id p) const;
  /// Reads source p's buckets of its missing ids from the session's first
  /// batch into columns_[p].
  status read_columns(party_id p);
  /// Adds up this client's part of source p's queries of the level (and
  /// lists their ids, if lists_ids()).
  status scan_batch(party_id p);
  /// The frontier's nodes, two siblings at a time where it can (as
  /// learners subtract histograms): direct(pos) computes a node from its
  /// rows; for siblings at pos and pos + 1 whose parent is kept_nodes[at]
  /// (the level before), direct(small) computes the one with fewer rows by
  /// size(pos), and derive(small, large, at) the other from its parent's.
  template <class Size, class Direct, class Derive>
  void by_siblings(std::span<const std::int32_t> kept_nodes, Size size,
                   Direct direct, Derive derive) const;
  struct kept_sums;
  /// `kept` for this level, `width` sums (and with `counted`, own label
  /// counts) per frontier node: direct(pos, sums, counts or null) adds up
  /// a node from its own rows into zeroed tables; the larger of two
  /// siblings is its parent's less the smaller's (exact: integers mod
  /// 2^64), as count_buckets does with counts. False, keeping nothing, when
  /// the level's tables would pass params::kept_sums_bytes.
  template <class Direct>
  bool keep_sums(kept_sums& kept, std::size_t width, bool counted,
                 Direct direct);
  /// peer_sums_[p] for this level (keep_sums).
  bool sum_peer_buckets(party_id p, std::size_t slots);
  /// The session's first batch's buckets of every missing id (wire.hpp),
  /// after its queries.
  void announce_columns(query_batch& b) const;
  void send_lead(outbox& out);
  status finish_lead(outbox& out);
  status begin_round(outbox& out);
  status finish_thresh(outbox& out);
  /// The round's pending units (round_units_), and by leader (round_led_).
  void gather_round();
  /// As a candidate: its NOISE offers for the round's pending units.
  void send_offers(outbox& out);
  /// Alg. 5 l.15: how many of k̂ volunteers to keep (1, or ceil(k̂ p) in
  /// portion mode).
  std::size_t kept_count(std::size_t kh) const;
  /// That many of the picks_.size() volunteers, moved to picks_'s front,
  /// uniformly at random (this client's CSPRNG).
  std::size_t choose_volunteers();
  /// Chain: the volunteers of units_[index] into picks_ (client indices,
  /// ascending): the candidates whose NOISE ticket beats its leader's
  /// THRESH ticket at the first attempt where any does, which goes into
  /// u.attempt; both from the level's joint attempt tickets
  /// (level_attempts_). False if none did in max_attempts.
  bool find_volunteers(std::size_t index);
  /// The same volunteers as a mask over the unit's candidates by rank (bit
  /// r: the candidate of rank r), or 0 if none volunteered; for the hinted
  /// election (at most max_hinted_clients clients).
  std::uint32_t volunteer_mask(std::size_t index);
  /// Both their rule: at attempt 0, 1, ..., tally(r, beats) hears whether
  /// each candidate (by rank, starting afresh at r = 0) beats the
  /// threshold and says whether any of the attempt has so far; the first
  /// attempt with any goes into u.attempt. False if none in max_attempts.
  template <class Tally>
  bool first_volunteers(std::size_t index, Tally tally);
  /// Chain, as a leader after LEAD: each unit's volunteers from the
  /// candidates' noise reveals, the selection, and NOTIFY.
  status select_volunteers(outbox& out);
  status no_volunteer() const;
  /// Test hooks: the attempts, k̂ and k of a unit this client leads.
  void record_selection(const election_unit& u, std::size_t kh, std::size_t k);
  /// Chain: as a selected volunteer of u, its draws for u's queries.
  void draw_selected(election_unit& u);
  /// hinted(): this client's selections for the volunteer sets of every
  /// unit it may lead, as each receiver's packed flags (wire.hpp,
  /// lead_tickets).
  std::vector<std::vector<std::uint8_t>> draw_selections();
  /// hinted(), after LEAD: as a candidate, whether it is selected in each
  /// unit, from the leader's selections; the draws; MASKED.
  status select_by_hints(outbox& out);
  status finish_noise(outbox& out);
  status finish_notify(outbox& out);
  void send_masked(outbox& out);
  void send_plain(outbox& out);
  status finish_masked(outbox& out);
  status finish_gain(outbox& out);
  status finish_decide(outbox& out);
  void finish_tree(outbox& out);

  std::vector<std::uint8_t> lottery_in(const election_unit& u, std::uint8_t tag,
                                       std::uint32_t attempt) const;
  void build_units();
  /// sum over the peers other than `source` of ±PRG(KDF(S, qid, ctx)):
  /// this client's mask word for a query of `source` (0 at the source).
  std::uint64_t mask(std::uint64_t qid, const char (&ctx)[9],
                     party_id source) const;
  /// This client's masks for every query of the level (mask_g_, mask_h_):
  /// pairwise among the clients other than the query's source, which
  /// knows its own terms and so strips them anyway.
  void level_masks();
  status finish_encrypted(std::vector<std::uint64_t>& sg,
                          std::vector<std::uint64_t>& sh);
  /// The reserve's lanes: noise on G sums and on H sums.
  enum class noise_lane : std::size_t { g = 0, h = 1 };
  /// Draws a lane's reserve holds at most.
  static constexpr std::size_t noise_reserve_capacity = 4096;
  /// One draw of the lane's noise (0 without noise).
  std::uint64_t draw_noise(noise_lane lane);
  std::int32_t add_node(std::int32_t parent, double weight);
  /// Whether a (noisy) sum over `ids` missing ids with up to `draws` noise
  /// draws is possible: |G| <= ids + noise, -noise <= H <= ids/4 + noise.
  bool in_range(double g, double h, std::size_t ids, int draws) const;
  int noise_draws_max() const;

  outcome<outbox> on_predict_query(party_id from, const predict_query& m);
  outcome<outbox> on_predict_answer(party_id from, const predict_answer& m);
  outbox predict_step();

  struct restore_tag {};
  client(restore_tag, party_id self, party_id parties);

  // Configuration.
  params params_;
  party_id self_;
  party_id n_;
  learners::dataset data_;
  learners::quantile_cuts cuts_;
  learners::bin_matrix bins_;
  std::vector<std::int32_t> query_features_; // own features that can split
  std::vector<bool> has_missing_;            // per own feature
  std::vector<std::uint32_t> label_rows_;
  std::vector<float> labels_;
  std::vector<std::int32_t> own_index_; // row -> index in label_rows_, or -1
  std::optional<credentials> creds_;
  random_engine rng_;
  crypto::fixed_point fp_;

  // Setup.
  std::optional<crypto::session_key> session_key_;
  // Chain election: this client's public and noise chains, and what it
  // knows of every client's (by index; its own unused).
  std::optional<crypto::hash_chain> public_chain_, noise_chain_;
  std::vector<crypto::chain_verifier> public_known_, noise_known_;
  std::vector<std::uint32_t> peer_ids_; // the other clients, ascending
  std::vector<crypto::key32> seeds_;    // pairwise seeds, same order
  // AHE: this client's Paillier key (as a source), every client's public key.
  std::optional<paillier::private_key> paillier_key_;
  std::vector<std::optional<paillier::public_key>> paillier_peers_;
  noise_calibration calib_;
  /// The noise of G and of H sums, in units of 2^-F, by noise_lane
  /// (noisy() only), and the most one draw can add, in value units.
  std::shared_ptr<dp::noise_reserve> reserve_;
  double noise_bound_g_ = 0, noise_bound_h_ = 0;
  privacy_accountant accountant_;
  std::vector<std::uint8_t> own_census_; // this client's census bytes

  // Lockstep delivery: per peer, messages not yet consumed (FIFO per pair)
  // and the message of the current phase.
  phase phase_ = phase::idle;
  // Deferred work (has_deferred_work()): finish_query's sums; the level's
  // masks, due once NOTIFY (hinted(): LEAD) is out and ready until
  // send_masked uses them.
  enum class masks_state { none, due, ready };
  bool parts_pending_ = false;
  masks_state masks_ = masks_state::none;
  std::vector<std::deque<message>> inbox_;
  std::vector<std::optional<message>> got_;

  // Training.
  learners::model model_;
  split_table own_splits_;
  std::vector<double> margins_; // per own label
  std::vector<learners::grad_pair> grads_;
  // The gradients of its labels (label_rows_ order): encoded (fixed-point
  // modes), or as doubles (plain).
  std::vector<std::uint64_t> enc_g_, enc_h_;
  std::vector<double> own_gd_, own_hd_;
  std::int32_t tree_ = -1;
  std::int32_t depth_ = 0;
  learners::regression_tree building_;
  std::vector<double> pending_weight_; // per node: the splitter's weight
  std::vector<int> node_depth_;
  /// Per node of the tree: the queries its records joined on the path to it
  /// (spec §12.3), given to the accountant once per tree at its leaves.
  std::vector<std::uint32_t> node_joined_;
  learners::row_partition partition_;
  std::vector<std::int32_t> frontier_; // ascending node ids
  /// This client's row count per bucket of each query feature at each node
  /// of the level before (`counted_nodes_`, ascending, node after node):
  /// a child's counts are its parent's less its sibling's.
  std::vector<std::uint32_t> node_counts_;
  std::vector<std::int32_t> counted_nodes_;

  // The current level.
  std::vector<query_batch> batches_;     // by client
  std::vector<std::uint32_t> level_ids_; // missing ids, if lists_ids()
  std::vector<std::size_t> ids_at_;      // per query: where its ids start
  /// This client's labels (label_rows_ indices) at the frontier nodes,
  /// node after node, in row order: frontier position k's at own_at_[k] ..
  /// own_at_[k + 1); the rest, up to the row count, is scratch.
  std::vector<std::uint32_t> own_rows_;
  std::vector<std::size_t> own_at_;
  std::vector<std::uint32_t> own_id_counts_; // per own query of the level
  /// What each client's first batch said of its missing ids (its own
  /// included): the features it queries (ascending), per feature the
  /// bucket of each of this client's labels (label_rows_ order), and, only
  /// to list ids, per row whether it holds the label and per feature each
  /// row's bucket (0 where held).
  struct source_columns {
    std::vector<std::int32_t> features;
    std::vector<std::uint8_t> held;
    std::vector<std::vector<std::uint8_t>> own;
    std::vector<std::vector<std::uint8_t>> buckets;
  };
  std::vector<source_columns> columns_;
  /// Fixed point: the sums of this client's labels in each bucket of some
  /// features at each node of a level's frontier, kept for the next
  /// level's siblings (keep_sums).
  struct kept_sums {
    std::int32_t tree = -1, depth = -1;
    std::vector<std::int32_t> nodes;  // that level's frontier
    std::vector<fixed_pair> sums;     // node, feature, bucket
    std::vector<std::uint32_t> owned; // own labels there (own_sums_ only)
  };
  /// Per source: over the source's features (its columns' order).
  std::vector<kept_sums> peer_sums_;
  /// As a source: over query_features_, bucket layout of begin_level.
  kept_sums own_sums_;
  std::vector<level_query> queries_;    // canonical order (ascending qid)
  std::vector<std::size_t> first_;      // first query of each client; n + 1
  std::vector<election_unit> units_;    // canonical order (ascending id)
  std::vector<std::size_t> unit_first_; // first unit of each client; n + 1
  /// Signed tickets (signed, per_batch): what a unit's lottery needs, kept
  /// apart so that the chain's units stay small.
  struct signed_lottery {
    std::vector<std::uint8_t> lottery; // its LEAD lottery input
    crypto::score threshold{};         // the round's threshold
  };
  std::vector<signed_lottery> signed_; // by unit; empty with chain
  signed_lottery& signed_of(const election_unit& u) {
    return signed_[static_cast<std::size_t>(&u - units_.data())];
  }
  const signed_lottery& signed_of(const election_unit& u) const {
    return signed_[static_cast<std::size_t>(&u - units_.data())];
  }
  std::vector<own_feature> own_features_;
  bucket_columns own_buckets_; // own_features_'s buckets
  std::vector<std::vector<std::uint32_t>> own_bucket_rows_; // test hooks
  std::vector<std::uint64_t> own_g_, own_h_;   // own contribution to own qs
  std::vector<std::uint64_t> mask_g_, mask_h_; // per query of the level
  /// This client's part of each query's sums (its labels among the ids;
  /// zero for its own queries), G and H side by side per query: fixed
  /// point, or doubles in plain mode.
  std::vector<std::uint64_t> part_fixed_;
  std::vector<double> part_double_;
  std::vector<std::size_t> round_units_;            // pending this round
  std::vector<std::vector<std::size_t>> round_led_; // ... by leader
  // A unit's volunteers while its leader selects among them (their places,
  // chain: client indices); a member, so a level allocates it once.
  std::vector<std::size_t> picks_;
  /// select_by_hints' lists of unit indices (kept for its capacity).
  std::vector<std::uint32_t> unit_list_;
  std::uint32_t round_ = 0;
  std::uint32_t my_redo_ = 0;
  std::vector<std::uint32_t> redo_by_; // announced per client
  std::vector<bucket_split> best_;     // per frontier position
  std::vector<learners::grad_sum> totals_;
  std::vector<std::uint8_t> has_totals_;
  lead_tickets my_lead_;
  // Chain election: the digest of the level's queries (each source's nonce
  // r, each unit's qid) that every ticket binds, and each client's public-
  // and noise-chain elements of the level (from its LEAD reveals).
  std::array<std::uint8_t, 32> level_digest_{};
  std::vector<crypto::key32> level_public_, level_noise_;
  /// Chain: the level's THRESH and NOISE tickets, under the joint element
  /// of every client's noise reveal (made in finish_lead).
  crypto::attempt_tickets level_attempts_;
  /// Chain: the level's LEAD words, one per unit (its own units' unset with
  /// hints).
  std::vector<std::uint64_t> lead_words_;
  best_gains my_gains_;
  node_decisions my_decisions_;
  std::vector<node_plan> plans_;

  // Prediction.
  learners::dataset predict_data_;
  learners::dataset eval_;
  predict_phase predict_phase_ = predict_phase::none;
  bool pause_between_trees_ = false;
  std::size_t first_tree_ = 0;          // the first tree predicted
  std::vector<std::int32_t> positions_; // tree-major, from first_tree_
  /// This client's splits by tree and node (null: not its own), for
  /// walking the rows to predict without a lookup per row.
  std::vector<std::vector<const owned_split*>> split_at_;
  std::vector<predict_query> asked_; // by client
  std::vector<bool> waiting_;        // by client
  std::vector<double> predicted_;
  std::int32_t predict_step_ = 0;

  // Test hooks.
  std::vector<query_trace> traces_;
  std::map<std::uint64_t, noise_draw> noise_draws_;
  std::map<std::uint64_t, selection> selections_;
};

} // namespace veil::protocols::feverless
