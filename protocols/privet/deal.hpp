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

/// The roster name of the dealer (the last party of a session).
inline const char* dealer_name = "dealer";

/// Deals `train_set` (its labels to party 0) and `eval_set` (the rows to
/// predict; no labels dealt) to `computing` parties in contiguous column
/// blocks, and adds the dealer. Throws input_error when a party would hold
/// no column.
dealt_table deal_table(const learners::dataset& train_set,
                       const learners::dataset& eval_set, int computing);

} // namespace veil::protocols::privet
