// A wire fuzzer (issue "Nodes that trust no one"): every type of Veil's CAF
// type ID block, the types any peer may put in a message, decoded by CAF's
// binary deserializer from mutated encodings and from random bytes. A
// decode may fail, never crash, and never allocate more than the bytes it
// was given could justify: a single allocation above 64 KiB + 16 bytes per
// input byte, or all of a decode's allocations above 1 MiB + 64 per input
// byte, is refused (std::bad_alloc from the guarded operator new below)
// and reported with the type. ctest runs VEIL_FUZZ_CASES cases per type
// (default 300); docs/security.md gives a longer run.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <new>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "messages/register.hpp"
#include "messages/type_ids.hpp"

namespace {

// -- an allocation guard for the decoding thread -----------------------------

thread_local bool guarded = false;
thread_local std::size_t single_cap = 0;
thread_local std::size_t total_cap = 0;
thread_local std::size_t total = 0;
thread_local std::size_t largest = 0;

void* guarded_alloc(std::size_t n) {
  if (guarded) {
    total += n;
    largest = std::max(largest, n);
    if (n > single_cap || total > total_cap)
      throw std::bad_alloc();
  }
  if (void* p = std::malloc(n == 0 ? 1 : n))
    return p;
  throw std::bad_alloc();
}

} // namespace

void* operator new(std::size_t n) {
  return guarded_alloc(n);
}
void* operator new[](std::size_t n) {
  return guarded_alloc(n);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}

namespace {

struct fuzz_config : caf::actor_system_config {
  fuzz_config() {
    veil::messages::register_types(*this);
    set("scheduler.max-threads", 1);
  }
};

/// What decoding one type's cases gave.
struct tally {
  std::size_t decoded = 0, refused = 0;
  std::vector<std::string> unbounded; // the first few, described
};

using bytes = std::vector<char>;

/// One mutation of `seed` (or random bytes), by `rng`.
bytes mutate(const bytes& seed, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) {
    return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1));
  };
  bytes b = seed;
  switch (rng() % 7) {
  case 0: // random bytes of a random length
    b.resize(pick(256));
    for (auto& c : b)
      c = static_cast<char>(rng());
    break;
  case 1: // bit flips
    for (int k = 0, n = 1 + static_cast<int>(pick(8)); k < n && !b.empty(); ++k)
      b[pick(b.size())] ^= static_cast<char>(1 << pick(8));
    break;
  case 2: // a run of 0xff: the largest sizes and varints
    if (!b.empty()) {
      auto at = pick(b.size());
      for (std::size_t k = at; k < std::min(b.size(), at + 1 + pick(8)); ++k)
        b[k] = static_cast<char>(0xff);
    }
    break;
  case 3: // truncated
    b.resize(pick(b.size() + 1));
    break;
  case 4: // random bytes inserted
  {
    auto at = pick(b.size() + 1);
    bytes ins(1 + pick(16));
    for (auto& c : ins)
      c = static_cast<char>(rng());
    b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), ins.begin(),
             ins.end());
    break;
  }
  case 5: // a 4-byte big size written over a random place
    if (b.size() >= 4) {
      auto at = pick(b.size() - 3);
      std::uint32_t big = 0x7fffffffu >> pick(24);
      for (int k = 0; k < 4; ++k)
        b[at + static_cast<std::size_t>(k)] =
            static_cast<char>(big >> (8 * (3 - k)));
    }
    break;
  default: // appended garbage
    for (std::size_t k = 0, n = 1 + pick(32); k < n; ++k)
      b.push_back(static_cast<char>(rng()));
  }
  return b;
}

/// Decodes `input` as T under the guard; false if it allocated beyond it.
template <class T>
bool decode(caf::actor_system& sys, const bytes& input, tally& t) {
  total = largest = 0;
  single_cap = 64 * 1024 + 16 * input.size();
  total_cap = 1024 * 1024 + 64 * input.size();
  guarded = true;
  bool bounded = true;
  try {
    T x{};
    caf::binary_deserializer src{sys, input};
    auto err = src(x);
    ++(err ? t.refused : t.decoded);
  } catch (const std::bad_alloc&) {
    bounded = false;
  } catch (const std::exception&) {
    ++t.refused; // an inspect() that throws on bad input is a refusal
  }
  guarded = false;
  return bounded;
}

template <caf::type_id_t V>
void fuzz_one(caf::actor_system& sys, std::size_t cases,
              std::map<std::string, tally>& out) {
  using type = typename caf::type_by_id<V>::type;
  std::string name(caf::type_name<type>::value);
  auto& t = out[name];
  bytes seed;
  {
    type x{};
    caf::binary_serializer sink{sys, seed};
    if (sink(x))
      seed.clear();
  }
  // A length of 2^32 - 1 (CAF's varint) written over, and inserted at,
  // every place of the encoding: wherever a length is read, the largest.
  const char huge[] = {'\xff', '\xff', '\xff', '\xff', '\x0f'};
  for (std::size_t at = 0; at <= seed.size(); ++at) {
    for (bool insert : {false, true}) {
      auto input = seed;
      if (insert || at + sizeof huge > input.size())
        input.insert(input.begin() + static_cast<std::ptrdiff_t>(at),
                     std::begin(huge), std::end(huge));
      else
        std::copy(std::begin(huge), std::end(huge),
                  input.begin() + static_cast<std::ptrdiff_t>(at));
      if (!decode<type>(sys, input, t) && t.unbounded.size() < 3)
        t.unbounded.push_back("a length of 2^32 - 1 at byte " +
                              std::to_string(at) + ": an allocation of " +
                              std::to_string(largest) + " bytes");
    }
  }
  std::mt19937_64 rng(0x5eed0000u + V);
  for (std::size_t i = 0; i < cases; ++i) {
    auto input = i == 0 ? seed : mutate(seed, rng);
    if (!decode<type>(sys, input, t) && t.unbounded.size() < 3)
      t.unbounded.push_back(
          "case " + std::to_string(i) + ", " + std::to_string(input.size()) +
          " input bytes, an allocation of " + std::to_string(largest) +
          " bytes (" + std::to_string(total) + " in all)");
  }
}

template <caf::type_id_t... Vs>
void fuzz_all(caf::actor_system& sys, std::size_t cases,
              std::map<std::string, tally>& out,
              std::integer_sequence<caf::type_id_t, Vs...>) {
  (fuzz_one<caf::id_block::veil::begin + Vs>(sys, cases, out), ...);
}

} // namespace

BOOST_AUTO_TEST_SUITE(messages)

BOOST_AUTO_TEST_CASE(fuzz) {
  std::size_t cases = 300;
  if (const char* env = std::getenv("VEIL_FUZZ_CASES"))
    cases = std::max<std::size_t>(1, std::strtoull(env, nullptr, 10));
  // The guard itself: a megabyte from nothing is refused.
  {
    total = largest = 0;
    single_cap = 64 * 1024;
    total_cap = 1024 * 1024;
    guarded = true;
    bool refused = false;
    try {
      std::string big(1 << 20, 'x');
    } catch (const std::bad_alloc&) {
      refused = true;
    }
    guarded = false;
    BOOST_REQUIRE(refused);
  }
  fuzz_config cfg;
  caf::actor_system sys{cfg};
  std::map<std::string, tally> out;
  fuzz_all(sys, cases, out,
           std::make_integer_sequence<caf::type_id_t,
                                      caf::id_block::veil::end -
                                          caf::id_block::veil::begin>{});
  std::size_t decoded = 0, refused = 0;
  for (const auto& [name, t] : out) {
    decoded += t.decoded;
    refused += t.refused;
    for (const auto& u : t.unbounded)
      BOOST_ERROR(name << ": unbounded allocation: " << u);
  }
  BOOST_TEST_MESSAGE(out.size()
                     << " types x " << cases << " cases: " << decoded
                     << " decoded, " << refused << " refused, none crashed");
  BOOST_TEST(out.size() >= 40u);
}

BOOST_AUTO_TEST_SUITE_END()
