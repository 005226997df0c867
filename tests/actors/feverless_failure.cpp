// FEVERLESS sessions that go wrong end, on every client, with an error that
// names the client and the step, within the timeout: a client killed
// mid-training, a client that never speaks, a forged or malformed protocol
// message, a failure a client reports. Also: a node refuses a party kind it
// does not know, and clients that load their own files check the label
// counts and train the model of the clients given the same data.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <future>
#include <numeric>
#include <thread>

#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/skip.hpp>

#include "actors/errors.hpp"
#include "actors/feverless_client.hpp"
#include "actors/opboost_session.hpp"
#include "actors/remote.hpp"
#include "learners/data/synthetic.hpp"
#include "messages/feverless.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "messages/version.hpp"
#include "tests/actors/fixture.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

using namespace veil;
using namespace std::chrono_literals;
using protocols::session::errc;
using test::actor_fixture;
namespace fv = veil::protocols::feverless;
namespace fvl = veil::messages::fvl;
namespace sess = veil::protocols::session;
using clock_type = std::chrono::steady_clock;

namespace {

using veil::test::contains;

learners::dataset synthetic(std::size_t rows, std::size_t features) {
  learners::classification_spec s;
  s.rows = rows;
  s.features = features;
  s.informative = features / 2;
  s.redundant = 1;
  s.seed = 33;
  return learners::make_classification(s);
}

/// Client c of n: its contiguous block of columns, the labels of the rows
/// i with i % n == c, and its columns of the same rows to predict.
actors::feverless_client_spec client_spec(const learners::dataset& d,
                                          std::size_t c, std::size_t n) {
  actors::feverless_client_spec s;
  s.name = "client" + std::to_string(c);
  std::vector<std::size_t> cols;
  for (auto j = d.features() * c / n; j < d.features() * (c + 1) / n; ++j)
    cols.push_back(j);
  s.features = d.select_columns(cols);
  s.features.labels().clear();
  for (std::size_t i = 0; i < d.rows(); ++i)
    if (i % n == c) {
      s.labels.rows.push_back(static_cast<std::uint32_t>(i));
      s.labels.labels.push_back(d.labels()[i]);
    }
  s.eval = s.features;
  return s;
}

fv::params small_params(fv::mode m, int trees) {
  fv::params p;
  p.protocol = m;
  p.trees = trees;
  p.max_depth = 3;
  p.noise = false;
  p.session = 9;
  return p;
}

/// A stand-in for a client that answers the session steps and then, when
/// told to train, does `on_train` (nothing: it stays silent).
template <class OnTrain>
caf::behavior impostor(caf::event_based_actor* self, OnTrain on_train) {
  auto peers = std::make_shared<std::vector<caf::actor>>();
  self->set_default_handler(caf::skip); // protocol messages: never answered
  return {
      [](veil::messages::keys_atom) {
        return fvl::identity_key{
            protocols::crypto::identity{}.public_key_bytes()};
      },
      [=](veil::messages::peers_atom, sess::roster&,
          std::vector<caf::actor>& ps) {
        *peers = ps;
        return caf::ok_atom::value;
      },
      [=](veil::messages::train_atom) { on_train(self, *peers); },
      [](veil::messages::stats_atom) { return sess::byte_stats{}; },
  };
}

/// A session of n clients; client `odd` (if any) is the actor `make(sys)`
/// returns, named `odd_name`.
struct session_under_test {
  learners::dataset data;
  std::vector<caf::actor> clients;
  actors::feverless_run run;

  session_under_test(caf::actor_system& sys, std::size_t n, fv::mode m,
                     int trees, std::chrono::milliseconds timeout)
      : data(synthetic(600, 8)) {
    run.params = small_params(m, trees);
    run.timeout = timeout;
    for (std::size_t c = 0; c < n; ++c) {
      auto s = client_spec(data, c, n);
      run.names.push_back(s.name);
      clients.push_back(actors::spawn_feverless_client(
          sys, std::move(s), 7, static_cast<std::int32_t>(c)));
    }
  }

  /// Replaces client c by `a`, called `name`.
  void replace(std::size_t c, caf::actor a, const std::string& name) {
    caf::anon_send_exit(clients[c], caf::exit_reason::user_shutdown);
    clients[c] = std::move(a);
    run.names[c] = name;
  }
};

/// Every client's exit reason, as the test's own monitor saw it.
std::vector<std::string> exit_reasons(caf::scoped_actor& self,
                                      const std::vector<caf::actor>& clients) {
  std::vector<std::string> reasons(clients.size(), "(still running)");
  for (std::size_t k = 0; k < clients.size(); ++k)
    self->receive(
        [&](caf::down_msg& dm) {
          for (std::size_t c = 0; c < clients.size(); ++c)
            if (clients[c].address() == dm.source)
              reasons[c] = actors::describe(dm.reason);
        },
        caf::after(10s) >> [] {});
  return reasons;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(feverless_failure, actor_fixture)

BOOST_AUTO_TEST_CASE(a_client_killed_mid_training_ends_every_client) {
  session_under_test s(sys, 4, fv::mode::feverless, 60000, 2s);
  caf::scoped_actor watcher{sys};
  for (auto& c : s.clients)
    watcher->monitor(c);
  auto result = std::async(std::launch::async, [&] {
    return actors::run_feverless_clients(sys, s.clients, s.run);
  });
  // Let it get well into training (60000 trees never finish here).
  BOOST_REQUIRE(result.wait_for(1500ms) == std::future_status::timeout);
  auto killed = clock_type::now();
  caf::anon_send_exit(s.clients[2], caf::exit_reason::kill);
  BOOST_REQUIRE(result.wait_for(10s) == std::future_status::ready);
  auto took = clock_type::now() - killed;
  auto out = result.get();
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((took < s.run.timeout + 1s));
  BOOST_TEST((out.code == errc::party_down), out.error);
  BOOST_TEST(contains(out.error, "client2 ended while"), out.error);
  BOOST_TEST(contains(out.error, "at step"), out.error);
  BOOST_TEST(contains(out.error, "(tree "), out.error);
  auto reasons = exit_reasons(watcher, s.clients);
  BOOST_TEST(contains(reasons[2], "kill"), reasons[2]);
  for (std::size_t c : {0, 1, 3}) {
    BOOST_TEST(contains(reasons[c], "client2 ended while"), reasons[c]);
    BOOST_TEST(contains(reasons[c], "at step"), reasons[c]);
  }
}

BOOST_AUTO_TEST_CASE(a_silent_client_times_out_and_is_named) {
  session_under_test s(sys, 4, fv::mode::plain, 3, 400ms);
  s.replace(
      3,
      sys.spawn(impostor<void (*)(caf::event_based_actor*,
                                  const std::vector<caf::actor>&)>,
                [](caf::event_based_actor*, const std::vector<caf::actor>&) {}),
      "quiet");
  auto start = clock_type::now();
  auto out = actors::run_feverless_clients(sys, s.clients, s.run);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((clock_type::now() - start < 10 * s.run.timeout));
  BOOST_TEST((out.code == errc::timeout), out.error);
  BOOST_TEST(contains(out.error, "heard from no peer within 0.4 s"), out.error);
  BOOST_TEST(contains(out.error, "nothing ever came from quiet"), out.error);
  BOOST_TEST(contains(out.error, "last step key_announce"), out.error);
}

BOOST_AUTO_TEST_CASE(a_forged_masked_sums_is_refused_naming_sender_and_step) {
  session_under_test s(sys, 3, fv::mode::feverless, 3, 5s);
  auto forge = [](caf::event_based_actor* self,
                  const std::vector<caf::actor>& peers) {
    // Sums of the wrong size for a level nobody asked about.
    self->send(peers[0], fv::masked_sums{0, 0, {1, 2, 3}, {4}});
  };
  s.replace(2, sys.spawn(impostor<decltype(forge)>, forge), "forger");
  auto out = actors::run_feverless_clients(sys, s.clients, s.run);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((out.code == errc::protocol_error), out.error);
  BOOST_TEST(contains(out.error,
                      "client0 refused a masked (tree 0, depth 0) from forger"),
             out.error);
  BOOST_TEST(contains(out.error, "at step"), out.error);
}

BOOST_AUTO_TEST_CASE(a_reported_failure_names_its_sender_and_step) {
  session_under_test s(sys, 3, fv::mode::plain, 3, 5s);
  auto fail = [](caf::event_based_actor* self,
                 const std::vector<caf::actor>& peers) {
    for (std::size_t c = 0; c < 2; ++c)
      self->send(peers[c], fv::failure{"best_gains", "bad sums"});
  };
  s.replace(2, sys.spawn(impostor<decltype(fail)>, fail), "grumpy");
  auto out = actors::run_feverless_clients(sys, s.clients, s.run);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((out.code == errc::protocol_error), out.error);
  BOOST_TEST(contains(out.error, "grumpy failed at step best_gains: bad sums"),
             out.error);
}

BOOST_AUTO_TEST_CASE(a_node_refuses_an_unknown_party_kind) {
  // A node hosts the kinds its program lists, and names them when asked
  // for another.
  auto node = actors::spawn_node(sys, false,
                                 {actors::plain_party_kind(),
                                  actors::feverless_party_kind(),
                                  actors::opboost_party_kind()},
                                 {});
  caf::scoped_actor self{sys};
  auto ask = [&](const std::string& kind, const std::string& name) {
    caf::expected<caf::actor> out{caf::actor{}};
    self->request(node, std::chrono::seconds(10),
                  veil::messages::spawn_atom::value, name, kind,
                  veil::messages::handshake(), std::vector<std::string>{})
        .receive([&](caf::actor& a) { out = std::move(a); },
                 [&](caf::error& e) { out = std::move(e); });
    return out;
  };
  auto a = ask("secureboost", "alice");
  BOOST_REQUIRE(!a);
  auto msg = actors::describe(a.error());
  BOOST_TEST(contains(msg, "cannot start party alice"), msg);
  BOOST_TEST(contains(msg, "unknown protocol kind \"secureboost\""), msg);
  BOOST_TEST(contains(msg, "plain, feverless, opboost"), msg);
  BOOST_TEST((actors::code_of(a.error()) == errc::bad_request));
  auto b = ask("feverless", "bob");
  BOOST_REQUIRE(b);
  self->send_exit(*b, caf::exit_reason::user_shutdown);
  self->send_exit(node, caf::exit_reason::user_shutdown);
}

namespace {

/// Writes client c's file of `d`: an id column, its columns, and the label
/// column with the labels of the rows i % n == c (empty elsewhere); rows in
/// reverse order when `reverse` (the id alignment puts them back).
std::string write_client_file(const test::temp_dir& dir,
                              const learners::dataset& d, std::size_t c,
                              std::size_t n, bool reverse,
                              std::size_t double_label = SIZE_MAX) {
  auto path = dir / ("c" + std::to_string(c) + ".csv");
  std::ofstream out(path);
  out.precision(9);
  out << "id";
  auto lo = d.features() * c / n, hi = d.features() * (c + 1) / n;
  for (auto j = lo; j < hi; ++j)
    out << "," << d.feature_names()[j];
  out << ",y\n";
  for (std::size_t k = 0; k < d.rows(); ++k) {
    auto i = reverse ? d.rows() - 1 - k : k;
    out << "r" << i;
    for (auto j = lo; j < hi; ++j)
      out << "," << d.value(i, j);
    out << ",";
    if (i % n == c || i == double_label)
      out << d.labels()[i];
    out << "\n";
  }
  return path;
}

actors::feverless_party_config loading_config(const test::temp_dir& dir,
                                              const learners::dataset& d,
                                              std::size_t n,
                                              std::size_t double_label) {
  actors::feverless_party_config cfg;
  cfg.params = small_params(fv::mode::plain, 3);
  cfg.timeout = 5s;
  for (std::size_t c = 0; c < n; ++c) {
    actors::party_spec p;
    p.name = "client" + std::to_string(c);
    p.data.path = write_client_file(dir, d, c, n, c == 1,
                                    c == 0 ? double_label : SIZE_MAX);
    p.data.id_column = "id";
    p.data.label_column = "y";
    cfg.parties.push_back(std::move(p));
  }
  return cfg;
}

} // namespace

BOOST_AUTO_TEST_CASE(loading_clients_train_the_model_of_given_data) {
  auto d = synthetic(400, 6);
  test::temp_dir dir;
  auto loading = loading_config(dir, d, 3, SIZE_MAX);
  loading.export_splits = true;
  auto out = actors::feverless_session::run(loading, actors::tls_files{});
  BOOST_REQUIRE_MESSAGE(out.ok(), out.error);
  actors::feverless_config given;
  given.params = small_params(fv::mode::plain, 3);
  given.predict = false;
  given.export_splits = true;
  for (std::size_t c = 0; c < 3; ++c) {
    auto s = client_spec(d, c, 3);
    s.eval = {};
    given.parties.push_back(std::move(s));
  }
  auto ref = actors::feverless_session::run(std::move(given));
  BOOST_REQUIRE_MESSAGE(ref.ok(), ref.error);
  const auto& a = out.result->model.trees;
  const auto& b = ref.result->model.trees;
  BOOST_REQUIRE_EQUAL(a.size(), b.size());
  for (std::size_t t = 0; t < a.size(); ++t) {
    BOOST_REQUIRE_EQUAL(a[t].nodes.size(), b[t].nodes.size());
    for (std::size_t k = 0; k < a[t].nodes.size(); ++k) {
      BOOST_TEST(a[t].nodes[k].owner == b[t].nodes[k].owner);
      BOOST_TEST(a[t].nodes[k].value == b[t].nodes[k].value);
    }
  }
  std::size_t splits = 0;
  for (std::size_t c = 0; c < 3; ++c) {
    splits += out.result->parties[c].splits.size();
    BOOST_TEST(out.result->parties[c].splits.size() ==
               ref.result->parties[c].splits.size());
    BOOST_TEST(out.result->features[c] == ref.result->features[c]);
  }
  BOOST_TEST(splits > 0u);
  BOOST_TEST(out.result->rows == 400u);
}

BOOST_AUTO_TEST_CASE(restored_clients_predict_the_margins_of_their_session) {
  // FEVERLESS with its noise: every client keeps its split table in its
  // own file; new client actors that load only the rows to predict and
  // restore their parts give the training session's margins bit for bit.
  auto d = synthetic(400, 6);
  test::temp_dir dir;
  auto cfg = loading_config(dir, d, 3, SIZE_MAX);
  cfg.params.protocol = fv::mode::feverless;
  cfg.params.noise = true;
  for (auto& p : cfg.parties)
    p.test_path = p.data.path;
  cfg.parts = {dir / "m.json", "model-1", {}};
  auto trained = actors::feverless_session::run(cfg, actors::tls_files{});
  BOOST_REQUIRE_MESSAGE(trained.ok(), trained.error);
  BOOST_REQUIRE_EQUAL(trained.result->margins.size(), 400u);
  for (std::size_t c = 0; c < 3; ++c)
    BOOST_TEST(
        std::filesystem::exists(dir / ("m.json.client" + std::to_string(c))));
  auto again = cfg;
  again.restore = trained.result->model;
  auto predicted = actors::feverless_session::run(again, actors::tls_files{});
  BOOST_REQUIRE_MESSAGE(predicted.ok(), predicted.error);
  BOOST_TEST(predicted.result->margins == trained.result->margins,
             boost::test_tools::per_element());
  BOOST_TEST(predicted.result->labels == trained.result->labels,
             boost::test_tools::per_element());
  BOOST_TEST(predicted.result->labelled);
}

BOOST_AUTO_TEST_CASE(label_counts_that_do_not_add_up_are_refused) {
  auto d = synthetic(300, 6);
  test::temp_dir dir;
  // Row 1 (client 1's) is labeled by client 0 too.
  auto out = actors::feverless_session::run(loading_config(dir, d, 3, 1),
                                            actors::tls_files{});
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((out.code == errc::bad_input), out.error);
  BOOST_TEST(contains(out.error, "the parties hold 301 labels for 300 "
                                 "training rows (client0 101, client1 100, "
                                 "client2 100)"),
             out.error);
}

BOOST_AUTO_TEST_CASE(a_label_other_than_0_or_1_is_refused_by_its_client) {
  test::temp_dir dir;
  actors::feverless_party_config cfg;
  cfg.params = small_params(fv::mode::plain, 1);
  cfg.timeout = 5s;
  for (auto [name, text] :
       {std::pair{"a", "x,y\n1,0\n2,\n3,1\n"}, {"b", "z,y\n1,\n2,2\n3,\n"}}) {
    actors::party_spec p;
    p.name = name;
    p.data.path = dir.file(std::string(name) + ".csv", text);
    p.data.label_column = "y";
    cfg.parties.push_back(std::move(p));
  }
  auto out = actors::feverless_session::run(cfg, actors::tls_files{});
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((out.code == errc::bad_input), out.error);
  BOOST_TEST(contains(out.error, "b: " + dir / "b.csv" +
                                     ": data row 2: label column \"y\" "
                                     "holds neither 0 nor 1"),
             out.error);
}

BOOST_AUTO_TEST_SUITE_END()
