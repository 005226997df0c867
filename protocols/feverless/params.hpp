#pragma once

// The settings of a FEVERLESS session (spec feverless §4.1, §4.7, §15.4).
// Every client must hold the same params: they are part of the wire
// protocol, so the clients compare a digest of them at setup.

#include <array>
#include <cstdint>
#include <limits>
#include <string>

namespace veil::protocols::feverless {

/// An unbounded privacy loss (a release without protection), or no gain.
inline constexpr double inf = std::numeric_limits<double>::infinity();

/// Which protocol the role runs. One role class serves all of them, since
/// they share the training flow of spec §6 (Algorithm 2).
enum class mode {
  /// The paper's protocol: pairwise masks (§7.5) and a noise leader elected
  /// per query (§7.3, §7.4) add one global Gaussian noise per sum.
  feverless,
  /// Baseline of spec §10.5: the same flow without keys, masks, election or
  /// noise; partial sums travel in plaintext (as doubles).
  plain,
  /// Baseline of spec §10.5: every non-source client adds its own
  /// N(0, Δ²σ²) to its plaintext partial sums; no keys, no leader.
  ldp,
  /// Baseline of spec §10.5: the flow of `feverless` with its election and
  /// noise injection (blinded noise, r and all), but no key exchange and no
  /// masks: every client sends its partial sums (the leader's with the
  /// noise, a selected volunteer's minus its r) to the source encrypted
  /// under the source's Paillier key (a fresh pair per session, announced
  /// with the signed key announcement); the source adds them
  /// homomorphically and decrypts. [D] The source holds the key, so it could
  /// decrypt each reply on its own: this is a runtime and traffic baseline,
  /// not a protection. Plaintexts are the Z_{2^64} values of `feverless`
  /// as signed 64-bit integers; the decrypted sum is reduced mod 2^64, so
  /// the blindings r cancel exactly as in `feverless`.
  ahe,
};

/// How noise leaders are elected, and how many queries share one election
/// (spec §7.3, §13.3; docs/feverless-election.md).
enum class election_scope {
  /// [D] The default: every query has its own leader, threshold and
  /// volunteers as in the paper (Alg. 4, Alg. 5), but the tickets come from
  /// hash chains instead of a signature per ticket. Each client signs the
  /// tips of two chains once, in its key announcement, and reveals one
  /// element of each per level with LEAD. The tickets come from the joint
  /// elements, hashes of every client's reveals of the level
  /// (crypto/hash_chain.hpp): a 64-bit ChaCha20 word per query picks its
  /// leader, 16-bit tickets its thresholds and volunteers; one hash checks
  /// a reveal, and no signature is made per query. The lottery binds each
  /// query's qid (which names its ids, wire.hpp) and its source's one nonce
  /// r per level. Every client computes every leader and volunteer, so
  /// the noise step is NOTIFY alone, or with up to 6 clients nothing
  /// beyond LEAD. Masks are vector masks, as per_batch's.
  chain,
  /// The paper's lottery: every query has its own leader, threshold and
  /// volunteers, every ticket an Ed25519 signature (Alg. 4, Alg. 5): about
  /// 130 times the time of `chain` (docs/benchmarks.md).
  signed_query,
  /// [D] One election per (level, source) batch: one LEAD ticket per
  /// non-source client, one threshold, one volunteer ticket per candidate
  /// and one selection of volunteers for all queries a source asks at a
  /// level. Noise and blindings stay fresh per query (each query's sum
  /// gets its own draws). This CHANGES the protocol: far fewer VRF runs and
  /// signatures, but one leader sees the blinded noise of the whole batch,
  /// and the batch's queries share their leader and noise clients, so a
  /// coalition that holds them holds them for every query of the batch
  /// (per query the chance is the same; the events are no longer
  /// independent across the batch).
  /// Two more batch-wide choices go with it (client.cpp, lottery_in and
  /// level_masks): the batch's lottery input binds the batch's qids (which
  /// name its ids) and its one nonce r rather than every missing id, and the
  /// masks are vector masks (§13.3): one KDF per (peer pair, batch, salt)
  /// keyed by the batch's first qid, whose ChaCha20 word j masks the
  /// batch's query j. What the source learns per query is unchanged.
  per_batch,
};

/// How sigma follows from (epsilon, delta) of one released sum.
enum class calibration {
  /// dp::analytic_sigma: exact for every epsilon (Balle & Wang 2018). The
  /// default, because the paper's formula does not give its guarantee for
  /// epsilon >= 1 (spec §12.3, caveat 1).
  analytic,
  /// The paper's sqrt(2 ln(1.25/δ))/ε (spec §7.6, with the 1/ε the paper's
  /// print drops): only proven for ε < 1; the role warns otherwise.
  classical,
};

/// How the noise leader keeps volunteers (spec §7.4).
enum class noise_selection {
  /// Exactly one uniformly chosen volunteer per query: the paper's main
  /// experiments ("k = 1"). The default.
  fixed1,
  /// k = ceil(k̂ · portion) volunteers chosen uniformly (Alg. 5 l.15).
  portion,
};

/// What epsilon and delta mean.
enum class budget_kind {
  /// The guarantee of one released sum (G or H of one query): the paper's
  /// setting (spec §12.3).
  per_query,
  /// The guarantee of the whole training for one record; the role derives
  /// the per-sum noise from the most queries a record can join,
  /// NT · d · f (spec §12.3, caveat 2).
  total,
};

/// How a total budget is divided over the queries (budget_kind::total).
enum class composition {
  /// zero-concentrated DP: rho adds up (Bun & Steinke 2016). The default:
  /// much less noise than basic composition for the same total.
  zcdp,
  /// basic composition: epsilons and deltas add up.
  basic,
};

/// The parameters of a session. Defaults are spec §4.7's.
struct params {
  mode protocol = mode::feverless;
  /// Session id, signed into every key announcement (spec §4.3).
  std::uint64_t session = 0;

  // --- Learner (spec §5, §4.7) ---
  /// NT, the number of trees. [1, 65536] (the qid holds 16 bits of it).
  int trees = 10;
  /// d: the root is at depth 0 and a node at depth d is a leaf. [1, 19]
  /// (the qid holds 20 bits of node id).
  int max_depth = 6;
  /// Learning rate eta. (0, 1].
  double eta = 0.3;
  /// L2 regularization lambda. >= 0.
  double lambda = 1.0;
  /// Per-split penalty gamma of the corrected Eq. 4. >= 0.
  double gamma = 0.0;
  /// XGBoost's max_delta_step: > 0 clamps every weight to
  /// [-max_delta_step, max_delta_step] and scores splits by the clamped
  /// weights (bucket_split.hpp); 0 (the paper) clamps nothing. >= 0.
  double max_delta_step = 0.0;
  /// thr_L: a node whose best L_split is <= this becomes a leaf. Finite.
  double split_threshold = 0.0;
  /// B: quantile buckets per feature (learners' max_bin). [2, 256].
  int buckets = 10;

  // --- Masked arithmetic (spec §4.4) ---
  /// F: fractional bits of the fixed point mod 2^64. [8, 48].
  int frac_bits = 32;

  // --- Differential privacy (spec §7.6, §12.3) ---
  budget_kind budget = budget_kind::per_query;
  /// Per released sum (per_query) or for the whole training (total). > 0.
  double epsilon = 2.0;
  /// Likewise. (0, 1).
  double delta = 1e-5;
  /// How a total budget is divided (budget_kind::total only).
  composition total_split = composition::zcdp;
  calibration calib = calibration::analytic;
  /// The noise scales of g and h sums per unit of sigma: the L2
  /// sensitivities of one record's g and h (logistic loss; spec §7.6). The
  /// fixed-point encoding bounds a record's g by 1 and its h by 1/4, so
  /// smaller values would state a guarantee the noise does not give:
  /// sensitivity_g >= 1, sensitivity_h >= 0.25.
  double sensitivity_g = 1.0;
  double sensitivity_h = 0.25;
  /// false: sigma = 0, no noise at all (tests; gives no privacy).
  bool noise = true;
  /// Accept a budget whose noise is finer than the fixed point's unit 2^-F
  /// (the sampler rounds it up to one unit: a guarantee that holds but
  /// protects nothing, so it is refused unless asked for; tests compare
  /// noisy runs with noise-free ones with it). Each client's own check:
  /// outside the digest.
  bool noise_below_unit = false;
  noise_selection selection = noise_selection::fixed1;
  /// p of noise_selection::portion. (0, 1].
  double portion = 0.5;
  /// Who shares a leader election (spec §13.3); feverless and ahe only.
  election_scope election = election_scope::chain;
  /// App. F label hiding (spec §10.1): a source queries every row of a
  /// bucket, not only the rows whose labels it lacks, so the queries no
  /// longer show which rows each client labels. Same sums, same model;
  /// every row's bucket bytes in the session's first batch (wire.hpp), so
  /// the peers see the source's buckets of its own labelled rows too.
  bool hide_labels = false;
  /// [D] The source adds one more noise draw of its own to every gradient
  /// sum it computes gains and weights from (feverless, ahe, ldp). Without
  /// it, the client that drew a query's noise (the volunteer, the n = 2
  /// leader, an LDP client) knows that noise; the hessian sums are public
  /// (they follow from the public margins), so it recovers the exact
  /// gradient sum from a broadcast leaf weight or gain. false: the paper's
  /// algorithm, DP against every client but each query's noise drawers.
  bool source_noise = true;
  /// [D] Noise on the hessian sums H (Δh = sensitivity_h); false, the
  /// default, releases H exact. Its noise buys no label privacy: one row's
  /// label leaves its h = p(1 - p) unchanged, and every client could
  /// compute any H from the public margins (docs/security.md), so only G is
  /// ever charged. Without it a run draws half the noise and H + lambda
  /// stays >= lambda, where noisy H can put it near 0 and blow weights up.
  /// true: the paper's algorithm.
  bool hessian_noise = false;

  // --- AHE baseline (spec §10.5, §15.1) ---
  /// Bits of each source's Paillier modulus n: 2048 (the default: 112-bit
  /// security; 512-byte ciphertexts) or 1024 (the paper's; 256-byte
  /// ciphertexts, below today's recommendations).
  int paillier_bits = 2048;
  /// Threads each client encrypts and the source decrypts with (0: every
  /// core of its machine, the default: the clients wait on each other
  /// often enough that even 4 in one process on 2 cores gain). How a
  /// client computes, not what: outside the params digest, any value gives
  /// the same model.
  int paillier_threads = 0;
  /// Bytes a client may keep per peer source, and for its own queried
  /// features, for a level's sums of its labels per bucket (and, for its
  /// own, their counts), to get a node's sums as its parent's less its
  /// sibling's (0: every node summed from its rows, as before). How, not
  /// what: outside the digest, any value gives the same sums.
  std::size_t kept_sums_bytes = std::size_t{16} << 20;

  /// Set by the session, not a user setting: the coordinator evaluates
  /// every round (early stopping), so every client waits between trees for
  /// its next or stop (client::pause_between_trees). Every client must
  /// agree: part of the digest.
  bool rounds_evaluated = false;

  /// Test hooks: record noise draws, raw sums and selections (see client).
  /// Local, not part of the digest; never set it in production.
  bool test_hooks = false;

  /// Throws veil::input_error naming the first out-of-range field.
  void validate() const;

  /// BLAKE2b-256 of every field but test_hooks, in a fixed little-endian
  /// layout: equal params give equal digests on every machine.
  std::array<std::uint8_t, 32> digest() const;
};

std::string to_string(mode m);
std::string to_string(election_scope e);

} // namespace veil::protocols::feverless
