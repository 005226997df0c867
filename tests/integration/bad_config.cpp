// Bad session files through `veil train --config`, as a user meets them:
// each one exits with code 2 and a message that names the file, the party
// and the column or id at fault.
#include <boost/test/unit_test.hpp>

#include "tests/integration/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil::test;
using namespace std::chrono_literals;

namespace {

struct small_session {
  temp_dir dir;
  small_session() {
    std::string a = "id,x1,x2,label\n", b = "id,y1,y2\n";
    for (int i = 0; i < 40; ++i) {
      auto id = std::to_string(100 + i);
      a += id + "," + std::to_string(i % 7) + "," + std::to_string(i % 5) +
           "," + std::to_string(i % 2) + "\n";
      b += id + "," + std::to_string(i % 3) + "," + std::to_string(i % 11) +
           "\n";
    }
    dir.file("a.csv", a);
    dir.file("b.csv", b);
    // b's rows with one id twice, and with an id a has not.
    dir.file("b-dup.csv", "id,y1,y2\n100,1,2\n100,3,4\n");
    auto other = b;
    other.replace(other.find("\n139,"), 5, "\n999,");
    dir.file("b-other.csv", other);
  }

  /// Runs a session of parties a and b with the given [[party]] bodies.
  std::pair<int, std::string> run(const std::string& party_a,
                                  const std::string& party_b) {
    auto file =
        dir.file("s.toml", "protocol = \"plain\"\ntimeout_seconds = 10\n\n"
                           "[learner]\ntrees = 2\nmax_depth = 2\n\n"
                           "[[party]]\nname = \"a\"\nid = \"id\"\n" +
                               party_a +
                               "\n[[party]]\nname = \"b\"\nid = "
                               "\"id\"\n" +
                               party_b);
    return run_veil({"train", "--config", file}, 60s);
  }
};

const std::string a_ok = "data = \"a.csv\"\nlabel = \"label\"\n";

} // namespace

BOOST_AUTO_TEST_SUITE(bad_config)

BOOST_AUTO_TEST_CASE(a_missing_data_file) {
  small_session s;
  auto [rc, out] = s.run(a_ok, "data = \"missing.csv\"\n");
  BOOST_TEST_MESSAGE(out);
  BOOST_TEST(rc == 2);
  BOOST_TEST(contains(out, "s.toml"));
  BOOST_TEST(contains(out, "\"b\""));
  BOOST_TEST(contains(out, "missing.csv"));
}

BOOST_AUTO_TEST_CASE(the_label_on_two_parties) {
  small_session s;
  auto [rc, out] = s.run(a_ok, "data = \"b.csv\"\nlabel = \"y1\"\n");
  BOOST_TEST_MESSAGE(out);
  BOOST_TEST(rc == 2);
  BOOST_TEST(contains(out, "s.toml"));
  BOOST_TEST(contains(out, "label"));
  BOOST_TEST(contains(out, "b"));
}

BOOST_AUTO_TEST_CASE(an_unknown_column) {
  small_session s;
  auto [rc, out] =
      s.run(a_ok, "data = \"b.csv\"\nfeatures = [\"y1\", \"nope\"]\n");
  BOOST_TEST_MESSAGE(out);
  BOOST_TEST(rc == 2);
  BOOST_TEST(contains(out, "s.toml"));
  BOOST_TEST(contains(out, "nope"));
  BOOST_TEST(contains(out, "b.csv"));
}

BOOST_AUTO_TEST_CASE(duplicate_ids) {
  small_session s;
  auto [rc, out] = s.run(a_ok, "data = \"b-dup.csv\"\n");
  BOOST_TEST_MESSAGE(out);
  BOOST_TEST(rc == 2);
  BOOST_TEST(contains(out, "s.toml"));
  BOOST_TEST(contains(out, "b-dup.csv"));
  BOOST_TEST(contains(out, "100"));
}

BOOST_AUTO_TEST_CASE(mismatched_ids) {
  small_session s;
  auto [rc, out] = s.run(a_ok, "data = \"b-other.csv\"\n");
  BOOST_TEST_MESSAGE(out);
  BOOST_TEST(rc == 2);
  BOOST_TEST(contains(out, "s.toml"));
  BOOST_TEST(contains(out, "999"));
  BOOST_TEST(contains(out, "b's"));
}

BOOST_AUTO_TEST_SUITE_END()
