#pragma once

// Test files: reading text and JSON, writing text, and the small random
// stream that tests' hand-made CSV files draw their values from.
// Header-only: every .cpp under tests/support/ is compiled into every test
// binary.

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace veil::test {

/// The shared Adult files (part "train" or "test"), and whether both are
/// there (tests that need them skip, saying so, when they are not).
inline std::string adult(const char* part) {
  return std::string(VEIL_SHARED_DIR) + "/datasets/adult_" + part + ".csv.gz";
}
inline bool have_adult() {
  std::ifstream train(adult("train")), test(adult("test"));
  return train.good() && test.good();
}

/// The whole of the file at `path` (empty if it cannot be read).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// The cells of a CSV file, row by row (fields may be double-quoted, with
/// commas inside; no line breaks inside).
inline std::vector<std::vector<std::string>> csv_rows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(read_text(path));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"')
        quoted = !quoted;
      else if (ch == ',' && !quoted)
        cells.emplace_back();
      else
        cells.back() += ch;
    }
    rows.push_back(std::move(cells));
  }
  return rows;
}

/// Writes `text` to `path`.
inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

/// The JSON document at `path`; a test that cannot open it stops.
inline nlohmann::json read_json(const std::string& path) {
  nlohmann::json j;
  std::ifstream in(path);
  BOOST_REQUIRE_MESSAGE(in, "cannot open " << path);
  in >> j;
  return j;
}

/// Uniform doubles in [0, 1) from a 64-bit linear congruential generator
/// (Knuth's MMIX constants, the top 53 bits): the same numbers on every
/// platform, so a test's data file is the same everywhere.
class lcg {
public:
  explicit lcg(std::uint64_t seed) : state_(seed) {}

  double operator()() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state_ >> 11) / 9007199254740992.0;
  }

private:
  std::uint64_t state_;
};

} // namespace veil::test
