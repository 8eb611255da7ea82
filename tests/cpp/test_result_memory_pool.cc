// The pool behind large xffi.Program results (python/src/result_memory_pool.h):
// reuse of freed blocks, the cache limit, realloc, and concurrent use.
#include "result_memory_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

namespace xffi::python {
namespace {

constexpr size_t kBig = ResultMemoryPool::kMinPooledBytes * 2;

TEST(ResultMemoryPool, AFreedBlockIsHandedBackForTheSameSize) {
  ResultMemoryPool pool(kBig * 4);
  void* first = pool.Allocate(kBig);
  ASSERT_NE(first, nullptr);
  std::memset(first, 1, kBig);
  pool.Free(first);
  EXPECT_EQ(pool.stats().cached_blocks, 1u);
  EXPECT_EQ(pool.stats().cached_bytes, kBig);
  // A size within the same page rounds to the same block.
  void* again = pool.Allocate(kBig - 100);
  EXPECT_EQ(again, first);
  EXPECT_EQ(pool.stats().reused, 1u);
  EXPECT_EQ(pool.stats().allocated, 1u);
  EXPECT_EQ(pool.stats().cached_blocks, 0u);
  pool.Free(again);
}

TEST(ResultMemoryPool, LiveBlocksNeverOverlap) {
  ResultMemoryPool pool(kBig * 8);
  std::vector<void*> live;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 4; ++i) live.push_back(pool.Allocate(kBig));
    std::set<void*> distinct(live.begin(), live.end());
    EXPECT_EQ(distinct.size(), live.size());
    for (void* p : live) {
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    }
    for (void* p : live) pool.Free(p);
    live.clear();
  }
  EXPECT_EQ(pool.stats().allocated, 4u);
  EXPECT_EQ(pool.stats().reused, 8u);
}

TEST(ResultMemoryPool, AnotherSizeIsNotServedFromTheCache) {
  ResultMemoryPool pool(kBig * 4);
  pool.Free(pool.Allocate(kBig));
  void* other = pool.Allocate(kBig * 2);
  EXPECT_EQ(pool.stats().reused, 0u);
  EXPECT_EQ(pool.stats().cached_blocks, 1u);
  pool.Free(other);
  EXPECT_EQ(pool.stats().cached_blocks, 2u);
}

TEST(ResultMemoryPool, TheCacheKeepsToItsLimitDroppingTheOldestFirst) {
  ResultMemoryPool pool(kBig * 2);
  void* a = pool.Allocate(kBig);
  void* b = pool.Allocate(kBig);
  void* c = pool.Allocate(kBig);
  pool.Free(a);
  pool.Free(b);
  pool.Free(c);  // evicts a
  EXPECT_EQ(pool.stats().cached_bytes, kBig * 2);
  EXPECT_EQ(pool.stats().cached_blocks, 2u);
  // Newest first: c, then b.
  void* first = pool.Allocate(kBig);
  void* second = pool.Allocate(kBig);
  EXPECT_EQ(first, c);
  EXPECT_EQ(second, b);
  pool.Free(first);
  pool.Free(second);
  EXPECT_EQ(pool.SetCacheLimit(0), kBig * 2);
  EXPECT_EQ(pool.stats().cached_blocks, 0u);
  EXPECT_EQ(pool.stats().cached_bytes, 0u);
  // With no room, a freed block goes straight back to the system.
  pool.Free(pool.Allocate(kBig));
  EXPECT_EQ(pool.stats().cached_blocks, 0u);
}

TEST(ResultMemoryPool, SmallBlocksAreNotCached) {
  ResultMemoryPool pool(kBig * 4);
  void* small = pool.Allocate(100);
  ASSERT_NE(small, nullptr);
  void* empty = pool.Allocate(0);
  ASSERT_NE(empty, nullptr);
  pool.Free(small);
  pool.Free(empty);
  pool.Free(nullptr);
  EXPECT_EQ(pool.stats().cached_blocks, 0u);
  EXPECT_EQ(pool.stats().allocated, 0u);
}

TEST(ResultMemoryPool, ReallocateKeepsTheContents) {
  ResultMemoryPool pool(kBig * 4);
  auto* bytes = static_cast<unsigned char*>(pool.Allocate(1000));
  for (int i = 0; i < 1000; ++i) bytes[i] = static_cast<unsigned char>(i);
  auto* grown = static_cast<unsigned char*>(pool.Reallocate(bytes, kBig));
  ASSERT_NE(grown, nullptr);
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(grown[i], static_cast<unsigned char>(i)) << i;
  grown[kBig - 1] = 7;
  auto* shrunk = static_cast<unsigned char*>(pool.Reallocate(grown, 10));
  ASSERT_NE(shrunk, nullptr);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(shrunk[i], static_cast<unsigned char>(i));
  EXPECT_EQ(pool.stats().cached_blocks, 1u);  // the grown block, freed
  pool.Free(shrunk);
}

TEST(ResultMemoryPool, ThreadsAllocatingAndFreeingAtOnceNeverShareABlock) {
  ResultMemoryPool pool(kBig * 3);
  constexpr int kThreads = 4, kRounds = 200;
  std::vector<std::thread> threads;
  std::vector<int> corrupted(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&pool, &corrupted, t] {
      for (int round = 0; round < kRounds; ++round) {
        const size_t size = kBig * static_cast<size_t>(1 + round % 2);
        auto* p = static_cast<unsigned char*>(pool.Allocate(size));
        if (p == nullptr) {
          ++corrupted[t];
          continue;
        }
        // Stamp the block and read the stamp back after the other
        // threads had a chance to (wrongly) get the same block.
        const unsigned char stamp = static_cast<unsigned char>(t * 31 + round);
        std::memset(p, stamp, 4096);
        p[size - 1] = stamp;
        std::this_thread::yield();
        for (size_t i = 0; i < 4096; i += 512)
          if (p[i] != stamp) ++corrupted[t];
        if (p[size - 1] != stamp) ++corrupted[t];
        pool.Free(p);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(corrupted[t], 0) << t;
  ResultMemoryPool::Stats stats = pool.stats();
  EXPECT_EQ(stats.reused + stats.allocated, uint64_t{kThreads} * kRounds);
  EXPECT_LE(stats.cached_bytes, kBig * 3);
}

}  // namespace
}  // namespace xffi::python
