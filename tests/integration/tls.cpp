// TLS between nodes with certificates made at test time by the `openssl`
// command line: a session with certificates signed by the right authority
// trains; a coordinator that trusts another authority is refused at once,
// with a clear error and a non-zero exit (no hang).
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>

#include "tests/integration/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil::test;
using namespace std::chrono_literals;

namespace {

/// ca.pem (+ key), node.pem/node.key and coord.pem/coord.key signed by it
/// (CN and SAN IP 127.0.0.1), and wrong-ca.pem, an unrelated authority.
bool make_certificates(const temp_dir& dir) {
  auto d = dir.dir().string();
  std::string script =
      "set -e; cd '" + d +
      "'; printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext; "
      "for ca in ca wrong-ca; do openssl req -x509 -newkey rsa:2048 -nodes "
      "-keyout $ca.key -out $ca.pem -days 2 -subj /CN=veil-test-$ca; done; "
      "for n in node coord; do openssl req -newkey rsa:2048 -nodes -keyout "
      "$n.key -out $n.csr -subj /CN=127.0.0.1; openssl x509 -req -in $n.csr "
      "-CA ca.pem -CAkey ca.key -CAcreateserial -out $n.pem -days 2 "
      "-extfile san.ext; done";
  auto file = dir.file("make-certs.sh", script + "\n");
  auto cmd = "bash '" + file + "' >'" + (dir / "openssl.log") + "' 2>&1";
  return std::system(cmd.c_str()) == 0;
}

std::string tls_table(const temp_dir& dir, const std::string& ca) {
  return "[tls]\ncertificate = \"" + (dir / "coord.pem") + "\"\nkey = \"" +
         (dir / "coord.key") + "\"\nca = \"" + (dir / ca) + "\"\n\n";
}

} // namespace

BOOST_AUTO_TEST_SUITE(tls)

BOOST_AUTO_TEST_CASE(certificates_signed_by_the_ca_work_a_wrong_ca_is_refused) {
  if (!std::filesystem::exists(adult("train"))) {
    BOOST_TEST_MESSAGE("skipped: " << adult("train") << " is missing");
    return;
  }
  temp_dir dir;
  BOOST_REQUIRE_MESSAGE(make_certificates(dir), "openssl failed");
  std::vector<std::string> node_args{
      "node",           "--listen",       "127.0.0.1:0",
      "--tls-cert",     dir / "node.pem", "--tls-key",
      dir / "node.key", "--tls-ca",       dir / "ca.pem"};
  for (auto d : adult_node())
    if (d.find('=') != std::string::npos)
      node_args.insert(node_args.end(), {"--data", d});
  process node(node_args);
  auto port = node.port();
  BOOST_REQUIRE_MESSAGE(port > 0, "node output: " << node.output());
  auto where = "127.0.0.1:" + std::to_string(port);

  // The right CA: the session trains, with the shop on the TLS node.
  auto good = dir.file("good.toml", adult_session(3, 3, 20, where, "local",
                                                  tls_table(dir, "ca.pem")));
  auto [rc, out] = run_veil({"train", "--config", good}, 120s);
  BOOST_TEST_MESSAGE("veil train: " << out);
  BOOST_TEST(rc == 0);
  BOOST_TEST(contains(out, "over TLS"));

  // A coordinator trusting another CA: refused, with a clear error.
  auto bad =
      dir.file("bad.toml", adult_session(3, 3, 20, where, "local",
                                         tls_table(dir, "wrong-ca.pem")));
  auto started = std::chrono::steady_clock::now();
  auto [rc2, out2] = run_veil({"train", "--config", bad}, 60s);
  BOOST_TEST_MESSAGE("veil train (wrong CA): " << out2);
  BOOST_TEST(rc2 != 0);
  BOOST_TEST(rc2 != -1); // exited by itself
  BOOST_TEST((std::chrono::steady_clock::now() - started < 30s));
  BOOST_TEST(contains(out2, "shop"));
  BOOST_TEST(contains(out2, "TLS"));
  BOOST_TEST(node.running()); // the node keeps serving
}

BOOST_AUTO_TEST_SUITE_END()
