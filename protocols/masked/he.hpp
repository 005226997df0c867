#pragma once

// HE-XGBoost (spec maskedxgboost §6.5; SecureBoost's pattern): the active
// party encrypts every row's gradient and hessian under Paillier, each
// passive party sums the ciphertexts per histogram slot of its features at
// the nodes asked for, and the active party decrypts the histograms and
// goes on exactly as plain. Lossless up to the fixed point's 2^-40.
//
// SecureBoost's packing twice over: a row's (g, h) share one plaintext,
// and the passive party packs the sums of several histogram slots into
// one ciphertext before it sends them (shifting each sum's plaintext up
// by whole slots), so the active party decrypts, and the wire carries,
// about 1/slots_per_ciphertext as many ciphertexts.

#include <cstdint>
#include <span>
#include <vector>

#include "learners/binning/bin_matrix.hpp"
#include "learners/hist/gradients.hpp"
#include "protocols/crypto/fixed_point.hpp"
#include "protocols/paillier/paillier.hpp"

namespace veil::protocols::masked {

/// g and h in fixed point with 40 fractional bits: a sum of up to 2^23
/// values of magnitude below 1 cannot wrap (fits_rows checks).
crypto::fixed_point he_fixed_point();
bool fits_rows(std::size_t rows);

/// Every row's (g, h), packed into one plaintext (two slots) and
/// encrypted, the ciphertexts written one after the other.
std::vector<std::uint8_t>
encrypt_gradients(const paillier::public_key& pk, const paillier::packing& pack,
                  std::span<const learners::grad_pair> grads,
                  paillier::random_engine& rng, int threads);

/// Reads n ciphertexts written by encrypt_gradients; empty if any is not a
/// ciphertext under `pk` or the size is wrong.
std::optional<std::vector<paillier::ciphertext>>
read_ciphertexts(const paillier::public_key& pk,
                 std::span<const std::uint8_t> bytes, std::size_t n);

/// Histogram slots (each a (G, H) pair) one ciphertext carries under
/// `pack`, at least 1: 12 for 2,048 bits and up to 2^15 rows.
std::size_t slots_per_ciphertext(const paillier::packing& pack);
/// Ciphertexts of `slots` histogram slots.
std::size_t histogram_ciphertexts(const paillier::packing& pack,
                                  std::size_t slots);

/// The passive party's histogram of one node: per slot of `bins`' layout
/// (each feature's bins, then its missing slot), the sum of the rows'
/// ciphertexts, packed slots_per_ciphertext() slots to a ciphertext
/// (slot k of a ciphertext at packed positions 2k, 2k + 1) and written
/// after what `out` holds; features, then ciphertexts, on up to `threads`
/// threads.
void encrypted_histogram(const paillier::public_key& pk,
                         const paillier::packing& pack,
                         std::span<const paillier::ciphertext> rows_ct,
                         const learners::bin_matrix& bins,
                         std::span<const std::uint32_t> rows,
                         std::vector<std::uint8_t>& out, int threads);

/// The active party's decryption of `count` slot sums packed as
/// encrypted_histogram packs them (histogram by histogram: each node's
/// ciphertexts start afresh, so `per_histogram` slots each): (G, H) per
/// slot.
/// Throws std::invalid_argument for a ciphertext that is not one, or a sum
/// that does not unpack (more summands than the packing allows).
std::vector<learners::grad_sum>
decrypt_histograms(const paillier::private_key& key,
                   const paillier::packing& pack,
                   std::span<const std::uint8_t> bytes, std::size_t count,
                   std::size_t per_histogram, int threads);

} // namespace veil::protocols::masked
