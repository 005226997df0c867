#include "protocols/ldpboost/descriptor.hpp"

#include <limits>

namespace veil::protocols::ldpboost {

const protocols::descriptor& descriptor() {
  static const protocols::descriptor d = [] {
    constexpr double inf = std::numeric_limits<double>::infinity();
    protocols::descriptor x;
    x.names = {"ldp-boost"};
    x.summary = "many data owners hold a few labelled rows each (a "
                "horizontal split); each round the data user asks owners it "
                "has not used for one epsilon-LDP release (Piecewise, Duchi "
                "or Laplace), fits a base learner from the noisy answers and "
                "boosts with SAMME";
    x.parties = {
        {"data user", 1, 1,
         "holds its own labelled rows (the public scaling bounds come from "
         "them) and the rows it is evaluated on; boosts and keeps the "
         "ensemble"},
        {"owner", 1, 0,
         "holds a few labelled rows; answers at most one request in its "
         "lifetime with one perturbed release, and refuses a second"}};
    x.writes_models = false;
    x.one_table = true;
    x.model_file = "no file: the ensemble is the data user's, in the report "
                   "(--report); --model-out is refused";
    x.links = topology::star;
    x.labels = "every party (each owner its rows', the data user its own)";
    x.settings = {
        number_setting("epsilon", "5", 0, 1000, true, false,
                       "each owner's budget for its one release (NCC: split "
                       "over its rows, eps/S each)"),
        choice_setting("ldp.mechanism",
                       {"piecewise", "duchi", "laplace", "identity"},
                       "the owners' perturbation (identity: no protection, "
                       "the non-private baseline)"),
        choice_setting("ldp.learner", {"ncc", "stump", "lr"},
                       "the base learner: nearest centroid (owners release "
                       "their rows), decision stump (their cross-table "
                       "differences), logistic regression (their own model)"),
        integer_setting("ldp.owners_per_round", "2000", 1, inf,
                        "owners asked per attempt (H)"),
        integer_setting("ldp.samples_per_owner", "4", 1, inf,
                        "training rows dealt to each owner (S)"),
        integer_setting("ldp.max_attempts", "5", 1, inf,
                        "attempts per round before training stops (an "
                        "attempt is rejected when its learner does not beat "
                        "chance on the data user's rows)"),
        number_setting("ldp.lambda", "1", 0, inf, true, false,
                       "logistic regression's L2 weight at the owners"),
        file_setting("ldp.user_data",
                     "the data user's own labelled rows (CSV, the same "
                     "columns); without it, ldp.user_fraction of --data"),
        number_setting("ldp.user_fraction", "0.05", 0, 1, true, true,
                       "the share of --data held out for the data user "
                       "(without ldp.user_data)"),
        number_setting("ldp.test_fraction", "0.2", 0, 1, true, true,
                       "the share of --data held out to evaluate on "
                       "(without --test)"),
        text_setting("ldp.owner_nodes", "none", "HOST:PORT/DATASET,...",
                     "owners on `veil node`s: each node deals the dataset "
                     "it serves under that name, ldp.samples_per_owner rows "
                     "to an owner actor of its own; --data then holds only "
                     "the data user's rows and the evaluation rows"),
    };
    x.learner_notes = {
        "--trees is the number of boosting rounds (default 10); every other "
        "learner setting is refused (the base learners have none)"};
    return x;
  }();
  return d;
}

} // namespace veil::protocols::ldpboost
