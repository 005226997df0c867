// The protocol descriptors are the one source of a protocol's settings:
// `veil help` prints them, `veil train --help` names every protocol in one
// line, docs/session.md carries their tables as `veil help --markdown`
// prints them, and the generic checks refuse a value out of its range or
// choices, naming the key and what it takes.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

#include "learners/input_error.hpp"
#include "protocols/descriptor.hpp"
#include "tests/support/errors.hpp"
#include "tests/support/run_veil.hpp"

using veil::test::contains;
using veil::test::run_veil;
namespace vp = veil::protocols;

BOOST_AUTO_TEST_SUITE(help)

BOOST_AUTO_TEST_CASE(docs_carry_the_descriptors_tables) {
  std::ifstream in(std::string(VEIL_SOURCE_DIR) + "/docs/session.md");
  std::stringstream doc;
  doc << in.rdbuf();
  for (const auto* d : vp::all_protocols()) {
    if (d->settings.empty())
      continue;
    BOOST_TEST(contains(doc.str(), vp::settings_markdown(*d)),
               d->name() << "'s settings table in docs/session.md differs "
                            "from `veil help "
                         << d->name() << " --markdown`");
  }
}

BOOST_AUTO_TEST_CASE(docs_say_what_each_party_keeps_as_the_descriptors_do) {
  std::ifstream in(std::string(VEIL_SOURCE_DIR) + "/docs/session.md");
  std::stringstream doc;
  doc << in.rdbuf();
  BOOST_TEST(contains(doc.str(), vp::model_parts_markdown()),
             "the model parts table in docs/session.md differs from `veil "
             "help --markdown`");
  for (const auto* d : vp::all_protocols())
    if (d->federated) {
      BOOST_TEST(!d->model_file.empty(), d->name());
      bool kept = false;
      for (const auto& k : d->parties)
        kept = kept || !k.keeps.empty();
      BOOST_TEST(kept != !d->writes_models,
                 d->name() << ": writes model files, but no party kind keeps "
                              "a part, or the other way round");
    }
  auto md = run_veil("help --markdown");
  BOOST_TEST(md.output == vp::model_parts_markdown());
}

BOOST_AUTO_TEST_CASE(help_lists_every_protocol_and_setting) {
  auto all = run_veil("help");
  BOOST_REQUIRE_MESSAGE(all.status == 0, all.output);
  auto train = run_veil("train --help");
  for (const auto* d : vp::all_protocols()) {
    for (const auto& n : d->names)
      BOOST_TEST(contains(all.output, n), n);
    BOOST_TEST(contains(train.output, d->summary), d->name());
    auto one = run_veil("help " + d->name());
    BOOST_REQUIRE_MESSAGE(one.status == 0, one.output);
    for (const auto& s : d->settings)
      BOOST_TEST(contains(one.output, s.key), s.key);
  }
  auto bad = run_veil("help fever");
  BOOST_TEST(bad.status == 2);
  BOOST_TEST(contains(bad.output, "no such protocol"), bad.output);
  BOOST_TEST(contains(bad.output, "feverless-ldp"), bad.output);
}

BOOST_AUTO_TEST_CASE(values_are_checked_against_the_table) {
  const auto* fv = vp::find_protocol("feverless-ahe");
  BOOST_REQUIRE(fv);
  BOOST_TEST(fv->name() == "feverless");
  auto refusal = [](const vp::setting& s, const std::string& v) {
    try {
      vp::check_setting(s, v, "--set " + s.key + "=" + v);
    } catch (const veil::input_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const auto* buckets = fv->find("feverless.buckets");
  BOOST_REQUIRE(buckets);
  BOOST_TEST(refusal(*buckets, "10").empty());
  BOOST_TEST(refusal(*buckets, "1") ==
             "--set feverless.buckets=1: expected an integer in [2, 256]");
  BOOST_TEST(!refusal(*buckets, "2.5").empty());
  BOOST_TEST(!refusal(*buckets, "257").empty());
  const auto* delta = fv->find("delta");
  BOOST_TEST(!refusal(*delta, "0").empty()); // open at 0
  BOOST_TEST(!refusal(*delta, "1").empty());
  BOOST_TEST(!refusal(*delta, "nan").empty());
  BOOST_TEST(refusal(*delta, "1e-5").empty());
  const auto* election = fv->find("feverless.election");
  BOOST_TEST(refusal(*election, "per_batch").empty());
  BOOST_TEST(refusal(*election, "bogus") ==
             "--set feverless.election=bogus: "
             "expected chain, signed or per_batch");
  const auto* hide = fv->find("feverless.hide_labels");
  BOOST_TEST(!refusal(*hide, "yes").empty());
  // A prefix setting takes any non-empty rest.
  const auto* op = vp::find_protocol("opboost");
  BOOST_TEST(op->find("opboost.bounds.age") != nullptr);
  BOOST_TEST(op->find("opboost.bounds.") == nullptr);
  BOOST_TEST(op->find("opboost.bogus") == nullptr);
}

BOOST_AUTO_TEST_CASE(a_budget_belongs_to_the_variants_that_spend_it) {
  // What veil compare asks before it gives a variant the grid's budgets;
  // each variant without one refuses --epsilon (tested with its command).
  for (const auto* name :
       {"feverless", "feverless-ldp", "feverless-ahe", "masked-xgboost",
        "xgboost-ldp", "fedxgboost-ldp", "opboost", "ldp-boost"})
    BOOST_TEST(vp::find_protocol(name)->find_for(name, "epsilon") != nullptr,
               name);
  for (const auto* name : {"feverless-plain", "federboost", "he-xgboost",
                           "plain", "privet", "privet-plain", "centralized"})
    BOOST_TEST(vp::find_protocol(name)->find_for(name, "epsilon") == nullptr,
               name);
  // `veil help` and the docs' tables say so.
  BOOST_TEST(contains(vp::help_text(*vp::find_protocol("federboost")),
                      "(masked-xgboost, xgboost-ldp, fedxgboost-ldp only)"));
}

BOOST_AUTO_TEST_SUITE_END()
