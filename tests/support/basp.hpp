#pragma once

// Raw sockets and BASP headers for tests that speak to a node's or a
// coordinator's relay the way an attacker would.

#include <cstdint>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/io/basp/header.hpp>

namespace veil::test {

/// A TCP connection to 127.0.0.1:port (blocking unless `nonblocking`),
/// from `source` (another loopback address plays another machine).
inline int dial(int port, bool nonblocking = false,
                const char* source = nullptr) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (nonblocking)
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (source) {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &from.sin_addr);
    ::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from);
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  return fd;
}

/// A listening socket on 127.0.0.1 and its port.
inline std::pair<int, int> listener() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::listen(fd, 16);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return {fd, ntohs(a.sin_port)};
}

/// A BASP header in CAF's own encoding.
inline std::vector<char> basp_header(caf::io::basp::message_type op,
                                     std::uint32_t payload,
                                     std::uint64_t operation_data = 0,
                                     std::uint64_t dest_actor = 0) {
  caf::io::basp::header h{op, 0, payload, operation_data, 0, dest_actor};
  std::vector<char> buf;
  caf::binary_serializer sink{static_cast<caf::execution_unit*>(nullptr), buf};
  if (sink(h))
    BOOST_FAIL("cannot encode a BASP header");
  return buf;
}

} // namespace veil::test
