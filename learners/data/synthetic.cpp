#include "learners/data/synthetic.hpp"

#include "learners/input_error.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace veil::learners {

namespace {

/// Random numbers that are the same on every platform: std::mt19937_64's
/// output is fixed by the standard, unlike std::*_distribution's.
class random_source {
public:
  explicit random_source(std::uint64_t seed) : engine_(seed) {}

  /// Uniform on [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  /// Standard normal by Marsaglia's polar form of Box-Muller. It needs only
  /// log and sqrt (sqrt is exact in IEEE arithmetic), not sin and cos, so
  /// fewer libm results can differ across platforms.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = 2 * uniform() - 1;
      v = 2 * uniform() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s == 0);
    double m = std::sqrt(-2 * std::log(s) / s);
    spare_ = v * m;
    has_spare_ = true;
    return u * m;
  }

  /// Uniform integer in [0, n), n > 0, without modulo bias.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t x;
    do {
      x = engine_();
    } while (x >= limit);
    return x % n;
  }

  std::uint64_t bits() { return engine_(); }

  /// A uniformly random permutation of 0..n-1 (Fisher-Yates).
  std::vector<std::size_t> permutation(std::size_t n) {
    std::vector<std::size_t> p(n);
    std::iota(p.begin(), p.end(), std::size_t{0});
    for (std::size_t i = n; i > 1; --i)
      std::swap(p[i - 1], p[below(i)]);
    return p;
  }

private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0;
};

std::vector<std::string> default_names(std::size_t n) {
  std::vector<std::string> names;
  names.reserve(n);
  for (std::size_t j = 0; j < n; ++j)
    names.push_back("f" + std::to_string(j));
  return names;
}

/// `count` distinct vertices of {0,1}^dims, uniformly without replacement,
/// each as dims bits packed into 64-bit words. count <= 2^dims.
std::vector<std::vector<std::uint64_t>>
hypercube_vertices(std::size_t count, std::size_t dims, random_source& rng) {
  const std::size_t words = (dims + 63) / 64;
  std::vector<std::vector<std::uint64_t>> out;
  out.reserve(count);
  if (dims < 64 && (std::uint64_t{1} << dims) <= 2 * std::uint64_t{count}) {
    // Dense: a partial shuffle of all vertices, as rejection would crawl.
    std::vector<std::uint64_t> all(std::size_t{1} << dims);
    std::iota(all.begin(), all.end(), std::uint64_t{0});
    for (std::size_t i = 0; i < count; ++i) {
      std::swap(all[i], all[i + rng.below(all.size() - i)]);
      out.push_back({all[i]});
    }
    return out;
  }
  // Sparse: at least half the draws are new, so rejection is cheap.
  std::set<std::vector<std::uint64_t>> seen;
  while (out.size() < count) {
    std::vector<std::uint64_t> v(words);
    for (auto& w : v)
      w = rng.bits();
    if (dims % 64 != 0)
      v.back() &= (std::uint64_t{1} << (dims % 64)) - 1;
    if (seen.insert(v).second)
      out.push_back(std::move(v));
  }
  return out;
}

bool vertex_bit(const std::vector<std::uint64_t>& v, std::size_t i) {
  return (v[i / 64] >> (i % 64)) & 1;
}

/// Permutes the rows of every column and of the labels: row i becomes
/// old row perm[i].
void permute_rows(dataset& d, const std::vector<std::size_t>& perm) {
  const std::size_t n = d.rows();
#pragma omp parallel
  {
    std::vector<float> tmp(n);
#pragma omp for schedule(static)
    for (long j = 0; j < static_cast<long>(d.features()); ++j) {
      auto col = d.column(static_cast<std::size_t>(j));
      for (std::size_t i = 0; i < n; ++i)
        tmp[i] = col[perm[i]];
      std::copy(tmp.begin(), tmp.end(), col.begin());
    }
  }
  std::vector<float> labels(n);
  for (std::size_t i = 0; i < n; ++i)
    labels[i] = d.labels()[perm[i]];
  d.labels() = std::move(labels);
}

} // namespace

dataset make_classification(const classification_spec& spec) {
  const std::string what = "make_classification: classification_spec.";
  if (spec.rows == 0)
    fail_input(what + "rows must be positive");
  if (spec.features == 0)
    fail_input(what + "features must be positive");
  if (spec.informative == 0)
    fail_input(what + "informative must be positive");
  if (spec.informative > spec.features ||
      spec.redundant > spec.features - spec.informative)
    fail_input(what + "informative (" + std::to_string(spec.informative) +
               ") + redundant (" + std::to_string(spec.redundant) +
               ") must not exceed features (" + std::to_string(spec.features) +
               ")");
  if (spec.classes == 0)
    fail_input(what + "classes must be positive");
  if (spec.clusters_per_class == 0)
    fail_input(what + "clusters_per_class must be positive");
  if (spec.classes > SIZE_MAX / spec.clusters_per_class ||
      (spec.informative < 64 && spec.classes * spec.clusters_per_class >
                                    (std::uint64_t{1} << spec.informative)))
    fail_input(what + "classes (" + std::to_string(spec.classes) +
               ") * clusters_per_class (" +
               std::to_string(spec.clusters_per_class) +
               ") must not exceed 2^informative (informative = " +
               std::to_string(spec.informative) + ")");
  if (!(spec.flip_y >= 0 && spec.flip_y <= 1))
    fail_input(what + "flip_y must be in [0, 1]");
  if (!std::isfinite(spec.class_sep))
    fail_input(what + "class_sep must be finite");

  const std::size_t n = spec.rows, p = spec.features, ni = spec.informative,
                    nr = spec.redundant, nu = p - ni - nr;
  const std::size_t clusters = spec.classes * spec.clusters_per_class;
  random_source rng(spec.seed);

  // Cluster centres: distinct hypercube vertices mapped to {-sep, +sep}.
  auto vertices = hypercube_vertices(clusters, ni, rng);
  // Redundant = informative * B.
  std::vector<double> b(ni * nr);
  for (auto& x : b)
    x = 2 * rng.uniform() - 1;
  // Where each generated column ends up; drawn now so that rows can be
  // written straight into place.
  std::vector<std::size_t> place(p);
  if (spec.shuffle) {
    // Final column j holds generated column order[j].
    auto order = rng.permutation(p);
    for (std::size_t j = 0; j < p; ++j)
      place[order[j]] = j;
  } else {
    std::iota(place.begin(), place.end(), std::size_t{0});
  }

  dataset d(n, default_names(p));
  auto& labels = d.labels();
  labels.resize(n);

  // Rows are made in blocks, row-major, then scattered to the columns.
  constexpr std::size_t block = 1024;
  std::vector<float> buf(block * p);
  std::vector<double> z(ni), centre(ni), a(ni * ni);
  std::size_t row = 0;
  for (std::size_t k = 0; k < clusters; ++k) {
    const std::size_t size = n / clusters + (k < n % clusters ? 1 : 0);
    for (std::size_t i = 0; i < ni; ++i)
      centre[i] = vertex_bit(vertices[k], i) ? spec.class_sep : -spec.class_sep;
    // A random covariance for this cluster: x = z * A + centre.
    for (auto& x : a)
      x = 2 * rng.uniform() - 1;
    const auto label = static_cast<float>(k % spec.classes);
    for (std::size_t done = 0; done < size;) {
      const std::size_t m = std::min(block, size - done);
      for (std::size_t r = 0; r < m; ++r) {
        float* out = &buf[r * p];
        for (std::size_t i = 0; i < ni; ++i)
          z[i] = rng.normal();
        for (std::size_t j = 0; j < ni; ++j) {
          double s = centre[j];
          for (std::size_t i = 0; i < ni; ++i)
            s += z[i] * a[i * ni + j];
          out[j] = static_cast<float>(s);
        }
        // From the stored floats, so that the redundant columns are linear
        // combinations of the data as written, not of unrounded values.
        for (std::size_t j = 0; j < nr; ++j) {
          double s = 0;
          for (std::size_t i = 0; i < ni; ++i)
            s += static_cast<double>(out[i]) * b[i * nr + j];
          out[ni + j] = static_cast<float>(s);
        }
        for (std::size_t j = 0; j < nu; ++j)
          out[ni + nr + j] = static_cast<float>(rng.normal());
        labels[row + r] = label;
      }
      for (std::size_t c = 0; c < p; ++c) {
        auto col = d.column(place[c]);
        for (std::size_t r = 0; r < m; ++r)
          col[row + r] = buf[r * p + c];
      }
      row += m;
      done += m;
    }
  }

  if (spec.shuffle)
    permute_rows(d, rng.permutation(n));
  // Last, so that flip_y does not change the features or their order.
  for (std::size_t i = 0; i < n; ++i)
    if (rng.uniform() < spec.flip_y)
      labels[i] = static_cast<float>(rng.below(spec.classes));
  return d;
}

dataset make_regression(const regression_spec& spec) {
  const std::string what = "make_regression: regression_spec.";
  if (spec.rows == 0)
    fail_input(what + "rows must be positive");
  if (spec.features == 0)
    fail_input(what + "features must be positive");
  if (spec.informative > spec.features)
    fail_input(what + "informative (" + std::to_string(spec.informative) +
               ") must not exceed features (" + std::to_string(spec.features) +
               ")");
  if (!(spec.noise >= 0) || !std::isfinite(spec.noise))
    fail_input(what + "noise must be finite and non-negative");
  if (!std::isfinite(spec.bias))
    fail_input(what + "bias must be finite");

  const std::size_t n = spec.rows, p = spec.features, ni = spec.informative;
  random_source rng(spec.seed);
  std::vector<double> w(ni);
  for (auto& x : w)
    x = 100 * rng.uniform();

  dataset d(n, default_names(p));
  auto& labels = d.labels();
  labels.resize(n);
  constexpr std::size_t block = 1024;
  std::vector<float> buf(block * p);
  for (std::size_t row = 0; row < n;) {
    const std::size_t m = std::min(block, n - row);
    for (std::size_t r = 0; r < m; ++r) {
      float* out = &buf[r * p];
      for (std::size_t j = 0; j < p; ++j)
        out[j] = static_cast<float>(rng.normal());
      double y = spec.bias;
      for (std::size_t j = 0; j < ni; ++j)
        y += w[j] * static_cast<double>(out[j]);
      // Drawn even when noise = 0, so the features do not depend on it.
      y += spec.noise * rng.normal();
      labels[row + r] = static_cast<float>(y);
    }
    for (std::size_t c = 0; c < p; ++c) {
      auto col = d.column(c);
      for (std::size_t r = 0; r < m; ++r)
        col[row + r] = buf[r * p + c];
    }
    row += m;
  }
  return d;
}

} // namespace veil::learners
