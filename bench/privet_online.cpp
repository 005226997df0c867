// Privet on one table of data (spec privet §7.4-7.5), as the actor session
// `veil train --protocol privet` runs it: every computing party and the
// dealer an actor in this process, on a seeded 80/20 split. Two runs in the
// same process: without link emulation (compute and in-process messaging
// only) and with every link emulated (the session's `net.latency_ms` and
// `net.bandwidth_mbps`: each message is delivered latency + bytes /
// bandwidth after it is sent, queued behind the earlier ones on its link;
// one link per pair of parties). Reported for each: training time split
// at the completion of its first round (before it, the dealer's offline
// phase: its dry run and its answers' transfer to the last party; after
// it, the online phase), prediction time, the online rounds and bytes (the
// computing parties' round messages), the dealer's bytes, and the test
// metrics. Beside them, privet-plain on the same split: the exact
// reference and the approximation-aware one (the protocol's sigmoid and
// division in double).
//
// usage: veil-bench-privet FILE [key=value ...]
//   parties=4 tables=10 depth=3 buckets=32 task=binary|regression
//   latency_ms=5 bandwidth_mbps=100 emulate=1 hide=0 dealer_ahead=1
// FILE: CSV with a `label` column.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <string>

#include "actors/privet_session.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/metrics/metrics.hpp"
#include "learners/table/decision_tables.hpp"
#include "protocols/privet/deal.hpp"

namespace pv = veil::protocols::privet;
namespace learners = veil::learners;
namespace actors = veil::actors;

namespace {

struct options {
  int parties = 4;
  pv::params p;
  bool regression = false, emulate = true, dealer_ahead = true;
  veil::protocols::session::link_model link{5, 100, 0};
};

/// "accuracy 0.9825, AUC 0.9965" or "RMSE 3.91" of `margins` against the
/// test labels.
std::string metrics_of(const options& o, const learners::dataset& test,
                       const std::vector<double>& margins) {
  std::ostringstream os;
  os << std::setprecision(4);
  const auto& y = test.labels();
  if (o.regression) {
    double sq = 0;
    for (std::size_t i = 0; i < y.size(); ++i)
      sq += (margins[i] - y[i]) * (margins[i] - y[i]);
    os << "RMSE " << std::sqrt(sq / static_cast<double>(y.size()));
    return os.str();
  }
  double right = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    right += (margins[i] > 0) == (y[i] > 0.5f);
  os << "accuracy " << right / static_cast<double>(y.size()) << ", AUC "
     << learners::auc(y, margins);
  return os.str();
}

void run_session(const options& o, const learners::dataset& train,
                 const pv::label_map& labels, const learners::dataset& test,
                 veil::protocols::session::link_model link, const char* what) {
  auto dealt = pv::deal_table(train, test, o.parties);
  actors::privet_config cfg;
  cfg.params = o.p;
  cfg.map = dealt.map;
  cfg.parties = std::move(dealt.parties);
  cfg.link = link;
  cfg.dealer_ahead = o.dealer_ahead;
  cfg.timeout = std::chrono::minutes(5);
  auto out = actors::privet_session::run(std::move(cfg));
  if (!out.ok()) {
    std::cerr << "veil-bench-privet: " << out.error << "\n";
    std::exit(1);
  }
  const auto& r = *out.result;
  std::uint64_t online = 0;
  for (std::size_t c = 0; c + 1 < r.parties.size(); ++c) {
    const auto& b = r.parties[c].bytes;
    for (std::size_t k = 0; k < b.types.size(); ++k)
      if (b.types[k] == "round_words")
        online += b.sent[k];
  }
  const auto& d = r.parties.back().bytes;
  auto dealer = d.total_sent() + d.total_received();
  auto margins = r.margins;
  for (auto& m : margins)
    m = labels.to_target(m);
  std::cout << "  " << what << ": training " << std::fixed
            << std::setprecision(2) << r.train_seconds << " s (offline "
            << r.offline_seconds << " s, online "
            << r.train_seconds - r.offline_seconds << " s), prediction "
            << r.predict_seconds << " s; " << r.rounds << " rounds, online "
            << std::setprecision(3) << static_cast<double>(online) / 1e9
            << " GB, dealer " << static_cast<double>(dealer) / 1e9
            << " GB; test " << std::defaultfloat << metrics_of(o, test, margins)
            << "\n";
}

void run_references(const options& o, const learners::dataset& train,
                    const pv::label_map& labels,
                    const learners::dataset& test) {
  for (bool aware : {false, true}) {
    auto t = aware ? pv::approximation_aware(o.p, train.rows())
                   : pv::exact_reference(o.p);
    auto tables = learners::train_tables(train, t);
    auto margins = tables.predict(test);
    for (auto& m : margins)
      m = labels.to_target(m);
    std::cout << "  privet-plain, " << (aware ? "approximation-aware" : "exact")
              << ": test " << metrics_of(o, test, margins) << "\n";
  }
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: veil-bench-privet FILE [parties=4] [tables=10] "
                 "[depth=3] [buckets=32] [task=binary|regression] "
                 "[latency_ms=5] [bandwidth_mbps=100] [emulate=1] [hide=0] "
                 "[dealer_ahead=1]\n";
    return 2;
  }
  options o;
  for (int i = 2; i < argc; ++i) {
    std::string kv = argv[i];
    auto eq = kv.find('=');
    auto key = kv.substr(0, eq);
    auto value = eq == std::string::npos ? std::string() : kv.substr(eq + 1);
    if (key == "task") {
      o.regression = value == "regression";
      continue;
    }
    double x = std::stod(value);
    if (key == "parties")
      o.parties = static_cast<int>(x);
    else if (key == "tables")
      o.p.tables = static_cast<int>(x);
    else if (key == "depth")
      o.p.depth = static_cast<int>(x);
    else if (key == "buckets")
      o.p.buckets = static_cast<int>(x);
    else if (key == "latency_ms")
      o.link.latency_ms = x;
    else if (key == "bandwidth_mbps")
      o.link.bandwidth_mbps = x;
    else if (key == "emulate")
      o.emulate = x != 0;
    else if (key == "hide")
      o.p.hide_buckets = x != 0;
    else if (key == "dealer_ahead")
      o.dealer_ahead = x != 0;
    else {
      std::cerr << "veil-bench-privet: unknown option " << kv << "\n";
      return 2;
    }
  }
  o.p.task = o.regression ? learners::table_task::regression
                          : learners::table_task::binary;

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
  // The label holder standardises regression targets (as veil train does).
  pv::label_map labels;
  if (o.regression) {
    labels = pv::standardize_labels(train);
    o.p.gradient_bound = pv::regression_gradient_bound(train);
  }

  std::cout << "privet, " << o.parties
            << " computing parties and the dealer as actors, " << o.p.tables
            << " tables of depth " << o.p.depth << ", " << o.p.buckets
            << " buckets" << (o.p.hide_buckets ? ", hidden buckets" : "")
            << (o.dealer_ahead ? ", dealer ahead" : ", dealer on demand")
            << ", " << train.rows() << " training rows x " << train.features()
            << " features, " << test.rows() << " test rows\n";
  run_references(o, train, labels, test);
  run_session(o, train, labels, test, {}, "no link emulation");
  if (o.emulate) {
    std::ostringstream what;
    what << "links of " << o.link.latency_ms << " ms, " << o.link.bandwidth_mbps
         << " Mbps";
    run_session(o, train, labels, test, o.link, what.str().c_str());
  }
  return 0;
}
