#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#include "protocols/crypto/sodium.hpp"

namespace veil::protocols::crypto {

/// What every engine here is to the std library and to the exact samplers
/// (dp::full_range_engine): a uniform random bit generator of full 64-bit
/// words.
struct word_engine {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() {
    return std::numeric_limits<result_type>::max();
  }
};

/// A uniform random bit generator (std-style) over libsodium's CSPRNG:
/// every key, mask blinding and noise draw in production comes from here.
/// Words come 4 KiB at a time from a ChaCha20 keystream under a fresh
/// 32-byte key from the operating system (randombytes_buf) per block: the
/// kernel's own construction, at 4x its speed here (the kernel's getrandom
/// cost 54 ns a word on the 2-vCPU VM, which made the exact noise samplers
/// dominate the cheap protocols' queries). A drawn word is wiped from the
/// buffer, the key after its block, and words not handed out yet when the
/// generator goes away.
class system_random : public word_engine {
public:
  system_random();
  ~system_random();
  system_random(const system_random&) = delete;
  system_random& operator=(const system_random&) = delete;
  result_type operator()();

private:
  static constexpr std::size_t words = 512;
  result_type buffer_[words];
  std::size_t used_ = words;
};

/// A deterministic generator for tests and reproducible experiments:
/// ChaCha20 keyed by a 32-byte seed (libsodium's
/// randombytes_buf_deterministic construction). Programs that use it must
/// say so loudly: its output is predictable, so noise drawn from it gives no
/// privacy.
class seeded_random : public word_engine {
public:
  /// The seed is expanded from a 64-bit number (tests) ...
  explicit seeded_random(std::uint64_t seed);
  /// ... or taken as is (a KDF output).
  explicit seeded_random(const key32& seed);
  result_type operator()();

private:
  void refill();
  key32 key_;
  std::uint64_t block_ = 0;
  std::uint64_t buffer_[64];
  std::size_t used_ = 64;
};

/// 53-bit uniform double in (0, 1): never 0, so log() is safe.
template <class Engine>
double uniform_open01(Engine& rng) {
  while (true) {
    auto u = rng() >> 11;
    if (u != 0)
      return static_cast<double>(u) * 0x1.0p-53;
  }
}

} // namespace veil::protocols::crypto
