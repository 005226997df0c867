#pragma once

// A trained session whose parties stay alive after training (the REPL
// keeps one): it predicts its rows to predict again through the same
// parties, each answering for its own part of the model, whatever the
// protocol. CAF-free, over actors::live_session.

#include <functional>
#include <memory>

#include "actors/live_session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/protocols.hpp"

namespace veil::apps {

class kept_session {
public:
  virtual ~kept_session() = default;
  /// Predicts the session's rows to predict (the parties' test files, or
  /// their data files without) once more into `got`; 0, or the exit code
  /// after printing the failure (the session has then ended everywhere).
  virtual int predict(federated_prediction& got) = 0;
  /// The trained model's objective and outputs, for the probabilities.
  virtual const learners::model& model() const = 0;
  /// Whether the session has rows to predict: it predicted them after
  /// training (parties without test files have none).
  virtual bool has_rows() const = 0;
};

template <class P>
class kept_live_session final : public kept_session {
public:
  using result_type = typename P::result;
  /// What the protocol's prediction gives, from the session's result.
  using convert_fn = std::function<void(result_type&, const learners::model&,
                                        federated_prediction&)>;

  kept_live_session(std::unique_ptr<actors::live_session<P>> s,
                    convert_fn convert, learners::model model)
      : session_(std::move(s)), convert_(std::move(convert)),
        model_(std::move(model)) {}

  int predict(federated_prediction& got) override {
    if (!session_->predict())
      return session_failure(session_->close());
    auto r = session_->result();
    convert_(r, model_, got);
    return 0;
  }
  const learners::model& model() const override { return model_; }
  bool has_rows() const override { return session_->result().predictions > 0; }

private:
  std::unique_ptr<actors::live_session<P>> session_;
  convert_fn convert_;
  learners::model model_;
};

/// `veil train`'s session of `cfg`: the one-shot run, or, when `o.keep`
/// asks, the same steps with the parties kept alive in *o.keep for more
/// predictions (`convert` reads a prediction from the result; `model`, if
/// given, says the predictions' objective where the result's model holds
/// none).
template <class P, class Config>
typename P::outcome
train_session(Config&& cfg, const actors::tls_files& tls,
              const actors::progress_fn& progress, const train_options& o,
              typename kept_live_session<P>::convert_fn convert,
              const learners::model* model = nullptr) {
  constexpr bool given =
      std::is_same_v<std::decay_t<Config>,
                     typename actors::live_session<P>::given_config>;
  if (!o.keep) {
    if constexpr (given)
      return actors::live_session<P>::run(std::forward<Config>(cfg), {},
                                          progress);
    else
      return actors::live_session<P>::run(cfg, tls, {}, progress);
  }
  auto s = std::make_unique<actors::live_session<P>>();
  s->on_progress(progress);
  if constexpr (given)
    s->open(std::forward<Config>(cfg));
  else
    s->open(cfg, tls);
  auto out = s->run_and_keep();
  s->on_progress({}); // the caller's printer ends with this call
  if (out.ok()) {
    auto kept_model = model ? *model : out.result->model;
    *o.keep = std::make_unique<kept_live_session<P>>(
        std::move(s), std::move(convert), std::move(kept_model));
  }
  return out;
}

} // namespace veil::apps
