#pragma once

#include "protocols/descriptor.hpp"

namespace veil::protocols::privet {

/// Privet's descriptor (protocols/descriptor.hpp): `privet` (the secure
/// protocol, its parties and dealer as actors) and `privet-plain` (its
/// plaintext reference on one party).
const protocols::descriptor& descriptor();

} // namespace veil::protocols::privet
