#pragma once

// Privet's training and inference at one party (spec privet §5): SecTable
// level by level (every feature's bucket sums by SecDisc, all candidates'
// scores in one batch of divisions, the best bucket per feature and the
// best feature by SecArgmin, the owner's threshold, SecSplit), the leaves,
// and the training rows' scores for the next table; SecInfer for new rows.
// Every party runs the same program (a task on protocols/mpc's runtime)
// with its own columns; party 0 also holds the labels.
//
// What becomes public, as the paper has it: each level's feature F_d and
// every feature's best bucket γ_j (not in the paper's own ideal
// functionality; spec §5.3). Each threshold t_d stays with its feature's
// owner; the leaves stay shared.

#include <cstdint>
#include <optional>
#include <vector>

#include "learners/data/dataset.hpp"
#include "learners/table/decision_tables.hpp"
#include "protocols/mpc/arithmetic.hpp"

namespace veil::protocols::privet {

struct params {
  learners::table_task task = learners::table_task::binary;
  int tables = 10;
  int depth = 3;
  int buckets = 32;
  double lambda = 1;
  double eta = 1;
  mpc::truncation truncation = mpc::truncation::exact;
  /// The paper's sigmoid (limit exp with 2^k = 4, reciprocal from 2^-20)
  /// in place of the robust one: it does not train (spec §4.10).
  bool paper_sigmoid = false;
  /// Hide each feature's best bucket (spec §5.3's optional fix): the
  /// per-feature argmin keeps its indices shared, and only the chosen
  /// feature's goes to that feature's owner. The paper opens them all
  /// (γ public), which its own ideal functionality does not allow.
  bool hide_buckets = false;
  /// A public bound on |g|: 1 for the logistic loss; for regression the
  /// bound on |ŷ − y| the label holder declares.
  double gradient_bound = 1;
};

/// Who holds which feature: owner[j] for global feature j, and its index
/// among that party's own columns. Public.
struct column_map {
  std::vector<int> owner;
  std::vector<std::size_t> local;
  std::size_t features() const { return owner.size(); }
  /// `features` columns dealt "vertically and evenly" (the paper's
  /// experiments): contiguous blocks, party p the p-th.
  static column_map blocks(std::size_t features, int parties);
  /// Party p's columns of `d` under this map, the labels only at party 0
  /// (the label holder).
  learners::dataset part(const learners::dataset& d, int p) const;
};

/// What one party keeps of a trained model.
struct party_model {
  struct table {
    std::vector<std::int32_t> features;           ///< F_d, public
    std::vector<std::optional<float>> thresholds; ///< t_d where F_d is ours
    mpc::words leaves;                            ///< this party's shares, 2^D
  };
  std::vector<table> tables;
};

/// The division's scale s = ⌈log2 U⌉ with U = N h_max + λ (spec §4.9),
/// after the magnitude budget of §8.2 on the 64-bit ring: s ≤ 21, and
/// room for |G w| < 2^22 with |G| ≤ N g_max. Throws input_error naming the
/// bound that fails.
int division_scale(const params& p, std::size_t rows);
/// Newton steps of the divisions: every denominator is at least λ.
int division_steps(const params& p, int scale);

/// The plaintext reference with the tables' shape of `p` (spec §3.4),
/// exact sigmoid and division: `privet-plain`.
learners::table_params exact_reference(const params& p);

/// The plaintext reference that computes as the protocol does (the
/// "approximation-aware" one of spec §8.4 item 13): the robust sigmoid,
/// and the scaled division with this protocol's scale and Newton steps for
/// `rows` training rows; the tables' shape from `p`.
learners::table_params approximation_aware(const params& p, std::size_t rows);

/// What the last party will ask the dealer for during training, in order,
/// for `rows` training rows under `p` and `map` among `parties` computing
/// parties: the program's correlation requests depend on these public
/// shapes only, so a dry run of every party on rows of zeros finds them
/// (at the cost of one training's computation). A dealer answers them
/// ahead of the online phase (the paper's offline phase).
std::vector<mpc::correlation_request> training_requests(const params& p,
                                                        const column_map& map,
                                                        std::size_t rows,
                                                        int parties);

/// Trains at this party: `own` holds its columns of the training rows (and
/// the labels at party 0). Every party passes the same params, map
/// and row count.
mpc::task<party_model> train(mpc::party& self, const params& p,
                             const column_map& map,
                             const learners::dataset& own);

/// Shares of the raw scores of `own`'s rows (this party's columns of the
/// rows to predict) under the model: each level's owner shares its test
/// bits, every party multiplies the leaf indicators out (no truncation).
mpc::task<mpc::words> infer(mpc::party& self, const party_model& model,
                            const column_map& map, const learners::dataset& own,
                            int depth);

/// SecInfer, then the scores to the label holder only (Rec_0, one round):
/// party 0 gets the raw scores of the rows (fixed point), every other
/// party an empty vector. The evaluation output the spec's §7 allows to
/// the label holder; nobody else learns a prediction.
mpc::task<mpc::words> predict(mpc::party& self, const party_model& model,
                              const column_map& map,
                              const learners::dataset& own, int depth);

} // namespace veil::protocols::privet
