#pragma once

// The one CAF type ID block of Veil: every type that is a top-level element
// of a message between actors, under a stable namespaced name (the name is
// the stringified type, identical on every node), and the command atoms
// (at most 10 characters each). New types go at the end of their group;
// the names, not the numbers, are what nodes compare.

#include <caf/atom.hpp>
#include <caf/type_id.hpp>

#include "messages/feverless.hpp"
#include "messages/ldpboost.hpp"
#include "messages/opboost.hpp"
#include "messages/plain.hpp"
#include "messages/privet.hpp"
#include "protocols/session/wire.hpp"

CAF_BEGIN_TYPE_ID_BLOCK(veil, caf::first_custom_type_id)

// -- plaintext vertical federated XGBoost (protocols/plain/wire.hpp) -------

CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::setup))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::setup_done))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::tree_start))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::level_request))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::histograms))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::noise_matrices))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::masked_sums))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::passive_scores))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::scored_split_query))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::noisy_gradients))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::bucket_ids))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::bucket_splits))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::encrypted_gradients))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::encrypted_histograms))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::split_query))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::split_answer))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::predict_query))
CAF_ADD_TYPE_ID(veil, (veil::protocols::plain::predict_answer))
CAF_ADD_TYPE_ID(veil, (veil::protocols::failure)) // every protocol's refusal

// -- session (protocols/session/wire.hpp) -----------------------------------

CAF_ADD_TYPE_ID(veil, (veil::protocols::session::load_request))
CAF_ADD_TYPE_ID(veil, (veil::protocols::session::data_summary))
CAF_ADD_TYPE_ID(veil, (veil::protocols::session::align_request))
CAF_ADD_TYPE_ID(veil, (veil::protocols::session::roster))
CAF_ADD_TYPE_ID(veil, (veil::protocols::session::trained))
CAF_ADD_TYPE_ID(veil, (veil::protocols::session::predicted))
CAF_ADD_TYPE_ID(veil, (veil::protocols::session::split_export))
CAF_ADD_TYPE_ID(veil, (veil::protocols::session::byte_stats))
CAF_ADD_TYPE_ID(veil, (veil::protocols::session::progress_report))
CAF_ADD_TYPE_ID(veil, (veil::protocols::session::part_request))
CAF_ADD_TYPE_ID(veil, (veil::protocols::session::round_done))

// -- FEVERLESS and its baselines (protocols/feverless/wire.hpp) -----------

CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::key_announce))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::label_census))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::query_batch))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::lead_tickets))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::threshold_tickets))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::noise_offers))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::noise_notice))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::masked_sums))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::plain_sums))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::encrypted_sums))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::best_gains))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::node_decisions))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::predict_query))
CAF_ADD_TYPE_ID(veil, (veil::protocols::feverless::predict_answer))
CAF_ADD_TYPE_ID(veil, (veil::messages::fvl::identity_key))
CAF_ADD_TYPE_ID(veil, (veil::messages::fvl::eval_labels))

// -- OpBoost (protocols/opboost/wire.hpp) ------------------------------------

CAF_ADD_TYPE_ID(veil, (veil::protocols::opboost::schema))
CAF_ADD_TYPE_ID(veil, (veil::protocols::opboost::ranks))
CAF_ADD_TYPE_ID(veil, (veil::protocols::opboost::split_request))
CAF_ADD_TYPE_ID(veil, (veil::protocols::opboost::split_values))
CAF_ADD_TYPE_ID(veil, (veil::protocols::opboost::predict_request))
CAF_ADD_TYPE_ID(veil, (veil::protocols::opboost::predict_values))

// -- Privet (protocols/privet/wire.hpp)
// ----------------------------------------

CAF_ADD_TYPE_ID(veil, (veil::protocols::privet::round_words))
CAF_ADD_TYPE_ID(veil, (veil::protocols::privet::dealer_seed))
CAF_ADD_TYPE_ID(veil, (veil::protocols::privet::correlation_ask))
CAF_ADD_TYPE_ID(veil, (veil::protocols::privet::correlation_answer))

// -- LDP boosting (protocols/ldpboost/wire.hpp)
// --------------------------------

CAF_ADD_TYPE_ID(veil, (veil::protocols::ldpboost::share_request))
CAF_ADD_TYPE_ID(veil, (veil::protocols::ldpboost::share_reply))
CAF_ADD_TYPE_ID(veil, (veil::protocols::ldpboost::block_request))
CAF_ADD_TYPE_ID(veil, (veil::protocols::ldpboost::block_reply))

// -- command atoms -----------------------------------------------------------

CAF_ADD_ATOM(veil, veil::messages, load_atom, "load")
CAF_ADD_ATOM(veil, veil::messages, align_atom, "align")
CAF_ADD_ATOM(veil, veil::messages, peers_atom, "peers")
CAF_ADD_ATOM(veil, veil::messages, train_atom, "train")
CAF_ADD_ATOM(veil, veil::messages, predict_atom, "predict")
CAF_ADD_ATOM(veil, veil::messages, splits_atom, "splits")
CAF_ADD_ATOM(veil, veil::messages, stats_atom, "stats")
CAF_ADD_ATOM(veil, veil::messages, tick_atom, "tick")
CAF_ADD_ATOM(veil, veil::messages, spawn_atom, "spawn")
CAF_ADD_ATOM(veil, veil::messages, keys_atom, "keys")
CAF_ADD_ATOM(veil, veil::messages, labels_atom, "labels")
CAF_ADD_ATOM(veil, veil::messages, part_atom, "part")
CAF_ADD_ATOM(veil, veil::messages, next_atom, "next")
CAF_ADD_ATOM(veil, veil::messages, stop_atom, "stop")
CAF_ADD_ATOM(veil, veil::messages, deadline_atom, "deadline")
CAF_ADD_ATOM(veil, veil::messages, owner_atom, "owner")

CAF_END_TYPE_ID_BLOCK(veil)
