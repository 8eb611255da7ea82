// What both halves of the dispatch benchmark share: the attribute types and
// the handler bodies, written once as templates over the binding library's
// own types, so that xffi's header and XLA's header bind exactly the same
// code and the benchmark measures only decoding and dispatch. Includes
// neither FFI header: handlers_xla.cc and handlers_xffi.cc add their own.
#ifndef XFFI_BENCH_DISPATCH_CASES_H_
#define XFFI_BENCH_DISPATCH_CASES_H_

#include <cstdint>

#include <benchmark/benchmark.h>

// Every case: (name, what the frame holds). Each handler TU defines the
// extern "C" handler <Prefix><name> for each.
#define XFFI_BENCH_CASES(X) \
  X(AnyBufferX1)            \
  X(AnyBufferX4)            \
  X(AnyBufferX8)            \
  X(BufferF32R2X1)          \
  X(BufferF32R2X4)          \
  X(BufferF32R2X8)          \
  X(ScalarAttrsX16)         \
  X(StructAttrsX4)          \
  X(EnumAttrsX5)

namespace bench {

// A struct of four int32 decoded from a dictionary {a, b, c, d}.
struct I32x4 {
  int32_t a, b, c, d;
};

enum class Level : int32_t { kLow = 0, kMid = 1, kHigh = 2 };

// Each body touches every decoded value once, so neither compiler can drop
// the decoding, and does nothing else.
template <typename Error, typename... Buffers>
Error BufferBody(Buffers... buffers) {
  (benchmark::DoNotOptimize(buffers.untyped_data()), ...);
  return Error::Success();
}

template <typename Error>
Error ScalarBody(int32_t i0, int32_t i1, int32_t i2, int32_t i3, int64_t l0,
                 int64_t l1, int64_t l2, int64_t l3, float f0, float f1,
                 float f2, float f3, double d0, double d1, double d2,
                 double d3) {
  benchmark::DoNotOptimize(i0 + i1 + i2 + i3);
  benchmark::DoNotOptimize(l0 + l1 + l2 + l3);
  benchmark::DoNotOptimize(f0 + f1 + f2 + f3);
  benchmark::DoNotOptimize(d0 + d1 + d2 + d3);
  return Error::Success();
}

template <typename Error>
Error StructBody(I32x4 t0, I32x4 t1, I32x4 t2, I32x4 t3) {
  benchmark::DoNotOptimize(t0.a + t1.b + t2.c + t3.d);
  benchmark::DoNotOptimize(t0.d + t1.c + t2.b + t3.a);
  return Error::Success();
}

template <typename Error>
Error EnumBody(Level e0, Level e1, Level e2, Level e3, Level e4) {
  benchmark::DoNotOptimize(static_cast<int32_t>(e0) + static_cast<int32_t>(e1) +
                           static_cast<int32_t>(e2) + static_cast<int32_t>(e3) +
                           static_cast<int32_t>(e4));
  return Error::Success();
}

}  // namespace bench

#endif  // XFFI_BENCH_DISPATCH_CASES_H_
