#pragma once

// A FEVERLESS client's data: what it is given at spawn, how one table is
// dealt to clients in one process (spec feverless §14.1: contiguous column
// blocks, the labels spread uniformly at random), and how a client reads
// its own file, in which an empty label cell marks another client's row.
// CAF-free: the actors only carry it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "learners/data/dataset.hpp"
#include "protocols/crypto/identity.hpp"
#include "protocols/feverless/client.hpp"
#include "protocols/session/wire.hpp"

namespace veil::protocols::feverless {

/// One client given its data: its columns, the labels it holds and its
/// columns of the rows to predict (none: no prediction).
struct client_data {
  std::string name;
  learners::dataset features;
  label_set labels;
  learners::dataset eval;
};

/// Throws input_error naming `what` unless `d` has labels, all 0 or 1.
void check_binary(const learners::dataset& d, const std::string& what);

/// Columns [lo, hi) of `d`, without labels: one client's block.
learners::dataset column_block(const learners::dataset& d, std::size_t lo,
                               std::size_t hi);

/// `train_set`'s columns dealt to `n` clients (client0, ...) in contiguous
/// near-equal blocks, its labels spread by a random permutation of the
/// rows (seeded by `seed`) cut into n equal parts; `eval_set`'s columns
/// likewise as the rows to predict. Throws input_error naming `data_name`
/// when a client would get no column.
std::vector<client_data> deal_table(const learners::dataset& train_set,
                                    const learners::dataset& eval_set,
                                    std::size_t n, std::uint64_t seed,
                                    const std::string& data_name);

/// Reads a client's file: the features, and the label column (if any) as
/// labels with NaN for an empty cell. Throws input_error, also for a label
/// other than 0, 1 or empty (naming the file, the row and the column).
learners::dataset read_client_rows(const session::data_spec& spec);

/// The role's inputs from rows read by read_client_rows: the features
/// without labels, the rows whose label cell is set; `test` (if any)
/// without labels as the rows to predict.
client_data client_from_loaded(learners::dataset train,
                               const learners::dataset* test);

/// Client `index`'s identity (Ed25519): derived from `test_seed` and its
/// index in tests, else fresh.
crypto::identity client_identity(std::optional<std::uint64_t> test_seed,
                                 std::int32_t index);

/// Client `index`'s randomness: seeded_random(seed * 1000 + index + 1) in
/// tests (`test_seed`), else the system's CSPRNG.
random_engine client_random(std::optional<std::uint64_t> test_seed,
                            std::int32_t index);

/// A client's own account of its training, packed into the
/// session::trained it sends: its privacy accounting and the splits it
/// owns: (tree, node) -> local feature, bucket, threshold, missing values
/// left (1) or right (0); empty unless the session asked for them.
struct training_report {
  privacy_report privacy;
  std::vector<std::int32_t> split_trees, split_nodes, split_features,
      split_buckets;
  std::vector<float> split_thresholds;
  std::vector<std::uint8_t> split_default_left;
};

/// `role`'s report after training (its split table only if
/// `export_splits`).
training_report report_of(const client& role, bool export_splits);

/// The split table `t` carries; none if its fields differ in length.
std::optional<split_table> splits_of(const training_report& t);

} // namespace veil::protocols::feverless
