#include "protocols/crypto/lottery.hpp"

#include <algorithm>
#include <cstring>
#include <sodium.h>

namespace veil::protocols::crypto {

std::vector<std::uint8_t> lottery_input(std::uint8_t tag, std::uint64_t qid,
                                        std::uint32_t attempt,
                                        std::span<const std::uint32_t> ids,
                                        std::span<const std::uint8_t, 32> r) {
  ensure_sodium();
  std::vector<std::uint8_t> msg{tag};
  for (int i = 0; i < 8; ++i)
    msg.push_back(static_cast<std::uint8_t>(qid >> (8 * i)));
  for (int i = 0; i < 4; ++i)
    msg.push_back(static_cast<std::uint8_t>(attempt >> (8 * i)));
  std::vector<std::uint32_t> sorted(ids.begin(), ids.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::uint8_t> le(sorted.size() * 4);
  for (std::size_t i = 0; i < sorted.size(); ++i)
    for (int b = 0; b < 4; ++b)
      le[4 * i + b] = static_cast<std::uint8_t>(sorted[i] >> (8 * b));
  std::uint8_t digest[32];
  crypto_generichash(digest, sizeof digest, le.data(), le.size(), nullptr, 0);
  msg.insert(msg.end(), digest, digest + 32);
  msg.insert(msg.end(), r.begin(), r.end());
  return msg;
}

lottery_ticket draw_ticket(const identity& id,
                           std::span<const std::uint8_t> input) {
  lottery_ticket t;
  t.sig = id.sign(input);
  crypto_generichash(t.value.data(), t.value.size(), t.sig.data(), t.sig.size(),
                     nullptr, 0);
  return t;
}

bool check_ticket(const public_key& pk, std::span<const std::uint8_t> input,
                  const lottery_ticket& t) {
  if (!verify(pk, input, t.sig))
    return false;
  score expect;
  crypto_generichash(expect.data(), expect.size(), t.sig.data(), t.sig.size(),
                     nullptr, 0);
  return expect == t.value;
}

bool score_greater(const score& a, const score& b) {
  return std::memcmp(a.data(), b.data(), a.size()) > 0;
}

} // namespace veil::protocols::crypto
