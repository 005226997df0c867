#include "messages/register.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/message.hpp>

#include "messages/session.hpp"
#include "messages/type_ids.hpp"

namespace veil::messages {

namespace {

/// Session errors carry one human-readable string as context: show it.
std::string render_error(std::uint8_t code, caf::atom_value,
                         const caf::message& context) {
  auto name = to_string(static_cast<protocols::session::errc>(code));
  if (context.match_elements<std::string>())
    return std::string(name) + ": " + context.get_as<std::string>(0);
  return std::string(name) + (context.empty() ? "" : ": " + to_string(context));
}

} // namespace

void register_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::veil>();
  cfg.add_error_category(caf::atom("veil"), render_error);
}

} // namespace veil::messages
