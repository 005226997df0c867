#pragma once

// HE-XGBoost (spec maskedxgboost §6.5; SecureBoost's pattern): the active
// party encrypts every row's gradient and hessian under Paillier, each
// passive party sums the ciphertexts per histogram slot of its features at
// the nodes asked for, and the active party decrypts the histograms and
// goes on exactly as plain. Lossless up to the fixed point's 2^-40.

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

/// The passive party's histogram of one node: per slot of `bins`' layout
/// (each feature's bins, then its missing slot), the sum of the rows'
/// ciphertexts, written after what `out` holds; features on up to
/// `threads` threads.
void encrypted_histogram(const paillier::public_key& pk,
                         std::span<const paillier::ciphertext> rows_ct,
                         const learners::bin_matrix& bins,
                         std::span<const std::uint32_t> rows,
                         std::vector<std::uint8_t>& out, int threads);

/// The active party's decryption of `count` slot sums: (G, H) per slot.
/// Throws std::invalid_argument for a ciphertext that is not one, or a sum
/// that does not unpack (more summands than the packing allows).
std::vector<learners::grad_sum> decrypt_histograms(
    const paillier::private_key& key, const paillier::packing& pack,
    std::span<const std::uint8_t> bytes, std::size_t count, int threads);

} // namespace veil::protocols::masked
