#include "protocols/masked/descriptor.hpp"

#include <limits>

namespace veil::protocols::masked {

const protocols::descriptor& descriptor() {
  static const protocols::descriptor d = [] {
    constexpr double inf = std::numeric_limits<double>::infinity();
    protocols::descriptor x;
    // Its LDP baselines (spec §6.2–6.3) run on the same roles.
    x.names = {"masked-xgboost", "xgboost-ldp", "fedxgboost-ldp", "federboost",
               "he-xgboost"};
    x.summary = "MaskedXGBoost: the passive parties send noise matrices "
                "whose structured part cancels in their split sums, the "
                "active party returns its gradients masked with them; "
                "bilateral DP (Gaussian LDP for the gradients, DP for the "
                "passive parties' splitting vectors); xgboost-ldp and "
                "fedxgboost-ldp: its baselines, noisy gradients (and "
                "hessians) once per tree; federboost: the passive parties' "
                "bucket ids under randomized response, once; he-xgboost: "
                "plain's histograms of Paillier-encrypted gradients";
    x.parties = {
        {"active", 1, 1,
         "holds the labels and its columns; masks its gradients, compares "
         "its own exact best split with the passive parties' scores",
         "nothing (its splits are in MODEL)"},
        {"passive", 1, 0,
         "holds its columns; sends noise matrices, scores its candidates "
         "from the masked gradients, returns its best score",
         "its split table (feature, threshold, missing-value side per "
         "split; the active party never learns which feature)"}};
    x.links = topology::star;
    x.spread_labels = false;
    x.labels = "the active party (the one party with a label column)";
    x.model_file = "the trees, leaf values and the active party's splits "
                   "(a passive party's split names the party only)";
    // FederBoost's active party releases nothing, HE-XGBoost encrypts:
    // neither spends a budget of the active party's.
    const std::vector<std::string> spending = {"masked-xgboost", "xgboost-ldp",
                                               "fedxgboost-ldp"};
    x.settings = {
        only_for(number_setting("epsilon", "1", 0, 1000, true, false,
                                "the active party's budget (Theorem 2, "
                                "Gaussian LDP of its gradient vectors), over "
                                "the training as masked.accounting divides "
                                "it"),
                 spending),
        only_for(number_setting("delta", "0.001", 0, 1, true, true,
                                "the active party's delta"),
                 spending),
        number_setting("masked.epsilon_pp", "1", 0, 1000, true, false,
                       "each passive party's budget per noise matrix "
                       "(Theorem 3); must exceed masked.w ln 2"),
        number_setting("masked.delta_pp", "0", 0, 1, false, true,
                       "each passive party's delta per noise matrix (0: "
                       "1/rows)"),
        integer_setting("masked.w", "1", 1, 64, "noise columns per candidate"),
        number_setting("masked.mu", "1.4621171572600098", 0, inf, true, false,
                       "the gradients' range: released g clipped to "
                       "[-mu/2, mu/2], h to [0, mu/2] (2: nothing clipped)"),
        choice_setting("masked.accounting",
                       {"per_step", "per_release", "strict"},
                       "how the budget is divided: per tree level (the "
                       "paper's reading), not at all, or over every "
                       "candidate's release"),
        choice_setting("masked.sensitivity", {"vector", "record"},
                       "neighbouring gradients: any change of the whole "
                       "vector (Theorem 2), or of one record (not the "
                       "paper's; far less noise)"),
        choice_setting("masked.energy", {"worst", "adaptive"},
                       "noise energy for the worst left set, or from left "
                       "counts the passive parties disclose"),
        bool_setting("masked.split_gh", true,
                     "calibrate g and h with half the budget each (false: "
                     "each with all of it, as the paper)"),
        choice_setting("masked.tail", {"exact", "bound"},
                       "Theorem 3's tail: integrated, or its closed-form "
                       "bound"),
        bool_setting("masked.lossless_check", false,
                     "no disturbing noise (sigma2 = 0): the trees are "
                     "plain's, and the gradient sums are NOT protected"),
        choice_setting("paillier.bits", {"2048", "1024", "3072"},
                       "he-xgboost's Paillier modulus (1024: below today's "
                       "recommendations)"),
        integer_setting("masked.seed", "0", 0, 9007199254740992.0,
                        "0: noise from the OS; otherwise a fixed seed "
                        "(reproducible, and the noise is predictable)"),
    };
    x.learner_notes = {
        "the paper's defaults: 60 trees, depth 6, 32 bins, eta 0.3, "
        "lambda 1, min_child_weight 0, base_score 0.5; flags and "
        "[learner] override them",
        "binary:logistic only; weak_learner=decision_table: refused"};
    return x;
  }();
  return d;
}

} // namespace veil::protocols::masked
