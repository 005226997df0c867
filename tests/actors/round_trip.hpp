#pragma once

// What the wire-message tests share: an actor system with Veil's types
// registered, and the round trip of a message through CAF's binary
// serializer, alone and inside a caf::message.

#include <boost/test/unit_test.hpp>

#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/deep_to_string.hpp>
#include <caf/make_message.hpp>
#include <caf/message.hpp>

#include "messages/register.hpp"
#include "messages/type_ids.hpp"

namespace veil::test {

struct serial_config : caf::actor_system_config {
  serial_config() { veil::messages::register_types(*this); }
};

struct round_trip_fixture {
  serial_config cfg;
  caf::actor_system sys{cfg};

  template <class T>
  std::vector<char> save(T& x) {
    std::vector<char> buf;
    caf::binary_serializer sink{sys, buf};
    auto err = sink(x);
    BOOST_REQUIRE_MESSAGE(!err, "serialize " << caf::deep_to_string(x));
    return buf;
  }

  /// Alone and inside a caf::message: the copy serializes to the same bytes.
  template <class T>
  T round_trip(T x) {
    auto bytes = save(x);
    T y;
    {
      caf::binary_deserializer source{sys, bytes};
      BOOST_REQUIRE(!source(y));
      BOOST_TEST(source.remaining() == 0u);
    }
    BOOST_TEST(save(y) == bytes);
    auto msg = caf::make_message(x);
    std::vector<char> buf;
    {
      caf::binary_serializer sink{sys, buf};
      BOOST_REQUIRE(!sink(msg));
    }
    caf::message back;
    {
      caf::binary_deserializer source{sys, buf};
      auto err = source(back);
      BOOST_REQUIRE_MESSAGE(!err, sys.render(err));
    }
    BOOST_REQUIRE(back.match_elements<T>());
    T z = back.get_as<T>(0);
    BOOST_TEST(save(z) == bytes);
    return z;
  }
};

} // namespace veil::test
