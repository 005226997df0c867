// `veil repl` as a person and as a script use it. Scripts (-f FILE and a
// piped standard input): a three-party session built by hand, trained with
// two protocols, looked at and saved; the saved file re-run by `veil train
// --config` gives the AUC the REPL printed; every command's mistakes stop
// the script at their line with exit 1 and a message naming the problem.
// Through a pseudo-terminal: Tab completes commands, protocols and
// settings, Up recalls the history kept from an earlier run, Ctrl-C during
// a training ends that session and leaves the REPL usable, Ctrl-C at the
// prompt drops the line, Ctrl-D leaves.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <pty.h>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "tests/support/files.hpp"
#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using veil::test::contains;
using veil::test::run_veil;
using veil::test::temp_dir;
using namespace std::chrono_literals;

namespace {

struct bank_data : veil::test::generated_split {
  bank_data() : generated_split(1600, 5) {}
  std::string script(const std::string& text) const {
    return dir.file("s.veil", text);
  }
};

/// The AUC a line "auc X" of `text` gives (the last one).
double last_auc(const std::string& text) {
  std::regex auc(R"(auc ([0-9.]+))");
  double out = -1;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), auc);
       it != std::sregex_iterator(); ++it)
    out = std::stod((*it)[1]);
  return out;
}

/// veil repl on a pseudo-terminal: what it writes, and keys to it.
class terminal {
public:
  explicit terminal(const std::string& history) {
    pid_ = ::forkpty(&fd_, nullptr, nullptr, nullptr);
    BOOST_REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::setenv("VEIL_HISTORY", history.c_str(), 1);
      ::setenv("TERM", "xterm", 1);
      std::string bin = std::string(VEIL_BINARY_DIR) + "/veil";
      ::execl(bin.c_str(), bin.c_str(), "repl", nullptr);
      ::_exit(127);
    }
  }
  ~terminal() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(fd_);
  }
  void type(const std::string& keys) {
    BOOST_REQUIRE(::write(fd_, keys.data(), keys.size()) ==
                  static_cast<ssize_t>(keys.size()));
  }
  /// Reads until `what` appears in the output (true) or `limit` passes.
  bool wait_for(const std::string& what,
                std::chrono::milliseconds limit = 10s) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      if (out_.find(what, seen_) != std::string::npos) {
        seen_ = out_.find(what, seen_) + what.size();
        return true;
      }
      fd_set in;
      FD_ZERO(&in);
      FD_SET(fd_, &in);
      timeval tv{0, 50000};
      if (::select(fd_ + 1, &in, nullptr, nullptr, &tv) > 0) {
        char buf[4096];
        auto n = ::read(fd_, buf, sizeof buf);
        if (n <= 0)
          break;
        out_.append(buf, static_cast<std::size_t>(n));
      }
    }
    return false;
  }
  int wait_exit(std::chrono::milliseconds limit = 10s) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      int st = 0;
      if (::waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
      }
      wait_for("\x01never", 50ms);
    }
    return -2;
  }
  const std::string& output() const { return out_; }

private:
  int fd_ = -1;
  pid_t pid_ = -1;
  std::string out_;
  std::size_t seen_ = 0;
};

} // namespace

BOOST_AUTO_TEST_SUITE(repl)

BOOST_AUTO_TEST_CASE(a_script_builds_trains_compares_and_saves) {
  bank_data d;
  auto toml = d.dir / "bank.toml";
  auto s = d.script("# three parties by hand\n"
                    "load " +
                    d.dir / "d_train.csv" + " test " + d.dir / "d_test.csv" +
                    "\n"
                    "party bank f0,f1 label\n"
                    "party shop f2,f3\n"
                    "party insurer f4,f5\n"
                    "parties\n"
                    "protocol plain\n"
                    "set trees=4\n"
                    "set max_depth=3\n"
                    "train\n"
                    "evaluate\n"
                    "bytes\n"
                    "importance\n"
                    "trees 1\n"
                    "privacy\n"
                    "export " +
                    d.dir / "m.json" +
                    "\n"
                    "predict " +
                    d.dir / "p.csv" +
                    "\n"
                    "protocol opboost\n"
                    "set epsilon=4\n"
                    "train\n"
                    "privacy\n"
                    "protocol plain\n"
                    "save " +
                    toml +
                    "\n"
                    "compare --protocols plain,opboost --epsilons 2 "
                    "--repeats 1 --trees 2 --out " +
                    d.dir / "cmp" +
                    "\n"
                    "quit\n"
                    "help\n"); // not reached
  auto r = run_veil("repl -f " + s);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  for (const auto* said :
       {"veil> party bank f0,f1 label", "bank (local): f0, f1; the label",
        "insurer (local): f4, f5", "metrics on the test rows:", "total sent:",
        "privacy (fixed before training): none: plaintext gradients",
        "the last training (plain) stated: plaintext gradients",
        "privacy: each Party B value: 4-dLDP",
        "privacy (fixed before training): each Party B value: 4-dLDP",
        "predicted 400 rows with 3 parties (plain, through the trained "
        "session)",
        "saved ", "| opboost | 2.00 |", "model written to"})
    BOOST_TEST(contains(r.output, said), said);
  BOOST_TEST(!contains(r.output, "veil> help"));
  // The saved session, re-run by veil train --config, gives the plain
  // training's AUC the REPL printed first.
  auto first = r.output.substr(0, r.output.find("veil> protocol opboost"));
  auto again = run_veil("train --config " + toml + " --quiet");
  BOOST_REQUIRE_MESSAGE(again.status == 0, again.output);
  BOOST_TEST(std::abs(last_auc(again.output) - last_auc(first)) < 1e-6,
             again.output);
  std::ifstream predictions(d.dir / "p.csv");
  std::string header;
  std::getline(predictions, header);
  BOOST_TEST(contains(header, "prediction"), header);
  // The same session opened again trains the same.
  auto reopened =
      run_veil("repl -f " +
               d.dir.file("o.veil", "open " + toml + "\ntrain\nevaluate\n"));
  BOOST_REQUIRE_MESSAGE(reopened.status == 0, reopened.output);
  BOOST_TEST(std::abs(last_auc(reopened.output) - last_auc(first)) < 1e-6);
}

BOOST_AUTO_TEST_CASE(predictions_go_through_the_trained_sessions_parties) {
  bank_data d;
  auto p = [&](const char* name) { return d.dir / name; };
  auto s = d.script("load " + d.dir / "d_train.csv" + " test " +
                    d.dir / "d_test.csv" +
                    "\n"
                    "party bank f0,f3 label\n"
                    "party shop f1,f4\n"
                    "party insurer f2,f5\n"
                    "set trees=3\n"
                    "protocol opboost\n"
                    "train\n"
                    "predict " +
                    p("o1.csv") + "\npredict " + p("o2.csv") +
                    "\n"
                    "protocol privet\n"
                    "privacy\n"
                    "train\n"
                    "predict " +
                    p("v.csv") +
                    "\n"
                    "protocol ldp-boost\n"
                    "show\n"
                    "privacy\n");
  auto r = run_veil("repl -f " + s);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  // OpBoost's Party Bs desensitize the rows afresh at each prediction: two
  // predictions through the same parties differ.
  BOOST_TEST(contains(r.output, "(opboost, through the trained session)"),
             r.output);
  BOOST_TEST(contains(r.output, "spend the per-value budget of training once "
                                "more"));
  BOOST_TEST(veil::test::read_text(p("o1.csv")) !=
             veil::test::read_text(p("o2.csv")));
  // Privet keeps no model file: its tables stay shared at the parties, and
  // the kept session predicts through them, as after training.
  BOOST_TEST(contains(r.output, "plan: privet, 3 computing parties and the "
                                "dealer, 1200 rows"),
             r.output);
  auto trained = r.output.substr(r.output.find("veil> protocol privet"));
  auto secinfer = trained.find("test (SecInfer");
  BOOST_REQUIRE(secinfer != std::string::npos);
  auto predicted = trained.find("(privet, through the trained session)");
  BOOST_REQUIRE_MESSAGE(predicted != std::string::npos, trained);
  BOOST_TEST(std::abs(last_auc(trained.substr(0, predicted)) -
                      last_auc(trained.substr(predicted))) < 1e-9);
  // LDP boosting deals the table itself: one party, the table's.
  BOOST_TEST(contains(r.output, "the other parties are not used"));
  auto ldp = r.output.substr(r.output.find("veil> protocol ldp-boost"));
  BOOST_TEST(contains(ldp, "name = \"bank\"\ndata = "), ldp);
  BOOST_TEST(!contains(ldp, "name = \"shop\""), ldp);
  BOOST_TEST(contains(ldp, "plan: ldp-boost, "), ldp);
}

BOOST_AUTO_TEST_CASE(compare_runs_on_the_sessions_parties) {
  bank_data d;
  // Columns no --data run would deal: plain's compare cell must be the
  // REPL's own training on these parties.
  auto s = d.script("load " + d.dir / "d_train.csv" + " test " +
                    d.dir / "d_test.csv" +
                    "\n"
                    "party bank f0,f5 label\n"
                    "party shop f1,f3\n"
                    "party insurer f2,f4\n"
                    "set trees=2\n"
                    "train\n"
                    "compare --protocols plain,privet-plain --repeats 1 "
                    "--trees 2 --out " +
                    d.dir / "cmp" + "\n");
  auto r = run_veil("repl -f " + s);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  auto md = veil::test::read_text(d.dir / "cmp/compare.md");
  BOOST_TEST(contains(md, "ran on this session's parties (bank: 2 columns "
                          "and the label; shop: 2 columns; insurer: 2 "
                          "columns)"),
             md);
  // privet-plain trains one party on the table, beside the sessions.
  BOOST_TEST(contains(md, "| privet-plain |"), md);
  BOOST_TEST(contains(r.output, "2 runs, 0 failed"), r.output);
  auto rows = veil::test::csv_rows(d.dir / "cmp/compare.csv");
  BOOST_REQUIRE(rows.size() >= 2u);
  // plain's run (the first), its AUC by its column.
  const auto& names = rows[0];
  const auto& cells = rows[1];
  auto col = std::find(names.begin(), names.end(), "auc") - names.begin();
  BOOST_REQUIRE(static_cast<std::size_t>(col) < cells.size());
  BOOST_TEST(std::abs(std::stod(cells[static_cast<std::size_t>(col)]) -
                      last_auc(r.output.substr(
                          0, r.output.find("veil> compare")))) < 1e-6);
}

BOOST_AUTO_TEST_CASE(a_budget_waits_for_the_variant_that_spends_it) {
  // feverless-plain adds no noise and refuses a budget: the one set for
  // feverless is kept for it, not written into feverless-plain's session.
  bank_data d;
  auto r = run_veil("repl -f " +
                    d.script("load " + d.dir / "d_train.csv" + " test " +
                             d.dir / "d_test.csv" +
                             "\ndeal 3\nprotocol feverless\nset epsilon=1\n"
                             "set trees=2\nprotocol feverless-plain\ntrain\n"
                             "protocol feverless\nshow\n"));
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(contains(r.output, "trained 2 trees"), r.output);
  BOOST_TEST(contains(r.output, "\"epsilon\" = 1"), r.output);
}

BOOST_AUTO_TEST_CASE(each_mistake_stops_a_script_at_its_line) {
  bank_data d;
  auto table = d.dir / "d_train.csv";
  const std::pair<std::string, std::string> cases[] = {
      {"load " + d.dir / "nosuch.csv", "nosuch.csv"},
      {"load " + table + "\nlabel y\nload " + table, "no column \"y\""},
      {"load " + table + "\nparty bank f0,f9", "no feature \"f9\""},
      {"load " + table + "\nparty bank f0 at nowhere", "is not HOST:PORT"},
      {"protocol nonesuch", "protocol nonesuch: a session runs one of"},
      {"set nosuch=1", "set nosuch: not a learner"},
      {"load " + table + "\ndeal 3\nset max_depth=-4", "set max_depth=-4"},
      {"train", "at least 2 parties"},
      {"evaluate", "nothing trained yet"},
      {"deal 3", "no table"},
      {"help nosuch", "no command \"nosuch\""},
      {"frobnicate", "no command \"frobnicate\""},
      {"drop nobody", "no party \"nobody\""},
      {"open " + d.dir / "nosuch.toml", "nosuch.toml"},
      // Trained without test rows: nothing to predict through the parties.
      {"load " + table +
           "\ndeal 3\nset trees=2\nprotocol opboost\ntrain\n"
           "predict " +
           d.dir / "p.csv",
       "predict: the parties have no test rows to predict"},
      {"load " + table + "\ndeal 3\nprotocol privet-plain",
       "protocol privet-plain trains one party on the table"},
  };
  for (const auto& [text, says] : cases) {
    auto script = d.script(text + "\nparties\n");
    auto r = run_veil("repl -f " + script);
    BOOST_TEST(r.status == 1, text << ": " << r.output);
    BOOST_TEST(contains(r.output, "veil: error: " + script + ":"), r.output);
    BOOST_TEST(contains(r.output, says), text << ": " << r.output);
    BOOST_TEST(!contains(r.output, "veil> parties"), text);
  }
  // Standard input that is not a terminal is a script too: the error names
  // its line.
  auto piped = run_veil("repl < " + d.script("help deal\n\nbogus\nparties\n"));
  BOOST_TEST(piped.status == 1);
  BOOST_TEST(contains(piped.output, "veil: error: line 3: no command"),
             piped.output);
}

BOOST_AUTO_TEST_CASE(typing_completion_history_and_ctrl_c) {
  // libedit redraws a completed word with cursor moves, so each check is
  // on what the completed command did, not on its echo.
  bank_data d;
  auto history = d.dir / "history";
  {
    std::ofstream h(history);
    h << "_HiStOrY_V2_\nhelp\\040deal\n"; // libedit's format
  }
  terminal t(history);
  BOOST_REQUIRE_MESSAGE(t.wait_for("veil> "), t.output());
  // Tab completes a command ("lo" alone is no command) and a file name.
  t.type("lo\t");
  t.type(d.dir / "d_tra\t");
  t.type("test " + d.dir / "d_test.csv\r");
  BOOST_REQUIRE_MESSAGE(t.wait_for("6 features"), t.output());
  t.type("deal 3\r");
  BOOST_REQUIRE(t.wait_for("party3 (local)"));
  // A protocol, then one of its settings (the value right after '=').
  t.type("protocol feve\t\r");
  t.type("set feverless.buck\t8\r");
  t.type("show\r");
  BOOST_TEST(t.wait_for("name = \"feverless\""), t.output());
  BOOST_TEST(t.wait_for("\"feverless.buckets\" = 8"), t.output());
  t.type("protocol plain\r");
  // Up recalls the history of an earlier run, before this run's lines.
  for (int i = 0; i < 7; ++i) // this run's 6 lines, then the earlier run's
    t.type("\x1b[A");
  t.type("\r");
  BOOST_TEST(t.wait_for("deal N:"), t.output());
  // Ctrl-C during a slow training ends it; the REPL stays.
  t.type("set trees=80\rset net.latency_ms=100\rtrain\r");
  BOOST_REQUIRE_MESSAGE(t.wait_for("[tree 1/80]", 20s), t.output());
  t.type("\x03");
  BOOST_TEST(t.wait_for("training interrupted", 10s), t.output());
  t.type("evaluate\r");
  BOOST_TEST(t.wait_for("nothing trained yet"), t.output());
  // Ctrl-C at the prompt drops the line; the REPL goes on.
  t.type("parties");
  std::this_thread::sleep_for(100ms);
  t.type("\x03");
  std::this_thread::sleep_for(100ms);
  t.type("help drop\r");
  BOOST_TEST(t.wait_for("drop NAME:"), t.output());
  BOOST_TEST(!contains(t.output(), "no command"), t.output());
  BOOST_REQUIRE(t.wait_for("veil> ")); // reading again
  std::this_thread::sleep_for(200ms);
  t.type("\x04"); // Ctrl-D
  BOOST_TEST(t.wait_exit() == 0, t.output());
  std::ifstream h(history);
  std::stringstream kept;
  kept << h.rdbuf();
  BOOST_TEST(contains(kept.str(), "deal\\0403"), kept.str());
}

BOOST_AUTO_TEST_SUITE_END()
