#pragma once

// The messages of FEVERLESS and its plain / LDP / AHE baselines (spec
// feverless §7.2, §8, §9, §10.5). Plain structs, no CAF: messages/
// feverless.hpp binds them to the wire.
//
// [D] Batching (spec §6 notes, §13.3): all clients act as sources at once,
// level by level, and every phase sends ONE message per sender per receiver
// carrying vectors, but (with the default election_scope::chain and with
// signed_query) every query keeps its own qid, leader, threshold and noise
// exactly as the per-query protocol of §7.2; election_scope::per_batch
// shares the election of a source's batch (params.hpp). Every phase
// is all-to-all, one message from each client to each other client, even
// when it carries nothing for that receiver: the redo of the noise step
// (Alg. 5 l.16–17) needs a barrier that every client can see, and with a
// fixed message pattern each receiver knows exactly what to wait for (a
// missing message is a stall that the actor's timeout turns into an abort).
//
// Per level the phases are (n = number of clients):
//   feverless, n >= 3: query, lead, (thresh, noise, notify)+, masked, gain,
//                      decision (chain: query, lead, notify, masked, ...;
//                      chain with n <= client::max_hinted_clients: query,
//                      lead, masked, ..., the selections coming with LEAD)
//   feverless, n = 2:  query, masked, gain, decision   (spec §7.4, n = 2;
//                      also any level without queries, as all can see)
//   ahe:               as feverless, with encrypted in place of masked
//   plain, ldp:        query, plain_sums, gain, decision
// Within a phase the order of items is canonical: queries are ordered by
// source, then in the source's order (ascending qid, see qid.hpp), and a
// message lists items for exactly the queries the receiver can work out.
//
// Election units: the lead, thresh, noise and notify phases work on
// election units, groups of queries that share one leader, threshold and
// volunteer selection (params::election). With chain and signed_query
// (the paper) a unit is one query; with per_batch it is all queries of one
// source at the level. A unit is named by the qid of its first query and
// units are in canonical query order.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "protocols/bits.hpp"
#include "protocols/crypto/identity.hpp"
#include "protocols/crypto/lottery.hpp"

namespace veil::protocols::feverless {

/// A client's index, 0 .. n-1 (the mask signs follow this order).
using party_id = std::int32_t;

/// Setup (spec §4.3, Alg. 3): the sender's one-time X25519 key, signed
/// with its long-term Ed25519 identity over
///   session_key::announcement(session, sender, key) || params_digest ||
///   rows || labels || features   (4 B LE each).
/// The counts let every client check the session's shape: the same rows,
/// labels held summing to the rows, and f = sum of features for the
/// privacy bound. Plain / LDP: key and sig are zero and unchecked.
/// AHE: no session key (zero); the sender's Paillier public key follows: n
/// then the fixed base h_s of its encryption randomness (big-endian,
/// paillier_bits / 8 and paillier_bits / 4 bytes; paillier.hpp), signed as
/// || len (4 B LE) || n || h_s after the fields above.
struct key_announce {
  std::uint32_t rows = 0;
  std::uint32_t labels = 0;
  std::uint32_t features = 0;
  std::array<std::uint8_t, 32> params_digest{};
  crypto::public_key session_key{};
  crypto::signature sig{};
  std::vector<std::uint8_t> paillier_key;
  /// Chain election only: the tips of the sender's public and noise hash
  /// chains (32 B each), signed as || 64 (4 B LE) || tips after the fields
  /// above (and the Paillier key).
  std::vector<std::uint8_t> lottery_tips;
};

/// Label census (setup, after the keys), each client -> all: one byte per
/// row, 1 if the sender holds the row's label, else 0, plus its pairwise
/// mask bytes (feverless mode: +PRG(KDF(S_{c,c'}, 0, "VeilCens")) per
/// byte if c > c', minus it otherwise, mod 256). The sum over all clients
/// is each row's number of label holders, which must be 1 for every row
/// (spec §3, Def. 1). [D] Not in the paper, whose clients trust the label
/// split; the counts in key_announce cannot see two clients labelling one
/// row while another row has no label. Without params::hide_labels the
/// label split is public once the queries start (their missing ids, spec
/// §12.4) and the masks only matter when the census fails; with it, the
/// masks keep the split hidden for the whole session.
/// Plain, LDP and AHE send the bytes unmasked (and each must be 0 or 1).
struct label_census {
  std::vector<std::uint8_t> holds;
};

/// QUERY (§7.2 row 1), source -> all: the sender's queries of this level.
/// Query k has id qids[k] (which holds its node); its missing ids are the rows
/// of that node whose labels the source does not hold (with
/// params::hide_labels all rows of the node) and whose bucket of the qid's
/// feature is the qid's bucket. [D] They are not listed per query: the
/// session's first batch (tree 0, depth 0; the others leave these three
/// fields empty) says once
///   features: the features the source queries (all at the root),
///             ascending;
///   held:     one bit per row, LSB first: 1 if the source holds the row's
///             label (none with hide_labels);
///   buckets:  per feature, the bucket of each row whose bit is 0, in row
///             order;
/// and every client knows every node's rows (the splits are public). The
/// root's queries of the first tree list every one of these ids with its
/// bucket anyway, so this reveals nothing that the lists would not, at one
/// byte per missing id and feature once instead of four per id and
/// level, and a receiver adds up its part of all queries of a feature at
/// a node in one pass over its own rows there.
/// nonces[32k .. 32k+32) is query k's 32-byte lottery nonce, drawn from the
/// source's CSPRNG (feverless and ahe; with per_batch and chain election
/// one nonce for the whole batch, none when the batch is empty).
struct query_batch {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::uint64_t> qids;
  std::vector<std::uint8_t> nonces;
  std::vector<std::int32_t> features;
  std::vector<std::uint8_t> held;
  std::vector<std::uint8_t> buckets;
};

/// LEAD (§7.2 row 2, Alg. 4), each client -> all: its lottery ticket for
/// every election unit of the level it is not the source of, in canonical
/// order. Chain election: no tickets but the sender's public-chain element
/// of the level (`reveal`), from which every client computes the sender's
/// LEAD and THRESH tickets of the level, and its noise-chain element
/// (`noise_reveal`), from which a leader computes the sender's NOISE
/// tickets: the chain election has no THRESH or NOISE message.
///
/// Chain election with at most client::max_hinted_clients clients: LEAD
/// goes to each receiver c with its own `selections`, and the level has no
/// NOTIFY. For every election unit u of the level whose source is neither
/// the sender nor c (canonical order), and for every nonempty set S of the
/// other candidates (the clients other than u's source, the sender and c;
/// S as a bit mask over them in ascending order, masks 1, 2, 3, ...), one
/// bit, LSB first: whether c is selected if the sender leads u and c and S
/// are its volunteers. The sender draws the selection of every such
/// volunteer set once per unit, before anyone knows who leads
/// (docs/feverless-election.md).
struct lead_tickets {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<crypto::lottery_ticket> tickets;
  std::array<std::uint8_t, 32> reveal{};
  std::array<std::uint8_t, 32> noise_reveal{};
  std::vector<std::uint8_t> selections;
};

/// THRESH (§7.2 row 4, Alg. 5 l.2–6), leader -> all: for the election
/// units it leads that wait for noise in this round, the unit's id (qids),
/// the attempt counter and the threshold ticket signed over (THRESH, unit
/// id, attempt). Not sent in the chain election.
struct threshold_tickets {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::uint32_t round = 0;
  std::vector<std::uint64_t> qids;
  std::vector<std::uint32_t> attempts;
  std::vector<crypto::lottery_ticket> tickets;
};

/// NOISE (§7.2 row 5, Alg. 5 l.7–13), candidate -> each client: for every
/// election unit the receiver leads in this round and the sender is a
/// candidate of (canonical order), a volunteer flag; for each unit it
/// volunteers for (in order) its ticket over (NOISE, unit id, attempt), and
/// for each query of those units (in order) enc(n_g) + r_g, enc(n_h) + r_h
/// mod 2^64, a fresh draw per query. Empty for a receiver that leads
/// nothing the sender may join. Not sent in the chain election: the leader
/// computes every candidate's NOISE tickets from its LEAD noise reveal.
struct noise_offers {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::uint32_t round = 0;
  std::vector<std::uint8_t> volunteer;
  std::vector<crypto::lottery_ticket> tickets;
  std::vector<std::uint64_t> g;
  std::vector<std::uint64_t> h;
};

/// NOTIFY (§7.2 row 6, Alg. 5 l.14–19), leader -> each client: one
/// selected flag per election unit of this round the receiver volunteered
/// for (canonical order), and how many of the leader's units had no
/// volunteer and are redone with a new threshold (all clients sum these to
/// agree whether another round follows). Chain election: one flag per unit
/// the sender leads and the receiver is a candidate of (neither source nor
/// leader), whether it volunteered or not, and no redo (the leader goes on
/// through the attempts itself).
struct noise_notice {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::uint32_t round = 0;
  std::vector<std::uint8_t> selected;
  std::uint32_t redo = 0;
};

/// MASKED (§7.2 row 7, Alg. 5 l.22–37), each client -> each source: per
/// query of the receiver (its order) G^(c), H^(c) mod 2^64.
struct masked_sums {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::uint64_t> g;
  std::vector<std::uint64_t> h;
};

/// AHE replies (§10.5), each client -> each source: the Paillier
/// encryptions, under the receiver's key, of what `masked_sums` would carry
/// without the masks, packed (paillier::packing for n - 1 summands): the
/// values G_0, H_0, G_1, H_1, ... of the receiver's queries in its order,
/// slots() per plaintext. `g` holds the ciphertexts as fixed-width
/// big-endian numbers of 2 paillier_bits / 8 bytes each (256 B at 1024
/// bits), concatenated; `h` is empty.
struct encrypted_sums {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::uint8_t> g;
  std::vector<std::uint8_t> h;
};

/// Plain / LDP replies (§10.5), each client -> each source: per query of
/// the receiver its partial sums over the missing ids it holds labels of
/// (LDP: plus its own Gaussian noise).
struct plain_sums {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<double> g;
  std::vector<double> h;
};

/// GAIN (Alg. 2 l.21), each client -> all: per frontier node (ascending
/// id) the sender's best L_split (-infinity when it has no valid
/// candidate) and whether it holds node totals (G, H) to weigh a leaf.
struct best_gains {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<double> gains;
  std::vector<std::uint8_t> has_totals;
};

/// SPLIT (Alg. 2 l.23–33, §8.2–8.3), each client -> all: the nodes it won
/// and splits, with one goes-left bit per row of the node (the node's row
/// order, LSB first, each node on a byte boundary) and the noisy weights
/// w = -G/(H+lambda) of both children; and the leaves it weighs (nodes
/// that stopped and whose weight it computes from its own totals).
struct node_decisions {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::int32_t> split_nodes;
  std::vector<std::uint8_t> goes_left_bits;
  std::vector<double> left_weights;
  std::vector<double> right_weights;
  std::vector<std::int32_t> leaf_nodes;
  std::vector<double> leaf_weights;
};

/// Federated prediction (§9, owner-bit batched), asker -> split owner: for
/// each (tree, node) the rows to route; rows of group k are
/// rows[offsets[k] .. offsets[k+1]).
struct predict_query {
  std::int32_t step = 0;
  std::vector<std::int32_t> trees;
  std::vector<std::int32_t> nodes;
  std::vector<std::uint32_t> offsets;
  std::vector<std::uint32_t> rows;
};

/// The owner's decisions: one bit per queried row (LSB first), each group
/// on a byte boundary.
struct predict_answer {
  std::int32_t step = 0;
  std::vector<std::uint8_t> goes_left_bits;
};

using protocols::failure;

using message =
    std::variant<key_announce, label_census, query_batch, lead_tickets,
                 threshold_tickets, noise_offers, noise_notice, masked_sums,
                 plain_sums, encrypted_sums, best_gains, node_decisions,
                 predict_query, predict_answer, failure>;

/// A message and its destination.
using envelope = addressed<message>;

using outbox = std::vector<envelope>;

/// Name of a message type, for byte accounting and errors.
const char* message_name(const message& m);

// The bit packing shared by every protocol (protocols/bits.hpp).
using protocols::append_bits;
using protocols::packed_size;
using protocols::unpack_bits;

} // namespace veil::protocols::feverless
