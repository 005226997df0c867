// `veil node --listen HOST:PORT`: a party daemon for sessions whose parties
// run on several machines (actors/node.hpp).
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <unistd.h>

#include "actors/node.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/protocols.hpp"
#include "apps/veil/session_config.hpp"
#include "learners/input_error.hpp"

namespace veil::apps {

namespace {

/// An address only this machine reaches: 127.0.0.0/8, ::1, localhost.
bool is_loopback(const std::string& host) {
  auto h = host;
  if (h.size() > 1 && h.front() == '[' && h.back() == ']')
    h = h.substr(1, h.size() - 2);
  return h == "localhost" || h == "::1" || h.rfind("127.", 0) == 0;
}

namespace fs = std::filesystem;

/// An --allow entry as front_door::allowed() compares it: CN=NAME as
/// given; a fingerprint as lower-case hexadecimal without colons (openssl
/// x509 -fingerprint prints "AB:CD:…").
std::string allowed_peer(const std::string& a) {
  if (a.rfind("CN=", 0) == 0 && a.size() > 3)
    return a;
  if (a.rfind("sha256:", 0) == 0) {
    std::string hex;
    for (char c : a.substr(7))
      if (c != ':')
        hex += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (hex.size() == 64 &&
        hex.find_first_not_of("0123456789abcdef") == std::string::npos)
      return "sha256:" + hex;
  }
  throw input_error("--allow " + a +
                    ": expected sha256: and the 64 hexadecimal digits of a "
                    "certificate's SHA-256 fingerprint, or CN=NAME");
}

/// The datasets and the store of --config, --data and --store (the flags
/// add to and override the file), each dataset's file readable and the
/// store a folder only its owner reads.
actors::node_catalog node_catalog_of(const node_command_options& o) {
  actors::node_catalog c;
  if (!o.config.empty())
    c = load_node_file(o.config);
  std::set<std::string> flagged;
  for (const auto& d : o.data) {
    auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == d.size())
      throw input_error("--data " + d + ": expected NAME=PATH");
    auto name = d.substr(0, eq);
    if (!protocols::session::valid_name(name))
      throw input_error("--data " + d + ": the name \"" + name +
                        "\" may only hold letters, digits, '_', '-' and '.'");
    if (!flagged.insert(name).second)
      throw input_error("--data " + d + ": the name \"" + name +
                        "\" is given twice");
    c.datasets[name] = {
        fs::absolute(d.substr(eq + 1)).lexically_normal(), {}, {}};
  }
  if (c.datasets.empty())
    throw input_error("the node serves no data: give --data NAME=PATH for "
                      "each dataset its parties may load (or a --config "
                      "file with [datasets.NAME] tables)");
  for (auto& [name, d] : c.datasets) {
    std::error_code ec;
    if (fs::is_directory(d.path, ec) || ::access(d.path.c_str(), R_OK) != 0)
      throw input_error("dataset \"" + name + "\": cannot read " + d.path);
  }
  if (!o.store.empty())
    c.store = o.store;
  if (!c.store.empty()) {
    c.store = fs::absolute(c.store).lexically_normal().string();
    std::error_code ec;
    if (!fs::exists(c.store, ec)) {
      fs::create_directories(c.store, ec);
      if (ec)
        throw input_error("--store " + c.store +
                          ": cannot create it: " + ec.message());
      fs::permissions(c.store, fs::perms::owner_all, ec);
    }
    if (!fs::is_directory(c.store, ec))
      throw input_error("--store " + c.store + ": not a folder");
    if (::access(c.store.c_str(), W_OK) != 0)
      throw input_error("--store " + c.store + ": not writable");
  }
  return c;
}

} // namespace

int run_node(const node_command_options& o) {
  actors::node_options n;
  auto colon = o.listen.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw input_error("--listen " + o.listen +
                      ": expected HOST:PORT (port 0 "
                      "picks a free one)");
  n.host = o.listen.substr(0, colon);
  auto port_text = o.listen.substr(colon + 1);
  unsigned port = 0;
  auto [ptr, ec] = std::from_chars(port_text.data(),
                                   port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || ptr != port_text.data() + port_text.size() ||
      port > 65535)
    throw input_error("--listen " + o.listen + ": \"" + port_text +
                      "\" is not a port (0 to 65535)");
  n.port = static_cast<std::uint16_t>(port);
  n.once = o.once;
  n.threads = o.threads;
  n.tls = {o.tls_cert, o.tls_key, o.tls_ca};
  for (const auto& p : federated_protocols())
    n.kinds.push_back(p.kind());
  int given = !o.tls_cert.empty() + !o.tls_key.empty() + !o.tls_ca.empty();
  if (given != 0 && given != 3)
    throw input_error("--tls-cert, --tls-key and --tls-ca go together: give "
                      "all three or none");
  // Without TLS anyone who reaches the port drives the node: only this
  // machine may, unless the user says otherwise.
  if (given == 0 && !is_loopback(n.host) && !o.insecure)
    throw input_error(
        "--listen " + o.listen +
        ": without TLS a node accepts sessions from anyone who reaches the "
        "port; listen on 127.0.0.1, give --tls-cert/--tls-key/--tls-ca, or "
        "add --insecure on a network you trust");
  for (const auto& f : {o.tls_cert, o.tls_key, o.tls_ca})
    if (!f.empty() && !std::ifstream(f))
      throw input_error("cannot read the TLS file " + f);
  n.catalog = node_catalog_of(o);
  if (!o.allow.empty() && given == 0)
    throw input_error("--allow names coordinator certificates: give "
                      "--tls-cert, --tls-key and --tls-ca too");
  for (const auto& a : o.allow)
    n.allow.push_back(allowed_peer(a));
  if (o.max_message_mb < 1 || o.max_message_mb > 4095)
    throw input_error("--max-message-mb " + std::to_string(o.max_message_mb) +
                      ": expected 1 to 4095");
  if (o.max_connections < 1)
    throw input_error("--max-connections " + std::to_string(o.max_connections) +
                      ": expected at least 1");
  n.limits.max_frame_bytes = static_cast<std::uint32_t>(o.max_message_mb) << 20;
  n.limits.max_connections = static_cast<std::size_t>(o.max_connections);
  if (!(o.handshake_seconds > 0 && o.handshake_seconds <= 3600))
    throw input_error("--handshake-seconds " +
                      std::to_string(o.handshake_seconds) +
                      ": expected more than 0 and at most 3600");
  n.limits.handshake_timeout = std::chrono::milliseconds(
      static_cast<long long>(o.handshake_seconds * 1000));
  std::cout << "serving datasets " << n.catalog.names() << "; "
            << (n.catalog.store.empty()
                    ? std::string("keeping no model parts (no --store)")
                    : "model parts in " + n.catalog.store)
            << std::endl;
  return actors::serve_node(n, std::cout, std::cerr);
}

} // namespace veil::apps
