#include "protocols/opboost/preprocess.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "learners/input_error.hpp"

namespace veil::protocols::opboost {

void feature_map::validate(const std::string& feature) const {
  if (!std::isfinite(lower) || !std::isfinite(upper) || !(lower < upper))
    throw input_error("feature '" + feature +
                      "': the mapping bounds must be finite with lower < "
                      "upper");
  // Values are floats: bounds beyond float range, or so close that no float
  // lies strictly between them, map every value to one point of D⊥.
  constexpr double float_max = std::numeric_limits<float>::max();
  if (std::abs(lower) > float_max || std::abs(upper) > float_max ||
      !std::isfinite(upper - lower) ||
      std::nextafter(static_cast<float>(lower), INFINITY) >=
          static_cast<float>(upper))
    throw input_error("feature '" + feature + "': the mapping bounds [" +
                      std::to_string(lower) + ", " + std::to_string(upper) +
                      "] leave no room between them for float values");
  if (!std::isnan(fill) && !std::isfinite(fill))
    throw input_error("feature '" + feature +
                      "': the fill value must be finite");
}

std::int64_t map_value(const feature_map& m, const domain& d, double x) {
  if (std::isnan(x))
    x = std::isnan(m.fill) ? m.lower : m.fill;
  x = std::clamp(x, m.lower, m.upper);
  double span = static_cast<double>(d.hi - d.lo);
  double v = (x - m.lower) / (m.upper - m.lower) * span;
  auto k = static_cast<std::int64_t>(std::floor(v + 0.5));
  return d.lo + std::clamp<std::int64_t>(k, 0, d.hi - d.lo);
}

std::vector<std::int64_t> map_column(const feature_map& m, const domain& d,
                                     std::span<const float> column) {
  std::vector<std::int64_t> out(column.size());
  for (std::size_t i = 0; i < column.size(); ++i)
    out[i] = map_value(m, d, column[i]);
  return out;
}

feature_map fit_bounds(std::span<const float> column) {
  feature_map m;
  bool any = false;
  for (float x : column) {
    if (std::isnan(x))
      continue;
    if (!any) {
      m.lower = m.upper = x;
      any = true;
    }
    m.lower = std::min<double>(m.lower, x);
    m.upper = std::max<double>(m.upper, x);
  }
  if (!any || m.upper == m.lower)
    m.upper = m.lower + 1; // a constant column maps to L
  return m;
}

long ordinal_code(const std::vector<std::string>& levels,
                  const std::string& value) {
  auto it = std::find(levels.begin(), levels.end(), value);
  return it == levels.end() ? -1 : static_cast<long>(it - levels.begin());
}

} // namespace veil::protocols::opboost
