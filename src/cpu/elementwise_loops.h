// xffi: the loops every elementwise kernel runs.
//
// A loop works in fixed blocks through a small local buffer: the compiler
// then knows the trip count of the inner loop and that the buffer aliases
// nothing, so it vectorises at -O2 (GCC's cheap cost model refuses loops that
// need a remainder or a runtime alias check), and a result may share its
// buffer with an operand.
#ifndef XFFI_SRC_CPU_ELEMENTWISE_LOOPS_H_
#define XFFI_SRC_CPU_ELEMENTWISE_LOOPS_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "xffi/runtime/thread_pool.h"

namespace xffi::cpu {

inline constexpr int kBlock = 16;
// Below this many elements a kernel runs on the calling thread only.
inline constexpr int64_t kParallelThreshold = 64 * 1024;

// Runs body(begin, end) over [0, n) in chunks, on the pool's threads and the
// caller's. The caller claims chunks too and waits only for chunks already
// running, so it never waits on a task stuck in the queue behind it (the
// caller may itself be a pool thread).
// Every chunk but the last starts and ends at a multiple of `grain` (a
// fused loop's tile).
template <typename Body>
void ParallelFor(ThreadPool* pool, int64_t n, const Body& body,
                 int64_t grain = kBlock) {
  if (pool == nullptr || n < kParallelThreshold || pool->num_threads() < 2) {
    body(int64_t{0}, n);
    return;
  }
  struct Shared {
    std::atomic<int64_t> next{0};
    int64_t chunks = 0, chunk_size = 0, n = 0;
    std::mutex mutex;
    std::condition_variable done;
    int64_t finished = 0;
  };
  auto shared = std::make_shared<Shared>();
  const int64_t workers = pool->num_threads() + 1;
  shared->chunks = std::min<int64_t>(workers * 4, n / (kParallelThreshold / 4));
  shared->chunk_size = (n + shared->chunks - 1) / shared->chunks;
  shared->chunk_size = (shared->chunk_size + grain - 1) / grain * grain;
  shared->chunks = (n + shared->chunk_size - 1) / shared->chunk_size;
  shared->n = n;
  // Only the caller's frame outlives every claimed chunk, so tasks refer to
  // `body` only while a chunk they claimed is unfinished.
  auto drain = [shared, &body] {
    int64_t ran = 0;
    for (;;) {
      int64_t chunk = shared->next.fetch_add(1);
      if (chunk >= shared->chunks) break;
      int64_t begin = chunk * shared->chunk_size;
      body(begin, std::min(shared->n, begin + shared->chunk_size));
      ++ran;
    }
    if (ran > 0) {
      std::lock_guard<std::mutex> lock(shared->mutex);
      shared->finished += ran;
      if (shared->finished == shared->chunks) shared->done.notify_all();
    }
  };
  const int64_t helpers =
      std::min<int64_t>(pool->num_threads(), shared->chunks - 1);
  for (int64_t i = 0; i < helpers; ++i) pool->Schedule(drain);
  drain();
  std::unique_lock<std::mutex> lock(shared->mutex);
  shared->done.wait(lock, [&] { return shared->finished == shared->chunks; });
}

// out[i] = fn(in[i]) for i in [begin, end); Load/Store convert per traits.
template <typename In, typename Out, typename Fn>
void MapUnary(const typename In::Storage* in, typename Out::Storage* out,
              int64_t begin, int64_t end, const Fn& fn) {
  int64_t i = begin;
  for (; i + kBlock <= end; i += kBlock) {
    typename Out::Storage block[kBlock];
    for (int j = 0; j < kBlock; ++j)
      block[j] = Out::Store(fn(In::Load(in[i + j])));
    for (int j = 0; j < kBlock; ++j) out[i + j] = block[j];
  }
  for (; i < end; ++i) out[i] = Out::Store(fn(In::Load(in[i])));
}

// out[i] = fn(a[i], b[i]).
template <typename In, typename Out, typename Fn>
void MapBinary(const typename In::Storage* a, const typename In::Storage* b,
               typename Out::Storage* out, int64_t begin, int64_t end,
               const Fn& fn) {
  int64_t i = begin;
  for (; i + kBlock <= end; i += kBlock) {
    typename Out::Storage block[kBlock];
    for (int j = 0; j < kBlock; ++j)
      block[j] = Out::Store(fn(In::Load(a[i + j]), In::Load(b[i + j])));
    for (int j = 0; j < kBlock; ++j) out[i + j] = block[j];
  }
  for (; i < end; ++i) out[i] = Out::Store(fn(In::Load(a[i]), In::Load(b[i])));
}

// The element an operand contributes at index i: its only one when it is a
// scalar broadcast across the result.
template <bool kScalar, typename T>
inline const T& At(const T* data, int64_t i) {
  if constexpr (kScalar)
    return data[0];
  else
    return data[i];
}

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_ELEMENTWISE_LOOPS_H_
