// TLS between nodes with certificates made at test time by the `openssl`
// command line: a session with certificates signed by the right authority
// trains; a coordinator that trusts another authority is refused at once,
// with a clear error and a non-zero exit (no hang).
#include <boost/test/unit_test.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "tests/integration/process.hpp"
#include "tests/support/basp.hpp"
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
      "-extfile san.ext; done; "
      // Signed by the same CA: a node certificate for another address, and
      // a coordinator certificate of another organisation.
      "printf 'subjectAltName=IP:127.0.0.2\\n' > other.ext; "
      "openssl req -newkey rsa:2048 -nodes -keyout other.key -out other.csr "
      "-subj /CN=other-node; openssl x509 -req -in other.csr -CA ca.pem "
      "-CAkey ca.key -CAcreateserial -out other.pem -days 2 -extfile "
      "other.ext; "
      "openssl req -newkey rsa:2048 -nodes -keyout intruder.key -out "
      "intruder.csr -subj /CN=intruder; openssl x509 -req -in intruder.csr "
      "-CA ca.pem -CAkey ca.key -CAcreateserial -out intruder.pem -days 2 "
      "-extfile san.ext";
  auto file = dir.file("make-certs.sh", script + "\n");
  auto cmd = "bash '" + file + "' >'" + (dir / "openssl.log") + "' 2>&1";
  return std::system(cmd.c_str()) == 0;
}

std::string tls_table(const temp_dir& dir, const std::string& ca,
                      const std::string& me = "coord") {
  return "[tls]\ncertificate = \"" + (dir / (me + ".pem")) + "\"\nkey = \"" +
         (dir / (me + ".key")) + "\"\nca = \"" + (dir / ca) + "\"\n\n";
}

/// `veil node` with TLS as `cert`, serving Adult, plus `extra` arguments.
std::vector<std::string> tls_node(const temp_dir& dir, const std::string& cert,
                                  std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"node",
                                "--listen",
                                "127.0.0.1:0",
                                "--tls-cert",
                                dir / (cert + ".pem"),
                                "--tls-key",
                                dir / (cert + ".key"),
                                "--tls-ca",
                                dir / "ca.pem"};
  for (auto d : adult_node())
    if (d.find('=') != std::string::npos)
      args.insert(args.end(), {"--data", d});
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

/// `veil train` on an Adult session with the shop at the node at `where`,
/// the coordinator presenting `me`'s certificate and trusting `ca`.
std::pair<int, std::string> train_at(const temp_dir& dir,
                                     const std::string& where,
                                     const std::string& ca = "ca.pem",
                                     const std::string& me = "coord") {
  static int serial = 0;
  auto file =
      dir.file("s" + std::to_string(++serial) + ".toml",
               adult_session(2, 2, 20, where, "local", tls_table(dir, ca, me)));
  return run_veil({"train", "--config", file}, 120s);
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
  process node(tls_node(dir, "node"));
  auto where = node_address(node);

  // The right CA: the session trains, with the shop on the TLS node.
  auto [rc, out] = train_at(dir, where);
  BOOST_TEST_MESSAGE("veil train: " << out);
  BOOST_TEST(rc == 0);
  BOOST_TEST(contains(out, "over TLS"));

  // A coordinator trusting another CA: refused, with a clear error.
  auto started = std::chrono::steady_clock::now();
  auto [rc2, out2] = train_at(dir, where, "wrong-ca.pem");
  BOOST_TEST_MESSAGE("veil train (wrong CA): " << out2);
  BOOST_TEST(rc2 != 0);
  BOOST_TEST(rc2 != -1); // exited by itself
  BOOST_TEST((std::chrono::steady_clock::now() - started < 30s));
  BOOST_TEST(contains(out2, "shop"));
  BOOST_TEST(contains(out2, "TLS"));
  BOOST_TEST(node.running()); // the node keeps serving
}

// A certificate the CA signed for another address is not this node's: the
// coordinator checks the host name it dialled (issue "Nodes that trust no
// one").
BOOST_AUTO_TEST_CASE(a_node_certificate_for_another_host_is_refused) {
  if (!std::filesystem::exists(adult("train")))
    return;
  temp_dir dir;
  BOOST_REQUIRE_MESSAGE(make_certificates(dir), "openssl failed");
  process node(tls_node(dir, "other"));
  auto [rc, out] = train_at(dir, node_address(node));
  BOOST_TEST(rc != 0);
  BOOST_TEST(rc != -1);
  BOOST_TEST(contains(out, "it is not 127.0.0.1's"), out);
  BOOST_TEST(node.running());
}

// A node admits only the coordinators its --allow names, by certificate
// subject or fingerprint; another certificate from the same CA is refused
// and the node's log says whose.
BOOST_AUTO_TEST_CASE(only_allowed_coordinators_start_parties) {
  if (!std::filesystem::exists(adult("train")))
    return;
  temp_dir dir;
  BOOST_REQUIRE_MESSAGE(make_certificates(dir), "openssl failed");
  process node(tls_node(dir, "node", {"--allow", "CN=127.0.0.1"}));
  auto where = node_address(node);
  auto [rc, out] = train_at(dir, where);
  BOOST_TEST(rc == 0, out);
  auto m = node.wait_for(
      std::regex("certificate CN=127\\.0\\.0\\.1 \\((sha256:[0-9a-f]{64})\\)"),
      10s);
  BOOST_REQUIRE_MESSAGE(m.has_value(), node.output());
  // As `openssl x509 -fingerprint -sha256` prints it: upper case, colons.
  std::string hex = std::string((*m)[1]).substr(7), fingerprint = "sha256:";
  for (std::size_t i = 0; i < hex.size(); i += 2)
    fingerprint += (i ? ":" : "") +
                   std::string{static_cast<char>(std::toupper(hex[i])),
                               static_cast<char>(std::toupper(hex[i + 1]))};

  auto [rc2, out2] = train_at(dir, where, "ca.pem", "intruder");
  BOOST_TEST(rc2 != 0);
  BOOST_TEST(rc2 != -1);
  BOOST_TEST(contains(out2, "cannot connect to party shop's node"), out2);
  BOOST_TEST(node.wait_for(std::regex("CN=intruder, sha256:[0-9a-f]+\\) is not "
                                      "one --allow admits"),
                           10s)
                 .has_value(),
             node.output());
  node.kill(SIGTERM);
  node.wait(10s);

  // By fingerprint: the coordinator's admitted, the intruder's not.
  process pinned(tls_node(dir, "node", {"--allow", fingerprint}));
  auto where2 = node_address(pinned);
  auto [rc3, out3] = train_at(dir, where2);
  BOOST_TEST(rc3 == 0, out3);
  auto [rc4, out4] = train_at(dir, where2, "ca.pem", "intruder");
  BOOST_TEST(rc4 != 0);
  BOOST_TEST(rc4 != -1);
}

// A stranger without a certificate, and one speaking no TLS at all, get no
// further than the node's door; the node logs each and keeps serving.
BOOST_AUTO_TEST_CASE(a_stranger_without_a_certificate_is_refused) {
  if (!std::filesystem::exists(adult("train")))
    return;
  temp_dir dir;
  BOOST_REQUIRE_MESSAGE(make_certificates(dir), "openssl failed");
  process node(tls_node(dir, "node"));
  auto where = node_address(node);
  auto cmd = "openssl s_client -connect " + where + " -CAfile '" +
             (dir / "ca.pem") + "' </dev/null >'" + (dir / "s_client.log") +
             "' 2>&1";
  BOOST_TEST(std::system(cmd.c_str()) != -1);
  BOOST_TEST(node.wait_for(std::regex("refused: TLS handshake failed: .*peer "
                                      "did not return a certificate"),
                           10s)
                 .has_value(),
             node.output());
  auto plain = "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | timeout 5 bash -c 'cat "
               "> /dev/tcp/127.0.0.1/" +
               where.substr(where.find(':') + 1) + "'";
  BOOST_TEST(std::system(plain.c_str()) != -1);
  BOOST_TEST(node.wait_for(std::regex("refused: TLS handshake failed"), 10s)
                 .has_value(),
             node.output());
  auto [rc, out] = train_at(dir, where);
  BOOST_TEST(rc == 0, out);
}

// Idle TLS handshakes from one address hold at most a quarter of the
// node's slots: an honest coordinator elsewhere still gets in.
BOOST_AUTO_TEST_CASE(idle_handshakes_from_one_address_do_not_lock_others_out) {
  if (!std::filesystem::exists(adult("train")))
    return;
  temp_dir dir;
  BOOST_REQUIRE_MESSAGE(make_certificates(dir), "openssl failed");
  process node(tls_node(dir, "node", {"--max-connections", "8"}));
  auto where = node_address(node);
  int port = std::stoi(where.substr(where.find(':') + 1));
  std::vector<int> idle;
  for (int i = 0; i < 20; ++i)
    idle.push_back(dial(port, false, "127.0.0.2")); // "another machine"
  BOOST_TEST(node.wait_for(std::regex("refused: 2 connections from this "
                                      "address are still in their handshake"),
                           10s)
                 .has_value(),
             node.output());
  auto [rc, out] = train_at(dir, where); // from 127.0.0.1
  BOOST_TEST(rc == 0, out);
  for (int fd : idle)
    ::close(fd);
}

// LDP boosting's owners on a TLS node: veil train's --tls-* flags (its
// session is not a file) reach the node with the coordinator's certificate;
// a coordinator trusting another authority is refused, naming the block.
BOOST_AUTO_TEST_CASE(ldp_boost_owner_nodes_over_tls) {
  temp_dir dir;
  BOOST_REQUIRE_MESSAGE(make_certificates(dir), "openssl failed");
  for (const auto* part : {"owners", "user"}) {
    auto [rc, out] = run_veil(
        {"generate", "--rows", "800", "--features", "4", "--informative", "3",
         "--redundant", "1", "--seed", part == std::string("user") ? "2" : "1",
         "--out", dir / (std::string(part) + ".csv")},
        30s);
    BOOST_REQUIRE_MESSAGE(rc == 0, out);
  }
  process node(
      tls_node(dir, "node", {"--data", "owners=" + (dir / "owners.csv")}));
  auto where = node_address(node) + "/owners";
  auto train = [&](const std::string& ca) {
    return run_veil({"train", "--protocol", "ldp-boost", "--data",
                     dir / "user.csv", "--trees", "2", "--set",
                     "ldp.owners_per_round=50", "--set",
                     "ldp.owner_nodes=" + where, "--tls-cert",
                     dir / "coord.pem", "--tls-key", dir / "coord.key",
                     "--tls-ca", dir / ca, "--timeout", "10"},
                    60s);
  };
  auto [rc, out] = train("ca.pem");
  BOOST_TEST_MESSAGE("veil train: " << out);
  BOOST_TEST(rc == 0);
  BOOST_TEST(contains(out, "with 200 owners"), out);
  auto [rc2, out2] = train("wrong-ca.pem");
  BOOST_TEST(rc2 != 0);
  BOOST_TEST(rc2 != -1);
  BOOST_TEST(contains(out2, "owners1"), out2);
  BOOST_TEST(contains(out2, "TLS"), out2);
  BOOST_TEST(node.running());
  // Half the flags are refused before anything is contacted.
  auto [rc3, out3] =
      run_veil({"train", "--protocol", "ldp-boost", "--data", dir / "user.csv",
                "--tls-cert", dir / "coord.pem"},
               30s);
  BOOST_TEST(rc3 == 2);
  BOOST_TEST(contains(out3, "go together"), out3);
}

BOOST_AUTO_TEST_SUITE_END()
