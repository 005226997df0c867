#include "learners/boost/model_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

#include "learners/input_error.hpp"

namespace veil::learners {

using nlohmann::json;

json to_json(const model& m) {
  json trees = json::array();
  for (const auto& t : m.trees) {
    json nodes = json::array();
    for (const auto& n : t.nodes) {
      if (n.is_leaf()) {
        nodes.push_back({{"leaf", n.value}, {"hess", n.sum_hess}});
      } else {
        nodes.push_back({{"feature", n.feature},
                         {"threshold", n.threshold},
                         {"bin", n.bin},
                         {"default_left", n.default_left},
                         {"left", n.left},
                         {"right", n.right},
                         {"weight", n.value},
                         {"gain", n.gain},
                         {"hess", n.sum_hess},
                         {"owner", n.owner}});
      }
    }
    trees.push_back({{"target", t.target}, {"nodes", std::move(nodes)}});
  }
  json j = {{"format", "veil-model"},
            {"version", 1},
            {"objective", to_string(m.objective)},
            {"num_class", m.num_class},
            {"base_margin", m.base_margin},
            {"weak_learner", m.weak_learner},
            {"features", m.feature_names},
            {"trees", std::move(trees)}};
  if (!m.federated.empty())
    j["federated"] = m.federated;
  return j;
}

namespace {

template <class T>
T field(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key))
    throw input_error(where + ": missing field \"" + key + "\"");
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw input_error(where + ": field \"" + key + "\" has the wrong type");
  }
}

} // namespace

model model_from_json(const json& j, bool federated) {
  model m;
  if (!j.is_object() || j.value("format", "") != "veil-model")
    throw input_error("not a Veil model: field \"format\" is not "
                      "\"veil-model\"");
  auto version = field<int>(j, "version", "model");
  if (version != 1)
    throw input_error("model version " + std::to_string(version) +
                      " is not supported (expected 1)");
  if (!federated && j.contains("federated") &&
      !(j["federated"].is_string() &&
        j["federated"].get<std::string>().empty()))
    throw input_error(
        "this file is part of a federated model and cannot predict on its "
        "own: " +
        (j["federated"].is_string() ? j["federated"].get<std::string>()
                                    : std::string("(no description)")));
  if (federated)
    m.federated = j.value("federated", "");
  m.objective = parse_objective(field<std::string>(j, "objective", "model"));
  m.num_class = field<int>(j, "num_class", "model");
  // As the trainer writes it: 1 unless multi-class, then a class count the
  // trainer accepts (a huge one would size every prediction by it).
  if (m.objective == objective_kind::multi_softmax
          ? m.num_class < 2 || m.num_class > 10000
          : m.num_class != 1)
    throw input_error(
        "model: num_class " + std::to_string(m.num_class) +
        (m.objective == objective_kind::multi_softmax
             ? " is outside [2, 10000]"
             : " for " + to_string(m.objective) + " (expected 1)"));
  m.base_margin = field<std::vector<double>>(j, "base_margin", "model");
  m.weak_learner = j.value("weak_learner", "tree");
  m.feature_names = field<std::vector<std::string>>(j, "features", "model");
  if (static_cast<int>(m.base_margin.size()) != m.outputs())
    throw input_error("model: base_margin has " +
                      std::to_string(m.base_margin.size()) +
                      " entries, expected " + std::to_string(m.outputs()));
  auto trees = field<json>(j, "trees", "model");
  auto features = static_cast<std::int32_t>(m.feature_names.size());
  for (std::size_t ti = 0; ti < trees.size(); ++ti) {
    auto where = "model tree " + std::to_string(ti);
    regression_tree t;
    t.target = field<int>(trees[ti], "target", where);
    if (t.target < 0 || t.target >= m.outputs())
      throw input_error(where + ": target out of range");
    auto nodes = field<json>(trees[ti], "nodes", where);
    for (std::size_t ni = 0; ni < nodes.size(); ++ni) {
      auto nw = where + " node " + std::to_string(ni);
      const auto& jn = nodes[ni];
      tree_node n;
      n.sum_hess = jn.value("hess", 0.0);
      if (jn.contains("leaf")) {
        n.value = field<float>(jn, "leaf", nw);
      } else {
        n.feature = field<std::int32_t>(jn, "feature", nw);
        bool kept_by_owner =
            jn.contains("threshold") && jn["threshold"].is_null();
        if (!federated && n.feature == -1 && kept_by_owner)
          throw input_error(
              nw +
              ": this is a federated public model: the split's "
              "feature and threshold stay with party " +
              std::to_string(jn.value("owner", 0)) +
              " (its part, MODEL.<party>, where it runs). Predict through "
              "the parties: veil predict --model MODEL --config SESSION");
        n.threshold = federated && kept_by_owner
                          ? std::numeric_limits<float>::quiet_NaN()
                          : field<float>(jn, "threshold", nw);
        n.bin = jn.value("bin", -1);
        n.default_left = field<bool>(jn, "default_left", nw);
        n.left = field<std::int32_t>(jn, "left", nw);
        n.right = field<std::int32_t>(jn, "right", nw);
        n.value = jn.value("weight", 0.0f);
        n.gain = jn.value("gain", 0.0f);
        n.owner = jn.value("owner", 0);
        auto count = static_cast<std::int32_t>(nodes.size());
        auto self = static_cast<std::int32_t>(ni);
        if ((n.feature < 0 && !(federated && kept_by_owner)) ||
            n.feature >= features)
          throw input_error(nw + ": feature index out of range");
        // Children after their parent rules out cycles.
        if (n.left <= self || n.left >= count || n.right <= self ||
            n.right >= count)
          throw input_error(nw + ": child index out of range");
      }
      t.nodes.push_back(n);
    }
    if (t.nodes.empty())
      throw input_error(where + ": no nodes");
    for (std::size_t ni = 0; ni < t.nodes.size(); ++ni)
      if (!t.nodes[ni].is_leaf()) {
        t.nodes[t.nodes[ni].left].parent = static_cast<std::int32_t>(ni);
        t.nodes[t.nodes[ni].right].parent = static_cast<std::int32_t>(ni);
      }
    m.trees.push_back(std::move(t));
  }
  return m;
}

namespace {

std::string write_error(const std::string& path) {
  return "cannot write " + path + ": " + std::strerror(errno);
}

/// A fresh temporary file beside `path`, opened exclusively (O_EXCL: a
/// planted file or symlink of that name is never followed), with the mode
/// `path` has or, new, `mode` less the umask (as any new file); its name.
std::string open_temporary(const std::string& path, mode_t mode, int& fd) {
  struct stat st {};
  bool exists = ::stat(path.c_str(), &st) == 0;
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::random_device rd;
    std::ostringstream name;
    name << path << ".tmp-" << std::hex << rd() << rd();
    auto tmp = name.str();
    fd = ::open(tmp.c_str(),
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0) {
      if (exists) // the file it replaces keeps its mode
        ::fchmod(fd, st.st_mode & 07777);
      return tmp;
    }
    if (errno != EEXIST)
      break;
  }
  throw input_error(write_error(path));
}

void write_all(int fd, const std::string& text) {
  const char* p = text.data();
  auto left = text.size();
  while (left > 0) {
    auto n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      throw std::system_error(errno, std::generic_category());
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

} // namespace

void write_files_atomically(const std::vector<output_file>& files) {
  std::vector<std::string> temporaries;
  auto discard = [&] {
    for (const auto& t : temporaries)
      ::unlink(t.c_str());
  };
  for (const auto& f : files) {
    int fd = -1;
    try {
      temporaries.push_back(
          open_temporary(f.path, f.private_mode ? 0600 : 0666, fd));
      write_all(fd, f.text);
      if (::fsync(fd) != 0)
        throw std::system_error(errno, std::generic_category());
    } catch (const input_error&) {
      discard();
      throw;
    } catch (const std::system_error&) {
      auto message = write_error(f.path);
      if (fd >= 0)
        ::close(fd);
      discard();
      throw input_error(message);
    }
    ::close(fd);
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    if (std::rename(temporaries[i].c_str(), files[i].path.c_str()) != 0) {
      auto message = write_error(files[i].path);
      for (std::size_t j = i; j < files.size(); ++j)
        ::unlink(temporaries[j].c_str());
      throw input_error(message);
    }
}

void write_file_atomically(const std::string& path, const std::string& text,
                           bool private_mode) {
  write_files_atomically({{path, text, private_mode}});
}

void save_model(const model& m, const std::string& path) {
  write_file_atomically(path, to_json(m).dump(1) + "\n");
}

json read_json_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw input_error(std::string("cannot read ") + what + " " + path + ": " +
                      std::strerror(errno));
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    // The byte only: the message quotes what it read, and a party's error
    // goes to the coordinator.
    throw input_error(path + ": not valid JSON (at byte " +
                      std::to_string(e.byte) + ")");
  }
}

model load_model(const std::string& path) {
  auto j = read_json_file(path, "model");
  try {
    return model_from_json(j);
  } catch (const input_error& e) {
    throw input_error(path + ": " + e.what());
  }
}

} // namespace veil::learners
