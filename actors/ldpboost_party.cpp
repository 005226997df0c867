// The LDP boosting party actor (hosting protocols/ldpboost/roles.hpp's data
// user or an owner, I/O-free roles) and the driver of a session over party
// actors: a star around the data user (index 0).
//
// The session steps, coordinator -> party (each a request unless noted):
//   (peers_atom, session::roster [ldp::roster_settings], peers) -> ok_atom
//   (train_atom)   to the data user; then data user -> coordinator:
//                  session::trained (ldp::training_report)
//   (predict_atom) to the data user: its evaluation rows, predicted by its
//                  own ensemble; then session::predicted
//   (stats_atom) -> session::byte_stats
// Party to party: share_request (data user -> owner), share_reply; to and
// from a `veil node`'s block of owners (one party of the roster, loading
// its own file and hosting one owner actor per ldp.samples_per_owner of
// its rows), block_request (the same request for several of its owners,
// once per attempt) and block_reply (one owner's answer). An owner
// only answers (within the idle bound). An owner that has not answered
// half a timeout after its request is skipped: the attempt goes on with
// the others (spec §4.5), and the report counts it. An owner that ends
// ends the session, as any party does.

#include <algorithm>
#include <map>
#include <memory>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/errors.hpp"
#include "actors/ldpboost_party.hpp"
#include "actors/live_session_impl.hpp"
#include "actors/role_host.hpp"
#include "actors/support.hpp"
#include "learners/input_error.hpp"
#include "messages/ldpboost.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/outcome.hpp"

namespace veil::actors {

namespace {

namespace lb = protocols::ldpboost;
namespace session = protocols::session;
namespace ldp = messages::ldp;
using session::errc;

struct party_state : data_party_state<ldpboost_party_spec> {
  static inline const char* name = "veil.ldpboost_party";

  std::unique_ptr<lb::data_user> user; // index 0
  std::unique_ptr<lb::owner> owner;    // index > 0, given its rows
  /// A node's block (index > 0, loaded its rows): its owner actors.
  std::vector<caf::actor> block;
  bool is_block = false;
  learners::labelled_rows eval; ///< the data user's
  int classes = 2;
  int rounds = 0;
  /// The attempt whose deadline is armed (data user).
  std::optional<std::uint64_t> deadline_for;
  /// The blocks of owners on nodes: roster indices first_block.., their
  /// owners and the id of each one's first owner (the data user numbers
  /// owners 1..L: those given their rows by their roster index, then the
  /// blocks' in turn). Per block, not per party: a star of 100,000 owners
  /// keeps nothing per peer at a leaf.
  std::size_t first_block = 0;
  std::vector<std::uint32_t> block_owners, block_first;

  bool has_role() const { return user || owner || is_block; }
  bool is_block_index(std::size_t a) const {
    return !block_owners.empty() && a >= first_block;
  }
  /// The id of the (first) owner at roster index a (> 0).
  std::uint32_t first_owner(std::size_t a) const {
    return is_block_index(a) ? block_first[a - first_block]
                             : static_cast<std::uint32_t>(a);
  }
  /// The roster index of owner q (1..L).
  std::int32_t index_of_owner(std::int32_t q) const {
    auto id = static_cast<std::uint32_t>(q);
    if (block_owners.empty() || id < block_first[0])
      return q;
    auto it = std::upper_bound(block_first.begin(), block_first.end(), id);
    return static_cast<std::int32_t>(
        first_block + static_cast<std::size_t>(it - block_first.begin()) - 1);
  }
  /// The owners of all blocks and the parties given their rows.
  std::uint32_t owners(std::size_t parties) const {
    if (block_owners.empty())
      return static_cast<std::uint32_t>(parties - 1);
    return block_first.back() + block_owners.back() - 1;
  }
};

/// An owner of a node's block, as an actor: it answers its block's
/// forwarded request once (its role refuses a second; the refusal ends
/// the block, and so the session).
struct block_owner_state {
  static inline const char* name = "veil.ldpboost_owner";
};

caf::behavior block_owner(caf::stateful_actor<block_owner_state>* self,
                          std::shared_ptr<lb::owner> role, caf::actor block,
                          std::uint32_t index) {
  return {[=](messages::owner_atom, const lb::share_request& r) {
    if (self->current_sender() != block)
      return; // only its block speaks to it
    auto out = role->on_message(0, lb::message{r});
    if (!out) {
      self->quit(
          session_error(errc::protocol_error,
                        "owner " + std::to_string(index) +
                            " of a block refused: " + out.error().reason));
      return;
    }
    for (auto& e : *out)
      if (auto* reply = std::get_if<lb::share_reply>(&e.msg))
        self->send(block, messages::owner_atom::value, index,
                   std::move(*reply));
  }};
}

/// The data user's outbox on the wire: an envelope to owner q goes to q's
/// roster index; the requests to a block's owners become one
/// block_request for that block.
lb::outbox to_roster(const party_state& st, lb::outbox out) {
  lb::outbox wire;
  std::map<std::int32_t, std::size_t> request_of_block;
  for (auto& e : out) {
    auto at = st.index_of_owner(e.to);
    auto a = static_cast<std::size_t>(at);
    auto local = static_cast<std::uint32_t>(e.to) - st.first_owner(a);
    e.to = at;
    auto* request = std::get_if<lb::share_request>(&e.msg);
    if (!st.is_block_index(a) || !request) {
      wire.push_back(std::move(e));
      continue;
    }
    auto known = request_of_block.find(at);
    if (known == request_of_block.end()) {
      request_of_block[at] = wire.size();
      wire.push_back({at, lb::block_request{{local}, std::move(*request)}});
    } else {
      std::get<lb::block_request>(wire[known->second].msg)
          .owners.push_back(local);
    }
  }
  return wire;
}

protocols::outcome<lb::outbox> on_roster(const party_state& st,
                                         protocols::outcome<lb::outbox> out) {
  if (out)
    *out = to_roster(st, std::move(*out));
  return out;
}

using party_actor = caf::stateful_actor<party_state>;

void abort(party_actor* self, errc code, std::string message) {
  self->quit(session_error(code, std::move(message)));
}

std::uint64_t seed_of(const party_state& st) {
  return st.test_seed ? *st.test_seed : 0;
}

session::trained make_trained(const party_state& st) {
  const auto& u = *st.user;
  ldp::training_report report;
  report.alpha = u.alpha();
  report.ensemble = lb::encode(u.ensemble());
  const auto& log = u.log();
  report.errors = log.errors;
  report.rejected = log.rejected;
  report.burned = log.burned;
  report.silent = log.silent;
  report.stopped = log.stopped;
  report.staged_test_errors = lb::staged_errors(
      u.alpha(), u.ensemble(), st.classes, u.bounds(), st.eval);
  session::trained out;
  out.seconds = seconds_since(st.started);
  out.report = messages::pack(report);
  return out;
}

/// An LDP boosting party (the data user or an owner) on the shared role
/// host (actors/role_host.hpp).
struct party_hooks : loading_party_hooks<party_state>,
                     no_part_hooks<party_state> {
  using state = party_state;
  using spec = ldpboost_party_spec;
  using settings = ldp::roster_settings;
  using message = lb::message;
  using failure = lb::failure;

  static caf::result<caf::ok_atom> join(party_actor* self,
                                        const session::roster& base,
                                        const ldp::roster_settings& r,
                                        const std::vector<caf::actor>& peers,
                                        std::int32_t at) {
    auto& st = self->state;
    if (base.hub != 0)
      return session_error(errc::bad_request,
                           st.me + ": the roster is not a star around the "
                                   "data user");
    if (!st.given && at == 0)
      return session_error(errc::bad_request,
                           st.me + ": the data user is given its rows in the "
                                   "coordinator's process");
    // What throws here is bad input (host_roster).
    r.params.validate();
    st.block_owners = r.block_owners;
    if (st.block_owners.size() >= peers.size())
      throw input_error("the roster has more blocks of owners than parties");
    st.first_block = peers.size() - st.block_owners.size();
    std::uint32_t next = static_cast<std::uint32_t>(st.first_block);
    for (auto m : st.block_owners) {
      if (m == 0)
        throw input_error("the roster has a block without owners");
      st.block_first.push_back(next);
      next += m;
    }
    if (st.is_block_index(static_cast<std::size_t>(at)) == st.given.has_value())
      throw input_error("the roster makes this party a block of owners "
                        "loading its own file, or the other way round");
    st.join(self, base, peers, at);
    st.classes = r.params.classes;
    st.rounds = r.params.rounds;
    if (!st.given)
      return join_block(self, r, at);
    auto spec = std::move(*st.given);
    st.given.reset();
    if (r.lower.size() != spec.features.features ||
        r.upper.size() != spec.features.features)
      throw input_error("the roster's scaling bounds are for " +
                        std::to_string(r.lower.size()) +
                        " features; this "
                        "party's rows have " +
                        std::to_string(spec.features.features));
    if (at == 0) {
      st.user = std::make_unique<lb::data_user>(
          std::move(spec.features), st.owners(peers.size()), r.params,
          r.pick_seed != 0 ? r.pick_seed
                           : protocols::crypto::system_random{}());
      st.eval = std::move(spec.eval);
      // The owners scale by the roster's bounds: they must be this data
      // user's (spec §3.4), or the centroids mix two scales.
      if (st.user->bounds().lower != r.lower ||
          st.user->bounds().upper != r.upper)
        throw input_error("the roster's scaling bounds are not the data "
                          "user's own rows' range");
    } else {
      st.owner = std::make_unique<lb::owner>(
          static_cast<std::int32_t>(
              st.first_owner(static_cast<std::size_t>(at))),
          std::move(spec.features), lb::scaling{r.lower, r.upper}, r.params,
          seed_of(st));
      keep_watch(self); // it only answers, within the idle bound
    }
    return caf::ok_atom::value;
  }
  /// A node's block: its loaded rows, r.per_owner to an owner, each owner
  /// an actor of this node that dies with the block (and the block with
  /// it: they are linked).
  static caf::result<caf::ok_atom> join_block(party_actor* self,
                                              const ldp::roster_settings& r,
                                              std::int32_t at) {
    auto& st = self->state;
    auto a = static_cast<std::size_t>(at);
    int classes = 2;
    auto rows = lb::rows_of(st.loaded.train, st.me, classes);
    if (classes > r.params.classes)
      throw input_error("its rows have " + std::to_string(classes) +
                        " classes; the data user's have " +
                        std::to_string(r.params.classes));
    if (rows.features != r.lower.size())
      throw input_error("its rows have " + std::to_string(rows.features) +
                        " features; the data user's have " +
                        std::to_string(r.lower.size()));
    auto owners = st.block_owners[a - st.first_block];
    if (r.per_owner == 0 ||
        rows.rows() < static_cast<std::size_t>(owners) * r.per_owner)
      throw input_error("the roster asks for " + std::to_string(owners) +
                        " owners of " + std::to_string(r.per_owner) +
                        " rows; it has " + std::to_string(rows.rows()));
    lb::scaling bounds{r.lower, r.upper};
    st.block.reserve(owners);
    for (std::uint32_t j = 0; j < owners; ++j) {
      auto role = std::make_shared<lb::owner>(
          static_cast<std::int32_t>(st.first_owner(a) + j),
          lb::slice(rows, static_cast<std::size_t>(j) * r.per_owner,
                    r.per_owner),
          bounds, r.params, seed_of(st));
      st.block.push_back(self->spawn<caf::linked>(block_owner, std::move(role),
                                                  caf::actor{self}, j));
    }
    // Its owners end with it, however it ends.
    self->attach_functor([owners = st.block] {
      for (const auto& o : owners)
        caf::anon_send_exit(o, caf::exit_reason::user_shutdown);
    });
    st.loaded = {};
    st.is_block = true;
    keep_watch(self); // it only answers, within the idle bound
    return caf::ok_atom::value;
  }
  static void train(party_actor* self) {
    auto& st = self->state;
    if (!st.user || st.training || st.user->done()) {
      abort(self, errc::bad_request,
            st.me + ": train at an owner, or a second time");
      return;
    }
    begin_work(
        self, &peer_state::training,
        [&] { return to_roster(st, st.user->start()); }, after_step);
  }
  /// The data user predicts its evaluation rows with its own ensemble.
  static void predict(party_actor* self) {
    auto& st = self->state;
    if (!st.user || !st.user->done()) {
      abort(self, errc::bad_request,
            st.me + ": predict at an owner or before training ended");
      return;
    }
    auto start = clock_type::now();
    auto rows = st.user->bounds().apply(st.eval);
    session::predicted out;
    for (std::size_t i = 0; i < rows.rows(); ++i) {
      out.margins.push_back(lb::vote(st.user->alpha(), st.user->ensemble(),
                                     st.classes, rows.row(i)));
      out.labels.push_back(static_cast<float>(rows.y[i]));
    }
    out.seconds = seconds_since(start);
    self->send(st.coordinator, std::move(out));
  }
  static protocols::outcome<lb::outbox>
  on_message(party_actor* self, std::int32_t from, lb::message& m) {
    auto& st = self->state;
    if (st.is_block)
      return forward_to_owners(self, from, m);
    if (!st.user)
      return st.owner->on_message(from, m);
    auto at = static_cast<std::size_t>(from);
    if (auto* b = std::get_if<lb::block_reply>(&m)) {
      if (!st.is_block_index(at) ||
          b->owner >= st.block_owners[at - st.first_block])
        return protocols::refuse("block_reply",
                                 "no such owner in the block of " +
                                     std::to_string(from));
      auto q = static_cast<std::int32_t>(st.first_owner(at) + b->owner);
      lb::message reply{std::move(b->reply)};
      return on_roster(st, st.user->on_message(q, reply));
    }
    if (st.is_block_index(at))
      return protocols::refuse(lb::message_name(m),
                               "a block of owners answers by block_reply");
    return on_roster(st, st.user->on_message(
                             static_cast<std::int32_t>(st.first_owner(at)), m));
  }
  /// A block: the data user's request, to each owner it names (one
  /// message shared by all of them).
  static protocols::outcome<lb::outbox>
  forward_to_owners(party_actor* self, std::int32_t from, lb::message& m) {
    auto& st = self->state;
    auto* b = std::get_if<lb::block_request>(&m);
    if (!b || from != 0)
      return protocols::refuse(lb::message_name(m),
                               "a block of owners takes block requests from "
                               "the data user only");
    for (auto j : b->owners)
      if (j >= st.block.size())
        return protocols::refuse("block_request", "no owner " +
                                                      std::to_string(j) +
                                                      " in this block");
    auto ask =
        caf::make_message(messages::owner_atom::value, std::move(b->request));
    for (auto j : b->owners)
      self->send(st.block[j], ask);
    return lb::outbox{};
  }
  /// The data user: arms the deadline of a new attempt, reports progress,
  /// and its ensemble when training ends.
  static void after_step(party_actor* self) {
    auto& st = self->state;
    if (!st.user || !st.training)
      return;
    if (st.user->done()) {
      st.training = false;
      self->send(st.coordinator, make_trained(st));
      return;
    }
    report_progress(self, st.user->rounds_done(),
                    static_cast<std::size_t>(st.rounds));
    auto key = st.user->attempt_key();
    if (st.deadline_for == key)
      return;
    st.deadline_for = key;
    self->delayed_send(self, st.timeout / 2, messages::deadline_atom::value,
                       key);
  }
  /// An attempt's deadline: the owners that have not answered are skipped.
  static void on_deadline(party_actor* self, std::uint64_t key) {
    auto& st = self->state;
    if (!st.user || !st.training || st.user->attempt_key() != key)
      return;
    busy_clock working{st.busy_seconds};
    for (auto q : st.user->waiting()) {
      auto out = st.user->on_silent(q);
      if (!out) {
        abort(self, errc::protocol_error,
              st.me + " could not skip a silent owner: " + out.error().reason);
        return;
      }
      route(self, to_roster(st, std::move(*out)));
      if (has_quit(self) || st.user->attempt_key() != key)
        break;
    }
    after_step(self);
  }
  static caf::message_handler extra(party_actor* self) {
    return {
        [self](messages::deadline_atom, std::uint64_t key) {
          on_deadline(self, key);
        },
        // A block: one of its owners' answer, to the data user.
        [self](messages::owner_atom, std::uint32_t j, lb::share_reply& reply) {
          auto& st = self->state;
          if (!st.is_block || j >= st.block.size() ||
              self->current_sender() != st.block[j])
            return;
          busy_clock working{st.busy_seconds};
          route(self, lb::outbox{{0, lb::block_reply{j, std::move(reply)}}});
        }};
  }
};

using driver = session_driver<ldpboost_outcome>;

/// The spec's synthetic setting deals 187,500 owners (§7.4); an owner
/// costs about 5.4 KB (bench/ldpboost_scale.cpp).
constexpr std::size_t max_owners = 1000000;

} // namespace

template <>
struct session_hooks<ldpboost_protocol>
    : shared_session_hooks<ldpboost_protocol, party_hooks> {
  using run = ldpboost_run;
  static party_kind kind() { return ldpboost_party_kind(); }

  static run run_of(const parties_config& cfg) { return run(cfg); }

  /// The public scaling bounds come from the data user's own rows (spec
  /// §3.4), as its role computes them.
  static run run_of(const ldpboost_config& cfg) {
    run r(cfg);
    r.params = cfg.params;
    if (!cfg.parties.empty()) {
      auto b = lb::scaling::of(cfg.parties[0].features);
      r.lower = b.lower;
      r.upper = b.upper;
    }
    r.pick_seed = cfg.test_seed.value_or(0);
    r.first_block = r.names.size();
    r.blocks = cfg.remote_parties;
    r.per_owner = cfg.per_owner;
    for (const auto& b : r.blocks)
      r.names.push_back(b.name);
    return r;
  }

  static void check(const run& r, std::size_t n) {
    check_actors("LDP boosting", "parties",
                 "the data user and at least one owner", n, r.names.size(),
                 r.load.size(), r.timeout, max_owners + 1);
    if (!r.load.empty() || r.restore)
      throw input_error("LDP boosting's parties are given their data in "
                        "this process (--data); parties that load their own "
                        "files are not supported yet");
    if (!r.parts.path.empty())
      throw input_error("LDP boosting keeps no model part files (no "
                        "--model-out)");
    if (!r.blocks.empty() && r.per_owner == 0)
      throw input_error("owners on nodes need ldp.samples_per_owner rows "
                        "each (at least 1)");
    r.params.validate();
  }

  static void open(driver& d, const run& r, ldpboost_result& result) {
    ldp::roster_settings settings{r.params,    r.lower, r.upper,
                                  r.pick_seed, {},      r.per_owner};
    result.lower = r.lower;
    result.upper = r.upper;
    result.owners = r.first_block - 1;
    if (!r.blocks.empty()) {
      // Each block loads its node's file; its rows make its owners.
      std::vector<std::size_t> blocks;
      for (std::size_t b = 0; b < r.blocks.size(); ++b)
        blocks.push_back(r.first_block + b);
      std::vector<std::uint64_t> rows(r.names.size(), 0);
      d.ask_all<session::data_summary>(
          "load the owners' rows",
          [&](std::size_t c) {
            session::load_request q{false, false,
                                    r.blocks[c - r.first_block].data, false};
            return std::make_tuple(messages::load_atom::value, std::move(q));
          },
          [&](std::size_t c, session::data_summary& s) { rows[c] = s.rows; },
          blocks);
      if (d.error)
        return;
      for (auto c : blocks) {
        auto owners = rows[c] / r.per_owner;
        if (owners == 0)
          return d.fail(errc::bad_input,
                        d.name(c) + ": its " + std::to_string(rows[c]) +
                            " rows make no owner of " +
                            std::to_string(r.per_owner) + " rows");
        result.owners += owners;
        if (result.owners > max_owners)
          return d.fail(errc::bad_input, "more than " +
                                             std::to_string(max_owners) +
                                             " owners in one session");
        settings.block_owners.push_back(static_cast<std::uint32_t>(owners));
      }
    }
    d.hand_out_roster(r, 0, settings);
  }

  static void train(driver& d, const run&, ldpboost_result& result) {
    std::vector<ldp::training_report> reports;
    auto seconds =
        d.train_step({0}, {0}, reports, [](std::size_t, session::trained&) {});
    if (d.error)
      return;
    result.train_seconds = seconds;
    auto& report = reports[0];
    auto ensemble = lb::decode(report.ensemble);
    if (!ensemble || ensemble->size() != report.alpha.size())
      return d.fail(errc::protocol_error,
                    d.name(0) + " reported a malformed ensemble");
    result.ensemble = std::move(*ensemble);
    result.alpha = std::move(report.alpha);
    result.errors = std::move(report.errors);
    result.rejected = report.rejected;
    result.burned = report.burned;
    result.silent = report.silent;
    result.stopped = std::move(report.stopped);
    result.staged_test_errors = std::move(report.staged_test_errors);
  }

  static void predict(driver& d, const run&, ldpboost_result& result) {
    auto seconds = d.predict_step([&](session::predicted& p) {
      result.margins = std::move(p.margins);
      result.labels = std::move(p.labels);
    });
    if (!d.error)
      result.predict_seconds = seconds;
  }
};

template class live_session<ldpboost_protocol>;

party_kind ldpboost_party_kind() {
  return kind_of<party_hooks>("ldp-boost");
}

caf::actor spawn_ldpboost_party(caf::actor_system& sys,
                                ldpboost_party_spec spec,
                                std::optional<std::uint64_t> test_seed,
                                std::int32_t index) {
  return spawn_given<party_hooks>(sys, std::move(spec), test_seed, index);
}

ldpboost_outcome run_ldpboost_actors(caf::actor_system& sys,
                                     std::vector<caf::actor> parties,
                                     const ldpboost_run& run) {
  return run_on_actors<ldpboost_protocol>(sys, std::move(parties), run);
}

} // namespace veil::actors
