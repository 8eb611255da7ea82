// Handlers the Python tests and bench/python_dispatch.py call through xffi's
// eager runtime and through JAX: a no-op, attribute decoding, a forward and
// backward pair for custom_vjp, a batch-aware add for every vmap_method, a
// stateful counter (instantiate + execute), a user-data reader, a
// rendezvous of two concurrent calls, an asynchronous call that never
// completes until the test releases it, a stateful one that computes late,
// one that throws, one that leaks (scripts/lsan_python.sh), a
// handler that reports the block it was called on (batch partitioning) and a
// legacy target with tokens.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xffi/custom_call_status.h"
#include "xffi/custom_call_target.h"
#include "xffi/ffi.h"

namespace ffi = xffi::ffi;

#define TEST_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

std::atomic<int64_t> execute_calls{0};

ffi::Error NoopImpl(ffi::AnyBuffer, ffi::AnyBuffer,
                    ffi::Result<ffi::AnyBuffer>) {
  return ffi::Error::Success();
}

// Where the argument's bytes are: tests compare it with the caller's array
// to prove it crossed without a copy.
ffi::Error AddressImpl(ffi::AnyBuffer x,
                       ffi::Result<ffi::BufferR0<ffi::U64>> where) {
  where->typed_data()[0] = reinterpret_cast<uintptr_t>(x.untyped_data());
  return ffi::Error::Success();
}

// y = x * factor + offset: a float and an int attribute, narrowed from
// Python's float and int.
ffi::Error ScaleImpl(ffi::Buffer<ffi::F32> x, float factor, int32_t offset,
                     ffi::ResultBuffer<ffi::F32> y) {
  ++execute_calls;
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] =
        x.typed_data()[i] * factor + static_cast<float>(offset);
  }
  return ffi::Error::Success();
}

// Writes what it decoded, so the tests read back every attribute kind:
// out = [flag, count, ratio, sum(ints), sum(weights), len(name),
//        nested.depth, nested.scale]
ffi::Error AttrSummaryImpl(bool flag, int64_t count, double ratio,
                           ffi::Span<const int64_t> ints,
                           ffi::Span<const float> weights,
                           std::string_view name, ffi::Dictionary nested,
                           ffi::ResultBuffer<ffi::F64, 1> out) {
  if (out->element_count() != 8) {
    return ffi::Error::InvalidArgument("attr_summary: out must hold 8 values");
  }
  double sum_ints = 0, sum_weights = 0;
  for (int64_t v : ints) sum_ints += static_cast<double>(v);
  for (float v : weights) sum_weights += v;
  auto depth = nested.get<int64_t>("depth");
  auto scale = nested.get<double>("scale");
  if (!depth.has_value() || !scale.has_value()) {
    return ffi::Error::InvalidArgument(
        "attr_summary: nested needs depth (int64) and scale (double)");
  }
  double* o = out->typed_data();
  o[0] = flag;
  o[1] = static_cast<double>(count);
  o[2] = ratio;
  o[3] = sum_ints;
  o[4] = sum_weights;
  o[5] = static_cast<double>(name.size());
  o[6] = static_cast<double>(*depth);
  o[7] = *scale;
  return ffi::Error::Success();
}

// RMS norm forward (y and the per-row scale the backward pass needs) and
// backward, the pairing JAX's custom_vjp tutorial uses.
ffi::Error RmsNormFwdImpl(float eps, ffi::Buffer<ffi::F32> x,
                          ffi::ResultBuffer<ffi::F32> y,
                          ffi::ResultBuffer<ffi::F32> scale) {
  auto dims = x.dimensions();
  if (dims.empty()) {
    return ffi::Error::InvalidArgument("rms_norm_fwd: x must have rank >= 1");
  }
  const int64_t n = dims.back();
  const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(x.element_count()) / n;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x.typed_data() + r * n;
    float sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += xr[i] * xr[i];
    float s = 1.0f / std::sqrt(sum / static_cast<float>(n) + eps);
    scale->typed_data()[r] = s;
    for (int64_t i = 0; i < n; ++i) y->typed_data()[r * n + i] = xr[i] * s;
  }
  return ffi::Error::Success();
}

// dx = s * ct - x * s^3 * mean(ct * x)
ffi::Error RmsNormBwdImpl(ffi::Buffer<ffi::F32> scale, ffi::Buffer<ffi::F32> x,
                          ffi::Buffer<ffi::F32> ct,
                          ffi::ResultBuffer<ffi::F32> dx) {
  auto dims = x.dimensions();
  if (dims.empty()) {
    return ffi::Error::InvalidArgument("rms_norm_bwd: x must have rank >= 1");
  }
  const int64_t n = dims.back();
  const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(x.element_count()) / n;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x.typed_data() + r * n;
    const float* cr = ct.typed_data() + r * n;
    const float s = scale.typed_data()[r];
    float dot = 0;
    for (int64_t i = 0; i < n; ++i) dot += cr[i] * xr[i];
    const float mean = dot / static_cast<float>(n);
    for (int64_t i = 0; i < n; ++i) {
      dx->typed_data()[r * n + i] = s * cr[i] - xr[i] * s * s * s * mean;
    }
  }
  return ffi::Error::Success();
}

// out = x + y, where y's leading dimension, if x has one more dimension than
// a row, may be x's (broadcast_all), 1 (expand_dims) or absent
// (legacy_vectorized): so one handler serves every vmap_method, and the
// tests see which layout each method hands it.
ffi::Error BatchAddImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y,
                        ffi::ResultBuffer<ffi::F32> out) {
  ++execute_calls;
  const size_t nx = x.element_count(), ny = y.element_count();
  if (ny == 0 || nx % ny != 0) {
    return ffi::Error::InvalidArgument(
        "batch_add: y's size must divide x's size");
  }
  for (size_t i = 0; i < nx; ++i) {
    out->typed_data()[i] = x.typed_data()[i] + y.typed_data()[i % ny];
  }
  return ffi::Error::Success();
}

struct Counter {
  static ffi::TypeId id;
  explicit Counter(int64_t start) : value(start) {}
  int64_t value;
};
ffi::TypeId Counter::id = {};

ffi::ErrorOr<std::unique_ptr<Counter>> MakeCounter(int64_t start) {
  if (start < 0) {
    return ffi::Unexpected(
        ffi::Error::InvalidArgument("counter: start must be >= 0"));
  }
  return std::make_unique<Counter>(start);
}

ffi::Error BumpCounter(Counter* counter,
                       ffi::Result<ffi::BufferR0<ffi::S64>> out) {
  *out->typed_data() = ++counter->value;
  return ffi::Error::Success();
}

struct Offset {
  static ffi::TypeId id;
  float value;
};
ffi::TypeId Offset::id = {};

ffi::Error AddUserOffsetImpl(Offset* offset, ffi::Buffer<ffi::F32> x,
                             ffi::ResultBuffer<ffi::F32> y) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = x.typed_data()[i] + offset->value;
  }
  return ffi::Error::Success();
}

// Returns once a second call is inside it at the same time (both return
// the number of the pair they formed), or fails after `timeout_ms`: a call
// made while another holds the GIL, or the executable, never meets it.
std::mutex rendezvous_mutex;
std::condition_variable rendezvous_met;
int64_t rendezvous_waiting = 0;
int64_t rendezvous_pairs = 0;

ffi::Error RendezvousImpl(int64_t timeout_ms,
                          ffi::Result<ffi::BufferR0<ffi::S64>> pair) {
  std::unique_lock<std::mutex> lock(rendezvous_mutex);
  int64_t pairs = rendezvous_pairs;
  if (++rendezvous_waiting == 2) {
    rendezvous_waiting = 0;
    ++rendezvous_pairs;
    rendezvous_met.notify_all();
  } else if (!rendezvous_met.wait_for(
                 lock, std::chrono::milliseconds(timeout_ms),
                 [&] { return rendezvous_pairs != pairs; })) {
    --rendezvous_waiting;
    return ffi::Error::Internal(
        "rendezvous: no second call arrived while this one waited");
  }
  *pair->typed_data() = pairs;
  return ffi::Error::Success();
}

// The argument's bytes, in the order the handler sees them, into the result
// (as many as both hold): what input_layouts/output_layouts change.
ffi::Error CopyBytesImpl(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y) {
  std::memcpy(y->untyped_data(), x.untyped_data(),
              std::min(x.size_bytes(), y->size_bytes()));
  return ffi::Error::Success();
}

// A token in, a token out, and the array between them copied: tokens are
// buffers of dtype TOKEN and rank 0, which the bindings check.
ffi::Error TokenCopyImpl(ffi::Token, ffi::AnyBuffer x, ffi::Result<ffi::Token>,
                         ffi::Result<ffi::AnyBuffer> y) {
  return CopyBytesImpl(x, y);
}

// An asynchronous call whose future completes only when the test calls
// python_test_release_stalled(): what a handler waiting on a peer that never
// answers looks like to the runtime.
std::mutex stalled_mutex;
std::vector<ffi::Promise> stalled;

ffi::Future StallImpl(ffi::Result<ffi::BufferR0<ffi::S64>>) {
  ffi::Promise promise;
  ffi::Future future(promise);
  std::lock_guard<std::mutex> lock(stalled_mutex);
  stalled.push_back(std::move(promise));
  return future;
}

// Numbers the handlers below record for a test to take.
class Recorded {
 public:
  // At once, so that calls running together do not interleave theirs.
  void Add(const std::vector<int64_t>& numbers) {
    std::lock_guard<std::mutex> lock(mutex_);
    numbers_.insert(numbers_.end(), numbers.begin(), numbers.end());
  }
  // Copies the numbers (oldest first, at most `capacity`) into `out`,
  // forgets them, and returns how many there were.
  int64_t Take(int64_t* out, int64_t capacity) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int64_t count = static_cast<int64_t>(numbers_.size());
    for (int64_t i = 0; i < count && i < capacity; ++i) {
      out[i] = numbers_[static_cast<size_t>(i)];
    }
    numbers_.clear();
    return count;
  }

 private:
  std::mutex mutex_;
  std::vector<int64_t> numbers_;
};

// y = x + 1, throwing for a negative x[0]: the binding turns the exception
// into the call's error.
ffi::Error ThrowsImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  if (x.element_count() > 0 && x.typed_data()[0] < 0) {
    throw std::runtime_error("negative input thrown");
  }
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = x.typed_data()[i] + 1;
  }
  return ffi::Error::Success();
}

// Allocates `bytes` and loses the pointer: scripts/lsan_python.sh calls it
// through ffi_call to prove that a leak under an xffi call is reported (its
// stack runs through libpython and xffi._core), not suppressed. The volatile
// store keeps the compiler from dropping the allocation.
void* volatile last_leaked = nullptr;
ffi::Error LeakImpl(int64_t bytes,
                    ffi::Result<ffi::BufferR0<ffi::S64>> leaked) {
  last_leaked = std::malloc(static_cast<size_t>(bytes));
  last_leaked = nullptr;
  leaked->typed_data()[0] = bytes;
  return ffi::Error::Success();
}

// python_test.late_copy: y = 2x + (the calls its state saw before). While
// python_test_hold_late(n) holds them, calls return a pending future and
// compute only when python_test_release_late() runs them, reading x and
// writing y through the call frame then: a handler that completes after
// the caller gave up, touching the frame, the buffers and the state late.
std::atomic<int64_t> late_states_alive{0};

struct LateState {
  static ffi::TypeId id;
  LateState() { ++late_states_alive; }
  ~LateState() { --late_states_alive; }
  LateState(const LateState&) = delete;
  LateState& operator=(const LateState&) = delete;
  float calls = 0;
};
ffi::TypeId LateState::id = {};

ffi::ErrorOr<std::unique_ptr<LateState>> MakeLateState() {
  return std::make_unique<LateState>();
}

struct LateCall {
  ffi::Buffer<ffi::F32> x;
  ffi::ResultBuffer<ffi::F32> y;
  LateState* state;
  ffi::Promise promise;
};

std::mutex late_mutex;
int64_t late_hold = 0;
std::vector<LateCall> late_calls;

void RunLateCopy(const ffi::Buffer<ffi::F32>& x, ffi::ResultBuffer<ffi::F32>& y,
                 LateState* state) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = 2 * x.typed_data()[i] + state->calls;
  }
  state->calls += 1;
}

ffi::Future LateCopyImpl(LateState* state, ffi::Buffer<ffi::F32> x,
                         ffi::ResultBuffer<ffi::F32> y) {
  ffi::Promise promise;
  ffi::Future future(promise);
  {
    std::lock_guard<std::mutex> lock(late_mutex);
    if (late_hold > 0) {
      --late_hold;
      late_calls.push_back({x, y, state, std::move(promise)});
      return future;
    }
  }
  RunLateCopy(x, y, state);
  promise.SetAvailable();
  return future;
}

// The leading dimension of every call, so a test sees the blocks a
// batch-partitioned call ran on; each element of the result is it too.
Recorded block_rows_seen;

ffi::Error BlockRowsImpl(ffi::AnyBuffer x,
                         ffi::Result<ffi::Buffer<ffi::S64>> rows) {
  if (x.dimensions().empty()) {
    return ffi::Error::InvalidArgument(
        "python_test.block_rows: x needs a leading dimension");
  }
  const int64_t n = x.dimensions()[0];
  block_rows_seen.Add({n});
  std::fill_n(rows->typed_data(), rows->element_count(), n);
  return ffi::Error::Success();
}

// The whole shape of every call's operand, for batch dimensions past the
// first: each shape as its rank then its dimensions. Each element of the
// result is the operand's element count.
Recorded block_shapes_seen;

ffi::Error BlockShapeImpl(ffi::AnyBuffer x,
                          ffi::Result<ffi::Buffer<ffi::S64>> sizes) {
  std::vector<int64_t> shape = {static_cast<int64_t>(x.dimensions().size())};
  shape.insert(shape.end(), x.dimensions().begin(), x.dimensions().end());
  block_shapes_seen.Add(shape);
  std::fill_n(sizes->typed_data(), sizes->element_count(),
              static_cast<int64_t>(x.element_count()));
  return ffi::Error::Success();
}

}  // namespace

// A legacy target (API version 3) with a token in and out, as JAX orders
// effects around one: in = {token, f32[n] x}, out = {f32[n] y, token}, n the
// opaque bytes as decimal text. y = x + 1 when the token operand's pointer
// is null, + 1000 when it is not, + 10 or + 10000 for the token result's
// slot, so a test sees what the target was given (XLA:CPU: 11000).
TEST_EXPORT void python_test_legacy_tokens(void* out, const void** in,
                                           const char* opaque,
                                           size_t opaque_len,
                                           XlaCustomCallStatus* status) {
  (void)status;
  const int64_t n =
      std::strtoll(std::string(opaque, opaque_len).c_str(), nullptr, 10);
  void** results = static_cast<void**>(out);
  const float* x = static_cast<const float*>(in[1]);
  float* y = static_cast<float*>(results[0]);
  const float shift = (in[0] == nullptr ? 1.0f : 1000.0f) +
                      (results[1] == nullptr ? 10.0f : 10000.0f);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] + shift;
}
XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET(python_test_legacy_tokens);

// Copies the leading dimensions python_test.block_rows saw (oldest first,
// at most `capacity`) into `out`, forgets them, and returns how many it saw.
TEST_EXPORT int64_t python_test_block_rows_seen(int64_t* out,
                                                int64_t capacity) {
  return block_rows_seen.Take(out, capacity);
}

XFFI_DEFINE_HANDLER_SYMBOL(
    BlockRows, BlockRowsImpl,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::Buffer<ffi::S64>>());

// Copies what python_test.block_shape recorded (see there; at most
// `capacity` numbers) into `out`, forgets it, and returns how many numbers
// there were.
TEST_EXPORT int64_t python_test_block_shapes_seen(int64_t* out,
                                                  int64_t capacity) {
  return block_shapes_seen.Take(out, capacity);
}

XFFI_DEFINE_HANDLER_SYMBOL(
    BlockShape, BlockShapeImpl,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::Buffer<ffi::S64>>());

XFFI_DEFINE_HANDLER_SYMBOL(
    CopyBytes, CopyBytesImpl,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());

XFFI_DEFINE_HANDLER_SYMBOL(TokenCopy, TokenCopyImpl,
                           ffi::Ffi::Bind()
                               .Arg<ffi::Token>()
                               .Arg<ffi::AnyBuffer>()
                               .Ret<ffi::Token>()
                               .Ret<ffi::AnyBuffer>());

XFFI_DEFINE_HANDLER_SYMBOL(Stall, StallImpl,
                           ffi::Ffi::Bind().Ret<ffi::BufferR0<ffi::S64>>());

XFFI_DEFINE_HANDLER_SYMBOL(Rendezvous, RendezvousImpl,
                           ffi::Ffi::Bind()
                               .Attr<int64_t>("timeout_ms")
                               .Ret<ffi::BufferR0<ffi::S64>>());

XFFI_DEFINE_HANDLER_SYMBOL(Noop, NoopImpl,
                           ffi::Ffi::Bind()
                               .Arg<ffi::AnyBuffer>()
                               .Arg<ffi::AnyBuffer>()
                               .Ret<ffi::AnyBuffer>());

XFFI_DEFINE_HANDLER_SYMBOL(
    Address, AddressImpl,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::BufferR0<ffi::U64>>());

XFFI_DEFINE_HANDLER_SYMBOL(Scale, ScaleImpl,
                           ffi::Ffi::Bind()
                               .Arg<ffi::Buffer<ffi::F32>>()
                               .Attr<float>("factor")
                               .Attr<int32_t>("offset")
                               .Ret<ffi::Buffer<ffi::F32>>());

XFFI_DEFINE_HANDLER_SYMBOL(AttrSummary, AttrSummaryImpl,
                           ffi::Ffi::Bind()
                               .Attr<bool>("flag")
                               .Attr<int64_t>("count")
                               .Attr<double>("ratio")
                               .Attr<ffi::Span<const int64_t>>("ints")
                               .Attr<ffi::Span<const float>>("weights")
                               .Attr<std::string_view>("name")
                               .Attr<ffi::Dictionary>("nested")
                               .Ret<ffi::Buffer<ffi::F64, 1>>());

XFFI_DEFINE_HANDLER_SYMBOL(RmsNormFwd, RmsNormFwdImpl,
                           ffi::Ffi::Bind()
                               .Attr<float>("eps")
                               .Arg<ffi::Buffer<ffi::F32>>()
                               .Ret<ffi::Buffer<ffi::F32>>()
                               .Ret<ffi::Buffer<ffi::F32>>());

XFFI_DEFINE_HANDLER_SYMBOL(RmsNormBwd, RmsNormBwdImpl,
                           ffi::Ffi::Bind()
                               .Arg<ffi::Buffer<ffi::F32>>()
                               .Arg<ffi::Buffer<ffi::F32>>()
                               .Arg<ffi::Buffer<ffi::F32>>()
                               .Ret<ffi::Buffer<ffi::F32>>());

XFFI_DEFINE_HANDLER_SYMBOL(BatchAdd, BatchAddImpl,
                           ffi::Ffi::Bind()
                               .Arg<ffi::Buffer<ffi::F32>>()
                               .Arg<ffi::Buffer<ffi::F32>>()
                               .Ret<ffi::Buffer<ffi::F32>>());

XFFI_DEFINE_HANDLER_SYMBOL(CounterInstantiate, MakeCounter,
                           ffi::Ffi::BindInstantiate().Attr<int64_t>("start"));

XFFI_DEFINE_HANDLER_SYMBOL(
    CounterExecute, BumpCounter,
    ffi::Ffi::Bind().Ctx<ffi::State<Counter>>().Ret<ffi::BufferR0<ffi::S64>>());

XFFI_DEFINE_HANDLER_SYMBOL(
    Throws, ThrowsImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

XFFI_DEFINE_HANDLER_SYMBOL(
    Leak, LeakImpl,
    ffi::Ffi::Bind().Attr<int64_t>("bytes").Ret<ffi::BufferR0<ffi::S64>>());

XFFI_DEFINE_HANDLER_SYMBOL(LateCopyInstantiate, MakeLateState,
                           ffi::Ffi::BindInstantiate());

XFFI_DEFINE_HANDLER_SYMBOL(LateCopyExecute, LateCopyImpl,
                           ffi::Ffi::Bind()
                               .Ctx<ffi::State<LateState>>()
                               .Arg<ffi::Buffer<ffi::F32>>()
                               .Ret<ffi::Buffer<ffi::F32>>());

XFFI_DEFINE_HANDLER_SYMBOL(AddUserOffset, AddUserOffsetImpl,
                           ffi::Ffi::Bind()
                               .Ctx<ffi::UserData<Offset>>()
                               .Arg<ffi::Buffer<ffi::F32>>()
                               .Ret<ffi::Buffer<ffi::F32>>());

// Types before the handlers that use them: the registration handshake reads
// Counter::id, so it must be assigned first (initialisers run in order).
XFFI_REGISTER_TYPE(::xffi::ffi::RuntimeApi(), "python_test.Counter",
                   &Counter::id, ffi::MakeTypeInfo<Counter>());
XFFI_REGISTER_TYPE(::xffi::ffi::RuntimeApi(), "python_test.Offset", &Offset::id,
                   ffi::MakeTypeInfo<Offset>());
XFFI_REGISTER_TYPE(::xffi::ffi::RuntimeApi(), "python_test.LateState",
                   &LateState::id, ffi::MakeTypeInfo<LateState>());

XFFI_REGISTER_HANDLER_WITH_RUNTIME("python_test.scale", "Host", Scale);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("python_test.block_rows", "Host", BlockRows);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("python_test.block_shape", "Host",
                                   BlockShape);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("python_test.rms_norm_fwd", "Host",
                                   RmsNormFwd);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("python_test.rms_norm_bwd", "Host",
                                   RmsNormBwd);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("python_test.rendezvous", "Host",
                                   Rendezvous);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("python_test.counter", "Host",
                                   XLA_FFI_Handler_Bundle{
                                       CounterInstantiate, nullptr, nullptr,
                                       CounterExecute, nullptr});
XFFI_REGISTER_HANDLER_WITH_RUNTIME("python_test.throws", "Host", Throws);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("python_test.late_copy", "Host",
                                   XLA_FFI_Handler_Bundle{
                                       LateCopyInstantiate, nullptr, nullptr,
                                       LateCopyExecute, nullptr});

// How many times Scale and BatchAdd executed, so tests can tell one batched
// call from a loop of calls.
TEST_EXPORT int64_t python_test_execute_calls() { return execute_calls.load(); }

// Completes (with an error, the caller having given up) every call of
// python_test.stall still pending; returns how many there were.
TEST_EXPORT int64_t python_test_release_stalled() {
  std::vector<ffi::Promise> pending;
  {
    std::lock_guard<std::mutex> lock(stalled_mutex);
    pending.swap(stalled);
  }
  for (ffi::Promise& promise : pending) {
    promise.SetError(ffi::Error::Cancelled("released by the test"));
  }
  return static_cast<int64_t>(pending.size());
}

// The next `n` calls of python_test.late_copy wait for
// python_test_release_late.
TEST_EXPORT void python_test_hold_late(int64_t n) {
  std::lock_guard<std::mutex> lock(late_mutex);
  late_hold = n;
}

// Runs every held call of python_test.late_copy (reading and writing
// through its frame now) and completes it; returns how many there were.
TEST_EXPORT int64_t python_test_release_late() {
  std::vector<LateCall> held;
  {
    std::lock_guard<std::mutex> lock(late_mutex);
    held.swap(late_calls);
  }
  for (LateCall& call : held) {
    RunLateCopy(call.x, call.y, call.state);
    call.promise.SetAvailable();
  }
  return static_cast<int64_t>(held.size());
}

TEST_EXPORT int64_t python_test_late_states_alive() {
  return late_states_alive.load();
}

// User data for AddUserOffset, owned by whoever inserts it (deleted with
// the type's registered deleter when an execution context adopts it).
TEST_EXPORT void* python_test_new_offset(float value) {
  return new Offset{value};
}
TEST_EXPORT int64_t python_test_offset_type_id() { return Offset::id.type_id; }
