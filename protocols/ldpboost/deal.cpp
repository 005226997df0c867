#include "protocols/ldpboost/deal.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "learners/input_error.hpp"

namespace veil::protocols::ldpboost {

learners::labelled_rows rows_of(const learners::dataset& d,
                                const std::string& what, int& classes) {
  if (!d.has_labels())
    throw input_error(what + ": no label column");
  learners::labelled_rows out;
  out.features = d.features();
  out.x.reserve(d.rows() * d.features());
  out.y.reserve(d.rows());
  int top = 0;
  for (std::size_t i = 0; i < d.rows(); ++i) {
    float y = d.labels()[i];
    if (!(y >= 0) || y != std::floor(y) || y > 1e6)
      throw input_error(what + ": row " + std::to_string(i + 1) + ": label " +
                        std::to_string(y) + " is not a class 0, 1, 2, ...");
    out.y.push_back(static_cast<int>(y));
    top = std::max(top, static_cast<int>(y));
    for (std::size_t j = 0; j < d.features(); ++j) {
      float v = d.value(i, j);
      if (learners::is_missing(v))
        throw input_error(what + ": row " + std::to_string(i + 1) + ", " +
                          d.feature_names()[j] +
                          ": a missing value (LDP boosting's owners perturb "
                          "every feature)");
      out.x.push_back(v);
    }
  }
  classes = top + 1;
  return out;
}

learners::labelled_rows slice(const learners::labelled_rows& d,
                              std::size_t first, std::size_t count) {
  learners::labelled_rows out;
  out.features = d.features;
  auto end = std::min(d.rows(), first + count);
  if (first >= end)
    return out;
  out.x.assign(d.x.begin() + static_cast<long>(first * d.features),
               d.x.begin() + static_cast<long>(end * d.features));
  out.y.assign(d.y.begin() + static_cast<long>(first),
               d.y.begin() + static_cast<long>(end));
  return out;
}

learners::labelled_rows shuffled(const learners::labelled_rows& d,
                                 std::uint64_t seed) {
  std::vector<std::size_t> order(d.rows());
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  learners::labelled_rows out;
  out.features = d.features;
  out.x.reserve(d.x.size());
  out.y.reserve(d.y.size());
  for (auto i : order) {
    auto r = d.row(i);
    out.x.insert(out.x.end(), r.begin(), r.end());
    out.y.push_back(d.y[i]);
  }
  return out;
}

dealt_table deal_owners(const learners::labelled_rows& train,
                        std::size_t per_owner, learners::labelled_rows own,
                        learners::labelled_rows eval) {
  if (per_owner == 0)
    throw input_error("ldp.samples_per_owner must be at least 1");
  auto owners = train.rows() / per_owner;
  if (owners == 0)
    throw input_error("ldp.samples_per_owner=" + std::to_string(per_owner) +
                      ": more than the " + std::to_string(train.rows()) +
                      " training rows");
  dealt_table out;
  out.parties.reserve(owners + 1);
  out.parties.push_back({"user", std::move(own), std::move(eval)});
  for (std::size_t o = 0; o < owners; ++o)
    out.parties.push_back({"owner" + std::to_string(o + 1),
                           slice(train, o * per_owner, per_owner),
                           {}});
  out.unused = train.rows() - owners * per_owner;
  return out;
}

std::vector<double> staged_errors(const std::vector<double>& alpha,
                                  const std::vector<member>& ensemble,
                                  int classes, const scaling& bounds,
                                  const learners::labelled_rows& eval) {
  auto rows = bounds.apply(eval);
  const auto n = rows.rows(), k = static_cast<std::size_t>(classes);
  // Each row's votes, one member more at a time (vote()'s sums).
  std::vector<double> votes(n * k, 0);
  std::vector<double> out;
  for (std::size_t m = 0; m < ensemble.size(); ++m) {
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      auto c = predict(ensemble[m], rows.row(i));
      if (c >= 0 && static_cast<std::size_t>(c) < k)
        votes[i * k + static_cast<std::size_t>(c)] += alpha[m];
      auto first = votes.begin() + static_cast<long>(i * k);
      auto best = std::max_element(first, first + static_cast<long>(k)) - first;
      wrong += best != rows.y[i];
    }
    out.push_back(n == 0 ? 0
                         : static_cast<double>(wrong) / static_cast<double>(n));
  }
  return out;
}

} // namespace veil::protocols::ldpboost
