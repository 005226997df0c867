// LDP boosting at scale (issue 17): a data user and L owner actors in one
// process (actors/ldpboost_party.cpp), each owner with S rows of the spec's
// synthetic data (§7.3). Reports the resident memory the owners add (per
// owner: their actors, roles and rows, after the roster), the time to open
// the session (spawning and the roster), and the time per boosting round
// at the given H (owners asked per attempt), nearest centroid through the
// Piecewise mechanism at epsilon 5.
//
// usage: veil-bench-ldpboost-scale [owners 100000] [H 2000] [rounds 10]
//                                  [samples_per_owner 4]
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <unistd.h>

#include "actors/ldpboost_session.hpp"
#include "learners/data/synthetic.hpp"
#include "protocols/ldpboost/deal.hpp"

namespace lb = veil::protocols::ldpboost;
namespace learners = veil::learners;
namespace actors = veil::actors;

namespace {

/// Resident set size in bytes (/proc/self/statm).
double resident_bytes() {
  std::ifstream in("/proc/self/statm");
  double pages = 0, resident = 0;
  in >> pages >> resident;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t)
      .count();
}

} // namespace

int main(int argc, char** argv) {
  auto arg = [&](int i, double fallback) {
    return argc > i ? std::stod(argv[i]) : fallback;
  };
  const auto owners = static_cast<std::size_t>(arg(1, 100000));
  lb::params p;
  p.owners_per_round = static_cast<std::size_t>(arg(2, 2000));
  p.rounds = static_cast<int>(arg(3, 10));
  const auto per_owner = static_cast<std::size_t>(arg(4, 4));
  p.base = lb::learner::ncc;
  p.mech = lb::mechanism::piecewise;
  p.epsilon = 5;

  learners::classification_spec spec;
  spec.rows = owners * per_owner + 20000;
  spec.features = 20;
  spec.informative = 10;
  spec.redundant = 10;
  spec.seed = 1;
  int classes = 2;
  auto all =
      lb::rows_of(learners::make_classification(spec), "synthetic", classes);
  auto train = lb::slice(all, 0, owners * per_owner);
  auto user = lb::slice(all, owners * per_owner, 10000);
  auto test = lb::slice(all, owners * per_owner + 10000, 10000);
  auto dealt = lb::deal_owners(train, per_owner, user, test);
  all = {};
  train = {};

  actors::ldpboost_config cfg;
  cfg.params = p;
  cfg.parties = std::move(dealt.parties);
  cfg.timeout = std::chrono::seconds(60);
  double before = resident_bytes();
  auto t0 = std::chrono::steady_clock::now();
  actors::ldpboost_session s;
  if (!s.open(std::move(cfg))) {
    std::cerr << "veil-bench-ldpboost-scale: " << s.close().error << "\n";
    return 1;
  }
  double open_seconds = seconds_since(t0);
  double after = resident_bytes();
  if (!s.train()) {
    std::cerr << "veil-bench-ldpboost-scale: " << s.close().error << "\n";
    return 1;
  }
  const auto& r = s.result();
  double attempts =
      static_cast<double>(r.burned) / static_cast<double>(p.owners_per_round);
  std::cout << std::fixed << std::setprecision(3) << owners << " owners of "
            << per_owner << " rows, H = " << p.owners_per_round
            << ", NCC through Piecewise at eps 5, one process\n"
            << "  resident memory the owners add: " << (after - before) / 1e6
            << " MB, " << (after - before) / static_cast<double>(owners)
            << " bytes per owner (its actor, role, rows; the session's "
               "given data freed)\n"
            << "  open (spawn every party, hand out the roster): "
            << open_seconds << " s\n"
            << "  training: " << r.ensemble.size() << " rounds accepted in "
            << attempts << " attempts, " << r.train_seconds
            << " s: " << r.train_seconds / attempts << " s per attempt of "
            << p.owners_per_round << " owners\n"
            << "  test error by round:";
  for (auto e : r.staged_test_errors)
    std::cout << " " << e;
  std::cout << "\n";
  auto out = s.close();
  return out.ok() ? 0 : 1;
}
