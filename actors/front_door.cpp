#include "actors/front_door.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <system_error>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <caf/binary_deserializer.hpp>
#include <caf/io/basp/header.hpp>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "learners/input_error.hpp"

namespace veil::actors {

namespace {

using clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// -- sockets ------------------------------------------------------------------

/// Closes a descriptor once.
struct fd_guard {
  int fd = -1;
  fd_guard() = default;
  explicit fd_guard(int f) : fd(f) {}
  fd_guard(fd_guard&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
  fd_guard& operator=(fd_guard&& o) noexcept {
    reset(std::exchange(o.fd, -1));
    return *this;
  }
  ~fd_guard() { reset(); }
  void reset(int f = -1) {
    if (fd >= 0)
      ::close(fd);
    fd = f;
  }
};

/// OpenSSL writes with write(2): a peer that closed mid-handshake would
/// end the process with SIGPIPE instead of failing the one connection.
void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { std::signal(SIGPIPE, SIG_IGN); });
}

void set_nonblocking(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::string errno_text() {
  return std::strerror(errno);
}

/// "HOST:PORT" of a socket's peer.
std::string peer_of(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return "an unknown address";
  char host[INET6_ADDRSTRLEN] = "?";
  std::uint16_t port = 0;
  if (a.ss_family == AF_INET) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&a);
    ::inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
    port = ntohs(v4->sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&a);
  ::inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
  port = ntohs(v6->sin6_port);
  return "[" + std::string(host) + "]:" + std::to_string(port);
}

std::uint16_t local_port_of(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  if (a.ss_family == AF_INET)
    return ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  return ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
}

std::string bare_host(std::string h) {
  if (h.size() > 1 && h.front() == '[' && h.back() == ']')
    h = h.substr(1, h.size() - 2);
  return h;
}

/// A listening socket on host:port; throws input_error.
fd_guard listen_on(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  auto h = bare_host(host);
  if (int rc =
          ::getaddrinfo(h.c_str(), std::to_string(port).c_str(), &hints, &res);
      rc != 0)
    throw input_error("cannot listen on " + host + ":" + std::to_string(port) +
                      ": " + ::gai_strerror(rc));
  std::string why = "no address";
  for (auto* ai = res; ai; ai = ai->ai_next) {
    fd_guard fd(::socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol));
    if (fd.fd < 0)
      continue;
    int one = 1;
    ::setsockopt(fd.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
        ::listen(fd.fd, 128) == 0) {
      ::freeaddrinfo(res);
      set_nonblocking(fd.fd);
      return fd;
    }
    why = errno_text();
  }
  ::freeaddrinfo(res);
  throw input_error("cannot listen on " + host + ":" + std::to_string(port) +
                    ": " + why);
}

/// Waits for `events` on fd until `deadline`; false on timeout or error.
bool wait_for(int fd, short events, clock::time_point deadline) {
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - clock::now());
    if (left <= 0ms)
      return false;
    pollfd p{fd, events, 0};
    int rc = ::poll(&p, 1,
                    static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (rc > 0)
      return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (rc < 0 && errno != EINTR)
      return false;
  }
}

/// A connected socket to host:port within `deadline`, or the reason.
std::pair<fd_guard, std::string> connect_to(const std::string& host,
                                            std::uint16_t port,
                                            clock::time_point deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  auto h = bare_host(host);
  if (int rc =
          ::getaddrinfo(h.c_str(), std::to_string(port).c_str(), &hints, &res);
      rc != 0)
    return {fd_guard{}, ::gai_strerror(rc)};
  std::string why = "no address";
  for (auto* ai = res; ai; ai = ai->ai_next) {
    fd_guard fd(::socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol));
    if (fd.fd < 0)
      continue;
    set_nonblocking(fd.fd);
    if (::connect(fd.fd, ai->ai_addr, ai->ai_addrlen) != 0 &&
        errno != EINPROGRESS) {
      why = errno_text();
      continue;
    }
    if (!wait_for(fd.fd, POLLOUT, deadline)) {
      why = "timed out";
      continue;
    }
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      why = std::strerror(err);
      continue;
    }
    ::freeaddrinfo(res);
    return {std::move(fd), std::string()};
  }
  ::freeaddrinfo(res);
  return {fd_guard{}, why};
}

// -- TLS ----------------------------------------------------------------------

struct ctx_deleter {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
struct ssl_deleter {
  void operator()(SSL* s) const { SSL_free(s); }
};
using ctx_ptr = std::unique_ptr<SSL_CTX, ctx_deleter>;
using ssl_ptr = std::unique_ptr<SSL, ssl_deleter>;

std::string ssl_errors() {
  std::string s;
  while (auto e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    s += (s.empty() ? "" : "; ") + std::string(buf);
  }
  return s.empty() ? "unknown TLS error" : s;
}

/// A context that presents `tls`'s certificate and requires the peer's,
/// signed by its CA. Throws input_error naming the file that fails.
ctx_ptr make_context(const tls_files& tls, bool server) {
  ctx_ptr ctx(SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()));
  if (!ctx)
    throw input_error("TLS: " + ssl_errors());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), tls.certificate.c_str()) !=
      1)
    throw input_error("TLS certificate " + tls.certificate + ": " +
                      ssl_errors());
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), tls.key.c_str(),
                                  SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1)
    throw input_error("TLS key " + tls.key + ": " + ssl_errors());
  if (SSL_CTX_load_verify_locations(ctx.get(), tls.ca.c_str(), nullptr) != 1)
    throw input_error("TLS CA " + tls.ca + ": " + ssl_errors());
  SSL_CTX_set_verify(
      ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  // No session tickets: nothing arrives after the handshake but data.
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET);
  if (server)
    SSL_CTX_set_num_tickets(ctx.get(), 0);
  SSL_CTX_clear_mode(ctx.get(), SSL_MODE_AUTO_RETRY);
  // A repeated write may come from a moved buffer and finish in part.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                                  SSL_MODE_ENABLE_PARTIAL_WRITE);
  return ctx;
}

peer_certificate certificate_of(SSL* ssl) {
  peer_certificate c;
  X509* x = SSL_get1_peer_certificate(ssl);
  if (!x)
    return c;
  BIO* b = BIO_new(BIO_s_mem());
  X509_NAME_print_ex(b, X509_get_subject_name(x), 0, XN_FLAG_RFC2253);
  char* text = nullptr;
  auto n = BIO_get_mem_data(b, &text);
  c.subject.assign(text, static_cast<std::size_t>(n));
  BIO_free(b);
  auto* name = X509_get_subject_name(x);
  for (int at = X509_NAME_get_index_by_NID(name, NID_commonName, -1); at >= 0;
       at = X509_NAME_get_index_by_NID(name, NID_commonName, at)) {
    unsigned char* utf8 = nullptr;
    int len = ASN1_STRING_to_UTF8(
        &utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, at)));
    if (len >= 0)
      c.common_names.emplace_back(reinterpret_cast<char*>(utf8),
                                  static_cast<std::size_t>(len));
    OPENSSL_free(utf8);
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  X509_digest(x, EVP_sha256(), md, &len);
  static const char* hex = "0123456789abcdef";
  c.fingerprint = "sha256:";
  for (unsigned i = 0; i < len; ++i) {
    c.fingerprint += hex[md[i] >> 4];
    c.fingerprint += hex[md[i] & 15];
  }
  X509_free(x);
  return c;
}

/// One side of a relay: a non-blocking socket, with TLS or without.
struct channel {
  fd_guard fd;
  ssl_ptr ssl;

  /// TLS handshake within `deadline` (a no-op without TLS); the reason on
  /// failure.
  std::string handshake(bool server, clock::time_point deadline) {
    if (!ssl)
      return {};
    while (true) {
      ERR_clear_error();
      int r = server ? SSL_accept(ssl.get()) : SSL_connect(ssl.get());
      if (r == 1)
        return {};
      int e = SSL_get_error(ssl.get(), r);
      if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        if (!wait_for(fd.fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
                      deadline))
          return "the TLS handshake did not finish in time";
        continue;
      }
      auto v = SSL_get_verify_result(ssl.get());
      if (v != X509_V_OK)
        return std::string("the peer's certificate: ") +
               X509_verify_cert_error_string(v);
      return "TLS handshake failed: " + ssl_errors();
    }
  }

  /// What read_some returns when no more bytes will come: the peer ended
  /// what it sends (it may still read), or the channel failed (the peer
  /// will read nothing more either).
  static constexpr long ended = -1;
  static constexpr long failed = -2;

  /// Bytes read into buf (> 0), 0 if none are ready, `ended` or `failed`.
  long read_some(unsigned char* buf, std::size_t n) {
    if (ssl) {
      ERR_clear_error();
      int r = SSL_read(ssl.get(), buf, static_cast<int>(n));
      if (r > 0)
        return r;
      int e = SSL_get_error(ssl.get(), r);
      if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
        return 0;
      // Only a close_notify ends a TLS stream; a bare end of the TCP
      // stream may be a truncation.
      return e == SSL_ERROR_ZERO_RETURN ? ended : failed;
    }
    auto r = ::recv(fd.fd, buf, n, 0);
    if (r > 0)
      return r;
    if (r == 0)
      return ended;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
      return 0;
    return failed;
  }

  /// Ends what this side sends, once all of it is written (a close_notify
  /// with TLS, then a TCP FIN): the peer reads to the end and may still
  /// send. 1 once done, 0 to be repeated when the socket can take bytes,
  /// -1 if the channel failed.
  int shutdown_write() {
    if (ssl) {
      ERR_clear_error();
      int r = SSL_shutdown(ssl.get());
      if (r < 0) {
        int e = SSL_get_error(ssl.get(), r);
        return e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ ? 0 : -1;
      }
    }
    return ::shutdown(fd.fd, SHUT_WR) == 0 ? 1 : -1;
  }

  /// Bytes of buf written (> 0), 0 if the channel cannot take any now, -1
  /// if it closed or failed. After a TLS write that could not finish,
  /// OpenSSL wants the same call again: the next call passes the same
  /// length (the relay only appends behind it).
  long write_some(const unsigned char* buf, std::size_t n) {
    if (ssl) {
      if (retry_length > 0)
        n = retry_length;
      ERR_clear_error();
      int r = SSL_write(ssl.get(), buf,
                        static_cast<int>(std::min<std::size_t>(n, 1 << 30)));
      if (r > 0) {
        retry_length = 0;
        return r;
      }
      int e = SSL_get_error(ssl.get(), r);
      if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
        retry_length = n;
        return 0;
      }
      return -1;
    }
    auto w = ::send(fd.fd, buf, n, MSG_NOSIGNAL);
    if (w >= 0)
      return w;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
  }

  /// A TLS write waiting to be repeated (write_some).
  std::size_t retry_length = 0;

  /// Decrypted bytes waiting inside TLS (poll cannot see them).
  bool pending() const { return ssl && SSL_pending(ssl.get()) > 0; }
};

// -- BASP frames --------------------------------------------------------------

/// Follows one direction of a BASP stream frame by frame and refuses a
/// frame whose declared size is over the limits, or a first frame that is
/// not the handshake `first` (server or client), before CAF would allocate
/// it.
class frame_gate {
public:
  frame_gate(caf::io::basp::message_type first, const frame_limits& limits)
      : first_(first), limits_(limits) {}

  /// Checks the next n bytes of the stream; the reason to close, or "".
  std::string feed(const unsigned char* p, std::size_t n) {
    while (n > 0) {
      if (payload_left_ > 0) {
        auto k = std::min<std::uint64_t>(payload_left_, n);
        payload_left_ -= k;
        p += k;
        n -= k;
        if (payload_left_ == 0)
          handshaken_ = true;
        continue;
      }
      auto k = std::min(n, header_.size() - have_);
      std::memcpy(header_.data() + have_, p, k);
      have_ += k;
      p += k;
      n -= k;
      if (have_ < header_.size())
        continue;
      have_ = 0;
      caf::io::basp::header h;
      caf::binary_deserializer src{static_cast<caf::execution_unit*>(nullptr),
                                   header_.data(), header_.size()};
      if (src(h) || !caf::io::basp::valid(h))
        return "bytes that are not a BASP frame";
      if (!handshaken_ && h.operation != first_)
        return "a first frame that is not the BASP handshake";
      auto cap =
          handshaken_ ? limits_.max_frame_bytes : limits_.max_handshake_bytes;
      if (h.payload_len > cap)
        return "a frame of " + std::to_string(h.payload_len) + " bytes" +
               (handshaken_ ? "" : " before the handshake") + " (at most " +
               std::to_string(cap) + ")";
      payload_left_ = h.payload_len;
      if (payload_left_ == 0)
        handshaken_ = true;
    }
    return {};
  }

  bool handshaken() const { return handshaken_; }

private:
  caf::io::basp::message_type first_;
  frame_limits limits_;
  std::array<char, caf::io::basp::header_size> header_{};
  std::size_t have_ = 0;
  std::uint64_t payload_left_ = 0;
  bool handshaken_ = false;
};

/// Bytes read from one side and not yet written to the other.
struct backlog {
  std::vector<unsigned char> bytes;
  std::size_t at = 0; ///< written so far

  std::size_t size() const { return bytes.size() - at; }
  /// Writes what it can to `to`; false if `to` closed or failed.
  bool flush(channel& to) {
    while (size() > 0) {
      auto w = to.write_some(bytes.data() + at, size());
      if (w < 0)
        return false;
      if (w == 0)
        break;
      at += static_cast<std::size_t>(w);
    }
    if (at == bytes.size()) {
      bytes.clear();
      at = 0;
    }
    return true;
  }
  void drop() {
    bytes.clear();
    at = 0;
  }
};

/// One direction of a relay: what `from` sends, on its way to `to`. It
/// ends as TCP does: once `from` has ended what it sends, `to` has every
/// byte read before that end, then the end (a half-close); the other
/// direction goes on.
struct stream {
  channel& from;
  channel& to;
  backlog queue;
  /// `from` sends nothing more.
  bool ended = false;
  /// Over: `to` had everything and its end, or cannot take more (what
  /// `from` would still send is then not read).
  bool done = false;

  /// Whether to read `from` now (the queue has room).
  bool reading(std::size_t room) const {
    return !ended && !done && queue.size() < room;
  }
  /// Whether `to` is waited on to take bytes or the end.
  bool writing() const { return !done && (queue.size() > 0 || ended); }

  /// Writes the queue, then the end once `from` ended; whether any byte
  /// moved.
  bool push() {
    if (done)
      return false;
    auto before = queue.size();
    if (!queue.flush(to)) {
      lose();
      return true;
    }
    if (ended && queue.size() == 0 && to.shutdown_write() != 0)
      done = true; // (or failed: `to` is gone either way)
    return queue.size() != before;
  }
  /// `to` is gone: what is queued for it, and what `from` would send, is
  /// lost.
  void lose() {
    queue.drop();
    done = true;
  }
};

/// Relays between `outside` and `inside` until both directions are over,
/// `stop` is set, or `gate` (on what comes from outside) refuses; the
/// reason it ended. A side that ends what it sends (EOF, a close_notify)
/// ends that direction only, after every byte already read from it has
/// been written to the other side: closing both at once would drop what is
/// still queued or in flight towards the side that closed (a peer that
/// sends its last frame and closes while the other's frame is still on
/// its way). Once one side has ended (or failed), the relay ends when no
/// byte moves for `linger` (a peer that never closes its side, or never
/// reads).
/// Both directions at once without ever blocking: a side is read only
/// while the other side's backlog has room, and written when it can take
/// bytes (two relays facing each other would otherwise each wait for the
/// other to read).
std::string relay(channel& outside, channel& inside, frame_gate& gate,
                  clock::time_point handshake_deadline,
                  std::chrono::milliseconds linger,
                  const std::atomic<bool>& stop) {
  constexpr std::size_t room = 1 << 20;
  std::vector<unsigned char> buf(64 * 1024);
  stream in{outside, inside, {}}, out{inside, outside, {}};
  auto last_moved = clock::now();
  // Reads what `s` has to read; why the gate refuses it, or "".
  auto take = [&](stream& s, stream& back) -> std::string {
    auto n = s.from.read_some(buf.data(), buf.size());
    if (n == 0)
      return {};
    last_moved = clock::now();
    if (n < 0) {
      s.ended = true;
      if (n == channel::failed)
        back.lose(); // that side takes nothing more either
      return {};
    }
    if (&s == &in) {
      if (auto why = gate.feed(buf.data(), static_cast<std::size_t>(n));
          !why.empty())
        return why;
    }
    s.queue.bytes.insert(s.queue.bytes.end(), buf.begin(), buf.begin() + n);
    return {};
  };
  while (!stop) {
    if (!gate.handshaken() && clock::now() > handshake_deadline)
      return "no BASP handshake in time";
    bool moved = in.push();
    if (out.push() || moved)
      last_moved = clock::now();
    if (in.done && out.done)
      return "";
    bool half_closed = in.ended || in.done || out.ended || out.done;
    if (half_closed && clock::now() - last_moved > linger)
      return "";
    // (TLS may also hold decrypted bytes poll cannot see: pending().)
    auto events = [&](stream& reads, stream& writes) {
      return static_cast<short>((reads.reading(room) ? POLLIN : 0) |
                                (writes.writing() ? POLLOUT : 0));
    };
    short out_events = events(in, out), in_events = events(out, in);
    // A side waited on for nothing is left out: at its end, poll would
    // report its hang-up at once, again and again.
    pollfd fds[2] = {{out_events ? outside.fd.fd : -1, out_events, 0},
                     {in_events ? inside.fd.fd : -1, in_events, 0}};
    bool ready = in.reading(room) && outside.pending();
    if (!ready && ::poll(fds, 2, 200) < 0 && errno != EINTR)
      return "poll: " + errno_text();
    if (in.reading(room) &&
        (ready || (fds[0].revents & (POLLIN | POLLHUP | POLLERR))))
      if (auto why = take(in, out); !why.empty())
        return why;
    if (out.reading(room) && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
      if (auto why = take(out, in); !why.empty())
        return why;
  }
  return "";
}

/// Accepts one pending connection of a listening socket, or none.
fd_guard accept_one(int listener) {
  int fd = ::accept(listener, nullptr, nullptr);
  if (fd >= 0)
    set_nonblocking(fd);
  else if (errno == EMFILE || errno == ENFILE)
    // Out of descriptors: the pending connection stays, and poll would
    // wake at once again; wait for some to close.
    std::this_thread::sleep_for(100ms);
  return fd_guard(fd);
}

/// A self-pipe that wakes a poll() to stop.
struct waker {
  int fds[2] = {-1, -1};
  waker() {
    if (::pipe(fds) != 0)
      throw input_error("pipe: " + errno_text());
  }
  ~waker() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  void wake() { [[maybe_unused]] auto r = ::write(fds[1], "x", 1); }
};

} // namespace

bool allowed(const std::vector<std::string>& allow,
             const peer_certificate& cert) {
  if (allow.empty())
    return true;
  for (const auto& a : allow) {
    if (a == cert.fingerprint)
      return true;
    if (a.rfind("CN=", 0) == 0 &&
        std::find(cert.common_names.begin(), cert.common_names.end(),
                  a.substr(3)) != cert.common_names.end())
      return true;
  }
  return false;
}

// -- the node's door ----------------------------------------------------------

struct front_door::impl {
  options opts;
  std::ostream& log;
  std::mutex log_mutex;
  ctx_ptr ctx;
  fd_guard listener;
  std::uint16_t port = 0;
  std::atomic<bool> stop{false};
  waker wake;
  std::thread acceptor;
  std::mutex mutex; // guards below
  /// Each connection's thread and whether it has finished (joined and
  /// dropped by the acceptor).
  std::list<std::pair<std::thread, std::shared_ptr<std::atomic<bool>>>> workers;
  std::set<int> open_fds;
  std::size_t open = 0;
  /// TLS connections not yet past their certificate, per peer address: one
  /// address may hold a quarter of the slots (at least one), so idle
  /// handshakes from one place cannot lock every coordinator out.
  std::map<std::string, std::size_t> handshaking;
  std::size_t serial = 0;
  // The acceptor's own.
  std::size_t refused = 0;
  clock::time_point last_refusal_log{};

  impl(options o, std::ostream& l) : opts(std::move(o)), log(l) {
    ignore_sigpipe();
    if (opts.tls.enabled())
      ctx = make_context(opts.tls, true);
    listener = listen_on(opts.host, opts.port);
    port = local_port_of(listener.fd);
    acceptor = std::thread([this] { accept_loop(); });
  }

  ~impl() {
    stop = true;
    wake.wake();
    acceptor.join();
    {
      std::lock_guard<std::mutex> g(mutex);
      for (int fd : open_fds)
        ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& w : workers)
      w.first.join();
  }

  /// Joins the connections' threads that have finished.
  void reap() {
    std::list<std::pair<std::thread, std::shared_ptr<std::atomic<bool>>>> done;
    {
      std::lock_guard<std::mutex> g(mutex);
      for (auto i = workers.begin(); i != workers.end();)
        if (*i->second)
          done.splice(done.end(), workers, i++);
        else
          ++i;
    }
    for (auto& w : done)
      w.first.join();
  }

  void say(const std::string& line) {
    std::lock_guard<std::mutex> g(log_mutex);
    log << line << std::endl;
  }

  void accept_loop() {
    while (!stop) {
      pollfd fds[2] = {{listener.fd, POLLIN, 0}, {wake.fds[0], POLLIN, 0}};
      if (::poll(fds, 2, 1000) < 0 && errno != EINTR)
        return;
      if (stop)
        return;
      reap();
      if (refused > 0 && clock::now() - last_refusal_log >= 1s) {
        say(std::to_string(refused) +
            " more connections refused over the limits (" +
            std::to_string(opts.limits.max_connections) +
            " open, a quarter of them in their handshake per address)");
        refused = 0;
        last_refusal_log = clock::now();
      }
      if (!(fds[0].revents & POLLIN))
        continue;
      auto fd = accept_one(listener.fd);
      if (fd.fd < 0)
        continue;
      // Its peer once: "HOST:PORT" for the log, HOST for the limits.
      auto peer = peer_of(fd.fd);
      auto address = peer.substr(0, peer.rfind(':'));
      std::unique_lock<std::mutex> g(mutex);
      if (open >= opts.limits.max_connections) {
        g.unlock();
        refuse_busy(peer, std::to_string(opts.limits.max_connections) +
                              " connections are open (the limit)");
        continue;
      }
      auto per_address =
          std::max<std::size_t>(1, opts.limits.max_connections / 4);
      if (ctx && handshaking[address] >= per_address) {
        g.unlock();
        refuse_busy(peer, std::to_string(per_address) +
                              " connections from this address are still in "
                              "their handshake (the limit)");
        continue;
      }
      auto id = ++serial;
      int raw = fd.fd;
      auto done = std::make_shared<std::atomic<bool>>(false);
      try {
        workers.emplace_back(std::thread([this, id, done, peer, address,
                                          f = std::move(fd)]() mutable {
                               serve(id, std::move(f), peer, address);
                               *done = true;
                             }),
                             done);
      } catch (const std::system_error&) {
        g.unlock();
        say("connection " + std::to_string(id) +
            ": refused: no thread to serve it");
        continue; // (the lambda, and with it the descriptor, is gone)
      }
      ++open;
      if (ctx)
        ++handshaking[address];
      open_fds.insert(raw);
    }
  }

  /// Logs a connection refused over the limit, at most one line a second
  /// (the loop says how many more): a flood must not flood the log.
  void refuse_busy(const std::string& peer, const std::string& why) {
    auto now = clock::now();
    if (now - last_refusal_log < 1s) {
      ++refused; // said within a second by the loop
      return;
    }
    last_refusal_log = now;
    say("connection from " + peer + ": refused: " + why);
  }

  /// A TLS connection from `address` left its handshake (admitted or
  /// closed).
  void handshake_done(const std::string& address) {
    std::lock_guard<std::mutex> g(mutex);
    auto it = handshaking.find(address);
    if (it != handshaking.end() && --it->second == 0)
      handshaking.erase(it);
  }

  void serve(std::size_t id, fd_guard fd, const std::string& peer,
             const std::string& address) {
    auto who = "connection " + std::to_string(id) + " from " + peer;
    auto deadline = clock::now() + opts.limits.handshake_timeout;
    // Closed under the lock the destructor shuts connections down under:
    // a descriptor number is never shut down after its reuse elsewhere.
    channel outside;
    outside.fd = std::move(fd);
    auto why = [&]() -> std::string {
      if (ctx) {
        outside.ssl.reset(SSL_new(ctx.get()));
        SSL_set_fd(outside.ssl.get(), outside.fd.fd);
        auto e = outside.handshake(true, deadline);
        auto cert =
            e.empty() ? certificate_of(outside.ssl.get()) : peer_certificate{};
        handshake_done(address);
        if (!e.empty())
          return "refused: " + e;
        if (!allowed(opts.allow, cert))
          return "refused: its certificate (" + cert.subject + ", " +
                 cert.fingerprint + ") is not one --allow admits";
        say(who + ": certificate " + cert.subject + " (" + cert.fingerprint +
            ")");
      } else {
        say(who + ": without TLS");
      }
      auto [in, error] = connect_to("127.0.0.1", opts.inner_port, deadline);
      if (in.fd < 0)
        return "the node's middleman: " + error;
      channel inside;
      inside.fd = std::move(in);
      frame_gate gate(caf::io::basp::message_type::client_handshake,
                      opts.limits);
      auto end = relay(outside, inside, gate, deadline,
                       opts.limits.half_closed_idle, stop);
      return end.empty() ? "" : "closed: " + end;
    }();
    {
      std::lock_guard<std::mutex> g(mutex);
      open_fds.erase(outside.fd.fd);
      outside.ssl.reset();
      outside.fd.reset();
      --open;
    }
    say(who + (why.empty() ? ": closed" : ": " + why));
  }
};

front_door::front_door(options opts, std::ostream& log)
    : impl_(std::make_unique<impl>(std::move(opts), log)) {}

front_door::~front_door() = default;

std::uint16_t front_door::port() const {
  return impl_->port;
}

// -- the coordinator's tunnel -------------------------------------------------

struct tunnel::impl {
  std::string host;
  std::uint16_t port;
  frame_limits limits;
  ctx_ptr ctx;
  fd_guard listener;
  std::uint16_t local = 0;
  std::atomic<bool> stop{false};
  waker wake;
  mutable std::mutex mutex;
  std::string error;
  std::thread worker;

  impl(std::string h, std::uint16_t p, const tls_files& tls, frame_limits l)
      : host(std::move(h)), port(p), limits(l) {
    ignore_sigpipe();
    if (tls.enabled())
      ctx = make_context(tls, false);
    listener = listen_on("127.0.0.1", 0);
    local = local_port_of(listener.fd);
    worker = std::thread([this] { run(); });
  }

  ~impl() {
    stop = true;
    wake.wake();
    worker.join();
  }

  void fail(std::string why) {
    std::lock_guard<std::mutex> g(mutex);
    if (error.empty())
      error = std::move(why);
  }

  void run() {
    while (!stop) {
      pollfd fds[2] = {{listener.fd, POLLIN, 0}, {wake.fds[0], POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0 && errno != EINTR)
        return;
      if (stop)
        return;
      if (!(fds[0].revents & POLLIN))
        continue;
      channel inside;
      inside.fd = accept_one(listener.fd);
      if (inside.fd.fd < 0)
        continue;
      auto deadline = clock::now() + limits.handshake_timeout;
      auto [out, why] = connect_to(host, port, deadline);
      if (out.fd < 0) {
        fail("cannot connect: " + why);
        continue;
      }
      channel outside;
      outside.fd = std::move(out);
      if (ctx) {
        outside.ssl.reset(SSL_new(ctx.get()));
        SSL_set_fd(outside.ssl.get(), outside.fd.fd);
        // The node's certificate must name the host dialled: a DNS name
        // or an IP address in its subjectAltName (or CN).
        auto h = bare_host(host);
        unsigned char ip[16];
        auto* param = SSL_get0_param(outside.ssl.get());
        bool ip_address = ::inet_pton(AF_INET, h.c_str(), ip) == 1 ||
                          ::inet_pton(AF_INET6, h.c_str(), ip) == 1;
        int set = ip_address ? X509_VERIFY_PARAM_set1_ip_asc(param, h.c_str())
                             : X509_VERIFY_PARAM_set1_host(param, h.c_str(), 0);
        if (set != 1) {
          fail("cannot check the node's certificate against " + h);
          continue;
        }
        if (!ip_address)
          SSL_set_tlsext_host_name(outside.ssl.get(), h.c_str());
        if (auto e = outside.handshake(false, deadline); !e.empty()) {
          fail(e +
               (contains_mismatch(outside) ? " (it is not " + h + "'s)" : ""));
          continue;
        }
      }
      frame_gate gate(caf::io::basp::message_type::server_handshake, limits);
      if (auto end = relay(outside, inside, gate, deadline,
                           limits.half_closed_idle, stop);
          !end.empty())
        fail("the node sent " + end);
      return; // one connection per tunnel: CAF's, for the session
    }
  }

  static bool contains_mismatch(const channel& c) {
    auto v = SSL_get_verify_result(c.ssl.get());
    return v == X509_V_ERR_HOSTNAME_MISMATCH ||
           v == X509_V_ERR_IP_ADDRESS_MISMATCH;
  }
};

tunnel::tunnel(std::string host, std::uint16_t port, const tls_files& tls,
               frame_limits limits)
    : impl_(std::make_unique<impl>(std::move(host), port, tls, limits)) {}

tunnel::~tunnel() = default;

std::uint16_t tunnel::local_port() const {
  return impl_->local;
}

std::string tunnel::error() const {
  std::lock_guard<std::mutex> g(impl_->mutex);
  return impl_->error;
}

} // namespace veil::actors
