#pragma once

// What a local randomizer spends, and the sum over the randomizers applied
// to one record (sequential composition; OpBoost Theorems B.1 and B.2).

#include <cstdint>
#include <string>
#include <vector>

namespace veil::protocols::dp {

/// The kind of guarantee a mechanism gives about one input value.
enum class guarantee {
  /// No protection: the output reveals the input (the identity mechanism).
  none,
  /// epsilon-LDP: any two inputs are e^epsilon-indistinguishable.
  ldp,
  /// epsilon-dLDP (metric LDP): inputs at distance t are
  /// e^(t epsilon)-indistinguishable (OpBoost Def. 2.2).
  dldp,
  /// (epsilon_prt, epsilon_ner)-partition-dLDP (OpBoost Def. 4.4): inputs at
  /// distance t are e^(ceil(t/theta) epsilon_prt + theta epsilon_ner)-
  /// indistinguishable.
  partition_dldp,
  /// epsilon_ner-dLDP between inputs of the same partition only; inputs in
  /// different partitions are distinguishable (Local-map, Theorem 4.7).
  within_partition_dldp,
};

const char* to_string(guarantee g);

/// What one mechanism spends on one input value. Fields that the kind does
/// not use stay 0.
struct privacy_cost {
  guarantee kind = guarantee::none;
  /// ldp, dldp: the epsilon. partition_dldp: the nominal epsilon the budget
  /// split was derived from (see the note of OpBoost's report).
  /// within_partition_dldp: epsilon_ner.
  double epsilon = 0;
  double epsilon_prt = 0;
  double epsilon_ner = 0;
  std::int64_t theta = 0;
  /// The mechanism and sampler, for reports ("global-map/exponential").
  std::string mechanism;

  /// The exponent bound of the guarantee for two inputs at distance t
  /// (infinite for none, and for within_partition_dldp when t >= theta
  /// may cross a partition: callers pass same_partition).
  double bound(std::int64_t t, bool same_partition = true) const;

  /// One line: "global-map/exponential: 0.08-dLDP".
  std::string describe() const;
};

/// Sums what the mechanisms applied to one record spend, per kind of
/// guarantee (sequential composition). Mechanisms of different kinds do not
/// add up to one number: the report keeps them apart.
class accountant {
public:
  struct entry {
    std::string what; ///< the feature (or query) that spent it
    privacy_cost cost;
  };

  void add(std::string what, privacy_cost cost);
  const std::vector<entry>& entries() const { return entries_; }

  /// True when some entry gives no protection.
  bool any_unprotected() const;
  /// Sums over the entries of one kind: epsilon (ldp, dldp), epsilon_prt and
  /// epsilon_ner (partition_dldp), epsilon_ner (within_partition_dldp).
  privacy_cost total(guarantee kind) const;
  /// total() of every kind some entry has (ldp, dldp, partition_dldp,
  /// within_partition_dldp, in this order), with how many entries it sums.
  std::vector<std::pair<privacy_cost, std::size_t>> totals() const;

  /// One line per entry, then the totals per kind.
  std::string report() const;

private:
  std::vector<entry> entries_;
};

} // namespace veil::protocols::dp
