// xffi: the loops every elementwise kernel runs.
//
// A loop works in fixed blocks through a small local buffer: the compiler
// then knows the trip count of the inner loop and that the buffer aliases
// nothing, so it vectorises at -O2 (GCC's cheap cost model refuses loops that
// need a remainder or a runtime alias check), and a result may share its
// buffer with an operand.
#ifndef XFFI_SRC_CPU_ELEMENTWISE_LOOPS_H_
#define XFFI_SRC_CPU_ELEMENTWISE_LOOPS_H_

#include <cstdint>

#include "cpu/parallel.h"

namespace xffi::cpu {

inline constexpr int kBlock = 16;
// What one element of an elementwise op costs, roughly (nanoseconds): with
// kMinChunkNanos, loops under about 64k elements stay on the calling thread.
inline constexpr double kElementNanos = 0.3;

// Runs body(begin, end) over [0, n) in chunks of whole blocks, on the
// pool's threads and the caller's (cpu/parallel.h).
template <typename Body>
void ParallelFor(ThreadPool* pool, int64_t n, const Body& body) {
  ParallelFor(pool, n, kElementNanos, body, kBlock);
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
