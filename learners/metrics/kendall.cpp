#include "learners/metrics/kendall.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "learners/input_error.hpp"

namespace veil::learners {

namespace {

using i128 = __int128;

/// Dense ranks (0-based) of v.
std::vector<std::int64_t> dense_ranks(std::span<const double> v) {
  std::vector<double> sorted(v.begin(), v.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<std::int64_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out[i] =
        std::lower_bound(sorted.begin(), sorted.end(), v[i]) - sorted.begin();
  return out;
}

/// A Fenwick tree of (count, sum) pairs over [0, n).
class fenwick {
public:
  explicit fenwick(std::size_t n) : cnt_(n + 1), sum_(n + 1) {}
  void add(std::size_t i, std::int64_t d) {
    for (++i; i < cnt_.size(); i += i & (~i + 1)) {
      cnt_[i] += 1;
      sum_[i] += d;
    }
  }
  /// Count and sum over [0, i).
  std::pair<i128, i128> prefix(std::size_t i) const {
    i128 c = 0, s = 0;
    for (; i > 0; i -= i & (~i + 1)) {
      c += cnt_[i];
      s += sum_[i];
    }
    return {c, s};
  }

private:
  std::vector<std::int64_t> cnt_;
  std::vector<i128> sum_;
};

} // namespace

weighted_kendall_result weighted_kendall(std::span<const double> r,
                                         std::span<const double> s) {
  if (r.size() != s.size())
    throw input_error("weighted Kendall: columns of different lengths (" +
                      std::to_string(r.size()) + " and " +
                      std::to_string(s.size()) + ")");
  for (std::size_t i = 0; i < r.size(); ++i)
    if (std::isnan(r[i]) || std::isnan(s[i]))
      throw input_error("weighted Kendall: missing value at row " +
                        std::to_string(i));
  auto n = r.size();
  auto d = dense_ranks(r);
  auto sr = dense_ranks(s);
  std::size_t ks = 0;
  for (auto x : sr)
    ks = std::max<std::size_t>(ks, static_cast<std::size_t>(x) + 1);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return d[a] < d[b]; });

  fenwick tree(ks);
  i128 rs = 0, ss = 0, rr = 0;
  i128 cnt_all = 0, sum_all = 0;
  for (std::size_t lo = 0; lo < n;) {
    std::size_t hi = lo;
    while (hi < n && d[order[hi]] == d[order[lo]])
      ++hi;
    // Query the group against the strictly smaller r already inserted.
    for (std::size_t k = lo; k < hi; ++k) {
      auto j = order[k];
      i128 dj = d[j];
      auto [cl, sl] = tree.prefix(static_cast<std::size_t>(sr[j]));
      auto [cle, sle] = tree.prefix(static_cast<std::size_t>(sr[j]) + 1);
      i128 cg = cnt_all - cle, sg = sum_all - sle;
      rs += dj * (cl - cg) - (sl - sg);
      ss += dj * (cl + cg) - (sl + sg);
      rr += dj * cnt_all - sum_all;
    }
    for (std::size_t k = lo; k < hi; ++k) {
      auto j = order[k];
      tree.add(static_cast<std::size_t>(sr[j]), d[j]);
      cnt_all += 1;
      sum_all += d[j];
    }
    lo = hi;
  }

  weighted_kendall_result out;
  out.rs = static_cast<long double>(rs);
  out.rr = static_cast<long double>(rr);
  out.ss = static_cast<long double>(ss);
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  out.tau = rr > 0 && ss > 0 ? static_cast<double>(out.rs / (std::sqrt(out.rr) *
                                                             std::sqrt(out.ss)))
                             : nan;
  out.tau_dr = rr > 0 ? static_cast<double>(out.rs / out.rr) : nan;
  return out;
}

} // namespace veil::learners
