#include "learners/image/bovw.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace veil::learners::image {

namespace {

float at(const picture& p, int r, int c) {
  r = std::clamp(r, 0, side - 1); // the nearest pixel outside
  c = std::clamp(c, 0, side - 1);
  return p[static_cast<std::size_t>(r * side + c)];
}

float distance2(const descriptor& a, const descriptor& b) {
  float s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

std::size_t nearest(const descriptor& x, const std::vector<descriptor>& cs) {
  std::size_t best = 0;
  float d = std::numeric_limits<float>::infinity();
  for (std::size_t k = 0; k < cs.size(); ++k)
    if (auto e = distance2(x, cs[k]); e < d) {
      d = e;
      best = k;
    }
  return best;
}

} // namespace

picture augment(const picture& in, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> angle(-15, 15), shift(-2.8, 2.8);
  double a = angle(rng) * std::numbers::pi / 180, dx = shift(rng),
         dy = shift(rng);
  double ca = std::cos(a), sa = std::sin(a), centre = (side - 1) / 2.0;
  picture out{};
  for (int r = 0; r < side; ++r)
    for (int c = 0; c < side; ++c) {
      // The source of output pixel (r, c): undo the shift, then the
      // rotation about the centre.
      double y = r - dy - centre, x = c - dx - centre;
      double sy = ca * y + sa * x + centre, sx = -sa * y + ca * x + centre;
      int r0 = static_cast<int>(std::floor(sy)),
          c0 = static_cast<int>(std::floor(sx));
      double fy = sy - r0, fx = sx - c0;
      double v =
          (1 - fy) * ((1 - fx) * at(in, r0, c0) + fx * at(in, r0, c0 + 1)) +
          fy * ((1 - fx) * at(in, r0 + 1, c0) + fx * at(in, r0 + 1, c0 + 1));
      out[static_cast<std::size_t>(r * side + c)] = static_cast<float>(v);
    }
  return out;
}

std::vector<descriptor> hog(const picture& in) {
  // Cell histograms: each pixel's gradient magnitude into its unsigned
  // orientation's bin (20 degrees wide), divided by the cell's area.
  std::array<std::array<float, 9>, cells * cells> cell{};
  for (int r = 0; r < side; ++r)
    for (int c = 0; c < side; ++c) {
      bool inner_c = c > 0 && c<side - 1, inner_r = r> 0 && r < side - 1;
      float gx = inner_c ? in[static_cast<std::size_t>(r * side + c + 1)] -
                               in[static_cast<std::size_t>(r * side + c - 1)]
                         : 0.0f;
      float gy = inner_r ? in[static_cast<std::size_t>((r + 1) * side + c)] -
                               in[static_cast<std::size_t>((r - 1) * side + c)]
                         : 0.0f;
      float magnitude = std::sqrt(gx * gx + gy * gy);
      double degrees = std::atan2(gy, gx) * 180 / std::numbers::pi;
      if (degrees < 0)
        degrees += 180;
      auto bin = std::min(8, static_cast<int>(degrees / 20));
      cell[static_cast<std::size_t>((r / 4) * cells + c / 4)]
          [static_cast<std::size_t>(bin)] += magnitude / 16;
    }
  std::vector<descriptor> out;
  out.reserve(descriptors);
  for (int br = 0; br < blocks; ++br)
    for (int bc = 0; bc < blocks; ++bc) {
      descriptor v{};
      std::size_t i = 0;
      for (int r = br; r < br + 2; ++r)
        for (int c = bc; c < bc + 2; ++c)
          for (float x : cell[static_cast<std::size_t>(r * cells + c)])
            v[i++] = x;
      // L2-Hys: normalise, clip at 0.2, normalise again.
      for (int pass = 0; pass < 2; ++pass) {
        float sq = 0;
        for (float x : v)
          sq += x * x;
        float norm = std::sqrt(sq + 1e-10f);
        for (auto& x : v)
          x = pass == 0 ? std::min(x / norm, 0.2f) : x / norm;
      }
      out.push_back(v);
    }
  return out;
}

std::vector<descriptor> kmeans(const std::vector<descriptor>& points, int k,
                               std::mt19937_64& rng) {
  auto n = points.size();
  auto K = static_cast<std::size_t>(k);
  if (k < 1 || n < K)
    throw std::invalid_argument("kmeans: fewer points than centres");
  // k-means++: each next centre drawn in proportion to its squared
  // distance to the nearest chosen one.
  std::vector<descriptor> centres;
  std::uniform_int_distribution<std::size_t> any(0, n - 1);
  centres.push_back(points[any(rng)]);
  std::vector<double> d2(n);
  for (std::size_t i = 0; i < n; ++i)
    d2[i] = distance2(points[i], centres[0]);
  while (centres.size() < K) {
    std::discrete_distribution<std::size_t> pick(d2.begin(), d2.end());
    centres.push_back(points[pick(rng)]);
    for (std::size_t i = 0; i < n; ++i)
      d2[i] = std::min<double>(d2[i], distance2(points[i], centres.back()));
  }
  // Lloyd: assign, then move each centre to its points' mean (a centre
  // without points stays).
  std::vector<std::size_t> assigned(n, K);
  for (int iteration = 0; iteration < 100; ++iteration) {
    bool changed = false;
    for (std::size_t i = 0; i < n; ++i)
      if (auto a = nearest(points[i], centres); a != assigned[i]) {
        assigned[i] = a;
        changed = true;
      }
    if (!changed)
      break;
    std::vector<std::array<double, block_length>> sum(K);
    std::vector<std::size_t> count(K, 0);
    for (auto& s : sum)
      s.fill(0);
    for (std::size_t i = 0; i < n; ++i) {
      ++count[assigned[i]];
      for (std::size_t j = 0; j < block_length; ++j)
        sum[assigned[i]][j] += points[i][j];
    }
    for (std::size_t c = 0; c < K; ++c)
      if (count[c] > 0)
        for (std::size_t j = 0; j < block_length; ++j)
          centres[c][j] =
              static_cast<float>(sum[c][j] / static_cast<double>(count[c]));
  }
  return centres;
}

std::vector<double> bag_of_words(const picture& in,
                                 const std::vector<descriptor>& vocabulary) {
  std::vector<double> out(vocabulary.size(), 0);
  for (const auto& d : hog(in))
    out[nearest(d, vocabulary)] += 1.0 / descriptors;
  return out;
}

} // namespace veil::learners::image
