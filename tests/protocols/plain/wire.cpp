// The bit packing of split and prediction answers: word-at-a-time packing
// must give exactly the bytes of the plain one-bit-at-a-time layout (LSB
// first, byte-aligned groups), and unpacking must invert it.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "protocols/plain/wire.hpp"

using namespace veil::protocols::plain;

namespace {

using bytes = std::vector<std::uint8_t>;

/// The layout, one bit at a time: any nonzero flag is a 1.
void reference_append(bytes& out, const bytes& flags) {
  auto base = out.size();
  out.resize(base + (flags.size() + 7) / 8, 0);
  for (std::size_t i = 0; i < flags.size(); ++i)
    if (flags[i] != 0)
      out[base + i / 8] |= static_cast<std::uint8_t>(1u << (i % 8));
}

bytes reference_unpack(const bytes& bits, std::size_t offset,
                       std::size_t count) {
  bytes out(count);
  for (std::size_t i = 0; i < count; ++i)
    out[i] = (bits[offset + i / 8] >> (i % 8)) & 1u;
  return out;
}

/// Random flags; `any_byte` draws any nonzero byte for a 1.
bytes random_flags(std::mt19937_64& rng, std::size_t n, bool any_byte) {
  bytes f(n);
  std::uniform_int_distribution<int> byte(0, 255);
  std::bernoulli_distribution coin(0.5);
  for (auto& x : f)
    x = any_byte ? static_cast<std::uint8_t>(byte(rng)) : coin(rng);
  return f;
}

std::vector<std::size_t> lengths() {
  std::vector<std::size_t> n;
  for (std::size_t i = 0; i <= 17; ++i)
    n.push_back(i);
  for (std::size_t i :
       {23, 24, 25, 31, 32, 33, 63, 64, 65, 127, 1000, 1001, 4099, 100000})
    n.push_back(i);
  return n;
}

} // namespace

BOOST_AUTO_TEST_SUITE(plain)
BOOST_AUTO_TEST_SUITE(wire)

BOOST_AUTO_TEST_CASE(pack_matches_reference_and_round_trips) {
  std::mt19937_64 rng(42);
  for (auto n : lengths())
    for (int rep = 0; rep < 3; ++rep) {
      auto flags = random_flags(rng, n, false);
      bytes want;
      reference_append(want, flags);
      auto got = pack_bits(flags);
      BOOST_TEST(got == want, "n = " << n);
      BOOST_TEST(got.size() == packed_size(n));
      BOOST_TEST(unpack_bits(got, 0, n) == flags, "n = " << n);
      BOOST_TEST(unpack_bits(got, 0, n) == reference_unpack(got, 0, n));
    }
}

BOOST_AUTO_TEST_CASE(all_zeros_and_all_ones) {
  for (auto n : lengths())
    for (std::uint8_t v : {0, 1}) {
      bytes flags(n, v);
      bytes want;
      reference_append(want, flags);
      BOOST_TEST(pack_bits(flags) == want, "n = " << n);
      BOOST_TEST(unpack_bits(want, 0, n) == flags, "n = " << n);
    }
}

BOOST_AUTO_TEST_CASE(nonzero_flags_are_ones) {
  std::mt19937_64 rng(7);
  for (auto n : lengths()) {
    auto flags = random_flags(rng, n, true);
    bytes want;
    reference_append(want, flags);
    auto got = pack_bits(flags);
    BOOST_TEST(got == want, "n = " << n);
    bytes norm(flags.size());
    for (std::size_t i = 0; i < n; ++i)
      norm[i] = flags[i] != 0;
    BOOST_TEST(unpack_bits(got, 0, n) == norm, "n = " << n);
  }
}

BOOST_AUTO_TEST_CASE(groups_start_on_byte_boundaries) {
  std::mt19937_64 rng(3);
  auto sizes = lengths();
  bytes got, want;
  // Appending after existing bytes leaves them alone.
  got = want = {0xA5, 0x5A};
  std::vector<bytes> groups;
  for (auto n : sizes) {
    groups.push_back(random_flags(rng, n, false));
    append_bits(got, groups.back());
    reference_append(want, groups.back());
  }
  BOOST_TEST(got == want);
  std::size_t offset = 2;
  for (const auto& g : groups) {
    BOOST_TEST(unpack_bits(got, offset, g.size()) == g);
    BOOST_TEST(unpack_bits(got, offset, g.size()) ==
               reference_unpack(got, offset, g.size()));
    offset += packed_size(g.size());
  }
  BOOST_TEST(offset == got.size());
}

BOOST_AUTO_TEST_CASE(unpacks_any_byte) {
  bytes all(256);
  for (int b = 0; b < 256; ++b)
    all[b] = static_cast<std::uint8_t>(b);
  for (std::size_t offset : {0, 1, 5})
    for (std::size_t count :
         {std::size_t{0}, std::size_t{7}, std::size_t{8}, std::size_t{9},
          std::size_t{800}, 2048 - 8 * offset})
      BOOST_TEST(unpack_bits(all, offset, count) ==
                 reference_unpack(all, offset, count));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
