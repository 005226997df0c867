// veil: the command line. Parses options, then hands over to apps/veil/*.
#include <CLI/CLI.hpp>
#include <iostream>
#include <thread>

#include "apps/veil/commands.hpp"
#include "apps/veil/settings.hpp"
#include "learners/input_error.hpp"
#include "protocols/descriptor.hpp"

namespace {

int default_threads() {
  auto n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

std::string settings_help() {
  std::string s = "Any other setting as KEY=VALUE (repeatable). Keys: ";
  bool first = true;
  for (auto& k : veil::apps::setting_keys()) {
    s += (first ? "" : ", ") + k;
    first = false;
  }
  return s + "; a protocol's keys: veil help PROTOCOL";
}

/// One line per protocol, from the descriptors.
std::string protocol_help() {
  std::string s = "Training protocol (veil help PROTOCOL lists its parties "
                  "and settings):";
  for (const auto* d : veil::protocols::all_protocols()) {
    s += "\n  ";
    for (std::size_t i = 0; i < d->names.size(); ++i)
      s += (i ? ", " : "") + d->names[i];
    s += ": " + d->summary;
  }
  return s;
}

} // namespace

int main(int argc, char** argv) {
  using namespace veil::apps;
  CLI::App app{"Veil: privacy-preserving vertical federated gradient "
               "boosting.\nTrain, predict with and export boosted tree "
               "models."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "veil " VEIL_VERSION);

  train_options t;
  t.params.threads = default_threads();
  auto* train = app.add_subcommand(
      "train", "Train a model. Without --data, trains on built-in synthetic "
               "data (make_classification shape) split 80/20 into train/test.");
  train->add_option("--data", t.data,
                    "Training data: CSV (optionally gzipped) with a header, "
                    "or LibSVM (*.libsvm, *.svm)");
  train->add_option("--test", t.test,
                    "Test data for the reported metrics (same columns); "
                    "without it, metrics are on the training data");
  train->add_option("--label", t.label, "Label column name")
      ->capture_default_str();
  train->add_option("--id", t.id, "Sample id column name (not a feature)");
  train->add_option("--protocol", t.protocol, protocol_help())
      ->capture_default_str();
  train->add_option("--parties", t.parties,
                    "Parties of a federated protocol (at least 2; default 3 "
                    "for plain and opboost, 4 for feverless)");
  train->add_option(
      "--epsilon", t.epsilon,
      "FEVERLESS: total privacy budget epsilon of the training "
      "(default 2; --set feverless.sum_epsilon=E for the "
      "paper's per-query setting: E per query). OpBoost: the dLDP budget "
      "per unit distance, per Party B feature (default 1.28)");
  train
      ->add_option("--categorical", t.categorical,
                   "OpBoost: columns Party A holds in plaintext with the "
                   "label (COL,COL,...; default none)")
      ->delimiter(',');
  train->add_option("--delta", t.delta,
                    "FEVERLESS: total privacy budget delta (default 1e-5)");
  train
      ->add_option("--timeout", t.timeout,
                   "Seconds a party may take to answer one step before the "
                   "session fails (federated protocols)")
      ->capture_default_str();
  train
      ->add_option("--objective", t.objective,
                   "binary:logistic, reg:squarederror or multi:softmax "
                   "(then --set num_class=K)")
      ->capture_default_str();
  train
      ->add_option("--trees", t.params.rounds,
                   "Boosting rounds (trees per class)")
      ->capture_default_str();
  train->add_option("--depth", t.params.tree.max_depth, "Maximum tree depth")
      ->capture_default_str();
  train->add_option("--eta", t.params.tree.eta, "Learning rate")
      ->capture_default_str();
  train
      ->add_option("--lambda", t.params.tree.lambda,
                   "L2 regularization of leaf weights")
      ->capture_default_str();
  train
      ->add_option("--max-bin", t.params.max_bin,
                   "Maximum histogram bins per feature")
      ->capture_default_str();
  train->add_option("--threads", t.params.threads, "Worker threads")
      ->capture_default_str();
  train
      ->add_option("--seed", t.seed,
                   "Seed of the built-in synthetic data and, for --protocol "
                   "feverless, of how one table's labels are spread over the "
                   "clients (and the session id); never of noise or keys, "
                   "which come from the system's random source")
      ->capture_default_str();
  train->add_option("--model-out", t.model_out,
                    "Write the model (JSON). With --protocol plain: the "
                    "active party's part (structure, leaf values, its own "
                    "thresholds) to FILE and each passive party's split "
                    "table to FILE.<party-name>. With the feverless "
                    "protocols: the public model (no thresholds) to FILE "
                    "and every client's split table to FILE.<client-name>");
  train->add_option("--report", t.report, "Write a JSON report");
  train->add_option("--set", t.settings, settings_help());
  train
      ->add_option("--synthetic", t.synthetic,
                   "Built-in data kind when --data is absent: "
                   "classification or regression")
      ->capture_default_str();
  train
      ->add_option("--rows", t.synthetic_rows,
                   "Rows of the built-in synthetic data")
      ->capture_default_str();
  train
      ->add_option("--features", t.synthetic_features,
                   "Features of the built-in synthetic data")
      ->capture_default_str();
  train->add_flag("--quiet", t.quiet, "Print no progress line");
  train->add_flag("--plan", t.plan,
                  "Check the settings and the data, print the privacy "
                  "guarantee the session would give, and stop before any "
                  "party starts");
  train->add_option("--tls-cert", t.tls.certificate,
                    "TLS to ldp-boost's owner nodes: this coordinator's "
                    "certificate (PEM; a session file has its [tls] table)");
  train->add_option("--tls-key", t.tls.key, "Its private key (PEM)");
  train->add_option("--tls-ca", t.tls.ca,
                    "The authority that signs every node (PEM)");
  train->add_option("--config", t.config,
                    "Run the session of a session file (TOML, see "
                    "docs/session.md): its parties, their data and where "
                    "they run (local, or a `veil node` at HOST:PORT). "
                    "--trees, --depth, --eta, --lambda, --max-bin, "
                    "--threads, --objective, --timeout and --set override "
                    "the file");

  node_command_options nd;
  auto* node = app.add_subcommand(
      "node", "Run a party daemon: coordinators (veil train --config) connect "
              "to it and have it run their party that lives on this machine");
  node->add_option("--listen", nd.listen,
                   "HOST:PORT to listen on (port 0: any free port; the "
                   "port taken is printed as \"listening on HOST:PORT\")")
      ->required();
  node->add_flag("--once", nd.once, "Exit after serving one session");
  node->add_flag("--insecure", nd.insecure,
                 "Listen on an address other machines reach without TLS "
                 "(anyone who reaches the port can start parties)");
  node->add_option("--tls-cert", nd.tls_cert,
                   "This node's certificate (PEM) for TLS");
  node->add_option("--tls-key", nd.tls_key, "Its private key (PEM)");
  node->add_option("--tls-ca", nd.tls_ca,
                   "The authority that signs every node's certificate (PEM)");
  node->add_option("--threads", nd.threads,
                   "Scheduler threads (0: one per core)")
      ->capture_default_str();
  node->add_option("--data", nd.data,
                   "NAME=PATH: a dataset its parties may load, by NAME "
                   "(repeat for each); a session file names it as the data "
                   "of a party at this node. Nothing else is ever opened");
  node->add_option("--store", nd.store,
                   "The folder its parties keep their parts of trained "
                   "models in (created, mode 0700, if missing)");
  node->add_option("--allow", nd.allow,
                   "A coordinator certificate it accepts (with TLS): "
                   "sha256:HEX (its fingerprint, as the node's log prints "
                   "it) or CN=NAME; repeat for each. Without it, any "
                   "certificate the --tls-ca signed");
  node->add_option("--max-message-mb", nd.max_message_mb,
                   "The largest message it accepts, in MiB (a larger "
                   "declared size closes the connection before anything "
                   "is allocated)")
      ->capture_default_str();
  node->add_option("--max-connections", nd.max_connections,
                   "Connections open at once; more are closed at once")
      ->capture_default_str();
  node->add_option("--handshake-seconds", nd.handshake_seconds,
                   "Time a connection has to finish TLS and the session "
                   "handshake; it is closed after it")
      ->capture_default_str();
  node->add_option("--config", nd.config,
                   "A node file (TOML): store = \"FOLDER\" and one "
                   "[datasets.NAME] table per dataset with path = \"FILE\" "
                   "and optionally columns = [...], the only columns a "
                   "session may use (see docs/session.md)");

  predict_options p;
  p.threads = default_threads();
  auto* predict = app.add_subcommand(
      "predict", "Predict with a saved model; prints metrics when the data "
                 "has the label column. A federated model predicts through "
                 "its parties: --config SESSION, or --data FILE when they "
                 "all ran in this process");
  predict
      ->add_option("--model", p.model,
                   "Model file (veil train "
                   "--model-out)")
      ->required();
  predict->add_option("--data", p.data, "Data to predict (CSV or LibSVM)");
  predict->add_option("--config", p.config,
                      "A federated model's session file: its parties predict "
                      "their test files (or data files: --set "
                      "predict_on=data), each holding its part of the model");
  predict->add_option("--set", p.overrides,
                      "KEY=VALUE: predict_on=test|data, or a setting of the "
                      "session file (timeout, net.*)");
  predict->add_option("--report", p.report,
                      "Write a JSON report (federated models)");
  predict->add_option("--label", p.label,
                      "Label column: if present, metrics are printed");
  predict->add_option("--id", p.id, "Id column, copied to the output");
  predict->add_option("--out", p.out,
                      "Write predictions as CSV (probability of class 1, "
                      "per-class probabilities, or value)");
  predict->add_option("--threads", p.threads, "Worker threads")
      ->capture_default_str();

  export_options e;
  auto* exp = app.add_subcommand(
      "export", "Export a centralized model to another format");
  exp->add_option("--model", e.model, "Veil model file")->required();
  exp->add_option("--format", e.format, "Target format: xgboost (JSON)")
      ->capture_default_str();
  exp->add_option("--out", e.out, "Output file")->required();

  inspect_options ins;
  auto* inspect = app.add_subcommand(
      "inspect", "Show a model: its parameters, feature importance (weight, "
                 "gain, cover) and trees");
  inspect
      ->add_option("model", ins.model,
                   "Model file (centralized or "
                   "federated)")
      ->required();
  inspect->add_option("--part", ins.parts,
                      "A federated model's part kept here (a party's split "
                      "table, MODEL.PARTY): adds that party's features");
  inspect->add_option("--trees", ins.trees, "Trees to print: a count or all")
      ->capture_default_str();

  generate_options g;
  auto* gen = app.add_subcommand(
      "generate", "Write deterministic synthetic data (scikit-learn's "
                  "make_classification / make_regression shape) as CSV");
  gen->add_option("--kind", g.kind,
                  "classification, regression, or bovw (LDP boosting's "
                  "image features from --images)")
      ->capture_default_str();
  gen->add_option("--rows", g.rows, "Rows")->capture_default_str();
  gen->add_option("--features", g.features, "Features")->capture_default_str();
  gen->add_option("--informative", g.informative, "Informative features")
      ->capture_default_str();
  gen->add_option("--redundant", g.redundant,
                  "Redundant features (classification)")
      ->capture_default_str();
  gen->add_option("--classes", g.classes, "Classes (classification)")
      ->capture_default_str();
  gen->add_option("--noise", g.noise, "Noise standard deviation (regression)")
      ->capture_default_str();
  gen->add_option("--seed", g.seed, "Seed")->capture_default_str();
  gen->add_option("--test-fraction", g.test_fraction,
                  "Also write this share of the rows to OUT with "
                  "\"_test\" before the extension (the rest to \"_train\")")
      ->capture_default_str();
  gen->add_option("--images", g.images,
                  "--kind bovw: CSVs of 28x28 images (784 pixel columns, "
                  "then label), pooled (MNIST's or Fashion-MNIST's train and "
                  "test files)");
  gen->add_option("--pair", g.pair,
                  "--kind bovw: the two classes A,B (A becomes 0, B 1)")
      ->capture_default_str();
  gen->add_option("--words", g.words,
                  "--kind bovw: visual words (50 for MNIST, 100 for "
                  "Fashion-MNIST)")
      ->capture_default_str();
  gen->add_option("--per-class", g.per_class,
                  "--kind bovw: training images per class after "
                  "augmentation")
      ->capture_default_str();
  gen->add_option("--out", g.out, "Output CSV (.gz compresses)")->required();

  audit_options au;
  auto* audit = app.add_subcommand(
      "audit",
      "Run a protocol and an attack on it, and report the "
      "attacker's success beside the guarantee (masked-xgboost: "
      "the passive party's least-squares and neural-network attacks on "
      "the labels, the active party's subset attack on splitting "
      "vectors)");
  audit->add_option("--protocol", au.protocol, "Protocol")
      ->capture_default_str();
  audit->add_option("--data", au.data, "Training CSV (label column)")
      ->required();
  audit->add_option("--label", au.label, "Label column")->capture_default_str();
  audit->add_option("--epsilon", au.epsilon, "The active party's budget");
  audit->add_option("--delta", au.delta, "The active party's delta");
  audit->add_option("--set", au.settings, "KEY=VALUE: a protocol setting");
  audit->add_option("--attack", au.attack, "least-squares, nn, subset or all")
      ->capture_default_str();
  audit->add_option("--trials", au.trials, "Subset attack: sub-problems")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  audit
      ->add_option("--seed", au.seed,
                   "Which rows and cuts (subset), fabricated data (nn)")
      ->capture_default_str();
  audit->add_option("--threads", au.threads, "Worker threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  audit->add_option("--report", au.report, "Write the results as JSON");

  compare_options cmp;
  cmp.params.threads = default_threads();
  auto* compare = app.add_subcommand(
      "compare", "Run protocols x budgets x repetitions on one data split "
                 "and write a table (Markdown, CSV) and plots (SVG): "
                 "utility against epsilon, time and bytes per protocol");
  compare->add_option("--data", cmp.data, "Training CSV (label column)")
      ->required();
  compare->add_option("--test", cmp.test,
                      "Test CSV; without it a seeded split of --data");
  compare
      ->add_option("--test-fraction", cmp.test_fraction,
                   "The share of --data held out without --test")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 0.99));
  compare->add_option("--label", cmp.label, "Label column")
      ->capture_default_str();
  compare
      ->add_option("--protocols", cmp.protocols,
                   "Comma-separated protocols (veil help lists them)")
      ->delimiter(',')
      ->required();
  compare
      ->add_option("--epsilons", cmp.epsilons,
                   "Comma-separated budgets for the protocols that take "
                   "--epsilon (the others run once per repetition)")
      ->delimiter(',');
  compare->add_option("--repeats", cmp.repeats, "Runs per cell (seeds)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  compare
      ->add_option("--seed", cmp.seed,
                   "The split's seed and the first "
                   "run's")
      ->capture_default_str();
  compare
      ->add_option("--objective", cmp.objective,
                   "binary:logistic, reg:squarederror or multi:softmax")
      ->capture_default_str();
  compare->add_option("--trees", cmp.params.rounds, "Boosting rounds")
      ->capture_default_str();
  compare->add_option("--depth", cmp.params.tree.max_depth, "Tree depth")
      ->capture_default_str();
  compare->add_option("--set", cmp.settings,
                      "KEY=VALUE for every run (repeatable)");
  compare
      ->add_option("--timeout", cmp.timeout,
                   "Seconds a party may take to answer one step")
      ->capture_default_str();
  compare->add_option("--out", cmp.out, "Folder for the table and plots")
      ->capture_default_str();
  compare->add_flag("--quiet", cmp.quiet, "No progress bar");

  repl_options rp;
  auto* repl = app.add_subcommand(
      "repl", "An interactive driver: load a table, build parties, choose a "
              "protocol and settings, train (Ctrl-C stops), evaluate, "
              "compare, save the session file (help inside lists the "
              "commands)");
  repl->add_option("-f,--file", rp.file,
                   "Run the commands of FILE (echoed; the first error ends "
                   "it with exit 1)");

  std::string help_protocol;
  auto* help = app.add_subcommand(
      "help", "List the protocols, or one protocol's parties and settings "
              "(veil help feverless)");
  help->add_option("protocol", help_protocol, "A protocol name");
  bool help_markdown = false;
  help->add_flag("--markdown", help_markdown,
                 "The protocol's settings as the Markdown table "
                 "docs/session.md shows (without a protocol: what a trained "
                 "model leaves where)");

  CLI11_PARSE(app, argc, argv);
  if (train->parsed() && !t.config.empty()) {
    // Flags given explicitly override the session file, in this order.
    auto last = [&](const char* flag) {
      return train->get_option(flag)->results().back();
    };
    for (auto [flag, key] : {std::pair{"--objective", "objective"},
                             {"--trees", "trees"},
                             {"--depth", "max_depth"},
                             {"--eta", "eta"},
                             {"--lambda", "lambda"},
                             {"--max-bin", "max_bin"},
                             {"--threads", "threads"},
                             {"--timeout", "timeout"},
                             {"--epsilon", "epsilon"},
                             {"--delta", "delta"}})
      if (train->count(flag) > 0)
        t.overrides.push_back(std::string(key) + "=" + last(flag));
    for (const auto& kv : t.settings)
      t.overrides.push_back(kv);
    for (auto flag :
         {"--data", "--test", "--label", "--id", "--protocol", "--parties",
          "--synthetic", "--rows", "--features", "--seed", "--categorical",
          "--tls-cert", "--tls-key", "--tls-ca"})
      if (train->count(flag) > 0)
        t.conflicting.push_back(flag);
  }
  try {
    if (node->parsed())
      return run_node(nd);
    if (train->parsed()) {
      // 0 stands for "the protocol's default" inside: never a given count.
      if (train->count("--parties") > 0 && t.parties < 1)
        throw veil::input_error("--parties " + std::to_string(t.parties) +
                                ": expected at least 1 (2 for a federated "
                                "protocol); leave it out for the "
                                "protocol's default");
      if (train->count("--epsilon") > 0)
        veil::apps::checked_epsilon("--epsilon", t.epsilon);
      if (train->count("--delta") > 0)
        veil::apps::checked_delta("--delta", t.delta);
      return run_train(std::move(t));
    }
    if (predict->parsed())
      return run_predict(p);
    if (exp->parsed())
      return run_export(e);
    if (gen->parsed())
      return run_generate(g);
    if (inspect->parsed())
      return run_inspect(ins);
    if (help->parsed())
      return run_help(help_protocol, help_markdown);
    if (audit->parsed())
      return run_audit(au);
    if (compare->parsed())
      return run_compare(std::move(cmp));
    if (repl->parsed())
      return run_repl(rp);
  } catch (const veil::input_error& err) {
    std::cerr << "veil: error: " << err.what() << "\n";
    return 2;
  } catch (const std::exception& err) {
    std::cerr << "veil: internal error: " << err.what() << "\n";
    return 3;
  }
  return 0;
}
