#include "protocols/feverless/descriptor.hpp"

#include <limits>

namespace veil::protocols::feverless {

const protocols::descriptor& descriptor() {
  static const protocols::descriptor d = [] {
    constexpr double inf = std::numeric_limits<double>::infinity();
    protocols::descriptor x;
    x.names = {"feverless", "feverless-plain", "feverless-ldp",
               "feverless-ahe"};
    x.summary = "labels spread over the parties; pairwise masks and a noise "
                "leader per query give each label differential privacy over "
                "the whole training (baselines: feverless-plain, no "
                "protection; feverless-ldp, every client noises its own "
                "sums; feverless-ahe, Paillier)";
    x.parties = {{"client", 2, 256,
                  "holds its columns and the labels of some rows (each row's "
                  "label on exactly one client); sources its own queries, "
                  "answers and leads the others'",
                  "its split table (feature, threshold, missing-value side "
                  "per split it owns)"}};
    x.model_file = "the public model: trees, each split's owner, leaf values";
    x.links = topology::mesh;
    x.spread_labels = true;
    x.labels = "spread: every row's label on exactly one client";
    // feverless-plain adds no noise: it takes no budget.
    const std::vector<std::string> noisy = {"feverless", "feverless-ldp",
                                            "feverless-ahe"};
    x.settings = {
        only_for(number_setting("epsilon", "2", 0, inf, true, true,
                                "total privacy budget of the whole "
                                "training: each label's epsilon"),
                 noisy),
        only_for(number_setting("delta", "1e-5", 0, 1, true, true,
                                "total budget delta"),
                 noisy),
        number_setting(
            "feverless.sum_epsilon", "none", 0, inf, true, true,
            "epsilon of each released gradient sum instead (the paper's "
            "per-query setting), with delta per sum; not with epsilon"),
        choice_setting(
            "feverless.calibration", {"analytic", "classical"},
            "sigma from (epsilon, delta): exact for every epsilon, or the "
            "paper's formula (only proven for epsilon < 1; its true delta "
            "is reported)"),
        choice_setting(
            "feverless.election", {"chain", "signed", "per_batch"},
            "a noise leader per query from hash-chain tickets (one "
            "signature per session), from the paper's signed tickets (one "
            "signature per ticket, ~100x slower), or per level and source "
            "(one leader sees a batch's blinded noise)"),
        bool_setting(
            "feverless.noise_below_unit", false,
            "accept a budget whose noise is finer than the fixed point's "
            "unit 2^-32 (rounded up to one unit: a guarantee that protects "
            "nothing; for comparing noisy and noise-free runs)"),
        bool_setting(
            "feverless.hide_labels", false,
            "queries list every row of a bucket, so they do not show who "
            "labels which row (feverless only; same model, more traffic)"),
        bool_setting(
            "feverless.source_noise", true,
            "the source adds its own draw to every gradient sum, so that "
            "the client that drew a query's noise cannot undo it; false: "
            "the paper's algorithm"),
        bool_setting(
            "feverless.hessian_noise", false,
            "noise on the hessian sums too: the paper's algorithm, at the "
            "same guarantee (no label moves H, which follows from the "
            "public margins); false: H exact, half the noise draws, "
            "steadier weights and better accuracy"),
        integer_setting("feverless.buckets", "10", 2, 256,
                        "quantile buckets per feature (the split "
                        "candidates)"),
        choice_setting("paillier.bits", {"2048", "1024"},
                       "Paillier modulus of feverless-ahe (1024: the "
                       "paper's, below today's recommendations)"),
        integer_setting("paillier.threads", "0", 0, 256,
                        "threads each feverless-ahe client encrypts and "
                        "decrypts with (0: every core of its machine)"),
    };
    x.renamed = {{"feverless.query_epsilon",
                  "renamed feverless.sum_epsilon: the epsilon of each "
                  "released gradient sum, which is each query's (its hessian "
                  "sum does not depend on the labels)"}};
    x.learner_notes = {
        "max_delta_step: max(0.5, 3 / (eta trees)) with noise, 0 without; "
        "max_delta_step=0 gives the paper's algorithm",
        "early_stopping_rounds: the coordinator, which holds the test "
        "labels, evaluates every tree as client 0 predicts it; the clients "
        "wait between trees and keep the best ones (needs test rows)",
        "max_bin, min_child_weight, base_score, eval_train, eval_rounds, "
        "weak_learner: "
        "refused (FEVERLESS does not use them)"};
    return x;
  }();
  return d;
}

} // namespace veil::protocols::feverless
