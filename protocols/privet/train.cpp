#include "protocols/privet/train.hpp"

#include <cmath>
#include <numeric>

#include "learners/input_error.hpp"
#include "protocols/mpc/argmin.hpp"
#include "protocols/mpc/functions.hpp"
#include "protocols/mpc/local_network.hpp"
#include "protocols/mpc/permutation.hpp"

namespace veil::protocols::privet {

using mpc::task;
using mpc::word;
using mpc::words;

int division_scale(const params& p, std::size_t rows) {
  double h_max = p.task == learners::table_task::regression ? 1.0 : 0.25;
  double bound = static_cast<double>(rows) * h_max + p.lambda;
  int s = static_cast<int>(std::ceil(std::log2(bound)));
  if (s > 21)
    throw input_error("privet: " + std::to_string(rows) +
                      " rows make the hessian sums too large for the 64-bit "
                      "ring's division (N h_max + lambda must stay below "
                      "2^21)");
  if (static_cast<double>(rows) * p.gradient_bound >= 0x1p22)
    throw input_error(
        "privet: N x the gradient bound (" +
        std::to_string(static_cast<double>(rows) * p.gradient_bound) +
        ") leaves no room for the scores' products below 2^22 "
        "on the 64-bit ring");
  return s;
}

int division_steps(const params& p, int scale) {
  return mpc::newton_steps(scale, p.lambda);
}

column_map column_map::blocks(std::size_t features, int parties) {
  column_map m;
  auto n = static_cast<std::size_t>(parties);
  std::vector<std::size_t> taken(n, 0);
  for (std::size_t j = 0; j < features; ++j) {
    auto p = j * n / features;
    m.owner.push_back(static_cast<int>(p));
    m.local.push_back(taken[p]++);
  }
  return m;
}

learners::dataset column_map::part(const learners::dataset& d, int p) const {
  std::vector<std::size_t> cols;
  for (std::size_t j = 0; j < owner.size(); ++j)
    if (owner[j] == p)
      cols.push_back(j);
  auto x = d.select_columns(cols);
  if (p != 0)
    x.labels().clear();
  return x;
}

learners::table_params exact_reference(const params& p) {
  learners::table_params t;
  t.task = p.task;
  t.tables = p.tables;
  t.depth = p.depth;
  t.buckets = p.buckets;
  t.lambda = p.lambda;
  t.eta = p.eta;
  return t;
}

learners::table_params approximation_aware(const params& p, std::size_t rows) {
  auto t = exact_reference(p);
  int s = division_scale(p, rows);
  int steps = division_steps(p, s);
  t.sigmoid = learners::robust_sigmoid;
  t.divide = [s, steps](double x, double y) {
    return learners::scaled_division(x, y, s, steps);
  };
  return t;
}

namespace {

words negated(const words& x) {
  words out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    out[i] = word{0} - x[i];
  return out;
}

/// The owner's bits b_i = [x_i ≥ t] for one test, shared (S1).
task<words> share_test(mpc::party& self, int owner,
                       const learners::dataset& own, std::size_t local,
                       std::optional<float> threshold) {
  auto n = own.rows();
  words bits;
  if (self.id() == owner) {
    bits.resize(n);
    auto column = own.column(local);
    for (std::size_t i = 0; i < n; ++i)
      bits[i] = column[i] >= *threshold;
  }
  co_return co_await self.share_from(owner, std::move(bits), n);
}

/// Children of every node by a shared test: right = b ⊙ parent, left =
/// parent − right (S1 × anything: no truncation). `parents` holds the
/// level's vectors (of every kind) one after the other.
task<std::vector<words>> split(mpc::party& self, const words& bits,
                               const std::vector<words>& parents) {
  auto n = bits.size();
  words b, x;
  for (const auto& v : parents) {
    b.insert(b.end(), bits.begin(), bits.end());
    x.insert(x.end(), v.begin(), v.end());
  }
  auto right = co_await mpc::mul(self, std::move(b), std::move(x));
  std::vector<words> children;
  for (std::size_t v = 0; v < parents.size(); ++v) {
    words r(right.begin() + static_cast<long>(v * n),
            right.begin() + static_cast<long>((v + 1) * n));
    children.push_back(mpc::sub(parents[v], r));
    children.push_back(std::move(r));
  }
  co_return children;
}

/// Σ_k indicator_k ⊙ w_k per row: the rows' leaf values.
task<words> leaf_values(mpc::party& self, const std::vector<words>& indicators,
                        const words& leaves) {
  auto n = indicators.empty() ? 0 : indicators[0].size();
  words ind, w;
  for (std::size_t k = 0; k < indicators.size(); ++k) {
    ind.insert(ind.end(), indicators[k].begin(), indicators[k].end());
    w.insert(w.end(), n, leaves[k]);
  }
  auto products = co_await mpc::mul(self, std::move(ind), std::move(w));
  words out(n, 0);
  for (std::size_t i = 0; i < products.size(); ++i)
    out[i % n] += products[i];
  co_return out;
}

} // namespace

task<party_model> train(mpc::party& self, const params& p,
                        const column_map& map, const learners::dataset& own) {
  const auto n = own.rows();
  const auto J = map.features();
  const auto B = static_cast<std::size_t>(p.buckets);
  const int me = self.id(), label_holder = 0;
  const int s = division_scale(p, n);
  const int steps = division_steps(p, s);
  if (B < 2 || B > n)
    throw input_error("privet.buckets must be in [2, rows]");
  // Each owner sorts its features once (the data never change).
  std::vector<std::vector<std::uint32_t>> order(J);
  for (std::size_t j = 0; j < J; ++j)
    if (map.owner[j] == me)
      order[j] = learners::stable_order(own.column(map.local[j]));
  auto bounds = learners::table_bucket_bounds(n, p.buckets);

  words y_plain;
  if (me == label_holder)
    y_plain = mpc::encode_all(
        std::vector<double>(own.labels().begin(), own.labels().end()));
  auto y = co_await self.share_from(label_holder, std::move(y_plain), n);
  words score(n, 0);
  const words ones_plain(n, 1);
  const words one_s1 = self.constant(ones_plain);
  party_model model;

  for (int t = 0; t < p.tables; ++t) {
    // Gradients (Alg. 6 lines 1–6).
    words g, h;
    if (p.task == learners::table_task::regression) {
      g = mpc::sub(score, y);
      h = mpc::add_public(self, words(n, 0), 1.0);
    } else {
      words prob;
      if (p.paper_sigmoid) {
        auto r = co_await mpc::paper_sigmoid(self, score);
        prob = std::move(r);
      } else {
        auto r = co_await mpc::sigmoid(self, score);
        prob = std::move(r);
      }
      g = mpc::sub(prob, y);
      auto complement = mpc::add_public(self, negated(prob), 1.0);
      auto hh = co_await mpc::mul_fixed(self, prob, std::move(complement),
                                        p.truncation);
      h = std::move(hh);
    }
    std::vector<words> node_g{g}, node_h{h}, node_ind{one_s1};
    party_model::table table;
    for (int d = 0; d < p.depth; ++d) {
      const std::size_t nodes = std::size_t{1} << d;
      // (a) every feature's bucket sums at every node (SecDisc), all
      // features in one round. sums[j][v][b]: v < nodes are g's, then h's.
      std::vector<mpc::permutation_job> jobs(J);
      for (std::size_t j = 0; j < J; ++j) {
        jobs[j].owner = map.owner[j];
        jobs[j].pi = order[j];
        jobs[j].xs.assign(node_g.begin(), node_g.end());
        jobs[j].xs.insert(jobs[j].xs.end(), node_h.begin(), node_h.end());
      }
      auto sums =
          co_await mpc::bucket_sums_all(self, std::move(jobs), p.buckets);
      // (b, c) every candidate's left and right sums, one batch of
      // divisions: w = G / (H + λ), then G w.
      words numerators, denominators;
      for (std::size_t j = 0; j < J; ++j)
        for (std::size_t k = 0; k < nodes; ++k) {
          const auto& alpha = sums[j][k];
          const auto& beta = sums[j][nodes + k];
          word G = 0, H = 0;
          for (std::size_t b = 0; b < B; ++b) {
            G += alpha[b];
            H += beta[b];
          }
          word gl = 0, hl = 0;
          for (std::size_t c = 0; c + 1 < B; ++c) {
            gl += alpha[c];
            hl += beta[c];
            numerators.push_back(gl);
            denominators.push_back(hl);
            numerators.push_back(G - gl);
            denominators.push_back(H - hl);
          }
        }
      denominators = mpc::add_public(self, denominators, p.lambda);
      auto w = co_await mpc::divide_masked(self, std::move(numerators),
                                           std::move(denominators), s, steps);
      auto gw = co_await mpc::product(self, w.numerator, w.ratio);
      std::vector<mpc::to_open> fixed{{std::move(gw), mpc::fraction_bits}};
      auto opened = co_await mpc::open_masked(self, std::move(fixed));
      auto impurity = mpc::share_of(self, opened[0]);
      // δ_j,c = −Σ_k (G_L w_L + G_R w_R).
      words delta(J * (B - 1), 0);
      std::size_t at = 0;
      for (std::size_t j = 0; j < J; ++j)
        for (std::size_t k = 0; k < nodes; ++k)
          for (std::size_t c = 0; c + 1 < B; ++c) {
            delta[j * (B - 1) + c] -= impurity[at] + impurity[at + 1];
            at += 2;
          }
      // (d, e) the best bucket of each feature (public γ, as the paper;
      // with hide_buckets shared), then the best feature.
      auto per_feature = co_await mpc::argmin(self, std::move(delta), J, B - 1,
                                              !p.hide_buckets);
      auto best =
          co_await mpc::argmin(self, std::move(per_feature.minimum), 1, J);
      auto F = static_cast<std::size_t>(best.index[0]);
      std::size_t q = 0;
      if (!p.hide_buckets) {
        q = static_cast<std::size_t>(per_feature.index[F]);
      } else { // the chosen feature's bucket to its owner only (Rec_o)
        mpc::words mine{per_feature.shared_index[F]};
        auto known = co_await self.reveal_to(map.owner[F], std::move(mine));
        if (map.owner[F] == me)
          q = static_cast<std::size_t>(known[0]);
      }
      // (f) the owner's threshold: the first value of bucket q + 1.
      std::optional<float> threshold;
      if (map.owner[F] == me)
        threshold = own.value(order[F][bounds[q + 1]], map.local[F]);
      table.features.push_back(static_cast<std::int32_t>(F));
      table.thresholds.push_back(threshold);
      // (g) SecSplit: gradients, hessians and the rows' leaf indicators.
      auto bits =
          co_await share_test(self, map.owner[F], own, map.local[F], threshold);
      std::vector<words> parents(node_g.begin(), node_g.end());
      parents.insert(parents.end(), node_h.begin(), node_h.end());
      parents.insert(parents.end(), node_ind.begin(), node_ind.end());
      auto children = co_await split(self, bits, parents);
      auto take = [&](std::size_t from) {
        return std::vector<words>(children.begin() + static_cast<long>(from),
                                  children.begin() +
                                      static_cast<long>(from + 2 * nodes));
      };
      node_g = take(0);
      node_h = take(2 * nodes);
      node_ind = take(4 * nodes);
    }
    // Leaves: w_k = −η G_k / (H_k + λ).
    const std::size_t leaves = std::size_t{1} << p.depth;
    words G, H;
    for (std::size_t k = 0; k < leaves; ++k) {
      G.push_back(std::accumulate(node_g[k].begin(), node_g[k].end(), word{0}));
      H.push_back(std::accumulate(node_h[k].begin(), node_h[k].end(), word{0}));
    }
    H = mpc::add_public(self, H, p.lambda);
    auto minus_g = negated(G); // no temporaries in a co_await (mpc/party.hpp)
    auto ratio =
        co_await mpc::divide_scaled(self, std::move(minus_g), H, s, steps);
    words w = std::move(ratio);
    if (p.eta != 1) {
      auto scaled = mpc::scale(w, mpc::encode(p.eta));
      auto shrunk = co_await mpc::trunc(self, std::move(scaled),
                                        mpc::fraction_bits, p.truncation);
      w = std::move(shrunk);
    }
    // The training rows' scores for the next table (SecInfer on the
    // indicators SecSplit already built).
    auto f = co_await leaf_values(self, node_ind, w);
    score = mpc::add(score, f);
    table.leaves = std::move(w);
    model.tables.push_back(std::move(table));
  }
  co_return model;
}

task<words> infer(mpc::party& self, const party_model& model,
                  const column_map& map, const learners::dataset& own,
                  int depth) {
  auto n = own.rows();
  words total(n, 0);
  const words ones_plain(n, 1);
  for (const auto& table : model.tables) {
    if (static_cast<int>(table.features.size()) != depth)
      throw std::invalid_argument("privet::infer: a table of another depth");
    std::vector<words> indicators{self.constant(ones_plain)};
    for (int d = 0; d < depth; ++d) {
      auto F =
          static_cast<std::size_t>(table.features[static_cast<std::size_t>(d)]);
      auto bits =
          co_await share_test(self, map.owner[F], own, map.local[F],
                              table.thresholds[static_cast<std::size_t>(d)]);
      auto children = co_await split(self, bits, indicators);
      indicators = std::move(children);
    }
    auto f = co_await leaf_values(self, indicators, table.leaves);
    total = mpc::add(total, f);
  }
  co_return total;
}

std::vector<mpc::correlation_request> training_requests(const params& p,
                                                        const column_map& map,
                                                        std::size_t rows,
                                                        int parties) {
  std::vector<learners::dataset> parts;
  for (int q = 0; q < parties; ++q) {
    std::size_t columns = 0;
    for (auto o : map.owner)
      columns += o == q;
    std::vector<std::string> names(columns, "x");
    learners::dataset zeros(rows, names);
    if (q == 0)
      zeros.labels().assign(rows, 0.0f);
    parts.push_back(std::move(zeros));
  }
  // The dry run's seeds are its own (1): its values are never used.
  mpc::local_network net(parties, 1);
  net.run<party_model>([&](mpc::party& self) {
    return train(self, p, map, parts[static_cast<std::size_t>(self.id())]);
  });
  return net.requests();
}

task<words> predict(mpc::party& self, const party_model& model,
                    const column_map& map, const learners::dataset& own,
                    int depth) {
  auto shares = co_await infer(self, model, map, own, depth);
  auto to_holder = co_await self.reveal_to(0, std::move(shares));
  co_return to_holder;
}

} // namespace veil::protocols::privet
