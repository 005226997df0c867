#include "protocols/masked/params.hpp"

#include <cmath>

#include "learners/input_error.hpp"

namespace veil::protocols::masked {

namespace {

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

} // namespace

void params::validate() const {
  if (!(epsilon_ap > 0) || !std::isfinite(epsilon_ap))
    throw input_error("epsilon: the active party's budget must be a positive "
                      "number, got " +
                      number(epsilon_ap));
  if (!(delta_ap > 0 && delta_ap < 1))
    throw input_error("delta: the active party's delta must be in (0, 1), "
                      "got " +
                      number(delta_ap));
  if (!(epsilon_pp > 0) || !std::isfinite(epsilon_pp))
    throw input_error("masked.epsilon_pp must be a positive number, got " +
                      number(epsilon_pp));
  if (!(delta_pp >= 0 && delta_pp < 1))
    throw input_error("masked.delta_pp must be in [0, 1) (0: 1/rows), got " +
                      number(delta_pp));
  if (w < 1 || w > 64)
    throw input_error("masked.w must be in [1, 64], got " + std::to_string(w));
  if (!(epsilon_pp > w * std::log(2.0)))
    throw input_error(
        "masked.epsilon_pp=" + number(epsilon_pp) +
        " with masked.w=" + std::to_string(w) +
        ": Theorem 3 needs epsilon_pp > w ln 2 = " + number(w * std::log(2.0)) +
        " (W too large for epsilon_pp; epsilon_pp = 1 allows w = 1 only)");
  if (paillier_bits != 1024 && paillier_bits != 2048 && paillier_bits != 3072)
    throw input_error("paillier.bits must be 1024, 2048 or 3072, got " +
                      std::to_string(paillier_bits));
  if (!(mu > 0) || !std::isfinite(mu))
    throw input_error("masked.mu must be a positive number, got " + number(mu));
}

calibration calibrate(const params& p, std::uint64_t rows, int trees, int depth,
                      int passives, std::uint64_t max_candidates) {
  p.validate();
  calibration c;
  c.w = p.w;
  c.delta_pp =
      p.delta_pp > 0 ? p.delta_pp : 1.0 / static_cast<double>(rows ? rows : 1);
  c.rho = choose_rho(p.epsilon_pp, c.delta_pp, p.w, p.tail);
  c.sigma1 = std::sqrt(c.rho);
  c.sigma2 = p.lossless_check ? 0.0 : 1.0;
  c.steps = static_cast<std::uint64_t>(trees) *
            static_cast<std::uint64_t>(depth) *
            static_cast<std::uint64_t>(passives);
  auto k = releases(p.accounting, trees, depth, max_candidates, passives);
  c.release = per_release(p.epsilon_ap, p.delta_ap, k);
  // ⟨g⟩ and ⟨h⟩: basic composition of the two (strict counts both in k).
  if (p.split_gh && p.accounting != accounting::strict) {
    c.release.epsilon /= 2;
    c.release.delta /= 2;
  }
  return c;
}

double candidate_energy(const params& p, const calibration& c,
                        std::uint64_t rows, std::uint64_t left) {
  if (p.energy == energy_mode::worst)
    left = rows;
  return noise_energy(p.mu, c.rho, left, rows - left, c.release, p.sensitivity);
}

const char* to_string(accounting a) {
  switch (a) {
  case accounting::per_release:
    return "per_release";
  case accounting::per_step:
    return "per_step";
  case accounting::strict:
    return "strict";
  }
  return "?";
}

const char* to_string(sensitivity s) {
  return s == sensitivity::vector ? "vector" : "record";
}

const char* to_string(energy_mode e) {
  return e == energy_mode::worst ? "worst" : "adaptive";
}

} // namespace veil::protocols::masked
