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
  auto q =
      co_await divide_masked(self, std::move(x), std::move(y), s, iterations);
  co_return share_of(self, q.ratio);
}

namespace {

masked times_public(const masked& a, word k) {
  masked out = a;
  for (auto& v : out.known)
    v *= k;
  for (auto& t : out.terms)
    for (auto& c : t.coefficient)
      c *= k;
  return out;
}

masked plus_public(const masked& a, double c) {
  masked out = a;
  word e = encode(c);
  for (auto& v : out.known)
    v += e;
  return out;
}

/// The truncation of raw (scale 2^(2f)) back to scale 2^f, masked.
task<masked> fixed(party& self, words raw) {
  std::vector<to_open> job{{std::move(raw), fraction_bits}};
  auto out = co_await open_masked(self, std::move(job));
  co_return std::move(out[0]);
}

/// Newton's reciprocal of a masked y from the public z0; the first step's
/// products are by public constants.
task<masked> reciprocal_of(party& self, masked y, double z0, int iterations) {
  if (iterations < 1)
    throw std::invalid_argument("mpc::reciprocal: at least one iteration");
  word start = encode(z0);
  auto yz0 = share_of(self, times_public(y, start));
  auto t = co_await fixed(self, std::move(yz0));
  auto next = share_of(self, times_public(subtract_from(2.0, t), start));
  auto z = co_await fixed(self, std::move(next));
  for (int i = 1; i < iterations; ++i) {
    auto yz = co_await product(self, y, z);
    auto yz_fixed = co_await fixed(self, std::move(yz));
    auto two = subtract_from(2.0, yz_fixed);
    auto zz = co_await product(self, z, two);
    auto zz_fixed = co_await fixed(self, std::move(zz));
    z = std::move(zz_fixed);
  }
  co_return z;
}

/// (1 + x / 2^k)^(2^k), masked: one truncation, k squarings of a round
/// each.
task<masked> exponential_of(party& self, words x, int k) {
  if (k < 1 || k > 16)
    throw std::invalid_argument("mpc::exponential: k in [1, 16]");
  std::vector<to_open> shift{{std::move(x), k}};
  auto small = co_await open_masked(self, std::move(shift));
  masked a = plus_public(small[0], 1.0);
  for (int i = 0; i < k; ++i) {
    auto squared = co_await product(self, a, a);
    auto next = co_await fixed(self, std::move(squared));
    a = std::move(next);
  }
  co_return a;
}

} // namespace

task<words> reciprocal(party& self, words y, double z0, int iterations) {
  std::vector<to_open> job{{std::move(y), 0}};
  auto ym = co_await open_masked(self, std::move(job));
  auto z = co_await reciprocal_of(self, std::move(ym[0]), z0, iterations);
  co_return share_of(self, z);
}

task<words> exponential(party& self, words x, int k) {
  auto e = co_await exponential_of(self, std::move(x), k);
  co_return share_of(self, e);
}

task<words> sigmoid(party& self, words x) {
  auto k = x.size();
  auto negative = co_await sign_bits(self, x); // XOR-shared
  auto sx = co_await select(self, negative, x);
  words minus_abs(k);
  for (std::size_t i = 0; i < k; ++i)
    minus_abs[i] = 2 * sx[i] - x[i]; // −|x| = −(x − 2 s x)
  auto e = co_await exponential_of(self, std::move(minus_abs), 8);
  auto den = plus_public(e, 1.0); // no temporaries in a co_await (party.hpp)
  auto r_masked = co_await reciprocal_of(self, std::move(den), 0.75, 5);
  auto r = share_of(self, r_masked); // 1 / (1 + e), e in (0, 1]
  words flip(k);
  for (std::size_t i = 0; i < k; ++i)
    flip[i] = word{0} - 2 * r[i];
  flip = add_public(self, flip, 1.0); // 1 − 2r
  auto correction = co_await select(self, std::move(negative), std::move(flip));
  co_return add(r, correction);
}

task<words> paper_sigmoid(party& self, words x) {
  words minus(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    minus[i] = word{0} - x[i];
  auto e = co_await exponential_of(self, std::move(minus), 2);
  auto den = plus_public(e, 1.0);
  auto r = co_await reciprocal_of(self, std::move(den), 0x1p-20, 20);
  co_return share_of(self, r);
}

} // namespace veil::protocols::mpc
