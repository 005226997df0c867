#include "learners/data/csv_reader.hpp"

#include "learners/input_error.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>
#include <zlib.h>

namespace veil::learners {

namespace {

/// 2^31 cells: 8 GiB of floats, the most a dense table read from a sparse
/// file may ask for.
constexpr std::size_t max_dense_cells = std::size_t{1} << 31;
/// The longest line the readers take (a line without an end would
/// otherwise grow the buffer until memory runs out).
constexpr std::size_t max_line_bytes = std::size_t{64} << 20;

/// A value quoted for an error message, cut short and with control bytes
/// escaped so that a binary file does not flood the terminal.
std::string shown(std::string_view s) {
  constexpr std::size_t max_len = 40;
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size() && i < max_len; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > max_len)
    out += "...";
  out += '"';
  return out;
}

std::string at_line(const std::string& path, std::size_t line) {
  return path + ":" + std::to_string(line) + ": ";
}

/// "column 3 (\"age\")"; by number only when the error leaves the party's
/// machine (`redact`): the header of a file that is no table is its
/// first line.
std::string column_ref(std::size_t col, std::string_view name,
                       bool redact = false) {
  return "column " + std::to_string(col + 1) +
         (redact ? std::string() : " (" + shown(name) + ")");
}

/// "a", "b", ... for messages that list what the user could have meant.
std::string name_list(const std::vector<std::string>& names) {
  constexpr std::size_t max_names = 30;
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < max_names; ++i) {
    if (i > 0)
      out += ", ";
    out += shown(names[i]);
  }
  if (names.size() > max_names)
    out += " and " + std::to_string(names.size() - max_names) + " more";
  if (names.empty())
    out = "(none)";
  return out;
}

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back()))
    s.remove_suffix(1);
  return s;
}

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size())
    return false;
  s = s.substr(s.size() - suffix.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
    if (c != suffix[i])
      return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Reading lines from a plain or gzip-compressed file in large blocks.

class line_reader {
public:
  explicit line_reader(const std::string& path) : path_(path), buf_(1 << 22) {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_)
      fail_input(path + ": cannot open: " + std::strerror(errno));
    unsigned char magic[6] = {};
    std::size_t n = std::fread(magic, 1, sizeof magic, file_);
    if (std::ferror(file_))
      fail_input(path + ": cannot read: " + std::strerror(errno));
    check_not_other_archive(magic, n);
    if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
      std::fclose(file_);
      file_ = nullptr;
      errno = 0;
      gz_ = gzopen(path.c_str(), "rb");
      if (!gz_)
        fail_input(path + ": cannot open: " +
                   (errno ? std::strerror(errno) : "out of memory"));
      gzbuffer(gz_, 1 << 20);
    } else {
      // Keep the bytes already read rather than seek: works on pipes too.
      std::memcpy(buf_.data(), magic, n);
      end_ = n;
    }
  }
  ~line_reader() {
    if (file_)
      std::fclose(file_);
    if (gz_)
      gzclose(gz_);
  }
  line_reader(const line_reader&) = delete;
  line_reader& operator=(const line_reader&) = delete;

  /// The next line without its line end (\n or \r\n), and without a UTF-8 BOM
  /// on the first line; false at the end of the file.
  bool next(std::string_view& line) {
    for (;;) {
      const char* base = buf_.data();
      auto nl = static_cast<const char*>(
          std::memchr(base + begin_, '\n', end_ - begin_));
      if (nl) {
        line = std::string_view(base + begin_, nl - (base + begin_));
        begin_ = static_cast<std::size_t>(nl - base) + 1;
        break;
      }
      if (eof_) {
        if (begin_ == end_)
          return false;
        line = std::string_view(base + begin_, end_ - begin_);
        begin_ = end_;
        break;
      }
      fill();
    }
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (++line_no_ == 1 && line.starts_with("\xEF\xBB\xBF"))
      line.remove_prefix(3);
    return true;
  }

  /// 1-based number of the line last returned by next().
  std::size_t line_number() const { return line_no_; }

private:
  // A compressed file we cannot read would otherwise fail with a puzzling
  // "not a number" on line 1.
  void check_not_other_archive(const unsigned char* m, std::size_t n) const {
    auto is = [&](std::initializer_list<unsigned char> sig) {
      return n >= sig.size() && std::equal(sig.begin(), sig.end(), m);
    };
    const char* kind = nullptr;
    if (is({'P', 'K', 3, 4}))
      kind = "zip";
    else if (is({'B', 'Z', 'h'}))
      kind = "bzip2";
    else if (is({0xfd, '7', 'z', 'X', 'Z', 0}))
      kind = "xz";
    else if (is({0x28, 0xb5, 0x2f, 0xfd}))
      kind = "zstd";
    if (kind)
      fail_input(path_ + ": is " + kind +
                 "-compressed; only plain or gzip-compressed text can be read");
  }

  void fill() {
    // Move the partial line to the front, then grow if it fills the buffer.
    if (begin_ > 0) {
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (end_ == buf_.size()) {
      if (buf_.size() >= max_line_bytes)
        fail_input(path_ + ", line " + std::to_string(line_no_ + 1) +
                   ": longer than " + std::to_string(max_line_bytes >> 20) +
                   " MiB (no line end: not a text table?)");
      buf_.resize(buf_.size() * 2);
    }
    std::size_t want = std::min<std::size_t>(buf_.size() - end_, 1u << 30);
    if (gz_) {
      int got = gzread(gz_, buf_.data() + end_, static_cast<unsigned>(want));
      if (got < 0)
        gz_fail();
      if (got == 0) {
        int err = Z_OK;
        gzerror(gz_, &err);
        if (err != Z_OK)
          gz_fail();
        eof_ = true;
      }
      end_ += static_cast<std::size_t>(std::max(got, 0));
    } else {
      std::size_t got = std::fread(buf_.data() + end_, 1, want, file_);
      if (got == 0) {
        if (std::ferror(file_))
          fail_input(path_ + ": cannot read: " + std::strerror(errno));
        eof_ = true;
      }
      end_ += got;
    }
  }

  [[noreturn]] void gz_fail() {
    int err = Z_OK;
    std::string msg = gzerror(gz_, &err);
    if (err == Z_ERRNO)
      fail_input(path_ + ": cannot read: " + std::strerror(errno));
    // zlib prefixes its message with the path; we add our own.
    if (msg.starts_with(path_ + ": "))
      msg.erase(0, path_.size() + 2);
    fail_input(path_ + ": corrupted gzip stream: " + msg);
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  gzFile gz_ = nullptr;
  std::vector<char> buf_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::size_t line_no_ = 0;
};

// ---------------------------------------------------------------------------
// Fields and numbers.

enum class parse_status { ok, missing, not_a_number, out_of_range, infinite };

/// Parses a whole field as a float, correctly rounded. Empty or "nan" is
/// missing. Leading '+' accepted.
parse_status parse_float(std::string_view s, float& out) {
  if (s.empty()) {
    out = missing_value;
    return parse_status::missing;
  }
  const char* first = s.data();
  const char* last = first + s.size();
  if (*first == '+') {
    ++first;
    if (first == last || *first == '+' || *first == '-')
      return parse_status::not_a_number;
  }
  auto [ptr, ec] = std::from_chars(first, last, out);
  if (ptr != last)
    return parse_status::not_a_number;
  if (ec == std::errc::result_out_of_range) {
    // from_chars refuses float underflow too; a tiny value is fine as 0 or a
    // subnormal, only overflow is an error.
    double d = 0;
    auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc() && std::abs(d) < 1.0) {
      out = static_cast<float>(d);
      return parse_status::ok;
    }
    return parse_status::out_of_range;
  }
  if (ec != std::errc())
    return parse_status::not_a_number;
  if (std::isnan(out)) {
    out = missing_value;
    return parse_status::missing;
  }
  if (std::isinf(out))
    return parse_status::infinite;
  return parse_status::ok;
}

/// A cell's text for an error message: quoted by shown(), or "the value"
/// when `redact` (read_options::redact_values).
std::string cell_text(std::string_view s, bool redact) {
  return redact ? std::string("the value") : shown(s);
}

std::string describe(parse_status st, std::string_view field,
                     bool redact = false) {
  auto shown = [&](std::string_view f) { return cell_text(f, redact); };
  switch (st) {
  case parse_status::not_a_number:
    return shown(field) + " is not a number";
  case parse_status::out_of_range:
    return shown(field) + " is out of the float range";
  case parse_status::infinite:
    return shown(field) + " is infinite; only finite numbers are allowed";
  default:
    return shown(field) + " is missing";
  }
}

/// Splits a CSV line into trimmed fields. A field may be double-quoted with ""
/// for a quote; unquoted contents go to `scratch`, reserved up front so that
/// the views into it stay valid. Returns the 0-based index of a malformed
/// quoted field, or -1.
long split_fields(std::string_view line, std::vector<std::string_view>& fields,
                  std::string& scratch) {
  fields.clear();
  if (line.find('"') == std::string_view::npos) {
    // The common case: no quoting, no copies.
    std::size_t i = 0;
    for (;;) {
      auto comma = line.find(',', i);
      if (comma == std::string_view::npos) {
        fields.push_back(trim(line.substr(i)));
        return -1;
      }
      fields.push_back(trim(line.substr(i, comma - i)));
      i = comma + 1;
    }
  }
  scratch.clear();
  scratch.reserve(line.size());
  std::size_t i = 0;
  for (;;) {
    while (i < line.size() && is_blank(line[i]))
      ++i;
    if (i < line.size() && line[i] == '"') {
      std::size_t start = scratch.size();
      for (++i;; ++i) {
        if (i >= line.size())
          return static_cast<long>(fields.size()); // unterminated
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            scratch += '"';
            ++i;
            continue;
          }
          ++i;
          break;
        }
        scratch += line[i];
      }
      fields.emplace_back(scratch.data() + start, scratch.size() - start);
      while (i < line.size() && is_blank(line[i]))
        ++i;
      if (i == line.size())
        return -1;
      if (line[i] != ',')
        return static_cast<long>(fields.size() - 1); // text after the quote
      ++i;
    } else {
      auto comma = line.find(',', i);
      if (comma == std::string_view::npos) {
        fields.push_back(trim(line.substr(i)));
        return -1;
      }
      fields.push_back(trim(line.substr(i, comma - i)));
      i = comma + 1;
    }
  }
}

bool is_blank_line(std::string_view line) {
  return trim(line).empty();
}

/// The header's columns for an error message; not listed when the error
/// leaves the party's machine (`redact`): a file that is no table would
/// have its first line quoted to the coordinator.
std::string columns_text(const std::vector<std::string>& names, bool redact) {
  if (redact)
    return std::to_string(names.size()) +
           " column(s), not listed: this error goes to the session's "
           "coordinator";
  return "the columns are: " + name_list(names);
}

/// Indices into `names` of the feature columns `opts` asks for, in output
/// order. `reserved` maps the label and id column indices to their role.
std::vector<std::size_t>
pick_features(const std::string& where, const std::vector<std::string>& names,
              const std::unordered_map<std::string, std::size_t>& index,
              const std::unordered_map<std::size_t, std::string>& reserved,
              const read_options& opts) {
  auto find = [&](const std::string& name, const char* what) {
    auto it = index.find(name);
    if (it == index.end())
      fail_input(where + what + " column " + shown(name) +
                 " is not in the file; " +
                 columns_text(names, opts.redact_values));
    auto r = reserved.find(it->second);
    if (r != reserved.end())
      fail_input(where + what + " column " + shown(name) + " is the " +
                 r->second + " column");
    return it->second;
  };
  std::vector<std::size_t> picked;
  if (!opts.columns.empty()) {
    std::unordered_set<std::size_t> seen;
    for (const auto& name : opts.columns) {
      auto j = find(name, "selected");
      if (!seen.insert(j).second)
        fail_input(where + "selected column " + shown(name) +
                   " is listed twice");
      picked.push_back(j);
    }
  } else {
    for (std::size_t j = 0; j < names.size(); ++j)
      if (!reserved.contains(j))
        picked.push_back(j);
  }
  if (!opts.drop.empty()) {
    std::unordered_set<std::size_t> dropped;
    for (const auto& name : opts.drop)
      dropped.insert(find(name, "dropped"));
    std::erase_if(picked, [&](std::size_t j) { return dropped.contains(j); });
  }
  return picked;
}

/// Copies per-column vectors into a dataset.
dataset assemble(std::vector<std::string> names,
                 std::vector<std::vector<float>>& cols, std::size_t rows) {
  dataset d(rows, std::move(names));
  for (std::size_t j = 0; j < cols.size(); ++j) {
    std::copy(cols[j].begin(), cols[j].end(), d.column(j).begin());
    std::vector<float>().swap(cols[j]); // free as we go: halves peak memory
  }
  return d;
}

} // namespace

// ---------------------------------------------------------------------------

namespace {

/// The fields of the header row of `in` (the first line that is not
/// blank); fails naming the file (`path`) and line.
std::vector<std::string> header_fields(line_reader& in,
                                       const std::string& path) {
  std::string_view line;
  do {
    if (!in.next(line))
      fail_input(path + ": the file is empty; expected a header row");
  } while (is_blank_line(line));
  std::vector<std::string_view> fields;
  std::string scratch;
  if (long bad = split_fields(line, fields, scratch); bad >= 0)
    fail_input(at_line(path, in.line_number()) + "column " +
               std::to_string(bad + 1) +
               ": malformed quoted field in the header");
  return {fields.begin(), fields.end()};
}

} // namespace

dataset read_csv(const std::string& path, const read_options& opts) {
  line_reader in(path);
  std::vector<std::string> names = header_fields(in, path);
  const std::size_t header_line = in.line_number();
  const std::string where = at_line(path, header_line);
  std::string_view line;
  std::vector<std::string_view> fields;
  std::string scratch;
  const std::size_t ncols = names.size();
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t j = 0; j < ncols; ++j) {
    if (names[j].empty())
      fail_input(where + "column " + std::to_string(j + 1) +
                 " has an empty name in the header");
    auto [it, fresh] = index.emplace(names[j], j);
    if (!fresh)
      fail_input(where + column_ref(j, names[j], opts.redact_values) +
                 ": duplicate column name (also " + "column " +
                 std::to_string(it->second + 1) + ")");
  }

  std::unordered_map<std::size_t, std::string> reserved;
  auto find_special = [&](const std::string& name, const char* what) {
    auto it = index.find(name);
    if (it == index.end())
      fail_input(where + what + " column " + shown(name) +
                 " is not in the header; " +
                 columns_text(names, opts.redact_values));
    if (reserved.contains(it->second))
      fail_input(where + what + " column " + shown(name) + " is also the " +
                 reserved[it->second] + " column");
    reserved[it->second] = what;
    return it->second;
  };
  constexpr std::size_t none = SIZE_MAX;
  std::size_t label_col = none, id_col = none;
  if (!opts.label.empty())
    label_col = find_special(opts.label, "label");
  if (!opts.id.empty())
    id_col = find_special(opts.id, "id");
  auto picked = pick_features(where, names, index, reserved, opts);

  // The columns each row needs, in file order so the loop walks the fields
  // forward. kind: feature index >= 0, -1 label, -2 id.
  struct use {
    std::size_t col;
    long kind;
  };
  std::vector<use> uses;
  for (std::size_t k = 0; k < picked.size(); ++k)
    uses.push_back({picked[k], static_cast<long>(k)});
  if (label_col != none)
    uses.push_back({label_col, -1});
  if (id_col != none)
    uses.push_back({id_col, -2});
  std::sort(uses.begin(), uses.end(),
            [](const use& a, const use& b) { return a.col < b.col; });

  std::vector<std::vector<float>> cols(picked.size());
  std::vector<float> labels;
  std::vector<std::string> ids;
  std::unordered_map<std::string, std::size_t> id_lines;
  std::size_t rows = 0;
  while (in.next(line)) {
    if (is_blank_line(line))
      continue;
    const std::size_t line_no = in.line_number();
    auto here = [&](std::size_t col) {
      return at_line(path, line_no) +
             column_ref(col, names[col], opts.redact_values) + ": ";
    };
    if (long bad = split_fields(line, fields, scratch); bad >= 0) {
      auto col = static_cast<std::size_t>(bad);
      fail_input((col < ncols ? here(col) : at_line(path, line_no)) +
                 "malformed quoted field");
    }
    if (fields.size() < ncols)
      fail_input(
          at_line(path, line_no) + "expected " + std::to_string(ncols) +
          " fields, got " + std::to_string(fields.size()) + "; " +
          column_ref(fields.size(), names[fields.size()], opts.redact_values) +
          " is missing");
    if (fields.size() > ncols)
      fail_input(at_line(path, line_no) + "expected " + std::to_string(ncols) +
                 " fields, got " + std::to_string(fields.size()) +
                 "; the header ends with " +
                 column_ref(ncols - 1, names.back(), opts.redact_values));
    for (const auto& u : uses) {
      std::string_view f = fields[u.col];
      if (u.kind >= 0) {
        float v;
        auto st = parse_float(f, v);
        if (st != parse_status::ok && st != parse_status::missing)
          fail_input(here(u.col) + describe(st, f, opts.redact_values));
        cols[static_cast<std::size_t>(u.kind)].push_back(v);
      } else if (u.kind == -1) {
        float v;
        auto st = parse_float(f, v);
        if (st == parse_status::missing)
          fail_input(here(u.col) + "missing label" +
                     (f.empty()
                          ? std::string()
                          : " (" + cell_text(f, opts.redact_values) + ")"));
        if (st != parse_status::ok)
          fail_input(here(u.col) + describe(st, f, opts.redact_values));
        labels.push_back(v);
      } else {
        if (f.empty())
          fail_input(here(u.col) + "missing id");
        auto [it, fresh] = id_lines.emplace(std::string(f), line_no);
        if (!fresh)
          fail_input(here(u.col) + "duplicate id " + shown(f) +
                     ", first seen on line " + std::to_string(it->second));
        ids.emplace_back(f);
      }
    }
    ++rows;
  }
  if (rows == 0)
    fail_input(path + ": no data rows after the header");

  std::vector<std::string> feature_names;
  for (auto j : picked)
    feature_names.push_back(names[j]);
  dataset d = assemble(std::move(feature_names), cols, rows);
  d.labels() = std::move(labels);
  d.ids() = std::move(ids);
  return d;
}

dataset read_libsvm(const std::string& path, bool redact_values) {
  // Indices beyond this are almost surely a typo, and would make the dense
  // table huge.
  constexpr std::uint64_t max_index = (1u << 24) - 1;
  line_reader in(path);
  std::string_view line;
  std::vector<float> labels;
  std::vector<std::size_t> row_start{0};
  std::vector<std::uint32_t> keys;
  std::vector<float> values;
  std::vector<std::size_t> seen_in_row; // row + 1 where each index was last
  bool any_zero = false;
  std::uint64_t max_seen = 0;
  bool any_entry = false;
  while (in.next(line)) {
    if (auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    const std::size_t line_no = in.line_number();
    const std::size_t row = labels.size();
    std::size_t token_no = 0;
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && is_blank(line[i]))
        ++i;
      if (i == line.size())
        break;
      std::size_t j = i;
      while (j < line.size() && !is_blank(line[j]))
        ++j;
      std::string_view tok = line.substr(i, j - i);
      i = j;
      ++token_no;
      // Built only on error: a string per token would slow reading down.
      auto at = [&] {
        return at_line(path, line_no) + "token " + std::to_string(token_no) +
               " (" + cell_text(tok, redact_values) + ")";
      };
      if (token_no == 1) {
        float v;
        auto st = parse_float(tok, v);
        if (st == parse_status::missing)
          fail_input(at() + ": missing label");
        if (st != parse_status::ok)
          fail_input(at() + ", the label: " + describe(st, tok, redact_values));
        labels.push_back(v);
        continue;
      }
      auto colon = tok.find(':');
      if (colon == std::string_view::npos)
        fail_input(at() + ": expected index:value");
      std::string_view key = tok.substr(0, colon);
      std::string_view val = tok.substr(colon + 1);
      if (key == "qid")
        continue;
      std::uint64_t idx = 0;
      auto [p, ec] = std::from_chars(key.data(), key.data() + key.size(), idx);
      if (key.empty() || ec != std::errc() || p != key.data() + key.size())
        fail_input(at() + ": index " + cell_text(key, redact_values) +
                   " is not a non-negative integer");
      if (idx > max_index)
        fail_input(at() + ": index " + std::to_string(idx) +
                   " is larger than " + std::to_string(max_index));
      auto feature = [&] { return "feature \"f" + std::to_string(idx) + "\""; };
      float v;
      auto st = parse_float(val, v);
      if (st != parse_status::ok && st != parse_status::missing)
        fail_input(at() + ", " + feature() + ": " +
                   describe(st, val, redact_values));
      if (seen_in_row.size() <= idx)
        seen_in_row.resize(idx + 1, 0);
      if (seen_in_row[idx] == row + 1)
        fail_input(at() + ", " + feature() +
                   ": the index appears twice in this row");
      seen_in_row[idx] = row + 1;
      any_zero |= idx == 0;
      max_seen = std::max(max_seen, idx);
      any_entry = true;
      if (st == parse_status::ok) {
        keys.push_back(static_cast<std::uint32_t>(idx));
        values.push_back(v);
      }
    }
    if (token_no > 0)
      row_start.push_back(keys.size());
  }
  const std::size_t rows = labels.size();
  if (rows == 0)
    fail_input(path + ": no data rows");

  const std::size_t base = any_zero ? 0 : 1;
  const std::size_t nfeat =
      any_entry ? static_cast<std::size_t>(max_seen) + 1 - base : 0;
  // The table is dense: a few sparse rows with a huge index would ask for
  // rows x index cells. Refused, naming the size, rather than bad_alloc.
  if (rows > 0 && nfeat > max_dense_cells / rows)
    fail_input(path + ": a dense table of " + std::to_string(rows) +
               " rows x " + std::to_string(nfeat) +
               " features (the largest index) is over " +
               std::to_string(max_dense_cells) +
               " cells; Veil reads LibSVM files into dense tables");
  std::vector<std::string> names;
  for (std::size_t j = 0; j < nfeat; ++j)
    names.push_back("f" + std::to_string(j + base));
  dataset d(rows, std::move(names));
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t k = row_start[r]; k < row_start[r + 1]; ++k)
      d.value(r, keys[k] - base) = values[k];
  d.labels() = std::move(labels);
  return d;
}

dataset read_table(const std::string& path, const read_options& opts) {
  if (!is_libsvm_path(path))
    return read_csv(path, opts);
  if (!opts.id.empty())
    fail_input(path + ": a LibSVM file has no id column, yet id column " +
               shown(opts.id) + " was asked for");
  dataset d = read_libsvm(path, opts.redact_values);
  if (opts.columns.empty() && opts.drop.empty())
    return d;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t j = 0; j < d.features(); ++j)
    index.emplace(d.feature_names()[j], j);
  auto picked = pick_features(path + ": ", d.feature_names(), index, {}, opts);
  return d.select_columns(picked);
}

// ---------------------------------------------------------------------------

namespace {

/// A CSV field, quoted only when it has to be.
void append_field(std::string& out, std::string_view s, const char* what,
                  const std::string& path) {
  if (s.find_first_of("\n\r") != std::string_view::npos)
    fail_input(path + ": cannot write " + std::string(what) + " " + shown(s) +
               ": it contains a line break");
  bool quote = s.find_first_of(",\"") != std::string_view::npos ||
               (!s.empty() && (is_blank(s.front()) || is_blank(s.back())));
  if (!quote) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) {
    if (c == '"')
      out += '"';
    out += c;
  }
  out += '"';
}

void append_float(std::string& out, float v) {
  if (std::isnan(v))
    return;
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

/// Writes to a plain or gzip file and removes it unless commit() is reached.
class temp_writer {
public:
  temp_writer(const std::string& path, bool gzip) : path_(path) {
    static std::atomic<unsigned> counter{0};
    tmp_ = path + ".tmp-" + std::to_string(::getpid()) + "-" +
           std::to_string(counter++);
    // 'x': never clobber a file we did not create. Level 1: 5x faster than
    // the default 6 on float text, for files only ~10% larger.
    errno = 0;
    if (gzip) {
      gz_ = gzopen(tmp_.c_str(), "wb1x");
      if (gz_)
        gzbuffer(gz_, 1 << 20);
    } else {
      file_ = std::fopen(tmp_.c_str(), "wbx");
    }
    if (!gz_ && !file_)
      fail_input(path + ": cannot write: " +
                 (errno ? std::strerror(errno) : "out of memory"));
  }
  ~temp_writer() {
    if (file_)
      std::fclose(file_);
    if (gz_)
      gzclose(gz_);
    if (!committed_) {
      std::error_code ec;
      std::filesystem::remove(tmp_, ec);
    }
  }
  temp_writer(const temp_writer&) = delete;
  temp_writer& operator=(const temp_writer&) = delete;

  void write(std::string_view s) {
    if (s.empty())
      return;
    bool ok;
    if (gz_)
      ok = gzwrite(gz_, s.data(), static_cast<unsigned>(s.size())) ==
           static_cast<int>(s.size());
    else
      ok = std::fwrite(s.data(), 1, s.size(), file_) == s.size();
    if (!ok)
      io_fail();
  }

  /// Closes, flushes to disk and renames the file into place.
  void commit() {
    if (gz_) {
      int rc = gzclose(gz_);
      gz_ = nullptr;
      if (rc != Z_OK)
        io_fail();
    } else {
      int rc = std::fclose(file_);
      file_ = nullptr;
      if (rc != 0)
        io_fail();
    }
    // So that after a crash the new name never points at unwritten data.
    if (int fd = ::open(tmp_.c_str(), O_RDONLY); fd >= 0) {
      ::fsync(fd);
      ::close(fd);
    }
    std::error_code ec;
    std::filesystem::rename(tmp_, path_, ec);
    if (ec)
      fail_input(path_ + ": cannot write: " + ec.message());
    committed_ = true;
  }

private:
  [[noreturn]] void io_fail() {
    int err = errno;
    fail_input(path_ + ": cannot write: " +
               (err ? std::strerror(err) : std::string("compression failed")));
  }

  std::string path_;
  std::string tmp_;
  std::FILE* file_ = nullptr;
  gzFile gz_ = nullptr;
  bool committed_ = false;
};

} // namespace

void write_csv(const dataset& d, const std::string& path,
               const std::string& label_name, const std::string& id_name) {
  // Check everything first so that a bad dataset leaves no file behind.
  std::unordered_set<std::string> names;
  for (const auto& name : d.feature_names()) {
    if (name.empty())
      fail_input(path + ": cannot write a feature with an empty name");
    if (!names.insert(name).second)
      fail_input(path + ": cannot write: feature name " + shown(name) +
                 " appears twice");
  }
  // The label and id columns: one value a row, and a name of their own
  // (`earlier` says which columns came before).
  auto check_column = [&](const char* what, std::size_t values,
                          const std::string& name, const char* earlier) {
    if (values != d.rows())
      fail_input(path + ": cannot write: " + std::to_string(values) + " " +
                 what + "s for " + std::to_string(d.rows()) + " rows");
    if (name.empty())
      fail_input(path + ": cannot write: the " + what + " name is empty");
    if (!names.insert(name).second)
      fail_input(path + ": cannot write: " + what + " name " + shown(name) +
                 " is also a " + earlier + " name");
  };
  if (d.has_labels())
    check_column("label", d.labels().size(), label_name, "feature");
  if (d.has_ids())
    check_column("id", d.ids().size(), id_name, "feature or label");
  for (std::size_t j = 0; j < d.features(); ++j)
    for (std::size_t i = 0; i < d.rows(); ++i)
      if (std::isinf(d.value(i, j)))
        fail_input(path + ": cannot write row " + std::to_string(i + 1) + ", " +
                   column_ref(j, d.feature_names()[j]) +
                   ": the value is infinite and would not read back");
  if (d.has_labels())
    for (std::size_t i = 0; i < d.rows(); ++i)
      if (std::isinf(d.labels()[i]))
        fail_input(path + ": cannot write row " + std::to_string(i + 1) +
                   ": the label is infinite and would not read back");

  temp_writer out(path, ends_with_ci(path, ".gz"));
  std::string buf;
  constexpr std::size_t flush_at = 1 << 20;
  buf.reserve(flush_at + 4096);
  auto sep = [&](bool& first) {
    if (!first)
      buf += ',';
    first = false;
  };

  bool first = true;
  if (d.has_ids()) {
    sep(first);
    append_field(buf, id_name, "id name", path);
  }
  for (const auto& name : d.feature_names()) {
    sep(first);
    append_field(buf, name, "feature name", path);
  }
  if (d.has_labels()) {
    sep(first);
    append_field(buf, label_name, "label name", path);
  }
  buf += '\n';

  for (std::size_t i = 0; i < d.rows(); ++i) {
    first = true;
    if (d.has_ids()) {
      sep(first);
      append_field(buf, d.ids()[i], "id", path);
    }
    for (std::size_t j = 0; j < d.features(); ++j) {
      sep(first);
      append_float(buf, d.value(i, j));
    }
    if (d.has_labels()) {
      sep(first);
      append_float(buf, d.labels()[i]);
    }
    buf += '\n';
    if (buf.size() >= flush_at) {
      out.write(buf);
      buf.clear();
    }
  }
  out.write(buf);
  out.commit();
}

bool is_libsvm_path(const std::string& path) {
  for (auto ext : {".libsvm", ".svm", ".libsvm.gz", ".svm.gz"})
    if (ends_with_ci(path, ext))
      return true;
  return false;
}

std::vector<std::string> csv_header(const std::string& path) {
  line_reader in(path);
  return header_fields(in, path);
}

} // namespace veil::learners
