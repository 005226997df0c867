#pragma once

// FEVERLESS's settings by name, the single way from what a user gives (the
// --set keys of its descriptor, a session file's [protocol] parameters, the
// learner's settings) to its params: `veil train`, `veil train --config`
// and the REPL all go through it. And the privacy section of its report.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "learners/boost/booster.hpp"
#include "protocols/feverless/accountant.hpp"
#include "protocols/feverless/params.hpp"

namespace veil::protocols::feverless {

/// The mode a --protocol name selects (feverless, feverless-plain,
/// feverless-ldp, feverless-ahe); throws input_error for another name.
mode parse_mode(const std::string& protocol);

/// The FEVERLESS settings a session collects before they become params.
struct named_settings {
  std::optional<double> sum_epsilon;
  double epsilon = 0; ///< total budget; 0 = not given (2)
  double delta = 0;   ///< 0 = not given (1e-5)
  /// max_delta_step was set: no default clamp.
  bool max_delta_step_given = false;
};

/// Whether `p` gets the noisy modes' default leaf-weight clamp (see
/// default_noisy_max_delta_step in settings.cpp).
bool default_clamp(const params& p, const named_settings& fs);

/// Applies one FEVERLESS setting (a --set key, or a [protocol] parameter
/// of a session file), checked against the descriptor's table; false if
/// `key` is none. `context` names it in errors ("--set
/// feverless.buckets=x", "session.toml:3: [protocol] ...").
bool apply_setting(params& p, named_settings& fs, const std::string& key,
                   const std::string& value, const std::string& context);

/// The learner's settings and the budget into `p`; validates it. Refuses
/// learner settings FEVERLESS's trees do not use. Errors start with
/// `context`.
void finish_params(params& p, const learners::booster_params& bp,
                   const named_settings& fs, const std::string& context);

/// The report's privacy section: the mechanism, the budget, and the
/// guarantee per query and in total (none for the plaintext baseline or
/// with the noise off).
nlohmann::json privacy_json(const params& p, const privacy_report& r);

/// What the command prints about the guarantee after training: the
/// headline and, with noise, its sigma, the basic-composition total, the
/// realised query count and the default clamp (`clamped`: it applied).
std::string privacy_text(const params& p, const privacy_report& r,
                         bool clamped);

/// What a session of `p` fixes before training with `features` features
/// over all its clients (the bound NT·d·f of client.cpp): the headline and,
/// with noise, its sigma and the basic-composition total, as privacy_text
/// states them after training. Throws input_error as the clients would
/// refuse the settings.
std::string planned_privacy(const params& p, std::uint64_t features);

/// The warnings that go to stderr (none: empty): the report's own, and a
/// hessian noise large enough to blow up unclamped leaf weights.
std::vector<std::string> privacy_warnings(const params& p,
                                          const privacy_report& r);

} // namespace veil::protocols::feverless
