#include "protocols/feverless/params.hpp"

#include <bit>
#include <cmath>
#include <sodium.h>
#include <vector>

#include "learners/input_error.hpp"
#include "protocols/crypto/sodium.hpp"

namespace veil::protocols::feverless {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok)
    throw input_error("feverless parameter " + what);
}

template <class T>
void put(std::vector<std::uint8_t>& out, T x) {
  std::uint64_t v;
  if constexpr (std::is_same_v<T, double>)
    v = std::bit_cast<std::uint64_t>(x);
  else
    v = static_cast<std::uint64_t>(x);
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

} // namespace

std::string to_string(mode m) {
  switch (m) {
  case mode::feverless:
    return "feverless";
  case mode::plain:
    return "plain";
  case mode::ldp:
    return "ldp";
  case mode::ahe:
    return "ahe";
  }
  return "?";
}

std::string to_string(election_scope e) {
  switch (e) {
  case election_scope::chain:
    return "chain";
  case election_scope::signed_query:
    return "signed";
  case election_scope::per_batch:
    return "per_batch";
  }
  return "?";
}

void params::validate() const {
  require(trees >= 1 && trees <= 65536,
          "trees = " + std::to_string(trees) + " is out of range [1, 65536]");
  require(max_depth >= 1 && max_depth <= 19,
          "max_depth = " + std::to_string(max_depth) +
              " is out of range [1, 19]");
  require(eta > 0 && eta <= 1, "eta must lie in (0, 1]");
  require(lambda >= 0 && std::isfinite(lambda),
          "lambda must be finite and >= 0");
  require(gamma >= 0 && std::isfinite(gamma), "gamma must be finite and >= 0");
  require(max_delta_step >= 0 && std::isfinite(max_delta_step),
          "max_delta_step must be finite and >= 0");
  // The baselines' census and sums travel unmasked: nothing to hide with.
  require(!hide_labels || protocol == mode::feverless,
          "hide_labels needs the feverless protocol (its baselines show "
          "every client's labelled rows in the unmasked label census)");
  require(std::isfinite(split_threshold), "split_threshold must be finite");
  require(buckets >= 2 && buckets <= 256,
          "buckets = " + std::to_string(buckets) + " is out of range [2, 256]");
  require(frac_bits >= 8 && frac_bits <= 48,
          "frac_bits = " + std::to_string(frac_bits) +
              " is out of range [8, 48]");
  require(epsilon > 0 && std::isfinite(epsilon),
          "epsilon must be a positive number");
  require(delta > 0 && delta < 1, "delta must lie in (0, 1)");
  // The fixed point bounds a record's g by 1 and h by 1/4 (client.cpp,
  // begin_tree): less noise would not give the stated guarantee.
  require(sensitivity_g >= 1 && std::isfinite(sensitivity_g),
          "sensitivity_g must be at least 1 (a record's |g| reaches 1)");
  require(sensitivity_h >= 0.25 && std::isfinite(sensitivity_h),
          "sensitivity_h must be at least 0.25 (a record's h reaches 1/4)");
  require(portion > 0 && portion <= 1, "portion must lie in (0, 1]");
  require(paillier_threads >= 0 && paillier_threads <= 256,
          "paillier_threads = " + std::to_string(paillier_threads) +
              ": expected 0 (every core) to 256");
  require(paillier_bits == 1024 || paillier_bits == 2048,
          "paillier_bits = " + std::to_string(paillier_bits) +
              " is not 1024 or 2048");
}

std::array<std::uint8_t, 32> params::digest() const {
  crypto::ensure_sodium();
  std::vector<std::uint8_t> b = {'V', 'e', 'i', 'l', 'F', 'V', 'L', '1'};
  put(b, static_cast<int>(protocol));
  put(b, session);
  put(b, trees);
  put(b, max_depth);
  put(b, eta);
  put(b, lambda);
  put(b, gamma);
  put(b, split_threshold);
  put(b, buckets);
  put(b, frac_bits);
  put(b, static_cast<int>(budget));
  put(b, epsilon);
  put(b, delta);
  put(b, static_cast<int>(total_split));
  put(b, static_cast<int>(calib));
  put(b, sensitivity_g);
  put(b, sensitivity_h);
  put(b, noise ? 1 : 0);
  put(b, static_cast<int>(selection));
  put(b, portion);
  put(b, static_cast<int>(election));
  put(b, paillier_bits);
  put(b, max_delta_step);
  put(b, hide_labels ? 1 : 0);
  put(b, source_noise ? 1 : 0);
  put(b, hessian_noise ? 1 : 0);
  put(b, rounds_evaluated ? 1 : 0);
  std::array<std::uint8_t, 32> out;
  crypto_generichash(out.data(), out.size(), b.data(), b.size(), nullptr, 0);
  return out;
}

} // namespace veil::protocols::feverless
