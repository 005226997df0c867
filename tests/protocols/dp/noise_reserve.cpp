// Noise drawn ahead of need (noise_reserve.hpp): what a filler draws comes
// out first, in order, then the taker's own engine takes over; a filler on
// another thread loses and repeats nothing; without a filler the draws are
// those of the take engine alone.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/discrete_gaussian.hpp"
#include "protocols/dp/noise_reserve.hpp"

namespace vdp = veil::protocols::dp;
namespace vcrypto = veil::protocols::crypto;

namespace {

vcrypto::key32 key_of(std::uint8_t b) {
  vcrypto::key32 k;
  std::fill_n(k.data(), k.size(), b);
  return k;
}

const auto sampler_g = vdp::discrete_gaussian::at_least(1.99 * 0x1p32);
const auto sampler_h = vdp::discrete_gaussian::at_least(0.5 * 0x1p32);

/// The first `n` draws of `s` from an engine keyed by `k`.
std::vector<std::int64_t> sequence(const vdp::discrete_gaussian& s,
                                   std::uint8_t k, std::size_t n) {
  vcrypto::seeded_random g(key_of(k));
  std::vector<std::int64_t> v;
  for (std::size_t i = 0; i < n; ++i)
    v.push_back(s(g));
  return v;
}

vdp::noise_reserve make(std::size_t capacity) {
  return vdp::noise_reserve({sampler_g, sampler_h}, {key_of(1), key_of(2)},
                            {key_of(3), key_of(4)}, capacity);
}

} // namespace

BOOST_AUTO_TEST_SUITE(dp)
BOOST_AUTO_TEST_SUITE(noise_reserve)

BOOST_AUTO_TEST_CASE(without_a_filler_the_draws_are_the_take_engines) {
  auto r = make(8);
  const auto g = sequence(sampler_g, 1, 20), h = sequence(sampler_h, 2, 20);
  for (std::size_t i = 0; i < 20; ++i) {
    BOOST_TEST(r.take(0) == g[i]);
    BOOST_TEST(r.take(1) == h[i]);
  }
}

BOOST_AUTO_TEST_CASE(draws_made_ahead_come_first_in_order) {
  auto r = make(4);
  // Fills go to the lane holding fewest: g, h, g, h, ... up to 4 each.
  int fills = 0;
  while (r.fill_one())
    ++fills;
  BOOST_TEST(fills == 8);
  BOOST_TEST(r.held(0) == 4u);
  BOOST_TEST(r.held(1) == 4u);
  const auto ahead = sequence(sampler_g, 3, 4);
  const auto own = sequence(sampler_g, 1, 2);
  for (std::size_t i = 0; i < 4; ++i)
    BOOST_TEST(r.take(0) == ahead[i]);
  BOOST_TEST(r.held(0) == 0u);
  BOOST_TEST(r.take(0) == own[0]); // empty: the taker draws
  BOOST_TEST(r.take(0) == own[1]);
  BOOST_TEST(r.held(1) == 4u);
  // The ring reuses its slots: the next fill is the fill engine's fifth.
  BOOST_TEST(r.fill_one());
  BOOST_TEST(r.held(0) == 1u);
  BOOST_TEST(r.take(0) == sequence(sampler_g, 3, 5)[4]);
}

BOOST_AUTO_TEST_CASE(a_filler_thread_loses_and_repeats_nothing) {
  // The taker's values, lane by lane, must be the fill engine's sequence
  // and the take engine's interleaved, each in its own order, with nothing
  // skipped: whatever the threads' timing.
  constexpr std::size_t takes = 60000;
  auto r = make(64);
  std::vector<std::int64_t> got;
  {
    std::jthread filler([&r](std::stop_token stop) { r.fill(stop); });
    for (std::size_t i = 0; i < takes; ++i)
      got.push_back(r.take(0));
    // No wake-up was lost: the filler sleeps only while every lane holds
    // more than half, so it soon brings the lane above half again (within
    // 10 s; a lost wake-up leaves it where the takes left it).
    for (int ms = 0; ms < 10000 && r.held(0) <= 32; ++ms)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    BOOST_TEST(r.held(0) > 32u);
  } // stops and joins the filler, which may be waiting for room
  const auto ahead = sequence(sampler_g, 3, takes + 128);
  const auto own = sequence(sampler_g, 1, takes);
  std::size_t a = 0, o = 0;
  bool merged = true;
  for (auto v : got) {
    // Draws are 2^33 apart or so: the two engines never agree by chance.
    if (a < ahead.size() && v == ahead[a])
      ++a;
    else if (o < own.size() && v == own[o])
      ++o;
    else
      merged = false;
  }
  BOOST_TEST(merged);
  BOOST_TEST(a + o == takes);
  BOOST_TEST_MESSAGE("made ahead " << a << " of " << takes);
}

BOOST_AUTO_TEST_CASE(bad_arguments_are_refused) {
  BOOST_CHECK_THROW(vdp::noise_reserve({sampler_g}, {key_of(1)}, {}, 8),
                    std::invalid_argument);
  BOOST_CHECK_THROW(
      vdp::noise_reserve({sampler_g}, {key_of(1)}, {key_of(2)}, 6),
      std::invalid_argument);
  BOOST_CHECK_THROW(
      vdp::noise_reserve({sampler_g}, {key_of(1)}, {key_of(2)}, 1),
      std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
