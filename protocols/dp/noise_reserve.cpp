#include "protocols/dp/noise_reserve.hpp"

#include <bit>
#include <sodium.h>
#include <stdexcept>

namespace veil::protocols::dp {

noise_reserve::lane::lane(const discrete_gaussian& s,
                          const crypto::key32& take_key,
                          const crypto::key32& fill_key, std::size_t capacity)
    : sampler(s), take_engine(take_key), fill_engine(fill_key),
      ring(new std::int64_t[capacity]()) {}

noise_reserve::noise_reserve(const std::vector<discrete_gaussian>& samplers,
                             const std::vector<crypto::key32>& take_keys,
                             const std::vector<crypto::key32>& fill_keys,
                             std::size_t capacity)
    : capacity_(capacity) {
  if (take_keys.size() != samplers.size() ||
      fill_keys.size() != samplers.size())
    throw std::invalid_argument("noise_reserve: two keys per sampler");
  if (capacity < 2 || !std::has_single_bit(capacity))
    throw std::invalid_argument(
        "noise_reserve: the capacity must be a power of 2, at least 2");
  for (std::size_t i = 0; i < samplers.size(); ++i)
    lanes_.push_back(std::make_unique<lane>(samplers[i], take_keys[i],
                                            fill_keys[i], capacity));
}

noise_reserve::~noise_reserve() {
  for (auto& l : lanes_) {
    sodium_memzero(l->ring.get(), capacity_ * sizeof(std::int64_t));
    sodium_memzero(l->batch.data(), sizeof l->batch);
  }
}

std::int64_t noise_reserve::take(std::size_t lane_index) {
  auto& l = *lanes_.at(lane_index);
  const auto head = l.head.load(std::memory_order_relaxed);
  // Acquire: the filler's write of the slot happened before its tail.
  if (head == l.tail.load(std::memory_order_acquire)) {
    if (l.next == taker_batch) {
      for (auto& v : l.batch)
        v = l.sampler(l.take_engine);
      l.next = 0;
    }
    auto& own = l.batch[l.next++];
    const auto v = own;
    own = 0;
    return v;
  }
  auto& slot = l.ring[head & (capacity_ - 1)];
  const auto v = slot;
  slot = 0;
  // The slot is read and wiped before the filler may reuse it.
  l.head.store(head + 1, std::memory_order_seq_cst);
  if (filler_asleep_.load(std::memory_order_seq_cst) &&
      2 * (l.tail.load(std::memory_order_relaxed) - (head + 1)) <= capacity_) {
    std::lock_guard lock(mutex_);
    room_.notify_one();
  }
  return v;
}

bool noise_reserve::fill_one() {
  lane* emptiest = nullptr;
  std::size_t fewest = capacity_;
  for (auto& l : lanes_) {
    const auto held = l->tail.load(std::memory_order_relaxed) -
                      l->head.load(std::memory_order_seq_cst);
    if (held < fewest) {
      fewest = held;
      emptiest = l.get();
    }
  }
  if (!emptiest)
    return false;
  auto& l = *emptiest;
  const auto tail = l.tail.load(std::memory_order_relaxed);
  l.ring[tail & (capacity_ - 1)] = l.sampler(l.fill_engine);
  l.tail.store(tail + 1, std::memory_order_release);
  return true;
}

bool noise_reserve::has_room() const {
  for (const auto& l : lanes_)
    if (2 * (l->tail.load(std::memory_order_relaxed) -
             l->head.load(std::memory_order_seq_cst)) <=
        capacity_)
      return true;
  return false;
}

void noise_reserve::fill(std::stop_token stop) {
  while (!stop.stop_requested()) {
    while (!stop.stop_requested() && fill_one()) {
    }
    wait_for_room(stop);
  }
}

void noise_reserve::wait_for_room(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  filler_asleep_.store(true, std::memory_order_seq_cst);
  room_.wait(lock, stop, [this] { return has_room(); });
  filler_asleep_.store(false, std::memory_order_relaxed);
}

std::size_t noise_reserve::held(std::size_t lane_index) const {
  const auto& l = *lanes_.at(lane_index);
  return l.tail.load(std::memory_order_acquire) -
         l.head.load(std::memory_order_acquire);
}

} // namespace veil::protocols::dp
