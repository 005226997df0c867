// `veil audit`: runs a protocol and an attack on it and reports the
// attacker's success beside the guarantee the protocol prints, so that a
// user sees which guarantee holds against whom. MaskedXGBoost's (spec
// maskedxgboost §5.6(1), §7.6–7.7):
//
// - least-squares: the passive party removes its own noise from the masked
//   gradients of two candidates of the first tree's root (it made the
//   noise) and reads the labels off the signs;
// - nn: the paper's weaker attacker on the same transcript: a neural
//   network the passive party trains on fabricated data masked like the
//   real exchange, applied to one candidate's masked vectors;
// - subset: the active party searches a noise matrix of a 20-row
//   sub-problem for the rows whose noise sums to the least (the true left
//   set sums to the disturbing noise only).
//
// The parties' roles run here, as state machines, with their real
// messages delivered in order; each attacker sees exactly what its role
// receives. The active party calibrates for the paper's whole training
// (60 trees of depth 6), so the noise is the noise a real run releases.
#include <algorithm>
#include <cmath>
#include <deque>
#include <iostream>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>

#include "apps/veil/commands.hpp"
#include "apps/veil/settings.hpp"
#include "learners/binning/bin_matrix.hpp"
#include "learners/binning/quantile_cuts.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/masked/attacks.hpp"
#include "protocols/masked/exchange.hpp"
#include "protocols/masked/noise.hpp"
#include "protocols/masked/settings.hpp"
#include "protocols/masked/split.hpp"
#include "protocols/plain/active_party.hpp"
#include "protocols/plain/passive_party.hpp"

namespace veil::apps {

namespace {

namespace mx = protocols::masked;
namespace pl = protocols::plain;
using nlohmann::json;

/// Columns [lo, hi) of `d`, with its labels if `labels`.
learners::dataset columns(const learners::dataset& d, std::size_t lo,
                          std::size_t hi, bool labels) {
  std::vector<std::size_t> cols(hi - lo);
  std::iota(cols.begin(), cols.end(), lo);
  return select_columns(d, cols, labels);
}

/// What the passive party saw of the first tree's root: its noise (M1)
/// and the masked vectors it got back (M2).
struct root_view {
  pl::noise_matrices noise;
  pl::masked_sums masked;
};

/// Runs MaskedXGBoost between an active party holding the first half of
/// `d`'s columns and a passive party holding the rest until the passive
/// party has the masked vectors of the first tree's root, and returns its
/// view of them.
root_view run_root(const learners::dataset& d, const mx::params& mp,
                   int threads) {
  auto half = mx::active_columns(d.features());
  auto bp = mx::booster_for({});
  bp.threads = threads;
  pl::active_party active(bp, columns(d, 0, half, true), {1},
                          pl::exchange::masked, mp);
  pl::passive_party passive(columns(d, half, d.features(), false),
                            pl::exchange::masked, mp, 1);
  root_view view;
  bool have_noise = false, have_masked = false;
  // FIFO delivery between the two roles, as their actors would.
  std::deque<std::pair<pl::party_id, pl::envelope>> queue;
  auto post = [&](pl::party_id from, pl::outbox out) {
    for (auto& e : out)
      queue.emplace_back(from, std::move(e));
  };
  post(0, active.start());
  while (!queue.empty() && !have_masked) {
    auto [from, e] = std::move(queue.front());
    queue.pop_front();
    if (e.to == 1) {
      if (auto* m = std::get_if<pl::masked_sums>(&e.msg)) {
        view.masked = *m;
        have_masked = true;
        break;
      }
      auto r = passive.on_message(from, std::move(e.msg));
      if (!r)
        throw std::runtime_error("the passive party refused at " +
                                 r.error().step + ": " + r.error().reason);
      post(1, std::move(*r));
    } else {
      if (auto* m = std::get_if<pl::noise_matrices>(&e.msg); m && !have_noise) {
        view.noise = *m;
        have_noise = true;
      }
      auto r = active.on_message(from, e.msg);
      if (!r)
        throw std::runtime_error("the active party refused at " +
                                 r.error().step + ": " + r.error().reason);
      post(0, std::move(*r));
    }
  }
  if (!have_noise || !have_masked)
    throw std::runtime_error("the session ended before the root's exchange");
  return view;
}

json least_squares(const learners::dataset& d, const mx::params& mp,
                   int threads) {
  auto view = run_root(d, mp, threads);
  auto n = d.rows();
  auto w = static_cast<std::size_t>(mp.w);
  if (view.noise.candidates.empty() || view.noise.candidates[0] < 2)
    throw input_error("the passive party's columns give fewer than two "
                      "candidate splits at the root: the attack needs two");
  auto at = [&](const std::vector<double>& v, std::size_t offset,
                std::size_t size) {
    return std::span<const double>(v.data() + offset, size);
  };
  auto g = mx::recover_gradients(
      at(view.noise.noise, 0, w * n), at(view.noise.noise, w * n, w * n),
      at(view.masked.masked, 0, n), at(view.masked.masked, 2 * n, n), mp.w);
  // The released gradients of the first tree: p - y at margin 0, clipped.
  double half = mp.mu / 2, worst = 0, noise_sd = 0;
  std::vector<std::uint8_t> guess(n), truth(n);
  for (std::size_t r = 0; r < n; ++r) {
    double y = d.labels()[r];
    double released = std::clamp(0.5 - y, -half, half);
    worst = std::max(worst, std::abs(g[r] - released));
    double e = view.masked.masked[r] - released;
    noise_sd += e * e;
    guess[r] = g[r] < 0;
    truth[r] = y > 0.5;
  }
  noise_sd = std::sqrt(noise_sd / static_cast<double>(n));
  auto s = mx::score_labels(guess, truth);
  return {{"attack", "least-squares"},
          {"attacker", "the passive party"},
          {"target", "the active party's gradients and labels"},
          {"rows", n},
          {"noise_sd_per_coordinate", noise_sd},
          {"max_gradient_error", worst},
          {"label_accuracy", s.accuracy},
          {"balanced_accuracy", s.balanced},
          {"majority_rate", s.majority}};
}

/// The passive party's columns (the second half) and its bins, as its
/// role builds them with the paper's learner.
struct passive_columns {
  learners::dataset columns;
  learners::bin_matrix bins;
  passive_columns(const learners::dataset& d, int threads)
      : columns(veil::apps::columns(d, mx::active_columns(d.features()),
                                    d.features(), false)),
        bins(columns,
             learners::quantile_cuts::compute(
                 columns, mx::booster_for({}).max_bin, threads),
             threads) {}
};

json neural_network(const learners::dataset& d, const mx::params& mp,
                    int threads, std::uint64_t seed) {
  auto view = run_root(d, mp, threads);
  auto n = d.rows();
  auto w = static_cast<std::size_t>(mp.w);
  // The passive party's first candidate at the root, as it enumerates
  // them (its own bins: it knows which rows it sent left).
  passive_columns pp(d, threads);
  const auto& bins = pp.bins;
  std::vector<std::uint32_t> all(n);
  std::iota(all.begin(), all.end(), 0u);
  auto candidates = mx::node_candidates(bins, all);
  if (candidates.empty())
    throw input_error("the passive party's columns give no candidate split "
                      "at the root: nothing to attack");
  std::vector<std::uint8_t> m(n);
  for (std::size_t r = 0; r < n; ++r)
    m[r] = mx::goes_left(bins, static_cast<std::uint32_t>(r), candidates[0]);
  // What the passive party knows of the calibration: the printed one.
  auto fixed = mx::fix_guarantee(mx::method::masked, mp, mx::booster_for({}), n,
                                 1, pp.columns.features())
                   .fixed;
  mx::nn_attack_settings s;
  double positives = 0;
  for (auto y : d.labels())
    positives += y > 0.5;
  s.positive_rate = positives / static_cast<double>(n); // public, as the spec
  s.mu = mp.mu;
  s.energy = mx::candidate_energy(mp, fixed, n, candidates[0].left);
  s.sigma1 = fixed.sigma1;
  s.sigma2 = fixed.sigma2;
  s.seed = seed;
  auto span = [&](const std::vector<double>& v, std::size_t offset) {
    return std::span<const double>(v.data() + offset, n);
  };
  auto result = mx::nn_label_attack(
      {m, std::span<const double>(view.noise.noise.data(), w * n), mp.w,
       span(view.masked.masked, 0), span(view.masked.masked, n)},
      s);
  std::vector<std::uint8_t> truth(n);
  double err = 0;
  for (std::size_t r = 0; r < n; ++r) {
    truth[r] = d.labels()[r] > 0.5;
    double released = std::clamp(0.5 - d.labels()[r], -mp.mu / 2, mp.mu / 2);
    err += (result.g[r] - released) * (result.g[r] - released);
  }
  auto score = mx::score_labels(result.labels, truth);
  const auto& h = result.history;
  return {
      {"attack", "nn"},
      {"attacker", "the passive party"},
      {"target", "the active party's labels (the paper's network, "
                 "fabricated training data)"},
      {"rows", n},
      {"energy", s.energy},
      {"noise_sd_per_coordinate",
       std::sqrt(s.energy * (2 * s.sigma1 * s.sigma1 + s.sigma2 * s.sigma2))},
      {"epochs", h.train_loss.size()},
      {"first_train_loss", h.train_loss.front()},
      {"best_validation_loss", h.validation_loss[h.best_epoch]},
      {"gradient_rmse", std::sqrt(err / static_cast<double>(n))},
      {"label_accuracy", score.accuracy},
      {"balanced_accuracy", score.balanced},
      {"majority_rate", score.majority}};
}

json subset(const learners::dataset& d, const mx::params& mp, int trials,
            std::uint64_t seed) {
  passive_columns pp(d, 1);
  const auto& bins = pp.bins;
  // ρ depends on the passive party's budget only, and the attack is
  // scale-invariant: one step's calibration serves.
  auto c = mx::calibrate(mp, d.rows(), 1, 1, 1);
  std::mt19937_64 pick(seed); // which rows and cuts: not secret
  const std::size_t ns = 20;
  double match = 0, chance = 0;
  int done = 0;
  auto attack = [&](auto& rng) {
    for (int attempt = 0; done < trials && attempt < 100 * trials; ++attempt) {
      // 20 training rows, a feature and a cut with both sides non-empty.
      std::vector<std::uint32_t> rows(ns);
      for (auto& r : rows)
        r = static_cast<std::uint32_t>(pick() % d.rows());
      auto f = pick() % pp.columns.features();
      int nb = bins.layout().bins(f);
      if (nb < 2)
        continue;
      int cut = static_cast<int>(pick() % static_cast<std::uint64_t>(nb - 1));
      std::vector<std::uint8_t> m(ns);
      std::size_t left = 0;
      for (std::size_t j = 0; j < ns; ++j) {
        int b = bins.bin(rows[j], f);
        m[j] = b != nb && b <= cut;
        left += m[j];
      }
      if (left == 0 || left == ns)
        continue;
      auto b = mx::noise_matrix(m, c.sigma1, c.sigma2, c.w, rng);
      auto guess = mx::subset_attack(b, ns, c.w, left);
      double q = static_cast<double>(left) / ns;
      match += mx::bit_match(guess, m);
      chance += q * q + (1 - q) * (1 - q);
      ++done;
    }
  };
  if (mp.seed == 0) {
    protocols::crypto::system_random rng;
    attack(rng);
  } else {
    protocols::crypto::seeded_random rng(mp.seed);
    attack(rng);
  }
  if (done == 0)
    throw input_error("no sub-problem with both sides non-empty: the "
                      "passive party's columns do not vary");
  return {{"attack", "subset"},
          {"attacker", "the active party"},
          {"target", "the passive party's splitting vectors (20-row "
                     "sub-problems, n_A known)"},
          {"trials", done},
          {"rho", c.rho},
          {"w", c.w},
          {"bit_match", match / done},
          {"chance", chance / done}};
}

} // namespace

int run_audit(const audit_options& o) {
  if (o.protocol != "masked-xgboost")
    throw input_error("--protocol " + o.protocol +
                      ": veil audit has the attacks of masked-xgboost");
  mx::params mp;
  for (const auto& s : o.settings) {
    auto eq = s.find('=');
    auto key = s.substr(0, eq);
    auto value = eq == std::string::npos ? std::string() : s.substr(eq + 1);
    if (!mx::apply_setting(mp, key, value, "--set " + s))
      throw input_error("--set " + s + ": not a masked-xgboost setting");
  }
  if (o.epsilon > 0)
    mp.epsilon_ap = checked_epsilon("--epsilon", o.epsilon);
  if (o.delta > 0)
    mp.delta_ap = checked_delta("--delta", o.delta);
  mp.validate();
  learners::read_options ro;
  ro.label = o.label;
  auto d = learners::read_table(o.data, ro);
  if (!d.has_labels())
    throw input_error(o.data + ": no label column \"" + o.label + "\"");
  if (d.features() < 2)
    throw input_error(o.data + ": the audit deals the columns to two "
                               "parties; it needs at least two");
  json report = json::array();
  if (o.attack == "least-squares" || o.attack == "all")
    report.push_back(least_squares(d, mp, o.threads));
  if (o.attack == "nn" || o.attack == "all")
    report.push_back(neural_network(d, mp, o.threads, o.seed));
  if (o.attack == "subset" || o.attack == "all")
    report.push_back(subset(d, mp, o.trials, o.seed));
  if (report.empty())
    throw input_error("--attack " + o.attack +
                      ": least-squares, nn, subset or all");
  for (const auto& a : report) {
    if (a["attack"] == "least-squares")
      std::cout << "least-squares (the passive party against the active "
                   "party's labels): gradients recovered to "
                << a["max_gradient_error"].get<double>()
                << " under noise of sd "
                << a["noise_sd_per_coordinate"].get<double>()
                << " per coordinate; label accuracy "
                << a["label_accuracy"].get<double>() << " (balanced "
                << a["balanced_accuracy"].get<double>() << ", majority "
                << a["majority_rate"].get<double>()
                << ")\n  the active party's guarantee (epsilon "
                << mp.epsilon_ap
                << ") does NOT hold against the passive party\n";
    else if (a["attack"] == "nn")
      std::cout << "nn (the paper's attacker: the passive party's network, "
                   "trained on fabricated data, against the labels): label "
                   "accuracy "
                << a["label_accuracy"].get<double>() << " (balanced "
                << a["balanced_accuracy"].get<double>() << ", majority "
                << a["majority_rate"].get<double>() << ") after "
                << a["epochs"].get<std::size_t>()
                << " epochs; the least-squares attack is the stronger one\n";
    else
      std::cout << "subset (the active party against the passive party's "
                   "splitting vectors): bit match "
                << a["bit_match"].get<double>() << " over "
                << a["trials"].get<int>() << " trials, chance "
                << a["chance"].get<double>() << " (rho "
                << a["rho"].get<double>() << ", W " << a["w"].get<int>()
                << ", epsilon_pp " << mp.epsilon_pp << ")\n";
  }
  if (!o.report.empty())
    learners::write_files_atomically({{o.report, report.dump(2) + "\n"}});
  return 0;
}

} // namespace veil::apps
