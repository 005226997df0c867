#include "protocols/feverless/client.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <sodium.h>
#include <stdexcept>
#include <type_traits>

#include "learners/input_error.hpp"
#include "learners/objective/objective.hpp"
#include "protocols/crypto/masks.hpp"
#include "protocols/dp/discrete_gaussian.hpp"
#include "protocols/feverless/qid.hpp"

namespace veil::protocols::feverless {

namespace {

// [D] The lottery's mutable counter is replaced by the agreed tuple
// (qid, phase, attempt), spec §7.1 and §17 #7: the phase is the tag.
constexpr std::uint8_t tag_lead = 1;
constexpr std::uint8_t tag_thresh = 2;
constexpr std::uint8_t tag_noise = 3;
// The mask salts 0 and 1 of Alg. 5 l.24–25 as KDF contexts (spec §15.1).
constexpr char ctx_g[9] = "VeilMskG";
constexpr char ctx_h[9] = "VeilMskH";
// The label census's mask (one stream per pair, once per session).
constexpr char ctx_census[9] = "VeilCens";
// [D] A query whose threshold nobody beats is redone (Alg. 5 l.16–17);
// with n - 2 >= 1 candidates each beating a fresh threshold with
// probability 1/2, 64 attempts fail with probability <= 2^-64 per query.
constexpr std::uint32_t max_attempts = 64;

// Every phase is all-to-all, so a peer is at most one phase ahead: at most
// two of its messages wait here. More is a protocol violation.
constexpr std::size_t max_backlog = 4;
/// The clients' inputs together cannot work; every client finds the same.
protocol_error bad_input(std::string step, std::string reason) {
  return {std::move(step), std::move(reason), true};
}

/// A refusal of what client `culprit` sent (which need not be the message
/// that completed the phase).
protocol_error refuse_from(party_id culprit, std::string step,
                           std::string reason) {
  return {std::move(step), std::move(reason), false, culprit};
}

std::string party(party_id p) {
  return "party " + std::to_string(p);
}

template <class T, class V>
struct variant_index;

template <class T, class... Ts>
struct variant_index<T, std::variant<Ts...>> {
  static constexpr std::size_t value = [] {
    constexpr bool match[] = {std::is_same_v<T, Ts>...};
    for (std::size_t i = 0; i < sizeof...(Ts); ++i)
      if (match[i])
        return i;
    return sizeof...(Ts);
  }();
};

template <class T>
constexpr std::size_t index_of = variant_index<T, message>::value;

template <class T>
const T& as(const std::optional<message>& m) {
  return std::get<T>(*m);
}

/// Uniform in [0, n), n > 0, from the 64-bit words next() returns, by
/// dp::uniform_below (Lemire's, exact); no draw for n = 1 (a NOTIFY
/// leader's unit with one volunteer).
template <class Next>
std::uint64_t uniform_below(Next& next, std::uint64_t n) {
  if (n == 1)
    return 0;
  struct words : crypto::word_engine {
    Next& next;
    result_type operator()() { return next(); }
  } w{{}, next};
  return dp::uniform_below(w, n);
}

/// Chain selections in LEAD (client::hinted()): the flags per unit and
/// receiver, one per nonempty set of the unit's other n - 3 candidates.
std::uint32_t flags_per_unit(party_id n) {
  return (std::uint32_t{1} << (n - 3)) - 1;
}

void put_le32(std::vector<std::uint8_t>& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

/// What a key announcement signs (see key_announce).
std::vector<std::uint8_t> announce_bytes(std::uint64_t session, party_id who,
                                         const key_announce& a) {
  auto b = crypto::session_key::announcement(
      session, static_cast<std::uint32_t>(who), a.session_key);
  b.insert(b.end(), a.params_digest.begin(), a.params_digest.end());
  put_le32(b, a.rows);
  put_le32(b, a.labels);
  put_le32(b, a.features);
  // AHE only (the digest fixes the mode, so presence is unambiguous).
  if (!a.paillier_key.empty()) {
    put_le32(b, static_cast<std::uint32_t>(a.paillier_key.size()));
    b.insert(b.end(), a.paillier_key.begin(), a.paillier_key.end());
  }
  // Chain election only (likewise fixed by the digest).
  if (!a.lottery_tips.empty()) {
    put_le32(b, static_cast<std::uint32_t>(a.lottery_tips.size()));
    b.insert(b.end(), a.lottery_tips.begin(), a.lottery_tips.end());
  }
  return b;
}

bool bad_double(double x) {
  return std::isnan(x) || x == inf;
}

/// 32 bytes of key material from the injected engine.
crypto::key32 draw_key(random_engine& rng) {
  crypto::key32 k;
  for (std::size_t i = 0; i < k.size(); i += 8) {
    auto w = rng();
    std::memcpy(k.data() + i, &w, 8);
  }
  return k;
}

/// Adds each of this client's labels k in `own` into its bucket of every
/// feature f: sum[f * slots + column[f][k]] += (g_of[k], h_of[k]), row by
/// row, every feature side by side (independent sums, each in row order).
/// Arguments, not members: the compiler cannot tell the sums' stores from
/// a client's members.
template <class T>
void add_own_labels(lane_pair<T>* sum,
                    std::span<const std::uint8_t* const> column,
                    std::size_t slots, std::span<const std::uint32_t> own,
                    const T* g_of, const T* h_of) {
  for (auto k : own) {
    typename lane_pair<T>::lanes gh = {g_of[k], h_of[k]};
    for (std::size_t f = 0; f < column.size(); ++f)
      sum[f * slots + column[f][k]].v += gh;
  }
}

} // namespace

// ---------------------------------------------------------------------------
// Construction and setup (Alg. 1, Alg. 3; spec §4)

client::client(const params& p, party_id self, party_id parties,
               learners::dataset features, label_set labels,
               std::optional<credentials> creds, random_engine rng)
    : params_(p), self_(self), n_(parties), data_(std::move(features)),
      label_rows_(std::move(labels.rows)), labels_(std::move(labels.labels)),
      creds_(std::move(creds)), rng_(std::move(rng)), fp_(p.frac_bits) {
  params_.validate();
  if (parties < 1 || static_cast<std::uint32_t>(parties) > max_qid_sources)
    throw input_error("feverless: " + std::to_string(parties) +
                      " clients; expected 1 to 256");
  if (self < 0 || self >= parties)
    throw input_error("feverless: client index " + std::to_string(self) +
                      " is not in [0, " + std::to_string(parties) + ")");
  if (!rng_)
    throw input_error("feverless: no random engine given");
  auto m = data_.rows();
  if (m == 0)
    throw input_error("feverless: the training data has no rows");
  if (m >= (std::size_t{1} << 32) - 1)
    throw input_error("feverless: the training data has 2^32 rows or more");
  if (data_.features() >= max_qid_features)
    throw input_error("feverless: a client may hold at most 4095 features, "
                      "this one holds " +
                      std::to_string(data_.features()));
  data_.labels().clear();
  if (label_rows_.size() != labels_.size())
    throw input_error("feverless: " + std::to_string(label_rows_.size()) +
                      " label rows but " + std::to_string(labels_.size()) +
                      " labels");
  own_index_.assign(m, -1);
  for (std::size_t k = 0; k < label_rows_.size(); ++k) {
    auto r = label_rows_[k];
    if (r >= m || (k > 0 && r <= label_rows_[k - 1]))
      throw input_error("feverless: label rows must be strictly increasing "
                        "rows of the data; entry " +
                        std::to_string(k + 1) + " is not");
    if (labels_[k] != 0 && labels_[k] != 1)
      throw input_error("feverless: the label of data row " +
                        std::to_string(r + 1) +
                        " is not 0 or 1 (binary logistic only)");
    own_index_[r] = static_cast<std::int32_t>(k);
  }
  if (elects()) {
    if (!creds_)
      throw input_error("feverless: " + to_string(params_.protocol) +
                        " mode needs credentials");
    if (creds_->keys.size() != static_cast<std::size_t>(parties))
      throw input_error("feverless: expected " + std::to_string(parties) +
                        " identity keys, got " +
                        std::to_string(creds_->keys.size()));
    if (creds_->keys[self] != creds_->identity.public_key_bytes())
      throw input_error("feverless: identity key " + std::to_string(self) +
                        " is not this client's");
  }
  // Alg. 1 l.2–6: buckets fixed once over the training set (spec §4.5).
  cuts_ = learners::quantile_cuts::compute(data_, params_.buckets);
  bins_ = learners::bin_matrix(data_, cuts_);
  // [D] Missing values: one more bucket, bins_'s missing slot bins(f),
  // which must fit the qid's 8-bit bucket field.
  has_missing_.assign(data_.features(), false);
  for (std::size_t f = 0; f < data_.features(); ++f) {
    auto col = data_.column(f);
    has_missing_[f] = std::any_of(col.begin(), col.end(), [](float x) {
      return learners::is_missing(x);
    });
    if (has_missing_[f] &&
        static_cast<std::uint32_t>(cuts_.bins(f)) + 1 > max_qid_buckets)
      throw input_error("feverless: feature \"" + data_.feature_names()[f] +
                        "\" has missing values and " +
                        std::to_string(cuts_.bins(f)) +
                        " buckets; with missing values at most 255 buckets "
                        "fit (feverless.buckets)");
    if (cuts_.bins(f) >= 2 || (cuts_.bins(f) == 1 && has_missing_[f]))
      query_features_.push_back(static_cast<std::int32_t>(f));
  }
  if (!fp_.fits(static_cast<double>(m), 1.0))
    throw input_error("feverless: " + std::to_string(m) +
                      " rows do not fit the fixed-point range at frac_bits "
                      "= " +
                      std::to_string(params_.frac_bits));
  // Provisional: a total budget needs every client's feature count.
  calib_ = calibrate(params_, static_cast<std::uint64_t>(params_.trees) *
                                  params_.max_depth * data_.features());
  inbox_.resize(n_);
  columns_.resize(static_cast<std::size_t>(n_));
  peer_sums_.resize(static_cast<std::size_t>(n_));
  got_.resize(n_);
  redo_by_.assign(n_, 0);
  model_.objective = learners::objective_kind::binary_logistic;
  model_.num_class = 1;
  // [D] XGBoost's base_score 0.5, i.e. margin 0 (spec §4.6).
  model_.base_margin = {0.0};
  model_.weak_learner = "tree";
  margins_.assign(label_rows_.size(), 0.0);
}

outcome<outbox> client::start() {
  if (phase_ != phase::idle)
    throw std::logic_error("feverless::client: started twice");
  key_announce a;
  a.rows = static_cast<std::uint32_t>(data_.rows());
  a.labels = static_cast<std::uint32_t>(label_rows_.size());
  a.features = static_cast<std::uint32_t>(data_.features());
  a.params_digest = params_.digest();
  if (masks()) {
    // Alg. 3: a one-time X25519 key per session, from the injected engine.
    session_key_.emplace(draw_key(rng_));
    a.session_key = session_key_->public_key_bytes();
  }
  if (ahe()) {
    // [D] Spec §10.5: this client's Paillier pair as a source, fresh per
    // session, from the injected engine; the public key travels signed.
    paillier_key_.emplace(paillier::generate_key(params_.paillier_bits, rng_));
    a.paillier_key = paillier_key_->public_part().to_bytes();
  }
  if (elects() && chained()) {
    // The two chains this client commits to for the whole session, from
    // the injected engine (docs/feverless-election.md).
    for (auto* chain : {&public_chain_, &noise_chain_}) {
      chain->emplace(draw_key(rng_), chain_length());
      const auto& tip = (*chain)->tip();
      a.lottery_tips.insert(a.lottery_tips.end(), tip.data(),
                            tip.data() + tip.size());
    }
  }
  if (elects())
    a.sig = creds_->identity.sign(announce_bytes(params_.session, self_, a));
  outbox out;
  broadcast(out, a);
  phase_ = phase::announce;
  auto more = advance();
  if (!more)
    return more.error();
  out.insert(out.end(), std::make_move_iterator(more->begin()),
             std::make_move_iterator(more->end()));
  return out;
}

client::status client::finish_announce(outbox& out) {
  auto digest = params_.digest();
  std::uint64_t labels = label_rows_.size();
  std::uint64_t features = data_.features();
  peer_ids_.clear();
  seeds_.clear();
  paillier_peers_.assign(n_, std::nullopt);
  public_known_.assign(n_, {});
  noise_known_.assign(n_, {});
  for (party_id p = 0; p < n_; ++p) {
    if (p == self_)
      continue;
    const auto& a = as<key_announce>(got_[p]);
    if (a.rows != data_.rows())
      return refuse_from(p, "key_announce",
                         party(p) + " has " + std::to_string(a.rows) +
                             " rows, this client " +
                             std::to_string(data_.rows()));
    if (a.params_digest != digest)
      return refuse_from(p, "key_announce",
                         party(p) + " runs with different parameters");
    if (a.features >= max_qid_features || a.labels > a.rows)
      return refuse_from(p, "key_announce",
                         party(p) + " announced impossible counts");
    labels += a.labels;
    features += a.features;
    if (a.paillier_key.empty() == ahe())
      return refuse_from(p, "key_announce",
                         party(p) + (ahe()
                                         ? " announced no Paillier key"
                                         : " announced an unexpected Paillier "
                                           "key"));
    if (!elects())
      continue;
    // Alg. 3: verify every signature, abort on failure; then S_{c,c'}.
    if (!crypto::verify(creds_->keys[p], announce_bytes(params_.session, p, a),
                        a.sig))
      return refuse_from(p, "key_announce",
                         party(p) + "'s key announcement has a bad signature");
    if (a.lottery_tips.size() != (chained() ? 64u : 0u))
      return refuse_from(p, "key_announce",
                         party(p) + (chained() ? " committed to no hash chains"
                                               : " sent unexpected hash-chain "
                                                 "commitments"));
    if (chained()) {
      crypto::key32 tip;
      std::memcpy(tip.data(), a.lottery_tips.data(), 32);
      public_known_[p] = crypto::chain_verifier(tip, chain_length());
      std::memcpy(tip.data(), a.lottery_tips.data() + 32, 32);
      noise_known_[p] = crypto::chain_verifier(tip, chain_length());
    }
    if (ahe()) {
      auto pk = paillier::public_key::from_bytes(a.paillier_key,
                                                 params_.paillier_bits);
      if (!pk)
        return refuse_from(p, "key_announce",
                           party(p) + " announced an invalid Paillier key");
      paillier_peers_[p] = std::move(*pk);
      continue;
    }
    auto seed =
        session_key_->shared_seed(static_cast<std::uint32_t>(self_),
                                  static_cast<std::uint32_t>(p), a.session_key);
    if (!seed)
      return refuse_from(p, "key_announce",
                         party(p) + " announced an invalid session key");
    peer_ids_.push_back(static_cast<std::uint32_t>(p));
    seeds_.push_back(*seed);
  }
  if (labels != data_.rows())
    return bad_input("key_announce",
                     "the clients hold " + std::to_string(labels) +
                         " labels for " + std::to_string(data_.rows()) +
                         " rows: every row's label must be held by exactly one "
                         "client");
  // Spec §12.3 caveat 2: a record is in one bucket per (node on its path,
  // feature): at most NT * d * f queries.
  auto bound =
      static_cast<std::uint64_t>(params_.trees) * params_.max_depth * features;
  try {
    calib_ = calibrate(params_, bound);
  } catch (const input_error& e) {
    return bad_input("key_announce", e.what());
  }
  if (noisy()) {
    // [D] Exact discrete Gaussian noise in the fixed-point domain: an
    // integer count of 2^-F added to the integer sums, so the guarantee
    // holds for the values actually sent (a real-valued Gaussian rounded
    // to doubles does not give it exactly). Its variance is rounded up to
    // the sampler's grid (more noise, never less), and it is truncated at
    // 40 standard deviations, which moves no probability above 1e-300.
    // One sampler per noise_lane: G, then H (none without hessian noise).
    std::vector<dp::discrete_gaussian> samplers;
    try {
      // One ulp up: the product may round down, the noise must not.
      auto scale = [&](double sensitivity) {
        return std::nextafter(
            std::ldexp(sensitivity * calib_.sigma, params_.frac_bits),
            std::numeric_limits<double>::infinity());
      };
      samplers.push_back(
          dp::discrete_gaussian::at_least(scale(params_.sensitivity_g)));
      if (params_.hessian_noise)
        samplers.push_back(
            dp::discrete_gaussian::at_least(scale(params_.sensitivity_h)));
    } catch (const std::invalid_argument&) {
      return bad_input("key_announce",
                       "the noise does not fit the fixed-point range; lower "
                       "frac_bits or raise epsilon");
    }
    noise_bound_g_ = std::ldexp(static_cast<double>(samplers[0].max_abs()),
                                -params_.frac_bits);
    noise_bound_h_ =
        params_.hessian_noise
            ? std::ldexp(static_cast<double>(samplers[1].max_abs()),
                         -params_.frac_bits)
            : 0;
    // Spec §4.4: max_query_size * max|g| + noise_bound < 2^(63-F); at most
    // n noise draws enter a sum (k <= n - 2 volunteers, the n = 2 leader,
    // or every non-source client in ldp mode; and the source's own).
    double extra = n_ * std::max(noise_bound_g_, noise_bound_h_);
    if (!fp_.fits(static_cast<double>(data_.rows()), 1.0, extra))
      return bad_input("key_announce",
                       "the noise does not fit the fixed-point range; lower "
                       "frac_bits or raise epsilon");
    // ldp sends each partial sum as the double it decodes to: exact below
    // 2^53 units, which the source's re-encoding needs.
    if (params_.protocol == mode::ldp &&
        static_cast<double>(data_.rows()) + extra >=
            std::ldexp(1.0, 53 - params_.frac_bits))
      return bad_input("key_announce",
                       "feverless-ldp: the partial sums do not fit a double "
                       "exactly at frac_bits = " +
                           std::to_string(params_.frac_bits) +
                           "; lower frac_bits or raise epsilon");
    // The draws come from a reserve that the host may fill ahead of need
    // (noise_reserve.hpp), each lane keyed from this client's CSPRNG.
    std::vector<crypto::key32> take_keys, fill_keys;
    for (std::size_t lane = 0; lane < samplers.size(); ++lane) {
      take_keys.push_back(draw_key(rng_));
      fill_keys.push_back(draw_key(rng_));
    }
    reserve_ = std::make_shared<dp::noise_reserve>(
        samplers, take_keys, fill_keys, noise_reserve_capacity);
  }
  accountant_.configure(params_, calib_, bound, data_.rows());
  send_census(out);
  return {};
}

void client::send_census(outbox& out) {
  auto rows = data_.rows();
  label_census c;
  c.holds.assign(rows, 0);
  for (auto r : label_rows_)
    c.holds[r] = 1;
  if (masks() && rows > 0) {
    // Bytes of one ChaCha20 stream per pair, added or subtracted mod 256 by
    // the index order, so that they cancel in the sum over all clients.
    std::vector<std::uint64_t> stream((rows + 7) / 8);
    for (std::size_t k = 0; k < peer_ids_.size(); ++k) {
      crypto::expand(crypto::derive_key(seeds_[k], 0, ctx_census), stream);
      const auto* bytes = reinterpret_cast<const std::uint8_t*>(stream.data());
      bool plus = static_cast<std::uint32_t>(self_) > peer_ids_[k];
      for (std::size_t r = 0; r < rows; ++r)
        c.holds[r] = static_cast<std::uint8_t>(plus ? c.holds[r] + bytes[r]
                                                    : c.holds[r] - bytes[r]);
    }
  }
  broadcast(out, c);
  own_census_ = std::move(c.holds);
  phase_ = phase::census;
}

client::status client::finish_census(outbox& out) {
  auto rows = data_.rows();
  std::vector<std::uint8_t> holders = std::move(own_census_);
  own_census_.clear();
  for (party_id p = 0; p < n_; ++p) {
    if (p == self_)
      continue;
    const auto& c = as<label_census>(got_[p]);
    if (c.holds.size() != rows)
      return refuse_from(p, "label_census",
                         party(p) + " sent " + std::to_string(c.holds.size()) +
                             " rows, this client has " + std::to_string(rows));
    for (std::size_t r = 0; r < rows; ++r) {
      // Unmasked bytes are 0 or 1; others could add up to 1 mod 256.
      if (!masks() && c.holds[r] > 1)
        return refuse_from(p, "label_census",
                           party(p) + " sent a census byte that is not 0 "
                                      "or 1");
      holders[r] = static_cast<std::uint8_t>(holders[r] + c.holds[r]);
    }
  }
  // n <= 256 holders, so a count is 1 mod 256 only when it is 1.
  std::string wrong;
  std::size_t bad = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    if (holders[r] == 1)
      continue;
    if (++bad <= 3)
      wrong +=
          (wrong.empty() ? "" : ", ") + std::string("data row ") +
          std::to_string(r + 1) +
          (holders[r] == 0
               ? (n_ < 256 ? " has no label" : " has no label or 256 labels")
               : " has " + std::to_string(holders[r]) + " labels");
  }
  if (bad > 0)
    return bad_input(
        "label_census",
        "every row's label must be held by exactly one client, but " + wrong +
            (bad > 3 ? " (" + std::to_string(bad) + " rows in all)" : "") +
            " (rows numbered as in the first client's data)");
  begin_tree(out);
  return {};
}

// ---------------------------------------------------------------------------
// Lockstep delivery

std::size_t client::expected_index() const {
  switch (phase_) {
  case phase::announce:
    return index_of<key_announce>;
  case phase::census:
    return index_of<label_census>;
  case phase::query:
    return index_of<query_batch>;
  case phase::lead:
    return index_of<lead_tickets>;
  case phase::thresh:
    return index_of<threshold_tickets>;
  case phase::noise:
    return index_of<noise_offers>;
  case phase::notify:
    return index_of<noise_notice>;
  case phase::masked:
    return masks() ? index_of<masked_sums>
           : ahe() ? index_of<encrypted_sums>
                   : index_of<plain_sums>;
  case phase::gain:
    return index_of<best_gains>;
  case phase::decide:
    return index_of<node_decisions>;
  default:
    return std::variant_size_v<message>;
  }
}

const char* client::phase_name() const {
  switch (phase_) {
  case phase::idle:
    return "idle";
  case phase::announce:
    return "key_announce";
  case phase::census:
    return "label_census";
  case phase::query:
    return "query";
  case phase::lead:
    return "lead";
  case phase::thresh:
    return "thresh";
  case phase::noise:
    return "noise";
  case phase::notify:
    return "notify";
  case phase::masked:
    return masks() ? "masked" : ahe() ? "encrypted" : "plain_sums";
  case phase::gain:
    return "gain";
  case phase::decide:
    return "split";
  case phase::between_trees:
    return "between_trees";
  case phase::trained:
    return "trained";
  }
  return "?";
}

void client::send(outbox& out, party_id to, message m) {
  out.push_back({to, std::move(m)});
}

void client::broadcast(outbox& out, const message& m) {
  for (party_id p = 0; p < n_; ++p)
    if (p != self_)
      send(out, p, m);
}

outcome<outbox> client::on_message(party_id from, message m) {
  if (from < 0 || from >= n_ || from == self_)
    return refuse(message_name(m), "from unknown " + party(from));
  if (auto* f = std::get_if<failure>(&m))
    return refuse(f->step, party(from) + " failed: " + f->reason);
  if (auto* q = std::get_if<predict_query>(&m))
    return on_predict_query(from, *q);
  if (auto* a = std::get_if<predict_answer>(&m))
    return on_predict_answer(from, *a);
  if (phase_ == phase::trained)
    return refuse_from(from, message_name(m),
                       party(from) + " sent a training message after training");
  auto& box = inbox_[from];
  if (box.size() >= max_backlog)
    return refuse_from(from, message_name(m),
                       party(from) + " is too many steps ahead");
  box.push_back(std::move(m));
  return advance();
}

outcome<outbox> client::advance() {
  outbox out;
  while (phase_ != phase::idle && phase_ != phase::trained &&
         phase_ != phase::between_trees) {
    if (parts_pending_)
      if (auto err = compute_parts())
        return *err;
    if (masks_ == masks_state::due)
      level_masks();
    bool complete = true;
    for (party_id p = 0; p < n_; ++p) {
      if (p == self_ || got_[p])
        continue;
      auto& box = inbox_[p];
      if (box.empty()) {
        complete = false;
        continue;
      }
      if (box.front().index() != expected_index())
        return refuse_from(p, message_name(box.front()),
                           party(p) + " sent it while " +
                               std::string(phase_name()) + " messages are due");
      got_[p] = std::move(box.front());
      box.pop_front();
    }
    if (!complete)
      break;
    auto err = finish_phase(out);
    for (auto& g : got_)
      g.reset();
    if (err)
      return *err;
    if (has_deferred_work())
      break; // out goes first
  }
  if (phase_ == phase::trained)
    for (party_id p = 0; p < n_; ++p)
      if (!inbox_[p].empty())
        return refuse_from(p, message_name(inbox_[p].front()),
                           party(p) +
                               " sent a training message after training");
  return out;
}

client::status client::finish_phase(outbox& out) {
  switch (phase_) {
  case phase::announce:
    return finish_announce(out);
  case phase::census:
    return finish_census(out);
  case phase::query:
    return finish_query(out);
  case phase::lead:
    return finish_lead(out);
  case phase::thresh:
    return finish_thresh(out);
  case phase::noise:
    return finish_noise(out);
  case phase::notify:
    return finish_notify(out);
  case phase::masked:
    return finish_masked(out);
  case phase::gain:
    return finish_gain(out);
  case phase::decide:
    return finish_decide(out);
  default:
    return refuse(phase_name(), "no messages are due");
  }
}

// ---------------------------------------------------------------------------
// Trees and levels (Alg. 2)

std::int32_t client::add_node(std::int32_t parent, double weight) {
  auto id = static_cast<std::int32_t>(building_.nodes.size());
  learners::tree_node n;
  n.parent = parent;
  n.value = static_cast<float>(weight);
  building_.nodes.push_back(n);
  pending_weight_.push_back(weight);
  node_depth_.push_back(parent < 0 ? 0 : node_depth_[parent] + 1);
  node_joined_.push_back(parent < 0 ? 0 : node_joined_[parent]);
  return id;
}

void client::begin_tree(outbox& out) {
  ++tree_;
  depth_ = 0;
  // Alg. 2 l.5–8: gradients of the labels this client holds (Eq. 2, 3),
  // with learners' logistic formulas (float g, h >= 1e-16).
  grads_.resize(label_rows_.size());
  learners::objective obj(learners::objective_kind::binary_logistic);
  obj.gradients(labels_, margins_, grads_);
  // Sums read these by own label (label_rows_ order), side by side with
  // the buckets of those rows: small arrays, read in order.
  if (fixed_sums()) {
    // Spec §4.4: each g_i, h_i encoded on its own; sums of the integers
    // are exact. [D] g = p - y is encoded as enc(p) - y 2^F, with p the
    // gradient the learners give for label 0: changing a label then moves
    // the encoded g by exactly 2^F (Δ_g = 1 in the fixed point, where the
    // noise is added), and |enc(g)| <= 2^F, enc(h) <= 2^F / 4.
    std::vector<float> zeros(label_rows_.size(), 0.0f);
    std::vector<learners::grad_pair> at_zero(label_rows_.size());
    obj.gradients(zeros, margins_, at_zero);
    const auto one =
        static_cast<std::uint64_t>(std::int64_t{1} << params_.frac_bits);
    enc_g_.resize(grads_.size());
    enc_h_.resize(grads_.size());
    for (std::size_t k = 0; k < grads_.size(); ++k) {
      auto g = fp_.encode(at_zero[k].g).value();
      enc_g_[k] = labels_[k] == 1 ? g - one : g;
      enc_h_[k] = fp_.encode(grads_[k].h).value();
    }
  } else {
    own_gd_.resize(grads_.size());
    own_hd_.resize(grads_.size());
    for (std::size_t k = 0; k < grads_.size(); ++k) {
      own_gd_[k] = grads_[k].g;
      own_hd_[k] = grads_[k].h;
    }
  }
  building_ = {};
  pending_weight_.clear();
  node_depth_.clear();
  node_joined_.clear();
  add_node(-1, 0.0);
  std::vector<std::uint32_t> rows(data_.rows());
  std::iota(rows.begin(), rows.end(), 0u);
  partition_ = learners::row_partition(std::move(rows));
  frontier_ = {0};
  begin_level(out);
}

void client::announce_columns(query_batch& b) const {
  if (b.qids.empty())
    return; // nothing queried, nothing to name: its labels stay its own
  bool hide = params_.hide_labels;
  auto m = data_.rows();
  std::vector<std::uint8_t> held(m, 0);
  std::size_t missing = m;
  if (!hide)
    for (auto r : label_rows_) {
      held[r] = 1;
      --missing;
    }
  append_bits(b.held, held);
  // Exactly the features queried at the root (their buckets are its
  // queries' ids): no later node queries another.
  for (std::size_t i = 0; i < b.qids.size(); ++i) {
    auto f = static_cast<std::int32_t>(unpack_qid(b.qids[i]).feature);
    if (b.features.empty() || b.features.back() != f)
      b.features.push_back(f);
  }
  b.buckets.resize(b.features.size() * missing);
  auto* out = b.buckets.data();
  for (auto f : b.features)
    for (std::size_t r = 0; r < m; ++r)
      if (!held[r])
        *out++ = static_cast<std::uint8_t>(bins_.bin(r, f));
}

template <class Size, class Direct, class Derive>
void client::by_siblings(std::span<const std::int32_t> kept_nodes, Size size,
                         Direct direct, Derive derive) const {
  // Two siblings are on the frontier together, side by side, or not at all
  // (same depth, consecutive ids).
  for (std::size_t pos = 0; pos < frontier_.size();) {
    auto parent =
        building_.nodes[static_cast<std::size_t>(frontier_[pos])].parent;
    auto before =
        std::lower_bound(kept_nodes.begin(), kept_nodes.end(), parent);
    bool pair =
        parent >= 0 && before != kept_nodes.end() && *before == parent &&
        pos + 1 < frontier_.size() &&
        building_.nodes[static_cast<std::size_t>(frontier_[pos + 1])].parent ==
            parent;
    if (!pair) {
      direct(pos++);
      continue;
    }
    auto small = size(pos + 1) < size(pos) ? pos + 1 : pos;
    direct(small);
    derive(small, 2 * pos + 1 - small,
           static_cast<std::size_t>(before - kept_nodes.begin()));
    pos += 2;
  }
}

template <class Bins>
void client::count_buckets(Bins bins, std::span<const std::size_t> at) {
  // Two siblings are on the frontier together or not at all (same depth):
  // the child with fewer rows is counted, the other is its parent's counts
  // less its own (exact: integers), as learners subtract histograms.
  auto nf = query_features_.size();
  auto total = at[nf];
  auto stride = bins_.features();
  const auto* features = query_features_.data();
  std::vector<std::uint32_t> counts(frontier_.size() * total);
  std::vector<std::uint32_t> copies(4 * total);
  auto count_rows = [&](std::size_t pos) {
    // Four copies, a row's copy by its place: a skewed feature's rows fall
    // in one bucket one after another, and each increment would wait on
    // the one before.
    std::fill(copies.begin(), copies.end(), 0u);
    auto* c = copies.data();
    std::size_t t = 0;
    for (auto r : partition_.rows_of(frontier_[pos])) {
      const auto* row = bins.data() + r * stride;
      auto* copy = c + (t++ % 4) * total;
      for (std::size_t i = 0; i < nf; ++i)
        ++copy[at[i] + row[features[i]]];
    }
    auto* out = counts.data() + pos * total;
    for (std::size_t z = 0; z < total; ++z)
      out[z] = c[z] + c[total + z] + c[2 * total + z] + c[3 * total + z];
  };
  by_siblings(
      counted_nodes_,
      [&](std::size_t pos) { return partition_.size(frontier_[pos]); },
      count_rows,
      [&](std::size_t small, std::size_t large, std::size_t parent) {
        const auto* whole = node_counts_.data() + parent * total;
        const auto* part = counts.data() + small * total;
        auto* rest = counts.data() + large * total;
        for (std::size_t z = 0; z < total; ++z)
          rest[z] = whole[z] - part[z];
      });
  node_counts_ = std::move(counts);
  counted_nodes_ = frontier_;
}

void client::begin_level(outbox& out) {
  // Alg. 2 l.13–18: this client as source. [A] one query per (node,
  // source, feature, bucket) (spec §6 notes, §17 #12) over the bucket's
  // rows whose labels it does not hold (mIDs, §17 #11), or with
  // hide_labels over all its rows (§10.1). [D] The ids are not listed: the
  // session's first batch gives every missing id's buckets once
  // (wire.hpp), and a qid names the rest.
  bool hide = params_.hide_labels;
  own_features_.clear();
  own_buckets_.clear();
  own_bucket_rows_.clear();
  own_id_counts_.clear();
  query_batch b;
  b.tree = tree_;
  b.depth = depth_;
  // This client's labels at each frontier node, in row order. Written
  // whether own or not, kept only if own: a quarter of the rows are, at
  // random, so a branch would be mispredicted often.
  own_rows_.resize(data_.rows() + 1);
  own_at_.assign(frontier_.size() + 1, 0);
  std::size_t kept = 0;
  const auto* own_index = own_index_.data();
  auto* own = own_rows_.data();
  for (std::size_t pos = 0; pos < frontier_.size(); ++pos) {
    own_at_[pos] = kept;
    for (auto r : partition_.rows_of(frontier_[pos])) {
      auto k = own_index[r];
      own[kept] = static_cast<std::uint32_t>(k);
      kept += k >= 0 ? 1 : 0;
    }
  }
  // Not shrunk to `kept`: the next level's resize would zero the rest.
  own_at_[frontier_.size()] = kept;
  // Each feature's buckets at `at[i]` .. `at[i + 1]` of the flat
  // per-node sums (its bins plus the missing values' slot, bins_'s
  // bins(f)).
  auto nf = query_features_.size();
  std::vector<std::size_t> at(nf + 1, 0);
  for (std::size_t i = 0; i < nf; ++i) {
    auto f = static_cast<std::size_t>(query_features_[i]);
    at[i + 1] = at[i] + static_cast<std::size_t>(cuts_.bins(f)) +
                (has_missing_[f] ? 1 : 0);
  }
  auto total = at[nf];
  std::vector<std::uint32_t> miss(total);
  std::vector<fixed_pair> own_fixed;
  std::vector<double_pair> own_double;
  std::vector<std::uint32_t> owned;
  auto stride = bins_.features();
  bins_.visit([&](auto bins) {
    const auto* features = query_features_.data();
    count_buckets(bins, std::span<const std::size_t>(at));
    // Row by row, every feature side by side (independent sums): the own
    // part of each bucket's sums in row order, and how many of its labels
    // are own, for the node at `pos`, into zeroed `sum` and `owned`.
    auto add_own = [&](std::size_t pos, auto* sum, std::uint32_t* owned_at,
                       const auto* g_of, const auto* h_of) {
      using pair = std::remove_pointer_t<decltype(sum)>;
      for (auto k : std::span(own_rows_.data() + own_at_[pos],
                              own_at_[pos + 1] - own_at_[pos])) {
        const auto* row = bins.data() + label_rows_[k] * stride;
        typename pair::lanes gh = {g_of[k], h_of[k]};
        for (std::size_t i = 0; i < nf; ++i) {
          auto z = at[i] + row[features[i]];
          ++owned_at[z];
          sum[z].v += gh;
        }
      }
    };
    bool tables =
        fixed_sums() &&
        keep_sums(own_sums_, total, true,
                  [&](std::size_t pos, fixed_pair* sum, std::uint32_t* o) {
                    add_own(pos, sum, o, enc_g_.data(), enc_h_.data());
                  });
    for (std::size_t pos = 0; pos < frontier_.size(); ++pos) {
      auto node = frontier_[pos];
      auto rows = partition_.rows_of(node);
      auto count = std::span(node_counts_.data() + pos * total, total);
      const fixed_pair* node_fixed = nullptr;
      const std::uint32_t* node_owned = nullptr;
      if (tables) {
        node_fixed = own_sums_.sums.data() + pos * total;
        node_owned = own_sums_.owned.data() + pos * total;
      } else {
        owned.assign(total, 0);
        if (fixed_sums()) {
          own_fixed.assign(total, fixed_pair{});
          add_own(pos, own_fixed.data(), owned.data(), enc_g_.data(),
                  enc_h_.data());
          node_fixed = own_fixed.data();
        } else {
          own_double.assign(total, double_pair{});
          add_own(pos, own_double.data(), owned.data(), own_gd_.data(),
                  own_hd_.data());
        }
        node_owned = owned.data();
      }
      // Missing ids: the bucket's rows whose labels are not own, or all
      // of them with hide_labels.
      for (std::size_t z = 0; z < total; ++z)
        miss[z] = hide ? count[z] : count[z] - node_owned[z];
      for (std::size_t i = 0; i < nf; ++i) {
        auto f = features[i];
        auto nb = at[i + 1] - at[i];
        auto first = static_cast<std::ptrdiff_t>(at[i]);
        auto last = static_cast<std::ptrdiff_t>(at[i + 1]);
        // [D] A feature whose node rows fill fewer than two buckets has no
        // candidate with two non-empty children: its sums would be
        // released for nothing, so it is not queried at this node.
        if (std::count_if(count.begin() + first, count.begin() + last,
                          [](std::uint32_t c) { return c > 0; }) < 2)
          continue;
        own_feature of;
        of.node_pos = pos;
        of.feature = f;
        of.missing_slot = has_missing_[static_cast<std::size_t>(f)];
        auto& ob = own_buckets_;
        of.at = ob.count.size();
        of.buckets = nb;
        ob.count.insert(ob.count.end(), count.begin() + first,
                        count.begin() + last);
        ob.own_g.resize(of.at + nb, 0);
        ob.own_h.resize(of.at + nb, 0);
        ob.g.resize(of.at + nb, 0);
        ob.h.resize(of.at + nb, 0);
        for (std::size_t z = 0; z < nb; ++z)
          if (fixed_sums()) {
            ob.own_g[of.at + z] = node_fixed[at[i] + z].v[0];
            ob.own_h[of.at + z] = node_fixed[at[i] + z].v[1];
          } else {
            ob.g[of.at + z] = own_double[at[i] + z].v[0];
            ob.h[of.at + z] = own_double[at[i] + z].v[1];
          }
        ob.query.resize(of.at + nb, -1);
        for (std::size_t z = 0; z < nb; ++z) {
          // [D] Every non-empty bucket is queried when the sums carry
          // noise: one whose labels the source all holds (empty mIDs) is
          // queried with no ids, so that its sum gets the protocol's noise
          // like any other (the spec's always_query, §6 notes, made the
          // rule). Its exact sum would otherwise reach every client
          // through the gains and leaf weights (a one-row leaf gives its
          // label away). Plain mode releases exact sums anyway and skips
          // it.
          auto missing = miss[at[i] + z];
          if (ob.count[of.at + z] == 0 || (missing == 0 && !fixed_sums()))
            continue;
          if (params_.test_hooks) {
            std::vector<std::uint32_t> bucket;
            for (auto r : rows)
              if (static_cast<std::size_t>(bins_.bin(r, f)) == z)
                bucket.push_back(r);
            own_bucket_rows_.push_back(std::move(bucket));
          }
          auto qid = pack_qid({static_cast<std::uint32_t>(tree_),
                               static_cast<std::uint32_t>(self_),
                               static_cast<std::uint32_t>(node),
                               static_cast<std::uint32_t>(f),
                               static_cast<std::uint32_t>(z)});
          ob.query[of.at + z] = static_cast<std::int32_t>(b.qids.size());
          b.qids.push_back(qid.value()); // fits: checked in params / ctor
          own_id_counts_.push_back(missing);
          if (elects() && !batch_nonce()) {
            // [D] The lottery nonce r: the source draws 32 random bytes
            // per query and broadcasts them (spec §7.1, §17 #8).
            for (int w = 0; w < 4; ++w) {
              auto x = rng_();
              for (int k = 0; k < 8; ++k)
                b.nonces.push_back(static_cast<std::uint8_t>(x >> (8 * k)));
            }
          }
        }
        own_features_.push_back(of);
      }
    }
  });
  if (tree_ == 0 && depth_ == 0)
    announce_columns(b);
  if (elects() && batch_nonce() && !b.qids.empty()) {
    // [D] per_batch and chain: one lottery nonce for the batch (spec
    // §13.3; docs/feverless-election.md).
    for (int w = 0; w < 4; ++w) {
      auto x = rng_();
      for (int i = 0; i < 8; ++i)
        b.nonces.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
    }
  }
  accountant_.caused(b.qids.size());
  batches_.assign(n_, {});
  broadcast(out, b);
  batches_[self_] = std::move(b);
  phase_ = phase::query;
}

client::status client::finish_query(outbox& out) {
  // The level's queries in canonical order: by source, then the source's
  // (ascending) order; qids are therefore ascending overall.
  queries_.clear();
  first_.assign(n_ + 1, 0);
  // Spec §12.3: a record joins one query per feature queried at its node,
  // whoever labels it (every non-empty bucket of a queried feature is
  // released): count the (source, feature) pairs of each node
  // (node_joined_; a refused batch ends the session).
  for (party_id p = 0; p < n_; ++p) {
    first_[p] = queries_.size();
    if (p != self_) {
      batches_[p] = std::move(std::get<query_batch>(*got_[p]));
      if (auto err = check_batch(p))
        return err;
    }
    const auto& b = batches_[p];
    for (std::size_t i = 0; i < b.qids.size(); ++i) {
      level_query q;
      q.qid = b.qids[i];
      q.source = p;
      q.node = static_cast<std::int32_t>(unpack_qid(b.qids[i]).node);
      queries_.push_back(q);
      // qids ascend by (node, feature, bucket) within a source.
      if (i == 0 || q.node != queries_[queries_.size() - 2].node ||
          unpack_qid(b.qids[i]).feature != unpack_qid(b.qids[i - 1]).feature)
        ++node_joined_[static_cast<std::size_t>(q.node)];
    }
  }
  first_[n_] = queries_.size();
  if (elects() && chained() && n_ > 2 && !queries_.empty()) {
    // The level's reveals depend on no sum: they go out now, and this
    // client's parts are computed while the peers' LEADs travel.
    build_units();
    digest_level();
    send_lead(out);
    phase_ = phase::lead;
    parts_pending_ = true;
    if (hinted() && masks())
      masks_ = masks_state::due; // no NOTIFY to compute them behind
    return {};
  }
  if (auto err = compute_parts())
    return err;
  if (!elects()) {
    send_plain(out);
    phase_ = phase::masked;
    return {};
  }
  build_units();
  if (n_ == 2 || queries_.empty()) {
    // [D] n = 2 (spec §7.4, §17 #22): Cand is empty, so the only
    // non-source client leads without an election (one candidate decides
    // nothing) and draws the single noise itself, with r = 0.
    for (auto& u : units_)
      u.leader = u.source == 0 ? 1 : 0;
    for (auto& q : queries_) {
      if (units_[q.unit].leader != self_)
        continue;
      q.noise_g = draw_noise(noise_lane::g);
      q.noise_h = draw_noise(noise_lane::h);
      if (params_.test_hooks) {
        noise_draws_[q.qid] = {q.noise_g, q.noise_h};
        selections_[q.qid] = {1, 0, 1};
      }
    }
    send_masked(out);
    phase_ = phase::masked;
    return {};
  }
  // signed and per_batch (chain's LEAD went out above): the tickets
  // hash the missing ids, so they follow the parts.
  for (auto& u : units_)
    signed_of(u).lottery = lottery_in(u, tag_lead, 0);
  send_lead(out);
  phase_ = phase::lead;
  return {};
}

client::status client::compute_parts() {
  parts_pending_ = false;
  // This client's part of every other source's sums (plain mode's double
  // sums in row order, as lists of ids gave them); the missing ids listed
  // where a lottery hashes them (signed) or test hooks show them.
  if (tree_ == 0 && depth_ == 0)
    for (party_id p = 0; p < n_; ++p)
      if (auto err = read_columns(p))
        return err;
  if (fixed_sums())
    part_fixed_.assign(2 * queries_.size(), 0);
  else
    part_double_.assign(2 * queries_.size(), 0.0);
  level_ids_.clear();
  ids_at_.assign(queries_.size(), 0);
  for (party_id p = 0; p < n_; ++p)
    if (auto err = scan_batch(p))
      return err;
  for (std::size_t k = 0; k < own_id_counts_.size(); ++k)
    queries_[first_[self_] + k].id_count = own_id_counts_[k];
  if (lists_ids())
    for (std::size_t k = 0; k < queries_.size(); ++k)
      queries_[k].ids = {level_ids_.data() + ids_at_[k], queries_[k].id_count};
  accountant_.count_queries(queries_.size());
  accountant_.answered(queries_.size() - (first_[self_ + 1] - first_[self_]));
  return {};
}

void client::digest_level() {
  // Every round's tickets of this level bind each source's nonce r and
  // each unit's qid. The qid fixes the ids (the buckets of the session's
  // first batch and the public splits, wire.hpp); a secret committed
  // element and a fresh r suffice (docs/feverless-election.md).
  //
  // Per source: r, the number of qids, the first qid, then each qid's
  // step from the one before (they ascend), all but r as LEB128 varints:
  // the same qids in one encoding per list, in about a byte each where
  // hashing 8 bytes a qid was BLAKE2b's time.
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, level_digest_.size());
  std::array<unsigned char, 4096> bytes;
  std::size_t used = 0;
  auto flush = [&] {
    crypto_generichash_update(&st, bytes.data(), used);
    used = 0;
  };
  auto put = [&](std::uint64_t v) {
    if (used > bytes.size() - 10) // room for a 64-bit varint
      flush();
    for (; v >= 0x80; v >>= 7)
      bytes[used++] = static_cast<unsigned char>(v | 0x80);
    bytes[used++] = static_cast<unsigned char>(v);
  };
  for (party_id p = 0; p < n_; ++p) {
    const auto& qids = batches_[p].qids;
    if (qids.empty())
      continue;
    crypto_generichash_update(&st, batches_[p].nonces.data(), 32);
    put(qids.size());
    put(qids[0]);
    for (std::size_t i = 1; i < qids.size(); ++i)
      put(qids[i] - qids[i - 1]);
    flush();
  }
  crypto_generichash_final(&st, level_digest_.data(), level_digest_.size());
}

client::status client::check_batch(party_id p) const {
  const auto& b = batches_[p];
  auto k = b.qids.size();
  if (b.tree != tree_ || b.depth != depth_)
    return refuse_from(p, "query",
                       party(p) + "'s queries are for another level");
  std::size_t nonces = !elects()       ? 0
                       : batch_nonce() ? (k > 0 ? 32 : 0)
                                       : 32 * k;
  bool first = tree_ == 0 && depth_ == 0;
  if (b.nonces.size() != nonces ||
      (!first &&
       (!b.features.empty() || !b.held.empty() || !b.buckets.empty())))
    return refuse_from(p, "query", party(p) + "'s field lengths differ");
  std::size_t at = 0; // frontier_[at] <= the node of qid i
  for (std::size_t i = 0; i < k; ++i) {
    if (i > 0 && b.qids[i] <= b.qids[i - 1])
      return refuse_from(p, "query",
                         party(p) + "'s qids are not strictly increasing");
    auto c = unpack_qid(b.qids[i]);
    if (c.tree != static_cast<std::uint32_t>(tree_) ||
        c.source != static_cast<std::uint32_t>(p) ||
        c.bucket > static_cast<std::uint32_t>(params_.buckets)) // + missing
      return refuse_from(
          p, "query", party(p) + " sent a qid that does not match its query");
    // The qids ascend, and so do their nodes: one pass over the frontier
    // (ascending) instead of a search per qid.
    auto node = static_cast<std::int32_t>(c.node);
    while (at < frontier_.size() && frontier_[at] < node)
      ++at;
    if (at == frontier_.size() || frontier_[at] != node)
      return refuse_from(
          p, "query", party(p) + " queried a node that is not on the frontier");
  }
  return {};
}

client::status client::read_columns(party_id p) {
  const auto& b = batches_[p];
  auto m = data_.rows();
  auto lengths = [&] {
    return refuse_from(p, "query", party(p) + "'s field lengths differ");
  };
  for (std::size_t i = 0; i < b.features.size(); ++i)
    if (b.features[i] < 0 ||
        static_cast<std::uint32_t>(b.features[i]) >= max_qid_features ||
        (i > 0 && b.features[i] <= b.features[i - 1]))
      return refuse_from(p, "query",
                         party(p) + "'s features are not strictly "
                                    "increasing feature indices");
  // A source that queries nothing sends nothing, not even its labels.
  if (b.features.empty())
    return b.held.empty() && b.buckets.empty() ? status{} : lengths();
  if (b.held.size() != packed_size(m))
    return lengths();
  // Each byte indexes the bucket -> query tables of scan_batch: the
  // buckets and the missing values' slot only.
  auto slots = static_cast<std::size_t>(std::min(params_.buckets + 1, 256));
  if (std::any_of(b.buckets.begin(), b.buckets.end(),
                  [&](std::uint8_t z) { return z >= slots; }))
    return refuse_from(p, "query", party(p) + " sent a bucket out of range");
  auto& c = columns_[p];
  c.features = b.features;
  auto held = unpack_bits(b.held, 0, m);
  std::size_t missing = 0;
  for (std::size_t r = 0; r < m; ++r) {
    if (!held[r]) {
      ++missing;
      continue;
    }
    if (p != self_ && (params_.hide_labels || own_index_[r] >= 0))
      return refuse_from(p, "query",
                         party(p) + " claims the label of a row it does not "
                                    "hold");
  }
  if (b.buckets.size() != b.features.size() * missing)
    return lengths();
  // By own label (what its sums read), and by row (0 where p holds the
  // label) only to list ids.
  std::vector<std::uint8_t> column(m, 0);
  const auto* in = b.buckets.data();
  c.own.assign(b.features.size(), {});
  c.buckets.assign(lists_ids() ? b.features.size() : 0, {});
  for (std::size_t i = 0; i < b.features.size(); ++i) {
    for (std::size_t r = 0; r < m; ++r)
      if (!held[r])
        column[r] = *in++;
    c.own[i].resize(label_rows_.size());
    for (std::size_t k = 0; k < label_rows_.size(); ++k)
      c.own[i][k] = column[label_rows_[k]];
    if (lists_ids())
      c.buckets[i] = column;
  }
  if (lists_ids())
    c.held = std::move(held);
  return {};
}

template <class Direct>
bool client::keep_sums(kept_sums& kept, std::size_t width, bool counted,
                       Direct direct) {
  // Kept only up to params::kept_sums_bytes: more (many features or
  // buckets, deep levels) and the caller sums each node by itself.
  auto bytes = sizeof(fixed_pair) + (counted ? sizeof(std::uint32_t) : 0);
  if (frontier_.size() * width * bytes > params_.kept_sums_bytes) {
    kept = {};
    return false;
  }
  std::vector<fixed_pair> sums(frontier_.size() * width);
  std::vector<std::uint32_t> owned(counted ? sums.size() : 0);
  // Parents only from the level before, of this tree (node ids restart
  // with each tree), with tables of the same shape.
  bool follows = kept.tree == tree_ && kept.depth + 1 == depth_ &&
                 kept.sums.size() == kept.nodes.size() * width &&
                 kept.owned.size() == (counted ? kept.sums.size() : 0);
  by_siblings(
      follows ? std::span<const std::int32_t>(kept.nodes)
              : std::span<const std::int32_t>(),
      [&](std::size_t pos) { return own_at_[pos + 1] - own_at_[pos]; },
      [&](std::size_t pos) {
        direct(pos, sums.data() + pos * width,
               counted ? owned.data() + pos * width : nullptr);
      },
      [&](std::size_t small, std::size_t large, std::size_t parent) {
        auto less = [&](const auto& whole_table, auto& table) {
          const auto* whole = whole_table.data() + parent * width;
          const auto* part = table.data() + small * width;
          auto* rest = table.data() + large * width;
          for (std::size_t z = 0; z < width; ++z)
            rest[z] = whole[z] - part[z];
        };
        less(kept.sums, sums);
        if (counted)
          less(kept.owned, owned);
      });
  kept = {tree_, depth_, frontier_, std::move(sums), std::move(owned)};
  return true;
}

bool client::sum_peer_buckets(party_id p, std::size_t slots) {
  const auto& c = columns_[p];
  auto nf = c.features.size();
  std::vector<const std::uint8_t*> column(nf); // by own label
  for (std::size_t f = 0; f < nf; ++f)
    column[f] = c.own[f].data();
  return keep_sums(peer_sums_[p], nf * slots, false,
                   [&](std::size_t pos, fixed_pair* sum, std::uint32_t*) {
                     add_own_labels(
                         sum, std::span(column), slots,
                         std::span(own_rows_).subspan(
                             own_at_[pos], own_at_[pos + 1] - own_at_[pos]),
                         enc_g_.data(), enc_h_.data());
                   });
}

client::status client::scan_batch(party_id p) {
  const auto& c = columns_[p];
  bool sums = p != self_;
  bool lists = lists_ids();
  // Buckets are at most `slots` - 1: the qid checks held the qids' to
  // it, read_columns the columns'.
  auto slots = static_cast<std::size_t>(std::min(params_.buckets + 1, 256));
  // One node at a time: the features p queries there, each with its
  // column of buckets and its bucket -> query table (-1: none).
  std::vector<const std::uint8_t*> columns; // by own label
  std::vector<const std::uint8_t*> full;    // by row, if lists
  std::vector<std::int32_t> query_of;
  std::vector<std::size_t> group_at;      // first query of each feature; + end
  std::vector<std::size_t> group_feature; // its place in c.features
  std::vector<fixed_pair> node_fixed;     // G, H per bucket of a node
  std::vector<double_pair> node_double;
  bool tables = sums && fixed_sums() && sum_peer_buckets(p, slots);
  auto width = c.features.size() * slots;
  for (auto i = first_[p], hi = first_[p + 1]; i < hi;) {
    auto node = queries_[i].node;
    columns.clear();
    full.clear();
    query_of.clear();
    group_at.clear();
    group_feature.clear();
    auto j = i;
    for (; j < hi && queries_[j].node == node; ++j) {
      auto feature =
          static_cast<std::int32_t>(unpack_qid(queries_[j].qid).feature);
      if (j == i || feature != static_cast<std::int32_t>(
                                   unpack_qid(queries_[j - 1].qid).feature)) {
        auto at =
            std::lower_bound(c.features.begin(), c.features.end(), feature);
        if (at == c.features.end() || *at != feature)
          return refuse_from(p, "query",
                             party(p) + " queried a feature whose buckets it "
                                        "did not send");
        columns.push_back(
            c.own[static_cast<std::size_t>(at - c.features.begin())].data());
        if (lists)
          full.push_back(
              c.buckets[static_cast<std::size_t>(at - c.features.begin())]
                  .data());
        query_of.resize(query_of.size() + slots, -1);
        group_at.push_back(j);
        group_feature.push_back(
            static_cast<std::size_t>(at - c.features.begin()));
      }
      query_of[query_of.size() - slots + unpack_qid(queries_[j].qid).bucket] =
          static_cast<std::int32_t>(j);
    }
    group_at.push_back(j);
    auto groups = columns.size();
    auto pos = static_cast<std::size_t>(
        std::lower_bound(frontier_.begin(), frontier_.end(), node) -
        frontier_.begin());
    if (tables) {
      // Each queried bucket from the node's table (sum_peer_buckets).
      const auto* table = peer_sums_[p].sums.data() + pos * width;
      for (std::size_t z = 0; z < groups * slots; ++z)
        if (auto q = query_of[z]; q >= 0) {
          const auto& s = table[group_feature[z / slots] * slots + z % slots];
          part_fixed_[2 * q] = s.v[0];
          part_fixed_[2 * q + 1] = s.v[1];
        }
    } else if (sums) {
      // Plain mode (doubles, where a difference would not be exact), or
      // tables too big to keep: into every bucket of the node's queried
      // features (a small table, no lookup per row), then each queried
      // bucket to its query.
      auto add = [&](auto& table, auto* part, const auto* g_of,
                     const auto* h_of) {
        table.assign(groups * slots,
                     typename std::decay_t<decltype(table)>::value_type{});
        add_own_labels(table.data(), std::span(columns), slots,
                       std::span(own_rows_).subspan(
                           own_at_[pos], own_at_[pos + 1] - own_at_[pos]),
                       g_of, h_of);
        // A bucket whose labels p all holds has no query (plain mode).
        for (std::size_t z = 0; z < groups * slots; ++z)
          if (auto q = query_of[z]; q >= 0) {
            part[2 * q] = table[z].v[0];
            part[2 * q + 1] = table[z].v[1];
          }
      };
      if (fixed_sums())
        add(node_fixed, part_fixed_.data(), enc_g_.data(), enc_h_.data());
      else
        add(node_double, part_double_.data(), own_gd_.data(), own_hd_.data());
    }
    if (lists) {
      // Bucket after bucket, each in row order (node rows ascend: the
      // partition splits stably).
      auto rows = partition_.rows_of(node);
      for (std::size_t g = 0; g < groups; ++g) {
        const auto* table = query_of.data() + g * slots;
        for (auto r : rows)
          if (!c.held[r] && table[full[g][r]] >= 0)
            ++queries_[static_cast<std::size_t>(table[full[g][r]])].id_count;
        auto base = level_ids_.size();
        std::vector<std::size_t> cursor(group_at[g + 1] - group_at[g]);
        for (auto k = group_at[g]; k < group_at[g + 1]; ++k) {
          ids_at_[k] = base;
          cursor[k - group_at[g]] = base;
          base += queries_[k].id_count;
        }
        level_ids_.resize(base);
        for (auto r : rows)
          if (!c.held[r] && table[full[g][r]] >= 0)
            level_ids_[cursor[static_cast<std::size_t>(table[full[g][r]]) -
                              group_at[g]]++] = r;
      }
    }
    i = j;
  }
  return {};
}

void client::build_units() {
  // [D] Election units (spec §13.3, wire.hpp): per_query, one per query;
  // per_batch, one per source with queries at this level.
  units_.clear();
  unit_first_.assign(n_ + 1, 0);
  bool batch = per_batch();
  for (party_id p = 0; p < n_; ++p) {
    unit_first_[p] = units_.size();
    auto lo = first_[p], hi = first_[p + 1];
    for (auto i = lo; i < hi; i = batch ? hi : i + 1) {
      // Filled in place: a unit built aside and copied in cost a stalled
      // load per unit.
      auto& u = units_.emplace_back();
      u.id = queries_[i].qid;
      u.source = p;
      u.first = static_cast<std::uint32_t>(i);
      u.count = static_cast<std::uint32_t>(batch ? hi - lo : 1);
      for (auto j = i; j < i + u.count; ++j)
        queries_[j].unit = static_cast<std::uint32_t>(units_.size() - 1);
    }
  }
  unit_first_[n_] = units_.size();
  signed_.assign(chained() ? 0 : units_.size(), {});
}

namespace {

/// The documented layout of crypto::lottery_input: tag (1 B) || qid (8 B
/// LE) || attempt (4 B LE) || ids digest (32 B) || r (32 B).
constexpr std::size_t lottery_size = 1 + 8 + 4 + 32 + 32;

/// BLAKE2b-256 of `ids` as uint32 LE, in the given order: what
/// crypto::lottery_input hashes when the ids are sorted (a query's missing
/// ids are strictly increasing, so no sort and no copy is needed).
std::array<std::uint8_t, 32> ids_digest(std::span<const std::uint32_t> ids) {
  std::array<std::uint8_t, 32> d;
  if constexpr (std::endian::native == std::endian::little) {
    crypto_generichash(d.data(), d.size(),
                       reinterpret_cast<const unsigned char*>(ids.data()),
                       ids.size() * sizeof(std::uint32_t), nullptr, 0);
  } else {
    crypto_generichash_state st;
    crypto_generichash_init(&st, nullptr, 0, d.size());
    for (auto id : ids) {
      std::uint8_t le[4];
      for (int b = 0; b < 4; ++b)
        le[b] = static_cast<std::uint8_t>(id >> (8 * b));
      crypto_generichash_update(&st, le, 4);
    }
    crypto_generichash_final(&st, d.data(), d.size());
  }
  return d;
}

std::vector<std::uint8_t>
lottery_from_digest(std::uint8_t tag, std::uint64_t qid, std::uint32_t attempt,
                    const std::array<std::uint8_t, 32>& digest,
                    const std::uint8_t* r) {
  std::vector<std::uint8_t> in(lottery_size);
  in[0] = tag;
  for (int i = 0; i < 8; ++i)
    in[1 + i] = static_cast<std::uint8_t>(qid >> (8 * i));
  for (int i = 0; i < 4; ++i)
    in[9 + i] = static_cast<std::uint8_t>(attempt >> (8 * i));
  std::memcpy(in.data() + 13, digest.data(), 32);
  std::memcpy(in.data() + 45, r, 32);
  return in;
}

/// Patches tag and attempt into a lottery input of that layout.
void patch_lottery(std::vector<std::uint8_t>& in, std::uint8_t tag,
                   std::uint32_t attempt) {
  in[0] = tag;
  for (int i = 0; i < 4; ++i)
    in[9 + i] = static_cast<std::uint8_t>(attempt >> (8 * i));
}

/// Whether building and patching reproduce crypto::lottery_input (checked
/// once, so a change of that layout costs speed, never correctness).
bool layout_works() {
  static const bool ok = [] {
    std::array<std::uint8_t, 32> r{};
    r[3] = 7;
    std::vector<std::uint32_t> ids = {4, 9, 70000};
    auto in = lottery_from_digest(tag_lead, 0x0102030405060708, 0,
                                  ids_digest(ids), r.data());
    if (in != crypto::lottery_input(tag_lead, 0x0102030405060708, 0, ids, r))
      return false;
    patch_lottery(in, tag_noise, 0x01020304);
    return in == crypto::lottery_input(tag_noise, 0x0102030405060708,
                                       0x01020304, ids, r);
  }();
  return ok;
}

} // namespace

std::vector<std::uint8_t> client::lottery_in(const election_unit& u,
                                             std::uint8_t tag,
                                             std::uint32_t attempt) const {
  // The ids are hashed once per unit (they can be long), not per ticket.
  const auto& lottery = signed_of(u).lottery;
  if (!lottery.empty() && layout_works()) {
    auto in = lottery;
    patch_lottery(in, tag, attempt);
    return in;
  }
  const auto& b = batches_[u.source];
  if (per_batch()) {
    // [D] A batch's lottery: (tag, id of its first query, attempt, digest
    // of the batch's shape, the batch nonce r). The shape is its qids
    // (uint32 LE words, two each), which fix its ids (wire.hpp), not every
    // missing id: the fresh r alone makes the draw unpredictable (spec
    // §7.3), and hashing every id of every batch cost each client about as
    // much as the plain protocol's whole training.
    std::vector<std::uint32_t> shape;
    shape.reserve(2 * u.count);
    for (auto q : b.qids) {
      shape.push_back(static_cast<std::uint32_t>(q));
      shape.push_back(static_cast<std::uint32_t>(q >> 32));
    }
    if (layout_works())
      return lottery_from_digest(tag, u.id, attempt, ids_digest(shape),
                                 b.nonces.data());
    return crypto::lottery_input(
        tag, u.id, attempt, shape,
        std::span<const std::uint8_t, 32>(b.nonces.data(), 32));
  }
  const auto& q = queries_[u.first];
  const auto* nonce = b.nonces.data() + 32 * (u.first - first_[u.source]);
  if (layout_works())
    return lottery_from_digest(tag, q.qid, attempt, ids_digest(q.ids), nonce);
  return crypto::lottery_input(tag, q.qid, attempt, q.ids,
                               std::span<const std::uint8_t, 32>(nonce, 32));
}

std::uint64_t client::draw_noise(noise_lane lane) {
  // Spec §15.3: noise from ChaCha20 keyed by the (injected) CSPRNG, an
  // integer number of 2^-F as two's complement; the setup checked that any
  // draw fits. No reserve: noise is off; and H has none without
  // hessian noise.
  if (!reserve_ || (lane == noise_lane::h && !params_.hessian_noise))
    return 0;
  return static_cast<std::uint64_t>(
      reserve_->take(static_cast<std::size_t>(lane)));
}

// ---------------------------------------------------------------------------
// Leader election (Alg. 4, spec §7.3)

std::uint64_t client::chain_length() const {
  return static_cast<std::uint64_t>(params_.trees) *
         static_cast<std::uint64_t>(params_.max_depth + 1);
}

std::uint64_t client::chain_index() const {
  return static_cast<std::uint64_t>(tree_) *
             static_cast<std::uint64_t>(params_.max_depth + 1) +
         static_cast<std::uint64_t>(depth_) + 1;
}

crypto::ticket_stream client::level_stream(const crypto::key32& x,
                                           std::uint8_t tag,
                                           std::uint32_t attempt) const {
  return crypto::ticket_stream(x, {tag, attempt, level_digest_});
}

void client::send_lead(outbox& out) {
  // Every client but a unit's source draws a ticket over (LEAD, id, 0,
  // mIDs, r) and sends it with its signature, so everyone can verify it;
  // or (chain) reveals its elements of the level: hashed with everyone's,
  // they key the level's tickets.
  my_lead_ = {};
  my_lead_.tree = tree_;
  my_lead_.depth = depth_;
  if (chained()) {
    // The peers' elements join them in finish_lead.
    level_public_.assign(n_, {});
    level_noise_.assign(n_, {});
    level_public_[self_] = public_chain_->element(chain_index());
    level_noise_[self_] = noise_chain_->element(chain_index());
    std::memcpy(my_lead_.reveal.data(), level_public_[self_].data(), 32);
    std::memcpy(my_lead_.noise_reveal.data(), level_noise_[self_].data(), 32);
    if (!hinted()) {
      broadcast(out, my_lead_);
      return;
    }
    auto selections = draw_selections();
    for (party_id p = 0; p < n_; ++p)
      if (p != self_) {
        auto m = my_lead_;
        m.selections = std::move(selections[p]);
        send(out, p, std::move(m));
      }
    return;
  }
  my_lead_.tickets.reserve(units_.size());
  for (const auto& u : units_)
    if (u.source != self_)
      my_lead_.tickets.push_back(
          crypto::draw_ticket(creds_->identity, signed_of(u).lottery));
  broadcast(out, my_lead_);
}

client::status client::finish_lead(outbox& out) {
  for (party_id p = 0; p < n_; ++p) {
    if (p == self_)
      continue;
    const auto& t = as<lead_tickets>(got_[p]);
    if (t.tree != tree_ || t.depth != depth_)
      return refuse_from(p, "lead",
                         party(p) + "'s tickets are for another level");
    if (chained()) {
      if (!t.tickets.empty())
        return refuse_from(p, "lead",
                           party(p) + " sent signed tickets to a hash-chain "
                                      "election");
      // Each element must be the next of its committed chain.
      auto take = [&](const std::array<std::uint8_t, 32>& bytes,
                      crypto::chain_verifier& known, crypto::key32& kept) {
        std::memcpy(kept.data(), bytes.data(), kept.size());
        return known.accept(chain_index(), kept);
      };
      if (!take(t.reveal, public_known_[p], level_public_[p]))
        return refuse_from(p, "lead",
                           party(p) + "'s lottery reveal does not match its "
                                      "hash-chain commitment");
      if (!take(t.noise_reveal, noise_known_[p], level_noise_[p]))
        return refuse_from(p, "lead",
                           party(p) + "'s noise reveal does not match its "
                                      "hash-chain commitment");
      auto flags = hinted() ? selection_flags(p, self_) : 0;
      if (t.selections.size() != packed_size(flags))
        return refuse_from(p, "lead",
                           party(p) + " sent " +
                               std::to_string(t.selections.size()) +
                               " bytes of selections, not " +
                               std::to_string(packed_size(flags)));
    } else if (t.tickets.size() != units_.size() - unit_count(p)) {
      return refuse_from(p, "lead",
                         party(p) + " sent the wrong number of tickets");
    }
  }
  // The source never runs. Signed tickets: ties go to the lowest index [D]
  // (§7.3 l.7).
  // Units start without a leader (build_units).
  if (chained()) {
    // [D] The joint lottery (docs/feverless-election.md): unit i's LEAD
    // words under the joint element of every client's public reveal (word i
    // of the stream of attempt 0, then of 1, 2, ... for a redraw) pick its
    // leader uniformly among the clients but the source, by uniform_below.
    //
    // With hints a client reads neither the leader nor the tickets of a
    // unit it is the source of (it is no candidate there, and no value
    // goes to the leader), so they are not computed; the test hooks'
    // traces name every unit's leader.
    bool skip_own = hinted() && !params_.test_hooks;
    auto own_lo = skip_own ? unit_first_[self_] : units_.size();
    auto own_hi = skip_own ? unit_first_[self_ + 1] : units_.size();
    auto joint = crypto::joint_element(level_public_);
    auto lead = level_stream(joint, tag_lead, 0);
    lead_words_.resize(units_.size());
    std::size_t i = 0;
    std::uint32_t attempt = 0;
    auto words = [&]() -> std::uint64_t {
      return attempt++ == 0
                 ? lead_words_[i]
                 : level_stream(joint, tag_lead, attempt - 1).range(i, 1)[0];
    };
    auto pick_leaders = [&](std::size_t lo, std::size_t hi) {
      lead.fill(lo, {lead_words_.data() + lo, hi - lo});
      for (i = lo; i < hi; ++i) {
        auto& u = units_[i];
        attempt = 0;
        auto pick = static_cast<party_id>(
            uniform_below(words, static_cast<std::uint64_t>(n_ - 1)));
        u.leader = pick + (pick >= u.source ? 1 : 0);
      }
    };
    pick_leaders(0, own_lo);
    pick_leaders(own_hi, units_.size());
    level_attempts_.reset(crypto::joint_element(level_noise_),
                          crypto::round_input{tag_noise, 0, level_digest_},
                          units_.size(), static_cast<std::size_t>(n_ - 1),
                          own_lo, own_hi - own_lo);
  } else {
    for (std::size_t i = 0; i < units_.size(); ++i) {
      auto& u = units_[i];
      const crypto::score* best = nullptr;
      for (party_id c = 0; c < n_; ++c) {
        if (c == u.source)
          continue;
        const auto& v =
            c == self_ ? my_lead_.tickets : as<lead_tickets>(got_[c]).tickets;
        // Client c's tickets skip its own units, which all precede unit i
        // when c < source and all follow it otherwise.
        const auto& t = v[c < u.source ? i - unit_count(c) : i];
        if (c != self_ &&
            !crypto::check_ticket(creds_->keys[c], signed_of(u).lottery, t))
          return refuse_from(c, "lead",
                             party(c) + "'s lottery ticket does not verify");
        if (u.leader < 0 || crypto::score_greater(t.value, *best)) {
          u.leader = c;
          best = &t.value;
        }
      }
    }
  }
  for (auto& u : units_) {
    u.attempt = 0;
    u.pending = true;
  }
  round_ = 0;
  round_units_.clear();
  if (hinted())
    return select_by_hints(out);
  if (chained())
    return select_volunteers(out);
  return begin_round(out);
}

void client::gather_round() {
  round_units_.clear();
  round_led_.resize(n_);
  for (auto& led : round_led_)
    led.clear();
  for (std::size_t i = 0; i < units_.size(); ++i)
    if (units_[i].pending) {
      round_units_.push_back(i);
      round_led_[units_[i].leader].push_back(i);
    }
}

std::size_t client::kept_count(std::size_t kh) const {
  if (params_.selection != noise_selection::portion)
    return 1;
  // [A] k = ceil(k̂ p) (spec §7.4, §17 #5); the 1e-9 keeps 3 * (1/3) from
  // rounding up to 2.
  auto k = static_cast<std::size_t>(
      std::ceil(static_cast<double>(kh) * params_.portion - 1e-9));
  return std::clamp<std::size_t>(k, 1, kh);
}

std::size_t client::choose_volunteers() {
  auto kh = picks_.size();
  auto k = kept_count(kh);
  for (std::size_t x = 0; x < k; ++x)
    std::swap(picks_[x], picks_[x + uniform_below(rng_, kh - x)]);
  return k;
}

template <class Tally>
bool client::first_volunteers(std::size_t index, Tally tally) {
  // The paper's attempts (Alg. 5 l.2–17) on the level's joint tickets:
  // slot 0 holds the leader's THRESH ticket, slot 1 + r the NOISE ticket of
  // the unit's candidate of rank r (the clients but its source and leader,
  // ascending). No branch on a comparison: each is a coin toss to the
  // branch predictor, and its misses cost more than the arithmetic. The
  // first group of attempts, which decides all but about 1 unit in 81, is
  // read as one row.
  constexpr auto group = crypto::attempt_tickets::group;
  auto m = static_cast<std::size_t>(n_ - 2);
  auto slots = m + 1;
  auto& u = units_[index];
  auto& tickets = level_attempts_;
  auto first = tickets.first_group(index);
  auto ticket = [&](std::uint32_t a, std::size_t slot) {
    return a < group ? first[a * slots + slot] : tickets.at(index, a, slot);
  };
  for (std::uint32_t a = 0; a < max_attempts; ++a) {
    auto bar = ticket(a, 0);
    bool any = false;
    for (std::size_t r = 0; r < m; ++r)
      any = tally(r, ticket(a, 1 + r) > bar);
    if (any) {
      u.attempt = a;
      return true;
    }
  }
  return false;
}

std::uint32_t client::volunteer_mask(std::size_t index) {
  std::uint32_t mask = 0;
  first_volunteers(index, [&](std::size_t r, bool beats) {
    mask = (r == 0 ? 0 : mask) | static_cast<std::uint32_t>(beats) << r;
    return mask != 0;
  });
  return mask; // 0 after an attempt without volunteers, the last
}

bool client::find_volunteers(std::size_t index) {
  const auto& u = units_[index];
  auto lo = std::min(u.source, u.leader), hi = std::max(u.source, u.leader);
  return first_volunteers(index, [&](std::size_t r, bool beats) {
    if (r == 0)
      picks_.clear();
    // The candidate of rank r: the clients but lo and hi, ascending.
    auto c = static_cast<party_id>(r);
    c += c >= lo ? 1 : 0;
    c += c >= hi ? 1 : 0;
    if (beats)
      picks_.push_back(static_cast<std::size_t>(c));
    return !picks_.empty();
  });
}

client::status client::select_volunteers(outbox& out) {
  // [D] Chain (docs/feverless-election.md): every candidate's noise element
  // came with LEAD, so a leader runs the paper's sequence of attempts
  // (Alg. 5 l.2–17) for each unit it leads by itself: at attempt a, the
  // candidates whose NOISE ticket beats the leader's THRESH ticket
  // volunteer, and the first attempt with any keeps its volunteers. It
  // selects among them as the paper does, and NOTIFY tells every
  // candidate; the selected ones draw then (finish_notify).
  gather_round();
  std::vector<noise_notice> notices(n_);
  for (auto& nt : notices) {
    nt.tree = tree_;
    nt.depth = depth_;
  }
  for (auto index : round_led_[self_]) {
    auto& u = units_[index];
    if (!find_volunteers(index))
      return no_volunteer();
    const auto& volunteers = picks_; // by client index
    auto kh = volunteers.size();
    auto k = choose_volunteers();
    for (party_id c = 0; c < n_; ++c)
      if (c != u.source && c != self_)
        notices[c].selected.push_back(
            std::find(volunteers.begin(), volunteers.begin() + k,
                      static_cast<std::size_t>(c)) != volunteers.begin() + k
                ? 1
                : 0);
    u.pending = false;
    record_selection(u, kh, k);
  }
  my_redo_ = 0;
  for (party_id p = 0; p < n_; ++p)
    if (p != self_)
      send(out, p, std::move(notices[p]));
  phase_ = phase::notify;
  // The masks depend on no notice: computed while the peers' travel.
  if (masks())
    masks_ = masks_state::due;
  return {};
}

client::status client::no_volunteer() const {
  return refuse("noise", "no candidate volunteered in " +
                             std::to_string(max_attempts) + " attempts");
}

void client::record_selection(const election_unit& u, std::size_t kh,
                              std::size_t k) {
  if (params_.test_hooks)
    for (auto q = u.first; q < u.first + u.count; ++q)
      selections_[queries_[q].qid] = {u.attempt + 1,
                                      static_cast<std::uint32_t>(kh),
                                      static_cast<std::uint32_t>(k)};
}

void client::draw_selected(election_unit& u) {
  // [D] Chain: the draw comes after selection and goes into this client's
  // own masked reply, not through the leader: the source still sees only
  // the total, and the leader sees no value of the noise step
  // (docs/feverless-election.md).
  u.selected = true;
  for (auto j = u.first; j < u.first + u.count; ++j) {
    auto& q = queries_[j];
    q.n_g = draw_noise(noise_lane::g);
    q.n_h = draw_noise(noise_lane::h);
    q.selected_g = q.n_g;
    q.selected_h = q.n_h;
    if (params_.test_hooks)
      noise_draws_[q.qid] = {q.n_g, q.n_h};
  }
}

namespace {

/// Volunteer set `others` (a mask over the m - 1 candidates other than
/// candidate j, in ascending order) with candidate j added: a mask over
/// all m candidates.
std::uint32_t with_candidate(std::uint32_t others, std::uint32_t j) {
  auto low = others & ((1u << j) - 1);
  return ((others >> j) << (j + 1)) | (1u << j) | low;
}

/// Bits written into a zeroed buffer in packed_size's order (bit i into
/// byte i / 8, at i % 8), a 64-bit word at a time.
class bit_appender {
public:
  explicit bit_appender(std::uint8_t* out) : out_(out) {}
  void put(std::uint64_t bit) {
    word_ |= bit << used_;
    if (++used_ == 64)
      flush();
  }
  /// `n` <= 64 bits at once, bit 0 first (`bits` has none above them).
  void put_bits(std::uint64_t bits, unsigned n) {
    if (n == 0)
      return;
    word_ |= bits << used_;
    if (used_ + n < 64) {
      used_ += n;
      return;
    }
    auto spilled = used_ == 0 ? 0 : bits >> (64 - used_); // past the word
    auto left = used_ + n - 64;
    used_ = 64;
    flush();
    word_ = spilled;
    used_ = left;
  }
  /// Writes the bits put since the last flush (whole bytes; the buffer
  /// holds them).
  void flush() {
    for (unsigned b = 0; b < used_; b += 8)
      *out_++ = static_cast<std::uint8_t>(word_ >> b);
    word_ = 0;
    used_ = 0;
  }

private:
  std::uint8_t* out_;
  std::uint64_t word_ = 0;
  unsigned used_ = 0;
};

} // namespace

std::size_t client::selection_flags(party_id leader, party_id candidate) const {
  return (units_.size() - unit_count(leader) - unit_count(candidate)) *
         flags_per_unit(n_);
}

std::vector<std::vector<std::uint8_t>> client::draw_selections() {
  // [D] For each unit this client may lead (every unit of another source)
  // it draws, before anyone knows the leaders, the paper's selection (Alg.
  // 5 l.15: k of the volunteers, uniformly, with its CSPRNG) of every set
  // of two or more of the unit's m = n - 2 candidates, each set
  // independently; a lone volunteer is always selected. Candidate j gets,
  // per set of the others, whether it is selected in that set with it.
  // Only the bit of the set that volunteers is ever read, by the one
  // candidate it concerns, and the other sets' draws are independent of it:
  // what a candidate learns is the NOTIFY flag the leader would have sent.
  // Each uniform pick takes a few bits of a CSPRNG word (with 4 clients,
  // one bit per unit), and each receiver's flags are packed a word at a
  // time.
  auto m = static_cast<std::uint32_t>(n_ - 2);
  auto sets = flags_per_unit(n_);
  std::vector<std::vector<std::uint8_t>> packed(n_); // by receiver
  for (party_id c = 0; c < n_; ++c)
    if (c != self_)
      packed[c].assign(packed_size(selection_flags(self_, c)), 0);
  if (sets == 0)
    return packed; // 3 clients: one candidate, always selected
  std::uint64_t pool = 0;
  unsigned left = 0;
  auto low_bits = [](unsigned n) { // a mask of the n <= 64 lowest bits
    return n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  };
  auto next_bits = [&](unsigned n) { // n <= 64 bits of the pool, bit 0 first
    std::uint64_t out = 0;
    for (unsigned got = 0; got < n;) {
      if (left == 0) {
        pool = rng_();
        left = 64;
      }
      auto k = std::min(n - got, left);
      out |= (pool & low_bits(k)) << got;
      pool = k == 64 ? 0 : pool >> k;
      left -= k;
      got += k;
    }
    return out;
  };
  auto below = [&](std::uint32_t n) -> std::uint32_t { // uniform in [0, n)
    if (n == 1)
      return 0;
    auto bits = static_cast<unsigned>(std::bit_width(n - 1));
    while (true)
      if (auto v = static_cast<std::uint32_t>(next_bits(bits)); v < n)
        return v;
  };
  // The sets of two or more of a unit's m candidates (masks over them in
  // ascending order), with their members and k: the same for every unit.
  struct volunteer_set {
    std::uint32_t mask = 0, size = 0, kept = 0;
    std::array<std::uint32_t, max_hinted_clients> members{};
  };
  std::vector<volunteer_set> many;
  for (std::uint32_t set = 1; set < (1u << m); ++set) {
    volunteer_set v;
    v.mask = set;
    v.size = static_cast<std::uint32_t>(std::popcount(set));
    if (v.size < 2)
      continue;
    v.kept = static_cast<std::uint32_t>(kept_count(v.size));
    std::uint32_t at = 0;
    for (std::uint32_t i = 0; i < m; ++i)
      if (set >> i & 1)
        v.members[at++] = i;
    many.push_back(v);
  }
  // Candidate j's flag for the set `others` of the other candidates (1 ..
  // sets) reads the selection of that set with j added.
  std::vector<std::uint32_t> with(m * sets);
  for (std::uint32_t j = 0; j < m; ++j)
    for (std::uint32_t others = 1; others <= sets; ++others)
      with[j * sets + others - 1] = with_candidate(others, j);
  std::vector<bit_appender> flags;
  for (party_id c = 0; c < n_; ++c)
    flags.emplace_back(packed[c].data());
  if (m == 2 && many.size() == 1 && many[0].kept == 1) {
    // 4 clients: a unit's one set of two or more is both candidates, and
    // one of them is kept, by one bit of the pool (below(2)): rank 1's
    // flag is that bit, rank 0's its complement. The same bits, in the
    // same order, as the loop below, taken 64 units at a time.
    for (party_id source = 0; source < n_; ++source) {
      if (source == self_)
        continue;
      std::array<bit_appender*, 2> to{};
      std::uint32_t j = 0;
      for (party_id c = 0; c < n_; ++c)
        if (c != source && c != self_)
          to[j++] = &flags[c];
      for (auto units = unit_count(source); units > 0;) {
        auto n = static_cast<unsigned>(std::min<std::size_t>(units, 64));
        auto bits = next_bits(n);
        to[0]->put_bits(~bits & low_bits(n), n);
        to[1]->put_bits(bits, n);
        units -= n;
      }
    }
    for (auto& f : flags)
      f.flush();
    pool = 0;
    return packed;
  }
  std::vector<std::uint32_t> chosen(std::size_t{1} << m); // per set: a mask
  for (party_id source = 0; source < n_; ++source) {
    if (source == self_)
      continue;
    std::array<bit_appender*, max_hinted_clients> to{};
    std::uint32_t j = 0;
    for (party_id c = 0; c < n_; ++c)
      if (c != source && c != self_)
        to[j++] = &flags[c];
    for (auto i = unit_first_[source]; i < unit_first_[source + 1]; ++i) {
      for (const auto& v : many) {
        if (v.kept == 1) { // the shuffle's first swap, without the copy
          chosen[v.mask] = 1u << v.members[below(v.size)];
          continue;
        }
        auto members = v.members;
        chosen[v.mask] = 0;
        for (std::uint32_t x = 0; x < v.kept; ++x) {
          std::swap(members[x], members[x + below(v.size - x)]);
          chosen[v.mask] |= 1u << members[x];
        }
      }
      for (j = 0; j < m; ++j)
        for (std::uint32_t s = 0; s < sets; ++s)
          to[j]->put(chosen[with[j * sets + s]] >> j & 1);
    }
  }
  for (auto& f : flags)
    f.flush();
  pool = 0;
  return packed;
}

client::status client::select_by_hints(outbox& out) {
  // [D] hinted() (docs/feverless-election.md, "Selections with LEAD"): as a
  // candidate, this client finds each unit's volunteers as its leader
  // would (volunteer_mask), and if it is one of several, reads its
  // selection for that set from the leader's LEAD; a lone volunteer is
  // selected. The selected ones draw, and MASKED follows with no NOTIFY.
  std::vector<const std::uint8_t*> selections(n_, nullptr); // by leader
  for (party_id l = 0; l < n_; ++l)
    if (l != self_)
      selections[l] = as<lead_tickets>(got_[l]).selections.data();
  std::size_t sets = flags_per_unit(n_);
  // In passes, so that no branch depends on a ticket or a selection: each
  // is a coin toss to the branch predictor, and its misses cost more than
  // the arithmetic. First the units this client is a candidate of (neither
  // their source nor their leader), then those it is selected for, which
  // then draw, in unit order as before.
  auto& listed = unit_list_;
  listed.resize(units_.size());
  std::size_t count = 0;
  for (std::size_t i = 0; i < units_.size(); ++i) {
    auto& u = units_[i];
    u.pending = false;
    listed[count] = static_cast<std::uint32_t>(i);
    count += (u.source != self_) & (u.leader != self_);
  }
  if (params_.test_hooks)
    for (std::size_t i = 0; i < units_.size(); ++i) {
      // Its own units: the candidates read their selections from its
      // LEAD; the test hooks keep how many, as NOTIFY's leader does.
      auto& u = units_[i];
      if (u.leader != self_)
        continue;
      auto volunteers = volunteer_mask(i);
      if (volunteers == 0)
        return no_volunteer();
      auto kh = static_cast<std::size_t>(std::popcount(volunteers));
      record_selection(u, kh, kept_count(kh));
    }
  std::size_t chosen = 0; // listed[0, chosen): selected, overwriting
  for (std::size_t k = 0; k < count; ++k) {
    auto i = listed[k];
    const auto& u = units_[i];
    auto l = u.leader;
    auto volunteers = volunteer_mask(i); // by candidate rank
    if (volunteers == 0)
      return no_volunteer();
    auto rank = static_cast<unsigned>(self_ - (self_ > u.source) - (self_ > l));
    // The other volunteers as a mask over the candidates but this one (the
    // clients but u's source, l and this one, ascending): this one's bit
    // taken out, the higher ranks one down.
    std::uint32_t others =
        (volunteers & ((1u << rank) - 1)) | (volunteers >> (rank + 1) << rank);
    // A lone volunteer is selected; one of several reads its flag for the
    // set of the others in l's selections. The unit's place there: the
    // units before it of sources other than l and this client (units go by
    // source, and l is not u's source). The flag is read either way
    // (others = 0 reads the unit's first), within finish_lead's check.
    auto at = i - (self_ < u.source ? unit_count(self_) : 0) -
              (l < u.source ? unit_count(l) : 0);
    auto flag = at * sets + (others == 0 ? 0 : others - 1);
    bool picked = sets != 0 && (selections[l][flag / 8] >> (flag % 8) & 1) != 0;
    bool mine = (volunteers >> rank & 1) != 0;
    // One bit set (std::popcount is a call to libgcc on this build).
    bool lone = (volunteers & (volunteers - 1)) == 0;
    listed[chosen] = i;
    chosen += mine & (lone | picked);
  }
  for (std::size_t k = 0; k < chosen; ++k)
    draw_selected(units_[listed[k]]);
  send_masked(out);
  phase_ = phase::masked;
  return {};
}

// ---------------------------------------------------------------------------
// Noise injection (Alg. 5 l.1–21, spec §7.4)

client::status client::begin_round(outbox& out) {
  // Alg. 5 l.2–5: the leader draws a second ticket as the threshold.
  threshold_tickets t;
  t.tree = tree_;
  t.depth = depth_;
  t.round = round_;
  for (std::size_t i = 0; i < units_.size(); ++i) {
    auto& u = units_[i];
    if (u.leader != self_ || !u.pending)
      continue;
    auto tk = crypto::draw_ticket(creds_->identity,
                                  lottery_in(u, tag_thresh, u.attempt));
    signed_of(u).threshold = tk.value;
    t.tickets.push_back(tk);
    t.qids.push_back(u.id);
    t.attempts.push_back(u.attempt);
  }
  broadcast(out, t);
  phase_ = phase::thresh;
  return {};
}

client::status client::finish_thresh(outbox& out) {
  auto find = [&](std::uint64_t id) -> election_unit* {
    auto it = std::lower_bound(
        units_.begin(), units_.end(), id,
        [](const election_unit& u, std::uint64_t x) { return u.id < x; });
    return it != units_.end() && it->id == id ? &*it : nullptr;
  };
  for (party_id p = 0; p < n_; ++p) {
    if (p == self_)
      continue;
    const auto& t = as<threshold_tickets>(got_[p]);
    if (t.tree != tree_ || t.depth != depth_ || t.round != round_)
      return refuse_from(p, "thresh",
                         party(p) + "'s thresholds are for another round");
    auto k = t.qids.size();
    if (t.attempts.size() != k || t.tickets.size() != k)
      return refuse_from(p, "thresh", party(p) + "'s field lengths differ");
    if (round_ == 0) {
      // Every unit the sender leads, in order, at attempt 0.
      std::size_t j = 0;
      for (const auto& u : units_) {
        if (u.leader != p)
          continue;
        if (j >= k || t.qids[j] != u.id || t.attempts[j] != 0)
          return refuse_from(p, "thresh",
                             party(p) + " sent thresholds for other queries");
        ++j;
      }
      if (j != k)
        return refuse_from(p, "thresh",
                           party(p) + " sent thresholds for other queries");
    } else if (k != redo_by_[p]) {
      return refuse_from(p, "thresh",
                         party(p) + " redoes " + std::to_string(k) +
                             " queries, it announced " +
                             std::to_string(redo_by_[p]));
    }
    for (std::size_t j = 0; j < k; ++j) {
      auto* u = find(t.qids[j]);
      if (!u || u->leader != p || (j > 0 && t.qids[j] <= t.qids[j - 1]))
        return refuse_from(p, "thresh",
                           party(p) + " sent a threshold for a query "
                                      "it does not lead");
      if (round_ > 0) {
        // A redo: the unit waited in the last round, this client did not
        // volunteer for it (else it was resolved), next attempt.
        auto idx = static_cast<std::size_t>(u - units_.data());
        auto next = u->attempt + 1;
        if (!std::binary_search(round_units_.begin(), round_units_.end(),
                                idx) ||
            u->volunteered || t.attempts[j] != next)
          return refuse_from(p, "thresh",
                             party(p) + " redoes a query that was resolved");
        if (next >= max_attempts)
          return refuse_from(p, "thresh",
                             party(p) + " redoes a query past " +
                                 std::to_string(max_attempts) + " attempts");
        u->attempt = t.attempts[j];
      }
      if (!crypto::check_ticket(creds_->keys[p],
                                lottery_in(*u, tag_thresh, u->attempt),
                                t.tickets[j]))
        return refuse_from(p, "thresh",
                           party(p) + "'s threshold ticket does not verify");
      signed_of(*u).threshold = t.tickets[j].value;
      u->pending = true;
    }
  }
  send_offers(out);
  return {};
}

void client::send_offers(outbox& out) {
  gather_round();
  // Alg. 5 l.7–13: each candidate c not in {source, leader} draws a ticket
  // over (NOISE, id, attempt); if it beats the threshold it volunteers
  // noise N(0, Δ²σ²) blinded by a uniform r mod 2^64, fresh for each query
  // of the unit.
  std::vector<noise_offers> offers(n_);
  for (auto& o : offers) {
    o.tree = tree_;
    o.depth = depth_;
    o.round = round_;
  }
  for (auto i : round_units_) {
    auto& u = units_[i];
    if (u.source == self_ || u.leader == self_)
      continue;
    auto tk = crypto::draw_ticket(creds_->identity,
                                  lottery_in(u, tag_noise, u.attempt));
    bool volunteers = crypto::score_greater(tk.value, signed_of(u).threshold);
    auto& o = offers[u.leader];
    o.volunteer.push_back(volunteers ? 1 : 0);
    if (!volunteers)
      continue;
    u.volunteered = true;
    o.tickets.push_back(tk);
    // [P] Volunteers draw before they know whether they are selected.
    for (auto j = u.first; j < u.first + u.count; ++j) {
      auto& q = queries_[j];
      q.n_g = draw_noise(noise_lane::g);
      q.n_h = draw_noise(noise_lane::h);
      std::uint64_t r_g = rng_(), r_h = rng_();
      o.g.push_back(q.n_g + r_g);
      o.h.push_back(q.n_h + r_h);
      q.selected_g = 0 - r_g;
      q.selected_h = 0 - r_h;
    }
  }
  for (party_id p = 0; p < n_; ++p)
    if (p != self_)
      send(out, p, std::move(offers[p]));
  phase_ = phase::noise;
}

client::status client::finish_noise(outbox& out) {
  // The paper's order (signed, per_batch): each candidate's flags, tickets
  // and blinded draws for the units this client leads, checked in shape
  // first, then unit by unit.
  const auto& led = round_led_[self_];
  for (party_id p = 0; p < n_; ++p) {
    if (p == self_)
      continue;
    const auto& o = as<noise_offers>(got_[p]);
    if (o.tree != tree_ || o.depth != depth_ || o.round != round_)
      return refuse_from(p, "noise",
                         party(p) + "'s offers are for another round");
    std::size_t expected = 0;
    for (auto i : led)
      if (units_[i].source != p)
        ++expected;
    if (o.volunteer.size() != expected)
      return refuse_from(p, "noise",
                         party(p) + " sent the wrong number of flags");
    std::size_t volunteers = 0, values = 0, k = 0;
    for (auto i : led) {
      const auto& u = units_[i];
      if (u.source == p)
        continue;
      auto f = o.volunteer[k++];
      if (f > 1)
        return refuse_from(p, "noise", party(p) + " sent a flag out of range");
      volunteers += f;
      values += f ? u.count : 0;
    }
    if (o.tickets.size() != volunteers || o.g.size() != values ||
        o.h.size() != values)
      return refuse_from(p, "noise", party(p) + "'s field lengths differ");
  }
  // Alg. 5 l.14–20, unit by unit: keep k volunteers, uniformly, and add
  // their blinded draws; redo when none. Each candidate's next flag, ticket
  // and values are at its cursors.
  std::vector<std::size_t> flag_at(n_, 0), ticket_at(n_, 0), value_at(n_, 0);
  std::vector<std::pair<party_id, std::size_t>> volunteers; // and values
  std::vector<bool> selected; // by volunteer, per unit
  std::vector<noise_notice> notices(n_);
  my_redo_ = 0;
  for (auto i : led) {
    auto& u = units_[i];
    volunteers.clear();
    for (party_id p = 0; p < n_; ++p) {
      if (p == self_ || p == u.source)
        continue;
      const auto& o = as<noise_offers>(got_[p]);
      if (!o.volunteer[flag_at[p]++])
        continue;
      const auto& tk = o.tickets[ticket_at[p]++];
      if (!crypto::check_ticket(creds_->keys[p],
                                lottery_in(u, tag_noise, u.attempt), tk))
        return refuse_from(p, "noise",
                           party(p) + "'s volunteer ticket does not verify");
      if (!crypto::score_greater(tk.value, signed_of(u).threshold))
        return refuse_from(p, "noise",
                           party(p) + " volunteered with a ticket below "
                                      "the threshold");
      volunteers.emplace_back(p, value_at[p]);
      value_at[p] += u.count;
    }
    if (volunteers.empty()) {
      if (u.attempt + 1 >= max_attempts)
        return refuse("noise", "no candidate volunteered in " +
                                   std::to_string(max_attempts) + " attempts");
      ++my_redo_;
      continue;
    }
    picks_.resize(volunteers.size());
    std::iota(picks_.begin(), picks_.end(), std::size_t{0});
    auto k = choose_volunteers();
    selected.assign(volunteers.size(), false);
    for (std::size_t x = 0; x < k; ++x) {
      selected[picks_[x]] = true;
      // Ñ = sum of the selected blinded draws, per query: the leader never
      // sees a draw in the clear.
      auto [from, at] = volunteers[picks_[x]];
      const auto& o = as<noise_offers>(got_[from]);
      for (std::size_t q = 0; q < u.count; ++q) {
        queries_[u.first + q].noise_g += o.g[at + q];
        queries_[u.first + q].noise_h += o.h[at + q];
      }
    }
    // [D] NOTIFY tells every volunteer, selected or not (spec §7.2).
    for (std::size_t x = 0; x < volunteers.size(); ++x)
      notices[volunteers[x].first].selected.push_back(selected[x] ? 1 : 0);
    u.pending = false;
    if (params_.test_hooks)
      for (auto q = u.first; q < u.first + u.count; ++q)
        selections_[queries_[q].qid] = {
            u.attempt + 1, static_cast<std::uint32_t>(volunteers.size()),
            static_cast<std::uint32_t>(k)};
  }
  // ... and every client how many units are redone.
  for (party_id p = 0; p < n_; ++p) {
    if (p == self_)
      continue;
    auto& nt = notices[p];
    nt.tree = tree_;
    nt.depth = depth_;
    nt.round = round_;
    nt.redo = my_redo_;
    send(out, p, std::move(nt));
  }
  phase_ = phase::notify;
  return {};
}

client::status client::finish_notify(outbox& out) {
  std::uint64_t redo = my_redo_;
  for (party_id p = 0; p < n_; ++p) {
    if (p == self_)
      continue;
    const auto& nt = as<noise_notice>(got_[p]);
    if (nt.tree != tree_ || nt.depth != depth_ || nt.round != round_)
      return refuse_from(p, "notify",
                         party(p) + "'s notice is for another round");
    // A flag per unit this client volunteered for (chain: is a candidate
    // of), in the leader's order.
    auto flagged = [&](const election_unit& u) {
      return chained() ? u.source != self_ : u.volunteered;
    };
    std::size_t mine = 0, others = 0;
    for (auto i : round_led_[p])
      ++(flagged(units_[i]) ? mine : others);
    if (nt.selected.size() != mine)
      return refuse_from(p, "notify",
                         party(p) + " sent the wrong number of flags");
    if (nt.redo > (chained() ? 0 : others))
      return refuse_from(p, "notify",
                         party(p) + " redoes more queries than it may redo");
    std::size_t k = 0;
    for (auto i : round_led_[p]) {
      auto& u = units_[i];
      if (!flagged(u))
        continue;
      auto s = nt.selected[k++];
      if (s > 1)
        return refuse_from(p, "notify",
                           party(p) + " sent a flag that is not 0 or 1");
      if (!s)
        continue;
      if (chained()) {
        draw_selected(u);
        continue;
      }
      u.selected = true;
      if (params_.test_hooks)
        for (auto j = u.first; j < u.first + u.count; ++j)
          noise_draws_[queries_[j].qid] = {queries_[j].n_g, queries_[j].n_h};
    }
    redo_by_[p] = nt.redo;
    redo += nt.redo;
  }
  if (redo > 0) {
    // Alg. 5 l.16–17: the leaders of the units nobody volunteered for send
    // a new threshold (attempt + 1); everybody runs one more round.
    ++round_;
    for (auto i : round_units_) {
      auto& u = units_[i];
      if (u.leader == self_) {
        if (u.pending)
          ++u.attempt;
      } else {
        u.pending = false;
      }
    }
    return begin_round(out);
  }
  send_masked(out);
  phase_ = phase::masked;
  return {};
}

// ---------------------------------------------------------------------------
// Masked replies (Alg. 5 l.22–37, spec §7.5) and the baselines (§10.5)

std::uint64_t client::mask(std::uint64_t qid, const char (&ctx)[9],
                           party_id source) const {
  // crypto::pairwise_mask for one word, without its per-call buffer: for
  // every peer c' but the source, +PRG(KDF(S_{c,c'}, qid, ctx)) if c > c',
  // else minus it.
  std::uint64_t acc = 0;
  if (source == self_)
    return acc;
  for (std::size_t k = 0; k < peer_ids_.size(); ++k) {
    if (peer_ids_[k] == static_cast<std::uint32_t>(source))
      continue;
    std::uint64_t w = 0;
    crypto::expand(crypto::derive_key(seeds_[k], qid, ctx), {&w, 1});
    if (static_cast<std::uint32_t>(self_) > peer_ids_[k])
      acc += w;
    else
      acc -= w;
  }
  return acc;
}

bool client::masks_h() const {
  if (!masks() || params_.hessian_noise || params_.hide_labels)
    return masks();
  // A source that queries nothing publishes no `held` bitmap; the label
  // split still follows from the others' when it is the only one. (Before
  // the first batches are read every source counts as silent.)
  auto silent = std::count_if(columns_.begin(), columns_.end(),
                              [](auto& c) { return c.features.empty(); });
  return silent > 1;
}

void client::level_masks() {
  masks_ = masks_state::ready;
  mask_g_.assign(queries_.size(), 0);
  mask_h_.assign(queries_.size(), 0);
  const bool with_h = masks_h();
  if (!vector_masks()) {
    // The paper's masks, one KDF and stream per (peer, query, salt).
    for (std::size_t i = 0; i < queries_.size(); ++i) {
      mask_g_[i] = mask(queries_[i].qid, ctx_g, queries_[i].source);
      if (with_h)
        mask_h_[i] = mask(queries_[i].qid, ctx_h, queries_[i].source);
    }
    return;
  }
  // [D] chain and per_batch (spec §13.3, "vector masks"): one KDF per
  // (peer, source batch, salt), keyed by the batch's id (its first qid,
  // unique in the session), and one ChaCha20 stream whose word j masks the
  // batch's query j. Same cancellation and the same per-query
  // independence, at one KDF per batch instead of one per query.
  std::vector<std::uint64_t> stream;
  for (party_id source = 0; source < n_; ++source) {
    auto first = first_[source], count = first_[source + 1] - first;
    if (count == 0 || source == self_)
      continue;
    auto id = queries_[first].qid;
    stream.resize(count);
    for (std::size_t k = 0; k < peer_ids_.size(); ++k) {
      if (peer_ids_[k] == static_cast<std::uint32_t>(source))
        continue;
      bool plus = static_cast<std::uint32_t>(self_) > peer_ids_[k];
      for (int salt = 0; salt < (with_h ? 2 : 1); ++salt) {
        crypto::expand(
            crypto::derive_key(seeds_[k], id, salt == 0 ? ctx_g : ctx_h),
            stream);
        auto* out = (salt == 0 ? mask_g_ : mask_h_).data() + first;
        for (std::size_t j = 0; j < count; ++j)
          out[j] += plus ? stream[j] : 0 - stream[j];
      }
    }
  }
}

void client::send_masked(outbox& out) {
  // feverless: masks (below); ahe: the same values without masks, Paillier-
  // encrypted under the source's key (spec §10.5).
  if (masks() && masks_ != masks_state::ready)
    level_masks();
  masks_ = masks_state::none;
  std::vector<masked_sums> msgs(masks() ? n_ : 0);
  std::vector<encrypted_sums> encs(ahe() ? n_ : 0);
  for (party_id p = 0; p < static_cast<party_id>(msgs.size()); ++p) {
    msgs[p].tree = tree_;
    msgs[p].depth = depth_;
    msgs[p].g.reserve(first_[p + 1] - first_[p]);
    msgs[p].h.reserve(first_[p + 1] - first_[p]);
  }
  // ahe: each source's G, H values in its query order, packed below.
  std::vector<std::vector<std::uint64_t>> plain(encs.size());
  own_g_.clear();
  own_h_.clear();
  for (const auto& q : queries_) {
    std::uint64_t g = 0, h = 0;
    // A source's own labels enter its sums exactly, not through its reply
    // (with hide_labels its queries list its own rows too).
    auto i = static_cast<std::size_t>(&q - queries_.data());
    if (q.source != self_) {
      g = part_fixed_[2 * i];
      h = part_fixed_[2 * i + 1];
    }
    if (masks()) {
      // [D] The clients other than the source mask, the leader included,
      // pairwise among themselves, so the terms cancel in their sum. The
      // paper (§7.5 [P]) also pairs each with the source, which holds the
      // seeds of those terms and strips them: they hide nothing from it,
      // and the replies go to it alone (docs/feverless-election.md). [D]
      // H's mask is 0 where H's part is public (masks_h, security.md).
      g += mask_g_[i];
      h += mask_h_[i];
    }
    const auto& u = units_[q.unit];
    // [A] Only selected volunteers subtract their r (§17 #6); chain's add
    // their draw. And the leader its Ñ. By masks, not branches: whether a
    // unit is selected is a coin toss to the branch predictor.
    auto selected = 0 - static_cast<std::uint64_t>(u.selected);
    auto leads = 0 - static_cast<std::uint64_t>(u.leader == self_);
    g += (q.selected_g & selected) + (q.noise_g & leads);
    h += (q.selected_h & selected) + (q.noise_h & leads);
    if (q.source == self_) {
      own_g_.push_back(g);
      own_h_.push_back(h);
    } else if (ahe()) {
      plain[q.source].push_back(g);
      plain[q.source].push_back(h);
    } else {
      msgs[q.source].g.push_back(g);
      msgs[q.source].h.push_back(h);
    }
  }
  for (party_id p = 0; p < static_cast<party_id>(encs.size()); ++p) {
    // [D] SecureBoost's packing: the Z_{2^64} values G_0, H_0, G_1, ... of
    // one source, as many per plaintext as sums of n - 1 replies keep apart
    // (with 4 clients, 15 at 1024 bits and 30 at 2048); the source reduces
    // each slot of the decrypted sum mod 2^64.
    auto& e = encs[p];
    e.tree = tree_;
    e.depth = depth_;
    if (p == self_)
      continue;
    const auto& pk = *paillier_peers_[p];
    paillier::packing pack(pk, static_cast<std::size_t>(n_ - 1));
    const auto& v = plain[p];
    auto w = pk.ciphertext_bytes();
    std::vector<paillier::integer> packed;
    for (std::size_t at = 0; at < v.size(); at += pack.slots())
      packed.push_back(pack.pack(
          std::span(v).subspan(at, std::min(pack.slots(), v.size() - at))));
    auto cs = pk.encrypt_all(packed, rng_, params_.paillier_threads);
    e.g.resize(cs.size() * w);
    for (std::size_t k = 0; k < cs.size(); ++k)
      pk.write(cs[k], std::span(e.g).subspan(k * w, w));
  }
  for (party_id p = 0; p < n_; ++p) {
    if (p == self_)
      continue;
    if (ahe())
      send(out, p, std::move(encs[p]));
    else
      send(out, p, std::move(msgs[p]));
  }
}

void client::send_plain(outbox& out) {
  std::vector<plain_sums> msgs(n_);
  for (auto& m : msgs) {
    m.tree = tree_;
    m.depth = depth_;
  }
  for (const auto& q : queries_) {
    if (q.source == self_)
      continue;
    double g = 0, h = 0;
    if (fixed_sums()) {
      // [D] LDP (§10.5): every non-source client noises its own sums with
      // the same sigma, whether or not it holds any of the ids, in the
      // fixed point (the integer sum plus an integer noise, sent as the
      // double it decodes to: a function of the noisy integer only).
      auto i = static_cast<std::size_t>(&q - queries_.data());
      std::uint64_t ig = draw_noise(noise_lane::g),
                    ih = draw_noise(noise_lane::h);
      ig += part_fixed_[2 * i];
      ih += part_fixed_[2 * i + 1];
      g = fp_.decode(ig);
      h = fp_.decode(ih);
    } else {
      auto i = static_cast<std::size_t>(&q - queries_.data());
      g = part_double_[2 * i];
      h = part_double_[2 * i + 1];
    }
    msgs[q.source].g.push_back(g);
    msgs[q.source].h.push_back(h);
  }
  for (party_id p = 0; p < n_; ++p)
    if (p != self_)
      send(out, p, std::move(msgs[p]));
}

client::status client::finish_encrypted(std::vector<std::uint64_t>& sg,
                                        std::vector<std::uint64_t>& sh) {
  // Spec §10.5: the source multiplies the ciphertexts (adds the plaintexts)
  // and decrypts; the sum of the signed plaintexts is congruent to
  // sum_c G^(c) mod 2^64, and added to its own value it is the same raw
  // aggregate as the masked protocol's.
  auto mine = sg.size();
  const auto& pk = paillier_key_->public_part();
  auto w = pk.ciphertext_bytes();
  paillier::packing pack(pk, static_cast<std::size_t>(n_ - 1));
  auto cts = pack.ciphertexts(2 * mine);
  std::vector<paillier::ciphertext> acc(cts, pk.zero());
  for (party_id p = 0; p < n_; ++p) {
    if (p == self_)
      continue;
    const auto& es = as<encrypted_sums>(got_[p]);
    if (es.tree != tree_ || es.depth != depth_)
      return refuse_from(p, "encrypted",
                         party(p) + "'s sums are for another level");
    if (es.g.size() != cts * w || !es.h.empty())
      return refuse_from(p, "encrypted",
                         party(p) + " sent " + std::to_string(es.g.size()) +
                             " bytes of ciphertexts for " +
                             std::to_string(mine) + " queries");
    for (std::size_t k = 0; k < cts; ++k) {
      auto c = pk.read(std::span(es.g).subspan(k * w, w));
      if (!c)
        return refuse_from(p, "encrypted",
                           party(p) + " sent a value that is not a ciphertext");
      pk.add_to(acc[k], *c);
    }
  }
  std::vector<std::uint64_t> values(2 * mine);
  auto sums = paillier_key_->decrypt_all(acc, params_.paillier_threads);
  for (std::size_t k = 0, at = 0; k < cts; ++k, at += pack.slots()) {
    auto slots = std::span(values).subspan(
        at, std::min(pack.slots(), values.size() - at));
    try {
      pack.unpack(sums[k], slots);
    } catch (const std::invalid_argument&) {
      // Honest replies cannot overflow a slot: some reply was forged.
      return refuse("encrypted", "a decrypted sum does not fit its slots: a "
                                 "reply was not a packed plaintext");
    }
  }
  for (std::size_t k = 0; k < mine; ++k) {
    sg[k] += values[2 * k];
    sh[k] += values[2 * k + 1];
  }
  return {};
}

client::status client::finish_masked(outbox& out) {
  auto mine = first_[self_ + 1] - first_[self_];
  // The aggregate of each own query: raw (mod 2^64) in the fixed-point
  // modes, a double sum in plain mode.
  std::vector<std::uint64_t> rg(mine, 0), rh(mine, 0);
  std::vector<double> dg(mine, 0), dh(mine, 0);
  if (elects()) {
    // Spec §7.7: sum_c G^(c) = sum g over mIDs + the selected noise (mod N).
    rg = own_g_;
    rh = own_h_;
    if (ahe()) {
      if (auto err = finish_encrypted(rg, rh))
        return err;
    } else {
      for (party_id p = 0; p < n_; ++p) {
        if (p == self_)
          continue;
        const auto& ms = as<masked_sums>(got_[p]);
        if (ms.tree != tree_ || ms.depth != depth_)
          return refuse_from(p, "masked",
                             party(p) + "'s sums are for another level");
        if (ms.g.size() != mine || ms.h.size() != mine)
          return refuse_from(
              p, "masked",
              party(p) + " sent sums for " + std::to_string(ms.g.size()) +
                  " queries, this client asked " + std::to_string(mine));
        for (std::size_t k = 0; k < mine; ++k) {
          rg[k] += ms.g[k];
          rh[k] += ms.h[k];
        }
      }
    }
    for (std::size_t k = 0; k < mine; ++k) {
      const auto& q = queries_[first_[self_] + k];
      // [D] Spec §7.7 backstop: with one reply missing or corrupt the sum
      // is uniform in Z_N and lands in this range with probability about
      // 2 bound 2^F / 2^64. (No retry, §10.4: the session ends.)
      if (!in_range(fp_.decode(rg[k]), fp_.decode(rh[k]), q.id_count,
                    noise_draws_max()))
        return refuse(phase_name(),
                      "the aggregate of a query is out of "
                      "range: a " +
                          std::string(ahe() ? "encrypted" : "masked") +
                          " reply is corrupt");
    }
  } else {
    bool ldp = params_.protocol == mode::ldp;
    for (party_id p = 0; p < n_; ++p) {
      if (p == self_)
        continue;
      const auto& ps = as<plain_sums>(got_[p]);
      if (ps.tree != tree_ || ps.depth != depth_)
        return refuse_from(p, "plain_sums",
                           party(p) + "'s sums are for another level");
      if (ps.g.size() != mine || ps.h.size() != mine)
        return refuse_from(
            p, "plain_sums",
            party(p) + " sent sums for " + std::to_string(ps.g.size()) +
                " queries, this client asked " + std::to_string(mine));
      for (std::size_t k = 0; k < mine; ++k) {
        // One client's partial sum: |g| < 1, 0 < h <= 1/4 per label, plus
        // (LDP) one noise draw.
        if (!in_range(ps.g[k], ps.h[k], queries_[first_[self_] + k].id_count,
                      ldp ? 1 : 0))
          return refuse_from(p, "plain_sums",
                             party(p) + " sent a sum that is out "
                                        "of range");
        if (ldp) {
          // An integer count of 2^-F, exactly (below 2^53 units: checked
          // at setup).
          rg[k] += static_cast<std::uint64_t>(
              std::llround(std::ldexp(ps.g[k], params_.frac_bits)));
          rh[k] += static_cast<std::uint64_t>(
              std::llround(std::ldexp(ps.h[k], params_.frac_bits)));
        } else {
          dg[k] += ps.g[k];
          dh[k] += ps.h[k];
        }
      }
    }
  }
  // [D] The source's own draw on every gradient sum (params::source_noise):
  // the client that drew a query's noise knows it, and the hessian sums are
  // public, so without a draw it does not know, that client would undo the
  // noise from a broadcast weight or gain.
  std::vector<std::uint64_t> source_g(mine, 0);
  if (params_.source_noise)
    for (auto& x : source_g)
      x = draw_noise(noise_lane::g);
  if (params_.test_hooks && fixed_sums())
    for (std::size_t k = 0; k < mine; ++k) {
      const auto& q = queries_[first_[self_] + k];
      traces_.push_back({q.qid, elects() ? units_[q.unit].leader : -1,
                         elects() ? units_[q.unit].id : q.qid,
                         std::vector<std::uint32_t>(q.ids.begin(), q.ids.end()),
                         rg[k], rh[k], own_bucket_rows_[k], source_g[k],
                         vector_masks() ? queries_[first_[self_]].qid : q.qid,
                         vector_masks() ? k : 0});
    }
  // Spec §7.7, §8.1: bucket sums = decoded part + exact own part; best
  // split over this client's features (lower feature, then lower bucket
  // on ties); node totals from the best feature (else the first queried).
  auto nodes = frontier_.size();
  best_.assign(nodes, {});
  totals_.assign(nodes, {});
  has_totals_.assign(nodes, 0);
  auto& ob = own_buckets_;
  for (const auto& of : own_features_) {
    auto part = [&](auto& column) {
      return std::span(column).subspan(of.at, of.buckets);
    };
    auto g = part(ob.g), h = part(ob.h);
    auto own_g = part(ob.own_g), own_h = part(ob.own_h);
    auto query = part(ob.query);
    for (std::size_t z = 0; z < of.buckets; ++z) {
      auto k = static_cast<std::size_t>(query[z]);
      if (fixed_sums()) {
        // One decoding of the whole noisy integer sum (own rows included):
        // what the gains and weights see is a function of it alone. (A
        // bucket without a query is empty: 0.)
        g[z] = fp_.decode(own_g[z] + (query[z] >= 0 ? rg[k] + source_g[k] : 0));
        h[z] = fp_.decode(own_h[z] + (query[z] >= 0 ? rh[k] : 0));
      } else if (query[z] >= 0) {
        g[z] += dg[k];
        h[z] += dh[k];
      }
    }
    auto s = best_bucket_split(
        of.feature, {g, h, part(ob.count), of.missing_slot}, params_.lambda,
        params_.gamma, params_.max_delta_step);
    auto pos = of.node_pos;
    if (!has_totals_[pos]) {
      has_totals_[pos] = 1;
      for (std::size_t z = 0; z < of.buckets; ++z) {
        totals_[pos].g += g[z];
        totals_[pos].h += h[z];
      }
    }
    if (s.valid() && (!best_[pos].valid() || s.gain > best_[pos].gain)) {
      best_[pos] = s;
      totals_[pos] = s.left + s.right;
    }
  }
  // Alg. 2 l.21: only the scalar L^(c) leaves; feature, bucket and
  // threshold stay private.
  my_gains_ = {};
  my_gains_.tree = tree_;
  my_gains_.depth = depth_;
  for (std::size_t pos = 0; pos < nodes; ++pos)
    my_gains_.gains.push_back(best_[pos].valid() ? best_[pos].gain : -inf);
  my_gains_.has_totals = has_totals_;
  broadcast(out, my_gains_);
  phase_ = phase::gain;
  return {};
}

int client::noise_draws_max() const {
  // k <= n - 2 selected volunteers; the n = 2 leader draws once.
  return std::max(1, n_ - 2);
}

bool client::in_range(double g, double h, std::size_t ids, int draws) const {
  auto count = static_cast<double>(ids);
  double ng = draws * noise_bound_g_;
  double nh = draws * noise_bound_h_;
  // Slack for the fixed-point rounding of each encoded value.
  double slack = 1e-6 * (count + 1);
  return std::isfinite(g) && std::isfinite(h) &&
         std::fabs(g) <= count + ng + slack && h >= -nh - slack &&
         h <= 0.25 * count + nh + slack;
}

// ---------------------------------------------------------------------------
// Global decision, split and leaf weights (Alg. 2 l.23–34, spec §8.2–8.3)

client::status client::finish_gain(outbox& out) {
  auto nodes = frontier_.size();
  for (party_id p = 0; p < n_; ++p) {
    if (p == self_)
      continue;
    const auto& g = as<best_gains>(got_[p]);
    if (g.tree != tree_ || g.depth != depth_)
      return refuse_from(p, "gain",
                         party(p) + "'s gains are for another level");
    if (g.gains.size() != nodes || g.has_totals.size() != nodes)
      return refuse_from(p, "gain",
                         party(p) + " sent gains for " +
                             std::to_string(g.gains.size()) +
                             " nodes, the level has " + std::to_string(nodes));
    for (std::size_t pos = 0; pos < nodes; ++pos)
      if (bad_double(g.gains[pos]) || g.has_totals[pos] > 1 ||
          (g.gains[pos] != -inf && !g.has_totals[pos]))
        return refuse_from(p, "gain", party(p) + " sent an impossible gain");
  }
  auto gains_of = [&](party_id c) -> const best_gains& {
    return c == self_ ? my_gains_ : as<best_gains>(got_[c]);
  };
  plans_.assign(nodes, {});
  for (std::size_t pos = 0; pos < nodes; ++pos) {
    auto& plan = plans_[pos];
    // c* = argmax L^(c), ties to the lowest index [D] (§8.2).
    double best = -inf;
    for (party_id c = 0; c < n_; ++c) {
      double g = gains_of(c).gains[pos];
      if (plan.splitter < 0 || g > best) {
        plan.splitter = c;
        best = g;
      }
    }
    plan.gain = best;
    // Alg. 2 l.24: a leaf if L_max <= thr_L.
    plan.split = best > params_.split_threshold;
    if (plan.split)
      continue;
    // [D] §8.3: a stopped node is weighed by c* from its own totals; when
    // c* has none (no queried feature at the node), by the best client
    // that has; when none has, the parent splitter's weight stays.
    double wbest = -inf;
    for (party_id c = 0; c < n_; ++c) {
      const auto& g = gains_of(c);
      if (!g.has_totals[pos])
        continue;
      if (plan.weigher < 0 || g.gains[pos] > wbest) {
        plan.weigher = c;
        wbest = g.gains[pos];
      }
    }
  }
  my_decisions_ = {};
  my_decisions_.tree = tree_;
  my_decisions_.depth = depth_;
  for (std::size_t pos = 0; pos < nodes; ++pos) {
    const auto& plan = plans_[pos];
    auto node = frontier_[pos];
    if (plan.split && plan.splitter == self_) {
      // §8.2: c* splits the node's rows (left iff bucket <= z*) and, as the
      // parent splitter (§8.3 default), weighs both children from its noisy
      // sums.
      const auto& s = best_[pos];
      auto rows = partition_.rows_of(node);
      std::vector<std::uint8_t> flags(rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i)
        flags[i] = bins_.missing(rows[i], static_cast<std::size_t>(s.feature))
                       ? s.default_left
                       : bins_.bin(rows[i], s.feature) <= s.bucket;
      append_bits(my_decisions_.goes_left_bits, flags);
      my_decisions_.split_nodes.push_back(node);
      my_decisions_.left_weights.push_back(
          leaf_weight(s.left, params_.lambda, params_.max_delta_step));
      my_decisions_.right_weights.push_back(
          leaf_weight(s.right, params_.lambda, params_.max_delta_step));
      own_splits_[{tree_, node}] = {s.feature, s.bucket,
                                    cuts_.threshold(s.feature, s.bucket),
                                    s.default_left};
    } else if (!plan.split && plan.weigher == self_) {
      my_decisions_.leaf_nodes.push_back(node);
      my_decisions_.leaf_weights.push_back(
          leaf_weight(totals_[pos], params_.lambda, params_.max_delta_step));
    }
  }
  broadcast(out, my_decisions_);
  phase_ = phase::decide;
  return {};
}

client::status client::finish_decide(outbox& out) {
  auto nodes = frontier_.size();
  auto decisions_of = [&](party_id c) -> const node_decisions& {
    return c == self_ ? my_decisions_ : as<node_decisions>(got_[c]);
  };
  for (party_id p = 0; p < n_; ++p) {
    if (p == self_)
      continue;
    const auto& d = as<node_decisions>(got_[p]);
    if (d.tree != tree_ || d.depth != depth_)
      return refuse_from(p, "split",
                         party(p) + "'s decisions are for another level");
    std::vector<std::int32_t> splits, leaves;
    std::size_t bytes = 0;
    for (std::size_t pos = 0; pos < nodes; ++pos) {
      const auto& plan = plans_[pos];
      if (plan.split && plan.splitter == p) {
        splits.push_back(frontier_[pos]);
        bytes += packed_size(partition_.size(frontier_[pos]));
      } else if (!plan.split && plan.weigher == p) {
        leaves.push_back(frontier_[pos]);
      }
    }
    if (d.split_nodes != splits || d.leaf_nodes != leaves)
      return refuse_from(p, "split",
                         party(p) + " decided other nodes than it won");
    if (d.goes_left_bits.size() != bytes ||
        d.left_weights.size() != splits.size() ||
        d.right_weights.size() != splits.size() ||
        d.leaf_weights.size() != leaves.size())
      return refuse_from(p, "split", party(p) + "'s field lengths differ");
    for (const auto* v : {&d.left_weights, &d.right_weights, &d.leaf_weights})
      for (double w : *v)
        if (!std::isfinite(w))
          return refuse_from(p, "split",
                             party(p) + " sent a weight that is not "
                                        "finite");
  }
  struct cursor {
    std::size_t split = 0, byte = 0, leaf = 0;
  };
  std::vector<cursor> at(n_);
  struct pending_split {
    std::size_t pos;
    double left_weight, right_weight;
  };
  std::vector<pending_split> to_expand;
  std::vector<std::vector<std::uint8_t>> flags;
  flags.reserve(nodes);
  std::vector<learners::node_split> splits;
  auto next_id = static_cast<std::int32_t>(building_.nodes.size());
  for (std::size_t pos = 0; pos < nodes; ++pos) {
    const auto& plan = plans_[pos];
    auto node = frontier_[pos];
    if (plan.split) {
      const auto& d = decisions_of(plan.splitter);
      auto& c = at[plan.splitter];
      auto rows = partition_.size(node);
      flags.push_back(unpack_bits(d.goes_left_bits, c.byte, rows));
      c.byte += packed_size(rows);
      to_expand.push_back(
          {pos, d.left_weights[c.split], d.right_weights[c.split]});
      ++c.split;
      // Children ids in frontier order, left then right, as learners'
      // tree_grower hands them out.
      splits.push_back({node, next_id, next_id + 1, flags.back()});
      next_id += 2;
    } else {
      double w = pending_weight_[node];
      if (plan.weigher >= 0)
        w = decisions_of(plan.weigher).leaf_weights[at[plan.weigher].leaf++];
      auto& n = building_.nodes[node];
      n.left = n.right = -1;
      n.value = static_cast<float>(params_.eta * w);
    }
  }
  try {
    partition_.split(splits);
  } catch (const std::invalid_argument&) {
    return refuse("split", "the split bits do not partition the nodes");
  }
  std::vector<std::int32_t> next;
  for (const auto& t : to_expand) {
    auto node = frontier_[t.pos];
    auto lid = add_node(node, t.left_weight);
    auto rid = add_node(node, t.right_weight);
    auto& n = building_.nodes[node];
    n.left = lid;
    n.right = rid;
    n.owner = plans_[t.pos].splitter;
    n.feature = -1;
    n.bin = -1;
    n.threshold = std::numeric_limits<float>::quiet_NaN();
    n.gain = static_cast<float>(2 * (plans_[t.pos].gain + params_.gamma));
    for (auto child : {lid, rid}) {
      // A node at depth d is a leaf (§5): its weight is the splitter's.
      if (node_depth_[child] >= params_.max_depth)
        building_.nodes[child].value =
            static_cast<float>(params_.eta * pending_weight_[child]);
      else
        next.push_back(child);
    }
  }
  frontier_ = std::move(next);
  if (frontier_.empty()) {
    finish_tree(out);
    return {};
  }
  ++depth_;
  begin_level(out);
  return {};
}

void client::finish_tree(outbox& out) {
  // Alg. 2 l.34: the clients update the margins of the labels they hold.
  for (std::size_t id = 0; id < building_.nodes.size(); ++id) {
    const auto& n = building_.nodes[id];
    if (!n.is_leaf())
      continue;
    double v = n.value;
    auto rows = partition_.rows_of(static_cast<std::int32_t>(id));
    accountant_.count_records(rows, node_joined_[id]);
    for (auto r : rows) {
      auto k = own_index_[r];
      if (k >= 0)
        margins_[static_cast<std::size_t>(k)] += v;
    }
  }
  model_.trees.push_back(std::move(building_));
  building_ = {};
  if (pause_between_trees_) { // the session decides: next_tree or stop
    phase_ = phase::between_trees;
    return;
  }
  if (tree_ + 1 < params_.trees) {
    begin_tree(out);
    return;
  }
  phase_ = phase::trained;
}

outcome<outbox> client::next_tree() {
  if (phase_ != phase::between_trees || tree_ + 1 >= params_.trees)
    throw std::logic_error("feverless::client: next tree when not between "
                           "trees or after the last");
  outbox out;
  begin_tree(out);
  auto more = advance(); // what the others sent for it already
  if (!more)
    return more;
  for (auto& m : *more)
    out.push_back(std::move(m));
  return out;
}

void client::stop_training(std::size_t keep) {
  if (phase_ != phase::between_trees)
    throw std::logic_error("feverless::client: stop when not between trees");
  if (keep < model_.trees.size())
    model_.trees.resize(keep);
  // The dropped trees' splits are no part of the model.
  std::erase_if(own_splits_, [&](const auto& entry) {
    return static_cast<std::size_t>(entry.first.first) >= keep;
  });
  phase_ = phase::trained;
}

// ---------------------------------------------------------------------------
// Federated prediction (spec §9)

client::client(restore_tag, party_id self, party_id parties)
    : self_(self), n_(parties), fp_(params_.frac_bits) {}

std::unique_ptr<client> client::restored(party_id self, party_id parties,
                                         learners::model public_model,
                                         split_table own_splits,
                                         learners::dataset predict) {
  if (parties < 1 || static_cast<std::uint32_t>(parties) > max_qid_sources ||
      self < 0 || self >= parties)
    throw input_error("feverless: client " + std::to_string(self) + " of " +
                      std::to_string(parties));
  for (std::size_t t = 0; t < public_model.trees.size(); ++t) {
    const auto& nodes = public_model.trees[t].nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const auto& n = nodes[i];
      if (n.is_leaf())
        continue;
      if (n.owner < 0 || n.owner >= parties)
        throw input_error("the model's tree " + std::to_string(t) + " node " +
                          std::to_string(i) + " belongs to client " +
                          std::to_string(n.owner) + ", not one of the " +
                          std::to_string(parties) + " in this session");
      auto key =
          std::pair{static_cast<std::int32_t>(t), static_cast<std::int32_t>(i)};
      if (n.owner == self && !own_splits.contains(key))
        throw input_error("the split table has no split at tree " +
                          std::to_string(t) + " node " + std::to_string(i) +
                          ", which the model says is this client's");
    }
  }
  for (const auto& [key, s] : own_splits)
    if (s.feature < 0 ||
        static_cast<std::size_t>(s.feature) >= predict.features())
      throw input_error("the split table's split at tree " +
                        std::to_string(key.first) + " node " +
                        std::to_string(key.second) + " is on no column");
  std::unique_ptr<client> c(new client(restore_tag{}, self, parties));
  c->data_ = predict.select_rows({}); // the columns, for the checks
  c->model_ = std::move(public_model);
  c->own_splits_ = std::move(own_splits);
  c->predict_data_ = std::move(predict);
  c->phase_ = phase::trained;
  return c;
}

void client::set_predict_data(learners::dataset d) {
  if (d.features() != data_.features())
    throw input_error(
        "feverless: the prediction data has " + std::to_string(d.features()) +
        " features, the training data had " + std::to_string(data_.features()));
  predict_data_ = std::move(d);
}

outbox client::start_predict(learners::dataset own_eval) {
  if (!training_done())
    throw std::logic_error("feverless::client: predict before training ended");
  return start_predict(std::move(own_eval), 0);
}

outbox client::start_predict(learners::dataset own_eval,
                             std::size_t first_tree) {
  if (!training_done() && !between_trees())
    throw std::logic_error("feverless::client: predict while a tree grows");
  if (first_tree > model_.trees.size())
    throw std::logic_error("feverless::client: predict from a tree beyond "
                           "the model");
  if (own_eval.features() != data_.features())
    throw input_error("feverless: the prediction data has " +
                      std::to_string(own_eval.features()) +
                      " features, the training data had " +
                      std::to_string(data_.features()));
  eval_ = std::move(own_eval);
  first_tree_ = first_tree;
  positions_.assign((model_.trees.size() - first_tree_) * eval_.rows(), 0);
  split_at_.assign(model_.trees.size(), {});
  for (std::size_t t = 0; t < model_.trees.size(); ++t)
    split_at_[t].assign(model_.trees[t].nodes.size(), nullptr);
  for (const auto& [key, s] : own_splits_)
    if (static_cast<std::size_t>(key.first) < split_at_.size() &&
        static_cast<std::size_t>(key.second) < split_at_[key.first].size())
      split_at_[key.first][key.second] = &s;
  predict_step_ = 0;
  predict_phase_ = predict_phase::asking;
  return predict_step();
}

outbox client::predict_step() {
  auto rows = eval_.rows();
  // Walk own splits as far as they go; group the rows waiting at another
  // client's split by (tree, node), both ascending, rows ascending.
  outbox out;
  asked_.assign(n_, {});
  waiting_.assign(n_, false);
  for (auto& q : asked_) {
    q.step = predict_step_;
    q.offsets.push_back(0);
  }
  std::vector<std::uint32_t> at; // per node: its rows' start, then end
  for (std::size_t t = first_tree_; t < model_.trees.size(); ++t) {
    const auto& nodes = model_.trees[t].nodes;
    const auto& splits = split_at_[t];
    auto* pos_of = positions_.data() + (t - first_tree_) * rows;
    at.assign(nodes.size() + 1, 0);
    for (std::size_t i = 0; i < rows; ++i) {
      auto pos = pos_of[i];
      while (!nodes[pos].is_leaf() && nodes[pos].owner == self_) {
        const auto* s = splits[pos];
        if (!s) // a split of its own it does not hold
          throw std::out_of_range("feverless::client: no own split at tree " +
                                  std::to_string(t) + " node " +
                                  std::to_string(pos));
        pos = s->goes_left(eval_.value(i, static_cast<std::size_t>(s->feature)))
                  ? nodes[pos].left
                  : nodes[pos].right;
      }
      pos_of[i] = pos;
      if (!nodes[pos].is_leaf())
        ++at[pos + 1];
    }
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      if (at[k + 1] == 0)
        continue;
      auto& q = asked_[nodes[k].owner];
      q.trees.push_back(static_cast<std::int32_t>(t));
      q.nodes.push_back(static_cast<std::int32_t>(k));
      q.offsets.push_back(q.offsets.back() + at[k + 1]);
      at[k + 1] = static_cast<std::uint32_t>(q.rows.size()); // where next
      q.rows.resize(q.offsets.back());
    }
    for (std::size_t i = 0; i < rows; ++i) {
      auto pos = pos_of[i];
      if (!nodes[pos].is_leaf())
        asked_[nodes[pos].owner].rows[at[pos + 1]++] =
            static_cast<std::uint32_t>(i);
    }
  }
  for (party_id p = 0; p < n_; ++p) {
    if (asked_[p].trees.empty())
      continue;
    send(out, p, asked_[p]);
    waiting_[p] = true;
  }
  if (!out.empty()) {
    ++predict_step_;
    return out;
  }
  predicted_.assign(rows, 0);
  for (std::size_t i = 0; i < rows; ++i) {
    // A round's trees alone (first_tree_ > 0) start from 0, not the base.
    auto acc =
        first_tree_ == 0 ? static_cast<float>(model_.base_margin[0]) : 0.0f;
    for (std::size_t t = first_tree_; t < model_.trees.size(); ++t)
      acc +=
          model_.trees[t].nodes[positions_[(t - first_tree_) * rows + i]].value;
    predicted_[i] = acc;
  }
  predict_phase_ = predict_phase::done;
  return out;
}

learners::staged_margins client::staged_margins() const {
  if (first_tree_ != 0)
    throw std::logic_error("feverless::client: staged margins of a round's "
                           "prediction");
  auto rows = eval_.rows();
  return learners::stage_margins(
      model_, rows, [&](std::size_t t, std::size_t i) {
        return model_.trees[t].nodes[positions_[t * rows + i]].value;
      });
}

outcome<outbox> client::on_predict_query(party_id from,
                                         const predict_query& m) {
  auto k = m.nodes.size();
  if (m.trees.size() != k || m.offsets.size() != k + 1 || m.offsets[0] != 0 ||
      m.offsets.back() != m.rows.size())
    return refuse_from(from, "predict_query",
                       party(from) + "'s field lengths differ");
  predict_answer reply;
  reply.step = m.step;
  for (std::size_t i = 0; i < k; ++i) {
    auto it = own_splits_.find({m.trees[i], m.nodes[i]});
    if (it == own_splits_.end())
      return refuse("predict_query", "no split of this client at tree " +
                                         std::to_string(m.trees[i]) + " node " +
                                         std::to_string(m.nodes[i]));
    if (m.offsets[i] > m.offsets[i + 1])
      return refuse_from(from, "predict_query",
                         party(from) + "'s offsets decrease");
    std::vector<std::uint8_t> flags;
    for (auto j = m.offsets[i]; j < m.offsets[i + 1]; ++j) {
      auto r = m.rows[j];
      if (r >= predict_data_.rows())
        return refuse_from(from, "predict_query",
                           party(from) + " asked a row out of "
                                         "range");
      flags.push_back(it->second.goes_left(predict_data_.value(
                          r, static_cast<std::size_t>(it->second.feature)))
                          ? 1
                          : 0);
    }
    append_bits(reply.goes_left_bits, flags);
  }
  outbox out;
  send(out, from, std::move(reply));
  return out;
}

outcome<outbox> client::on_predict_answer(party_id from,
                                          const predict_answer& m) {
  if (predict_phase_ != predict_phase::asking || !waiting_[from])
    return refuse_from(from, "predict_answer",
                       party(from) + " answered unasked");
  const auto& q = asked_[from];
  if (m.step != q.step)
    return refuse_from(from, "predict_answer",
                       party(from) + " answered another step");
  std::size_t need = 0;
  for (std::size_t g = 0; g < q.nodes.size(); ++g)
    need += packed_size(q.offsets[g + 1] - q.offsets[g]);
  if (m.goes_left_bits.size() != need)
    return refuse_from(from, "predict_answer",
                       party(from) + " sent the wrong number of "
                                     "bits");
  auto rows = eval_.rows();
  std::size_t offset = 0;
  for (std::size_t g = 0; g < q.nodes.size(); ++g) {
    auto count = q.offsets[g + 1] - q.offsets[g];
    auto left = unpack_bits(m.goes_left_bits, offset, count);
    offset += packed_size(count);
    const auto& nd = model_.trees[q.trees[g]].nodes[q.nodes[g]];
    for (std::size_t j = 0; j < count; ++j) {
      auto i = q.rows[q.offsets[g] + j];
      positions_[(static_cast<std::size_t>(q.trees[g]) - first_tree_) * rows +
                 i] = left[j] ? nd.left : nd.right;
    }
  }
  waiting_[from] = false;
  if (std::any_of(waiting_.begin(), waiting_.end(), [](bool w) { return w; }))
    return outbox{};
  return predict_step();
}

// ---------------------------------------------------------------------------
// Test hooks

std::optional<std::uint64_t> client::pair_stream(party_id peer,
                                                 std::uint64_t key,
                                                 bool hessian,
                                                 std::size_t word) const {
  if (!params_.test_hooks)
    return std::nullopt;
  for (std::size_t k = 0; k < peer_ids_.size(); ++k) {
    if (peer_ids_[k] != static_cast<std::uint32_t>(peer))
      continue;
    std::vector<std::uint64_t> w(word + 1);
    crypto::expand(crypto::derive_key(seeds_[k], key, hessian ? ctx_h : ctx_g),
                   w);
    return w[word];
  }
  return std::nullopt;
}

} // namespace veil::protocols::feverless
