#pragma once

// The one helper for bulk numeric payloads: a std::vector<T> of a trivially
// copyable T travels as its length and one raw block of bytes, instead of
// CAF 0.17's element-by-element serialization (about 8 times slower; see
// ../shared/platform/caf-0.17.md section 3.3). Host byte order: every node
// must be little-endian (x86-64, aarch64), which is checked at compile time.
//
//   template <class Inspector>
//   typename Inspector::result_type inspect(Inspector& f, histograms& x) {
//     return f(caf::meta::type_name("..."), x.tree, raw(x.sums));
//   }
//
// Its sibling exact() does the same for a single float or double: CAF 0.17
// packs them arithmetically and loses NaN, -0.0 and infinities (see below).
// Every floating-point field of a message goes through one of the two.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <caf/binary_deserializer.hpp>
#include <caf/deserializer.hpp>
#include <caf/error.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/sec.hpp>
#include <caf/serializer.hpp>

namespace veil::messages {

static_assert(std::endian::native == std::endian::little,
              "raw blocks are sent in host byte order: little-endian only");

/// Largest raw block a deserializer accepts (a length from a peer is not
/// trusted to size an allocation). BASP frames are at most 4 GiB anyway.
inline constexpr std::size_t max_raw_block_bytes = std::size_t{1} << 31;

/// A view of a vector that inspect() moves as one raw block.
template <class T>
struct raw_block {
  static_assert(std::is_trivially_copyable_v<T>,
                "raw blocks need a trivially copyable element type");
  std::vector<T>& xs;
};

/// Wraps `xs` for inspect(): `f(..., raw(x.values), ...)`.
template <class T>
raw_block<T> raw(std::vector<T>& xs) {
  return {xs};
}

/// Saves the length, then the elements' bytes; loads them back; prints only
/// the element count (bulk payloads may be gradients: never in logs).
template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, raw_block<T>& x) {
  if constexpr (std::is_base_of_v<caf::serializer, Inspector>) {
    std::size_t n = x.xs.size();
    return caf::error::eval([&] { return f.begin_sequence(n); },
                            [&]() -> caf::error {
                              return n == 0 ? caf::error{}
                                            : f.apply_raw(n * sizeof(T),
                                                          x.xs.data());
                            },
                            [&] { return f.end_sequence(); });
  } else if constexpr (std::is_base_of_v<caf::deserializer, Inspector>) {
    std::size_t n = 0;
    return caf::error::eval(
        [&] { return f.begin_sequence(n); },
        [&]() -> caf::error {
          if (n > max_raw_block_bytes / sizeof(T))
            return caf::make_error(caf::sec::invalid_argument,
                                   "raw block too large");
          // A length that lies is refused before anything is allocated:
          // the bytes must be there.
          if (auto* bytes = dynamic_cast<caf::binary_deserializer*>(&f);
              bytes && n * sizeof(T) > bytes->remaining())
            return caf::make_error(caf::sec::invalid_argument,
                                   "raw block longer than its message");
          x.xs.resize(n);
          return n == 0 ? caf::error{}
                        : f.apply_raw(n * sizeof(T), x.xs.data());
        },
        [&] { return f.end_sequence(); });
  } else {
    auto n = static_cast<std::uint64_t>(x.xs.size());
    return f(caf::meta::type_name("raw_block"), n);
  }
}

/// A float or double that travels as its bit pattern. CAF 0.17's binary
/// serializer packs floating-point values arithmetically (detail::pack754),
/// which turns NaN into garbage, -0.0 into 0.0, and never returns for an
/// infinity; a value sent this way arrives bit for bit.
template <class T>
struct exact_value {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  T& x;
};

/// Wraps `x` for inspect(): `f(..., exact(x.threshold), ...)`.
template <class T>
exact_value<T> exact(T& x) {
  return {x};
}

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, exact_value<T>& v) {
  using bits_type =
      std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  if constexpr (std::is_base_of_v<caf::serializer, Inspector>) {
    auto bits = std::bit_cast<bits_type>(v.x);
    return f(bits);
  } else if constexpr (std::is_base_of_v<caf::deserializer, Inspector>) {
    bits_type bits = 0;
    auto err = f(bits);
    if (!err)
      v.x = std::bit_cast<T>(bits);
    return err;
  } else {
    return f(v.x);
  }
}

/// A view of a fixed-size byte array that inspect() moves as one raw block
/// of exactly N bytes (no length: both sides know it).
template <std::size_t N>
struct fixed_block {
  std::array<std::uint8_t, N>& xs;
};

template <std::size_t N>
fixed_block<N> raw(std::array<std::uint8_t, N>& xs) {
  return {xs};
}

template <class Inspector, std::size_t N>
typename Inspector::result_type inspect(Inspector& f, fixed_block<N>& x) {
  if constexpr (std::is_base_of_v<caf::serializer, Inspector> ||
                std::is_base_of_v<caf::deserializer, Inspector>) {
    return f.apply_raw(N, x.xs.data());
  } else {
    auto n = static_cast<std::uint64_t>(N);
    return f(caf::meta::type_name("fixed_block"), n);
  }
}

} // namespace veil::messages
