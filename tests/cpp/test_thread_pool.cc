// The intra-op pool's fork-join loop (ThreadPool::ParallelFor) and the
// chunk sizing the CPU kernels use (cpu/parallel.h): every index runs
// exactly once, chunks are fixed by the chunk size alone, the caller takes
// part, nested loops run inline, loops from several threads at once and
// Schedule'd tasks mix, and small loops are not split.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "cpu/parallel.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi {
namespace {

TEST(ThreadPoolParallelFor, RunsEveryIndexOnceInTheGivenChunks) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 7, 1000, 100003}) {
      for (int64_t chunk : {1, 16, 999, 200000}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        std::mutex mutex;
        std::set<std::pair<int64_t, int64_t>> chunks;
        pool.ParallelFor(n, chunk, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) ++hits[static_cast<size_t>(i)];
          std::lock_guard<std::mutex> lock(mutex);
          chunks.insert({begin, end});
        });
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1)
              << "index " << i << " of " << n << ", chunk " << chunk
              << ", threads " << threads;
        // The chunks depend on `chunk` alone, never on the pool.
        std::set<std::pair<int64_t, int64_t>> want;
        for (int64_t begin = 0; begin < n; begin += chunk)
          want.insert({begin, std::min(n, begin + chunk)});
        EXPECT_EQ(chunks, want);
      }
    }
  }
}

TEST(ThreadPoolParallelFor, SpreadsAcrossThreadsIncludingTheCaller) {
  ThreadPool pool(4);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  std::atomic<int> arrived{0};
  std::atomic<bool> caller_arrived{false};
  const std::thread::id caller = std::this_thread::get_id();
  // The caller's chunks wait until a second thread has arrived, so the loop
  // cannot finish on the caller alone; the workers' chunks wait until the
  // caller has arrived, so (with more chunks than workers) the workers
  // cannot take every chunk while the caller is descheduled, as they could
  // on a loaded machine.
  pool.ParallelFor(4, 1, [&](int64_t, int64_t) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      seen.insert(std::this_thread::get_id());
    }
    ++arrived;
    if (std::this_thread::get_id() == caller) {
      caller_arrived = true;
      while (arrived.load() < 2) std::this_thread::yield();
    } else {
      while (!caller_arrived.load()) std::this_thread::yield();
    }
  });
  EXPECT_GE(seen.size(), 2u);
  EXPECT_LE(seen.size(), 4u);  // the caller and at most num_threads() - 1
  EXPECT_TRUE(seen.count(caller));
}

TEST(ThreadPoolParallelFor, NestedLoopsRunInline) {
  ThreadPool pool(3);
  std::atomic<int64_t> total{0};
  std::atomic<bool> nested_left_thread{false};
  pool.ParallelFor(8, 1, [&](int64_t, int64_t) {
    EXPECT_TRUE(ThreadPool::InParallelFor());
    const std::thread::id outer = std::this_thread::get_id();
    pool.ParallelFor(100, 7, [&](int64_t begin, int64_t end) {
      if (std::this_thread::get_id() != outer) nested_left_thread = true;
      total += end - begin;
    });
  });
  EXPECT_FALSE(ThreadPool::InParallelFor());
  EXPECT_FALSE(nested_left_thread.load());
  EXPECT_EQ(total.load(), 800);
}

TEST(ThreadPoolParallelFor, LoopsFromSeveralThreadsAndTasksMix) {
  ThreadPool pool(3);
  std::atomic<int64_t> sum{0};
  std::atomic<int> tasks{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 200; ++round) {
        pool.Schedule([&] { ++tasks; });
        pool.ParallelFor(1000, 10, [&](int64_t begin, int64_t end) {
          int64_t local = 0;
          for (int64_t i = begin; i < end; ++i) local += i;
          sum += local;
        });
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(sum.load(), int64_t{4} * 200 * (999 * 1000 / 2));
  // Tasks still queued run before the pool is destroyed; wait for them.
  while (tasks.load() < 800) std::this_thread::yield();
  EXPECT_EQ(tasks.load(), 800);
}

TEST(ThreadPoolParallelFor, ATaskOnAWorkerMayRunALoop) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{-1};
  pool.Schedule([&] {
    std::atomic<int64_t> count{0};
    pool.ParallelFor(10000, 100,
                     [&](int64_t begin, int64_t end) { count += end - begin; });
    total = count.load();
  });
  while (total.load() < 0) std::this_thread::yield();
  EXPECT_EQ(total.load(), 10000);
}

TEST(CpuParallel, SmallWorkIsOneChunkAndLargeWorkIsSplitAligned) {
  // 100 items of 1 ns: far below the minimum chunk; one chunk.
  EXPECT_EQ(cpu::ChunkSize(8, 100, 1.0), 100);
  // One thread: never split.
  EXPECT_EQ(cpu::ChunkSize(1, 1 << 24, 1.0), 1 << 24);
  const int64_t n = 1 << 24;
  const int64_t chunk = cpu::ChunkSize(4, n, 1.0, 16);
  EXPECT_LT(chunk, n);
  EXPECT_EQ(chunk % 16, 0);
  EXPECT_GE(static_cast<double>(chunk) * 1.0, cpu::kMinChunkNanos);
  // No more than kChunksPerThread chunks per thread.
  EXPECT_LE((n + chunk - 1) / chunk, 4 * cpu::kChunksPerThread);

  std::vector<int> out(static_cast<size_t>(n), 0);
  ThreadPool pool(4);
  cpu::ParallelFor(&pool, n, 1.0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[static_cast<size_t>(i)] += 1;
  });
  EXPECT_EQ(std::count(out.begin(), out.end(), 1), n);
  // A null pool runs everything on the caller, in one call.
  int calls = 0;
  cpu::ParallelFor(nullptr, n, 1.0, [&](int64_t begin, int64_t end) {
    ++calls;
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, n);
  });
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace xffi
