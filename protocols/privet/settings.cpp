#include "protocols/privet/settings.hpp"

#include "learners/input_error.hpp"
#include "protocols/privet/descriptor.hpp"

namespace veil::protocols::privet {

namespace {

/// Keys only the secure protocol takes (the rest but privet.buckets are
/// privet-plain's).
bool secure_only(const std::string& key) {
  return key == "privet.hide_buckets" || key == "privet.sigmoid" ||
         key == "privet.truncation" || key == "privet.dealer";
}

} // namespace

bool apply_setting(named_settings& s, const std::string& key,
                   const std::string& value, const std::string& context,
                   bool secure) {
  const auto* setting = descriptor().find(key);
  if (!setting)
    return false;
  check_setting(*setting, value, context);
  if (key != "privet.buckets" && secure_only(key) != secure)
    throw input_error(context + ": only for --protocol " +
                      (secure ? "privet-plain" : "privet"));
  auto& p = s.params;
  if (key == "privet.buckets")
    p.buckets = static_cast<int>(*parse_finite(value));
  else if (key == "privet.approximate")
    s.approximate = value == "true";
  else if (key == "privet.hide_buckets")
    p.hide_buckets = value == "true";
  else if (key == "privet.dealer")
    s.dealer_ahead = value == "ahead";
  else if (key == "privet.sigmoid")
    p.paper_sigmoid = value == "paper";
  else if (key == "privet.truncation")
    p.truncation =
        value == "paper" ? mpc::truncation::paper : mpc::truncation::exact;
  return true;
}

} // namespace veil::protocols::privet
