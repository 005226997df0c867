#include "protocols/ldpboost/settings.hpp"

#include "protocols/ldpboost/descriptor.hpp"

namespace veil::protocols::ldpboost {

bool apply_setting(named_settings& s, const std::string& key,
                   const std::string& value, const std::string& context) {
  const auto* setting = descriptor().find(key);
  if (!setting)
    return false;
  check_setting(*setting, value, context);
  auto number = [&] { return *parse_finite(value); };
  auto& p = s.params;
  if (key == "epsilon")
    p.epsilon = number();
  else if (key == "ldp.mechanism")
    p.mech = value == "piecewise" ? mechanism::piecewise
             : value == "duchi"   ? mechanism::duchi
             : value == "laplace" ? mechanism::laplace
                                  : mechanism::identity;
  else if (key == "ldp.learner")
    p.base = value == "ncc"     ? learner::ncc
             : value == "stump" ? learner::stump
                                : learner::lr;
  else if (key == "ldp.owners_per_round")
    p.owners_per_round = static_cast<std::size_t>(number());
  else if (key == "ldp.samples_per_owner")
    s.per_owner = static_cast<std::size_t>(number());
  else if (key == "ldp.max_attempts")
    p.max_attempts = static_cast<int>(number());
  else if (key == "ldp.lambda")
    p.lr_lambda = number();
  else if (key == "ldp.user_data")
    s.user_data = value;
  else if (key == "ldp.user_fraction")
    s.user_fraction = number();
  else if (key == "ldp.test_fraction")
    s.test_fraction = number();
  else if (key == "ldp.owner_nodes")
    s.owner_nodes = value == "none" ? "" : value;
  return true;
}

} // namespace veil::protocols::ldpboost
