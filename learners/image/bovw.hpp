#pragma once

// The image features of LDP boosting's MNIST and Fashion-MNIST experiments
// (spec ldp-boosting §7.1-7.2, with the spec's concrete parameters where
// the paper gives none): augmentation by random rotations and shifts,
// HOG local descriptors (4x4-pixel cells, 9 unsigned orientation bins,
// 2x2-cell blocks with stride 1, L2-Hys), a visual vocabulary by k-means
// (k-means++ then Lloyd), and each image as the frequency histogram of its
// descriptors' nearest words.

#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace veil::learners::image {

constexpr int side = 28;
/// A 28x28 grey image, row-major, values in [0, 1].
using picture = std::array<float, side * side>;

constexpr int cells = side / 4;              // 7 cells of 4x4 pixels a side
constexpr int blocks = cells - 1;            // 6 blocks of 2x2 cells a side
constexpr int block_length = 4 * 9;          // 2x2 cells, 9 bins each
constexpr int descriptors = blocks * blocks; // 36 per image
using descriptor = std::array<float, block_length>;

/// A random rotation (uniform in +-15 degrees about the centre) and shift
/// (uniform in +-2.8 pixels each way), bilinear, the nearest pixel where
/// the source falls outside (spec §7.1 [X]).
picture augment(const picture& in, std::mt19937_64& rng);

/// The image's 36 block descriptors (spec §7.2 [X]).
std::vector<descriptor> hog(const picture& in);

/// K centres by k-means++ and Lloyd's iterations (to no change in the
/// assignment, or 100), on `points`; throws std::invalid_argument for
/// fewer points than K.
std::vector<descriptor> kmeans(const std::vector<descriptor>& points, int k,
                               std::mt19937_64& rng);

/// The frequency of each word of `vocabulary` among the image's nearest
/// words (its descriptors' nearest centres), counts / 36.
std::vector<double> bag_of_words(const picture& in,
                                 const std::vector<descriptor>& vocabulary);

} // namespace veil::learners::image
