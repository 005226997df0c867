// The scaling shapes of Privet's Figs. 6–9 (spec privet §7.3, §7.6): the
// online phase of training on synthetic classification data (scikit-learn's
// make_classification shape, learners::make_classification) while one of
// N, J, D, B, T varies and the others keep the paper's values, 4 parties,
// every party in one process on the MPC runtime (the actor session routes
// the same rounds and words: tests/actors/privet.cpp). Per point: compute
// time, online rounds and bytes, and the time two network models add at
// 5 ms / 100 Mbps: one link shared by all parties (spec §8.2 option 2, the
// paper's netem on loopback) and a link per pair of parties with the bytes
// spread evenly (the session's emulation).
//
// usage: veil-bench-privet-scaling [N|J|D|B|T|all]  (CSV on stdout)
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "learners/data/synthetic.hpp"
#include "protocols/mpc/local_network.hpp"
#include "protocols/privet/train.hpp"

namespace mpc = veil::protocols::mpc;
namespace pv = veil::protocols::privet;
namespace learners = veil::learners;

namespace {

constexpr int parties = 4;
constexpr double latency = 0.005, bandwidth = 100e6;

struct point {
  std::size_t rows, features;
  int depth, buckets, tables;
};

void measure(const std::string& figure, const std::string& variable,
             double value, const point& at) {
  learners::classification_spec spec;
  spec.rows = at.rows;
  spec.features = at.features;
  spec.informative = 2; // make_classification's defaults
  spec.redundant = 2;
  spec.seed = 7;
  auto data = learners::make_classification(spec);
  pv::params p;
  p.tables = at.tables;
  p.depth = at.depth;
  p.buckets = at.buckets;
  auto map = pv::column_map::blocks(data.features(), parties);
  std::vector<learners::dataset> parts;
  for (int q = 0; q < parties; ++q)
    parts.push_back(map.part(data, q));
  mpc::local_network net(parties);
  auto start = std::chrono::steady_clock::now();
  net.run<pv::party_model>([&](mpc::party& self) {
    return pv::train(self, p, map, parts[static_cast<std::size_t>(self.id())]);
  });
  double compute =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const auto& t = net.traffic();
  double rounds_s = static_cast<double>(t.rounds) * latency;
  double bits = static_cast<double>(t.bytes()) * 8;
  double shared = compute + rounds_s + bits / bandwidth;
  double per_link =
      compute + rounds_s + bits / (parties * (parties - 1)) / bandwidth;
  std::cout << figure << "," << variable << "," << value << "," << at.rows
            << "," << at.features << "," << at.depth << "," << at.buckets << ","
            << at.tables << "," << compute << "," << t.rounds << ","
            << t.bytes() << "," << shared << "," << per_link << std::endl;
}

} // namespace

int main(int argc, char** argv) {
  std::string which = argc > 1 ? argv[1] : "all";
  std::cout << "figure,variable,value,rows,features,depth,buckets,tables,"
               "compute_s,rounds,online_bytes,shared_link_s,per_link_s\n";
  auto wants = [&](const char* v) { return which == "all" || which == v; };
  // Fig. 6: N (Syn^A: J = 80, D = 2, B = 32, T = 10).
  if (wants("N"))
    for (std::size_t n : {1000, 2500, 5000, 10000, 20000})
      measure("6", "N", static_cast<double>(n), {n, 80, 2, 32, 10});
  // Fig. 7: J (Syn^A, N = 10,000).
  if (wants("J"))
    for (std::size_t j : {10, 20, 40, 80})
      measure("7", "J", static_cast<double>(j), {10000, j, 2, 32, 10});
  // Figs. 8a/9a: D (Syn^C: J = 40), N = 5,000.
  if (wants("D"))
    for (int d : {1, 2, 3, 4, 5})
      measure("8a", "D", d, {5000, 40, d, 32, 10});
  // Figs. 8b/9b: B (D = 2).
  if (wants("B"))
    for (int b : {8, 16, 32, 64, 128})
      measure("8b", "B", b, {5000, 40, 2, b, 10});
  // Figs. 8c/9c: T = 5 … 25 (D = 2, B = 32).
  if (wants("T"))
    for (int t : {5, 10, 15, 20, 25})
      measure("8c", "T", t, {5000, 40, 2, 32, t});
  return 0;
}
