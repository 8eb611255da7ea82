// Future and Promise: how a handler completes asynchronously. A handler that
// returns a Future gets an XLA_FFI_Future from the runtime, which completes
// when the promise behind the Future does.
#ifndef XFFI_FFI_FUTURE_H_
#define XFFI_FFI_FUTURE_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "xffi/ffi/error.h"

namespace xffi::ffi {

class Promise;
class CountDownPromise;

class Future {
 public:
  explicit Future(const Promise& promise);
  explicit Future(const CountDownPromise& promise);

  Future(Future&&) = default;
  Future& operator=(Future&&) = default;

  // Runs `f(const std::optional<Error>&)` once the promise completes: now, on
  // this thread, if it already has; otherwise on the completing thread.
  template <typename F>
  void OnReady(F&& f);

  bool IsReady() const;

 private:
  friend class Promise;

  using Waiter = std::function<void(const std::optional<Error>&)>;

  struct Shared {
    std::mutex mutex;
    bool done = false;
    std::optional<Error> error;
    std::vector<Waiter> waiters;
  };

  std::shared_ptr<Shared> shared_;
};

class Promise {
 public:
  Promise() : shared_(std::make_shared<Future::Shared>()) {}

  void SetAvailable() { Complete(std::nullopt); }
  void SetError(Error error) {
    assert(error.failure() && "SetError needs an error");
    Complete(std::move(error));
  }

 private:
  friend class Future;

  void Complete(std::optional<Error> error) {
    std::vector<Future::Waiter> waiters;
    {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      assert(!shared_->done && "a promise completes once");
      shared_->done = true;
      shared_->error = std::move(error);
      waiters.swap(shared_->waiters);
    }
    // Completion is final, so waiters read `error` without the lock.
    for (auto& waiter : waiters) waiter(shared_->error);
  }

  std::shared_ptr<Future::Shared> shared_;
};

// Completes its promise after `count` CountDown()s; the first error reported
// is the one the promise completes with.
class CountDownPromise {
 public:
  CountDownPromise() = default;
  CountDownPromise(Promise promise, int64_t count)
      : state_(std::make_shared<State>(std::move(promise), count)) {
    assert(count > 0 && "count must be positive");
  }
  explicit CountDownPromise(int64_t count)
      : CountDownPromise(Promise(), count) {}

  // Returns true for the call that completed the promise.
  bool CountDown(size_t count, const Error& error = Error::Success()) {
    if (XFFI_UNLIKELY(error.failure())) {
      std::lock_guard<std::mutex> lock(state_->mutex);
      if (!state_->error) state_->error = error;
    }
    int64_t before = state_->count.fetch_sub(static_cast<int64_t>(count),
                                             std::memory_order_acq_rel);
    assert(before >= static_cast<int64_t>(count) && "counted down too far");
    if (before != static_cast<int64_t>(count)) return false;
    std::optional<Error> first_error;
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      first_error = std::move(state_->error);
    }
    if (first_error) {
      state_->promise.SetError(std::move(*first_error));
    } else {
      state_->promise.SetAvailable();
    }
    return true;
  }
  bool CountDown(const Error& error = Error::Success()) {
    return CountDown(1, error);
  }

 private:
  friend class Future;

  struct State {
    State(Promise p, int64_t n) : promise(std::move(p)), count(n) {}
    Promise promise;
    std::atomic<int64_t> count;
    std::mutex mutex;
    std::optional<Error> error;
  };

  std::shared_ptr<State> state_;
};

inline Future::Future(const Promise& promise) : shared_(promise.shared_) {}
inline Future::Future(const CountDownPromise& promise)
    : Future(promise.state_->promise) {}

template <typename F>
void Future::OnReady(F&& f) {
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (!shared_->done) {
      shared_->waiters.emplace_back(std::forward<F>(f));
      return;
    }
  }
  f(shared_->error);
}

inline bool Future::IsReady() const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  return shared_->done;
}

}  // namespace xffi::ffi

#endif  // XFFI_FFI_FUTURE_H_
