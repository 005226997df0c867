#pragma once

namespace caf {
class actor_system_config;
} // namespace caf

namespace veil::messages {

/// Adds Veil's message types (the `veil` type ID block, under their stable
/// names) and the "veil" error category to `cfg`. Every binary and test
/// fixture calls this before constructing its actor_system; nodes that
/// talk to each other must agree on it.
void register_types(caf::actor_system_config& cfg);

} // namespace veil::messages
