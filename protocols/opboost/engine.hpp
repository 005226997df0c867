#pragma once

// A type-erased, move-only random engine for the roles, so that one role
// class serves production (crypto::system_random) and tests
// (crypto::seeded_random). Move-only: a copied generator would repeat its
// stream, and repeated noise is no noise.

#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

#include "protocols/crypto/random.hpp"

namespace veil::protocols::opboost {

class random_engine : public crypto::word_engine {
public:
  /// Takes ownership of a 64-bit std-style engine.
  template <class Engine>
  explicit random_engine(Engine e)
      : impl_(std::make_unique<model<Engine>>(std::move(e))) {
    static_assert(Engine::min() == 0 &&
                  Engine::max() == std::numeric_limits<std::uint64_t>::max());
  }
  random_engine(random_engine&&) noexcept = default;
  random_engine& operator=(random_engine&&) noexcept = default;
  random_engine(const random_engine&) = delete;
  random_engine& operator=(const random_engine&) = delete;

  result_type operator()() { return impl_->next(); }

private:
  struct concept_t {
    virtual ~concept_t() = default;
    virtual std::uint64_t next() = 0;
  };
  template <class Engine>
  struct model final : concept_t {
    explicit model(Engine e) : engine(std::move(e)) {}
    std::uint64_t next() override { return engine(); }
    Engine engine;
  };
  std::unique_ptr<concept_t> impl_;
};

} // namespace veil::protocols::opboost
