#include "protocols/mpc/masked.hpp"

#include <stdexcept>

namespace veil::protocols::mpc {

namespace {

words mask_share(const masked& v) {
  words out(v.size(), 0);
  for (const auto& t : v.terms)
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] += t.coefficient[i] * t.share[i];
  return out;
}

} // namespace

task<std::vector<masked>> open_masked(party& self, std::vector<to_open> jobs) {
  const word offset = word{1} << 62;
  std::vector<shares_of> dealt;
  words outgoing;
  for (const auto& job : jobs) {
    if (job.bits < 0 || job.bits >= 62)
      throw std::invalid_argument("mpc::open_masked: shift out of range");
    correlation_request spec;
    spec.kind = job.bits == 0 ? item::mask : item::trunc_mask;
    spec.count = job.x.size();
    spec.bits = job.bits;
    auto d = co_await self.correlated(spec);
    const auto& r = d.parts[0];
    for (std::size_t i = 0; i < job.x.size(); ++i)
      outgoing.push_back(job.bits == 0
                             ? job.x[i] - r[i]
                             : job.x[i] + r[i] + (self.first() ? offset : 0));
    dealt.push_back(std::move(d));
  }
  auto opened = co_await self.open(std::move(outgoing));
  std::vector<masked> out;
  std::size_t at = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    auto k = jobs[j].x.size();
    auto bits = jobs[j].bits;
    auto& d = dealt[j];
    masked v;
    v.known.assign(opened.begin() + static_cast<long>(at),
                   opened.begin() + static_cast<long>(at + k));
    at += k;
    if (bits == 0) {
      v.terms.push_back(
          {{item::mask, d.call, k, 0, 0}, words(k, 1), std::move(d.parts[0])});
    } else {
      const word high = word{1} << (63 - bits);
      words sign_high(k);
      for (std::size_t i = 0; i < k; ++i) {
        word p = v.known[i], p_msb = p >> 63;
        v.known[i] = ((p & ~(word{1} << 63)) >> bits) -
                     (word{1} << (62 - bits)) + p_msb * high;
        sign_high[i] = (1 - 2 * p_msb) * high;
      }
      v.terms.push_back({{item::trunc_mask, d.call, k, bits, 1},
                         words(k, ~word{0}), // −ρ
                         std::move(d.parts[1])});
      v.terms.push_back({{item::trunc_mask, d.call, k, bits, 2},
                         std::move(sign_high),
                         std::move(d.parts[2])});
    }
    out.push_back(std::move(v));
  }
  co_return out;
}

words share_of(const party& self, const masked& v) {
  auto out = mask_share(v);
  if (self.first())
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] += v.known[i];
  return out;
}

task<words> product(party& self, const masked& a, const masked& b) {
  auto k = a.size();
  if (b.size() != k)
    throw std::invalid_argument("mpc::product: vectors of different lengths");
  auto ma = mask_share(a), mb = mask_share(b);
  words out(k);
  for (std::size_t i = 0; i < k; ++i)
    out[i] = a.known[i] * mb[i] + b.known[i] * ma[i] +
             (self.first() ? a.known[i] * b.known[i] : 0);
  for (const auto& ta : a.terms)
    for (const auto& tb : b.terms) {
      correlation_request spec;
      spec.kind = item::cross;
      spec.count = k;
      spec.operands = {ta.source, tb.source};
      auto cross = co_await self.correlated(spec);
      const auto& c = cross.parts[0];
      for (std::size_t i = 0; i < k; ++i)
        out[i] += ta.coefficient[i] * tb.coefficient[i] * c[i];
    }
  co_return out;
}

masked subtract_from(double c, const masked& a) {
  masked out = a;
  word e = encode(c);
  for (auto& v : out.known)
    v = e - v;
  for (auto& t : out.terms)
    for (auto& w : t.coefficient)
      w = word{0} - w;
  return out;
}

} // namespace veil::protocols::mpc
