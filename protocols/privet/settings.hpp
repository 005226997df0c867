#pragma once

// Privet's settings by name: the single way from the privet.* keys of its
// descriptor (--set, a session file's [protocol] table) to its params.

#include <string>

#include "protocols/privet/train.hpp"

namespace veil::protocols::privet {

/// Privet's settings, collected before a session or the reference uses
/// them.
struct named_settings {
  privet::params params;
  /// privet-plain: compute the sigmoid and the divisions as the protocol
  /// does (privet.approximate).
  bool approximate = false;
  /// privet: the dealer answers training's requests ahead (privet.dealer).
  bool dealer_ahead = true;
};

/// Applies one privet.* setting `key` = `value`, checked against the
/// descriptor's table; false if `key` is not one. `secure`: for `privet`
/// (privet.approximate is privet-plain's; the secure protocol's keys are
/// refused for privet-plain). `context` names it in errors ("--set KEY=V").
/// Throws veil::input_error.
bool apply_setting(named_settings& s, const std::string& key,
                   const std::string& value, const std::string& context,
                   bool secure);

} // namespace veil::protocols::privet
