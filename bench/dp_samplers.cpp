// Speed of the Gaussian noise samplers, one draw at a time on one thread:
// dp::gaussian (Box–Muller on doubles, gaussian.hpp) against the exact
// discrete Gaussian (discrete_gaussian.hpp) at FEVERLESS's fixed-point
// scales s = sigma 2^32 (32 fractional bits) for sigma in {0.25, 1.99,
// 100}, both with the production CSPRNG (crypto::system_random), and the
// discrete one also with the test generator (crypto::seeded_random,
// ChaCha20), which shows how much of its time is spent in the generator.
// Reports ns per draw (items_per_second = draws per second) and, for the
// discrete sampler, `passes`: the expected attempts per draw
// (1 / acceptance()).
//
//   cmake --build build --target veil-bench-samplers
//   build/veil-bench-samplers [--benchmark_min_time=0.2]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <utility>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/discrete_gaussian.hpp"
#include "protocols/dp/gaussian.hpp"

namespace dp = veil::protocols::dp;
namespace crypto = veil::protocols::crypto;

namespace {

/// The engine under test, constructed in each benchmark (system_random
/// fills its buffer on first use, so construction costs nothing).
template <class Engine>
struct engine;
template <>
struct engine<crypto::system_random> {
  crypto::system_random g;
};
template <>
struct engine<crypto::seeded_random> {
  crypto::seeded_random g{42};
};

/// One 64-bit word of the engine: the unit both samplers spend.
template <class Engine>
void word(benchmark::State& state) {
  engine<Engine> e;
  for (auto _ : state)
    benchmark::DoNotOptimize(e.g());
  state.SetItemsProcessed(state.iterations());
}

/// Box–Muller: two words, a log, a sqrt and a cos per draw.
template <class Engine>
void box_muller(benchmark::State& state, double sigma) {
  engine<Engine> e;
  const double stddev = sigma * 0x1p32;
  for (auto _ : state)
    benchmark::DoNotOptimize(dp::gaussian(e.g, stddev));
  state.SetItemsProcessed(state.iterations());
}

/// The exact discrete Gaussian with s >= sigma 2^32 (about 13 words per
/// draw over about 2.08 passes).
template <class Engine>
void discrete(benchmark::State& state, double sigma) {
  engine<Engine> e;
  const auto dg = dp::discrete_gaussian::at_least(sigma * 0x1p32);
  for (auto _ : state)
    benchmark::DoNotOptimize(dg(e.g));
  state.SetItemsProcessed(state.iterations());
  state.counters["passes"] = 1 / dg.acceptance();
}

} // namespace

int main(int argc, char** argv) {
  using crypto::seeded_random;
  using crypto::system_random;
  benchmark::RegisterBenchmark("word/system_random", word<system_random>);
  benchmark::RegisterBenchmark("word/seeded_random", word<seeded_random>);
  benchmark::RegisterBenchmark("box_muller/system_random/sigma:1.99",
                               box_muller<system_random>, 1.99);
  benchmark::RegisterBenchmark("box_muller/seeded_random/sigma:1.99",
                               box_muller<seeded_random>, 1.99);
  for (auto [sigma, label] : {std::pair{0.25, "0.25"}, std::pair{1.99, "1.99"},
                              std::pair{100.0, "100"}}) {
    benchmark::RegisterBenchmark(
        ("discrete/system_random/sigma:" + std::string(label)).c_str(),
        discrete<system_random>, sigma);
    benchmark::RegisterBenchmark(
        ("discrete/seeded_random/sigma:" + std::string(label)).c_str(),
        discrete<seeded_random>, sigma);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
