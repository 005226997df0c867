#include "messages/version.hpp"

#include <cstdint>
#include <utility>
#include <vector>

#include <caf/binary_serializer.hpp>
#include <sodium.h>

#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "protocols/crypto/sodium.hpp"

namespace veil::messages {

namespace {

template <caf::type_id_t V>
void absorb(crypto_generichash_state& st) {
  using type = typename caf::type_by_id<V>::type;
  std::string_view name = caf::type_name<type>::value;
  crypto_generichash_update(&st,
                            reinterpret_cast<const unsigned char*>(name.data()),
                            name.size() + 1);
  type x{};
  std::vector<char> bytes;
  caf::binary_serializer sink{static_cast<caf::execution_unit*>(nullptr),
                              bytes};
  if (sink(x))
    bytes.assign({'?'}); // not serializable by default: its name alone
  crypto_generichash_update(
      &st, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

template <caf::type_id_t... Vs>
void absorb_all(crypto_generichash_state& st,
                std::integer_sequence<caf::type_id_t, Vs...>) {
  (absorb<caf::id_block::veil::begin + Vs>(st), ...);
}

} // namespace

std::string_view veil_version() {
  return VEIL_VERSION;
}

const std::string& wire_fingerprint() {
  static const std::string digest = [] {
    protocols::crypto::ensure_sodium();
    crypto_generichash_state st;
    crypto_generichash_init(&st, nullptr, 0, 8);
    absorb_all(st,
               std::make_integer_sequence<caf::type_id_t,
                                          caf::id_block::veil::end -
                                              caf::id_block::veil::begin>{});
    unsigned char out[8];
    crypto_generichash_final(&st, out, sizeof out);
    static const char* hex = "0123456789abcdef";
    std::string s;
    for (auto b : out) {
      s += hex[b >> 4];
      s += hex[b & 15];
    }
    return s;
  }();
  return digest;
}

std::string handshake() {
  return "veil " + std::string(veil_version()) + ", wire " + wire_fingerprint();
}

} // namespace veil::messages
