#include "protocols/dp/accountant.hpp"

#include <cmath>
#include <limits>
#include <sstream>

namespace veil::protocols::dp {

namespace {

std::string num(double x) {
  std::ostringstream os;
  os.precision(6);
  os << x;
  return os.str();
}

} // namespace

const char* to_string(guarantee g) {
  switch (g) {
  case guarantee::none:
    return "none";
  case guarantee::ldp:
    return "LDP";
  case guarantee::dldp:
    return "dLDP";
  case guarantee::partition_dldp:
    return "partition-dLDP";
  case guarantee::within_partition_dldp:
    return "dLDP within partitions";
  }
  return "?";
}

double privacy_cost::bound(std::int64_t t, bool same_partition) const {
  constexpr double inf = std::numeric_limits<double>::infinity();
  auto d = static_cast<double>(t);
  switch (kind) {
  case guarantee::none:
    return t == 0 ? 0 : inf;
  case guarantee::ldp:
    return t == 0 ? 0 : epsilon;
  case guarantee::dldp:
    return d * epsilon;
  case guarantee::partition_dldp:
    if (t == 0)
      return 0;
    return std::ceil(d / static_cast<double>(theta)) * epsilon_prt +
           static_cast<double>(theta) * epsilon_ner;
  case guarantee::within_partition_dldp:
    return same_partition ? d * epsilon_ner : inf;
  }
  return inf;
}

std::string privacy_cost::describe() const {
  std::string head = mechanism.empty() ? "" : mechanism + ": ";
  switch (kind) {
  case guarantee::none:
    return head + "no protection (values are sent as they are)";
  case guarantee::ldp:
    return head + num(epsilon) + "-LDP";
  case guarantee::dldp:
    return head + num(epsilon) + "-dLDP";
  case guarantee::partition_dldp:
    return head + "(" + num(epsilon_prt) + ", " + num(epsilon_ner) +
           ")-partition-dLDP, theta = " + std::to_string(theta) +
           " (nominal epsilon " + num(epsilon) + ")";
  case guarantee::within_partition_dldp:
    return head + num(epsilon_ner) +
           "-dLDP within partitions of length theta = " +
           std::to_string(theta) +
           "; values in different partitions are distinguishable";
  }
  return head;
}

void accountant::add(std::string what, privacy_cost cost) {
  entries_.push_back({std::move(what), std::move(cost)});
}

bool accountant::any_unprotected() const {
  for (auto& e : entries_)
    if (e.cost.kind == guarantee::none)
      return true;
  return false;
}

privacy_cost accountant::total(guarantee kind) const {
  privacy_cost t;
  t.kind = kind;
  t.mechanism = "total";
  for (auto& e : entries_) {
    if (e.cost.kind != kind)
      continue;
    t.epsilon += e.cost.epsilon;
    t.epsilon_prt += e.cost.epsilon_prt;
    t.epsilon_ner += e.cost.epsilon_ner;
    // Partition lengths add up only when equal; report the largest.
    if (e.cost.theta > t.theta)
      t.theta = e.cost.theta;
  }
  return t;
}

std::vector<std::pair<privacy_cost, std::size_t>> accountant::totals() const {
  std::vector<std::pair<privacy_cost, std::size_t>> out;
  for (auto k : {guarantee::ldp, guarantee::dldp, guarantee::partition_dldp,
                 guarantee::within_partition_dldp}) {
    std::size_t n = 0;
    for (auto& e : entries_)
      n += e.cost.kind == k ? 1 : 0;
    if (n > 0)
      out.emplace_back(total(k), n);
  }
  return out;
}

std::string accountant::report() const {
  std::ostringstream os;
  for (auto& e : entries_)
    os << "  " << e.what << ": " << e.cost.describe() << "\n";
  for (const auto& [t, n] : totals()) {
    auto k = t.kind;
    os << "  total per record over " << n << " feature(s) with " << to_string(k)
       << " (sequential composition): ";
    switch (k) {
    case guarantee::ldp:
    case guarantee::dldp:
      os << num(t.epsilon) << "\n";
      break;
    case guarantee::partition_dldp:
      os << "epsilon_prt " << num(t.epsilon_prt) << ", epsilon_ner "
         << num(t.epsilon_ner) << " (nominal epsilon " << num(t.epsilon)
         << ")\n";
      break;
    default:
      os << "epsilon_ner " << num(t.epsilon_ner)
         << " within partitions, none across\n";
    }
  }
  if (any_unprotected())
    os << "  WARNING: some features are not protected at all\n";
  return os.str();
}

} // namespace veil::protocols::dp
