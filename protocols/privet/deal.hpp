#pragma once

// Privet on one table in one process (`veil train --protocol privet
// --parties N --data FILE`): the table's columns dealt to the computing
// parties as the paper's experiments deal them ("vertically and evenly":
// contiguous blocks, the labels with party 0), and the dealer, which
// holds no data. CAF-free: the session runs the parties it returns.

#include <string>
#include <vector>

#include "learners/data/dataset.hpp"
#include "protocols/privet/train.hpp"

namespace veil::protocols::privet {

/// One Privet party's data, given at spawn: its columns of the training
/// rows (the labels at party 0) and of the rows to predict (`eval`; none:
/// no prediction). The dealer's are empty.
struct party_data {
  std::string name;
  learners::dataset features;
  learners::dataset eval;
};

struct dealt_table {
  column_map map;
  /// party0 .. party{N-1}, then the dealer.
  std::vector<party_data> parties;
};

/// Regression targets as Privet's label holder trains on them (spec §8.2,
/// "standardise y"): y' = (y − mean) / sd over its training labels, so
/// that the scores' products stay within the 64-bit ring's budget
/// whatever the targets' unit; it maps predictions back with
/// margin · sd + mean. The map is the label holder's own: it never leaves
/// it.
struct label_map {
  double mean = 0, sd = 1;
  double to_target(double margin) const { return margin * sd + mean; }
};

/// Standardises `d`'s labels in place and returns the map (sd 1 for
/// constant labels).
label_map standardize_labels(learners::dataset& d);

/// The public bound on |ŷ − y| the label holder declares for standardised
/// targets `d` (params::gradient_bound): 2 max |y'|, at least 1.
double regression_gradient_bound(const learners::dataset& d);

/// The roster name of the dealer (the last party of a session).
inline const char* dealer_name = "dealer";

/// Deals `train_set` (its labels to party 0) and `eval_set` (the rows to
/// predict; no labels dealt) to `computing` parties in contiguous column
/// blocks, and adds the dealer. Throws input_error when a party would hold
/// no column.
dealt_table deal_table(const learners::dataset& train_set,
                       const learners::dataset& eval_set, int computing);

} // namespace veil::protocols::privet
