#pragma once

// Seeded random datasets and gradients for tests. Header-only: every .cpp
// under tests/support/ is compiled into every test binary.
//
// The generator is a self-contained splitmix64, and floats are made from its
// bits by hand, so that the numbers do not depend on the standard library's
// distributions.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "learners/data/dataset.hpp"
#include "learners/hist/gradients.hpp"

namespace veil::test {

/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and good enough for
/// test data.
class rng {
public:
  explicit rng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n), n > 0.
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  bool chance(double p) { return uniform() < p; }

private:
  std::uint64_t state_;
};

/// What random_dataset draws.
struct random_data_spec {
  std::size_t rows = 100;
  std::size_t features = 3;
  /// Share of feature values that are missing (NaN).
  double missing_rate = 0.1;
  /// 0: continuous values in [-10, 10); k > 0: values from k levels
  /// {0, 0.5, ..., (k-1)/2} - 3, so that there are many ties.
  std::size_t levels = 0;
  /// Draw 0/1 labels (probability 1/2 each).
  bool labels = true;
  std::uint64_t seed = 0;
};

inline std::vector<std::string> feature_names(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t j = 0; j < n; ++j)
    out.push_back("f" + std::to_string(j));
  return out;
}

/// A table whose every cell names its place: columns `names`, cell (i, j)
/// = step j + i, labels i % 2 (tests of how columns and rows are dealt).
inline learners::dataset counting_table(std::size_t rows,
                                        std::vector<std::string> names,
                                        std::size_t step) {
  learners::dataset d(rows, names);
  for (std::size_t j = 0; j < names.size(); ++j)
    for (std::size_t i = 0; i < rows; ++i)
      d.column(j)[i] = static_cast<float>(step * j + i);
  for (std::size_t i = 0; i < rows; ++i)
    d.labels().push_back(static_cast<float>(i % 2));
  return d;
}

inline learners::dataset random_dataset(const random_data_spec& spec) {
  rng r(spec.seed);
  learners::dataset d(spec.rows, feature_names(spec.features));
  for (std::size_t j = 0; j < spec.features; ++j) {
    auto col = d.column(j);
    for (std::size_t i = 0; i < spec.rows; ++i) {
      if (r.chance(spec.missing_rate)) {
        col[i] = learners::missing_value;
        continue;
      }
      if (spec.levels == 0)
        col[i] = static_cast<float>(r.uniform(-10, 10));
      else
        col[i] = static_cast<float>(r.below(spec.levels)) * 0.5f - 3.0f;
    }
  }
  if (spec.labels) {
    d.labels().resize(spec.rows);
    for (auto& y : d.labels())
      y = r.chance(0.5) ? 1.0f : 0.0f;
  }
  return d;
}

/// n gradient pairs, g uniform in [-1, 1), h uniform in [0.05, 1).
inline std::vector<learners::grad_pair> random_gradients(std::size_t n,
                                                         std::uint64_t seed) {
  rng r(seed);
  std::vector<learners::grad_pair> out(n);
  for (auto& gp : out) {
    gp.g = static_cast<float>(r.uniform(-1, 1));
    gp.h = static_cast<float>(r.uniform(0.05, 1));
  }
  return out;
}

/// A random dataset with random gradients for its rows.
struct data_and_gradients {
  learners::dataset d;
  std::vector<learners::grad_pair> grads;
};

/// random_dataset(spec), with random_gradients drawn from spec.seed + 1.
inline data_and_gradients
random_data_and_gradients(const random_data_spec& spec) {
  auto d = random_dataset(spec);
  auto grads = random_gradients(spec.rows, spec.seed + 1);
  return {std::move(d), std::move(grads)};
}

/// 0, 1, ..., n-1.
inline std::vector<std::uint32_t> all_rows(std::size_t n) {
  std::vector<std::uint32_t> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<std::uint32_t>(i);
  return out;
}

} // namespace veil::test
