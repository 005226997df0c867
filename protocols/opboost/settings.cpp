// OpBoost's settings by name, Party A's booster, the fitted-bounds warning
// and the report's privacy section (protocols/opboost/settings.hpp).
#include "protocols/opboost/settings.hpp"

#include <cmath>
#include <fstream>

#include "learners/input_error.hpp"
#include "protocols/opboost/descriptor.hpp"
#include "protocols/opboost/gbdt.hpp"
#include "protocols/opboost/privacy.hpp"

namespace veil::protocols::opboost {

namespace {

/// `v` as a finite number; throws input_error naming `what`.
double parse_number(const std::string& what, const std::string& v) {
  if (auto x = parse_finite(v))
    return *x;
  throw input_error(what + ": expected a number, got '" + v + "'");
}

/// "LO:HI" as two finite numbers with LO < HI; errors name `what` (the key
/// or the file and line).
std::pair<double, double> parse_range(const std::string& what,
                                      const std::string& text) {
  auto colon = text.find(':', text.empty() ? 0 : 1);
  if (colon == std::string::npos)
    throw input_error(what + ": expected LO:HI, got '" + text + "'");
  auto number = [&](const std::string& v, const char* end) {
    try {
      return parse_number(what, v);
    } catch (const input_error&) {
      throw input_error(what + ": " + end + " '" + v + "' is not a number");
    }
  };
  double lo = number(text.substr(0, colon), "LO");
  double hi = number(text.substr(colon + 1), "HI");
  if (!(lo < hi))
    throw input_error(what + ": LO (" + text.substr(0, colon) +
                      ") must be below HI (" + text.substr(colon + 1) + ")");
  return {lo, hi};
}

/// opboost.domain=LO:HI: integers, LO < HI, within [-2^22, 2^22] (the
/// thresholds must stay exact floats; params::validate).
domain parse_domain(const std::string& context, const std::string& text) {
  auto [lo, hi] = parse_range(context, text);
  constexpr double limit = 4194304.0; // 2^22
  if (lo != std::floor(lo) || hi != std::floor(hi))
    throw input_error(context + "=" + text +
                      ": the unified domain's ends must be integers");
  if (lo < -limit || hi > limit)
    throw input_error(context + "=" + text +
                      ": the unified domain must lie in [-2^22, 2^22]");
  return {static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)};
}

void add_bound(public_bounds& all, const std::string& column,
               const std::string& origin, const std::string& range) {
  if (column.empty())
    throw input_error(origin + ": no column name");
  auto [lo, hi] = parse_range(origin + " (column '" + column + "')", range);
  public_bound b;
  b.map.lower = lo;
  b.map.upper = hi;
  b.origin = origin;
  all[column] = b;
}

/// opboost.bounds=FILE: CSV lines "column,lo,hi" (a header line
/// "column,lo,hi", blank lines and lines starting with # are skipped). A
/// column listed twice in the file is an error.
void read_bounds_file(public_bounds& all, const std::string& context,
                      const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw input_error(context + "=" + path + ": cannot open the bounds file");
  std::map<std::string, bool> seen;
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    auto where = path + ":" + std::to_string(no);
    if (line.empty() || line[0] == '#' || (no == 1 && line == "column,lo,hi"))
      continue;
    auto c1 = line.find(',');
    auto c2 = c1 == std::string::npos ? c1 : line.find(',', c1 + 1);
    if (c2 == std::string::npos || line.find(',', c2 + 1) != std::string::npos)
      throw input_error(where + ": expected 'column,lo,hi', got '" + line +
                        "'");
    auto column = line.substr(0, c1);
    if (seen[column])
      throw input_error(where + ": column '" + column +
                        "' is listed twice in the bounds file");
    seen[column] = true;
    add_bound(all, column, where,
              line.substr(c1 + 1, c2 - c1 - 1) + ":" + line.substr(c2 + 1));
  }
}

bool apply(named_settings& s, const std::string& key, const std::string& value,
           const std::string& context) {
  // The descriptor's table checks type, range and choices first.
  const auto& desc = descriptor();
  if (const auto* d = desc.find(key))
    protocols::check_setting(*d, value, context + "=" + value);
  auto& p = s.params;
  auto number = [&] {
    try {
      return parse_number(key, value);
    } catch (const input_error&) {
      throw input_error(context + "=" + value + ": expected a number");
    }
  };
  if (key == "epsilon")
    s.epsilon = number(); // in range: checked above
  else if (key == "opboost.mechanism")
    p.mechanism.kind = parse_mechanism(value);
  else if (key == "opboost.sampler")
    p.mechanism.sampler = parse_sampler(value);
  else if (key == "opboost.theta") {
    double x = number();
    if (x != std::floor(x) || std::abs(x) > 1e15)
      throw input_error(context + "=" + value + ": expected an integer");
    p.mechanism.theta = static_cast<std::int64_t>(x);
  } else if (key == "opboost.alpha")
    p.mechanism.alpha = number();
  else if (key == "opboost.learner")
    p.learner = parse_learner(value);
  else if (key == "opboost.threshold")
    p.threshold = parse_threshold_rule(value);
  else if (key == "opboost.domain")
    p.dom = parse_domain(context, value);
  else if (key == "opboost.prediction") {
    if (value != "private" && value != "non-private")
      throw input_error(context + "=" + value +
                        ": expected private (Party B desensitizes the "
                        "predicted rows afresh) or non-private (Party A "
                        "holds them in plaintext and pre-processes them, "
                        "as the paper's experiments evaluate)");
    s.private_prediction = value == "private";
  } else if (key == "opboost.bounds")
    read_bounds_file(s.bounds_from_file, context, value);
  else if (key.rfind("opboost.bounds.", 0) == 0)
    add_bound(s.bounds_by_key, key.substr(15), context, value);
  else if (key.rfind("opboost.", 0) == 0) {
    std::string known;
    for (const auto& d : desc.settings)
      if (d.key != "epsilon")
        known +=
            (known.empty() ? "" : ", ") + d.key + (d.prefix ? "COLUMN" : "");
    throw input_error(context + "=" + value + ": unknown OpBoost key (" +
                      known + "; veil help opboost)");
  } else
    return false;
  return true;
}

} // namespace

public_bounds named_settings::bounds() const {
  auto all = bounds_from_file;
  for (const auto& [column, b] : bounds_by_key)
    all[column] = b;
  return all;
}

bool apply_setting(named_settings& s, const std::string& key,
                   const std::string& value, const std::string& context) {
  try {
    return apply(s, key, value, context);
  } catch (const input_error& e) {
    std::string msg = e.what();
    if (msg.rfind(context, 0) == 0)
      throw;
    throw input_error(context + "=" + value + ": " + msg);
  }
}

learners::booster_params booster_for(const params& p,
                                     const learners::booster_params& g) {
  auto bp = p.learner == learner_kind::gbdt ? gbdt_defaults()
                                            : params::paper_booster();
  // A setting that differs from the generic default was given: it
  // overrides the protocol's default.
  const learners::booster_params generic;
  using bp_t = learners::booster_params;
  using tp_t = learners::tree_params;
  for (auto f : {&bp_t::rounds, &bp_t::max_bin})
    if (g.*f != generic.*f)
      bp.*f = g.*f;
  if (g.tree.max_depth != generic.tree.max_depth)
    bp.tree.max_depth = g.tree.max_depth;
  for (auto f : {&tp_t::eta, &tp_t::lambda, &tp_t::gamma,
                 &tp_t::min_child_weight, &tp_t::max_delta_step})
    if (g.tree.*f != generic.tree.*f)
      bp.tree.*f = g.tree.*f;
  if (!std::isnan(g.base_score))
    bp.base_score = g.base_score;
  bp.threads = g.threads;
  bp.objective = g.objective;
  bp.num_class = g.num_class;
  return bp;
}

void refuse_unused_learner_settings(const learners::booster_params& bp,
                                    const std::string& context) {
  // Refused rather than dropped: a user who sets one must not read a model
  // that silently ignored it.
  const learners::booster_params generic;
  auto refuse = [&](const std::string& key, const std::string& why) {
    throw input_error(context + key + ": not used by OpBoost (" + why + ")");
  };
  if (bp.early_stopping_rounds != generic.early_stopping_rounds)
    refuse("early_stopping_rounds",
           "Party A trains on ranks and sees the test rows only after "
           "training, desensitized afresh (spec §5.6); the report's history "
           "comes from that prediction");
  if (bp.eval_train != generic.eval_train)
    refuse("eval_train", "no per-round evaluation");
  if (bp.eval_rounds != generic.eval_rounds)
    refuse("eval_rounds", "no per-round evaluation: its history comes from "
                          "the prediction after training");
  if (bp.tree.oblivious != generic.tree.oblivious)
    refuse("weak_learner", "Party A grows depth-wise trees only");
}

std::string fitted_bounds_warning(const std::vector<std::string>& fitted) {
  if (fitted.empty())
    return {};
  std::string names;
  for (const auto& s : fitted)
    names += (names.empty() ? "" : ", ") + s;
  return "the pre-processing bounds of Party B column(s) " + names +
         " were taken from the data (min and max), which reveals each "
         "column's range to Party A; OpBoost assumes public bounds fixed in "
         "advance (--set opboost.bounds.COLUMN=LO:HI or --set "
         "opboost.bounds=FILE)";
}

namespace {

nlohmann::json cost_json(const dp::privacy_cost& c) {
  nlohmann::json j = {{"guarantee", dp::to_string(c.kind)},
                      {"mechanism", c.mechanism},
                      {"describe", c.describe()}};
  switch (c.kind) {
  case dp::guarantee::ldp:
  case dp::guarantee::dldp:
    j["epsilon"] = c.epsilon;
    break;
  case dp::guarantee::partition_dldp:
    j["epsilon"] = c.epsilon;
    j["epsilon_prt"] = c.epsilon_prt;
    j["epsilon_ner"] = c.epsilon_ner;
    j["theta"] = c.theta;
    break;
  case dp::guarantee::within_partition_dldp:
    j["epsilon_ner"] = c.epsilon_ner;
    j["theta"] = c.theta;
    break;
  case dp::guarantee::none:
    break;
  }
  return j;
}

} // namespace

std::vector<std::string> fitted_columns(const nlohmann::json& bounds) {
  std::vector<std::string> out;
  for (const auto& f : bounds.value("fitted", nlohmann::json::array()))
    out.push_back(f.get<std::string>());
  return out;
}

nlohmann::json privacy_json(const params& p, const dp::accountant& spent,
                            const std::string& report, bool predicted,
                            const nlohmann::json& bounds) {
  nlohmann::json j;
  auto fitted = fitted_columns(bounds);
  j["headline"] = privacy_headline(p, spent, fitted);
  j["mechanism"] = to_string(p.mechanism.kind);
  j["sampler"] = to_string(p.mechanism.sampler);
  j["epsilon"] = p.mechanism.epsilon;
  j["theta"] = p.mechanism.theta;
  j["alpha"] = p.mechanism.alpha;
  j["budget"] = p.budget == budget_split::split ? "split" : "per_feature";
  j["domain"] = {p.dom.lo, p.dom.hi};
  // Which Party B features were mapped with public bounds, and which with
  // bounds fitted to the data (whose range Party A then learns).
  j["public_bounds"] = bounds["public_columns"];
  j["fitted_bounds"] = bounds["fitted"];
  nlohmann::json per_feature = nlohmann::json::array();
  for (const auto& e : spent.entries()) {
    auto c = cost_json(e.cost);
    c["feature"] = e.what;
    // Bounds fitted to the data: the guarantee holds given the column's
    // range only (Party A learns it).
    auto slash = e.what.rfind(" / "); // "party 1 / age"
    auto column =
        slash == std::string::npos ? e.what : e.what.substr(slash + 3);
    c["conditional"] =
        std::find(fitted.begin(), fitted.end(), column) != fitted.end();
    per_feature.push_back(c);
  }
  j["per_feature"] = per_feature;
  nlohmann::json total = nlohmann::json::object();
  for (const auto& [t, n] : spent.totals())
    total[dp::to_string(t.kind)] = cost_json(t);
  j["total_per_record"] = total;
  j["unprotected"] = spent.any_unprotected();
  if (p.mechanism.kind == mechanism_kind::adj_map)
    j["partition_budget_note"] = partition_budget_note;
  if (predicted)
    j["prediction_note"] =
        "private prediction: each Party B desensitized its columns of every "
        "predicted record afresh, spending the per-record budget again on "
        "that record";
  j["report"] = report;
  return j;
}

} // namespace veil::protocols::opboost
