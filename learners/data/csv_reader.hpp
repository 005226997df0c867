#pragma once

#include "learners/data/dataset.hpp"

#include <string>
#include <vector>

namespace veil::learners {

/// Which columns of a CSV file become what.
struct read_options {
  /// Label column name; empty = the dataset has no label.
  std::string label;
  /// Id column name; empty = no id column.
  std::string id;
  /// When non-empty: keep only these feature columns, in this order.
  std::vector<std::string> columns;
  /// Feature columns to leave out.
  std::vector<std::string> drop;
  /// Errors name the file, line, column and problem but quote no value
  /// or label cell (a party's errors reach other parties; ids, which the
  /// coordinator aligns by, are still quoted).
  bool redact_values = false;
};

/// Reads a CSV file with a header row, plain or gzip-compressed (detected by
/// its magic bytes, not the name). Fields are comma-separated; a field may be
/// double-quoted (RFC 4180, no line breaks inside). Every feature value must
/// be a number; an empty field (or "nan") is a missing value. The label must
/// be a finite number and present. Ids are kept as strings and must be
/// unique. Blank lines are skipped; a UTF-8 BOM and \r line ends are
/// accepted. Throws veil::input_error naming the file, line, column number
/// and column name on bad input.
dataset read_csv(const std::string& path, const read_options& opts);

/// Reads LibSVM / SVMlight text ("label idx:value ...", '#' starts a comment,
/// "qid:" tokens are ignored), plain or gzip-compressed. Indices are kept as
/// they come: feature "f<idx>" is column idx - base, where base is 0 if any
/// index 0 occurs and 1 otherwise. Absent entries are missing values (as in
/// XGBoost), not zeros.
dataset read_libsvm(const std::string& path, bool redact_values = false);

/// Chooses the format by name: *.libsvm, *.svm, *.libsvm.gz, *.svm.gz are
/// read as LibSVM (then `opts.columns` / `opts.drop` apply to the f<idx>
/// names, and an id column is an error), anything else as CSV.
dataset read_table(const std::string& path, const read_options& opts);

/// Writes a dataset as CSV: a header, then the id (if any), the features and
/// the label (if any) last. Gzip-compressed when the path ends in ".gz".
/// Floats are written in their shortest form that reads back bit-exact;
/// missing values are empty fields. Writes to a temporary file in the same
/// folder and renames it, so a failure never leaves a half-written file.
/// Throws veil::input_error if the file cannot be written, if the label or id
/// name clashes with a feature name, or if a value is infinite (the reader
/// would refuse it).
void write_csv(const dataset& d, const std::string& path,
               const std::string& label_name = "label",
               const std::string& id_name = "id");

/// Whether `path` names a LibSVM file (.libsvm, .svm, optionally .gz):
/// read_table reads it as LibSVM.
bool is_libsvm_path(const std::string& path);

/// The column names in the header of a CSV file (plain or gzipped), without
/// reading the rows. Fields may be double-quoted. Throws veil::input_error
/// if the file cannot be opened or is empty.
std::vector<std::string> csv_header(const std::string& path);

} // namespace veil::learners
