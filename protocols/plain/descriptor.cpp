#include "protocols/plain/descriptor.hpp"

namespace veil::protocols::plain {

const protocols::descriptor& descriptor() {
  static const protocols::descriptor d{
      {"plain"},
      "vertical federated XGBoost without protection: the active party "
      "sends its gradients, the passive parties their histograms, in the "
      "clear (the baseline every paper measures against)",
      true,
      {{"active", 1, 1, "holds the labels and its columns; trains the trees",
        "nothing (its splits are in MODEL)"},
       {"passive", 1, 0, "holds its columns; answers with histograms",
        "its split table (feature, threshold, missing-value side per "
        "split)"}},
      topology::star,
      false,
      "the active party (the one party with a label column)",
      {},
      {},
      {},
      "the trees, leaf values and the active party's splits"};
  return d;
}

} // namespace veil::protocols::plain
