// A star of 10,000 parties in one process on the shared party runtime
// (actors/support.hpp): one roster message for all, each leaf linked to the
// hub only, a small exchange per party (the hub asks every leaf, each
// answers with its index), byte counts that add up, and a clean end. A
// leaf that dies mid-session ends the session with its name.
#include <boost/test/unit_test.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <caf/event_based_actor.hpp>
#include <caf/make_message.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/errors.hpp"
#include "actors/support.hpp"
#include "messages/opboost.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "protocols/outcome.hpp"
#include "tests/actors/fixture.hpp"

using namespace veil;
using namespace std::chrono_literals;
using test::actor_fixture;
namespace op = veil::protocols::opboost;
namespace sess = veil::protocols::session;

namespace {

/// A party of the load test: the hub (index 0) asks every leaf for one
/// value; a leaf answers with its index; the hub reports their sum.
struct star_state : actors::peer_state {
  bool joined = false;
  std::size_t missing = 0;
  std::uint64_t sum = 0;
  bool has_role() const { return joined; }
};

using star_actor = caf::stateful_actor<star_state>;

void report_sum(star_actor* self) {
  auto& st = self->state;
  if (st.training && st.missing == 0) {
    st.training = false;
    self->send(st.coordinator, st.sum);
  }
}

caf::behavior star_party(star_actor* self, std::string name) {
  self->state.me = std::move(name);
  actors::watch_peers(self);
  return {
      [=](veil::messages::peers_atom, const sess::roster& r,
          const std::vector<caf::actor>& handles) -> caf::result<caf::ok_atom> {
        auto at =
            actors::check_roster(self->state.me, r, handles, self->address());
        if (!at)
          return std::move(at.error());
        self->state.join(self, r, handles, *at);
        self->state.joined = true;
        actors::keep_watch(self);
        return caf::ok_atom::value;
      },
      [=](veil::messages::train_atom) {
        actors::begin_work(
            self, &actors::peer_state::training,
            [self] {
              auto& st = self->state;
              op::outbox out;
              for (const auto& n : st.neighbours)
                out.push_back({n.index, op::split_request{{0}, {1}}});
              st.missing = out.size();
              return out;
            },
            report_sum);
      },
      [=](veil::messages::tick_atom, std::uint64_t epoch) {
        actors::on_tick(self, epoch);
      },
      [=](veil::messages::stats_atom) {
        const auto& st = self->state;
        return actors::byte_stats_of(st.me, st.bytes, st.links,
                                     st.busy_seconds);
      },
      [=](op::split_request& x) {
        actors::handle_wire<op::failure>(
            self, op::message{std::move(x)},
            [self](std::int32_t from,
                   const op::message&) -> protocols::outcome<op::outbox> {
              auto mine = static_cast<double>(self->state.index);
              return op::outbox{{from, op::split_values{{mine}}}};
            },
            [](star_actor*) {});
      },
      [=](op::split_values& x) {
        actors::handle_wire<op::failure>(
            self, op::message{std::move(x)},
            [self](std::int32_t,
                   const op::message& m) -> protocols::outcome<op::outbox> {
              auto& st = self->state;
              st.sum += static_cast<std::uint64_t>(
                  std::get<op::split_values>(m).values.at(0));
              --st.missing;
              return op::outbox{};
            },
            report_sum);
      },
  };
}

struct load_outcome {
  std::optional<std::uint64_t> result;
  sess::errc code = sess::errc::none;
  std::string error;
  bool ok() const { return result.has_value(); }
};

struct load_run {
  load_outcome out;
  double seconds = 0;
  std::vector<sess::byte_stats> stats;
};

/// Spawns `n` parties (the hub first), hands out one roster, has the hub
/// ask every leaf, gathers the byte counts and ends every party. `kill`:
/// a leaf to end before training (none: 0).
load_run run_star(caf::actor_system& sys, std::size_t n, std::size_t kill = 0) {
  load_run run;
  auto t0 = std::chrono::steady_clock::now();
  caf::scoped_actor self{sys};
  std::vector<caf::actor> parties;
  std::vector<std::string> names;
  for (std::size_t q = 0; q < n; ++q) {
    names.push_back(q == 0 ? "hub" : "leaf" + std::to_string(q));
    parties.push_back(sys.spawn(star_party, names.back()));
  }
  for (auto& p : parties)
    self->monitor(p);
  actors::session_driver<load_outcome> d{self, parties, names, 30s,
                                         std::nullopt};
  sess::roster roster{-1, names, 30000, {}, 0, {}};
  auto message = caf::make_message(veil::messages::peers_atom::value,
                                   std::move(roster), parties);
  d.ask_all<caf::ok_atom>(
      "roster", [&](std::size_t) { return message; },
      [](std::size_t, caf::ok_atom) {});
  if (kill > 0 && !d.error)
    self->send_exit(parties[kill], caf::exit_reason::kill);
  if (!d.error) {
    d.step = "train";
    self->send(parties[0], veil::messages::train_atom::value);
    d.await_each<std::uint64_t>(
        {0}, [&](std::size_t, std::uint64_t sum) { run.out.result = sum; });
  }
  run.stats.resize(n);
  if (!d.error)
    d.ask_all<sess::byte_stats>(
        "stats",
        [](std::size_t) {
          return std::make_tuple(veil::messages::stats_atom::value);
        },
        [&](std::size_t c, sess::byte_stats& s) {
          run.stats[c] = std::move(s);
        });
  run.out = d.finish(d.error ? std::move(*d.error) : std::move(run.out));
  run.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  return run;
}

double peak_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0; // KiB on Linux
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(star_load, actor_fixture)

BOOST_AUTO_TEST_CASE(ten_thousand_parties_start_run_and_end) {
  constexpr std::size_t n = 10000;
  auto run = run_star(sys, n);
  BOOST_REQUIRE_MESSAGE(run.out.ok(), run.out.error);
  // Every leaf answered exactly once: the sum of 1 .. n-1.
  BOOST_TEST(*run.out.result == std::uint64_t{n * (n - 1) / 2});
  BOOST_REQUIRE_EQUAL(run.stats.size(), n);
  std::uint64_t sent = 0, received = 0;
  for (std::size_t q = 0; q < n; ++q) {
    sent += run.stats[q].total_sent();
    received += run.stats[q].total_received();
    // A leaf's one link is to the hub; the hub's go to every leaf.
    BOOST_REQUIRE_EQUAL(run.stats[q].link_peers.size(),
                        (q == 0 ? n - 1 : std::size_t{1}));
  }
  BOOST_TEST(sent == received);
  BOOST_TEST_MESSAGE(n << " parties: " << run.seconds << " s, peak "
                       << peak_mib() << " MiB (whole test process)");
}

BOOST_AUTO_TEST_CASE(a_leaf_that_dies_ends_the_session_naming_it) {
  auto run = run_star(sys, 200, 17);
  BOOST_REQUIRE(!run.out.ok());
  BOOST_TEST(run.out.error.find("leaf17") != std::string::npos, run.out.error);
}

BOOST_AUTO_TEST_SUITE_END()
