// LDP boosting's image features (learners/image/bovw.hpp, spec
// ldp-boosting §7.2): HOG puts a straight edge's gradient in the right
// orientation bin and normalises each block (L2-Hys: unit length, no
// entry above 0.2 before the last scaling); augmentation keeps a constant
// image constant and moves a dot by at most its shift and rotation; k-means
// finds well-separated clusters' means; an image's bag of words is a
// frequency histogram.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numeric>

#include "learners/image/bovw.hpp"

namespace img = veil::learners::image;

BOOST_AUTO_TEST_SUITE(image)
BOOST_AUTO_TEST_SUITE(bovw)

BOOST_AUTO_TEST_CASE(hog_bins_an_edge_by_its_orientation) {
  // Left half dark, right half bright: horizontal gradients (0 degrees).
  img::picture p{};
  for (int r = 0; r < img::side; ++r)
    for (int c = img::side / 2; c < img::side; ++c)
      p[static_cast<std::size_t>(r * img::side + c)] = 1;
  auto ds = img::hog(p);
  BOOST_REQUIRE(ds.size() == 36u);
  // The block over columns 12..19 (block column 3) straddles the edge.
  const auto& v = ds[static_cast<std::size_t>(2 * img::blocks + 3)];
  double sq = 0, bin0 = 0, other = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    sq += v[i] * v[i];
    (i % 9 == 0 ? bin0 : other) += v[i];
  }
  BOOST_TEST(std::abs(sq - 1) < 1e-4);
  BOOST_TEST(bin0 > 0.9);
  BOOST_TEST(other < 1e-6);
  // A block far from the edge has no gradient: all zeros.
  for (auto x : ds[0])
    BOOST_TEST(x == 0.0f);
}

BOOST_AUTO_TEST_CASE(augmentation_keeps_a_constant_and_moves_a_dot_a_little) {
  std::mt19937_64 rng(3);
  img::picture flat;
  flat.fill(0.25f);
  for (auto x : img::augment(flat, rng))
    BOOST_TEST(std::abs(x - 0.25f) < 1e-6);
  // A bright 2x2 dot at the centre: after a rotation about the centre and
  // a shift of at most 2.8 pixels, its weight stays within 4 pixels.
  img::picture dot{};
  for (int r = 13; r <= 14; ++r)
    for (int c = 13; c <= 14; ++c)
      dot[static_cast<std::size_t>(r * img::side + c)] = 1;
  for (int k = 0; k < 20; ++k) {
    auto moved = img::augment(dot, rng);
    double total = 0, r_mean = 0, c_mean = 0;
    for (int r = 0; r < img::side; ++r)
      for (int c = 0; c < img::side; ++c) {
        double w = moved[static_cast<std::size_t>(r * img::side + c)];
        total += w;
        r_mean += w * r;
        c_mean += w * c;
      }
    BOOST_REQUIRE(total > 0);
    double dr = r_mean / total - 13.5, dc = c_mean / total - 13.5;
    BOOST_TEST(std::sqrt(dr * dr + dc * dc) < 4.0);
  }
}

BOOST_AUTO_TEST_CASE(kmeans_finds_separated_clusters) {
  std::mt19937_64 rng(5);
  std::normal_distribution<float> z(0, 0.01f);
  std::vector<img::descriptor> points;
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 100; ++i) {
      img::descriptor d{};
      d[static_cast<std::size_t>(k)] = 1;
      for (auto& x : d)
        x += z(rng);
      points.push_back(d);
    }
  auto centres = img::kmeans(points, 3, rng);
  BOOST_REQUIRE(centres.size() == 3u);
  // Each cluster's mean is one of the centres.
  for (int k = 0; k < 3; ++k) {
    bool found = false;
    for (const auto& c : centres)
      found =
          found || (std::abs(c[static_cast<std::size_t>(k)] - 1) < 0.01 &&
                    std::abs(c[static_cast<std::size_t>((k + 1) % 3)]) < 0.01);
    BOOST_TEST(found, "cluster " << k);
  }
  BOOST_CHECK_THROW(img::kmeans(points, 301, rng), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_bag_of_words_is_a_frequency_histogram) {
  std::mt19937_64 rng(7);
  img::picture p{};
  for (int r = 5; r < 20; ++r)
    p[static_cast<std::size_t>(r * img::side + 10)] = 1;
  std::vector<img::descriptor> points;
  for (int k = 0; k < 4; ++k) {
    auto ds = img::hog(img::augment(p, rng));
    points.insert(points.end(), ds.begin(), ds.end());
  }
  auto words = img::kmeans(points, 5, rng);
  auto h = img::bag_of_words(p, words);
  BOOST_REQUIRE(h.size() == 5u);
  BOOST_TEST(std::abs(std::accumulate(h.begin(), h.end(), 0.0) - 1) < 1e-12);
  for (auto x : h) // multiples of 1/36
    BOOST_TEST(std::abs(x * 36 - std::round(x * 36)) < 1e-9);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
