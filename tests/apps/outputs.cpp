// What a command writes: never over one of its inputs or another of its
// outputs, never through a planted symlink, with the mode an existing file
// had (model parts 0600), all together after the run succeeded.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>

#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using veil::test::contains;
using veil::test::run_veil;
using veil::test::temp_dir;

namespace {

unsigned mode_of(const std::string& path) {
  struct stat st {};
  BOOST_REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// 200 generated rows in DIR/d.csv.
std::string small_data_file(const temp_dir& dir) {
  auto data = dir / "d.csv";
  BOOST_REQUIRE(run_veil("generate --rows 200 --features 3 --informative 2 "
                         "--redundant 0 --out " +
                         data)
                    .status == 0);
  return data;
}

} // namespace

BOOST_AUTO_TEST_SUITE(outputs)

BOOST_AUTO_TEST_CASE(an_output_never_replaces_an_input_or_an_output) {
  temp_dir dir;
  auto data = small_data_file(dir);
  auto before = read(data);
  struct refusal {
    std::string args, says;
  };
  for (const auto& [args, says] : std::vector<refusal>{
           {"train --data " + data + " --model-out " + data,
            "it is the input --data"},
           {"train --data " + data + " --model-out " + (dir / "m.json") +
                " --report " + (dir / "m.json"),
            "it is also the output --model-out"},
           {"train --data " + data + " --model-out " + (dir / "no/m.json"),
            "does not exist"},
           {"train --data " + data + " --report " + dir.path(""),
            "is a folder"},
       }) {
    auto r = run_veil(args + " --quiet");
    BOOST_TEST(r.status == 2, args << ": " << r.output);
    BOOST_TEST(contains(r.output, says), args << ": " << r.output);
  }
  BOOST_TEST(read(data) == before);
  // A model exported over itself, predictions over their input.
  BOOST_REQUIRE(run_veil("train --quiet --data " + data + " --model-out " +
                         (dir / "m.json"))
                    .status == 0);
  auto e = run_veil("export --model " + (dir / "m.json") + " --out " +
                    (dir / "m.json"));
  BOOST_TEST(e.status == 2);
  BOOST_TEST(contains(e.output, "it is the input --model"), e.output);
  auto p = run_veil("predict --model " + (dir / "m.json") + " --data " + data +
                    " --out " + data);
  BOOST_TEST(p.status == 2);
  BOOST_TEST(read(data) == before);
}

BOOST_AUTO_TEST_CASE(modes_symlinks_and_no_leftovers) {
  temp_dir dir;
  auto data = small_data_file(dir);
  auto model = dir / "m.json";
  BOOST_REQUIRE(
      run_veil("train --quiet --data " + data + " --model-out " + model)
          .status == 0);
  // An existing file keeps its mode.
  ::chmod(model.c_str(), 0640);
  BOOST_REQUIRE(run_veil("train --quiet --trees 3 --data " + data +
                         " --model-out " + model)
                    .status == 0);
  BOOST_TEST(mode_of(model) == 0640u);
  // A planted symlink is replaced, its target untouched.
  auto victim = dir.file("victim.txt", "keep me\n");
  fs::create_symlink(victim, dir / "link.json");
  BOOST_REQUIRE(run_veil("train --quiet --trees 2 --data " + data +
                         " --model-out " + (dir / "link.json"))
                    .status == 0);
  BOOST_TEST(read(victim) == "keep me\n");
  BOOST_TEST(!fs::is_symlink(dir / "link.json"));
  // A federated model's parts are private to the party that keeps them.
  BOOST_REQUIRE(run_veil("train --quiet --protocol plain --rows 2000 "
                         "--features 6 --trees 2 --model-out " +
                         (dir / "fed.json"))
                    .status == 0);
  BOOST_TEST(mode_of(dir / "fed.json.party1") == 0600u);
  // No temporary file is left behind.
  for (const auto& entry : fs::directory_iterator(dir.path("")))
    BOOST_TEST(entry.path().filename().string().find(".tmp") ==
                   std::string::npos,
               entry.path());
}

BOOST_AUTO_TEST_SUITE_END()
