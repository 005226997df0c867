#pragma once

#include "protocols/descriptor.hpp"

namespace veil::protocols::masked {

/// MaskedXGBoost's descriptor (protocols/descriptor.hpp).
const protocols::descriptor& descriptor();

} // namespace veil::protocols::masked
