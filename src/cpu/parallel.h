// xffi: how the CPU kernels split their work across the intra-op pool.
//
// The pool's fork-join loop (ThreadPool::ParallelFor) runs chunks on the
// calling thread and the workers. What a split costs is waking a worker and
// handing it a chunk, some microseconds, so a loop is split only into
// chunks of at least kMinChunkNanos of work: small ops run on the calling
// thread alone. Kernels estimate their cost per item (nanoseconds on one
// core, roughly); the estimate only has to be right within a few times.
#ifndef XFFI_SRC_CPU_PARALLEL_H_
#define XFFI_SRC_CPU_PARALLEL_H_

#include <algorithm>
#include <cstdint>

#include "xffi/runtime/thread_pool.h"

namespace xffi::cpu {

inline constexpr double kMinChunkNanos = 10000;
// Chunks per thread when a loop is split: uneven chunks (or a thread the
// machine delays) then even out.
inline constexpr int64_t kChunksPerThread = 4;

// Items per chunk for `n` items of `item_nanos` each on `threads` threads,
// a multiple of `align` (except that the whole loop is one chunk when it is
// not worth splitting).
inline int64_t ChunkSize(int threads, int64_t n, double item_nanos,
                         int64_t align = 1) {
  const double total = static_cast<double>(n) * item_nanos;
  if (threads < 2 || n <= align || total < 2 * kMinChunkNanos) return n;
  int64_t chunks =
      std::min<int64_t>(static_cast<int64_t>(threads) * kChunksPerThread,
                        static_cast<int64_t>(total / kMinChunkNanos));
  chunks = std::max<int64_t>(chunks, 2);
  int64_t chunk = (n + chunks - 1) / chunks;
  chunk = (chunk + align - 1) / align * align;
  return std::max<int64_t>(chunk, 1);
}

// Runs body(begin, end) over chunks covering [0, n), on the pool when the
// work pays for it (pool may be null: the caller runs everything). The
// chunking may depend on the pool's size: a body whose result depends on
// it must pick fixed chunks itself (ThreadPool::ParallelFor).
template <typename Body>
void ParallelFor(ThreadPool* pool, int64_t n, double item_nanos,
                 const Body& body, int64_t align = 1) {
  if (n <= 0) return;
  if (pool == nullptr) {
    body(int64_t{0}, n);
    return;
  }
  pool->ParallelFor(n, ChunkSize(pool->num_threads(), n, item_nanos, align),
                    body);
}

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_PARALLEL_H_
