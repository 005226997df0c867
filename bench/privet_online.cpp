// Privet's online phase on one table of data, all parties in this process
// (protocols/mpc/local_network), for spec privet §7.5: compute time, the
// rounds and bytes the parties exchange, the dealer's offline words, and
// the time an emulated network would add under the spec's link model
// (§8.2 option 2: one shared link, time = compute + rounds x latency +
// bytes x 8 / bandwidth). The session runtime's real link emulation
// replaces the model once Privet's parties are actors.
//
// usage: veil-bench-privet FILE [parties 4] [tables 10] [depth 3]
//          [buckets 32] [latency_ms 5] [bandwidth_mbps 100]
// FILE: CSV with a `label` column (binary); 80/20 split, seed 2024.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <numeric>
#include <random>
#include <string>

#include "learners/data/csv_reader.hpp"
#include "learners/metrics/metrics.hpp"
#include "protocols/mpc/local_network.hpp"
#include "protocols/privet/train.hpp"

namespace mpc = veil::protocols::mpc;
namespace pv = veil::protocols::privet;
namespace learners = veil::learners;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: veil-bench-privet FILE [parties] [tables] [depth] "
                 "[buckets] [latency_ms] [bandwidth_mbps]\n";
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
  const double latency = arg(6, 5) / 1000, bandwidth = arg(7, 100) * 1e6;

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
  auto map = pv::column_map::blocks(all.features(), parties);
  mpc::local_network net(parties);
  auto start = std::chrono::steady_clock::now();
  mpc::traffic after_training;
  auto scores =
      net.run<mpc::words>([&](mpc::party& self) -> mpc::task<mpc::words> {
        auto mine = map.part(train, self.id());
        auto model = co_await pv::train(self, p, map, mine);
        if (self.id() == 0)
          after_training = net.traffic();
        auto theirs = map.part(test, self.id());
        auto s = co_await pv::infer(self, model, map, theirs, p.depth);
        co_return co_await self.reveal_to(parties - 1, std::move(s));
      });
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  auto margins = mpc::decode_all(scores[static_cast<std::size_t>(parties - 1)]);
  double right = 0;
  for (std::size_t i = 0; i < margins.size(); ++i)
    right += (margins[i] > 0) == (test.labels()[i] > 0.5f);
  const auto& t = after_training;
  double modeled = static_cast<double>(t.rounds) * latency +
                   static_cast<double>(t.bytes()) * 8 / bandwidth;
  std::cout << "privet online, " << parties << " parties, " << p.tables
            << " tables of depth " << p.depth << ", " << p.buckets
            << " buckets, " << train.rows() << " training rows x "
            << train.features() << " features\n"
            << "  compute (training and test inference, one process): "
            << seconds << " s\n"
            << "  training: " << t.rounds << " rounds, " << t.bytes()
            << " bytes online; dealer " << 8 * net.dealer_words()
            << " bytes offline (all)\n"
            << "  modeled links (" << latency * 1000 << " ms, "
            << bandwidth / 1e6 << " Mbps, one shared link): +" << modeled
            << " s\n"
            << "  test accuracy " << right / static_cast<double>(margins.size())
            << ", AUC " << learners::auc(test.labels(), margins) << "\n";
  return 0;
}
