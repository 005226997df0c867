// HE-XGBoost's histograms (protocols/masked/he.hpp): what the passive
// party packs, several slots to a ciphertext, the active party decrypts to
// the histograms of the gradients in the clear, node after node, with
// negative gradients, empty bins, missing values and a last ciphertext
// that is not full.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numeric>
#include <vector>

#include "learners/binning/bin_matrix.hpp"
#include "learners/binning/quantile_cuts.hpp"
#include "learners/data/dataset.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/masked/he.hpp"

namespace mx = veil::protocols::masked;
namespace pl = veil::protocols::paillier;
namespace learners = veil::learners;

BOOST_AUTO_TEST_SUITE(masked)
BOOST_AUTO_TEST_SUITE(he)

BOOST_AUTO_TEST_CASE(packed_histograms_decrypt_to_the_clear_sums) {
  // Three features: 10 values, 3 values with missing ones, a constant.
  const std::size_t n = 200;
  learners::dataset d(n, {"a", "b", "c"});
  std::vector<learners::grad_pair> grads(n);
  for (std::size_t r = 0; r < n; ++r) {
    d.value(r, 0) = static_cast<float>(r % 10);
    d.value(r, 1) = r % 7 == 0 ? NAN : static_cast<float>(r % 3);
    d.value(r, 2) = 1;
    grads[r] = {static_cast<float>(std::sin(0.37 * static_cast<double>(r))),
                static_cast<float>(
                    0.25 * std::cos(0.11 * static_cast<double>(r)) + 0.3)};
  }
  auto cuts = learners::quantile_cuts::compute(d, 32, 1);
  learners::bin_matrix bins(d, cuts, 1);
  const auto& layout = bins.layout();

  veil::protocols::crypto::seeded_random seed(21);
  pl::random_engine rng = [&seed] { return seed(); };
  auto sk = pl::generate_key(1024, rng);
  const auto& pk = sk.public_part();
  pl::packing pack(pk, n);
  auto per = mx::slots_per_ciphertext(pack);
  BOOST_TEST(per == pack.slots() / 2);
  BOOST_TEST_REQUIRE(layout.slots() % per != 0); // a last partial one

  auto bytes = mx::encrypt_gradients(pk, pack, grads, rng, 2);
  auto cts = mx::read_ciphertexts(pk, bytes, n);
  BOOST_REQUIRE(cts);
  // Two nodes: the even rows, then the rows below 50.
  std::vector<std::vector<std::uint32_t>> nodes(2);
  for (std::uint32_t r = 0; r < n; ++r) {
    if (r % 2 == 0)
      nodes[0].push_back(r);
    if (r < 50)
      nodes[1].push_back(r);
  }
  std::vector<std::uint8_t> wire;
  for (const auto& rows : nodes)
    mx::encrypted_histogram(pk, pack, *cts, bins, rows, wire, 2);
  BOOST_TEST(wire.size() ==
             2 * mx::histogram_ciphertexts(pack, layout.slots()) *
                 pk.ciphertext_bytes());
  auto sums = mx::decrypt_histograms(sk, pack, wire, 2 * layout.slots(),
                                     layout.slots(), 2);
  BOOST_REQUIRE_EQUAL(sums.size(), 2 * layout.slots());
  for (std::size_t k = 0; k < 2; ++k) {
    std::vector<learners::grad_sum> clear(layout.slots());
    for (auto r : nodes[k])
      for (std::size_t f = 0; f < layout.features(); ++f) {
        auto& s = clear[layout.offset(f) +
                        static_cast<std::uint32_t>(bins.bin(r, f))];
        s.g += static_cast<double>(grads[r].g);
        s.h += static_cast<double>(grads[r].h);
      }
    // Each value rounds to 2^-40; 100 of them.
    for (std::size_t i = 0; i < layout.slots(); ++i) {
      const auto& got = sums[k * layout.slots() + i];
      BOOST_TEST(std::abs(got.g - clear[i].g) < 1e-10,
                 "node " << k << " slot " << i);
      BOOST_TEST(std::abs(got.h - clear[i].h) < 1e-10,
                 "node " << k << " slot " << i);
    }
  }
  // A count that is not whole histograms is refused.
  BOOST_CHECK_THROW(mx::decrypt_histograms(sk, pack, wire, layout.slots() + 1,
                                           layout.slots(), 1),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
