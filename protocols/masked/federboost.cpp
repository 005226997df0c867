#include "protocols/masked/federboost.hpp"

#include <cmath>
#include <limits>
#include <random>

namespace veil::protocols::masked {

double keep_probability(double epsilon, int domain) {
  double e = std::exp(epsilon);
  return e / (e + domain - 1);
}

perturbed_buckets perturb_buckets(const learners::bin_matrix& bins,
                                  double epsilon, crypto::seeded_random& rng) {
  perturbed_buckets out;
  const auto& layout = bins.layout();
  auto n = bins.rows();
  out.ids.resize(layout.features() * n);
  for (std::size_t f = 0; f < layout.features(); ++f) {
    int nb = layout.bins(f);
    bool missing = false;
    for (std::size_t r = 0; r < n && !missing; ++r)
      missing = bins.missing(r, f);
    int domain = nb + (missing ? 1 : 0);
    out.domains.push_back(domain);
    double keep = keep_probability(epsilon, domain);
    for (std::size_t r = 0; r < n; ++r) {
      int id = bins.bin(r, f); // the missing slot is id nb
      if (domain > 1 && crypto::uniform_open01(rng) >= keep) {
        // One of the other domain - 1 ids, uniformly.
        auto other = std::uniform_int_distribution<int>(0, domain - 2)(rng);
        id = other < id ? other : other + 1;
      }
      out.ids[f * n + r] = static_cast<std::uint16_t>(id);
    }
  }
  return out;
}

bucket_split true_split(const learners::quantile_cuts& cuts,
                        const learners::bin_matrix& bins, std::size_t feature,
                        float id_threshold) {
  int nb = bins.layout().bins(feature);
  // Ids below the threshold go left: buckets 0 .. last.
  int last = static_cast<int>(std::ceil(id_threshold)) - 1;
  bucket_split s;
  s.default_left = nb < id_threshold; // the missing id is nb
  // Finite bounds (a model file is JSON): no finite value is below the
  // lowest float, every one (but the largest) below the largest.
  if (last < 0)
    s.threshold = std::numeric_limits<float>::lowest();
  else if (last >= nb - 1)
    s.threshold = std::numeric_limits<float>::max();
  else
    s.threshold = cuts.threshold(feature, last);
  return s;
}

} // namespace veil::protocols::masked
