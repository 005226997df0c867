#pragma once

#include "protocols/descriptor.hpp"

namespace veil::protocols::plain {

/// The plain protocol's descriptor (protocols/descriptor.hpp).
const protocols::descriptor& descriptor();

} // namespace veil::protocols::plain
