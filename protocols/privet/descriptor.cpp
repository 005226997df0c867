#include "protocols/privet/descriptor.hpp"

#include <limits>

namespace veil::protocols::privet {

const protocols::descriptor& descriptor() {
  static const protocols::descriptor d = [] {
    constexpr double inf = std::numeric_limits<double>::infinity();
    protocols::descriptor x;
    x.names = {"privet", "privet-plain"};
    x.summary = "n parties hold additive shares of the gradients and of the "
                "model (over Z_2^64); a dealer supplies correlated "
                "randomness; decision tables are trained on shares and only "
                "each level's feature is opened (privet-plain: the same "
                "algorithm in the clear on one party, the ground truth)";
    x.parties = {
        {"computing party", 2, 256,
         "holds a block of columns (party0 also the labels) and a share of "
         "every secret"},
        {"dealer", 1, 1,
         "holds no data: seeds each party's correlated randomness and sends "
         "the last party its corrections (its traffic is counted apart, as "
         "the offline phase)"}};
    x.writes_models = false;
    x.model_file = "no file yet: the leaf values stay secret-shared and "
                   "each threshold with its feature's owner, and the parties "
                   "keep no part files yet (--model-out is refused; "
                   "privet-plain writes an ordinary model)";
    x.links = topology::mesh;
    x.labels = "party0 (the first computing party)";
    x.settings = {
        integer_setting("privet.buckets", "32", 2, inf,
                        "equal-frequency buckets per feature (B), at most "
                        "the training rows"),
        bool_setting("privet.hide_buckets", false,
                     "privet: keep each feature's best bucket shared and "
                     "open only the chosen one to its owner (spec §5.3; the "
                     "paper opens them all)"),
        choice_setting("privet.sigmoid", {"robust", "paper"},
                       "privet: the sigmoid on shares (paper: the paper's "
                       "limit exponential, which does not train; spec "
                       "§4.10)"),
        choice_setting("privet.truncation", {"exact", "paper"},
                       "privet: the truncation of the hessians and the "
                       "learning rate (paper: the paper's, which fails with "
                       "probability about |x|/2^64; spec §4.5); the "
                       "divisions' and the sigmoid's are always exact"),
        choice_setting("privet.dealer", {"ahead", "on_demand"},
                       "privet: the dealer answers training's correlation "
                       "requests before the online phase (found by a dry run "
                       "on rows of zeros: the paper's offline phase), or "
                       "each when the last party asks (a round trip on the "
                       "critical path)"),
        bool_setting("privet.approximate", false,
                     "privet-plain: compute the sigmoid and the divisions as "
                     "the secure protocol does, in double precision (spec "
                     "§4.9-4.10)"),
    };
    x.learner_notes = {
        "the paper's defaults: 10 tables of depth 3, lambda 1, eta 1 (no "
        "shrinkage), no base score; --trees, --depth, lambda and eta "
        "override them",
        "objective: binary:logistic or reg:squarederror (the label holder "
        "standardises regression targets, spec §8.2, and maps predictions "
        "back); every other learner setting is refused (Privet's tables "
        "have no bins, gamma or min_child_weight)"};
    return x;
  }();
  return d;
}

} // namespace veil::protocols::privet
