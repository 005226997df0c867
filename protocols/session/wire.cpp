#include "protocols/session/wire.hpp"

#include <cctype>
#include <numeric>

namespace veil::protocols::session {

bool valid_name(const std::string& s) {
  if (s.empty() || s == "." || s == "..")
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
          c == '.'))
      return false;
  return true;
}

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
  case errc::interrupted:
    return "interrupted";
  }
  return "unknown";
}

std::uint64_t byte_stats::total_sent() const {
  return std::accumulate(sent.begin(), sent.end(), std::uint64_t{0});
}

std::uint64_t byte_stats::total_received() const {
  return std::accumulate(received.begin(), received.end(), std::uint64_t{0});
}

void put_metrics(const std::map<std::string, double>& metrics,
                 std::vector<std::string>& names, std::vector<double>& values) {
  for (const auto& [name, value] : metrics) {
    names.push_back(name);
    values.push_back(value);
  }
}

std::map<std::string, double> metrics_of(const std::vector<std::string>& names,
                                         const std::vector<double>& values) {
  std::map<std::string, double> out;
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i)
    out[names[i]] = values[i];
  return out;
}

std::vector<round_metrics>
to_wire(const std::vector<learners::round_info>& history) {
  std::vector<round_metrics> out;
  out.reserve(history.size());
  for (const auto& r : history) {
    round_metrics m;
    m.round = r.round;
    put_metrics(r.valid, m.names, m.values);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<learners::round_info>
from_wire(const std::vector<round_metrics>& history, int rounds) {
  std::vector<learners::round_info> out;
  out.reserve(history.size());
  for (const auto& m : history) {
    learners::round_info r;
    r.round = m.round;
    r.rounds = rounds;
    r.valid = metrics_of(m.names, m.values);
    out.push_back(std::move(r));
  }
  return out;
}

} // namespace veil::protocols::session
