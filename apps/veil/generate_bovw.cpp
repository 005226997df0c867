// `veil generate --kind bovw`: LDP boosting's image features (spec
// ldp-boosting §7.1-7.2) in one command. The images of the two classes
// (--pair A,B) are pooled from every --images file; per class, in a seeded
// order (--seed), 1,000 originals go to the test set and 1,000 to the data
// user, and the rest are augmented (random rotations and shifts) up to
// --per-class training images. The visual vocabulary (--words) is fitted by
// k-means on the data user's descriptors only, so it is built without the
// owners' data. Writes OUT with _train, _test and _user before the
// extension: --words frequency columns and the label (A 0, B 1).
#include <algorithm>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>

#include "apps/veil/commands.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/image/bovw.hpp"
#include "learners/input_error.hpp"

namespace veil::apps {

namespace {

namespace img = learners::image;

/// The pair's two class labels from "A,B".
std::pair<int, int> pair_of(const std::string& text) {
  std::istringstream in(text);
  int a = -1, b = -1;
  char comma = 0;
  if (!(in >> a >> comma >> b) || comma != ',' || a < 0 || b < 0 || a == b ||
      !in.eof())
    throw input_error("--pair " + text +
                      ": expected two different class "
                      "labels A,B");
  return {a, b};
}

/// Every image of class `a` (index 0) and `b` (index 1) in `files`.
std::array<std::vector<img::picture>, 2>
images_of(const std::vector<std::string>& files, int a, int b) {
  std::array<std::vector<img::picture>, 2> out;
  for (const auto& f : files) {
    learners::read_options ro;
    ro.label = "label";
    auto d = learners::read_table(f, ro);
    if (d.features() != img::side * img::side)
      throw input_error(f + ": " + std::to_string(d.features()) +
                        " pixel columns, expected 784 (28x28 images)");
    for (std::size_t i = 0; i < d.rows(); ++i) {
      auto y = static_cast<int>(d.labels()[i]);
      if (y != a && y != b)
        continue;
      img::picture p;
      for (std::size_t j = 0; j < p.size(); ++j) {
        float v = d.value(i, j);
        if (!(v >= 0 && v <= 255))
          throw input_error(f + ": row " + std::to_string(i + 1) + ", " +
                            d.feature_names()[j] + ": a pixel outside 0..255");
        p[j] = v / 255.0f;
      }
      out[y == a ? 0 : 1].push_back(p);
    }
  }
  return out;
}

/// The feature table of `images` (by class) under `vocabulary`.
learners::dataset
table_of(const std::array<std::vector<img::picture>, 2>& by_class,
         const std::vector<img::descriptor>& vocabulary) {
  std::vector<std::string> names;
  for (std::size_t k = 0; k < vocabulary.size(); ++k)
    names.push_back("w" + std::to_string(k));
  learners::dataset d(by_class[0].size() + by_class[1].size(), names);
  d.labels().resize(d.rows());
  std::size_t row = 0;
  for (int y = 0; y < 2; ++y)
    for (const auto& p : by_class[static_cast<std::size_t>(y)]) {
      auto h = img::bag_of_words(p, vocabulary);
      for (std::size_t k = 0; k < h.size(); ++k)
        d.value(row, k) = static_cast<float>(h[k]);
      d.labels()[row++] = static_cast<float>(y);
    }
  return d;
}

} // namespace

int run_generate_bovw(const generate_options& o) {
  if (o.images.empty())
    throw input_error("--kind bovw needs --images FILE (and more files to "
                      "pool, e.g. the train and test sets)");
  if (o.words < 2)
    throw input_error("--words must be at least 2");
  auto [a, b] = pair_of(o.pair);
  auto pooled = images_of(o.images, a, b);
  constexpr std::size_t held = 1000; // per class, test and data user each
  std::mt19937_64 rng(o.seed);
  std::array<std::vector<img::picture>, 2> train, test, user;
  for (int y = 0; y < 2; ++y) {
    auto& all = pooled[static_cast<std::size_t>(y)];
    if (all.size() < 2 * held + 1)
      throw input_error("class " + std::to_string(y == 0 ? a : b) + ": " +
                        std::to_string(all.size()) +
                        " images, fewer than "
                        "the 2,001 the test and data user's sets need");
    std::shuffle(all.begin(), all.end(), rng);
    auto c = static_cast<std::size_t>(y);
    test[c].assign(all.begin(), all.begin() + held);
    user[c].assign(all.begin() + held, all.begin() + 2 * held);
    // The originals, then augmented copies of them in turn.
    std::vector<img::picture> originals(all.begin() + 2 * held, all.end());
    train[c] = originals;
    for (std::size_t i = 0; train[c].size() < o.per_class; ++i)
      train[c].push_back(img::augment(originals[i % originals.size()], rng));
    train[c].resize(std::min(train[c].size(), o.per_class));
  }
  std::vector<img::descriptor> points;
  for (const auto& cls : user)
    for (const auto& p : cls) {
      auto ds = img::hog(p);
      points.insert(points.end(), ds.begin(), ds.end());
    }
  auto vocabulary = img::kmeans(points, o.words, rng);
  auto name = [&](const std::string& part) { return with_suffix(o.out, part); };
  std::vector<std::pair<std::string, learners::dataset>> outputs{
      {name("_train"), table_of(train, vocabulary)},
      {name("_test"), table_of(test, vocabulary)},
      {name("_user"), table_of(user, vocabulary)}};
  for (const auto& [path, d] : outputs) {
    learners::write_csv(d, path);
    std::cout << "wrote " << path << " (" << d.rows() << " rows, "
              << d.features() << " words)\n";
  }
  return 0;
}

} // namespace veil::apps
