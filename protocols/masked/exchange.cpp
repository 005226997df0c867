#include "protocols/masked/exchange.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "learners/parallel.hpp"
#include "learners/split/split.hpp"
#include "protocols/dp/gaussian.hpp"
#include "protocols/masked/noise.hpp"

namespace veil::protocols::masked {

namespace {

/// Per feature, the node's row count in each bin (the last slot: missing).
std::vector<std::uint32_t> bin_counts(const learners::bin_matrix& bins,
                                      std::span<const std::uint32_t> rows) {
  const auto& layout = bins.layout();
  std::vector<std::uint32_t> counts(layout.slots(), 0);
  for (auto r : rows)
    for (std::size_t f = 0; f < layout.features(); ++f)
      ++counts[layout.offset(f) + static_cast<std::uint32_t>(bins.bin(r, f))];
  return counts;
}

/// Sum of `x` over the rows of the node that go left (index j of the
/// node's rows): Neumaier's compensated sum, since the masked entries are
/// many orders above the gradients they carry.
struct compensated {
  double sum = 0, carry = 0;
  void add(double x) {
    double t = sum + x;
    carry += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  double value() const { return sum + carry; }
};

} // namespace

std::vector<candidate> node_candidates(const learners::bin_matrix& bins,
                                       std::span<const std::uint32_t> rows) {
  const auto& layout = bins.layout();
  auto counts = bin_counts(bins, rows);
  auto n = static_cast<std::uint32_t>(rows.size());
  std::vector<candidate> out;
  for (std::size_t f = 0; f < layout.features(); ++f) {
    int nb = layout.bins(f);
    const auto* c = counts.data() + layout.offset(f);
    auto missing = c[nb];
    std::uint32_t left = 0;
    for (int b = 0; b < nb; ++b) {
      left += c[b];
      if (left > 0 && left < n)
        out.push_back({static_cast<std::int32_t>(f), b, false, left});
    }
    if (missing == 0)
      continue;
    std::uint32_t right = 0;
    for (int b = nb - 1; b >= 1; --b) {
      right += c[b];
      if (right > 0 && right < n)
        out.push_back({static_cast<std::int32_t>(f), b - 1, true, n - right});
    }
  }
  return out;
}

std::uint64_t max_candidates(std::uint64_t features, int max_bin) {
  return features * (2 * static_cast<std::uint64_t>(std::max(max_bin, 1)) - 1);
}

noise_source::noise_source(std::uint64_t seed, std::uint64_t stream) {
  if (seed == 0) {
    system_ = std::make_unique<crypto::system_random>();
    return;
  }
  crypto::seeded_random base(seed);
  crypto::key32 key;
  for (std::size_t i = 0; i < 4; ++i) {
    auto word = base() ^ (stream * 0x9E3779B97F4A7C15ull + i);
    std::memcpy(key.data() + 8 * i, &word, 8);
  }
  seeded_.emplace(key);
}

crypto::key32 noise_source::next_key() {
  crypto::key32 key;
  for (std::size_t i = 0; i < 4; ++i) {
    auto word = system_ ? (*system_)() : (*seeded_)();
    std::memcpy(key.data() + 8 * i, &word, 8);
  }
  return key;
}

void make_noise(const learners::bin_matrix& bins,
                std::span<const std::uint32_t> rows,
                std::span<const candidate> candidates, const calibration& c,
                noise_source& source, int threads, std::span<double> noise) {
  auto n = rows.size();
  auto w = static_cast<std::size_t>(c.w);
  auto count = candidates.size();
  if (noise.size() != count * w * n)
    throw std::invalid_argument("make_noise: wrong output size");
  std::vector<crypto::key32> keys;
  keys.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    keys.push_back(source.next_key());
  auto team = learners::threads_for(count * w * n, threads);
#pragma omp parallel num_threads(team)
  {
    std::vector<double> p, z;
    std::vector<std::uint8_t> m(n);
#pragma omp for schedule(dynamic)
    for (std::size_t i = 0; i < count; ++i) {
      const auto& cand = candidates[i];
      for (std::size_t r = 0; r < n; ++r)
        m[r] = goes_left(bins, rows[r], cand);
      crypto::seeded_random rng(keys[i]);
      fill_noise(m, cand.left, c.sigma1, c.sigma2, c.w, rng,
                 noise.subspan(i * w * n, w * n), p, z);
    }
  }
}

std::pair<double, double> mask_gradients(
    std::span<const double> released_g, std::span<const double> released_h,
    std::span<const std::uint32_t> rows, std::span<const double> noise,
    std::span<const std::uint32_t> left, std::size_t candidates,
    const params& p, const calibration& c, noise_source& source, int threads,
    std::vector<double>& out) {
  auto n = rows.size();
  auto w = static_cast<std::size_t>(c.w);
  compensated gs, hs;
  std::vector<double> g(n), h(n);
  for (std::size_t r = 0; r < n; ++r) {
    g[r] = released_g[rows[r]];
    h[r] = released_h[rows[r]];
    gs.add(g[r]);
    hs.add(h[r]);
  }
  // The coefficients first (few), from the AP's own stream.
  std::vector<double> coef(candidates * 2 * w);
  {
    crypto::seeded_random rng(source.next_key());
    for (std::size_t i = 0; i < candidates; ++i) {
      double energy = candidate_energy(p, c, n, left.empty() ? n : left[i]);
      for (std::size_t v = 0; v < 2; ++v) {
        auto cs = sphere_coefficients(c.w, energy, rng);
        std::copy(cs.begin(), cs.end(), coef.begin() + (2 * i + v) * w);
      }
    }
  }
  auto base = out.size();
  out.resize(base + candidates * 2 * n);
  auto team = learners::threads_for(candidates * 2 * w * n, threads);
#pragma omp parallel for num_threads(team) schedule(static)
  for (std::size_t i = 0; i < candidates; ++i) {
    const double* b = noise.data() + i * w * n;
    for (std::size_t v = 0; v < 2; ++v) {
      double* dst = out.data() + base + (2 * i + v) * n;
      const auto& src = v == 0 ? g : h;
      std::copy(src.begin(), src.end(), dst);
      for (std::size_t k = 0; k < w; ++k) {
        double ck = coef[(2 * i + v) * w + k];
        const double* col = b + k * n;
        for (std::size_t r = 0; r < n; ++r)
          dst[r] += ck * col[r];
      }
    }
  }
  return {gs.value(), hs.value()};
}

std::optional<scored> best_candidate(const learners::bin_matrix& bins,
                                     std::span<const std::uint32_t> rows,
                                     std::span<const candidate> candidates,
                                     std::span<const double> masked, double g,
                                     double h, const learners::tree_params& tp,
                                     int threads) {
  auto n = rows.size();
  std::vector<double> gains(candidates.size(),
                            -std::numeric_limits<double>::infinity());
  learners::grad_sum node{g, h};
  double parent = learners::calc_gain(tp, node);
  auto team = learners::threads_for(candidates.size() * 2 * n, threads);
#pragma omp parallel for num_threads(team) schedule(static)
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const double* mg = masked.data() + 2 * i * n;
    const double* mh = mg + n;
    compensated gl, hl;
    for (std::size_t r = 0; r < n; ++r)
      if (goes_left(bins, rows[r], candidates[i])) {
        gl.add(mg[r]);
        hl.add(mh[r]);
      }
    learners::grad_sum l{gl.value(), hl.value()};
    auto r = node - l;
    // Eq. 8 on noisy sums: a candidate whose denominator is not positive
    // is skipped (spec §4.5); min_child_weight, when set, on the noisy
    // sums. Without noise this is learners::best_split's score.
    if (tp.min_child_weight > 0 &&
        (l.h < tp.min_child_weight || r.h < tp.min_child_weight))
      continue;
    if (!(l.h + tp.lambda > 0 && r.h + tp.lambda > 0))
      continue;
    gains[i] = learners::split_gain(
        learners::weight_score(l, tp.lambda, tp.max_delta_step) +
        learners::weight_score(r, tp.lambda, tp.max_delta_step) - parent);
  }
  std::optional<scored> best;
  for (std::size_t i = 0; i < gains.size(); ++i)
    if (std::isfinite(gains[i]) && (!best || gains[i] > best->gain))
      best = scored{i, gains[i]};
  return best;
}

} // namespace veil::protocols::masked
