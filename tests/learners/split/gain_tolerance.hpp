#pragma once

namespace veil::test {

/// Gains are compared as floats (XGBoost stores them so): allow that, in
/// per cent for BOOST_CHECK_CLOSE.
inline constexpr double gain_tol_percent = 1e-4;

} // namespace veil::test
