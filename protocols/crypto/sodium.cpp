#include "protocols/crypto/sodium.hpp"

#include <mutex>
#include <sodium.h>
#include <stdexcept>

namespace veil::protocols::crypto {

void ensure_sodium() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = sodium_init() >= 0; });
  if (!ok)
    throw std::runtime_error("libsodium could not be initialized");
}

template <std::size_t N>
void secret<N>::wipe(std::uint8_t* p, std::size_t n) {
  sodium_memzero(p, n);
}

template <std::size_t N>
bool secret<N>::equal(const std::uint8_t* a, const std::uint8_t* b,
                      std::size_t n) {
  return sodium_memcmp(a, b, n) == 0;
}

template class secret<32>;
template class secret<64>;

} // namespace veil::protocols::crypto
