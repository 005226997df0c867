#pragma once

// Binds the refusal every protocol shares (protocols/bits.hpp) to CAF.

#include <caf/meta/type_name.hpp>

#include "protocols/bits.hpp"

namespace veil::protocols {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, failure& x) {
  return f(caf::meta::type_name("veil::protocols::failure"), x.step, x.reason);
}

} // namespace veil::protocols
