#pragma once

// The typed interfaces of Veil's actors, identical on every node (a remote
// handshake compares them signature by signature). Party-to-party messages
// are the protocol's wire structs, dispatched on their type; session steps
// are requests tagged with an atom.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/type_ids.hpp"
#include "protocols/plain/wire.hpp"
#include "protocols/session/wire.hpp"

namespace veil::actors {

/// A party of a session: loads its own data, then hosts the active or the
/// passive role of the plain protocol (party 0 is the active one).
using party_actor = caf::typed_actor<
    // -- session steps, coordinator -> party ----------------------------------
    caf::replies_to<messages::load_atom, protocols::session::load_request>::
        with<protocols::session::data_summary>,
    caf::replies_to<messages::align_atom,
                    protocols::session::align_request>::with<std::uint64_t>,
    caf::replies_to<messages::peers_atom, protocols::session::roster,
                    std::vector<caf::actor>>::with<caf::ok_atom>,
    caf::replies_to<messages::train_atom, protocols::session::train_request>::
        with<protocols::session::training_outcome>,
    caf::replies_to<messages::predict_atom,
                    protocols::session::predict_request>::
        with<protocols::session::prediction>,
    caf::replies_to<messages::splits_atom>::with<
        protocols::session::split_export>,
    caf::replies_to<messages::part_atom,
                    protocols::session::part_request>::with<std::uint64_t>,
    caf::replies_to<messages::stats_atom>::with<protocols::session::byte_stats>,
    // -- timer (self-sent)
    // ------------------------------------------------------
    caf::reacts_to<messages::tick_atom, std::uint64_t>,
    // -- plain protocol, party <-> party
    // ----------------------------------------
    caf::reacts_to<protocols::plain::setup>,
    caf::reacts_to<protocols::plain::setup_done>,
    caf::reacts_to<protocols::plain::tree_start>,
    caf::reacts_to<protocols::plain::level_request>,
    caf::reacts_to<protocols::plain::histograms>,
    caf::reacts_to<protocols::plain::split_query>,
    caf::reacts_to<protocols::plain::split_answer>,
    caf::reacts_to<protocols::plain::predict_query>,
    caf::reacts_to<protocols::plain::predict_answer>,
    caf::reacts_to<protocols::plain::failure>>;

/// A party daemon (`veil node`): on request from a coordinator it spawns a
/// party of the given name and protocol kind ("plain": a party_actor,
/// "feverless": a FEVERLESS client, "opboost": an OpBoost party; see
/// spawn_kind in actors/remote.hpp)
/// on its node and returns its handle, sent untyped. The request carries
/// the coordinator's messages::handshake() (Veil version and wire
/// fingerprint); another build's is refused, naming both, and so is an
/// unknown kind. It monitors the requester and ends the parties it spawned
/// for it when the requester goes away.
using node_actor = caf::typed_actor<
    caf::replies_to<messages::spawn_atom, std::string, std::string,
                    std::string>::with<caf::actor>>;

} // namespace veil::actors
