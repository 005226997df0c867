#include "protocols/opboost/validate.hpp"

#include <cmath>
#include <set>
#include <string>

namespace veil::protocols::opboost {

namespace {

constexpr double value_limit = 4194304.0; // 2^22

std::optional<protocol_error> fail(const char* step, std::string reason) {
  return protocol_error{step, std::move(reason)};
}

bool exact_value(double v) {
  return std::isfinite(v) && std::fabs(v) <= value_limit && std::floor(v) == v;
}

} // namespace

std::optional<protocol_error> validate(const schema& m, const domain& d,
                                       std::size_t rows) {
  const char* step = "M0 schema";
  auto n = m.names.size();
  if (n == 0)
    return fail(step, "no columns");
  if (m.kinds.size() != n || m.lower.size() != n || m.upper.size() != n ||
      m.fill.size() != n)
    return fail(step, "column lists of different lengths");
  if (m.rows != rows)
    return fail(step, "row count differs from Party A's (" +
                          std::to_string(m.rows) + " vs " +
                          std::to_string(rows) + ")");
  if (m.domain_lo != d.lo || m.domain_hi != d.hi)
    return fail(step, "domain differs from the session's");
  std::set<std::string> seen;
  for (std::size_t f = 0; f < n; ++f) {
    if (m.names[f].empty())
      return fail(step, "empty column name at column " + std::to_string(f));
    if (!seen.insert(m.names[f]).second)
      return fail(step, "duplicate column name at column " + std::to_string(f));
    if (m.kinds[f] != static_cast<std::uint8_t>(column_kind::numeric))
      return fail(step, "unknown column kind at column " + std::to_string(f));
    if (!std::isfinite(m.lower[f]) || !std::isfinite(m.upper[f]) ||
        !(m.lower[f] < m.upper[f]))
      return fail(step, "bad mapping bounds at column " + std::to_string(f));
    if (!std::isnan(m.fill[f]) && !std::isfinite(m.fill[f]))
      return fail(step, "bad fill value at column " + std::to_string(f));
  }
  return std::nullopt;
}

std::optional<protocol_error> validate(const ranks& m, const schema& s,
                                       std::vector<std::int32_t>& distinct) {
  const char* step = "M1 ranks";
  if (m.rows != s.rows)
    return fail(step, "row count differs from the schema's");
  auto features = s.names.size();
  auto rows = static_cast<std::size_t>(m.rows);
  if (m.values.size() != features * rows)
    return fail(step, "expected " + std::to_string(features * rows) +
                          " ranks, got " + std::to_string(m.values.size()));
  distinct.assign(features, 0);
  std::vector<std::uint8_t> present;
  for (std::size_t f = 0; f < features; ++f) {
    const std::int32_t* col = m.values.data() + f * rows;
    std::int32_t top = -1;
    for (std::size_t i = 0; i < rows; ++i) {
      if (col[i] < 0 || static_cast<std::size_t>(col[i]) >= rows)
        return fail(step, "rank out of range in column " + std::to_string(f));
      top = std::max(top, col[i]);
    }
    present.assign(static_cast<std::size_t>(top) + 1, 0);
    for (std::size_t i = 0; i < rows; ++i)
      present[static_cast<std::size_t>(col[i])] = 1;
    for (auto p : present)
      if (!p)
        return fail(step, "column " + std::to_string(f) +
                              " is not a dense ranking (a rank is skipped)");
    distinct[f] = top + 1;
  }
  return std::nullopt;
}

std::optional<protocol_error>
validate(const split_request& m, const std::vector<std::int32_t>& distinct) {
  const char* step = "M2 split_request";
  if (m.offsets.size() != distinct.size() + 1)
    return fail(step, "expected " + std::to_string(distinct.size() + 1) +
                          " offsets, got " + std::to_string(m.offsets.size()));
  if (m.offsets.front() != 0 || m.offsets.back() != m.ranks.size())
    return fail(step, "offsets do not span the ranks");
  for (std::size_t f = 0; f < distinct.size(); ++f) {
    auto lo = m.offsets[f], hi = m.offsets[f + 1];
    if (lo > hi)
      return fail(step, "offsets decrease at feature " + std::to_string(f));
    for (auto k = lo; k < hi; ++k) {
      if (m.ranks[k] < 0 || m.ranks[k] >= distinct[f])
        return fail(step,
                    "unknown rank requested for feature " + std::to_string(f));
      if (k > lo && m.ranks[k] <= m.ranks[k - 1])
        return fail(step, "ranks not strictly increasing for feature " +
                              std::to_string(f));
    }
  }
  return std::nullopt;
}

std::optional<protocol_error> validate(const split_values& m,
                                       const split_request& request) {
  const char* step = "M3 split_values";
  if (m.values.size() != request.ranks.size())
    return fail(step, "expected " + std::to_string(request.ranks.size()) +
                          " values, got " + std::to_string(m.values.size()));
  for (std::size_t f = 0; f + 1 < request.offsets.size(); ++f) {
    for (auto k = request.offsets[f]; k < request.offsets[f + 1]; ++k) {
      if (!exact_value(m.values[k]))
        return fail(step, "a value of feature " + std::to_string(f) +
                              " is not an integer in [-2^22, 2^22]");
      if (k > request.offsets[f] && !(m.values[k] > m.values[k - 1]))
        return fail(step, "values of feature " + std::to_string(f) +
                              " do not increase with the rank");
    }
  }
  return std::nullopt;
}

std::optional<protocol_error> validate(const predict_values& m,
                                       std::uint32_t batch, std::uint32_t rows,
                                       std::size_t features) {
  const char* step = "M4 predict_values";
  if (m.batch != batch)
    return fail(step, "unknown batch " + std::to_string(m.batch));
  if (m.rows != rows)
    return fail(step, "row count differs from the request's");
  if (m.values.size() != static_cast<std::size_t>(rows) * features)
    return fail(step,
                "expected " +
                    std::to_string(static_cast<std::size_t>(rows) * features) +
                    " values, got " + std::to_string(m.values.size()));
  for (double v : m.values)
    if (!exact_value(v))
      return fail(step, "a value is not an integer in [-2^22, 2^22]");
  return std::nullopt;
}

} // namespace veil::protocols::opboost
