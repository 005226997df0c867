#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace veil::protocols {

/// Why a protocol role refused an input: the protocol step and a reason
/// that never contains data values, shares or keys.
struct protocol_error {
  std::string step;
  std::string reason;
  /// The parties' inputs together are unusable (every role sees the same,
  /// e.g. a row labelled twice), rather than a peer's message being wrong:
  /// reported as bad input, not as a refusal of the sender's message.
  bool bad_input = false;
  /// The peer whose message is refused when it is not the one being
  /// handled (a phase completes on another peer's message); -1: that one.
  std::int32_t culprit = -1;
};

/// A peer's message refused at protocol step `step`, for `reason`.
inline protocol_error refuse(std::string step, std::string reason) {
  return {std::move(step), std::move(reason)};
}

/// A value or the protocol_error that prevented it. Roles return this for
/// every peer input: peer data never makes them throw.
template <class T>
class outcome {
public:
  outcome(T value) : v_(std::move(value)) {}
  outcome(protocol_error e) : v_(std::move(e)) {}

  explicit operator bool() const { return v_.index() == 0; }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const protocol_error& error() const { return std::get<1>(v_); }

private:
  std::variant<T, protocol_error> v_;
};

} // namespace veil::protocols
