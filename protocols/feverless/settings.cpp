// FEVERLESS's settings by name and its report's privacy section
// (protocols/feverless/settings.hpp).
#include "protocols/feverless/settings.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "learners/input_error.hpp"
#include "protocols/feverless/descriptor.hpp"

namespace veil::protocols::feverless {

mode parse_mode(const std::string& protocol) {
  if (protocol == "feverless")
    return mode::feverless;
  if (protocol == "feverless-plain")
    return mode::plain;
  if (protocol == "feverless-ldp")
    return mode::ldp;
  if (protocol == "feverless-ahe")
    return mode::ahe;
  throw input_error("--protocol " + protocol +
                    ": expected feverless, feverless-plain, feverless-ldp "
                    "or feverless-ahe");
}

namespace {

/// [D] The leaf-weight clamp (XGBoost's max_delta_step) of the noisy modes
/// when none is set. Noisy hessian sums put H + lambda near 0 often enough
/// that weights -G/(H + lambda) blow up; the clamp post-processes released
/// sums, so it costs no privacy. The default is the smallest clamp that
/// still lets the trees move a margin by 3 in all (probability 0.5 to 0.05
/// or 0.95: every client starts from margin 0, so the trees must reach the
/// base rate), and at least 0.5: max(0.5, 3 / (eta NT)). Measured on bank
/// marketing and adult (docs/reproduction/feverless.md §3).
/// max_delta_step = 0 restores the paper's algorithm.
double default_noisy_max_delta_step(const params& p) {
  return std::max(0.5, 3.0 / (p.eta * p.trees));
}

} // namespace

bool default_clamp(const params& p, const named_settings& fs) {
  return p.protocol != mode::plain && !fs.max_delta_step_given;
}

/// Applies one FEVERLESS setting (a --set key, or a [protocol] parameter
/// of a session file); false if `key` is none. `context` names it in
/// errors ("--set feverless.buckets=x", "session.toml: [protocol] ...").
bool apply_setting(params& p, named_settings& fs, const std::string& key,
                   const std::string& value, const std::string& context) {
  // The descriptor's table checks type and range; here values become
  // params.
  const auto& desc = descriptor();
  for (const auto& [old, why] : desc.renamed)
    if (key == old)
      throw input_error(context + ": " + why);
  const auto* s = desc.find(key);
  if (!s)
    return false;
  protocols::check_setting(*s, value, context);
  auto number = [&] { return *parse_finite(value); }; // checked above
  if (key == "feverless.sum_epsilon")
    fs.sum_epsilon = number();
  else if (key == "epsilon")
    fs.epsilon = number();
  else if (key == "delta")
    fs.delta = number();
  else if (key == "feverless.calibration")
    p.calib =
        value == "analytic" ? calibration::analytic : calibration::classical;
  else if (key == "feverless.election")
    p.election = value == "chain"    ? election_scope::chain
                 : value == "signed" ? election_scope::signed_query
                                     : election_scope::per_batch;
  else if (key == "feverless.noise_below_unit")
    p.noise_below_unit = value == "true";
  else if (key == "feverless.hide_labels")
    p.hide_labels = value == "true";
  else if (key == "feverless.source_noise")
    p.source_noise = value == "true";
  else if (key == "feverless.hessian_noise")
    p.hessian_noise = value == "true";
  else if (key == "feverless.buckets")
    p.buckets = static_cast<int>(number());
  else if (key == "paillier.bits")
    p.paillier_bits = static_cast<int>(number());
  else if (key == "paillier.threads")
    p.paillier_threads = static_cast<int>(number());
  return true;
}

namespace {

/// Refuses learner settings FEVERLESS's trees do not use, so that a user
/// who sets one learns it had no effect instead of reading a model that
/// silently ignored it.
void refuse_unused_learner_settings(const learners::booster_params& bp,
                                    const std::string& context) {
  const learners::booster_params def;
  auto refuse = [&](const std::string& key, const std::string& why) {
    throw input_error(context + key + ": not used by FEVERLESS (" + why + ")");
  };
  if (bp.max_bin != def.max_bin)
    refuse("max_bin", "its split candidates are quantile buckets: set "
                      "feverless.buckets");
  if (bp.tree.min_child_weight != def.tree.min_child_weight)
    refuse("min_child_weight", "no child-weight limit in its split rule");
  if (!std::isnan(bp.base_score))
    refuse("base_score", "every client starts from margin 0");
  if (bp.eval_train != def.eval_train)
    refuse("eval_train", "no per-round evaluation");
  if (bp.eval_rounds != def.eval_rounds)
    refuse("eval_rounds", "it evaluates rounds with early stopping only; "
                          "otherwise its history comes after training");
  if (bp.tree.oblivious != def.tree.oblivious)
    refuse("weak_learner", "it grows depth-wise trees only");
}

/// The noised sums' sensitivities, for the privacy lines.
std::string sensitivities(const params& p) {
  std::ostringstream out;
  out << "Δg = " << p.sensitivity_g;
  if (p.hessian_noise)
    out << ", Δh = " << p.sensitivity_h;
  else
    out << "; H exact: no label moves it";
  return out.str();
}

} // namespace

/// The learner's settings and the budget into `p`; validates it.
void finish_params(params& p, const learners::booster_params& bp,
                   const named_settings& fs, const std::string& context) {
  if (bp.objective != learners::objective_kind::binary_logistic)
    throw input_error(context + to_string(p.protocol) +
                      " trains binary:logistic only");
  refuse_unused_learner_settings(bp, context);
  if (p.protocol == mode::plain &&
      (fs.epsilon > 0 || fs.delta > 0 || fs.sum_epsilon))
    throw input_error(context + "epsilon/delta: feverless-plain adds no "
                                "noise, so a budget would be printed but "
                                "not spent (use --protocol feverless)");
  p.trees = bp.rounds;
  p.max_depth = bp.tree.max_depth;
  p.eta = bp.tree.eta;
  p.lambda = bp.tree.lambda;
  p.gamma = bp.tree.gamma;
  p.max_delta_step = default_clamp(p, fs) ? default_noisy_max_delta_step(p)
                                          : bp.tree.max_delta_step;
  if (fs.sum_epsilon) {
    if (fs.epsilon > 0)
      throw input_error(context + "epsilon (a total budget) and "
                                  "feverless.sum_epsilon (per released sum): "
                                  "give one");
    p.budget = budget_kind::per_query;
    p.epsilon = *fs.sum_epsilon;
  } else {
    p.budget = budget_kind::total;
    p.epsilon = fs.epsilon > 0 ? fs.epsilon : 2.0;
  }
  p.delta = fs.delta > 0 ? fs.delta : 1e-5;
  try {
    p.validate();
  } catch (const input_error& e) {
    throw input_error(context + e.what());
  }
}

nlohmann::json privacy_json(const params& p, const privacy_report& r) {
  nlohmann::json j;
  j["headline"] = r.headline();
  if (p.protocol == mode::plain || !p.noise) {
    // No guarantee at all: no budget, sigma or epsilon to print (an
    // infinite epsilon would only turn into a JSON null).
    j["mechanism"] = "none";
    j["note"] = p.protocol == mode::plain
                    ? "plaintext partial sums are exchanged (baseline)"
                    : "noise is off";
    j["sigma"] = 0.0;
    j["warning"] = r.warning.empty()
                       ? "no privacy: " + j["note"].get<std::string>()
                       : r.warning;
    return j;
  }
  j["mechanism"] = std::string("discrete gaussian in the fixed point (2^-") +
                   std::to_string(p.frac_bits) + " units), " +
                   (p.protocol == mode::ldp ? "local: every client adds its own"
                                            : "one noise leader per query");
  j["neighbouring"] = "one row's label changes (label-level DP): its "
                      "gradient g moves by exactly 1, its hessian h stays";
  // null: H is released exact.
  j["sensitivity"] = {{"g", p.sensitivity_g},
                      {"h", p.hessian_noise ? nlohmann::json(p.sensitivity_h)
                                            : nlohmann::json(nullptr)}};
  j["budget"] = p.budget == budget_kind::total ? "total" : "per_sum";
  j["budget_epsilon"] = p.epsilon;
  j["budget_delta"] = p.delta;
  j["calibration"] =
      p.calib == calibration::analytic ? "analytic" : "classical";
  j["composition"] = p.total_split == composition::zcdp ? "zcdp" : "basic";
  j["sigma"] = r.sigma;
  j["against"] = r.against;
  j["source_noise"] = p.source_noise;
  j["hessian_noise"] = p.hessian_noise;
  // A query's gradient sum; its hessian sum follows from public margins.
  j["per_query"] = {{"epsilon", r.release_epsilon},
                    {"delta", r.release_delta},
                    {"rho", r.release_rho}};
  j["total"] = {
      {"epsilon", r.total_epsilon},
      {"delta", r.total_delta},
      {"by", r.total_by_zcdp ? "zcdp" : "basic"},
      {"rho", r.total_rho},
      {"record_query_bound", r.record_query_bound},
      {"basic", {{"epsilon", r.basic_epsilon}, {"delta", r.basic_delta}}}};
  j["realised"] = {{"record_queries", r.realised_record_queries},
                   {"epsilon", r.realised_epsilon},
                   {"note",
                    "the most queries any one record joined in this run, known "
                    "only after training; the guarantee is the total, fixed "
                    "before training"}};
  j["queries"] = r.queries_total;
  if (!r.warning.empty())
    j["warning"] = r.warning;
  return j;
}

std::string privacy_text(const params& p, const privacy_report& pr,
                         bool clamped) {
  std::ostringstream out;
  out << "privacy: " << pr.headline() << "\n";
  if (!pr.protected_sums)
    return out.str();
  out << "  noise: sigma " << pr.sigma << " per unit sensitivity "
      << "(" << sensitivities(p) << "; one changed label"
      << (p.source_noise ? ", plus the source's own draw on G" : "")
      << "); by basic composition the total is (" << pr.basic_epsilon << ", "
      << pr.basic_delta
      << "); realised in this run (known only after training, not the "
         "guarantee): the most queries one record joined was "
      << pr.realised_record_queries << " of at most " << pr.record_query_bound
      << ", epsilon " << pr.realised_epsilon << " for that record\n";
  if (clamped)
    out << "  leaf weights clamped to ±" << p.max_delta_step
        << " (max_delta_step, the default with noise; no privacy cost; "
           "max_delta_step=0 gives the paper's algorithm)\n";
  return out.str();
}

std::string planned_privacy(const params& p, std::uint64_t features) {
  auto bound = static_cast<std::uint64_t>(p.trees) * p.max_depth * features;
  auto calibration = calibrate(p, bound);
  privacy_accountant a;
  a.configure(p, calibration, bound, 0);
  auto pr = a.report();
  std::ostringstream out;
  out << pr.headline();
  if (pr.protected_sums)
    out << "; noise: sigma " << pr.sigma << " per unit sensitivity ("
        << sensitivities(p) << "); by basic composition the total is ("
        << pr.basic_epsilon << ", " << pr.basic_delta << ")";
  if (!pr.warning.empty())
    out << "; WARNING: " << pr.warning;
  return out.str();
}

std::vector<std::string> privacy_warnings(const params& p,
                                          const privacy_report& pr) {
  std::vector<std::string> out;
  if (!pr.warning.empty())
    out.push_back(pr.warning);
  // Hessian noise of std >= lambda puts H + lambda near 0 often enough that
  // weights blow up (docs/reproduction/feverless.md §3).
  double h_noise_sd = pr.sigma * p.sensitivity_h;
  if (pr.protected_sums && p.hessian_noise && p.max_delta_step == 0 &&
      h_noise_sd >= p.lambda) {
    std::ostringstream w;
    w << "the hessian sums carry noise of std at least " << h_noise_sd
      << " (lambda = " << p.lambda
      << "): a weight -G/(H+lambda) can blow up where H+lambda lands near 0; "
         "--set max_delta_step=0.5 clamps the weights at no privacy cost";
    out.push_back(w.str());
  }
  return out;
}

} // namespace veil::protocols::feverless
