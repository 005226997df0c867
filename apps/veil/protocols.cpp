#include "apps/veil/protocols.hpp"

#include "apps/veil/session_config.hpp"

#include "actors/feverless_session.hpp"
#include "actors/ldpboost_session.hpp"
#include "actors/opboost_session.hpp"
#include "actors/privet_session.hpp"
#include "protocols/descriptor.hpp"

namespace veil::apps {

// Each protocol's entries (what federated_protocol's members say they
// do), defined in its own train_<p>.cpp: declared here, where the list
// names them, so that adding a protocol touches no header.
using model = protocols::session::federated_model;

/// plain: one table's columns dealt out in order to --parties parties
/// (party 0 holds the label); --set takes the learner's keys.
int run_plain_train(const train_options& o);
int run_plain_config(const session_config& c, const train_options& o);
int predict_plain(const prediction_plan&, const predict_options&, const model&,
                  federated_prediction&);

/// feverless, feverless-plain, feverless-ldp, feverless-ahe: one table's
/// columns split evenly over --parties clients, the labels spread
/// uniformly at random over them; a session file's parties spread them by
/// their label columns; --set / [protocol] take the feverless.* keys.
int run_feverless_train(const train_options& o);
int run_feverless_config(const session_config& c, const train_options& o);
int predict_feverless(const prediction_plan&, const predict_options&,
                      const model&, federated_prediction&);

/// opboost: Party A (party 0) holds the label and the --categorical
/// columns, --parties - 1 Party B users the others in contiguous blocks,
/// desensitized by a dLDP mechanism; in a session file the party with the
/// label is Party A; --set / [protocol] take the opboost.* keys and
/// epsilon.
int run_opboost_train(const train_options& o);
int run_opboost_config(const session_config& c, const train_options& o);
int predict_opboost(const prediction_plan&, const predict_options&,
                    const model&, federated_prediction&);

/// masked-xgboost: the plain protocol's session with MaskedXGBoost's
/// exchange; the active party holds the label and the first half of the
/// columns, --parties - 1 passive parties the rest; --set / [protocol]
/// take the masked.* keys, epsilon and delta. Prediction is plain's.
int run_masked_train(const train_options& o);
int run_masked_config(const session_config& c, const train_options& o);

/// privet, privet-plain: one table's columns in contiguous blocks over
/// --parties computing parties (party0 holds the label) and the dealer,
/// all in this process; privet-plain trains the reference on one party;
/// --set takes the privet.* keys. No session files or model files yet.
int run_privet_train(const train_options& o);
int run_privet_config(const session_config& c, const train_options& o);
int predict_privet(const prediction_plan&, const predict_options&, const model&,
                   federated_prediction&);

/// ldp-boost: the rows of --data dealt ldp.samples_per_owner to each owner
/// (every owner an actor), the data user's and the evaluation rows held
/// out; --set takes the ldp.* keys and epsilon. No session or model files.
int run_ldpboost_train(const train_options& o);
int run_ldpboost_config(const session_config& c, const train_options& o);
int predict_ldpboost(const prediction_plan&, const predict_options&,
                     const model&, federated_prediction&);

const std::vector<federated_protocol>& federated_protocols() {
  // Adding a protocol: one line here.
  static const std::vector<federated_protocol> all = {
      {"plain", actors::plain_party_kind, run_plain_train, run_plain_config,
       predict_plain},
      {"feverless", actors::feverless_party_kind, run_feverless_train,
       run_feverless_config, predict_feverless},
      {"opboost", actors::opboost_party_kind, run_opboost_train,
       run_opboost_config, predict_opboost},
      {"masked-xgboost", actors::plain_party_kind, run_masked_train,
       run_masked_config, predict_plain},
      {"privet", actors::privet_party_kind, run_privet_train, run_privet_config,
       predict_privet},
      {"ldp-boost", actors::ldpboost_party_kind, run_ldpboost_train,
       run_ldpboost_config, predict_ldpboost},
  };
  return all;
}

std::string federated_protocol_names() {
  std::string names;
  for (const auto& p : federated_protocols())
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

const federated_protocol* find_federated(const std::string& name) {
  const auto* d = protocols::find_protocol(name);
  if (!d)
    return nullptr;
  for (const auto& p : federated_protocols())
    if (d->name() == p.name)
      return &p;
  return nullptr;
}

} // namespace veil::apps
