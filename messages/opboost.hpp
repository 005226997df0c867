#pragma once

// Binds the messages of OpBoost (protocols/opboost/wire.hpp, M0-M4) to CAF,
// and declares the session messages between the OpBoost coordinator and its
// party actors. Vectors travel as raw blocks, every single floating-point
// value as its bit pattern (raw_block.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "learners/boost/model.hpp"
#include "messages/failure.hpp"
#include "messages/learners.hpp"
#include "messages/raw_block.hpp"
#include "messages/session.hpp"
#include "protocols/opboost/params.hpp"
#include "protocols/opboost/privacy.hpp"
#include "protocols/opboost/wire.hpp"

namespace veil::protocols::opboost {

/// Every field: the settings both sides of a session must agree on.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, domain& x) {
  return f(caf::meta::type_name("veil::protocols::opboost::domain"), x.lo,
           x.hi);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, mechanism_params& x) {
  using veil::messages::exact;
  return f(caf::meta::type_name("veil::protocols::opboost::mechanism_params"),
           x.kind, x.sampler, exact(x.epsilon), x.theta, exact(x.alpha),
           x.dsize, x.layout);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, params& x) {
  return f(caf::meta::type_name("veil::protocols::opboost::params"), x.dom,
           x.mechanism, x.budget, x.learner, x.threshold, x.booster);
}

} // namespace veil::protocols::opboost

namespace veil::messages {

/// Session messages of an OpBoost session (coordinator <-> party).
namespace opl {

/// What the roster (session::roster::settings) tells every party: the
/// protocol's settings, and the public pre-processing bounds by column (a
/// Party B that loaded its data maps each of its columns with its bounds,
/// or with its data's min and max when it has none; one given its maps at
/// spawn ignores them).
struct roster_settings {
  protocols::opboost::params params;
  std::vector<std::string> bound_columns;
  std::vector<double> bound_lower, bound_upper;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, roster_settings& x) {
  return f(caf::meta::type_name("veil::messages::opl::roster_settings"),
           x.params, x.bound_columns, raw(x.bound_lower), raw(x.bound_upper));
}

} // namespace opl

} // namespace veil::messages

namespace veil::protocols::opboost {

using veil::messages::exact;
using veil::messages::raw;

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, training_report& x) {
  return f(caf::meta::type_name("veil::protocols::opboost::training_report"),
           x.report, x.what, x.mechanism, raw(x.kinds), raw(x.epsilon),
           raw(x.epsilon_prt), raw(x.epsilon_ner), raw(x.theta));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, schema& x) {
  return f(caf::meta::type_name("veil::protocols::opboost::schema"), x.rows,
           x.names, raw(x.kinds), raw(x.lower), raw(x.upper), raw(x.fill),
           x.domain_lo, x.domain_hi);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ranks& x) {
  return f(caf::meta::type_name("veil::protocols::opboost::ranks"), x.rows,
           raw(x.values));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, split_request& x) {
  return f(caf::meta::type_name("veil::protocols::opboost::split_request"),
           raw(x.offsets), raw(x.ranks));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, split_values& x) {
  return f(caf::meta::type_name("veil::protocols::opboost::split_values"),
           raw(x.values));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, predict_request& x) {
  return f(caf::meta::type_name("veil::protocols::opboost::predict_request"),
           x.batch, x.rows);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, predict_values& x) {
  return f(caf::meta::type_name("veil::protocols::opboost::predict_values"),
           x.batch, x.rows, raw(x.values));
}

} // namespace veil::protocols::opboost
