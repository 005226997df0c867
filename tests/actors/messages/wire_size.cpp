// The counting inspector (messages/wire_size.hpp) against CAF's binary
// serializer: every alternative of every protocol's message variant, filled
// at random through its own inspect() (so no field is left out), counts
// exactly the bytes the serializer writes, short and long lengths alike.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include <caf/binary_serializer.hpp>
#include <caf/deserializer.hpp>

#include "messages/feverless.hpp"
#include "messages/ldpboost.hpp"
#include "messages/opboost.hpp"
#include "messages/plain.hpp"
#include "messages/privet.hpp"
#include "messages/session.hpp"
#include "messages/wire_size.hpp"

using namespace veil;

namespace {

/// A deserializer that reads from a seeded generator: any inspectable value
/// comes out filled, its top-level sequences up to 300 long (past the
/// one-byte varbyte bound of 127), nested ones short. Floating-point fields
/// get ordinary values (CAF packs them arithmetically).
class random_source final : public caf::deserializer {
public:
  explicit random_source(std::uint64_t seed) : rng_(seed) {}

  caf::error begin_object(std::uint16_t& nr, std::string& name) override {
    nr = 0;
    name = "x";
    return caf::none;
  }
  caf::error end_object() override { return caf::none; }
  caf::error begin_sequence(std::size_t& n) override {
    n = depth_ == 0 ? below(300) : below(4);
    ++depth_;
    return caf::none;
  }
  caf::error end_sequence() override {
    --depth_;
    return caf::none;
  }
  caf::error apply_raw(std::size_t n, void* data) override {
    auto* p = static_cast<unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i)
      p[i] = static_cast<unsigned char>(rng_());
    return caf::none;
  }

protected:
  template <class T>
  caf::error bits(T& x) {
    x = static_cast<T>(rng_());
    return caf::none;
  }
  caf::error apply_impl(std::int8_t& x) override { return bits(x); }
  caf::error apply_impl(std::uint8_t& x) override { return bits(x); }
  caf::error apply_impl(std::int16_t& x) override { return bits(x); }
  caf::error apply_impl(std::uint16_t& x) override { return bits(x); }
  caf::error apply_impl(std::int32_t& x) override { return bits(x); }
  caf::error apply_impl(std::uint32_t& x) override { return bits(x); }
  caf::error apply_impl(std::int64_t& x) override { return bits(x); }
  caf::error apply_impl(std::uint64_t& x) override { return bits(x); }
  caf::error apply_impl(float& x) override {
    x = static_cast<float>(below(1000)) / 7.0f;
    return caf::none;
  }
  caf::error apply_impl(double& x) override {
    x = static_cast<double>(below(100000)) / 7.0;
    return caf::none;
  }
  caf::error apply_impl(long double& x) override {
    x = 1.5L;
    return caf::none;
  }
  caf::error apply_impl(std::string& x) override {
    x.assign(depth_ == 0 ? below(300) : below(4), 'a');
    return caf::none;
  }
  caf::error apply_impl(std::u16string& x) override {
    x.assign(below(4), u'a');
    return caf::none;
  }
  caf::error apply_impl(std::u32string& x) override {
    x.assign(below(4), U'a');
    return caf::none;
  }

private:
  std::size_t below(std::size_t n) {
    return static_cast<std::size_t>(rng_() % n);
  }

  std::mt19937_64 rng_;
  int depth_ = 0;
};

/// For each alternative of the variant, several random fillings: the
/// counter equals the serializer's output size.
template <class Variant, std::size_t... I>
void check_alternatives(std::index_sequence<I...>) {
  auto one = [](auto tag) {
    using T = std::variant_alternative_t<decltype(tag)::value, Variant>;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      T x{};
      random_source source(seed * 131 + decltype(tag)::value);
      BOOST_REQUIRE(!source(x));
      std::vector<char> buf;
      caf::binary_serializer sink{nullptr, buf};
      BOOST_REQUIRE(!sink(x));
      Variant v = x;
      BOOST_TEST(veil::messages::wire_bytes(v) == buf.size(),
                 "alternative " << decltype(tag)::value << ", seed " << seed);
      BOOST_TEST(veil::messages::wire_bytes(x) == buf.size());
    }
  };
  (one(std::integral_constant<std::size_t, I>{}), ...);
}

template <class Variant>
void check_variant() {
  check_alternatives<Variant>(
      std::make_index_sequence<std::variant_size_v<Variant>>{});
}

} // namespace

BOOST_AUTO_TEST_SUITE(messages)
BOOST_AUTO_TEST_SUITE(wire_size)

BOOST_AUTO_TEST_CASE(varbyte_lengths_match_caf) {
  using veil::messages::byte_counter;
  for (std::size_t n : {0u, 1u, 127u, 128u, 16383u, 16384u, 2097152u}) {
    std::vector<std::uint8_t> xs(n, 7);
    std::vector<char> buf;
    caf::binary_serializer sink{nullptr, buf};
    BOOST_REQUIRE(!sink(xs));
    BOOST_TEST(byte_counter::varbyte_size(n) + n == buf.size(), "n = " << n);
  }
}

BOOST_AUTO_TEST_CASE(plain_messages) {
  check_variant<protocols::plain::message>();
}

BOOST_AUTO_TEST_CASE(feverless_messages) {
  check_variant<protocols::feverless::message>();
}

BOOST_AUTO_TEST_CASE(opboost_messages) {
  check_variant<protocols::opboost::message>();
}

BOOST_AUTO_TEST_CASE(privet_messages) {
  check_variant<protocols::privet::message>();
}

BOOST_AUTO_TEST_CASE(ldpboost_messages) {
  check_variant<protocols::ldpboost::message>();
}

BOOST_AUTO_TEST_CASE(session_steps) {
  // A few coordinator <-> party steps, filled the same way.
  check_variant<std::variant<protocols::session::load_request,
                             protocols::session::data_summary,
                             protocols::session::roster>>();
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
