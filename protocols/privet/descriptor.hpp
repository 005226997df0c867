#pragma once

#include "protocols/descriptor.hpp"

namespace veil::protocols::privet {

/// Privet's descriptor (protocols/descriptor.hpp). For now only its
/// plaintext reference, `privet-plain`, runs from the command line; the
/// secure protocol's parties are not actors yet (issue 16).
const protocols::descriptor& descriptor();

} // namespace veil::protocols::privet
