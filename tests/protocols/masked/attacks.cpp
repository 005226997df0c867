// The attacks of spec maskedxgboost §7.7 and the measures the audit
// reports (spec §9 item 20).
#include <boost/test/unit_test.hpp>

#include <random>

#include "protocols/crypto/random.hpp"
#include "protocols/masked/attacks.hpp"
#include "protocols/masked/noise.hpp"

namespace mx = veil::protocols::masked;
using veil::protocols::crypto::seeded_random;

namespace {

std::vector<std::uint8_t> random_split(std::size_t n, std::size_t left,
                                       std::mt19937_64& g) {
  std::vector<std::uint8_t> m(n, 0);
  std::fill(m.begin(), m.begin() + static_cast<long>(left), 1);
  std::shuffle(m.begin(), m.end(), g);
  return m;
}

} // namespace

BOOST_AUTO_TEST_SUITE(masked)
BOOST_AUTO_TEST_SUITE(attacks)

// Without disturbing noise the left set's noise sums to 0 exactly: the
// attack finds it (the null space is what hides m, not the sums).
BOOST_AUTO_TEST_CASE(subset_attack_finds_the_split_without_disturbing_noise) {
  std::mt19937_64 pick(3);
  seeded_random rng(4);
  for (std::size_t left : {1u, 5u, 10u, 19u}) {
    auto m = random_split(20, left, pick);
    auto b = mx::noise_matrix(m, 1.0, 0.0, 1, rng);
    BOOST_TEST(mx::bit_match(mx::subset_attack(b, 20, 1, left), m) == 1.0);
  }
}

// With the calibrated ratio of ε_PP = 1 (ρ ≈ 0.019) the attack is at
// chance: over 400 balanced trials the bit match is within 0.05 of 0.5
// (its sd over trials is about 0.1 / sqrt(400) = 0.005); scaling every
// noise by a constant changes nothing.
BOOST_AUTO_TEST_CASE(subset_attack_is_at_chance_when_calibrated) {
  std::mt19937_64 pick(5);
  seeded_random a(6), b(6);
  double match = 0, scaled = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    auto m = random_split(16, 8, pick);
    auto x = mx::noise_matrix(m, std::sqrt(0.019), 1.0, 1, a);
    auto y = mx::noise_matrix(m, 1000 * std::sqrt(0.019), 1000.0, 1, b);
    match += mx::bit_match(mx::subset_attack(x, 16, 1, 8), m);
    scaled += mx::bit_match(mx::subset_attack(y, 16, 1, 8), m);
  }
  BOOST_TEST(std::abs(match / trials - 0.5) < 0.05);
  BOOST_TEST(match == scaled); // same draws, scale-invariant search
}

BOOST_AUTO_TEST_CASE(label_scores) {
  std::vector<std::uint8_t> truth{1, 0, 0, 0}, all_zero{0, 0, 0, 0};
  auto s = mx::score_labels(all_zero, truth);
  BOOST_TEST(s.accuracy == 0.75);
  BOOST_TEST(s.balanced == 0.5); // the majority guess is chance
  BOOST_TEST(s.majority == 0.75);
  BOOST_TEST(mx::score_labels(truth, truth).balanced == 1.0);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
