// Privet's online phase on one table of data (spec privet §7.5), as the
// actor session `veil train --protocol privet` runs it: every computing
// party and the dealer an actor in this process. Two runs in the same
// process: without link emulation (compute and in-process messaging only)
// and with every link emulated (the session's `net.latency_ms` and
// `net.bandwidth_mbps`: each message is delivered latency + bytes /
// bandwidth after it is sent, queued behind the earlier ones on its link;
// one link per pair of parties). Reported for each:
// training and prediction wall time, the online rounds and bytes (the
// computing parties' round messages), the dealer's bytes (its seeds and
// corrections and the asks it got: the offline phase, produced ahead of
// the online phase, or on demand with dealer_ahead 0), and the
// test accuracy and AUC. Training's time is split at the completion of its
// first round: before it, the dealer's offline phase (its dry run and its
// answers' transfer to the last party).
//
// usage: veil-bench-privet FILE [parties 4] [tables 10] [depth 3]
//          [buckets 32] [latency_ms 5] [bandwidth_mbps 100] [hide 0]
//          [dealer_ahead 1]
// FILE: CSV with a `label` column (binary); 80/20 split, seed 2024.
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <random>
#include <string>

#include "actors/privet_session.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/metrics/metrics.hpp"
#include "protocols/privet/deal.hpp"

namespace pv = veil::protocols::privet;
namespace learners = veil::learners;
namespace actors = veil::actors;

namespace {

bool dealer_ahead = true;

struct measured {
  double train_seconds = 0, offline_seconds = 0, predict_seconds = 0;
  std::uint64_t rounds = 0, online = 0, dealer = 0;
  double accuracy = 0, auc = 0;
};

measured run(const learners::dataset& train, const learners::dataset& test,
             int parties, const pv::params& p,
             veil::protocols::session::link_model link) {
  auto dealt = pv::deal_table(train, test, parties);
  actors::privet_config cfg;
  cfg.params = p;
  cfg.map = dealt.map;
  cfg.parties = std::move(dealt.parties);
  cfg.dealer_ahead = dealer_ahead;
  cfg.link = link;
  cfg.timeout = std::chrono::minutes(5);
  auto out = actors::privet_session::run(std::move(cfg));
  if (!out.ok()) {
    std::cerr << "veil-bench-privet: " << out.error << "\n";
    std::exit(1);
  }
  const auto& r = *out.result;
  measured m;
  m.train_seconds = r.train_seconds;
  m.offline_seconds = r.offline_seconds;
  m.predict_seconds = r.predict_seconds;
  m.rounds = r.rounds;
  for (std::size_t c = 0; c + 1 < r.parties.size(); ++c) {
    const auto& b = r.parties[c].bytes;
    for (std::size_t k = 0; k < b.types.size(); ++k)
      if (b.types[k] == "round_words")
        m.online += b.sent[k];
  }
  const auto& d = r.parties.back().bytes;
  m.dealer = d.total_sent() + d.total_received();
  double right = 0;
  for (std::size_t i = 0; i < r.margins.size(); ++i)
    right += (r.margins[i] > 0) == (test.labels()[i] > 0.5f);
  m.accuracy = right / static_cast<double>(r.margins.size());
  m.auc = learners::auc(test.labels(), r.margins);
  return m;
}

void print(const char* what, const measured& m) {
  std::cout << "  " << what << ": training " << std::fixed
            << std::setprecision(2) << m.train_seconds << " s (offline "
            << m.offline_seconds << " s, online "
            << m.train_seconds - m.offline_seconds << " s), prediction "
            << m.predict_seconds << " s; " << m.rounds << " rounds, online "
            << std::setprecision(3) << static_cast<double>(m.online) / 1e9
            << " GB, dealer " << static_cast<double>(m.dealer) / 1e9
            << " GB; test accuracy " << std::setprecision(4) << m.accuracy
            << ", AUC " << m.auc << std::defaultfloat << "\n";
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: veil-bench-privet FILE [parties] [tables] [depth] "
                 "[buckets] [latency_ms] [bandwidth_mbps] [hide_buckets]\n";
    return 2;
  }
  auto arg = [&](int i, double fallback) {
    return argc > i ? std::stod(argv[i]) : fallback;
  };
  const int parties = static_cast<int>(arg(2, 4));
  pv::params p;
  p.tables = static_cast<int>(arg(3, 10));
  p.depth = static_cast<int>(arg(4, 3));
  p.buckets = static_cast<int>(arg(5, 32));
  veil::protocols::session::link_model link;
  link.latency_ms = arg(6, 5);
  link.bandwidth_mbps = arg(7, 100);
  p.hide_buckets = arg(8, 0) != 0;
  dealer_ahead = arg(9, 1) != 0;

  learners::read_options ro;
  ro.label = "label";
  auto all = learners::read_table(argv[1], ro);
  std::vector<std::size_t> rows(all.rows());
  std::iota(rows.begin(), rows.end(), 0u);
  std::shuffle(rows.begin(), rows.end(), std::mt19937_64(2024));
  auto cut = rows.size() * 8 / 10;
  auto train = all.select_rows(std::vector<std::size_t>(
      rows.begin(), rows.begin() + static_cast<long>(cut)));
  auto test = all.select_rows(std::vector<std::size_t>(
      rows.begin() + static_cast<long>(cut), rows.end()));

  std::cout << "privet, " << parties << " computing parties and the dealer "
            << "as actors, " << p.tables << " tables of depth " << p.depth
            << ", " << p.buckets << " buckets"
            << (p.hide_buckets ? ", hidden buckets" : "")
            << (dealer_ahead ? ", dealer ahead" : ", dealer on demand") << ", "
            << train.rows() << " training rows x " << train.features()
            << " features, " << test.rows() << " test rows\n";
  print("no link emulation", run(train, test, parties, p, {}));
  std::string emulated = "links of " + std::to_string(link.latency_ms) +
                         " ms, " + std::to_string(link.bandwidth_mbps) +
                         " Mbps";
  print(emulated.c_str(), run(train, test, parties, p, link));
  return 0;
}
