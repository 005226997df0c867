#include "actors/errors.hpp"

#include <caf/actor_control_block.hpp>
#include <caf/atom.hpp>
#include <caf/exit_reason.hpp>
#include <caf/message.hpp>
#include <caf/node_id.hpp>
#include <caf/sec.hpp>

#include <sstream>

namespace veil::actors {

using protocols::session::errc;

caf::error session_error(errc code, std::string message) {
  return caf::make_error(code, std::move(message));
}

std::string describe(const caf::error& err) {
  if (!err)
    return "normal exit";
  auto cat = err.category();
  if (cat == caf::atom("veil")) {
    if (err.context().match_elements<std::string>())
      return err.context().get_as<std::string>(0);
    return to_string(static_cast<errc>(err.code()));
  }
  if (cat == caf::atom("exit"))
    return "exit reason " +
           caf::to_string(static_cast<caf::exit_reason>(err.code()));
  if (cat == caf::atom("system"))
    return caf::to_string(static_cast<caf::sec>(err.code()));
  return caf::to_string(err);
}

errc code_of(const caf::error& err) {
  if (err.category() == caf::atom("veil"))
    return static_cast<errc>(err.code());
  if (err == caf::sec::request_timeout)
    return errc::timeout;
  return errc::party_down;
}

std::string unexpected_text(const caf::message& m) {
  if (m.empty())
    return "() (empty: a message that could not be decoded, or of a type "
           "this node does not know)";
  auto s = caf::to_string(m);
  if (s.size() > 120) {
    // In place: g++ 12 warns falsely (-Warray-bounds) on substr() + "...".
    s.resize(117);
    s += "...";
  }
  return s;
}

std::string node_text(const caf::strong_actor_ptr& sender) {
  if (!sender)
    return {};
  auto n = caf::to_string(sender->node());
  return n == "invalid-node" ? std::string() : " on node " + n;
}

std::string seconds_text(std::chrono::milliseconds d) {
  std::ostringstream s;
  s << static_cast<double>(d.count()) / 1000.0 << " s";
  return s.str();
}

} // namespace veil::actors
