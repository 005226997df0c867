#pragma once

// Where a party runs decides what it may touch. In the coordinator's own
// process it opens the files the session names: they are the user's. On a
// `veil node` it serves another organisation's coordinator, so the node
// decides: the party loads only datasets the node was started with, by the
// names it serves them under (never a path), and only those its spawn
// request named; it uses only the columns the node allows; it keeps its
// model parts in the node's store; it obeys only the coordinator that asked
// for it; and no error it sends back carries the node's paths or file
// contents (the node's own log has the details).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor_addr.hpp>

#include "actors/session.hpp"
#include "protocols/session/wire.hpp"

namespace veil::actors {

/// How a party was started: `node` is null for a party in the
/// coordinator's process; otherwise the catalog of the node that hosts it,
/// the datasets its spawn request named and the actor that asked for it.
struct hosting {
  std::shared_ptr<const node_catalog> node;
  std::vector<std::string> datasets;
  caf::actor_addr owner;

  bool hosted() const { return node != nullptr; }
};

/// `s` safe for a log line: control characters as '?', at most 200
/// characters (a name from a coordinator must not forge the node's log).
std::string printable(const std::string& s);

/// Why a node refuses a spawn request naming `datasets`: a name it does not
/// serve (a path is not a name); empty when it serves them all.
std::string refuse_datasets(const node_catalog& catalog,
                            const std::vector<std::string>& datasets);

/// What a hosted party reads for `spec`: the node's path for the dataset
/// `spec.path` names, and its columns checked against the ones the node
/// allows (no feature list: every allowed column but the id and the label).
/// Throws input_error naming the dataset and the column, never the path.
protocols::session::data_spec
served_spec(const hosting& host, const protocols::session::data_spec& spec);

/// `message` with every mention of a served dataset's path replaced by the
/// dataset's name (what a hosted party's read error says to the
/// coordinator).
std::string without_paths(const hosting& host, std::string message);

/// The file a hosted party keeps its part of model `model_id` in, in its
/// node's store. Throws input_error if the node keeps no parts or the id is
/// not one Veil makes (32 hexadecimal digits).
std::string stored_part_path(const hosting& host, const std::string& party,
                             const std::string& model_id);

} // namespace veil::actors
