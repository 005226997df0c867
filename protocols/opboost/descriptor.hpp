#pragma once

#include "protocols/descriptor.hpp"

namespace veil::protocols::opboost {

/// The opboost protocol's descriptor (protocols/descriptor.hpp).
const protocols::descriptor& descriptor();

} // namespace veil::protocols::opboost
