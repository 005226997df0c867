#include "actors/session.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <set>

#include "learners/input_error.hpp"

namespace veil::actors {

namespace {
std::atomic<bool> interrupt_flag{false};
static_assert(std::atomic<bool>::is_always_lock_free);
} // namespace

void request_interrupt() noexcept {
  interrupt_flag.store(true);
}
bool interrupt_requested() noexcept {
  return interrupt_flag.load();
}
void clear_interrupt() noexcept {
  interrupt_flag.store(false);
}

std::string node_catalog::names() const {
  std::string s;
  for (const auto& [name, d] : datasets)
    s += (s.empty() ? "" : ", ") + name;
  return s.empty() ? "none" : s;
}

void validate(const session_config& cfg) {
  const auto& ps = cfg.parties;
  if (ps.size() < 2)
    throw input_error("a federated session needs at least 2 parties, got " +
                      std::to_string(ps.size()));
  std::set<std::string> names;
  std::vector<std::string> labeled;
  std::size_t with_ids = 0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const auto& p = ps[i];
    auto where = "party " + std::to_string(i + 1) + " (\"" + p.name + "\")";
    if (!protocols::session::valid_name(p.name))
      throw input_error(where + ": a party name is made of letters, digits, "
                                "'_', '-' and '.'");
    if (!names.insert(p.name).second)
      throw input_error(where + ": the name is used twice");
    if (p.data.path.empty())
      throw input_error(where + ": no data file");
    if (cfg.eval == evaluation::test && p.test_path.empty())
      throw input_error(where + ": no test file");
    if (!p.data.label_column.empty())
      labeled.push_back(p.name);
    if (!p.data.id_column.empty())
      ++with_ids;
  }
  if (cfg.restore && (cfg.eval == evaluation::none || cfg.parts.empty()))
    throw input_error("a prediction session needs rows to predict and the "
                      "model parts");
  // A prediction session's rows may come without labels (no metrics).
  if (labeled.empty() && !cfg.restore)
    throw input_error("no party has a label column: exactly one party (the "
                      "active one) must hold the label");
  if (labeled.size() > 1)
    throw input_error("the label column is set on " +
                      std::to_string(labeled.size()) + " parties (" +
                      labeled[0] + ", " + labeled[1] +
                      "): exactly one party may hold the label");
  if (with_ids != 0 && with_ids != ps.size())
    throw input_error("an id column is set on " + std::to_string(with_ids) +
                      " of " + std::to_string(ps.size()) +
                      " parties: set it on all of them (rows are joined on "
                      "it) or on none (rows are aligned by position)");
  if (cfg.timeout.count() <= 0)
    throw input_error("the timeout must be positive");
  cfg.params.validate();
}

session_config active_first(const session_config& cfg) {
  session_config out = cfg;
  std::stable_partition(
      out.parties.begin(), out.parties.end(),
      [](const party_spec& p) { return !p.data.label_column.empty(); });
  return out;
}

} // namespace veil::actors
