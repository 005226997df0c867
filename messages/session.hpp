#pragma once

// Binds the session-level messages (protocols/session/wire.hpp) to CAF:
// inspect() overloads in the structs' namespace, and the "veil" error
// category for session errors (errc).

#include <cstdint>
#include <vector>

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/error.hpp>
#include <caf/meta/type_name.hpp>

#include "messages/learners.hpp"
#include "messages/raw_block.hpp"
#include "protocols/session/wire.hpp"

CAF_ERROR_CODE_ENUM(veil::protocols::session::errc, "veil")

namespace veil::protocols::session {

using veil::messages::exact;
using veil::messages::raw;

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, data_spec& x) {
  return f(caf::meta::type_name("veil::protocols::session::data_spec"), x.path,
           x.id_column, x.feature_columns, x.label_column);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, load_request& x) {
  return f(caf::meta::type_name("veil::protocols::session::load_request"),
           x.test, x.same_as_train, x.data, x.labels_optional);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, data_summary& x) {
  return f(caf::meta::type_name("veil::protocols::session::data_summary"),
           x.rows, x.feature_names, x.has_labels, x.ids, x.labels);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, align_request& x) {
  return f(caf::meta::type_name("veil::protocols::session::align_request"),
           x.test, raw(x.rows));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, link_model& x) {
  return f(caf::meta::type_name("veil::protocols::session::link_model"),
           exact(x.latency_ms), exact(x.bandwidth_mbps), exact(x.idle_seconds));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, roster& x) {
  return f(caf::meta::type_name("veil::protocols::session::roster"), x.self,
           x.names, x.timeout_ms, x.link, x.hub, raw(x.settings));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, round_done& x) {
  return f(caf::meta::type_name("veil::protocols::session::round_done"),
           x.trees, x.bytes);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, round_metrics& x) {
  return f(caf::meta::type_name("veil::protocols::session::round_metrics"),
           x.round, x.names, raw(x.values));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, trained& x) {
  return f(caf::meta::type_name("veil::protocols::session::trained"), x.model,
           exact(x.seconds), exact(x.prepare_seconds), x.own_splits,
           raw(x.report), x.history, x.early_stop);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, predicted& x) {
  return f(caf::meta::type_name("veil::protocols::session::predicted"),
           raw(x.margins), exact(x.seconds), x.metric_names,
           raw(x.metric_values), raw(x.labels), x.staged_stride, raw(x.staged));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, split_entry& x) {
  return f(caf::meta::type_name("veil::protocols::session::split_entry"),
           x.tree, x.node, x.feature, exact(x.threshold), x.default_left);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, split_export& x) {
  return f(caf::meta::type_name("veil::protocols::session::split_export"),
           x.party, x.splits);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, part_request& x) {
  return f(caf::meta::type_name("veil::protocols::session::part_request"),
           x.save, x.path, x.model_id, x.model, x.features, x.trees);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, byte_stats& x) {
  return f(caf::meta::type_name("veil::protocols::session::byte_stats"),
           x.party, x.types, raw(x.sent), raw(x.received), raw(x.link_peers),
           raw(x.link_bytes), raw(x.link_turns), exact(x.busy_seconds));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, progress_report& x) {
  return f(caf::meta::type_name("veil::protocols::session::progress_report"),
           x.phase, x.done, x.total, x.metric_names, raw(x.metric_values),
           x.bytes);
}

} // namespace veil::protocols::session

namespace veil::messages {

/// A protocol's own report (any struct with an inspect()) as the bytes a
/// session::trained carries: what the protocol tells its coordinator
/// without a message type of its own.
template <class T>
std::vector<std::uint8_t> pack(T x) {
  std::vector<char> bytes;
  caf::binary_serializer sink{static_cast<caf::execution_unit*>(nullptr),
                              bytes};
  if (auto err = sink(x))
    return {}; // not reached: inspect() of plain data does not fail
  return {bytes.begin(), bytes.end()};
}

/// The report `pack` made, into `x`; false if `bytes` are not one T.
template <class T>
bool unpack(const std::vector<std::uint8_t>& bytes, T& x) {
  caf::binary_deserializer source{static_cast<caf::execution_unit*>(nullptr),
                                  reinterpret_cast<const char*>(bytes.data()),
                                  bytes.size()};
  return !source(x) && source.remaining() == 0;
}

} // namespace veil::messages
