// The party actor skeleton (actors/support.hpp) with a role double: a
// party's own computing time is not its peers' silence, and a party whose
// route() ended it stops there.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <thread>

#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/errors.hpp"
#include "actors/support.hpp"
#include "messages/opboost.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "protocols/outcome.hpp"
#include "tests/actors/fixture.hpp"
#include "tests/support/text.hpp"

using namespace veil;
using namespace std::chrono_literals;
using test::actor_fixture;
namespace op = veil::protocols::opboost;

namespace {

using veil::test::contains;

/// A role double: asks its peer (index 1) for split values `rounds` times,
/// computing for `work` on each answer; tells its coordinator ok when done.
struct double_state : actors::peer_state {
  std::chrono::milliseconds work{0};
  int rounds = 0;
  bool has_role() const { return true; }
};

using double_actor = caf::stateful_actor<double_state>;

void report_done(double_actor* self) {
  auto& st = self->state;
  if (st.training && st.rounds == 0) {
    st.training = false;
    self->send(st.coordinator, caf::ok_atom::value);
  }
}

/// Sets up with `handles` (its own first, its peer's second) and the
/// timeout, then starts. `start_out`: what start() returns.
caf::behavior role_double(double_actor* self, std::chrono::milliseconds work,
                          int rounds, op::outbox start_out) {
  self->state.me = "worker";
  self->state.work = work;
  self->state.rounds = rounds;
  actors::watch_peers(self);
  return {
      [=](std::vector<caf::actor>& handles, std::int64_t timeout_ms) {
        auto& st = self->state;
        protocols::session::roster r{0, {"worker", "peer"}, timeout_ms, {}, -1,
                                     {}};
        st.join(self, r, handles, 0);
        actors::begin_work(
            self, &actors::peer_state::training, [=] { return start_out; },
            report_done);
      },
      [=](veil::messages::tick_atom, std::uint64_t epoch) {
        actors::on_tick(self, epoch);
      },
      [=](op::split_values& x) {
        actors::handle_wire<op::failure>(
            self, op::message{std::move(x)},
            [self](std::int32_t,
                   const op::message&) -> protocols::outcome<op::outbox> {
              auto& st = self->state;
              std::this_thread::sleep_for(st.work); // long own work
              if (--st.rounds == 0)
                return op::outbox{};
              return op::outbox{{1, op::split_request{}}};
            },
            report_done);
      },
  };
}

/// A peer that answers each split request at once.
caf::behavior quick_peer(caf::event_based_actor* self) {
  return {
      [=](op::split_request&) {
        auto to = caf::actor_cast<caf::actor>(self->current_sender());
        self->send(to, op::split_values{});
      },
  };
}

/// Runs the double against a quick peer; the double's exit reason (none:
/// it reported ok and was then shut down).
std::string run_double(caf::actor_system& sys, std::chrono::milliseconds work,
                       int rounds, std::chrono::milliseconds timeout,
                       op::outbox start_out) {
  caf::scoped_actor self{sys};
  auto peer = sys.spawn(quick_peer);
  auto worker = sys.spawn(role_double, work, rounds, std::move(start_out));
  self->monitor(worker);
  self->send(worker, std::vector<caf::actor>{worker, peer},
             static_cast<std::int64_t>(timeout.count()));
  std::string reason = "no answer";
  bool done = false;
  while (!done)
    self->receive(
        [&](caf::ok_atom) {
          reason.clear();
          done = true;
        },
        [&](caf::down_msg& dm) {
          reason = dm.reason ? actors::describe(dm.reason) : "ended";
          done = true;
        },
        caf::after(10s) >> [&] { done = true; });
  self->send_exit(worker, caf::exit_reason::user_shutdown);
  self->send_exit(peer, caf::exit_reason::user_shutdown);
  return reason;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(skeleton, actor_fixture)

BOOST_AUTO_TEST_CASE(own_work_longer_than_the_timeout_is_no_peer_silence) {
  // Each answer takes the worker 400 ms, twice its timeout; its peer
  // answers at once.
  auto reason =
      run_double(sys, 400ms, 2, 200ms, op::outbox{{1, op::split_request{}}});
  BOOST_TEST(reason.empty(), reason);
}

BOOST_AUTO_TEST_CASE(a_silent_peer_still_times_out) {
  // The worker starts by sending nothing: its peer never speaks.
  auto t0 = std::chrono::steady_clock::now();
  auto reason = run_double(sys, 0ms, 1, 200ms, op::outbox{});
  BOOST_TEST(contains(reason, "worker heard from no peer within 0.2 s"),
             reason);
  BOOST_TEST((std::chrono::steady_clock::now() - t0 < 3s));
}

BOOST_AUTO_TEST_CASE(a_role_addressing_no_peer_ends_before_it_reports) {
  // start() addresses party 5: route() ends the actor, which must not then
  // report (after) nor tick.
  auto reason =
      run_double(sys, 0ms, 0, 200ms, op::outbox{{5, op::split_request{}}});
  BOOST_TEST(contains(reason, "addressed party 5, which is not a peer"),
             reason);
}

BOOST_AUTO_TEST_SUITE_END()
