#pragma once

#include "protocols/descriptor.hpp"

namespace veil::protocols::ldpboost {

/// LDP boosting's descriptor (protocols/descriptor.hpp): `ldp-boost`.
const protocols::descriptor& descriptor();

} // namespace veil::protocols::ldpboost
