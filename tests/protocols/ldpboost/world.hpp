#pragma once

// LDP boosting's roles without actors, for the tests: owners of a few rows
// of make_classification data and a data user with rows of its own, their
// messages delivered in order (one owner at a time), silent owners skipped.
// The actor tests compare the session with it.

#include <boost/test/unit_test.hpp>

#include <deque>
#include <memory>
#include <set>
#include <vector>

#include "learners/data/synthetic.hpp"
#include "protocols/ldpboost/roles.hpp"

namespace veil::test::ldpboost {

namespace lb = veil::protocols::ldpboost;
namespace learners = veil::learners;

inline learners::labelled_rows rows_of(const learners::dataset& d,
                                       std::size_t from, std::size_t to) {
  learners::labelled_rows r;
  r.features = d.features();
  for (std::size_t i = from; i < to; ++i) {
    for (std::size_t j = 0; j < d.features(); ++j)
      r.x.push_back(d.value(i, j));
    r.y.push_back(static_cast<int>(d.labels()[i]));
  }
  return r;
}

struct world {
  learners::dataset data;
  std::unique_ptr<lb::data_user> user;
  std::vector<std::unique_ptr<lb::owner>> owners; // index id − 1
  std::vector<std::set<lb::party_id>> asked;      // per attempt
  std::size_t per_owner;

  world(std::size_t n_owners, std::size_t per, std::size_t user_rows,
        lb::params p, std::uint64_t seed = 3)
      : per_owner(per) {
    learners::classification_spec spec;
    spec.rows = n_owners * per + user_rows;
    spec.features = 6;
    spec.informative = 4;
    spec.redundant = 2;
    spec.seed = seed;
    data = learners::make_classification(spec);
    user = std::make_unique<lb::data_user>(
        rows_of(data, n_owners * per, spec.rows), n_owners, p, seed);
    for (std::size_t h = 0; h < n_owners; ++h)
      owners.push_back(std::make_unique<lb::owner>(
          static_cast<lb::party_id>(h + 1),
          rows_of(data, h * per, (h + 1) * per), user->bounds(), p, seed));
  }

  /// Runs to the end; `silent` owners never answer.
  void run(const std::set<lb::party_id>& silent = {}) {
    std::deque<lb::envelope> to_owners;
    auto send = [&](lb::outbox out) {
      std::set<lb::party_id> attempt;
      for (auto& e : out) {
        attempt.insert(e.to);
        to_owners.push_back(std::move(e));
      }
      if (!attempt.empty())
        asked.push_back(attempt);
    };
    send(user->start());
    while (!to_owners.empty()) {
      auto e = std::move(to_owners.front());
      to_owners.pop_front();
      veil::protocols::outcome<lb::outbox> r = lb::outbox{};
      if (silent.contains(e.to)) {
        r = user->on_silent(e.to);
      } else {
        auto answer =
            owners[static_cast<std::size_t>(e.to - 1)]->on_message(0, e.msg);
        BOOST_REQUIRE(answer);
        for (auto& a : *answer) {
          r = user->on_message(e.to, a.msg);
          BOOST_REQUIRE(r);
        }
      }
      BOOST_REQUIRE(r);
      send(std::move(*r));
    }
  }

  /// The selected owners' rows of attempt `a`, scaled as the protocol.
  learners::labelled_rows pooled(std::size_t a) const {
    learners::labelled_rows all;
    all.features = data.features();
    for (auto id : asked[a]) {
      auto r = user->bounds().apply(
          rows_of(data, static_cast<std::size_t>(id - 1) * per_owner,
                  static_cast<std::size_t>(id) * per_owner));
      all.x.insert(all.x.end(), r.x.begin(), r.x.end());
      all.y.insert(all.y.end(), r.y.begin(), r.y.end());
    }
    return all;
  }
};

} // namespace veil::test::ldpboost
