#pragma once

namespace veil::learners {

/// First and second derivative of the loss at one sample, stored as floats
/// (as XGBoost does) to halve the memory traffic of histogram building.
struct grad_pair {
  float g = 0;
  float h = 0;
};

/// A sum of gradient pairs, accumulated in double.
struct grad_sum {
  double g = 0;
  double h = 0;

  grad_sum& operator+=(const grad_sum& o) {
    g += o.g;
    h += o.h;
    return *this;
  }
  grad_sum& operator+=(const grad_pair& o) {
    g += o.g;
    h += o.h;
    return *this;
  }
  friend grad_sum operator-(grad_sum a, const grad_sum& b) {
    a.g -= b.g;
    a.h -= b.h;
    return a;
  }
  friend grad_sum operator+(grad_sum a, const grad_sum& b) { return a += b; }
  friend bool operator==(const grad_sum&, const grad_sum&) = default;
};

} // namespace veil::learners
