// xffi: the CPU thread pool handlers reach through ThreadPool_Schedule, and
// the fork-join loop the CPU kernels split their work with.
#ifndef XFFI_RUNTIME_THREAD_POOL_H_
#define XFFI_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
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

  // Fork-join: calls body(begin, end) for the chunks [0, chunk),
  // [chunk, 2 chunk), ... covering [0, n), and returns when all have run.
  // They run on the calling thread and up to num_threads() - 1 workers, so
  // num_threads() threads in all work on one loop. Chunks depend on `chunk`
  // only, never on how many threads take part, so a body whose result
  // depends on the chunking stays deterministic. Runs every chunk on the
  // calling thread when there is one chunk, when the caller is itself inside
  // a ParallelFor body (nested loops do not fan out again), or when another
  // thread's loop holds the pool. Nothing is allocated.
  template <typename Body>
  void ParallelFor(int64_t n, int64_t chunk, const Body& body) {
    if (n <= 0) return;
    if (chunk < 1) chunk = 1;
    if (n <= chunk || num_threads() < 2 || InParallelFor()) {
      RunInline(n, chunk, body);
      return;
    }
    RunForkJoin(
        n, chunk,
        [](const void* erased, int64_t begin, int64_t end) {
          (*static_cast<const Body*>(erased))(begin, end);
        },
        &body);
  }

  // Whether the calling thread is running a ParallelFor body.
  static bool InParallelFor();

 private:
  using ChunkFn = void (*)(const void* body, int64_t begin, int64_t end);

  // One fork-join loop; lives in the pool, so a worker that wakes late
  // never touches a loop that has returned.
  struct Loop {
    ChunkFn fn = nullptr;
    const void* body = nullptr;
    int64_t n = 0, chunk = 0, chunks = 0;
    std::atomic<int64_t> next{0};
    // Workers that may still join (guarded by mutex_) and that are running
    // chunks of this loop now.
    int wanted = 0;
    std::atomic<int> running{0};
  };

  template <typename Body>
  static void RunInline(int64_t n, int64_t chunk, const Body& body) {
    for (int64_t begin = 0; begin < n; begin += chunk)
      body(begin, begin + chunk < n ? begin + chunk : n);
  }
  void RunForkJoin(int64_t n, int64_t chunk, ChunkFn fn, const void* body);
  static void RunChunks(Loop& loop);
  void WorkerLoop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::atomic<bool> loop_busy_{false};
  Loop loop_;
  std::vector<std::thread> workers_;
};

}  // namespace xffi

#endif  // XFFI_RUNTIME_THREAD_POOL_H_
