// The files a command reads and writes, checked before any work: an output
// never replaces an input or another output, and its folder is writable.
#include <filesystem>
#include <unistd.h>

#include "apps/veil/commands.hpp"
#include "learners/input_error.hpp"

namespace veil::apps {

namespace {

namespace fs = std::filesystem;

/// Where `path` leads: symlinks and ".." resolved as far as it exists.
fs::path resolved(const std::string& path) {
  std::error_code ec;
  auto p = fs::weakly_canonical(fs::absolute(path), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

} // namespace

void check_files(const std::vector<named_file>& inputs,
                 const std::vector<named_file>& outputs) {
  std::vector<std::pair<fs::path, const named_file*>> seen;
  for (const auto& in : inputs)
    if (!in.path.empty())
      seen.emplace_back(resolved(in.path), &in);
  auto inputs_end = seen.size();
  for (const auto& out : outputs) {
    if (out.path.empty())
      continue;
    auto p = resolved(out.path);
    for (std::size_t i = 0; i < seen.size(); ++i)
      if (seen[i].first == p)
        throw input_error(out.flag + " " + out.path + ": it is " +
                          (i < inputs_end ? "the input " : "also the output ") +
                          seen[i].second->flag + " " + seen[i].second->path +
                          "; write it elsewhere");
    std::error_code ec;
    if (fs::is_directory(p, ec))
      throw input_error(out.flag + " " + out.path + ": is a folder");
    // The folder the file is written in (a symlink is replaced there, never
    // followed).
    auto folder = fs::absolute(out.path).parent_path();
    if (!fs::is_directory(folder, ec))
      throw input_error(out.flag + " " + out.path + ": the folder " +
                        folder.string() + " does not exist");
    if (::access(folder.c_str(), W_OK) != 0)
      throw input_error(out.flag + " " + out.path + ": the folder " +
                        folder.string() + " is not writable");
    seen.emplace_back(p, &out);
  }
}

} // namespace veil::apps
