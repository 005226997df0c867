#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace veil::protocols::crypto {

/// Initializes libsodium once (thread-safe); throws std::runtime_error if
/// the library cannot start (no entropy source).
void ensure_sodium();

/// Fixed-size key material that is wiped when it goes away. It has no
/// stream operator, to_string or CAF inspect on purpose: it cannot end up in
/// a log or a message by accident.
template <std::size_t N>
class secret {
public:
  secret() = default;
  secret(const secret& other) : bytes_(other.bytes_) {}
  secret& operator=(const secret& other) {
    bytes_ = other.bytes_;
    return *this;
  }
  ~secret() { wipe(bytes_.data(), N); }

  std::uint8_t* data() { return bytes_.data(); }
  const std::uint8_t* data() const { return bytes_.data(); }
  static constexpr std::size_t size() { return N; }
  std::span<const std::uint8_t, N> view() const {
    return std::span<const std::uint8_t, N>(bytes_);
  }

  friend bool operator==(const secret& a, const secret& b) {
    return equal(a.data(), b.data(), N);
  }

private:
  static void wipe(std::uint8_t* p, std::size_t n);
  static bool equal(const std::uint8_t* a, const std::uint8_t* b,
                    std::size_t n);
  std::array<std::uint8_t, N> bytes_{};
};

/// A 32-byte symmetric key (pairwise seed, KDF output, PRG key).
using key32 = secret<32>;

} // namespace veil::protocols::crypto
