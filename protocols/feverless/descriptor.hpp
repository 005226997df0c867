#pragma once

#include "protocols/descriptor.hpp"

namespace veil::protocols::feverless {

/// The feverless protocol's descriptor (protocols/descriptor.hpp).
const protocols::descriptor& descriptor();

} // namespace veil::protocols::feverless
