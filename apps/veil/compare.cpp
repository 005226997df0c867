// `veil compare`: a grid of protocols × budgets × repetitions on one data
// split, each cell a `veil train` run in this process (its report read
// back), written as a table (Markdown and CSV) and plots (gnuplot's SVG):
// utility against epsilon per protocol, time and bytes per protocol.
// Protocols without a budget run once per repetition and appear as
// horizontal lines. A run that fails is recorded with its error and the
// grid goes on; the command then exits 1.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "actors/session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/protocols.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"
#include "protocols/descriptor.hpp"

namespace veil::apps {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

/// Protocols that take a budget, `epsilon` (their descriptors say which
/// of their names do: a baseline without noise takes none).
bool takes_epsilon(const std::string& name) {
  const auto* d = protocols::find_protocol(name);
  return d && d->find_for(name, "epsilon");
}

/// One cell of the grid and what its run gave.
struct run_result {
  std::string protocol;
  double epsilon = 0; ///< 0: no budget
  int repeat = 0;
  bool ok = false;
  std::string error;
  std::map<std::string, double> metrics;
  double seconds = 0;
  double bytes = 0;
  bool has_bytes = false; ///< a federated run's count (centralized: none)
  std::string guarantee;
  std::string note; ///< why a run stopped early, if it says so
};

/// The guarantee a report states, in one line, whatever the protocol.
std::string guarantee_of(const json& privacy) {
  for (const auto* key : {"headline", "statement", "opened", "note"})
    if (privacy.contains(key) && privacy[key].is_string())
      return privacy[key].get<std::string>();
  if (privacy.contains("active_party")) { // MaskedXGBoost and its kin
    std::ostringstream os;
    const auto& a = privacy["active_party"];
    os << "active party";
    if (a.contains("end_to_end_epsilon"))
      os << " (eps " << a["end_to_end_epsilon"].get<double>() << ", delta "
         << a.value("end_to_end_delta", 0.0) << ")";
    if (privacy.contains("passive_parties")) {
      const auto& p = privacy["passive_parties"];
      if (p.contains("epsilon"))
        os << "; passive parties (eps " << p["epsilon"].get<double>()
           << ", delta " << p.value("delta", 0.0) << ")";
    }
    return os.str();
  }
  if (privacy.contains("mechanism") && privacy["mechanism"].is_string())
    return privacy["mechanism"].get<std::string>() == "none"
               ? "none: nothing is protected beyond the protocol's exchange"
               : privacy["mechanism"].get<std::string>();
  return "not stated";
}

/// Markdown cells may not hold '|' or line breaks; a long text is cut
/// (compare.csv has it whole).
std::string cell(std::string s, std::size_t most = 240) {
  for (auto& ch : s)
    if (ch == '|' || ch == '\n')
      ch = ch == '|' ? '/' : ' ';
  if (s.size() > most) {
    auto cut = s.rfind(' ', most);
    s = s.substr(0, cut == std::string::npos ? most : cut) + " …";
  }
  return s;
}

std::string csv_quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s)
    out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

/// A text buffer several threads may write to at once (a run's parties
/// warn on std::cerr from the actor system's threads).
class locked_text : public std::streambuf {
public:
  std::string text() const {
    std::lock_guard lock(m_);
    return s_;
  }

protected:
  int_type overflow(int_type ch) override {
    if (ch != traits_type::eof()) {
      std::lock_guard lock(m_);
      s_ += static_cast<char>(ch);
    }
    return ch;
  }
  std::streamsize xsputn(const char* p, std::streamsize n) override {
    std::lock_guard lock(m_);
    s_.append(p, static_cast<std::size_t>(n));
    return n;
  }

private:
  mutable std::mutex m_;
  std::string s_;
};

/// Writes std::cout and std::cerr into `sink` while alive (a run's own
/// lines). Swapped only while no other thread runs: before a run's actor
/// system starts and after it has ended.
class quiet_streams {
public:
  explicit quiet_streams(locked_text& sink)
      : out_(std::cout.rdbuf(&sink)), err_(std::cerr.rdbuf(&sink)) {}
  ~quiet_streams() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }
  quiet_streams(const quiet_streams&) = delete;
  quiet_streams& operator=(const quiet_streams&) = delete;
  std::streambuf* terminal() const { return err_; }

private:
  std::streambuf* out_;
  std::streambuf* err_;
};

/// The last non-empty line of `text` (a failed run's error).
std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty())
      last = line;
  return last;
}

run_result run_one(const compare_options& c, const std::string& protocol,
                   double epsilon, int repeat, const std::string& train,
                   const std::string& test, const std::string& report) {
  run_result r;
  r.protocol = protocol;
  r.epsilon = epsilon;
  r.repeat = repeat;
  train_options o;
  if (auto s = c.sessions.find(protocol); s != c.sessions.end()) {
    o.config = s->second; // the parties and their rows are the file's
    const learners::booster_params generic; // --trees, --depth as given
    if (c.params.rounds != generic.rounds)
      o.overrides.push_back("trees=" + std::to_string(c.params.rounds));
    if (c.params.tree.max_depth != generic.tree.max_depth)
      o.overrides.push_back("max_depth=" +
                            std::to_string(c.params.tree.max_depth));
    for (const auto& kv : c.settings)
      o.overrides.push_back(kv);
    if (epsilon > 0)
      o.overrides.push_back("epsilon=" + json(epsilon).dump());
  } else {
    o.data = train;
    o.test = test;
    o.label = c.label;
    o.protocol = protocol;
    o.objective = c.objective;
    o.epsilon = epsilon;
    o.params = c.params;
    o.settings = c.settings;
  }
  o.seed = c.seed + static_cast<std::uint64_t>(repeat);
  o.report = report;
  o.quiet = true;
  o.timeout = c.timeout;
  locked_text said;
  int rc = 1;
  std::error_code gone;
  fs::remove(report, gone);
  std::string thrown;
  {
    quiet_streams quiet(said);
    try {
      rc = run_train(o);
    } catch (const std::exception& e) {
      thrown = e.what();
      rc = 1;
    }
  }
  if (rc != 0 || !fs::exists(report)) {
    r.error = thrown.empty() ? last_line(said.text()) : thrown;
    if (r.error.empty())
      r.error = "exit code " + std::to_string(rc);
    return r;
  }
  try {
    std::ifstream in(report);
    auto j = json::parse(in);
    for (const auto& [k, v] : j["metrics"].items())
      if (v.is_number())
        r.metrics[k] = v.get<double>();
    r.seconds = j.value("train_seconds", 0.0);
    if (j.contains("bytes") && j["bytes"].contains("total")) {
      r.bytes = j["bytes"]["total"].get<double>();
      r.has_bytes = true;
    }
    if (j.contains("stopped") && j["stopped"].is_string() &&
        !j["stopped"].get<std::string>().empty())
      r.note = "stopped early: " + j["stopped"].get<std::string>();
    r.guarantee = j.contains("privacy") ? guarantee_of(j["privacy"]) : "";
  } catch (const std::exception& e) {
    r.error = std::string("its report could not be read: ") + e.what();
    return r;
  }
  r.ok = true;
  return r;
}

struct summary {
  double mean = 0, sd = 0;
  int n = 0;
};

summary summarise(const std::vector<double>& xs) {
  summary s;
  s.n = static_cast<int>(xs.size());
  if (xs.empty())
    return s;
  s.mean = std::accumulate(xs.begin(), xs.end(), 0.0) /
           static_cast<double>(xs.size());
  double ss = 0;
  for (auto x : xs)
    ss += (x - s.mean) * (x - s.mean);
  s.sd = xs.size() > 1 ? std::sqrt(ss / static_cast<double>(xs.size() - 1)) : 0;
  return s;
}

std::string fixed(double x, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << x;
  return os.str();
}

/// The utility metric of a task: AUC for binary classification (accuracy
/// where a protocol reports none), accuracy for several classes, RMSE for
/// regression.
std::vector<std::string> metric_names(const std::string& objective) {
  if (objective == "reg:squarederror")
    return {"rmse"};
  if (objective == "multi:softmax")
    return {"accuracy"};
  return {"auc", "accuracy"};
}

/// The runs of one (protocol, epsilon), in grid order.
struct group {
  std::string protocol;
  double epsilon = 0;
  std::vector<const run_result*> runs;
};

std::vector<group> groups_of(const std::vector<run_result>& runs) {
  std::vector<group> out;
  for (const auto& r : runs) {
    if (out.empty() || out.back().protocol != r.protocol ||
        out.back().epsilon != r.epsilon)
      out.push_back({r.protocol, r.epsilon, {}});
    out.back().runs.push_back(&r);
  }
  return out;
}

summary metric_of(const group& g, const std::string& name) {
  std::vector<double> xs;
  for (const auto* r : g.runs)
    if (r->ok && r->metrics.count(name))
      xs.push_back(r->metrics.at(name));
  return summarise(xs);
}

void write_tables(const compare_options& c, const std::vector<run_result>& runs,
                  const std::string& split_note) {
  auto names = metric_names(c.objective);
  std::ostringstream raw;
  raw << "protocol,epsilon,repeat,ok";
  for (const auto& m : names)
    raw << "," << m;
  raw << ",train_seconds,bytes,guarantee,note,error\n";
  for (const auto& r : runs) {
    raw << r.protocol << "," << (r.epsilon > 0 ? fixed(r.epsilon, 3) : "")
        << "," << r.repeat << "," << (r.ok ? 1 : 0);
    for (const auto& m : names)
      raw << ","
          << (r.metrics.count(m) ? fixed(r.metrics.at(m), 6) : std::string());
    raw << "," << fixed(r.seconds, 4) << ","
        << (r.has_bytes ? fixed(r.bytes, 0) : std::string()) << ","
        << csv_quoted(r.guarantee) << "," << csv_quoted(r.note) << ","
        << csv_quoted(r.error) << "\n";
  }
  std::ostringstream md;
  md << "# veil compare\n\n"
     << split_note << " Repetitions per cell: " << c.repeats << " (seeds "
     << c.seed << " to " << c.seed + c.repeats - 1
     << "); mean ± sample standard deviation.\n\n| protocol | epsilon |";
  for (const auto& m : names)
    md << " " << m << " |";
  md << " train time (s) | bytes (MB) | guarantee |\n|---|---:|";
  for (std::size_t i = 0; i < names.size(); ++i)
    md << "---:|";
  md << "---:|---:|---|\n";
  std::ostringstream sum;
  sum << "protocol,epsilon,runs";
  for (const auto& m : names)
    sum << "," << m << "_mean," << m << "_sd";
  sum << ",seconds_mean,megabytes_mean\n";
  for (const auto& g : groups_of(runs)) {
    std::vector<double> secs, bytes;
    std::string guarantee, error, note;
    for (const auto* r : g.runs) {
      if (r->ok) {
        secs.push_back(r->seconds);
        if (r->has_bytes)
          bytes.push_back(r->bytes / 1e6);
        guarantee = r->guarantee;
        if (note.empty())
          note = r->note;
      } else if (error.empty()) {
        error = r->error;
      }
    }
    auto t = summarise(secs), b = summarise(bytes);
    md << "| " << g.protocol << " | "
       << (g.epsilon > 0 ? fixed(g.epsilon, 2) : "–") << " |";
    sum << g.protocol << "," << (g.epsilon > 0 ? fixed(g.epsilon, 3) : "")
        << "," << t.n;
    for (const auto& m : names) {
      auto s = metric_of(g, m);
      md << " " << (s.n ? fixed(s.mean, 4) + " ± " + fixed(s.sd, 4) : "–")
         << " |";
      sum << "," << (s.n ? fixed(s.mean, 6) : "") << ","
          << (s.n ? fixed(s.sd, 6) : "");
    }
    md << " " << (t.n ? fixed(t.mean, 3) : "–") << " | "
       << (b.n ? fixed(b.mean, 2) : "–") << " | "
       << cell(t.n ? guarantee + (note.empty() ? "" : " (" + note + ")")
                   : "failed: " + error)
       << " |\n";
    sum << "," << (t.n ? fixed(t.mean, 4) : "") << ","
        << (b.n ? fixed(b.mean, 4) : "") << "\n";
  }
  learners::write_files_atomically(
      {{(fs::path(c.out) / "compare.md").string(), md.str()},
       {(fs::path(c.out) / "compare.csv").string(), raw.str()},
       {(fs::path(c.out) / "summary.csv").string(), sum.str()}});
}

/// The plots' data (one block per protocol, gnuplot's index) and script;
/// gnuplot draws them when it is installed.
void write_plots(const compare_options& c, const std::vector<run_result>& runs,
                 std::ostream& terminal) {
  auto names = metric_names(c.objective);
  // The utility: the first metric every group reports.
  std::string metric = names[0];
  for (const auto& g : groups_of(runs))
    if (metric_of(g, metric).n == 0 && names.size() > 1)
      metric = names[1];
  double lo = *std::min_element(c.epsilons.begin(), c.epsilons.end());
  double hi = *std::max_element(c.epsilons.begin(), c.epsilons.end());
  std::ostringstream data, bars;
  std::vector<std::string> titles;
  std::vector<bool> budgeted;
  std::map<std::string, std::vector<const group*>> by_protocol;
  auto groups = groups_of(runs);
  for (const auto& g : groups)
    by_protocol[g.protocol].push_back(&g);
  int bar = 0;
  for (const auto& p : c.protocols) {
    if (!by_protocol.count(p))
      continue;
    std::vector<double> secs, bytes;
    bool any = false;
    for (const auto* g : by_protocol[p]) {
      auto s = metric_of(*g, metric);
      for (const auto* r : g->runs)
        if (r->ok) {
          secs.push_back(r->seconds);
          if (r->has_bytes)
            bytes.push_back(r->bytes / 1e6);
        }
      if (s.n == 0)
        continue;
      any = true;
      if (g->epsilon > 0) {
        data << g->epsilon << " " << s.mean << " " << s.sd << "\n";
      } else { // no budget: a line across the grid's epsilons
        data << lo << " " << s.mean << " " << s.sd << "\n"
             << hi << " " << s.mean << " " << s.sd << "\n";
      }
    }
    if (!any)
      continue;
    data << "\n\n";
    titles.push_back(p + (takes_epsilon(p) ? "" : " (no budget)"));
    budgeted.push_back(takes_epsilon(p));
    auto t = summarise(secs), b = summarise(bytes);
    bars << bar++ << " \"" << p << "\" " << t.mean << " " << t.sd << " "
         << b.mean << " " << b.sd << "\n";
  }
  auto dir = fs::path(c.out);
  std::string metric_label = metric == "auc"        ? "test AUC"
                             : metric == "accuracy" ? "test accuracy"
                                                    : "test RMSE";
  std::ostringstream gp;
  gp << "# veil compare's plots: gnuplot -e \"fmt='svg'\" compare.gp (or\n"
     << "# fmt='png'), in this folder\n"
     << "if (!exists('fmt')) fmt = 'svg'\n"
     << "if (fmt eq 'png') {\n"
     << "  set terminal pngcairo size 820,520 font 'sans,10'\n"
     << "} else {\n"
     << "  set terminal svg size 820,520 dynamic font 'sans,12'\n"
     << "}\n"
     << "set datafile separator whitespace\n"
     << "set key outside right top\nset grid\n"
     << "set output 'utility.'.fmt\n"
     << "set title '" << metric_label << " against epsilon (mean and "
     << "sample sd over " << c.repeats << " runs)'\n"
     << "set xlabel 'epsilon: the protocol budget (log scale)'\n"
     << "set ylabel '" << metric_label << "'\nset logscale x\n"
     << "set xrange [" << lo / 1.25 << ":" << hi * 1.25 << "]\n"
     << "plot";
  for (std::size_t i = 0; i < titles.size(); ++i)
    gp << (i ? ", \\\n    " : " ") << "'utility.dat' index " << i
       << (budgeted[i] ? " using 1:2:3 with yerrorlines lw 2"
                       : " using 1:2 with lines dt 2 lw 2")
       << " title '" << titles[i] << "'";
  gp << "\nunset logscale x\nset autoscale x\nset style fill solid 0.6\n"
     << "set boxwidth 0.6\nset xlabel 'protocol'\nunset key\n"
     << "set xtics rotate by 30 right\nset bmargin 7\n"
     << "set output 'time.'.fmt\nset title 'training time per run (mean over "
     << "its runs)'\nset ylabel 'seconds (log scale)'\nset logscale y\n"
     << "plot 'bars.dat' using 1:3:xtic(2) with boxes, '' using 1:3:4 with "
     << "yerrorbars lc rgb 'black' pt 0\n"
     << "set output 'bytes.'.fmt\nset title 'bytes the parties sent per run "
     << "(mean)'\nset ylabel 'megabytes (log scale)'\n"
     << "plot 'bars.dat' using 1:($5 > 0 ? $5 : 1/0):xtic(2) with boxes, '' "
     << "using 1:($5 > 0 ? $5 : 1/0):6 with yerrorbars lc rgb 'black' pt 0\n";
  learners::write_files_atomically(
      {{(dir / "utility.dat").string(), data.str()},
       {(dir / "bars.dat").string(), bars.str()},
       {(dir / "compare.gp").string(), gp.str()}});
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    terminal << "veil: note: gnuplot is not installed (apt-get install "
                "gnuplot-nox): the plots' data and script are in "
             << c.out << ", not drawn\n";
    return;
  }
  // The folder in single quotes, each of its own quotes closed and
  // escaped: the shell takes it as one word, whatever it holds.
  std::string folder = "'";
  for (char ch : dir.string())
    folder += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  folder += "'";
  for (const auto* fmt : {"svg", "png"}) {
    auto command =
        "cd " + folder + " && gnuplot -e \"fmt='" + fmt + "'\" compare.gp";
    if (std::system(command.c_str()) != 0)
      terminal << "veil: warning: gnuplot could not draw " << c.out
               << "/compare.gp as " << fmt << "\n";
  }
}

} // namespace

std::string report_guarantee(const std::string& report_path) {
  std::ifstream in(report_path);
  auto j = json::parse(in);
  return j.contains("privacy") ? guarantee_of(j["privacy"]) : "not stated";
}

int run_compare(compare_options c) {
  if (c.protocols.empty())
    throw input_error("--protocols: name at least one protocol");
  for (const auto& p : c.protocols)
    if (p != "centralized" && !find_federated(p))
      throw input_error("--protocols: no protocol \"" + p +
                        "\" (veil help lists them)");
  if (c.epsilons.empty())
    c.epsilons = {1};
  for (auto e : c.epsilons)
    if (!(e > 0) || !std::isfinite(e))
      throw input_error("--epsilons: every budget must be a positive number");
  if (c.repeats < 1)
    throw input_error("--repeats: at least 1");
  if (c.data.empty())
    throw input_error("--data: the table to compare on");
  fs::create_directories(c.out);
  auto work = fs::path(c.out) / ".runs";
  fs::create_directories(work);
  // One split for every run: the test file given, or a seeded 80/20 split
  // of --data written here.
  std::string train = c.data, test = c.test, split_note;
  if (test.empty()) {
    learners::read_options ro;
    ro.label = c.label;
    auto all = learners::read_table(c.data, ro);
    std::vector<std::size_t> order(all.rows());
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 g(c.seed);
    std::shuffle(order.begin(), order.end(), g);
    auto cut = static_cast<std::size_t>(
        std::round(static_cast<double>(order.size()) * (1 - c.test_fraction)));
    if (cut == 0 || cut == order.size())
      throw input_error("--data: too few rows to hold out a test set");
    std::vector<std::size_t> a(order.begin(),
                               order.begin() + static_cast<long>(cut)),
        b(order.begin() + static_cast<long>(cut), order.end());
    train = (work / "train.csv").string();
    test = (work / "test.csv").string();
    learners::write_csv(all.select_rows(a), train, c.label);
    learners::write_csv(all.select_rows(b), test, c.label);
    split_note = "Data: " + c.data + ", one seeded split (seed " +
                 std::to_string(c.seed) + ") of " + std::to_string(a.size()) +
                 " training and " + std::to_string(b.size()) + " test rows.";
  } else {
    split_note = "Data: " + c.data + " (training) and " + c.test + " (test).";
  }
  if (!c.sessions_note.empty())
    split_note += " " + c.sessions_note;
  std::vector<std::pair<std::string, double>> cells;
  for (const auto& p : c.protocols) {
    if (takes_epsilon(p))
      for (auto e : c.epsilons)
        cells.push_back({p, e});
    else
      cells.push_back({p, 0});
  }
  const auto total = cells.size() * static_cast<std::size_t>(c.repeats);
  std::vector<run_result> runs;
  auto started = std::chrono::steady_clock::now();
  std::size_t done = 0, failed = 0;
  // The bar redraws one line: on a terminal only.
  const bool bar = !c.quiet && ::isatty(STDERR_FILENO);
  for (const auto& [p, e] : cells)
    for (int r = 0; r < c.repeats; ++r) {
      if (actors::interrupt_requested()) { // Ctrl-C in veil repl
        std::error_code ec;
        fs::remove_all(work, ec);
        throw input_error("compare interrupted after " + std::to_string(done) +
                          " of " + std::to_string(total) +
                          " runs; nothing was written");
      }
      if (bar) {
        double elapsed = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - started)
                             .count();
        std::cerr << "\r[" << std::string(20 * done / total, '#')
                  << std::string(20 - 20 * done / total, '.') << "] " << done
                  << "/" << total << "  " << p
                  << (e > 0 ? " eps " + fixed(e, 2) : std::string()) << " run "
                  << r + 1 << "  " << fixed(elapsed, 0) << " s elapsed\x1b[K"
                  << std::flush;
      }
      runs.push_back(
          run_one(c, p, e, r, train, test, (work / "run.json").string()));
      failed += !runs.back().ok;
      ++done;
    }
  if (bar)
    std::cerr << "\r[" << std::string(20, '#') << "] " << done << "/" << total
              << " runs, " << failed << " failed\x1b[K\n";
  else if (!c.quiet)
    std::cerr << done << " runs, " << failed << " failed\n";
  write_tables(c, runs, split_note);
  write_plots(c, runs, std::cerr);
  std::error_code ec;
  fs::remove_all(work, ec);
  std::ifstream md((fs::path(c.out) / "compare.md").string());
  std::cout << md.rdbuf();
  std::cout << "\nwritten to " << c.out
            << ": compare.md, compare.csv (every run), summary.csv, "
               "utility, time and bytes (.svg, .png)\n";
  for (const auto& r : runs)
    if (!r.ok) {
      std::cerr << "veil: error: " << r.protocol
                << (r.epsilon > 0 ? " eps " + fixed(r.epsilon, 2) : "")
                << " run " << r.repeat + 1 << " failed: " << r.error << "\n";
    }
  return failed == 0 ? 0 : 1;
}

} // namespace veil::apps
