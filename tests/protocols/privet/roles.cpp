// Privet's roles (protocols/privet/roles.hpp): n computing parties and the
// dealer exchanging their messages — delivered in a random order across
// pairs, in order within each pair, as actors would — train the very model
// the in-process runtime trains from the same seeds (every party's leaf
// shares bit for bit) and predict the same scores, opened to the label
// holder only; a message out of turn is refused, naming the step.
#include <boost/test/unit_test.hpp>

#include <random>

#include "protocols/mpc/local_network.hpp"
#include "protocols/privet/roles.hpp"
#include "tests/protocols/privet/support.hpp"
#include "tests/support/pump.hpp"
#include "tests/support/text.hpp"

namespace mpc = veil::protocols::mpc;
namespace pv = veil::protocols::privet;
namespace learners = veil::learners;
using veil::test::privet::deal;

namespace {
using veil::test::contains;
} // namespace

namespace {

learners::dataset synthetic(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z(0, 1);
  learners::dataset d(n, {"a", "b", "c", "d", "e"});
  d.labels().resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < 5; ++j)
      d.value(i, j) = static_cast<float>(z(g));
    d.labels()[i] = d.value(i, 0) + d.value(i, 3) > 0 ? 1.0f : 0.0f;
  }
  return d;
}

} // namespace

BOOST_AUTO_TEST_SUITE(privet)
BOOST_AUTO_TEST_SUITE(roles)

BOOST_AUTO_TEST_CASE(roles_train_what_the_runtime_trains) {
  const int n = 3;
  const std::uint64_t seed = 41;
  auto train = synthetic(120, 1), test = synthetic(30, 2);
  auto tr = deal(train, n), te = deal(test, n);
  pv::params p;
  p.tables = 2;
  p.depth = 2;
  p.buckets = 4;

  // The runtime in one process.
  mpc::local_network net(n, seed);
  std::vector<pv::party_model> direct(n);
  auto direct_scores =
      net.run<mpc::words>([&](mpc::party& self) -> mpc::task<mpc::words> {
        auto me = static_cast<std::size_t>(self.id());
        auto m = co_await pv::train(self, p, tr.map, tr.parts[me]);
        direct[me] = m;
        co_return co_await pv::infer(self, m, te.map, te.parts[me], p.depth);
      });

  for (bool ahead : {false, true}) {
    BOOST_TEST_CONTEXT("dealer ahead " << ahead) {
      // The roles, messages delivered in a random order across pairs.
      std::vector<std::unique_ptr<pv::computing_party>> parties;
      for (int q = 0; q < n; ++q)
        parties.push_back(std::make_unique<pv::computing_party>(
            q, n, p, tr.map, tr.parts[static_cast<std::size_t>(q)], seed + 17));
      // The dealer answers training's requests ahead (before the seeds), or
      // each when the last party asks.
      pv::dealer_role dealer(n, seed);
      if (ahead)
        dealer.answer_ahead(pv::training_requests(p, tr.map, train.rows(), n));
      veil::test::pump<pv::message, pv::envelope,
                       veil::protocols::outcome<pv::outbox>>
          pump(7);
      for (int q = 0; q < n; ++q)
        pump.add(q, [&, q](int from, const pv::message& m) {
          return parties[static_cast<std::size_t>(q)]->on_message(from, m);
        });
      pump.add(n, [&](int from, const pv::message& m) {
        return dealer.on_message(from, m);
      });
      // The dealer's seeds go out before the parties' train steps: a party
      // waits for both.
      pump.post(n, dealer.start());
      for (int q = 0; q < n; ++q) {
        auto r = parties[static_cast<std::size_t>(q)]->start();
        BOOST_REQUIRE(r);
        pump.post(q, std::move(*r));
      }
      // The last party is asked to predict before its training ends (a
      // session may ask it once the label holder is done): it predicts after.
      auto early = parties[n - 1]->start_predict(te.parts[n - 1]);
      BOOST_REQUIRE(early);
      BOOST_TEST(early->empty());
      pump.run();
      BOOST_TEST((dealer.asks() == 0) == ahead);
      for (int q = 0; q < n; ++q) {
        const auto& role = *parties[static_cast<std::size_t>(q)];
        BOOST_REQUIRE(role.trained());
        for (std::size_t t = 0; t < direct[0].tables.size(); ++t) {
          BOOST_TEST(role.model().tables[t].features ==
                     direct[static_cast<std::size_t>(q)].tables[t].features);
          BOOST_TEST(role.model().tables[t].leaves ==
                     direct[static_cast<std::size_t>(q)].tables[t].leaves);
        }
      }
      for (int q = 0; q + 1 < n; ++q) {
        auto r = parties[static_cast<std::size_t>(q)]->start_predict(
            te.parts[static_cast<std::size_t>(q)]);
        BOOST_REQUIRE(r);
        pump.post(q, std::move(*r));
      }
      // The last party is asked again while its first prediction is under
      // way: the second starts after it.
      auto again = parties[n - 1]->start_predict(te.parts[n - 1]);
      BOOST_REQUIRE(again);
      BOOST_TEST(again->empty());
      pump.run();
      // The scores go to the label holder only: the sum of the runtime's
      // shares there, nothing elsewhere.
      mpc::words sum(direct_scores[0].size(), 0);
      for (const auto& s : direct_scores)
        sum = mpc::add(sum, s);
      BOOST_TEST(parties[0]->scores() == sum);
      BOOST_TEST(parties[0]->predicted_margins() == mpc::decode_all(sum));
      for (int q = 1; q < n; ++q)
        BOOST_TEST(parties[static_cast<std::size_t>(q)]->scores().empty());
      BOOST_TEST(dealer.correction_words() == net.dealer_words());
      // The second prediction: the same rows, fresh masks, the same sums.
      for (int q = 0; q + 1 < n; ++q) {
        auto r = parties[static_cast<std::size_t>(q)]->start_predict(
            te.parts[static_cast<std::size_t>(q)]);
        BOOST_REQUIRE(r);
        pump.post(q, std::move(*r));
      }
      pump.run();
      BOOST_REQUIRE(parties[0]->predicted());
      BOOST_TEST(parties[0]->scores() == sum);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_dealers_dry_run_finds_the_requests_of_training) {
  // The requests depend on the public shapes only: a dry run on rows of
  // zeros asks what training on the data asks, in order.
  const int n = 4;
  auto train = synthetic(90, 5);
  auto tr = deal(train, n);
  pv::params p;
  p.tables = 2;
  p.depth = 3;
  p.buckets = 6;
  mpc::local_network net(n, 3);
  net.run<pv::party_model>([&](mpc::party& self) {
    return pv::train(self, p, tr.map,
                     tr.parts[static_cast<std::size_t>(self.id())]);
  });
  auto dry = pv::training_requests(p, tr.map, train.rows(), n);
  BOOST_REQUIRE(dry.size() == net.requests().size());
  BOOST_TEST(!dry.empty());
  for (std::size_t i = 0; i < dry.size(); ++i) {
    const auto &a = dry[i], &b = net.requests()[i];
    BOOST_TEST((a.kind == b.kind && a.call == b.call && a.count == b.count &&
                a.owner == b.owner && a.length == b.length),
               "request " << i);
  }
}

BOOST_AUTO_TEST_CASE(messages_out_of_turn_are_refused) {
  auto d = synthetic(20, 3);
  auto tr = deal(d, 2);
  pv::params p;
  p.tables = 1;
  p.depth = 1;
  p.buckets = 2;
  pv::computing_party a(0, 2, p, tr.map, tr.parts[0], 5);
  // Round 0 may come before the dealer's seed (it waits); round 5 cannot,
  // nor a second round 0.
  BOOST_TEST(static_cast<bool>(a.on_message(1, pv::round_words{0, {1, 2}})));
  auto ahead = a.on_message(1, pv::round_words{5, {1, 2}});
  BOOST_REQUIRE(!ahead);
  BOOST_TEST(ahead.error().step == "round_words");
  BOOST_TEST(!a.on_message(1, pv::round_words{0, {3}}));
  BOOST_TEST(static_cast<bool>(a.start()));
  auto again = a.start();
  BOOST_REQUIRE(!again);
  BOOST_TEST(again.error().step == "train");
  auto seed = a.on_message(1, pv::dealer_seed{std::vector<std::uint8_t>(32)});
  BOOST_TEST(!seed); // a seed from a party, not the dealer
  pv::dealer_role dealer(2, 9);
  auto ask = dealer.on_message(0, pv::correlation_ask{0, 0, 4, -1, 0, 0, {}});
  BOOST_TEST(!ask); // only the last party asks
  auto wrong =
      dealer.on_message(1, pv::correlation_ask{99, 0, 4, -1, 0, 0, {}});
  BOOST_TEST(!wrong);
}

BOOST_AUTO_TEST_CASE(cross_product_asks_travel_and_bad_ones_are_refused) {
  mpc::correlation_request r;
  r.kind = mpc::item::bit_cross;
  r.call = 17;
  r.count = 6;
  r.operands = {{mpc::item::bit_mask, 3, 6, 0, 0},
                {mpc::item::bit_mask, 4, 6, 0, 0},
                {mpc::item::bit_mask, 9, 6, 0, 0}};
  auto back = pv::request_of(pv::ask_of(r));
  BOOST_REQUIRE(back.has_value());
  BOOST_TEST((back->kind == r.kind && back->call == 17 && back->count == 6));
  BOOST_REQUIRE(back->operands.size() == 3u);
  BOOST_TEST(back->operands[2].call == 9u);
  // The dealer answers it: one word per item.
  pv::dealer_role dealer(2, 9);
  auto answer = dealer.on_message(1, pv::ask_of(r));
  BOOST_REQUIRE(static_cast<bool>(answer));
  auto& words = std::get<pv::correlation_answer>(answer->at(0).msg).words;
  BOOST_TEST(words.size() == 6u);
  // Operands not a whole number of components, of no kind, or a product
  // of masks of other lengths: refused, naming the ask.
  auto ragged = pv::ask_of(r);
  ragged.operands.pop_back();
  BOOST_TEST(!pv::request_of(ragged).has_value());
  auto unknown = pv::ask_of(r);
  unknown.operands[0] = 77;
  BOOST_TEST(!pv::request_of(unknown).has_value());
  // A call is answered once: asked again (with other operands, which
  // would give the difference of two products), refused.
  r.operands[1].call = 5;
  auto again = dealer.on_message(1, pv::ask_of(r));
  BOOST_REQUIRE(!again);
  BOOST_TEST(again.error().step == "correlation_ask");
  BOOST_TEST(contains(again.error().reason, "answered already"));
  r.call = 18;
  r.operands[1].count = 5;
  auto uneven = dealer.on_message(1, pv::ask_of(r));
  BOOST_REQUIRE(!uneven);
  BOOST_TEST(uneven.error().step == "correlation_ask");
  // A product of a truncation mask only with the shift it was dealt with.
  mpc::correlation_request t;
  t.kind = mpc::item::trunc_mask;
  t.call = 0;
  t.count = 6;
  t.bits = 20;
  BOOST_REQUIRE(static_cast<bool>(dealer.on_message(1, pv::ask_of(t))));
  mpc::correlation_request x;
  x.kind = mpc::item::cross;
  x.call = 0;
  x.count = 6;
  x.operands = {{mpc::item::trunc_mask, 0, 6, 21, 1},
                {mpc::item::mask, 0, 6, 0, 0}};
  auto shifted = dealer.on_message(1, pv::ask_of(x));
  BOOST_REQUIRE(!shifted);
  BOOST_TEST(contains(shifted.error().reason, "not dealt with that shift"));
  x.operands[0].bits = 20;
  BOOST_TEST(static_cast<bool>(dealer.on_message(1, pv::ask_of(x))));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
