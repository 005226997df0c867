// The MPC runtime (spec privet §4.1–4.3, §8.4 items 1–2 and 17): fixed
// point round trips, sharing and openings exact at every party count,
// rounds and words counted as the cost model has them, the dealer's
// correlations consistent and fresh per call, and parties that fall out of
// step stopped with an error instead of a hang.
#include <boost/test/unit_test.hpp>

#include <stdexcept>

#include "tests/protocols/mpc/support.hpp"

using namespace veil::test::mpc;

BOOST_AUTO_TEST_SUITE(mpc)
BOOST_AUTO_TEST_SUITE(runtime)

BOOST_AUTO_TEST_CASE(fixed_point_round_trips) {
  for (double x : {0.0, 1.0, -1.0, 0.5, -3.25, 1e6, -1e6, 4e12, -4e12})
    BOOST_TEST(decode(encode(x)) == x);
  BOOST_TEST(encode(-1.0) == ~word{0} - (word{1} << 20) + 1);
  BOOST_TEST(decode(encode(1.0 / 3)) ==
             std::ldexp(std::llround(std::ldexp(1.0 / 3, 20)), -20));
  BOOST_CHECK_THROW(encode(0x1p43), std::invalid_argument);
  BOOST_CHECK_THROW(encode(std::nan("")), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(sharing_and_opening_are_exact) {
  std::mt19937_64 g(1);
  for (int n : party_counts) {
    words x(100);
    for (auto& v : x)
      v = g();
    traffic t;
    auto got = run_on(
        n, {x},
        [](party& p, std::vector<words> s) -> task<words> {
          co_return co_await p.open(s[0]);
        },
        &t);
    BOOST_TEST(got == x);
    // share_from: n − 1 vectors; open: every party to every other.
    BOOST_TEST(t.rounds == 2u);
    BOOST_TEST(t.words == (n - 1) * 100u + n * (n - 1) * 100u);
  }
}

BOOST_AUTO_TEST_CASE(reveal_to_one_party_only) {
  for (int n : party_counts) {
    local_network net(n, 3);
    words x{5, 6, ~word{0}};
    auto out = net.run<words>([&](party& p) -> task<words> {
      words mine;
      if (p.id() == n - 1)
        mine = x;
      auto s = co_await p.share_from(n - 1, std::move(mine), 3);
      co_return co_await p.reveal_to(1, s);
    });
    for (int p = 0; p < n; ++p)
      BOOST_TEST((out[static_cast<std::size_t>(p)] == (p == 1 ? x : words{})));
    BOOST_TEST(net.traffic().words == 2u * (n - 1) * 3);
  }
}

BOOST_AUTO_TEST_CASE(correlations_are_consistent_and_fresh) {
  for (int n : party_counts) {
    dealer d(n, 11);
    std::vector<std::unique_ptr<correlations>> c;
    for (int p = 0; p < n; ++p)
      c.push_back(std::make_unique<correlations>(p, n, d.seed_of(p)));
    // What party::correlated does: the last party's request answered.
    auto next = [&](std::size_t p, item kind, std::size_t count) {
      correlation_request request;
      auto mine = c[p]->next(kind, count, request);
      if (c[p]->needs_corrections())
        correlations::correct(mine, kind, count, d.answer(request));
      return mine;
    };
    const std::size_t k = 200;
    for (int call = 0; call < 2; ++call) {
      std::vector<shares_of> t, r, b, db;
      for (std::size_t p = 0; p < c.size(); ++p) {
        t.push_back(next(p, item::triple, k));
        r.push_back(next(p, item::truncation, k));
        b.push_back(next(p, item::bit_triple, k));
        db.push_back(next(p, item::dabit, k));
      }
      for (std::size_t j = 0; j < k; ++j) {
        word a = 0, bb = 0, cc = 0, r0 = 0, theta = 0, mu = 0, xa = 0, xb = 0,
             xc = 0, rho = 0, rho_a = 0;
        __int128 signed_sum = 0;
        for (int p = 0; p < n; ++p) {
          auto q = static_cast<std::size_t>(p);
          a += t[q].parts[0][j];
          bb += t[q].parts[1][j];
          cc += t[q].parts[2][j];
          r0 += r[q].parts[0][j];
          signed_sum += to_signed(r[q].parts[0][j]);
          theta += r[q].parts[1][j];
          mu += r[q].parts[2][j];
          xa ^= b[q].parts[0][j];
          xb ^= b[q].parts[1][j];
          xc ^= b[q].parts[2][j];
          rho ^= db[q].parts[0][j];
          rho_a += db[q].parts[1][j];
        }
        BOOST_TEST(cc == a * bb);
        BOOST_TEST(theta == static_cast<word>(static_cast<std::int64_t>(
                                (signed_sum - to_signed(r0)) >> 64)));
        BOOST_TEST(mu == (r0 >> 63));
        BOOST_TEST(xc == (xa & xb));
        BOOST_TEST(rho <= 1u);
        BOOST_TEST(rho_a == rho);
      }
    }
    // Three corrected parts per triple... one word per item for c; two for
    // truncation; one each for bit triples and daBits; two calls.
    BOOST_TEST(d.correction_words() == 2 * k * (1 + 2 + 1 + 1));
    // Fresh per call: the second call's triples differ from the first's.
    auto first = next(0, item::triple, 4);
    auto second = next(0, item::triple, 4);
    BOOST_TEST(first.parts[0] != second.parts[0]);
  }
}

BOOST_AUTO_TEST_CASE(masks_edabits_and_their_products_are_consistent) {
  for (int n : party_counts) {
    dealer d(n, 13);
    std::vector<std::unique_ptr<correlations>> c;
    for (int p = 0; p < n; ++p)
      c.push_back(std::make_unique<correlations>(p, n, d.seed_of(p)));
    auto next = [&](std::size_t p, correlation_request spec) {
      auto mine = c[p]->next(spec);
      if (c[p]->needs_corrections() && corrected(spec.kind))
        correlations::correct(mine, spec.kind, spec.count, d.answer(spec));
      return mine;
    };
    const std::size_t k = 300;
    auto spec_of = [&](item kind, int bits = 0) {
      correlation_request r;
      r.kind = kind;
      r.count = k;
      r.bits = bits;
      return r;
    };
    std::vector<shares_of> eda, sel, tm, m, bm1, bm2, cross, bcross;
    for (std::size_t p = 0; p < c.size(); ++p) {
      eda.push_back(next(p, spec_of(item::edabit)));
      sel.push_back(next(p, spec_of(item::selection)));
      tm.push_back(next(p, spec_of(item::trunc_mask, 27)));
      m.push_back(next(p, spec_of(item::mask)));
      bm1.push_back(next(p, spec_of(item::bit_mask)));
      bm2.push_back(next(p, spec_of(item::bit_mask)));
      auto x = spec_of(item::cross);
      x.operands = {{item::trunc_mask, tm[p].call, k, 27, 2},
                    {item::mask, m[p].call, k, 0, 0}};
      cross.push_back(next(p, x));
      auto b = spec_of(item::bit_cross);
      b.operands = {{item::bit_mask, bm1[p].call, k, 0, 0},
                    {item::bit_mask, bm2[p].call, k, 0, 0}};
      bcross.push_back(next(p, b));
    }
    for (std::size_t j = 0; j < k; ++j) {
      word s_xor = 0, s_sum = 0, rho_bit = 0, rho = 0, beta = 0, rb = 0, r = 0,
           low = 0, mu = 0, mask = 0, x = 0, b1 = 0, b2 = 0, bx = 0;
      for (std::size_t p = 0; p < c.size(); ++p) {
        s_xor ^= eda[p].parts[0][j];
        s_sum += eda[p].parts[1][j];
        rho_bit ^= sel[p].parts[0][j];
        rho += sel[p].parts[1][j];
        beta += sel[p].parts[2][j];
        rb += sel[p].parts[3][j];
        r += tm[p].parts[0][j];
        low += tm[p].parts[1][j];
        mu += tm[p].parts[2][j];
        mask += m[p].parts[0][j];
        x += cross[p].parts[0][j];
        b1 ^= bm1[p].parts[0][j];
        b2 ^= bm2[p].parts[0][j];
        bx ^= bcross[p].parts[0][j];
      }
      BOOST_TEST(s_sum == s_xor);
      BOOST_TEST(rho_bit <= 1u);
      BOOST_TEST(rho == rho_bit);
      BOOST_TEST(rb == rho * beta);
      BOOST_TEST(low == ((r & ~(word{1} << 63)) >> 27));
      BOOST_TEST(mu == (r >> 63));
      BOOST_TEST(x == mu * mask);
      BOOST_TEST(bx == (b1 & b2));
    }
  }
}

BOOST_AUTO_TEST_CASE(parties_out_of_step_fail_loudly) {
  std::function<task<words>(party&)> extra_open = [](party& p) -> task<words> {
    words w{1};
    if (p.id() == 2) // one party opens once more
      w = co_await p.open(w);
    co_return co_await p.open(w);
  };
  local_network net(3, 5);
  BOOST_CHECK_THROW(net.run<words>(extra_open), std::logic_error);
  std::function<task<words>(party&)> broken = [](party& p) -> task<words> {
    if (p.id() == 1)
      throw std::runtime_error("party 1 broke");
    words w{1};
    co_return co_await p.open(w);
  };
  local_network again(3, 5);
  BOOST_CHECK_THROW(again.run<words>(broken), std::runtime_error);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
