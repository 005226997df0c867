#pragma once

// OpBoost's privacy report: what each Party B feature's mechanism
// guarantees, the sums per record, what the nominal budget really means
// (spec opboost §2.5, §8.4), and the exact worst-case privacy losses of the
// configuration next to the nominal epsilon t.

#include <string>
#include <vector>

#include "protocols/dp/accountant.hpp"
#include "protocols/dp/rational.hpp"
#include "protocols/opboost/params.hpp"

namespace veil::protocols::opboost {

/// The note of spec §2.5 on the partition budget, always part of an
/// Adj-map report.
extern const char* const partition_budget_note;

/// The exact worst-case loss max over pairs at distance t of
/// max_o |ln P(o|x) / P(o|x')| of the mechanism `p` on `d` (double
/// precision; +infinity when some output tells the inputs apart). NaN when
/// |D⊥| exceeds `max_domain` (the computation costs O(|D⊥|^2)).
double worst_case_loss(const mechanism_params& p, const domain& d,
                       std::int64_t t, std::int64_t max_domain = 2048);

/// Report text on the budget and on per-feature losses uses this epsilon
/// (the parameter's, or its share when split).
std::vector<double> worst_case_losses(const mechanism_params& p,
                                      const domain& d,
                                      const std::vector<std::int64_t>& ts,
                                      double epsilon,
                                      std::int64_t max_domain = 2048);

/// The report: per party and feature the guarantee (with the budget share
/// when split), the totals per record, the real worst-case losses of each
/// party's per-feature mechanism at t = 1, theta and |D⊥| - 1 next to
/// epsilon t, the notes, and the caveats of spec §8.4.
std::string
privacy_report(const params& p,
               const std::vector<std::vector<std::string>>& features_by_party);

/// The report's first line, in plain words: what one Party B value and one
/// record's Party B values get (from what the mechanisms spent), e.g. "each
/// Party B value: 0.08-dLDP (global-map); each record over its 12 Party B
/// features: 0.96-dLDP by sequential composition; Party A's columns and
/// the labels stay with Party A".
/// `fitted`: the Party B columns whose bounds were fitted to the data, for
/// which the guarantee is conditional (it holds given their range, which
/// Party A learns).
/// What the Party Bs holding `features_by_b` (each one's column names)
/// will spend, fixed before training: as their spent() reports it after
/// (each column under its Party B's mechanism, party_budget).
dp::accountant
planned_spend(const params& p,
              const std::vector<std::vector<std::string>>& features_by_b);

/// A Party B's budget per column: the mechanism's epsilon, or its share
/// over the party's `features` columns when the budget is split.
dp::rational party_budget(const params& p, std::size_t features);

std::string privacy_headline(const params& p, const dp::accountant& spent,
                             const std::vector<std::string>& fitted = {});

/// Party A's own account of its training, packed into the
/// session::trained it sends: its privacy_report() and what each Party B
/// feature spends (active_party::spent(), entry by entry).
struct training_report {
  std::string report;
  std::vector<std::string> what;
  std::vector<std::string> mechanism;
  std::vector<std::uint8_t> kinds; ///< dp::guarantee per entry
  std::vector<double> epsilon, epsilon_prt, epsilon_ner;
  std::vector<std::int64_t> theta;
};

/// The report of Party A's `report` text and `spent` budget.
training_report training_report_of(std::string report,
                                   const dp::accountant& spent);

/// The budget a report carries, entry by entry; throws std::out_of_range
/// if its fields differ in length.
dp::accountant spent_of(const training_report& t);

} // namespace veil::protocols::opboost
