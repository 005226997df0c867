// `veil inspect MODEL`: what a model holds, in words: its parameters, the
// importance of its features and its trees. A federated model's public
// part tells what each party's splits did; a party's own part (--part,
// where it runs) adds the importance of that party's features.
#include <cmath>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apps/veil/commands.hpp"
#include "learners/boost/importance.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/input_error.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::apps {

namespace {

namespace session = protocols::session;

void print_importance(const std::vector<learners::feature_importance>& fs,
                      const std::string& what) {
  std::cout << "\nimportance of " << what << " (by total gain):\n";
  if (fs.empty()) {
    std::cout << "  (no splits)\n";
    return;
  }
  std::size_t width = 7;
  for (const auto& f : fs)
    width = std::max(width, f.feature.size());
  std::cout << "  " << std::left << std::setw(static_cast<int>(width))
            << "feature" << std::right << std::setw(8) << "weight"
            << std::setw(12) << "gain" << std::setw(12) << "cover"
            << std::setw(14) << "total_gain" << std::setw(14) << "total_cover"
            << "\n";
  for (const auto& f : fs)
    std::cout << "  " << std::left << std::setw(static_cast<int>(width))
              << f.feature << std::right << std::setw(8) << f.weight
              << std::setprecision(5) << std::setw(12) << f.gain()
              << std::setw(12) << f.cover() << std::setw(14) << f.total_gain
              << std::setw(14) << f.total_cover << "\n";
}

/// One node and the ones under it, XGBoost's text dump's shape. `split_text`
/// says what a split tests (a federated model's splits may hide it).
void print_node(const learners::regression_tree& t, std::int32_t id, int depth,
                const std::function<std::string(std::int32_t)>& split_text) {
  const auto& n = t.nodes[static_cast<std::size_t>(id)];
  std::cout << std::string(static_cast<std::size_t>(depth) * 2 + 2, ' ') << id
            << ":";
  if (n.is_leaf()) {
    std::cout << "leaf=" << n.value << ",cover=" << n.sum_hess << "\n";
    return;
  }
  std::cout << "[" << split_text(id) << "] yes=" << n.left << ",no=" << n.right
            << ",missing=" << (n.default_left ? n.left : n.right)
            << ",gain=" << n.gain << ",cover=" << n.sum_hess << "\n";
  print_node(t, n.left, depth + 1, split_text);
  print_node(t, n.right, depth + 1, split_text);
}

std::size_t trees_to_show(const inspect_options& o, std::size_t trees) {
  if (o.trees == "all")
    return trees;
  try {
    std::size_t used = 0;
    auto n = std::stoul(o.trees, &used);
    if (used == o.trees.size())
      return std::min<std::size_t>(n, trees);
  } catch (const std::exception&) {
  }
  throw input_error("--trees " + o.trees + ": expected a count or \"all\"");
}

void print_summary(const learners::model& m, const std::string& path) {
  int depth = 0;
  for (const auto& t : m.trees)
    depth = std::max(depth, t.depth());
  std::cout << path << ": " << learners::to_string(m.objective);
  if (m.outputs() > 1)
    std::cout << " (" << m.num_class << " classes)";
  std::cout << ", " << m.trees.size() << " "
            << (m.weak_learner == "decision_table" ? "decision tables"
                                                   : "trees")
            << " (" << m.rounds() << " rounds), depth up to " << depth << ", "
            << m.feature_names.size() << " features, base margin";
  for (double b : m.base_margin)
    std::cout << " " << b;
  std::cout << "\n";
}

} // namespace

int run_inspect(const inspect_options& o) {
  auto j = learners::read_json_file(o.model, "model");
  bool federated = session::is_federated_model(j);
  if (!federated && !o.parts.empty())
    throw input_error("--part: " + o.model +
                      " is a centralized model; parts belong to federated "
                      "models");
  learners::model m;
  std::vector<session::split_export> parts;
  std::vector<std::string> parties;
  std::string protocol;
  if (federated) {
    auto fm = session::federated_model_from_json(j, o.model);
    m = with_column_names(fm.model, fm.features);
    parties = fm.parties;
    protocol = fm.protocol;
    for (const auto& path : o.parts) {
      auto pj = learners::read_json_file(path, "model part");
      auto party = pj.is_object() ? pj.value("party", "") : "";
      parts.push_back(session::load_split_table(path, party, fm.model_id));
    }
    print_summary(m, o.model);
    std::cout << "federated (" << protocol << "), parties:";
    for (std::size_t q = 0; q < parties.size(); ++q)
      std::cout << (q ? ", " : " ") << parties[q] << " ("
                << (q < fm.features.size() ? fm.features[q].size() : 0)
                << " columns)";
    std::cout << "\n";
  } else {
    m = learners::load_model(o.model); // its errors name the file
    print_summary(m, o.model);
  }

  // Which splits name their feature in this file: all in a centralized
  // model; in a federated one, those the protocol makes public.
  bool all_named = true;
  for (const auto& t : m.trees)
    for (const auto& n : t.nodes)
      if (!n.is_leaf() && n.feature < 0)
        all_named = false;
  if (federated) {
    print_importance(learners::importance_by_owner(m, parties),
                     "each party's splits, by owner (public)");
    for (const auto& p : parts) {
      std::vector<learners::named_split> own;
      for (const auto& s : p.splits)
        own.push_back({s.tree, s.node, s.feature});
      try {
        print_importance(learners::importance_of_splits(m, own),
                         p.party + "'s features (from its part)");
      } catch (const std::out_of_range&) {
        throw input_error(p.party + "'s part names a split the model "
                                    "does not have");
      }
    }
  }
  if (all_named)
    print_importance(learners::importance(m), "every feature");
  else if (parts.empty())
    std::cout << "\nthe features of the splits are not in this file: each "
                 "party knows the importance of its own features only (veil "
                 "inspect "
              << o.model << " --part " << session::part_path(o.model, "PARTY")
              << ", where that part is)\n";

  auto shown = trees_to_show(o, m.trees.size());
  if (shown == 0)
    return 0;
  std::cout << "\n";
  for (std::size_t t = 0; t < shown; ++t) {
    std::map<std::pair<std::int32_t, std::int32_t>, std::string> hidden;
    for (const auto& p : parts)
      for (const auto& s : p.splits)
        if (s.tree == static_cast<std::int32_t>(t)) {
          std::ostringstream text;
          text << s.feature << "<" << s.threshold;
          hidden[{s.tree, s.node}] = text.str();
        }
    const auto& tree = m.trees[t];
    auto split_text = [&](std::int32_t id) {
      const auto& n = tree.nodes[static_cast<std::size_t>(id)];
      if (auto it = hidden.find({static_cast<std::int32_t>(t), id});
          it != hidden.end())
        return it->second;
      auto f = static_cast<std::size_t>(n.feature);
      std::ostringstream text;
      if (n.feature >= 0 && f < m.feature_names.size())
        text << m.feature_names[f];
      else
        text << "feature hidden";
      if (std::isnan(n.threshold) || n.feature < 0) {
        auto q = static_cast<std::size_t>(n.owner);
        text << " of " << (q < parties.size() ? parties[q] : "?");
      } else {
        text << "<" << n.threshold;
      }
      return text.str();
    };
    std::cout << "tree " << t;
    if (m.outputs() > 1)
      std::cout << " (class " << tree.target << ")";
    std::cout << ":\n";
    print_node(tree, 0, 0, split_text);
  }
  if (shown < m.trees.size())
    std::cout << "(" << m.trees.size() - shown
              << " more; --trees all shows every tree)\n";
  return 0;
}

} // namespace veil::apps
