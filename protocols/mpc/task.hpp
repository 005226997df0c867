#pragma once

// A lazily started coroutine returning T, awaitable from another task: how
// a party's side of an MPC protocol is written. The code reads as the
// protocol does (share, multiply, compare, open), and every opening
// suspends the whole chain of tasks at party::exchange() until whoever
// drives the party — a test's local_network or an actor — has delivered
// the peers' words. The suspended chain is the party's state: a state
// machine without I/O, as every protocol role in Veil is.
//
// Awaiting a task starts it and resumes the awaiter when it finishes
// (symmetric transfer: no stack grows with the depth of the nesting); an
// exception in a task is rethrown in its awaiter.

#include <coroutine>
#include <exception>
#include <optional>
#include <utility>

namespace veil::protocols::mpc {

template <class T>
class task;

namespace detail {

struct promise_base {
  std::coroutine_handle<> continuation;
  std::exception_ptr error;

  std::suspend_always initial_suspend() noexcept { return {}; }
  struct final_awaiter {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      auto next = h.promise().continuation;
      return next ? next : std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  final_awaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() { error = std::current_exception(); }
};

template <class T>
struct promise : promise_base {
  std::optional<T> value;
  task<T> get_return_object();
  void return_value(T v) { value = std::move(v); }
  T take() {
    if (error)
      std::rethrow_exception(error);
    return std::move(*value);
  }
};

template <>
struct promise<void> : promise_base {
  task<void> get_return_object();
  void return_void() {}
  void take() {
    if (error)
      std::rethrow_exception(error);
  }
};

} // namespace detail

template <class T = void>
class [[nodiscard]] task {
public:
  using promise_type = detail::promise<T>;
  using handle = std::coroutine_handle<promise_type>;

  task() = default;
  explicit task(handle h) : h_(h) {}
  task(task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  task& operator=(task&& o) noexcept {
    if (this != &o) {
      if (h_)
        h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  ~task() {
    if (h_)
      h_.destroy();
  }

  // Awaited by another task.
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) {
    h_.promise().continuation = awaiter;
    return h_;
  }
  T await_resume() { return h_.promise().take(); }

  // Driven from outside (the top-level task of a party).
  /// Runs until the task suspends at an exchange or finishes.
  void start() { h_.resume(); }
  bool done() const { return h_.done(); }
  /// The result, or the exception the task ended with. Only once done().
  T result() { return h_.promise().take(); }

private:
  handle h_;
};

namespace detail {
template <class T>
task<T> promise<T>::get_return_object() {
  return task<T>(std::coroutine_handle<promise<T>>::from_promise(*this));
}
inline task<void> promise<void>::get_return_object() {
  return task<void>(std::coroutine_handle<promise<void>>::from_promise(*this));
}
} // namespace detail

} // namespace veil::protocols::mpc
