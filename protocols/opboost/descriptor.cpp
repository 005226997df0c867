#include "protocols/opboost/descriptor.hpp"

#include <limits>

namespace veil::protocols::opboost {

const protocols::descriptor& descriptor() {
  static const protocols::descriptor d = [] {
    constexpr double inf = std::numeric_limits<double>::infinity();
    protocols::descriptor x;
    x.names = {"opboost"};
    x.summary = "Party A holds the labels and trains; each Party B "
                "desensitizes its columns under distance-based local DP and "
                "sends only their order (and values around the splits)";
    x.parties = {
        {"Party A", 1, 1,
         "holds the labels and its columns in plaintext (categorical ones "
         "belong here); trains the model",
         "nothing (its model is MODEL)"},
        {"Party B", 1, 0,
         "maps each of its columns into the domain with public bounds and "
         "desensitizes them",
         "its columns' public bounds and its mechanism (to desensitize new "
         "rows)"}};
    x.model_file = "Party A's model (Party B thresholds in desensitized "
                   "units)";
    x.links = topology::star;
    x.spread_labels = false;
    x.labels = "Party A (the one party with a label column)";
    x.settings = {
        number_setting("epsilon", "1.28", 0, 1000, true, false,
                       "the dLDP budget per unit distance, per Party B "
                       "feature"),
        choice_setting(
            "opboost.mechanism",
            {"global-map", "local-map", "adj-map", "piecewise", "identity"},
            "the desensitization (identity: no protection, "
            "tests and baselines only)"),
        choice_setting("opboost.sampler", {"exponential", "discrete-laplace"},
                       "how the exponential-score laws are sampled (the "
                       "same law, exactly)"),
        integer_setting("opboost.theta", "4", 1, inf,
                        "partition length of local-map and adj-map, at most "
                        "the domain's size"),
        number_setting("opboost.alpha", "1", 0, 1e6, true, false,
                       "adj-map's eps_prt / (theta eps_ner)"),
        choice_setting("opboost.learner", {"xgboost", "gbdt"},
                       "Party A's learner (GBDT: gradient-only leaves)"),
        choice_setting("opboost.threshold", {"midpoint", "upper"},
                       "the value threshold of a rank split"),
        text_setting("opboost.domain", "1:10", "LO:HI (integers)",
                     "the unified domain the columns are mapped to"),
        file_setting("opboost.bounds",
                     "public pre-processing bounds: a CSV of column,lo,hi "
                     "lines"),
        text_setting("opboost.bounds.", "none", "LO:HI",
                     "one column's public pre-processing bounds (over the "
                     "file's)",
                     true),
        choice_setting("opboost.prediction", {"private", "non-private"},
                       "test rows desensitized afresh by Party B, or in "
                       "plaintext at Party A (the paper's evaluation; one "
                       "table in this process only)"),
    };
    x.learner_notes = {
        "the paper's defaults: 80 trees, depth 3, eta 0.1 (GBDT's with "
        "opboost.learner=gbdt); flags and [learner] override them",
        "early_stopping_rounds, eval_train, eval_rounds, weak_learner: "
        "refused"};
    return x;
  }();
  return d;
}

} // namespace veil::protocols::opboost
