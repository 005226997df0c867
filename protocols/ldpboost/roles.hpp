#pragma once

// LDP boosting's two roles as state machines without I/O (spec
// ldp-boosting §4, Alg. 4): many data owners, each answering one request
// in its lifetime with one perturbed share, and the data user, who picks
// H unused owners per attempt, builds a base classifier from their shares,
// keeps it if its weighted error on the user's own data beats chance
// (α > 0), and boosts with SAMME.
//
// Features are scaled to [−1, 1] by bounds from the data user's data
// (public: spec §3.4, pitfall 10) and clipped. Owners weigh their rows
// lazily from the ensemble the request carries: raw SAMME weights for the
// nearest-centroid learner (its weighted mean is scale-free), normalised
// within the owner for stumps and logistic regression (spec §4.3).

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "learners/samme/base_learners.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/ldpboost/params.hpp"
#include "protocols/ldpboost/wire.hpp"
#include "protocols/outcome.hpp"

namespace veil::protocols::ldpboost {

/// Per feature [lower, upper] → [−1, 1], clipped (a constant feature → 0).
struct scaling {
  std::vector<double> lower, upper;
  static scaling of(const learners::labelled_rows& rows);
  learners::labelled_rows apply(learners::labelled_rows rows) const;
};

/// The class `m` predicts for x.
int predict(const member& m, std::span<const double> x);
/// The ensemble's vote (ties: the lowest class).
int vote(const std::vector<double>& alpha, const std::vector<member>& ensemble,
         int classes, std::span<const double> x);

class owner {
public:
  /// Owner `id` with its raw rows; `seed` 0: its noise from the operating
  /// system's CSPRNG, otherwise a predictable stream (tests, experiments).
  owner(party_id id, learners::labelled_rows rows, const scaling& bounds,
        params p, std::uint64_t seed = 0);
  outcome<outbox> on_message(party_id from, const message& m);
  bool answered() const { return used_; }
  /// How often it called its mechanism and with what budget (spec §8.5
  /// item 13).
  std::size_t mechanism_calls() const { return calls_; }
  double budget_per_call() const { return per_call_; }

private:
  std::vector<double> perturb(std::span<const double> v, double epsilon);
  party_id id_;
  learners::labelled_rows rows_; // scaled
  params params_;
  std::uint64_t seed_;
  std::unique_ptr<crypto::system_random> system_;
  std::optional<crypto::seeded_random> seeded_;
  bool used_ = false;
  std::size_t calls_ = 0;
  double per_call_ = 0;
};

/// What happened over the training, for the report.
struct training_log {
  std::vector<double> errors; ///< err_m of every accepted round
  std::size_t rejected = 0;   ///< attempts with α ≤ 0 (or no usable share)
  std::size_t burned = 0;     ///< owners asked, accepted or not
  std::size_t silent = 0;     ///< owners that did not answer
  std::string stopped;        ///< why training ended before M rounds
};

class data_user {
public:
  /// The data user with its own labelled rows (raw) and `owners` owners
  /// (ids 1..owners); `seed` drives which owners it picks (not secret).
  data_user(learners::labelled_rows own, std::size_t owners, params p,
            std::uint64_t seed);
  const scaling& bounds() const { return bounds_; }
  outbox start();
  outcome<outbox> on_message(party_id from, const message& m);
  /// An owner that will not answer (timed out, gone): the attempt goes on
  /// with the others.
  outcome<outbox> on_silent(party_id owner);
  bool done() const { return done_; }
  /// The attempt under way: (round, attempt), and the owners it still
  /// waits for.
  std::uint64_t attempt_key() const {
    return (std::uint64_t{round_} << 32) | attempt_;
  }
  std::vector<party_id> waiting() const;
  /// Accepted rounds so far.
  std::size_t rounds_done() const { return ensemble_.size(); }
  const std::vector<double>& alpha() const { return alpha_; }
  const std::vector<member>& ensemble() const { return ensemble_; }
  const training_log& log() const { return log_; }
  /// The classifier the last attempt built, kept or not (for the
  /// diagnostics of spec §6.4: ℓ_p, Δ_pim, RMSE_θ).
  const std::optional<member>& candidate() const { return candidate_; }

private:
  outbox begin_attempt();
  outcome<outbox> maybe_finish();
  std::optional<member> aggregate() const;

  learners::labelled_rows own_; // scaled
  scaling bounds_;
  params params_;
  std::mt19937_64 pick_;
  std::vector<party_id> pool_;
  std::vector<double> weights_; // the user's SAMME weights
  std::vector<double> alpha_;
  std::vector<member> ensemble_;
  std::uint32_t round_ = 0, attempt_ = 0;
  std::vector<double> thresholds_;
  std::set<party_id> asked_, heard_;
  /// Owners skipped as silent: an answer that comes after all is dropped
  /// (its release was made, but it is not used), not a reason to end.
  std::set<party_id> skipped_;
  std::vector<share_reply> replies_;
  training_log log_;
  std::optional<member> candidate_;
  bool done_ = false;
};

} // namespace veil::protocols::ldpboost
