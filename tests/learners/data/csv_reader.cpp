#include "learners/data/csv_reader.hpp"

#include "tests/support/errors.hpp"
#include "tests/support/temp_dir.hpp"

#include <boost/test/unit_test.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>
#include <zlib.h>

namespace fs = std::filesystem;
using namespace veil::learners;
using veil::test::error_of;

namespace {

/// A fresh folder for each test case, removed afterwards, with gzip
/// writing and reading back on top.
struct csv_dir : veil::test::temp_dir {
  /// Writes `contents` gzip-compressed.
  std::string gz_file(const std::string& name,
                      std::string_view contents) const {
    gzFile gz = gzopen(path(name).c_str(), "wb");
    BOOST_REQUIRE(gz);
    if (!contents.empty())
      gzwrite(gz, contents.data(), static_cast<unsigned>(contents.size()));
    gzclose(gz);
    return path(name);
  }

  std::string slurp(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }

  std::size_t entries() const {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator(dir()), fs::directory_iterator()));
  }
};

/// Checks that `f` throws an input_error whose message contains every part.
void check_error(const std::function<void()>& f,
                 const std::vector<std::string>& parts) {
  std::string msg = error_of(f);
  BOOST_TEST_MESSAGE("message: " << msg);
  for (const auto& part : parts)
    BOOST_TEST(msg.find(part) != std::string::npos,
               "\"" << part << "\" not in: " << msg);
}

read_options with_label(std::string label = "label") {
  read_options o;
  o.label = std::move(label);
  return o;
}

bool same_bits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

} // namespace

BOOST_AUTO_TEST_SUITE(data)
BOOST_FIXTURE_TEST_SUITE(csv_reader, csv_dir)

BOOST_AUTO_TEST_CASE(reads_plain_csv_with_label) {
  auto p = file("data.csv", "a,b,label\n1,2.5,0\n-3,+4e2,1\n");
  auto d = read_csv(p, with_label());
  BOOST_TEST(d.rows() == 2u);
  BOOST_TEST(d.feature_names() == (std::vector<std::string>{"a", "b"}));
  BOOST_TEST(d.value(0, 0) == 1.0f);
  BOOST_TEST(d.value(0, 1) == 2.5f);
  BOOST_TEST(d.value(1, 0) == -3.0f);
  BOOST_TEST(d.value(1, 1) == 400.0f);
  BOOST_TEST(d.labels() == (std::vector<float>{0, 1}));
  BOOST_TEST(!d.has_ids());
}

BOOST_AUTO_TEST_CASE(detects_gzip_by_magic_bytes) {
  const std::string text = "x,y,label\n0.1,2,1\n3,4,0\n";
  auto plain = read_csv(file("plain.csv", text), with_label());
  for (auto name : {"zipped.csv.gz", "zipped.csv", "zipped.bin"}) {
    auto d = read_csv(gz_file(name, text), with_label());
    BOOST_TEST(d.rows() == 2u);
    BOOST_TEST(d.feature_names() == plain.feature_names());
    BOOST_TEST(d.labels() == plain.labels());
    for (std::size_t j = 0; j < d.features(); ++j)
      for (std::size_t i = 0; i < d.rows(); ++i)
        BOOST_TEST(d.value(i, j) == plain.value(i, j));
  }
  // A plain file named .gz is still read as plain text.
  BOOST_TEST(read_csv(file("not_zipped.csv.gz", text), with_label()).rows() ==
             2u);
}

BOOST_AUTO_TEST_CASE(label_anywhere_and_id_column) {
  auto p = file("data.csv", "x,label,id,y\n1,0,r1,2\n3,1,r2,4\n5,0,r3,\n");
  read_options o = with_label();
  o.id = "id";
  auto d = read_csv(p, o);
  BOOST_TEST(d.feature_names() == (std::vector<std::string>{"x", "y"}));
  BOOST_TEST(d.labels() == (std::vector<float>{0, 1, 0}));
  BOOST_TEST(d.ids() == (std::vector<std::string>{"r1", "r2", "r3"}));
  BOOST_TEST(d.value(1, 1) == 4.0f);
  BOOST_TEST(is_missing(d.value(2, 1)));
}

BOOST_AUTO_TEST_CASE(empty_field_is_missing) {
  auto p =
      file("data.csv", "a,b,c,label\n,2,3,1\n1,,3,0\n1,2,,1\n1,NaN,nan,0\n");
  auto d = read_csv(p, with_label());
  BOOST_TEST(is_missing(d.value(0, 0)));
  BOOST_TEST(is_missing(d.value(1, 1)));
  BOOST_TEST(is_missing(d.value(2, 2)));
  BOOST_TEST(is_missing(d.value(3, 1)));
  BOOST_TEST(is_missing(d.value(3, 2)));
  BOOST_TEST(d.value(0, 1) == 2.0f);
  BOOST_TEST(d.value(3, 0) == 1.0f);
}

BOOST_AUTO_TEST_CASE(no_label_means_all_columns_are_features) {
  auto d = read_csv(file("data.csv", "a,label\n1,2\n"), read_options{});
  BOOST_TEST(!d.has_labels());
  BOOST_TEST(d.feature_names() == (std::vector<std::string>{"a", "label"}));
}

BOOST_AUTO_TEST_CASE(columns_and_drop_select_features) {
  auto p = file("data.csv", "a,b,c,d,label\n1,2,3,4,0\n5,6,7,8,1\n");
  read_options o = with_label();
  o.columns = {"d", "a", "c"};
  o.drop = {"c"};
  auto d = read_csv(p, o);
  BOOST_TEST(d.feature_names() == (std::vector<std::string>{"d", "a"}));
  BOOST_TEST(d.value(0, 0) == 4.0f);
  BOOST_TEST(d.value(1, 1) == 5.0f);
  BOOST_TEST(d.labels() == (std::vector<float>{0, 1}));

  read_options only_drop = with_label();
  only_drop.drop = {"b", "d"};
  auto e = read_csv(p, only_drop);
  BOOST_TEST(e.feature_names() == (std::vector<std::string>{"a", "c"}));
  BOOST_TEST(e.value(1, 1) == 7.0f);
}

BOOST_AUTO_TEST_CASE(bom_crlf_blank_lines_quotes_and_spaces) {
  auto p = file("data.csv", "\xEF\xBB\xBF"
                            "\"a,1\", b ,label\r\n"
                            "1, 2 ,0\r\n"
                            "\r\n"
                            "\"3\",\"4\",1\r\n"
                            "5,6,0");
  auto d = read_csv(p, with_label());
  BOOST_TEST(d.feature_names() == (std::vector<std::string>{"a,1", "b"}));
  BOOST_TEST(d.rows() == 3u);
  BOOST_TEST(d.value(0, 1) == 2.0f);
  BOOST_TEST(d.value(1, 0) == 3.0f);
  BOOST_TEST(d.value(2, 1) == 6.0f);
  BOOST_TEST(d.labels() == (std::vector<float>{0, 1, 0}));
}

// Inputs that would exhaust memory are refused, saying why, before the
// allocation: a sparse file whose dense table would be huge, and a line
// without an end.
BOOST_AUTO_TEST_CASE(memory_bounds) {
  std::string sparse = "1 1:1 16777000:1\n";
  for (int i = 0; i < 200; ++i)
    sparse += "0 3:1\n";
  check_error([&] { read_libsvm(file("big.libsvm", sparse)); },
              {"big.libsvm", "201 rows x 16777000 features", "dense"});
  std::string endless(65u << 20, 'a'); // 65 MiB, no line end
  check_error([&] { read_csv(file("endless.csv", endless), with_label()); },
              {"endless.csv, line 1", "longer than 64 MiB"});
}

BOOST_AUTO_TEST_CASE(reads_libsvm) {
  const std::string text = "# a comment line\n"
                           "1 1:0.5 3:2\n"
                           "0 qid:7 2:-1 # trailing comment\n"
                           "\n"
                           "-1\n";
  auto d = read_libsvm(file("data.txt", text));
  BOOST_TEST(d.rows() == 3u);
  BOOST_TEST(d.feature_names() == (std::vector<std::string>{"f1", "f2", "f3"}));
  BOOST_TEST(d.labels() == (std::vector<float>{1, 0, -1}));
  BOOST_TEST(d.value(0, 0) == 0.5f);
  BOOST_TEST(is_missing(d.value(0, 1)));
  BOOST_TEST(d.value(0, 2) == 2.0f);
  BOOST_TEST(d.value(1, 1) == -1.0f);
  for (std::size_t j = 0; j < 3; ++j)
    BOOST_TEST(is_missing(d.value(2, j)));

  // Zero-based indices keep f0; read_table picks LibSVM by name, gz or not.
  auto z = read_table(gz_file("zero.svm.gz", "1 0:1 2:3\n0 1:2\n"), {});
  BOOST_TEST(z.feature_names() == (std::vector<std::string>{"f0", "f1", "f2"}));
  BOOST_TEST(z.value(0, 2) == 3.0f);
  BOOST_TEST(z.value(1, 1) == 2.0f);
  read_options o;
  o.columns = {"f2", "f0"};
  auto s = read_table(file("zero.libsvm", "1 0:1 2:3\n0 1:2\n"), o);
  BOOST_TEST(s.feature_names() == (std::vector<std::string>{"f2", "f0"}));
  BOOST_TEST(s.value(0, 0) == 3.0f);

  // Anything else is CSV.
  auto c = read_table(file("t.csv", "a,label\n1,0\n"), with_label());
  BOOST_TEST(c.feature_names() == (std::vector<std::string>{"a"}));
}

BOOST_AUTO_TEST_CASE(write_csv_round_trip_is_bit_exact) {
  const std::size_t rows = 2000;
  dataset d(rows, {"alpha", "beta, quoted", "gamma"});
  std::mt19937 rng(7);
  const float specials[] = {0.0f,
                            -0.0f,
                            1e-45f,
                            1.17549435e-38f,
                            3.40282347e+38f,
                            -3.40282347e+38f,
                            0.1f,
                            1.0f / 3.0f,
                            missing_value};
  for (std::size_t j = 0; j < d.features(); ++j)
    for (std::size_t i = 0; i < rows; ++i) {
      float v;
      if (i < std::size(specials)) {
        v = specials[(i + j) % std::size(specials)];
      } else {
        // Any finite bit pattern, plus some missing values.
        do
          v = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
        while (std::isinf(v));
      }
      d.value(i, j) = v;
    }
  d.labels().resize(rows);
  d.ids().resize(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    d.labels()[i] = static_cast<float>(i % 3) * 0.1f;
    d.ids()[i] = "id-" + std::to_string(i);
  }

  for (auto name : {"out.csv", "out.csv.gz"}) {
    write_csv(d, path(name), "target", "key");
    read_options o = with_label("target");
    o.id = "key";
    auto back = read_csv(path(name), o);
    BOOST_TEST(back.rows() == rows);
    BOOST_TEST(back.feature_names() == d.feature_names());
    BOOST_TEST(back.ids() == d.ids());
    std::size_t mismatches = 0;
    for (std::size_t j = 0; j < d.features(); ++j)
      for (std::size_t i = 0; i < rows; ++i) {
        float a = d.value(i, j), b = back.value(i, j);
        if (is_missing(a) ? !is_missing(b) : !same_bits(a, b))
          ++mismatches;
      }
    for (std::size_t i = 0; i < rows; ++i)
      if (!same_bits(d.labels()[i], back.labels()[i]))
        ++mismatches;
    BOOST_TEST(mismatches == 0u);
  }
  // The header puts the id first and the label last.
  BOOST_TEST(slurp("out.csv").starts_with(
      "key,alpha,\"beta, quoted\",gamma,target\n"));
  auto head = std::string(3, '\0');
  std::ifstream(path("out.csv.gz"), std::ios::binary).read(head.data(), 2);
  BOOST_TEST(static_cast<unsigned char>(head[0]) == 0x1fu);
  BOOST_TEST(static_cast<unsigned char>(head[1]) == 0x8bu);
  // No temporary files left behind.
  BOOST_TEST(entries() == 2u);
}

BOOST_AUTO_TEST_CASE(write_csv_failure_leaves_old_file) {
  file("out.csv", "old");
  dataset d(2, {"a"});
  d.value(0, 0) = 1;
  d.value(1, 0) = std::numeric_limits<float>::infinity();
  check_error([&] { write_csv(d, path("out.csv")); },
              {"out.csv", "row 2", "\"a\"", "infinite"});
  BOOST_TEST(slurp("out.csv") == "old");
  BOOST_TEST(entries() == 1u);

  d.value(1, 0) = 2;
  check_error([&] { write_csv(d, path("no/such/dir/out.csv")); },
              {"no/such/dir/out.csv", "No such file"});
  d.labels() = {0, 1};
  check_error([&] { write_csv(d, path("clash.csv"), "a"); },
              {"clash.csv", "\"a\""});
  BOOST_TEST(entries() == 1u);
}

// --- bad input ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(missing_and_empty_files) {
  check_error([&] { read_csv(path("nope.csv"), {}); },
              {"nope.csv", "No such file or directory"});
  check_error([&] { read_csv(file("empty.csv", ""), {}); },
              {"empty.csv", "empty", "header"});
  check_error([&] { read_csv(file("blank.csv", "\n\n"), {}); },
              {"blank.csv", "empty"});
  check_error([&] { read_csv(file("header.csv", "a,label\n"), with_label()); },
              {"header.csv", "no data rows"});
  check_error([&] { read_csv(gz_file("empty.csv.gz", ""), {}); },
              {"empty.csv.gz", "empty"});
  check_error([&] { read_libsvm(path("nope.svm")); },
              {"nope.svm", "No such file"});
  check_error([&] { read_csv(file("z.zip", "PK\x03\x04junk"), {}); },
              {"z.zip", "zip"});
}

BOOST_AUTO_TEST_CASE(bad_headers) {
  check_error(
      [&] {
        read_csv(file("dup.csv", "a,b,a,label\n1,2,3,0\n"), with_label());
      },
      {"dup.csv:1:", "column 3", "\"a\"", "duplicate", "column 1"});
  check_error(
      [&] {
        read_csv(file("nolabel.csv", "a,b\n1,2\n"), with_label("target"));
      },
      {"nolabel.csv:1:", "label column \"target\"", "not in the header",
       "\"a\", \"b\""});
  read_options o = with_label();
  o.id = "key";
  check_error([&] { read_csv(file("noid.csv", "a,label\n1,0\n"), o); },
              {"noid.csv:1:", "id column \"key\"", "\"a\", \"label\""});
  read_options c = with_label();
  c.columns = {"a", "zzz"};
  check_error([&] { read_csv(file("cols.csv", "a,b,label\n1,2,0\n"), c); },
              {"cols.csv:1:", "\"zzz\"", "not in the file", "\"b\""});
  read_options dr = with_label();
  dr.drop = {"qqq"};
  check_error([&] { read_csv(file("drop.csv", "a,label\n1,0\n"), dr); },
              {"drop.csv:1:", "\"qqq\""});
  read_options lab = with_label();
  lab.columns = {"label"};
  check_error([&] { read_csv(file("lab.csv", "a,label\n1,0\n"), lab); },
              {"lab.csv:1:", "\"label\"", "label column"});
  check_error(
      [&] {
        read_csv(file("emptyname.csv", "a,,label\n1,2,0\n"), with_label());
      },
      {"emptyname.csv:1:", "column 2", "empty name"});
}

BOOST_AUTO_TEST_CASE(wrong_field_counts) {
  check_error(
      [&] {
        read_csv(file("few.csv", "a,b,label\n1,2,0\n1,2\n"), with_label());
      },
      {"few.csv:3:", "expected 3 fields, got 2", "column 3", "\"label\""});
  check_error(
      [&] {
        read_csv(file("many.csv", "a,b,label\n1,2,0\n\n1,2,0,9\n"),
                 with_label());
      },
      {"many.csv:4:", "expected 3 fields, got 4", "column 3", "\"label\""});
  check_error(
      [&] {
        read_csv(file("quote.csv", "a,b,label\n1,\"2,0\n"), with_label());
      },
      {"quote.csv:2:", "column 2", "\"b\"", "quoted"});
}

BOOST_AUTO_TEST_CASE(bad_values) {
  const std::string msg = error_of([&] {
    read_csv(file("data.csv", "id,age,label\nx,1,0\ny,abc,1\n"), [] {
      read_options o = with_label();
      o.id = "id";
      return o;
    }());
  });
  BOOST_TEST(msg.ends_with("data.csv:3: column 2 (\"age\"): \"abc\" is not a "
                           "number"),
             msg);
  check_error(
      [&] {
        read_csv(file("junk.csv", "a,b,label\n1,2,0\n1,2.5x,0\n"),
                 with_label());
      },
      {"junk.csv:3:", "column 2", "\"b\"", "\"2.5x\"", "not a number"});
  check_error(
      [&] { read_csv(file("inf.csv", "a,label\n1,0\ninf,1\n"), with_label()); },
      {"inf.csv:3:", "column 1", "\"a\"", "infinite"});
  check_error(
      [&] { read_csv(file("big.csv", "a,label\n1e39,0\n"), with_label()); },
      {"big.csv:2:", "column 1", "\"a\"", "range"});
  check_error(
      [&] { read_csv(file("nolab.csv", "a,label\n1,0\n2,\n"), with_label()); },
      {"nolab.csv:3:", "column 2", "\"label\"", "missing label"});
  check_error(
      [&] { read_csv(file("badlab.csv", "a,label\n1,yes\n"), with_label()); },
      {"badlab.csv:2:", "column 2", "\"label\"", "\"yes\" is not a number"});
  read_options o = with_label();
  o.id = "id";
  check_error(
      [&] {
        read_csv(file("dupid.csv", "id,a,label\nk1,1,0\nk2,1,0\nk1,2,1\n"), o);
      },
      {"dupid.csv:4:", "column 1", "\"id\"", "duplicate id \"k1\"", "line 2"});
  check_error([&] { read_csv(file("noid.csv", "id,a,label\n,1,0\n"), o); },
              {"noid.csv:2:", "column 1", "\"id\"", "missing id"});
  // Unselected columns are not parsed.
  read_options c = with_label();
  c.columns = {"a"};
  BOOST_TEST(read_csv(file("skip.csv", "a,b,label\n1,zzz,0\n"), c).features() ==
             1u);
}

BOOST_AUTO_TEST_CASE(bad_libsvm) {
  check_error([&] { read_libsvm(file("v.svm", "1 1:2\n0 3:abc\n")); },
              {"v.svm:2:", "token 2", "\"f3\"", "\"abc\" is not a number"});
  check_error([&] { read_libsvm(file("l.svm", "x 1:2\n")); },
              {"l.svm:1:", "token 1", "label", "not a number"});
  check_error([&] { read_libsvm(file("i.svm", "1 -1:2\n")); },
              {"i.svm:1:", "token 2", "index"});
  check_error([&] { read_libsvm(file("d.svm", "1 1:2 1:3\n")); },
              {"d.svm:1:", "\"f1\"", "twice"});
  check_error([&] { read_libsvm(file("c.svm", "1 1:2 7\n")); },
              {"c.svm:1:", "token 3", "index:value"});
  read_options o;
  o.id = "id";
  check_error([&] { read_table(file("t.svm", "1 1:2\n"), o); },
              {"t.svm", "id"});
}

BOOST_AUTO_TEST_CASE(corrupted_gzip) {
  std::string text = "a,b,label\n";
  for (int i = 0; i < 20000; ++i)
    text += std::to_string(i) + "," + std::to_string(i * 7 % 13) + ",1\n";
  gz_file("good.csv.gz", text);
  std::string bytes = slurp("good.csv.gz");
  BOOST_REQUIRE(bytes.size() > 200u);

  std::string flipped = bytes;
  for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 16; ++i)
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
  check_error([&] { read_csv(file("flipped.csv.gz", flipped), with_label()); },
              {"flipped.csv.gz", "corrupted gzip"});

  std::string truncated = bytes.substr(0, bytes.size() / 2);
  check_error(
      [&] { read_csv(file("truncated.csv.gz", truncated), with_label()); },
      {"truncated.csv.gz", "corrupted gzip", "unexpected end of file"});

  BOOST_TEST(read_csv(path("good.csv.gz"), with_label()).rows() == 20000u);
}

BOOST_AUTO_TEST_CASE(reads_adult_train) {
  const std::string p =
      std::string(VEIL_SHARED_DIR) + "/datasets/adult_train.csv.gz";
  if (!fs::exists(p)) {
    BOOST_TEST_MESSAGE("skipped: " << p << " is absent");
    return;
  }
  auto d = read_csv(p, with_label());
  BOOST_TEST(d.rows() == 32561u);
  BOOST_TEST(d.features() == 14u);
  BOOST_TEST(d.feature_names().front() == "age");
  BOOST_TEST(d.feature_names().back() == "native_country");
  std::size_t positive = 0;
  for (float y : d.labels())
    positive += y == 1.0f;
  BOOST_TEST(positive == 7841u);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
