#pragma once

// LDP boosting on one table in one process (`veil train --protocol
// ldp-boost --data FILE`): the table's rows dealt to data owners, a few
// each (a horizontal split, spec ldp-boosting §7.1), the data user's own
// labelled rows and the rows it is evaluated on; and what the data user
// reports of its ensemble on those rows. CAF-free: the session runs the
// parties it returns.

#include <cstdint>
#include <string>
#include <vector>

#include "learners/data/dataset.hpp"
#include "learners/samme/base_learners.hpp"
#include "protocols/ldpboost/roles.hpp"

namespace veil::protocols::ldpboost {

/// One party's data, given at spawn. The data user (the first): its own
/// labelled rows (`features`) and the rows it is evaluated on (`eval`, with
/// their labels). An owner: its few labelled rows (`features`), no eval.
struct party_data {
  std::string name;
  learners::labelled_rows features;
  learners::labelled_rows eval;
};

/// `d`'s rows with integer labels 0..K−1 (K = `classes` out: the largest
/// label + 1). Throws input_error naming `what` and the row of a label that
/// is not such an integer.
learners::labelled_rows rows_of(const learners::dataset& d,
                                const std::string& what, int& classes);

/// Rows `first`..`first + count` of `d`.
learners::labelled_rows slice(const learners::labelled_rows& d,
                              std::size_t first, std::size_t count);

/// `d`'s rows in a seeded random order (`seed`).
learners::labelled_rows shuffled(const learners::labelled_rows& d,
                                 std::uint64_t seed);

struct dealt_table {
  /// "user", then "owner1" .. "ownerL".
  std::vector<party_data> parties;
  /// Training rows no owner got (fewer than S at the end).
  std::size_t unused = 0;
};

/// `train`'s rows dealt in order, `per_owner` to each owner (the rest
/// unused), behind the data user with `own` and `eval`. Throws input_error
/// when not one owner gets its rows.
dealt_table deal_owners(const learners::labelled_rows& train,
                        std::size_t per_owner, learners::labelled_rows own,
                        learners::labelled_rows eval);

/// The misclassification rate of the first m members' vote on `eval`
/// (raw rows, scaled here with `bounds`), for m = 1..ensemble size: the
/// error against rounds of the paper's Figs. 4 and 7.
std::vector<double> staged_errors(const std::vector<double>& alpha,
                                  const std::vector<member>& ensemble,
                                  int classes, const scaling& bounds,
                                  const learners::labelled_rows& eval);

} // namespace veil::protocols::ldpboost
