#include "protocols/privet/descriptor.hpp"

#include <limits>

namespace veil::protocols::privet {

const protocols::descriptor& descriptor() {
  static const protocols::descriptor d = [] {
    constexpr double inf = std::numeric_limits<double>::infinity();
    protocols::descriptor x;
    x.names = {"privet-plain"};
    x.summary = "Privet's plaintext reference: gradient boosted decision "
                "tables with its equal-frequency buckets, in the clear on "
                "one party (the ground truth the secure protocol matches)";
    x.federated = false;
    x.parties = {{"party", 1, 1, "holds every column and the labels"}};
    x.links = topology::star;
    x.labels = "the one party";
    x.settings = {
        integer_setting("privet.buckets", "32", 2, inf,
                        "equal-frequency buckets per feature (B), at most "
                        "the training rows"),
        bool_setting("privet.approximate", false,
                     "compute the sigmoid and the divisions as the secure "
                     "protocol does, in double precision (spec §4.9-4.10)"),
    };
    x.learner_notes = {
        "the paper's defaults: 10 tables of depth 3, lambda 1, eta 1 (no "
        "shrinkage), no base score; --trees, --depth, lambda and eta "
        "override them",
        "objective: binary:logistic or reg:squarederror; every other learner "
        "setting is refused (Privet's tables have no bins, gamma or "
        "min_child_weight)"};
    return x;
  }();
  return d;
}

} // namespace veil::protocols::privet
