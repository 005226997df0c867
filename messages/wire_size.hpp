#pragma once

// The size of a message on the wire, derived from its inspect(): a CAF
// serializer that counts the bytes CAF's binary serializer would write,
// without writing them. Byte counts in reports and tests come from here, so
// that they cannot drift from what a message's inspect() sends.
//
//   std::size_t n = messages::wire_bytes(histograms_message);
//   std::size_t m = messages::wire_bytes(plain_variant);  // its alternative

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include <caf/error.hpp>
#include <caf/none.hpp>
#include <caf/serializer.hpp>

namespace veil::messages {

/// Counts what caf::binary_serializer (CAF 0.17) writes: integers in their
/// width, floating point packed to its width, sequence lengths varbyte
/// encoded (at most 5 bytes: CAF casts them to 32 bits), strings as a
/// length and their bytes, type headers as a 16-bit number (and the name
/// when the number is 0), raw blocks as they are.
class byte_counter final : public caf::serializer {
public:
  std::size_t bytes() const { return bytes_; }

  caf::error begin_object(std::uint16_t& nr, std::string& name) override {
    bytes_ += sizeof(std::uint16_t);
    if (nr == 0)
      add_string(name.size());
    return caf::none;
  }
  caf::error end_object() override { return caf::none; }
  caf::error begin_sequence(std::size_t& n) override {
    bytes_ += varbyte_size(n);
    return caf::none;
  }
  caf::error end_sequence() override { return caf::none; }
  caf::error apply_raw(std::size_t n, void*) override {
    bytes_ += n;
    return caf::none;
  }

  /// Bytes of a sequence length `n` in CAF's varbyte encoding.
  static std::size_t varbyte_size(std::size_t n) {
    auto x = static_cast<std::uint32_t>(n);
    std::size_t k = 1;
    for (; x > 0x7f; x >>= 7)
      ++k;
    return k;
  }

protected:
  caf::error apply_impl(std::int8_t&) override { return add(1); }
  caf::error apply_impl(std::uint8_t&) override { return add(1); }
  caf::error apply_impl(std::int16_t&) override { return add(2); }
  caf::error apply_impl(std::uint16_t&) override { return add(2); }
  caf::error apply_impl(std::int32_t&) override { return add(4); }
  caf::error apply_impl(std::uint32_t&) override { return add(4); }
  caf::error apply_impl(std::int64_t&) override { return add(8); }
  caf::error apply_impl(std::uint64_t&) override { return add(8); }
  caf::error apply_impl(float&) override { return add(4); }
  caf::error apply_impl(double&) override { return add(8); }
  caf::error apply_impl(long double& x) override {
    // CAF writes it as a decimal string; no Veil message has one.
    auto text = std::to_string(x);
    add_string(text.size());
    return caf::none;
  }
  caf::error apply_impl(std::string& x) override {
    add_string(x.size());
    return caf::none;
  }
  caf::error apply_impl(std::u16string& x) override {
    bytes_ += varbyte_size(x.size()) + 2 * x.size();
    return caf::none;
  }
  caf::error apply_impl(std::u32string& x) override {
    bytes_ += varbyte_size(x.size()) + 4 * x.size();
    return caf::none;
  }

private:
  caf::error add(std::size_t n) {
    bytes_ += n;
    return caf::none;
  }
  void add_string(std::size_t n) { bytes_ += varbyte_size(n) + n; }

  std::size_t bytes_ = 0;
};

/// Bytes `x` occupies on the wire (its fields as serialized, no message
/// header). Inspecting for a serializer only reads `x`.
template <class T>
std::size_t wire_bytes(const T& x) {
  byte_counter f;
  auto err = f(const_cast<T&>(x));
  static_cast<void>(err); // counting cannot fail
  return f.bytes();
}

/// The same for the alternative a protocol's message variant holds.
template <class... Ts>
std::size_t wire_bytes(const std::variant<Ts...>& m) {
  return std::visit([](const auto& x) { return wire_bytes(x); }, m);
}

} // namespace veil::messages
