// Peer input is validated and refused with a protocol_error, never a throw
// or an assert (spec feverless §7.3 verification, ARCHITECTURE "failure
// semantics"): tampered signatures, wrong lengths, foreign ids, mismatched
// parameters, messages out of turn. Local input errors throw input_error.
#include "tests/protocols/feverless/harness.hpp"

#include "tests/support/errors.hpp"

using namespace veil;
using namespace veil::test::fvl;

namespace {

params small() {
  params p;
  p.trees = 1;
  p.max_depth = 2;
  p.session = 5;
  p.paillier_bits = 1024; // the AHE runs: fast keys
  return p;
}

/// The paper's election: a signature per ticket.
params signed_small() {
  auto p = small();
  p.election = election_scope::signed_query;
  return p;
}

/// Trains `clients` clients (two features each) with `tamper` applied to
/// the messages; returns the refusal the pump reports ("" if none).
std::string refusal(const interceptor& tamper, const params& p = small(),
                    int clients = 3) {
  auto d = synthetic(120, 2 * static_cast<std::size_t>(clients), 2);
  auto f = make_federation(d, p, clients, balanced_owners(120, clients, 2), 2);
  return training_refusal(f, 2, tamper);
}

/// Applies `fn` to the first message of type T from `from` to `to`.
template <class T, class Fn>
interceptor first(int from, int to, Fn fn) {
  auto done = std::make_shared<bool>(false);
  return [=](int f, int t, message& m) {
    auto* x = std::get_if<T>(&m);
    if (!x || f != from || t != to || *done)
      return;
    if (fn(*x))
      *done = true;
  };
}

/// The refusal when `fn` tampers with the first NOTIFY from `from` to `to`,
/// with more clients than the chain election sends its selections with
/// LEAD for (so that it has a NOTIFY phase).
template <class Fn>
std::string notify_refusal(int from, int to, Fn fn) {
  return refusal(first<noise_notice>(from, to, fn), small(),
                 client::max_hinted_clients + 1);
}

} // namespace

BOOST_AUTO_TEST_SUITE(feverless)
BOOST_AUTO_TEST_SUITE(refusals)

BOOST_AUTO_TEST_CASE(untampered_sessions_train) {
  BOOST_TEST(refusal({}) == "");
}

BOOST_AUTO_TEST_CASE(a_tampered_lead_signature_is_refused) {
  auto e = refusal(first<lead_tickets>(1, 2,
                                       [](lead_tickets& x) {
                                         if (x.tickets.empty())
                                           return false;
                                         x.tickets[0].sig[5] ^= 1;
                                         return true;
                                       }),
                   signed_small());
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 2 refused at lead"));
  BOOST_TEST(contains(e, "party 1's lottery ticket does not verify"));
}

BOOST_AUTO_TEST_CASE(a_forged_lead_score_is_refused) {
  // A higher score with the honest signature: H(sig) != score.
  auto e = refusal(first<lead_tickets>(2, 0,
                                       [](lead_tickets& x) {
                                         if (x.tickets.empty())
                                           return false;
                                         x.tickets.back().value.fill(0xFF);
                                         return true;
                                       }),
                   signed_small());
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "refused at lead"));
}

BOOST_AUTO_TEST_CASE(a_masked_reply_of_the_wrong_length_is_refused) {
  auto e = refusal(first<masked_sums>(2, 0, [](masked_sums& x) {
    if (x.g.empty())
      return false;
    x.g.pop_back();
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 0 refused at masked"));
  BOOST_TEST(contains(e, "party 2 sent sums for"));
}

BOOST_AUTO_TEST_CASE(a_corrupt_masked_value_puts_the_aggregate_out_of_range) {
  // Spec §7.7 backstop: a flipped high bit makes the decoded sum
  // impossible (|G| far beyond |mIDs| + the noise bound).
  auto e = refusal(first<masked_sums>(1, 2, [](masked_sums& x) {
    if (x.g.empty())
      return false;
    x.g[0] ^= std::uint64_t{1} << 62;
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 2 refused at masked"));
  BOOST_TEST(contains(e, "out of range"));
}

BOOST_AUTO_TEST_CASE(tampered_thresholds_and_volunteers_are_refused) {
  auto e = refusal(first<threshold_tickets>(0, 1,
                                            [](threshold_tickets& x) {
                                              if (x.tickets.empty())
                                                return false;
                                              x.tickets[0].sig[0] ^= 0x80;
                                              return true;
                                            }),
                   signed_small());
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 1 refused at thresh"));
  e = refusal(first<noise_offers>(1, 0,
                                  [](noise_offers& x) {
                                    if (x.tickets.empty())
                                      return false;
                                    x.tickets[0].sig[9] ^= 4;
                                    return true;
                                  }),
              signed_small());
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 0 refused at noise"));
  e = notify_refusal(0, 2, [](noise_notice& x) {
    x.selected.push_back(1);
    return true;
  });
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 2 refused at notify"));
}

BOOST_AUTO_TEST_CASE(chain_selections_of_the_wrong_length_are_refused) {
  // Up to max_hinted_clients, LEAD carries the sender's selections for
  // every set of volunteers the receiver may join (n = 4: one flag per
  // unit); one byte short, or one byte with 3 clients (none due), is
  // refused and named.
  auto e = refusal(first<lead_tickets>(1, 3,
                                       [](lead_tickets& x) {
                                         if (x.selections.empty())
                                           return false;
                                         x.selections.pop_back();
                                         return true;
                                       }),
                   small(), 4);
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 3 refused at lead"));
  BOOST_TEST(contains(e, "party 1 sent "));
  BOOST_TEST(contains(e, " bytes of selections, not "));
  e = refusal(first<lead_tickets>(0, 2, [](lead_tickets& x) {
    x.selections.push_back(1);
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 0 sent 1 bytes of selections, not 0"));
}

BOOST_AUTO_TEST_CASE(a_tampered_hash_chain_reveal_is_refused) {
  // The default election: a LEAD reveal that is not the next element of
  // the sender's committed chain, its noise reveal likewise, or one element
  // replayed at the next level.
  auto e = refusal(first<lead_tickets>(1, 2, [](lead_tickets& x) {
    x.reveal[7] ^= 1;
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 2 refused at lead"));
  BOOST_TEST(contains(e, "party 1's lottery reveal does not match its "
                         "hash-chain commitment"));
  e = refusal(first<lead_tickets>(1, 0, [](lead_tickets& x) {
    x.noise_reveal[0] ^= 0x40;
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 0 refused at lead"));
  BOOST_TEST(contains(e, "party 1's noise reveal does not match its "
                         "hash-chain commitment"));
  auto first_reveal = std::make_shared<std::optional<lead_tickets>>();
  e = refusal([=](int from, int to, message& m) {
    auto* x = std::get_if<lead_tickets>(&m);
    if (!x || from != 2 || to != 0)
      return;
    if (!*first_reveal)
      *first_reveal = *x;
    else
      x->reveal = (*first_reveal)->reveal;
  });
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 0 refused at lead"));
  BOOST_TEST(contains(e, "party 2's lottery reveal does not match"));
}

BOOST_AUTO_TEST_CASE(a_chain_notice_must_flag_every_candidate_unit) {
  // Chain with more than max_hinted_clients clients: a leader's NOTIFY
  // carries one flag per unit it leads whose candidate the receiver is,
  // and no redo (the leader goes through the attempts itself): a missing
  // flag, a flag that is not 0 or 1 and a redo are refused.
  auto e = notify_refusal(0, 1, [](noise_notice& x) {
    if (x.selected.empty())
      return false;
    x.selected.pop_back();
    return true;
  });
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 1 refused at notify"));
  BOOST_TEST(contains(e, "party 0 sent the wrong number of flags"));
  e = notify_refusal(0, 1, [](noise_notice& x) {
    if (x.selected.empty())
      return false;
    x.selected[0] = 2;
    return true;
  });
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 0 sent a flag that is not 0 or 1"));
  e = notify_refusal(0, 1, [](noise_notice& x) {
    x.redo = 1;
    return true;
  });
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 0 redoes more queries than it may redo"));
}

BOOST_AUTO_TEST_CASE(signed_tickets_and_missing_commitments_are_refused) {
  // Signed tickets in a hash-chain election, an announcement without its
  // chain commitments, and one with them in a signed election.
  auto e = refusal(first<lead_tickets>(2, 1, [](lead_tickets& x) {
    x.tickets.emplace_back();
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 2 sent signed tickets to a hash-chain "
                         "election"));
  e = refusal(first<key_announce>(0, 1, [](key_announce& x) {
    x.lottery_tips.clear();
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 1 refused at key_announce"));
  // The tips are signed: dropping them breaks the signature first.
  BOOST_TEST(contains(e, "bad signature"));
  auto p = small();
  p.election = election_scope::per_batch;
  e = refusal(first<key_announce>(0, 2,
                                  [](key_announce& x) {
                                    x.lottery_tips.assign(64, 1);
                                    return true;
                                  }),
              p);
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 2 refused at key_announce"));
}

BOOST_AUTO_TEST_CASE(bad_key_announcements_are_refused) {
  auto e = refusal(first<key_announce>(1, 0, [](key_announce& x) {
    x.sig[0] ^= 1;
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "bad signature"));
  e = refusal(first<key_announce>(2, 1, [](key_announce& x) {
    x.params_digest[3] ^= 1;
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "different parameters"));
  e = refusal(first<key_announce>(2, 1, [](key_announce& x) {
    ++x.labels;
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "refused at key_announce"));
}

BOOST_AUTO_TEST_CASE(queries_outside_the_node_or_unordered_are_refused) {
  // The first batch's buckets: one byte short, a claimed label of the
  // receiver's, a feature queried later without buckets.
  auto e = refusal(first<query_batch>(1, 0, [](query_batch& x) {
    if (x.buckets.empty())
      return false;
    x.buckets.pop_back();
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "field lengths differ"));
  e = refusal(first<query_batch>(1, 0, [](query_batch& x) {
    if (x.held.empty())
      return false;
    for (auto& b : x.held)
      b = 0xff;
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "claims the label of a row it does not hold"));
  e = refusal(first<query_batch>(1, 0, [](query_batch& x) {
    if (x.features.size() < 2)
      return false;
    x.features.pop_back();
    x.buckets.resize(x.buckets.size() / (x.features.size() + 1) *
                     x.features.size());
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "whose buckets it did not send"));
  e = refusal(first<query_batch>(1, 0, [](query_batch& x) {
    if (x.tree == 0 && x.depth == 0)
      return false;
    x.held.push_back(0);
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "field lengths differ"));
  // A bucket byte past the buckets (it would index the receiver's tables).
  e = refusal(first<query_batch>(1, 0, [](query_batch& x) {
    if (x.buckets.empty())
      return false;
    x.buckets.back() = 200;
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 1 sent a bucket out of range"));
  e = refusal(first<query_batch>(1, 0, [](query_batch& x) {
    if (x.qids.size() < 2)
      return false;
    std::swap(x.qids[0], x.qids[1]);
    return true;
  }));
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "refused at query"));
  e = refusal(first<query_batch>(1, 0, [](query_batch& x) {
    x.nonces.pop_back();
    return true;
  }));
  BOOST_TEST(contains(e, "field lengths differ"));
}

BOOST_AUTO_TEST_CASE(a_source_that_queries_nothing_keeps_its_labels) {
  // Client 2's only column is constant: it never queries, so its first
  // batch names no buckets and no labels (the queries would not have
  // either), and the session trains.
  auto d = synthetic(90, 6, 4);
  for (auto& x : d.column(5))
    x = 1.0f;
  auto f = make_federation(d, small(), 3, balanced_owners(90, 3, 4), 4,
                           {0, 3, 5, 6});
  auto seen = std::make_shared<int>(0);
  run_training(f, 4, [seen](int from, int, message& m) {
    auto* x = std::get_if<query_batch>(&m);
    if (!x || from != 2 || x->tree != 0 || x->depth != 0)
      return;
    ++*seen;
    BOOST_TEST(x->qids.empty());
    BOOST_TEST(x->features.empty());
    BOOST_TEST(x->held.empty());
    BOOST_TEST(x->buckets.empty());
  });
  BOOST_TEST(*seen == 2);
  BOOST_TEST(f.clients[0]->training_done());
}

BOOST_AUTO_TEST_CASE(gains_and_decisions_are_checked) {
  auto e = refusal(first<best_gains>(1, 0, [](best_gains& x) {
    x.gains[0] = std::numeric_limits<double>::quiet_NaN();
    return true;
  }));
  BOOST_TEST(contains(e, "refused at gain"));
  // The first split any client announces, cut short on its way to 1.
  auto cut = std::make_shared<bool>(false);
  e = refusal([cut](int, int to, message& m) {
    auto* x = std::get_if<node_decisions>(&m);
    if (!x || to != 1 || *cut || x->goes_left_bits.empty())
      return;
    x->goes_left_bits.pop_back();
    *cut = true;
  });
  BOOST_TEST(contains(e, "refused at split"));
  auto p = small();
  p.protocol = mode::plain;
  e = refusal(first<plain_sums>(1, 2,
                                [](plain_sums& x) {
                                  if (x.g.empty())
                                    return false;
                                  x.g[0] =
                                      std::numeric_limits<double>::infinity();
                                  return true;
                                }),
              p);
  BOOST_TEST(contains(e, "refused at plain_sums"));
}

BOOST_AUTO_TEST_CASE(messages_out_of_turn_or_from_strangers_are_refused) {
  auto d = synthetic(60, 4, 1);
  auto f = make_federation(d, small(), 2, balanced_owners(60, 2, 1), 1);
  auto& c = *f.clients[0];
  BOOST_REQUIRE(c.start());
  BOOST_TEST(!c.on_message(0, lead_tickets{}));  // itself
  BOOST_TEST(!c.on_message(7, lead_tickets{}));  // nobody
  BOOST_TEST(!c.on_message(-1, lead_tickets{})); // nobody
  auto r = c.on_message(1, lead_tickets{});      // key_announce is due
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().step == "lead");
  auto fail = f.clients[1]->on_message(0, failure{"masked", "test"});
  BOOST_REQUIRE(!fail);
  BOOST_TEST(fail.error().step == "masked");
  // Prediction answers nobody asked for, queries about unknown splits.
  BOOST_TEST(!f.clients[1]->on_message(0, predict_answer{}));
  predict_query q;
  q.trees = {0};
  q.nodes = {0};
  q.offsets = {0, 1};
  q.rows = {0};
  BOOST_TEST(!f.clients[1]->on_message(0, q));
}

BOOST_AUTO_TEST_CASE(bad_local_input_throws_input_error) {
  auto d = synthetic(40, 4, 1);
  auto cols = columns(d, 0, 4);
  label_set all{test::all_rows(40), d.labels()};
  auto make = [&](const params& p, learners::dataset x, label_set l,
                  std::optional<credentials> c) {
    client(p, 0, 1, std::move(x), std::move(l), std::move(c),
           random_engine(protocols::crypto::seeded_random(1)));
  };
  auto p = small();
  p.protocol = mode::plain;
  auto bad = all;
  bad.labels[4] = 2;
  auto e = test::error_of([&] { make(p, cols, bad, std::nullopt); });
  BOOST_TEST(contains(e, "not 0 or 1"));
  bad = all;
  std::swap(bad.rows[0], bad.rows[1]);
  e = test::error_of([&] { make(p, cols, bad, std::nullopt); });
  BOOST_TEST(contains(e, "strictly increasing"));
  p.protocol = mode::feverless;
  e = test::error_of([&] { make(p, cols, all, std::nullopt); });
  BOOST_TEST(contains(e, "credentials"));
  p.buckets = 300;
  e = test::error_of([&] { make(p, cols, all, std::nullopt); });
  BOOST_TEST(contains(e, "buckets"));
  // Missing values need one more bucket than the qid's 8 bits hold at 256.
  p.protocol = mode::plain;
  p.buckets = 256;
  auto wide = synthetic(1000, 4, 5);
  label_set every{test::all_rows(1000), wide.labels()};
  auto holes = columns(wide, 0, 4);
  holes.value(3, 1) = learners::missing_value;
  e = test::error_of([&] { make(p, holes, every, std::nullopt); });
  BOOST_TEST(contains(e, "at most 255 buckets"), e);
  p.buckets = 255;
  make(p, holes, every, std::nullopt); // fits
  p.hide_labels = true;
  e = test::error_of([&] { make(p, cols, all, std::nullopt); });
  BOOST_TEST(contains(e, "hide_labels needs the feverless protocol"), e);
}

BOOST_AUTO_TEST_CASE(uncovered_labels_are_refused_at_setup) {
  // Client 1 drops its labels: the counts no longer add up to the rows.
  auto d = synthetic(60, 4, 1);
  auto owner = balanced_owners(60, 2, 1);
  auto f = make_federation(d, small(), 2, owner, 1);
  f.clients[1] = std::make_unique<client>(
      small(), 1, 2, columns(d, 2, 4), label_set{},
      credentials{identity_of(1, 1),
                  {identity_of(0, 1).public_key_bytes(),
                   identity_of(1, 1).public_key_bytes()}},
      random_engine(protocols::crypto::seeded_random(9)));
  std::string e;
  try {
    run_training(f, 1);
  } catch (const std::runtime_error& x) {
    e = x.what();
  }
  BOOST_TEST(contains(e, "must be held by exactly one client"));
}

BOOST_AUTO_TEST_CASE(rows_labelled_twice_are_refused_though_the_counts_add_up) {
  // Client 0 also labels a row of client 1 and drops one of its own: the
  // announced counts still sum to the rows, the census sees both rows.
  for (auto m : {mode::feverless, mode::plain, mode::ahe}) {
    auto p = small();
    p.protocol = m;
    auto d = synthetic(60, 6, 2);
    auto owner = balanced_owners(60, 3, 2);
    auto f = make_federation(d, p, 3, owner, 2);
    auto taken = static_cast<std::size_t>(
        std::find(owner.begin(), owner.end(), 1) - owner.begin());
    auto dropped = static_cast<std::size_t>(
        std::find(owner.begin(), owner.end(), 0) - owner.begin());
    auto mine = owner;
    mine[taken] = 0;
    mine[dropped] = -1;
    std::optional<credentials> creds;
    if (m != mode::plain)
      creds = credentials{identity_of(0, 2),
                          {identity_of(0, 2).public_key_bytes(),
                           identity_of(1, 2).public_key_bytes(),
                           identity_of(2, 2).public_key_bytes()}};
    f.clients[0] = std::make_unique<client>(
        p, 0, 3, columns(d, f.bounds[0], f.bounds[1]), labels_of(d, mine, 0),
        std::move(creds), random_engine(protocols::crypto::seeded_random(3)));
    auto e = training_refusal(f, 2, {});
    BOOST_TEST(contains(e, "label_census"), e);
    BOOST_TEST(
        contains(e, "data row " + std::to_string(taken + 1) + " has 2 labels"),
        e);
    BOOST_TEST(contains(e, "data row " + std::to_string(dropped + 1) +
                               " has no label"),
               e);
  }
}

BOOST_AUTO_TEST_CASE(census_bytes_are_masked) {
  // feverless: every census byte is masked, so a client's bytes are not its
  // 0/1 indicators; for uniform bytes about 2 of 256 fall in {0, 1}.
  std::size_t sent = 0, indicator_like = 0;
  auto look = [&](int from, int, message& m) {
    if (auto* c = std::get_if<label_census>(&m); c && from == 0) {
      for (auto b : c->holds)
        indicator_like += b <= 1;
      sent += c->holds.size();
    }
  };
  BOOST_TEST(refusal(look) == "");
  BOOST_TEST(sent == 2 * 120u);
  // Binomial(240, 1/128): mean 1.9, P(>= 12) < 1e-6.
  BOOST_TEST(indicator_like < 12u);
}

BOOST_AUTO_TEST_CASE(unmasked_census_bytes_must_be_0_or_1) {
  // plain: client 2 says 2 for a row and 255 for another; the sums could
  // still be 1 mod 256, so the byte itself is refused, naming the sender.
  auto p = small();
  p.protocol = mode::plain;
  auto e = refusal(first<label_census>(2, 0,
                                       [](label_census& c) {
                                         c.holds[0] = 2;
                                         c.holds[1] = 255;
                                         return true;
                                       }),
                   p);
  BOOST_TEST(contains(e, "party 2 sent a census byte that is not 0 or 1"), e);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
