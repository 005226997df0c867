#include "protocols/mpc/functions.hpp"

#include <cmath>
#include <stdexcept>

#include "protocols/mpc/boolean.hpp"

namespace veil::protocols::mpc {

words add_public(const party& self, std::span<const word> x, double c) {
  words out(x.begin(), x.end());
  if (self.first()) {
    word e = encode(c);
    for (auto& v : out)
      v += e;
  }
  return out;
}

namespace {

/// 2 − t as shares.
words two_minus(const party& self, const words& t) {
  words neg(t.size());
  for (std::size_t i = 0; i < t.size(); ++i)
    neg[i] = word{0} - t[i];
  return add_public(self, neg, 2.0);
}

} // namespace

int newton_steps(int s, double smallest) {
  if (!(smallest > 0))
    throw std::invalid_argument("mpc::newton_steps: the smallest "
                                "denominator must be positive");
  int extra =
      smallest >= 1 ? 0 : static_cast<int>(std::ceil(-std::log2(smallest)));
  return s + 4 + extra;
}

task<quotient> divide_masked(party& self, words x, words y, int s,
                             int iterations) {
  if (s < 0 || s > 21)
    throw std::invalid_argument("mpc::divide_masked: s in [0, 21]");
  if (iterations <= 0)
    iterations = newton_steps(s);
  // One round masks x and y and shifts y' = y / 2^s (the same integer at
  // scale 2^(f+s)); the first step from the public z = 1 is z = 2 − y'.
  std::vector<to_open> first{{std::move(x), 0}, {y, 0}};
  if (s > 0)
    first.push_back({std::move(y), s});
  auto opened = co_await open_masked(self, std::move(first));
  const masked& ym = opened[1];
  masked z = subtract_from(2.0, opened.size() > 2 ? opened[2] : ym);
  for (int i = 1; i < iterations; ++i) {
    auto yz = co_await product(self, ym, z);
    std::vector<to_open> shift{{std::move(yz), fraction_bits + s}};
    auto t = co_await open_masked(self, std::move(shift));
    auto two_minus_t = subtract_from(2.0, t[0]);
    auto next = co_await product(self, z, two_minus_t);
    std::vector<to_open> fixed{{std::move(next), fraction_bits}};
    auto zz = co_await open_masked(self, std::move(fixed));
    z = std::move(zz[0]);
  }
  auto xz = co_await product(self, opened[0], z);
  std::vector<to_open> last{{std::move(xz), fraction_bits + s}};
  auto ratio = co_await open_masked(self, std::move(last));
  co_return quotient{std::move(opened[0]), std::move(ratio[0])};
}

task<words> divide_scaled(party& self, words x, words y, int s,
                          int iterations) {
  auto q = co_await divide_masked(self, std::move(x), std::move(y), s,
                                  iterations);
  co_return share_of(self, q.ratio);
}

task<words> reciprocal(party& self, words y, double z0, int iterations) {
  if (iterations < 1)
    throw std::invalid_argument("mpc::reciprocal: at least one iteration");
  // First step on the public z0: both products are by a public constant.
  word start = encode(z0);
  auto yz0 = scale(y, start); // no temporaries in a co_await (party.hpp)
  auto t = co_await trunc(self, std::move(yz0), fraction_bits);
  auto next = scale(two_minus(self, t), start);
  auto z = co_await trunc(self, std::move(next), fraction_bits);
  for (int i = 1; i < iterations; ++i) {
    auto yz = co_await mul_fixed(self, y, z);
    auto two = two_minus(self, yz);
    auto zz = co_await mul_fixed(self, std::move(z), std::move(two));
    z = std::move(zz);
  }
  co_return z;
}

task<words> exponential(party& self, words x, int k) {
  if (k < 1 || k > 16)
    throw std::invalid_argument("mpc::exponential: k in [1, 16]");
  auto small = co_await trunc(self, std::move(x), k);
  words a = add_public(self, small, 1.0);
  for (int i = 0; i < k; ++i) {
    auto squared = co_await mul_fixed(self, a, a);
    a = std::move(squared);
  }
  co_return a;
}

task<words> sigmoid(party& self, words x) {
  auto k = x.size();
  auto negative = co_await less_than_zero(self, x); // S1
  auto sx = co_await mul(self, negative, x);        // S1 × SF: no truncation
  words minus_abs(k);
  for (std::size_t i = 0; i < k; ++i)
    minus_abs[i] = 2 * sx[i] - x[i]; // −|x| = −(x − 2 s x)
  auto e = co_await exponential(self, std::move(minus_abs), 8);
  auto den = add_public(self, e, 1.0); // in (1, 2]
  auto r = co_await reciprocal(self, std::move(den), 0.75, 5);
  words flip(k);
  for (std::size_t i = 0; i < k; ++i)
    flip[i] = word{0} - 2 * r[i];
  flip = add_public(self, flip, 1.0); // 1 − 2r
  auto correction = co_await mul(self, std::move(negative), std::move(flip));
  co_return add(r, correction);
}

task<words> paper_sigmoid(party& self, words x) {
  words minus(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    minus[i] = word{0} - x[i];
  auto e = co_await exponential(self, std::move(minus), 2);
  auto den = add_public(self, e, 1.0);
  co_return co_await reciprocal(self, std::move(den), 0x1p-20, 20);
}

} // namespace veil::protocols::mpc
