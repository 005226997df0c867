#pragma once

// Real OS processes of build/veil for the integration tests: started with
// fork/exec (stdout and stderr into one pipe), read with bounded waits, and
// always killed and reaped by the destructor, so that none outlives a test,
// even a failing one. The child also gets SIGKILL should the test process
// die first (PR_SET_PDEATHSIG).

#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <poll.h>
#include <regex>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

namespace veil::test {

using namespace std::chrono_literals;

class process {
public:
  /// Starts build/veil with `args`.
  explicit process(const std::vector<std::string>& args) {
    int fds[2];
    BOOST_REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    auto parent = ::getpid();
    pid_ = ::fork();
    BOOST_REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent)
        ::_exit(127);
      ::dup2(fds[1], STDOUT_FILENO);
      ::dup2(fds[1], STDERR_FILENO);
      std::string bin = std::string(VEIL_BINARY_DIR) + "/veil";
      std::vector<char*> argv{bin.data()};
      auto copy = args;
      for (auto& a : copy)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(bin.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    fd_ = fds[0];
  }
  process(const process&) = delete;
  process& operator=(const process&) = delete;
  ~process() {
    kill(SIGKILL);
    if (fd_ >= 0)
      ::close(fd_);
  }

  pid_t pid() const { return pid_; }

  /// Everything the process wrote so far.
  const std::string& output() {
    drain(0ms);
    return out_;
  }

  /// Reads until the output matches `re` or `limit` passed; the match.
  std::optional<std::smatch> wait_for(const std::regex& re,
                                      std::chrono::milliseconds limit) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (true) {
      std::smatch m;
      if (std::regex_search(out_, m, re))
        return m;
      auto now = std::chrono::steady_clock::now();
      if (now >= end || eof_)
        return std::nullopt;
      drain(std::chrono::duration_cast<std::chrono::milliseconds>(end - now));
    }
  }

  /// The port of "listening on HOST:PORT", within 10 s; 0 if none.
  int port() {
    auto m = wait_for(std::regex("listening on [^ ]+:([0-9]+)"), 10s);
    return m ? std::stoi((*m)[1].str()) : 0;
  }

  /// Waits up to `limit` for the exit; the exit code, or -1 (still running
  /// or killed by a signal).
  int wait(std::chrono::milliseconds limit) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (!reaped_) {
      int st = 0;
      auto r = ::waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        reaped_ = true;
        status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        break;
      }
      if (std::chrono::steady_clock::now() >= end)
        return -1;
      drain(20ms);
    }
    drain(0ms);
    return status_;
  }

  bool running() { return wait(0ms) == -1 && !reaped_; }

  void kill(int sig) {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, sig);
      if (sig == SIGKILL) {
        int st = 0;
        ::waitpid(pid_, &st, 0);
        reaped_ = true;
        status_ = -1;
      }
    }
  }

private:
  void drain(std::chrono::milliseconds limit) {
    if (fd_ < 0 || eof_)
      return;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(limit.count())) <= 0)
      return;
    char buf[4096];
    while (true) {
      auto n = ::read(fd_, buf, sizeof buf);
      if (n > 0) {
        out_.append(buf, static_cast<std::size_t>(n));
        pollfd q{fd_, POLLIN, 0};
        if (::poll(&q, 1, 0) <= 0)
          return;
        continue;
      }
      if (n == 0)
        eof_ = true;
      return;
    }
  }

  pid_t pid_ = -1;
  int fd_ = -1;
  std::string out_;
  bool eof_ = false;
  bool reaped_ = false;
  int status_ = -1;
};

/// Runs `veil ARGS` to its end (at most `limit`, then killed); the exit
/// code (-1 when killed) and the output.
inline std::pair<int, std::string>
run_veil(const std::vector<std::string>& args,
         std::chrono::milliseconds limit) {
  process p(args);
  auto rc = p.wait(limit);
  return {rc, p.output()};
}

/// A node's location on this host: "127.0.0.1:PORT".
inline std::string at(int port) {
  return "127.0.0.1:" + std::to_string(port);
}

/// `veil node` on a free port of 127.0.0.1, for one session (--once).
inline const std::vector<std::string> once_node = {"node", "--listen",
                                                   "127.0.0.1:0", "--once"};

/// Where `node` (a `veil node --listen 127.0.0.1:0`) listens, as at()
/// gives it; the test stops, showing the node's output, if it does not
/// say so within 10 s.
inline std::string node_address(process& node) {
  auto port = node.port();
  BOOST_REQUIRE_MESSAGE(port > 0, "node output: " << node.output());
  return at(port);
}

/// `veil node` on a free port of 127.0.0.1 serving `datasets` ("NAME=PATH"
/// each), keeping model parts in `store` if given; for one session unless
/// `once` is false.
inline std::vector<std::string>
node_serving(const std::vector<std::string>& datasets,
             const std::string& store = "", bool once = true) {
  std::vector<std::string> args = {"node", "--listen", "127.0.0.1:0"};
  if (once)
    args.push_back("--once");
  for (const auto& d : datasets) {
    args.push_back("--data");
    args.push_back(d);
  }
  if (!store.empty()) {
    args.push_back("--store");
    args.push_back(store);
  }
  return args;
}

/// A node serving the files NAME_train.csv and NAME_test.csv in `folder`
/// of each party in `names`, under their file names, as node_serving.
inline std::vector<std::string>
node_serving_parties(const std::string& folder,
                     const std::vector<std::string>& names,
                     const std::string& store = "") {
  std::vector<std::string> data;
  for (const auto& n : names)
    for (auto part : {"_train.csv", "_test.csv"})
      data.push_back(n + part + "=" + folder + "/" + n + part);
  return node_serving(data, store);
}

/// A node serving Adult's files as "adult_train" and "adult_test" (the
/// names adult_session gives a party at a node), as node_serving.
inline std::vector<std::string> adult_node(const std::string& store = "",
                                           bool once = true) {
  return node_serving(
      {"adult_train=" + adult("train"), "adult_test=" + adult("test")}, store,
      once);
}

/// A model file or part without its model id (each session draws one).
inline nlohmann::json without_model_id(nlohmann::json j) {
  j.erase("model");
  if (j.contains("session"))
    j["session"].erase("model_id");
  return j;
}

/// A session file over Adult: bank (label, local), shop and insurer at the
/// given locations ("local" or "127.0.0.1:PORT" of an adult_node).
inline std::string adult_session(int trees, int depth, double timeout,
                                 const std::string& shop,
                                 const std::string& insurer,
                                 const std::string& extra = "") {
  auto party = [&](const char* name, const char* features,
                   const std::string& where, bool label) {
    // At a node, the names it serves the files under (adult_node).
    bool local = where == "local";
    auto train = local ? adult("train") : "adult_train";
    auto test = local ? adult("test") : "adult_test";
    return std::string("[[party]]\nname = \"") + name + "\"\ndata = \"" +
           train + "\"\ntest = \"" + test + "\"\n" +
           (label ? "label = \"label\"\n" : "") + "features = [" + features +
           "]\nlocation = \"" + where + "\"\n\n";
  };
  return "protocol = \"plain\"\ntimeout_seconds = " + std::to_string(timeout) +
         "\n\n[learner]\ntrees = " + std::to_string(trees) +
         "\nmax_depth = " + std::to_string(depth) +
         "\neta = 0.3\nthreads = 1\nobjective = \"binary:logistic\"\n\n" +
         extra +
         party("bank",
               "\"age\", \"education\", \"education_num\", \"capital_gain\", "
               "\"capital_loss\"",
               "local", true) +
         party("shop",
               "\"workclass\", \"fnlwgt\", \"occupation\", "
               "\"hours_per_week\", \"native_country\"",
               shop, false) +
         party("insurer",
               "\"marital_status\", \"relationship\", \"race\", \"sex\"",
               insurer, false);
}

/// The shop's and the insurer's nodes of adult_session, for one session,
/// each keeping its parts in its store under `dir` (shop-store,
/// insurer-store).
struct adult_nodes {
  process shop, insurer;
  explicit adult_nodes(const temp_dir& dir)
      : shop(adult_node(dir / "shop-store")),
        insurer(adult_node(dir / "insurer-store")) {}
  /// adult_session with both parties on these nodes.
  std::string session(int trees, int depth) {
    return adult_session(trees, depth, 30, node_address(shop),
                         node_address(insurer));
  }
};

} // namespace veil::test
