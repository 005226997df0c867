#pragma once

// Noise drawn ahead of need. A draw of a noise mechanism depends on nothing
// it will hide, so it can be made before the query it goes into, in time
// its party would otherwise idle: a host runs fill() on a thread of the
// lowest priority (actors/noise_filler.hpp), and the protocol take()s draws
// when it adds noise. An exact discrete Gaussian draw costs some 130 ns,
// otherwise on the critical path of every noised FEVERLESS query.
//
// Each lane keeps the draws made ahead in a ring that one filler thread
// writes and the protocol's thread reads, without a lock: a lock held
// through a draw by a thread of the lowest priority stalled the protocol
// whenever the scheduler preempted the filler. A take() that finds the
// ring empty draws from an engine of its own, `taker_batch` draws at a
// time kept for the next takes that find it empty: in one loop the
// sampler's code and state stay hot, where a draw between two queries'
// work cost twice its time alone. Both engines are
// ChaCha20 keyed from the party's CSPRNG and every draw has the sampler's
// law, so which engine a draw came from changes nothing; without a filler
// every draw comes from the taker's engine, as reproducible as its key.
// Draws wait in memory as a pending query's noise does, and are wiped when
// taken.

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stop_token>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/crypto/sodium.hpp" // key32
#include "protocols/dp/discrete_gaussian.hpp"

namespace veil::protocols::dp {

class noise_reserve {
public:
  /// Draws a take() that finds the ring empty makes at once.
  static constexpr std::size_t taker_batch = 32;

  /// Lane i draws from samplers[i]: take() with an engine keyed by
  /// take_keys[i], fill_one() with one keyed by fill_keys[i] (secret: from
  /// the party's CSPRNG), and holds up to `capacity` draws made ahead.
  /// Throws std::invalid_argument unless there are a key of each kind per
  /// sampler and capacity is a power of 2, at least 2.
  noise_reserve(const std::vector<discrete_gaussian>& samplers,
                const std::vector<crypto::key32>& take_keys,
                const std::vector<crypto::key32>& fill_keys,
                std::size_t capacity);
  ~noise_reserve();
  noise_reserve(const noise_reserve&) = delete;
  noise_reserve& operator=(const noise_reserve&) = delete;

  /// The lane's oldest draw made ahead, or when it holds none the next of
  /// the taker's own (taker_batch made at once). One thread takes (the
  /// protocol's).
  std::int64_t take(std::size_t lane);

  /// One draw into the lane that holds fewest, if any holds fewer than the
  /// capacity; false when all are full. One thread fills.
  bool fill_one();

  /// The filling thread's loop, until `stop`: fill_one() while a lane has
  /// room, then sleep while every lane holds more than half its capacity.
  void fill(std::stop_token stop);

  /// Draws a lane holds (tests).
  std::size_t held(std::size_t lane) const;

private:
  struct lane {
    lane(const discrete_gaussian& s, const crypto::key32& take_key,
         const crypto::key32& fill_key, std::size_t capacity);
    discrete_gaussian sampler;
    crypto::seeded_random take_engine, fill_engine;
    std::unique_ptr<std::int64_t[]> ring;
    std::atomic<std::size_t> head{0}; // next to take (the taker's)
    std::atomic<std::size_t> tail{0}; // next to fill (the filler's)
    /// The taker's own draws, made taker_batch at a time: batch[next..]
    /// are still to take.
    std::array<std::int64_t, taker_batch> batch{};
    std::size_t next = taker_batch;
  };
  bool has_room() const;
  void wait_for_room(std::stop_token stop);
  std::size_t capacity_;
  std::vector<std::unique_ptr<lane>> lanes_;
  // The filler sleeps on room_ (under mutex_, which no draw holds) with
  // filler_asleep_ set; a take that leaves a lane at most half full then
  // wakes it. The flag and the heads are sequentially consistent, so a take
  // sees the flag or the filler sees the take's head (no lost wake-up).
  std::mutex mutex_;
  std::condition_variable_any room_;
  std::atomic<bool> filler_asleep_{false};
};

} // namespace veil::protocols::dp
