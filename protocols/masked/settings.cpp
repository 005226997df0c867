#include "protocols/masked/settings.hpp"

#include <cmath>
#include <sstream>

#include "learners/input_error.hpp"
#include "protocols/masked/descriptor.hpp"
#include "protocols/masked/exchange.hpp"

namespace veil::protocols::masked {

bool apply_setting(params& p, const std::string& key, const std::string& value,
                   const std::string& context) {
  const auto* s = descriptor().find(key);
  if (!s)
    return false;
  protocols::check_setting(*s, value, context);
  auto number = [&] { return *parse_finite(value); }; // checked above
  if (key == "epsilon")
    p.epsilon_ap = number();
  else if (key == "delta")
    p.delta_ap = number();
  else if (key == "masked.epsilon_pp")
    p.epsilon_pp = number();
  else if (key == "masked.delta_pp")
    p.delta_pp = number();
  else if (key == "masked.w")
    p.w = static_cast<int>(number());
  else if (key == "masked.mu")
    p.mu = number();
  else if (key == "masked.accounting")
    p.accounting = value == "per_release" ? accounting::per_release
                   : value == "strict"    ? accounting::strict
                                          : accounting::per_step;
  else if (key == "masked.sensitivity")
    p.sensitivity =
        value == "record" ? sensitivity::record : sensitivity::vector;
  else if (key == "masked.energy")
    p.energy = value == "adaptive" ? energy_mode::adaptive : energy_mode::worst;
  else if (key == "masked.split_gh")
    p.split_gh = value == "true";
  else if (key == "masked.tail")
    p.tail = value == "bound" ? tail_method::bound : tail_method::exact;
  else if (key == "masked.lossless_check")
    p.lossless_check = value == "true";
  else if (key == "masked.seed")
    p.seed = static_cast<std::uint64_t>(number());
  else if (key == "paillier.bits")
    p.paillier_bits = static_cast<int>(number());
  else
    throw std::logic_error("masked: setting " + key + " has no handler");
  // Settings that depend on each other (ε_PP > W ln 2) are checked once
  // all are given (params::validate), whatever their order.
  return true;
}

learners::booster_params booster_for(const learners::booster_params& given) {
  learners::booster_params bp;
  bp.rounds = 60;
  bp.tree.max_depth = 6;
  bp.max_bin = 32;
  bp.tree.eta = 0.3;
  bp.tree.lambda = 1;
  bp.tree.min_child_weight = 0;
  bp.base_score = 0.5;
  const learners::booster_params generic;
  using bp_t = learners::booster_params;
  using tp_t = learners::tree_params;
  for (auto f : {&bp_t::rounds, &bp_t::max_bin, &bp_t::early_stopping_rounds})
    if (given.*f != generic.*f)
      bp.*f = given.*f;
  if (given.tree.max_depth != generic.tree.max_depth)
    bp.tree.max_depth = given.tree.max_depth;
  for (auto f : {&tp_t::eta, &tp_t::lambda, &tp_t::gamma,
                 &tp_t::min_child_weight, &tp_t::max_delta_step})
    if (given.tree.*f != generic.tree.*f)
      bp.tree.*f = given.tree.*f;
  if (!std::isnan(given.base_score))
    bp.base_score = given.base_score;
  bp.tree.oblivious = given.tree.oblivious;
  bp.eval_rounds = given.eval_rounds;
  bp.eval_train = given.eval_train;
  bp.leaf = given.leaf;
  bp.threads = given.threads;
  bp.objective = given.objective;
  bp.num_class = given.num_class;
  return bp;
}

void refuse_unused_learner_settings(const learners::booster_params& bp,
                                    const std::string& context) {
  if (bp.objective != learners::objective_kind::binary_logistic)
    throw input_error(context + "objective " +
                      learners::to_string(bp.objective) +
                      ": MaskedXGBoost trains binary:logistic only (its "
                      "gradient bound mu assumes the logistic loss)");
  if (bp.tree.oblivious)
    throw input_error(context + "weak_learner: MaskedXGBoost grows "
                                "depth-wise trees only");
}

method method_named(const std::string& name) {
  if (name == "masked-xgboost")
    return method::masked;
  if (name == "xgboost-ldp")
    return method::xgboost_ldp;
  if (name == "fedxgboost-ldp")
    return method::fedxgboost_ldp;
  if (name == "federboost")
    return method::federboost;
  if (name == "he-xgboost")
    return method::he;
  throw std::invalid_argument("not a method of MaskedXGBoost's: " + name);
}

const char* to_string(method m) {
  switch (m) {
  case method::masked:
    return "masked-xgboost";
  case method::xgboost_ldp:
    return "xgboost-ldp";
  case method::fedxgboost_ldp:
    return "fedxgboost-ldp";
  case method::federboost:
    return "federboost";
  case method::he:
    return "he-xgboost";
  }
  return "?";
}

guarantee fix_guarantee(method m, const params& p,
                        const learners::booster_params& bp, std::uint64_t rows,
                        int passives, std::uint64_t passive_features) {
  guarantee g;
  g.method = m;
  g.settings = p;
  g.passive_features = passive_features;
  if (m == method::federboost || m == method::he)
    return g; // no noise to calibrate
  if (m != method::masked) {
    bool hessians = m == method::xgboost_ldp;
    g.ldp = ldp_calibrate(p, rows, bp.rounds, passives, hessians);
    // Every release: one per tree and passive party, g (and h).
    g.end_to_end_releases = static_cast<std::uint64_t>(bp.rounds) *
                            static_cast<std::uint64_t>(passives) *
                            (hessians ? 2 : 1);
    auto [e, d] = advanced_composition(g.ldp.budget.epsilon, g.ldp.budget.delta,
                                       g.end_to_end_releases, p.delta_ap / 2);
    double k = static_cast<double>(g.end_to_end_releases);
    bool basic = k * g.ldp.budget.epsilon <= e;
    g.end_to_end_epsilon = basic ? k * g.ldp.budget.epsilon : e;
    g.end_to_end_delta = basic ? k * g.ldp.budget.delta : d;
    return g;
  }
  g.max_candidates = max_candidates(passive_features, bp.max_bin);
  g.fixed = calibrate(p, rows, bp.rounds, bp.tree.max_depth, passives,
                      std::max<std::uint64_t>(g.max_candidates, 1));
  // End to end: an instance is in one node per level and tree, where each
  // passive party's every candidate releases ⟨g⟩ and ⟨h⟩.
  g.end_to_end_releases = 2 * g.fixed.steps * g.max_candidates;
  auto k = static_cast<double>(g.end_to_end_releases);
  const auto& r = g.fixed.release;
  double slack = p.delta_ap / 2;
  auto [adv_eps, adv_delta] =
      advanced_composition(r.epsilon, r.delta, g.end_to_end_releases, slack);
  double basic_eps = k * r.epsilon, basic_delta = k * r.delta;
  if (adv_eps < basic_eps) {
    g.end_to_end_epsilon = adv_eps;
    g.end_to_end_delta = adv_delta;
  } else {
    g.end_to_end_epsilon = basic_eps;
    g.end_to_end_delta = basic_delta;
  }
  return g;
}

namespace {

nlohmann::json he_privacy_json(const guarantee& g) {
  nlohmann::json j;
  j["mechanism"] = "he-xgboost: Paillier, " +
                   std::to_string(g.settings.paillier_bits) +
                   "-bit modulus (spec maskedxgboost §6.5)";
  j["passive_parties_see"] = "ciphertexts of every row's gradient and "
                             "hessian (semantically secure under DCR)";
  j["active_party_sees"] = "each passive party's histograms: the sums of its "
                           "own gradients per bin of every feature (as "
                           "plain, SecureBoost's pattern)";
  j["not_covered"] = {"every node's partition (both ways)",
                      "the passive parties' bin sums at the active party"};
  return j;
}

std::string he_privacy_text(const guarantee& g) {
  return "privacy: Paillier " + std::to_string(g.settings.paillier_bits) +
         "-bit: the passive parties see only ciphertexts of the gradients; "
         "the active party sees their histograms (sums of its gradients per "
         "bin of each of their features), as in plain; no differential "
         "privacy";
}

nlohmann::json federboost_privacy_json(const guarantee& g) {
  const auto& p = g.settings;
  auto f = static_cast<double>(g.passive_features);
  nlohmann::json j;
  j["mechanism"] = "federboost: each passive party's bucket ids under "
                   "randomized response, once (spec maskedxgboost §6.4)";
  j["passive_parties"] = {
      {"epsilon_per_value", p.epsilon_pp},
      {"epsilon_per_record", f * p.epsilon_pp},
      {"composition", "basic, over the widest passive party's features"},
      {"holds_against", "the active party (and anyone who sees the ids)"}};
  j["active_party"] = {{"released",
                        "no gradient; each passive party learns which of its "
                        "bucket bounds the trees use"}};
  j["noise"] = p.seed == 0 ? "the operating system's CSPRNG"
                           : "a fixed seed (predictable: no protection)";
  return j;
}

std::string federboost_privacy_text(const guarantee& g) {
  const auto& p = g.settings;
  std::ostringstream os;
  os.precision(4);
  os << "privacy (passive parties): each bucket id under randomized "
        "response, epsilon "
     << p.epsilon_pp << " per value; "
     << static_cast<double>(g.passive_features) * p.epsilon_pp
     << " per record over " << g.passive_features
     << " features (basic composition); against the active party\n";
  os << "privacy (active party): no gradient released; each passive party "
        "learns which of its bucket bounds the trees use";
  if (p.seed != 0)
    os << "\nWARNING: masked.seed is set: the noise is predictable and "
          "protects nothing";
  return os.str();
}

nlohmann::json ldp_privacy_json(const guarantee& g) {
  const auto& p = g.settings;
  nlohmann::json j;
  bool hessians = g.method == method::xgboost_ldp;
  j["mechanism"] = std::string(to_string(g.method)) +
                   ": Gaussian noise on the active party's clipped " +
                   (hessians ? "gradients and hessians" : "gradients") +
                   ", once per tree (spec maskedxgboost §6)";
  j["active_party"] = {{"epsilon", p.epsilon_ap},
                       {"delta", p.delta_ap},
                       {"accounting", to_string(p.accounting)},
                       {"sensitivity", to_string(p.sensitivity)},
                       {"per_release_epsilon", g.ldp.budget.epsilon},
                       {"per_release_delta", g.ldp.budget.delta},
                       {"noise_stddev", g.ldp.stddev},
                       {"end_to_end_releases", g.end_to_end_releases},
                       {"end_to_end_epsilon", g.end_to_end_epsilon},
                       {"end_to_end_delta", g.end_to_end_delta},
                       {"holds_against",
                        "everyone, the passive parties included (they see "
                        "only the noisy values)"}};
  j["passive_parties"] = {{"protection",
                           "none beyond keeping their features and thresholds: "
                           "their best scores and winning partitions go to the "
                           "active party"}};
  j["not_covered"] = {"every node's partition (both ways)",
                      "each passive party's best score per node"};
  j["noise"] = p.seed == 0 ? "the operating system's CSPRNG"
                           : "a fixed seed (predictable: no protection)";
  return j;
}

std::string ldp_privacy_text(const guarantee& g) {
  const auto& p = g.settings;
  std::ostringstream os;
  os.precision(4);
  if (p.lossless_check)
    os << "privacy: NONE (masked.lossless_check: no noise)\n";
  os << "privacy (active party): (epsilon " << p.epsilon_ap << ", delta "
     << p.delta_ap << ") " << to_string(p.accounting) << "; each tree's "
     << (g.method == method::xgboost_ldp ? "noisy g and h" : "noisy g")
     << " released with (" << g.ldp.budget.epsilon << ", " << g.ldp.budget.delta
     << "), noise sd " << g.ldp.stddev << ", " << to_string(p.sensitivity)
     << " neighbours; against everyone\n";
  os << "  end to end over every release (" << g.end_to_end_releases
     << " per record): epsilon " << g.end_to_end_epsilon << ", delta "
     << g.end_to_end_delta << "\n";
  os << "privacy (passive parties): none beyond keeping their features; "
        "their best scores and winning partitions go to the active party";
  if (p.seed != 0)
    os << "\nWARNING: masked.seed is set: the noise is predictable and "
          "protects nothing";
  return os.str();
}

} // namespace

nlohmann::json privacy_json(const guarantee& g) {
  if (g.method == method::he)
    return he_privacy_json(g);
  if (g.method == method::federboost)
    return federboost_privacy_json(g);
  if (g.method != method::masked)
    return ldp_privacy_json(g);
  const auto& p = g.settings;
  const auto& c = g.fixed;
  nlohmann::json j;
  j["mechanism"] = p.lossless_check
                       ? "MaskedXGBoost without disturbing noise (lossless "
                         "check: NO protection of the gradient sums)"
                       : "MaskedXGBoost (Gaussian masks, spec maskedxgboost)";
  j["active_party"] = {
      {"epsilon", p.epsilon_ap},
      {"delta", p.delta_ap},
      {"accounting", to_string(p.accounting)},
      {"sensitivity", to_string(p.sensitivity)},
      {"split_gh", p.split_gh},
      {"per_release_epsilon", c.release.epsilon},
      {"per_release_delta", c.release.delta},
      {"divided_over", c.release.releases},
      {"composition", c.release.composition},
      {"end_to_end_releases", g.end_to_end_releases},
      {"end_to_end_epsilon", g.end_to_end_epsilon},
      {"end_to_end_delta", g.end_to_end_delta},
      {"holds_against",
       "a party that does not know the noise matrices; NOT the passive "
       "parties, which made them and can remove them (spec §5.6(1))"}};
  j["passive_parties"] = {
      {"epsilon", p.epsilon_pp},
      {"delta", c.delta_pp},
      {"per", "noise matrix (Theorem 3, both directions); not composed "
              "over the matrices a splitting vector's entries appear in"},
      {"rho", c.rho},
      {"w", c.w},
      {"energy", to_string(p.energy)}};
  j["not_covered"] = {"the exact node sums G and H",
                      "every node's partition (both ways)",
                      "each passive party's best score per node"};
  if (p.energy == energy_mode::adaptive)
    j["not_covered"].push_back("the left counts of every candidate");
  j["noise"] = p.seed == 0 ? "the operating system's CSPRNG"
                           : "a fixed seed (predictable: no protection)";
  return j;
}

std::string privacy_text(const guarantee& g) {
  if (g.method == method::he)
    return he_privacy_text(g);
  if (g.method == method::federboost)
    return federboost_privacy_text(g);
  if (g.method != method::masked)
    return ldp_privacy_text(g);
  const auto& p = g.settings;
  const auto& c = g.fixed;
  std::ostringstream os;
  os.precision(4);
  if (p.lossless_check)
    os << "privacy: NONE for the active party's gradient sums "
          "(masked.lossless_check: no disturbing noise; a test of the "
          "protocol, not for real data)\n";
  os << "privacy (active party): (epsilon " << p.epsilon_ap << ", delta "
     << p.delta_ap << ") " << to_string(p.accounting)
     << "; each masked vector released with (" << c.release.epsilon << ", "
     << c.release.delta << ")"
     << (p.split_gh ? ", g and h half each" : ", g and h each all of it")
     << ", " << to_string(p.sensitivity) << " neighbours\n";
  os << "  end to end over every release (" << g.end_to_end_releases
     << " per record, up to " << g.max_candidates
     << " candidates per node): epsilon " << g.end_to_end_epsilon << ", delta "
     << g.end_to_end_delta << "\n";
  os << "  holds against a party that does not know the noise matrices; NOT "
        "against the passive parties, who made them and can remove them "
        "(spec §5.6(1))\n";
  os << "privacy (passive parties): (epsilon " << p.epsilon_pp << ", delta "
     << c.delta_pp << ") per noise matrix, rho " << c.rho << ", W " << c.w
     << "; not composed over matrices\n";
  os << "not covered: exact node sums, every node's partition, each passive "
        "party's best score"
     << (p.energy == energy_mode::adaptive ? ", the left counts" : "");
  if (p.seed != 0)
    os << "\nWARNING: masked.seed is set: the noise is predictable and "
          "protects nothing";
  return os.str();
}

} // namespace veil::protocols::masked
