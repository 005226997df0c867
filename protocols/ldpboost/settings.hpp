#pragma once

// LDP boosting's settings by name: the single way from the ldp.* keys and
// epsilon of its descriptor (--set, a session file's [protocol] table) to
// its params and how its data is dealt.

#include <cstddef>
#include <string>

#include "protocols/ldpboost/params.hpp"

namespace veil::protocols::ldpboost {

/// LDP boosting's settings, collected before a session uses them.
struct named_settings {
  ldpboost::params params;
  std::size_t per_owner = 4;   ///< ldp.samples_per_owner
  std::string user_data;       ///< ldp.user_data
  double user_fraction = 0.05; ///< ldp.user_fraction
  double test_fraction = 0.2;  ///< ldp.test_fraction
  std::string owner_nodes;     ///< ldp.owner_nodes, as given
};

/// Applies one setting `key` = `value` (an ldp.* key, or epsilon), checked
/// against the descriptor's table; false if `key` is neither. `context`
/// names it in errors ("--set KEY=V"). Throws veil::input_error.
bool apply_setting(named_settings& s, const std::string& key,
                   const std::string& value, const std::string& context);

} // namespace veil::protocols::ldpboost
