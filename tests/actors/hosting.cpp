// What a party on a node may touch (actors/hosting.hpp): the node's
// datasets by name and their allowed columns, errors without the node's
// paths, model parts in the node's store under names no request can bend.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>

#include "actors/hosting.hpp"
#include "learners/input_error.hpp"
#include "tests/support/text.hpp"

using namespace veil;

namespace {

actors::hosting hosted(std::string store = "/var/lib/veil") {
  auto c = std::make_shared<actors::node_catalog>();
  c->datasets["shop"] = {"/srv/data/shop.csv", {}, {}};
  c->datasets["limited"] = {"/srv/data/shop.csv", {"a", "label"}, "id"};
  c->store = std::move(store);
  return {c, {"shop", "limited"}, {}};
}

std::string error_of(auto f) {
  try {
    f();
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}

using veil::test::contains;

} // namespace

BOOST_AUTO_TEST_SUITE(hosting)

BOOST_AUTO_TEST_CASE(only_served_names_are_spawned) {
  auto h = hosted();
  BOOST_TEST(actors::refuse_datasets(*h.node, {"shop", "limited"}).empty());
  BOOST_TEST(actors::refuse_datasets(*h.node, {}).empty());
  auto path = actors::refuse_datasets(*h.node, {"shop", "/srv/data/shop.csv"});
  BOOST_TEST(contains(path, "not by a path"), path);
  BOOST_TEST(contains(path, "(it serves: limited, shop)"), path);
  auto unknown = actors::refuse_datasets(*h.node, {"bank"});
  BOOST_TEST(contains(unknown, "serves no dataset of that name"), unknown);
}

BOOST_AUTO_TEST_CASE(a_spec_is_resolved_within_the_allowed_columns) {
  auto h = hosted();
  auto s = actors::served_spec(h, {"shop", "id", {"x"}, "y"});
  BOOST_TEST(s.path == "/srv/data/shop.csv");
  BOOST_TEST((s.feature_columns == std::vector<std::string>{"x"}));
  // No feature list: the allowed columns but the id and the label.
  auto l = actors::served_spec(h, {"limited", "id", {}, "label"});
  BOOST_TEST((l.feature_columns == std::vector<std::string>{"a"}));
  // A column outside the list, a feature asked for as the id (its values
  // would reach the coordinator in the clear), the id as a feature.
  for (auto spec : {protocols::session::data_spec{"limited", "", {"b"}, ""},
                    protocols::session::data_spec{"limited", "ssn", {}, ""},
                    protocols::session::data_spec{"limited", "a", {}, ""},
                    protocols::session::data_spec{"limited", "", {"id"}, ""},
                    protocols::session::data_spec{"limited", "", {}, "b"}}) {
    auto e = error_of([&] { actors::served_spec(h, spec); });
    BOOST_TEST(contains(e, "is not one its node allows"), e);
    BOOST_TEST(!contains(e, "/srv"), e);
  }
  // A name its spawn request did not give, even one the node serves.
  auto other = h;
  other.datasets = {"shop"};
  auto e = error_of([&] {
    actors::served_spec(other, {"limited", "", {}, ""});
  });
  BOOST_TEST(contains(e, "not a dataset its session named"), e);
}

BOOST_AUTO_TEST_CASE(errors_name_datasets_not_paths) {
  auto h = hosted();
  auto msg = actors::without_paths(
      h, "/srv/data/shop.csv:3: column 2 is not a number; "
         "/var/lib/veil/0123.b.part: no such file");
  BOOST_TEST(!contains(msg, "/srv"), msg);
  BOOST_TEST(!contains(msg, "/var/lib/veil"), msg);
  BOOST_TEST(contains(msg, ":3: column 2 is not a number"), msg);
  BOOST_TEST(contains(msg, "its node's store"), msg);
  // In the coordinator's own process, nothing is hidden.
  BOOST_TEST(actors::without_paths({}, "/srv/x") == "/srv/x");
}

BOOST_AUTO_TEST_CASE(parts_live_in_the_store_under_checked_names) {
  auto h = hosted();
  auto id = std::string("0123456789abcdef0123456789abcdef");
  BOOST_TEST(actors::stored_part_path(h, "shop", id) ==
             "/var/lib/veil/" + id + ".shop.part");
  for (auto bad :
       {"../../etc/passwd", "0123", "0123456789abcdef0123456789abcdeg",
        "0123456789abcdef0123456789abcdef/.."}) {
    auto e = error_of([&] { actors::stored_part_path(h, "shop", bad); });
    BOOST_TEST(contains(e, "is not 32 hexadecimal digits"), e);
  }
  auto none = hosted("");
  auto e = error_of([&] { actors::stored_part_path(none, "shop", id); });
  BOOST_TEST(contains(e, "keeps no model parts"), e);
}

BOOST_AUTO_TEST_SUITE_END()
