// The raw-block helper: every bulk element type survives a round trip
// through CAF's binary serializer and deserializer, bit for bit, in about
// n * sizeof(T) bytes; a length no buffer could hold is refused, not
// allocated.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/deep_to_string.hpp>

#include "messages/learners.hpp"
#include "messages/raw_block.hpp"

using namespace veil;
using veil::messages::exact;
using veil::messages::raw;

namespace {

/// A struct holding one vector that travels as a raw block.
template <class T>
struct holder {
  std::uint32_t tag = 0;
  std::vector<T> xs;
};

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, holder<T>& x) {
  return f(caf::meta::type_name("holder"), x.tag, raw(x.xs));
}

template <class T>
std::vector<char> save(holder<T>& x) {
  std::vector<char> buf;
  caf::binary_serializer sink{nullptr, buf};
  auto err = sink(x);
  BOOST_REQUIRE(!err);
  return buf;
}

template <class T>
holder<T> load(const std::vector<char>& buf) {
  holder<T> y;
  y.xs.assign(3, T{}); // must be replaced, not appended to
  caf::binary_deserializer source{nullptr, buf};
  auto err = source(y);
  BOOST_REQUIRE(!err);
  BOOST_TEST(source.remaining() == 0u);
  return y;
}

/// Round trip of `xs`; compares bytes, so NaNs and signed zeros count.
template <class T>
void round_trip(std::vector<T> xs) {
  holder<T> x{7, xs};
  auto buf = save(x);
  BOOST_TEST(buf.size() <= 4 + 10 + xs.size() * sizeof(T));
  BOOST_TEST(buf.size() >= 4 + xs.size() * sizeof(T));
  auto y = load<T>(buf);
  BOOST_TEST(y.tag == 7u);
  BOOST_REQUIRE_EQUAL(y.xs.size(), xs.size());
  if (!xs.empty())
    BOOST_TEST(std::memcmp(y.xs.data(), xs.data(), xs.size() * sizeof(T)) == 0);
}

template <class T>
std::vector<T> ramp(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<T>(i * 37 % 251);
  return v;
}

} // namespace

BOOST_AUTO_TEST_SUITE(messages)
BOOST_AUTO_TEST_SUITE(raw_block)

BOOST_AUTO_TEST_CASE(every_bulk_type_round_trips) {
  for (std::size_t n : {0u, 1u, 7u, 100000u}) {
    round_trip(ramp<float>(n));
    round_trip(ramp<double>(n));
    round_trip(ramp<std::int32_t>(n));
    round_trip(ramp<std::uint32_t>(n));
    round_trip(ramp<std::uint8_t>(n));
    std::vector<learners::grad_pair> gp(n);
    std::vector<learners::grad_sum> gs(n);
    for (std::size_t i = 0; i < n; ++i) {
      gp[i] = {static_cast<float>(i) * 0.25f - 3, 1.0f / (1.0f + i)};
      gs[i] = {static_cast<double>(i) / 3, -static_cast<double>(i) * 1e300};
    }
    round_trip(gp);
    round_trip(gs);
  }
}

BOOST_AUTO_TEST_CASE(special_values_keep_their_bits) {
  round_trip(std::vector<float>{std::numeric_limits<float>::quiet_NaN(), -0.0f,
                                std::numeric_limits<float>::infinity(),
                                std::numeric_limits<float>::denorm_min()});
  round_trip(std::vector<double>{std::numeric_limits<double>::quiet_NaN(), -0.0,
                                 -std::numeric_limits<double>::max()});
  round_trip(
      std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), -1, 0,
                                std::numeric_limits<std::int32_t>::max()});
}

BOOST_AUTO_TEST_CASE(exact_scalars_keep_their_bits) {
  // CAF 0.17 packs floating-point scalars arithmetically: NaN and -0.0 get
  // lost, an infinity never returns. exact() sends the bits.
  auto check = [](float a, double b) {
    std::vector<char> buf;
    {
      caf::binary_serializer sink{nullptr, buf};
      BOOST_REQUIRE(!sink(exact(a), exact(b)));
    }
    BOOST_TEST(buf.size() == 12u);
    float a2 = 1;
    double b2 = 1;
    caf::binary_deserializer source{nullptr, buf};
    BOOST_REQUIRE(!source(exact(a2), exact(b2)));
    BOOST_TEST(std::memcmp(&a, &a2, sizeof a) == 0);
    BOOST_TEST(std::memcmp(&b, &b2, sizeof b) == 0);
  };
  check(std::numeric_limits<float>::quiet_NaN(),
        std::numeric_limits<double>::quiet_NaN());
  check(-0.0f, -0.0);
  check(std::numeric_limits<float>::infinity(),
        -std::numeric_limits<double>::infinity());
  check(std::numeric_limits<float>::denorm_min(), 0.1);
}

BOOST_AUTO_TEST_CASE(a_huge_length_is_refused) {
  // tag, then a sequence length of 2^40 elements, then nothing.
  std::vector<char> buf;
  {
    caf::binary_serializer sink{nullptr, buf};
    std::uint32_t tag = 1;
    std::size_t n = (std::size_t{1} << 31) - 1; // * 8 bytes: too large
    BOOST_REQUIRE(!sink(tag));
    BOOST_REQUIRE(!sink.begin_sequence(n));
  }
  holder<double> y;
  caf::binary_deserializer source{nullptr, buf};
  BOOST_TEST(static_cast<bool>(source(y)));
  BOOST_TEST(y.xs.empty());
}

// A length within the cap that the message does not hold: refused before
// the vector is sized by it (a lying peer would make us allocate 2 GiB).
BOOST_AUTO_TEST_CASE(a_length_beyond_the_message_allocates_nothing) {
  std::vector<char> buf;
  {
    caf::binary_serializer sink{nullptr, buf};
    std::uint32_t tag = 1;
    std::size_t n = std::size_t{1} << 27; // 1 GiB of doubles, then 3 bytes
    BOOST_REQUIRE(!sink(tag));
    BOOST_REQUIRE(!sink.begin_sequence(n));
  }
  buf.insert(buf.end(), {1, 2, 3});
  holder<double> y;
  caf::binary_deserializer source{nullptr, buf};
  auto err = source(y);
  BOOST_TEST(static_cast<bool>(err));
  BOOST_TEST(y.xs.capacity() == 0u);
}

BOOST_AUTO_TEST_CASE(a_truncated_block_is_an_error) {
  holder<float> x{3, ramp<float>(100)};
  auto buf = save(x);
  buf.resize(buf.size() - 5);
  holder<float> y;
  caf::binary_deserializer source{nullptr, buf};
  BOOST_TEST(static_cast<bool>(source(y)));
}

BOOST_AUTO_TEST_CASE(to_string_shows_the_count_not_the_values) {
  holder<float> x{3, {1.5f, 2.5f}};
  auto s = caf::deep_to_string(x);
  BOOST_TEST(s.find("1.5") == std::string::npos, s);
  BOOST_TEST(s.find('2') != std::string::npos, s);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
