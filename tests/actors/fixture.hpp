#pragma once

// What the actor tests share: an actor system (2 scheduler threads, Veil's
// types registered), party specs that deal one table's columns out in
// order, and the comparison of a federated model with a centralized one.

#include <boost/test/unit_test.hpp>

#include <map>
#include <numeric>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "actors/party.hpp"
#include "learners/boost/model.hpp"
#include "learners/data/csv_reader.hpp"
#include "messages/register.hpp"

namespace veil::test {

struct actor_config : caf::actor_system_config {
  actor_config() {
    veil::messages::register_types(*this);
    set("scheduler.max-threads", 2);
  }
};

/// An actor system per test case; parties spawned by name.
struct actor_fixture {
  actor_config cfg;
  caf::actor_system sys{cfg};

  std::vector<caf::actor> spawn_parties(const actors::session_config& c) {
    std::vector<caf::actor> v;
    for (const auto& p : c.parties)
      v.push_back(actors::spawn_party(sys, p.name));
    return v;
  }

  actors::session_outcome run(const actors::session_config& c,
                              const actors::progress_fn& f = {}) {
    return actors::run_session(sys, spawn_parties(c), c, f);
  }
};

/// Party q of `bounds.size() - 1` holds the feature columns
/// [bounds[q], bounds[q+1]) of `names`; party 0 also holds `label`. Parties
/// are named p0, p1, ...
inline actors::session_config
column_split(const std::string& train, const std::string& test,
             const std::vector<std::string>& names,
             const std::vector<std::size_t>& bounds, const std::string& label,
             const std::string& id = {}) {
  actors::session_config c;
  c.export_splits = true; // require_same_model reads the thresholds
  for (std::size_t q = 0; q + 1 < bounds.size(); ++q) {
    actors::party_spec p;
    p.name = "p" + std::to_string(q);
    p.data.path = train;
    p.data.id_column = id;
    p.data.label_column = q == 0 ? label : "";
    p.data.feature_columns.assign(names.begin() + bounds[q],
                                  names.begin() + bounds[q + 1]);
    p.test_path = test;
    c.parties.push_back(p);
  }
  c.eval = test.empty() ? actors::evaluation::train : actors::evaluation::test;
  return c;
}

/// Requires the federated model of `r` to equal `central` split for split:
/// structure, leaf values, features, default directions and (from the
/// owners' split tables) thresholds; each split is owned by the party whose
/// columns hold its feature.
inline void require_same_model(const protocols::session::session_result& r,
                               const learners::model& central,
                               const std::vector<std::size_t>& bounds) {
  const auto& fed = r.model;
  BOOST_REQUIRE_EQUAL(fed.trees.size(), central.trees.size());
  BOOST_TEST(fed.base_margin == central.base_margin);
  std::vector<std::map<std::pair<int, int>, float>> thresholds(r.splits.size());
  for (std::size_t q = 0; q < r.splits.size(); ++q)
    for (const auto& s : r.splits[q].splits)
      thresholds[q][{s.tree, s.node}] = s.threshold;
  std::size_t splits = 0;
  for (std::size_t t = 0; t < fed.trees.size(); ++t) {
    const auto& a = fed.trees[t].nodes;
    const auto& b = central.trees[t].nodes;
    BOOST_REQUIRE_MESSAGE(a.size() == b.size(), "tree " << t << " size");
    for (std::size_t i = 0; i < a.size(); ++i) {
      BOOST_REQUIRE_MESSAGE(a[i].is_leaf() == b[i].is_leaf(),
                            "tree " << t << " node " << i);
      BOOST_REQUIRE_EQUAL(a[i].value, b[i].value);
      if (a[i].is_leaf())
        continue;
      ++splits;
      BOOST_REQUIRE_EQUAL(a[i].feature, b[i].feature);
      BOOST_REQUIRE_EQUAL(a[i].default_left, b[i].default_left);
      auto owner = static_cast<std::size_t>(a[i].owner);
      BOOST_REQUIRE_LT(owner, thresholds.size());
      auto key = std::pair<int, int>(static_cast<int>(t), static_cast<int>(i));
      BOOST_REQUIRE_MESSAGE(thresholds[owner].contains(key),
                            "no threshold for tree " << t << " node " << i);
      BOOST_REQUIRE_EQUAL(thresholds[owner].at(key), b[i].threshold);
      BOOST_TEST(static_cast<std::size_t>(b[i].feature) >= bounds[owner]);
      BOOST_TEST(static_cast<std::size_t>(b[i].feature) < bounds[owner + 1]);
    }
  }
  BOOST_TEST(splits > 0u);
}

/// Byte counts: every party sent and received something, and what all
/// sent equals what all received, per message type.
inline void check_bytes(const protocols::session::session_result& r) {
  std::map<std::string, std::uint64_t> sent, received;
  BOOST_REQUIRE_EQUAL(r.bytes.size(), r.names.size());
  for (std::size_t q = 0; q < r.bytes.size(); ++q) {
    const auto& b = r.bytes[q];
    BOOST_TEST(b.party == r.names[q]);
    BOOST_TEST(b.total_sent() > 0u, b.party << " sent nothing");
    BOOST_TEST(b.total_received() > 0u, b.party << " received nothing");
    for (std::size_t k = 0; k < b.types.size(); ++k) {
      sent[b.types[k]] += b.sent[k];
      received[b.types[k]] += b.received[k];
    }
  }
  BOOST_TEST((sent == received));
  for (auto type : {"setup", "setup_done", "tree_start", "level_request",
                    "histograms", "split_query", "split_answer"})
    BOOST_TEST(sent[type] > 0u, "no " << type << " bytes");
}

} // namespace veil::test
