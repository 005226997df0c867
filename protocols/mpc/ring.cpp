#include "protocols/mpc/ring.hpp"

namespace veil::protocols::mpc {

namespace {

void same_length(std::span<const word> a, std::span<const word> b) {
  if (a.size() != b.size())
    throw std::invalid_argument("mpc: vectors of different lengths");
}

} // namespace

words encode_all(std::span<const double> xs, int f) {
  words out(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i)
    out[i] = encode(xs[i], f);
  return out;
}

std::vector<double> decode_all(std::span<const word> ws, int f) {
  std::vector<double> out(ws.size());
  for (std::size_t i = 0; i < ws.size(); ++i)
    out[i] = decode(ws[i], f);
  return out;
}

words add(std::span<const word> a, std::span<const word> b) {
  same_length(a, b);
  words out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    out[i] = a[i] + b[i];
  return out;
}

words sub(std::span<const word> a, std::span<const word> b) {
  same_length(a, b);
  words out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    out[i] = a[i] - b[i];
  return out;
}

} // namespace veil::protocols::mpc
