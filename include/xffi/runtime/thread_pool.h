// xffi: the CPU thread pool handlers reach through ThreadPool_Schedule.
#ifndef XFFI_RUNTIME_THREAD_POOL_H_
#define XFFI_RUNTIME_THREAD_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace xffi {

// A fixed set of worker threads draining one FIFO queue. The destructor runs
// every task already scheduled before joining, so a handler's work is never
// silently dropped.
class ThreadPool {
 public:
  // num_threads < 1 is treated as 1.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> task);
  int num_threads() const { return static_cast<int>(workers_.size()); }

 private:
  void WorkerLoop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace xffi

#endif  // XFFI_RUNTIME_THREAD_POOL_H_
