#include "protocols/opboost/privacy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "protocols/dp/accountant.hpp"
#include "protocols/opboost/mechanism.hpp"
#include "protocols/opboost/theory.hpp"

namespace veil::protocols::opboost {

const char* const partition_budget_note =
    "Note on the partition budget (spec opboost §2.5): Adj-map splits the "
    "budget as eps_ner = eps / (alpha + theta/|D|) and eps_prt = alpha theta "
    "eps_ner, which makes the partition-dLDP bound at the LARGEST distance "
    "|D| equal to that of eps-dLDP. That is all \"Adj-map gives eps-dLDP\" "
    "means: it is NOT a per-unit-distance eps-dLDP guarantee. Two adjacent "
    "values on either side of a partition boundary can be much easier to "
    "tell apart than under Global-map with the same eps; the exact "
    "worst-case losses listed for each party show by how much.";

namespace {

std::string loss_text(double x) {
  if (std::isinf(x))
    return "infinite";
  std::ostringstream os;
  os.precision(4);
  os << x;
  return os.str();
}

} // namespace

std::vector<double> worst_case_losses(const mechanism_params& p,
                                      const domain& d,
                                      const std::vector<std::int64_t>& ts,
                                      double epsilon, std::int64_t max_domain) {
  std::vector<double> out(ts.size(), std::numeric_limits<double>::quiet_NaN());
  if (d.size() > max_domain)
    return out;
  auto m = make_desensitizer(p, d, dp::rational::from_double(epsilon));
  pmf_table<double> table(m, d);
  for (std::size_t k = 0; k < ts.size(); ++k)
    if (ts[k] >= 1 && ts[k] < d.size())
      out[k] = table.worst_loss(ts[k]);
  return out;
}

double worst_case_loss(const mechanism_params& p, const domain& d,
                       std::int64_t t, std::int64_t max_domain) {
  return worst_case_losses(p, d, {t}, p.epsilon, max_domain)[0];
}

dp::rational party_budget(const params& p, std::size_t features) {
  auto eps = dp::rational::from_double(p.mechanism.epsilon);
  if (p.budget == budget_split::split)
    eps = eps / dp::rational{features, 1};
  return eps;
}

dp::accountant
planned_spend(const params& p,
              const std::vector<std::vector<std::string>>& features_by_b) {
  dp::accountant a;
  for (const auto& names : features_by_b) {
    auto cost =
        make_desensitizer(p.mechanism, p.dom, party_budget(p, names.size()))
            .cost();
    for (const auto& n : names)
      a.add(n, cost);
  }
  return a;
}

std::string privacy_headline(const params& p, const dp::accountant& spent,
                             const std::vector<std::string>& fitted) {
  auto plain = [](dp::privacy_cost c) {
    c.mechanism.clear();
    return c.describe();
  };
  std::ostringstream os;
  const auto& entries = spent.entries();
  if (entries.empty())
    return "no Party B features: nothing is desensitized; Party A's columns "
           "and the labels stay with Party A";
  bool same = std::all_of(entries.begin(), entries.end(), [&](const auto& e) {
    return plain(e.cost) == plain(entries.front().cost);
  });
  if (spent.any_unprotected())
    os << "NO protection for some Party B values; ";
  os << "each Party B value: "
     << (same ? plain(entries.front().cost)
              : std::string("its feature's guarantee (see the report)"))
     << " (" << to_string(p.mechanism.kind) << ")";
  for (const auto& [t, n] : spent.totals())
    os << "; each record over its " << n << " Party B features: " << plain(t)
       << " by sequential composition";
  if (!fitted.empty()) {
    os << "; CONDITIONAL for " << fitted.size()
       << " column(s) whose bounds were fitted to the data (";
    for (std::size_t i = 0; i < fitted.size(); ++i)
      os << (i ? ", " : "") << fitted[i];
    os << "): it holds given their range, which Party A learns";
  }
  os << "; Party A's columns and the labels stay with Party A";
  return os.str();
}

std::string
privacy_report(const params& p,
               const std::vector<std::vector<std::string>>& features_by_party) {
  std::ostringstream os;
  const auto& mp = p.mechanism;
  os << "OpBoost privacy report\n";
  os << "  mechanism " << to_string(mp.kind) << ", sampler "
     << to_string(mp.sampler) << ", epsilon " << mp.epsilon;
  if (mp.kind == mechanism_kind::local_map ||
      mp.kind == mechanism_kind::adj_map)
    os << ", theta " << mp.theta;
  if (mp.kind == mechanism_kind::adj_map)
    os << ", alpha " << mp.alpha;
  os << ", domain [" << p.dom.lo << ", " << p.dom.hi << "]\n";
  os << "  budget: "
     << (p.budget == budget_split::per_feature
             ? "every feature gets the full epsilon (the paper's experiments); "
               "a record spends the sum over its features"
             : "epsilon is split evenly over each party's features")
     << "\n";

  // The distances at which the real losses are shown (spec §2.5, §8.4).
  std::vector<std::int64_t> ts = {1};
  if ((mp.kind == mechanism_kind::local_map ||
       mp.kind == mechanism_kind::adj_map) &&
      mp.theta > 1 && mp.theta < p.dom.size())
    ts.push_back(mp.theta);
  if (p.dom.size() - 1 > 1)
    ts.push_back(p.dom.size() - 1);
  std::map<double, std::vector<double>> losses; // by per-feature epsilon

  for (std::size_t q = 0; q < features_by_party.size(); ++q) {
    const auto& names = features_by_party[q];
    auto eps = dp::rational::from_double(mp.epsilon);
    if (p.budget == budget_split::split && !names.empty())
      eps = eps / dp::rational{names.size(), 1};
    auto cost = make_desensitizer(mp, p.dom, eps).cost();
    dp::accountant a;
    for (const auto& n : names)
      a.add(n, cost);
    os << "Party B #" << q + 1 << " (guarantee per feature value):\n"
       << a.report();
    if (p.dom.size() < 2)
      continue;
    double e = eps.value();
    if (!losses.count(e))
      losses[e] = worst_case_losses(mp, p.dom, ts, e);
    os << "  exact worst-case privacy loss max |ln P(o|x)/P(o|x')| of one "
          "feature value over pairs at distance t:\n";
    for (std::size_t k = 0; k < ts.size(); ++k) {
      os << "    t = " << ts[k] << ": ";
      if (std::isnan(losses[e][k]))
        os << "not computed (|D| > 2048)";
      else
        os << loss_text(losses[e][k]);
      os << "   (epsilon t = " << loss_text(e * static_cast<double>(ts[k]))
         << ")\n";
    }
  }

  switch (mp.kind) {
  case mechanism_kind::identity:
    os << "WARNING: the identity mechanism gives NO protection: Party A "
          "learns the exact order of every Party B value.\n";
    break;
  case mechanism_kind::global_map:
    os << "Global-map is eps-dLDP per unit distance: inputs at distance t "
          "are e^(eps t)-indistinguishable.\n";
    break;
  case mechanism_kind::local_map:
    os << "Local-map gives eps-dLDP only between values of the same "
          "partition; values in different partitions have disjoint outputs "
          "and are fully distinguishable (Theorem 4.7).\n";
    break;
  case mechanism_kind::adj_map:
    os << partition_budget_note << "\n";
    break;
  case mechanism_kind::piecewise:
    os << "Piecewise is eps-LDP over the whole domain (the baseline).\n";
    break;
  }
  os << "Caveats (spec §8.4):\n"
        "  - the split ranks Party A requests tell each Party B which of its "
        "desensitized thresholds the model uses (label-dependent);\n"
        "  - the samplers are rejection samplers: the number of rounds "
        "depends on where a value sits (a timing side channel the budget "
        "does not cover);\n"
        "  - the pre-processing bounds must be public constants; bounds "
        "fitted to the data leak each column's range;\n"
        "  - each private prediction spends the per-record budget again on "
        "the new record;\n"
        "  - the guarantees assume the parties follow the protocol; the "
        "paper analyses no collusion.\n";
  return os.str();
}

training_report training_report_of(std::string report,
                                   const dp::accountant& spent) {
  training_report t;
  t.report = std::move(report);
  for (const auto& e : spent.entries()) {
    t.what.push_back(e.what);
    t.mechanism.push_back(e.cost.mechanism);
    t.kinds.push_back(static_cast<std::uint8_t>(e.cost.kind));
    t.epsilon.push_back(e.cost.epsilon);
    t.epsilon_prt.push_back(e.cost.epsilon_prt);
    t.epsilon_ner.push_back(e.cost.epsilon_ner);
    t.theta.push_back(e.cost.theta);
  }
  return t;
}

dp::accountant spent_of(const training_report& t) {
  dp::accountant spent;
  for (std::size_t k = 0; k < t.what.size(); ++k) {
    dp::privacy_cost cost;
    cost.kind = static_cast<dp::guarantee>(t.kinds.at(k));
    cost.epsilon = t.epsilon.at(k);
    cost.epsilon_prt = t.epsilon_prt.at(k);
    cost.epsilon_ner = t.epsilon_ner.at(k);
    cost.theta = t.theta.at(k);
    cost.mechanism = t.mechanism.at(k);
    spent.add(t.what[k], std::move(cost));
  }
  return spent;
}

} // namespace veil::protocols::opboost
