#include "protocols/session/wire.hpp"

#include <numeric>

namespace veil::protocols::session {

const char* to_string(errc code) {
  switch (code) {
  case errc::none:
    return "none";
  case errc::bad_input:
    return "bad_input";
  case errc::party_down:
    return "party_down";
  case errc::timeout:
    return "timeout";
  case errc::protocol_error:
    return "protocol_error";
  case errc::unknown_sender:
    return "unknown_sender";
  case errc::bad_request:
    return "bad_request";
  }
  return "unknown";
}

std::uint64_t byte_stats::total_sent() const {
  return std::accumulate(sent.begin(), sent.end(), std::uint64_t{0});
}

std::uint64_t byte_stats::total_received() const {
  return std::accumulate(received.begin(), received.end(), std::uint64_t{0});
}

} // namespace veil::protocols::session
