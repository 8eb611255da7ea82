// A handler library for the `xffi` command's tests, built like a user's:
// xffi's headers only, registered by name when libxffi is in the process.
//   cli_counter  instantiate + execute stages, per-call-site state, a trait:
//                what `xffi inspect` shows for a handler with several
//                stages, and what `xffi run --repeat` keeps across runs
//   cli_fail     always fails, so `xffi run` reports a handler's error
//   cli_mark     y = x, and prints "cli_mark ran" to stderr: a side effect
//                the tests look for to tell whether a program ran at all
//   cli_threads  y = x + the threads of the pool handlers see: what
//                `xffi run --threads N` sets
//   cli_stall    returns a future nothing ever completes: what
//                `xffi run --custom-call-timeout` bounds
//   CliExported  exported by symbol only (never registered)
#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

#include "xffi/ffi.h"

namespace ffi = xffi::ffi;

namespace {

struct Counter {
  static ffi::TypeId id;
  float value = 0;
};
ffi::TypeId Counter::id = {};

ffi::ErrorOr<std::unique_ptr<Counter>> CounterInstantiate(float start) {
  auto counter = std::make_unique<Counter>();
  counter->value = start;
  return counter;
}

// out = x + the number of executions of this call site so far (from start).
ffi::Error CounterExecute(Counter* counter, ffi::Buffer<ffi::F32, 1> x,
                          ffi::ResultBuffer<ffi::F32, 1> out) {
  counter->value += 1;
  for (size_t i = 0; i < x.element_count(); ++i) {
    out->typed_data()[i] = x.typed_data()[i] + counter->value;
  }
  return ffi::Error::Success();
}

ffi::Error FailImpl(ffi::Buffer<ffi::F32, 1>, ffi::ResultBuffer<ffi::F32, 1>) {
  return ffi::Error::InvalidArgument("cli_fail refuses every input");
}

ffi::Error MarkImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  std::fputs("cli_mark ran\n", stderr);
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = x.typed_data()[i];
  }
  return ffi::Error::Success();
}

ffi::Error ThreadsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x,
                       ffi::ResultBuffer<ffi::F32> y) {
  const float threads = static_cast<float>(pool.num_threads());
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = x.typed_data()[i] + threads;
  }
  return ffi::Error::Success();
}

ffi::Error NegateImpl(ffi::Buffer<ffi::S32> x, ffi::ResultBuffer<ffi::S32> y) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = -x.typed_data()[i];
  }
  return ffi::Error::Success();
}

// The promises of stalled calls, kept so that their futures stay pending.
std::mutex stalled_mutex;
std::vector<ffi::Promise>* stalled = new std::vector<ffi::Promise>;

ffi::Future StallImpl(ffi::Buffer<ffi::F32>, ffi::ResultBuffer<ffi::F32>) {
  ffi::Promise promise;
  ffi::Future future(promise);
  std::lock_guard<std::mutex> lock(stalled_mutex);
  stalled->push_back(std::move(promise));
  return future;
}

XFFI_DEFINE_HANDLER(kCounterInstantiate, CounterInstantiate,
                    ffi::Ffi::BindInstantiate().Attr<float>("start"));
XFFI_DEFINE_HANDLER(kCounterExecute, CounterExecute,
                    ffi::Ffi::Bind()
                        .Ctx<ffi::State<Counter>>()
                        .Arg<ffi::Buffer<ffi::F32, 1>>()
                        .Ret<ffi::Buffer<ffi::F32, 1>>(),
                    {ffi::Traits::kCmdBufferCompatible});
XFFI_DEFINE_HANDLER(kFail, FailImpl,
                    ffi::Ffi::Bind()
                        .Arg<ffi::Buffer<ffi::F32, 1>>()
                        .Ret<ffi::Buffer<ffi::F32, 1>>());

XFFI_DEFINE_HANDLER(
    kMark, MarkImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

XFFI_DEFINE_HANDLER(kThreads, ThreadsImpl,
                    ffi::Ffi::Bind()
                        .Ctx<ffi::ThreadPool>()
                        .Arg<ffi::Buffer<ffi::F32>>()
                        .Ret<ffi::Buffer<ffi::F32>>());

XFFI_DEFINE_HANDLER(
    kStall, StallImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

XFFI_REGISTER_TYPE(ffi::RuntimeApi(), "cli_test.Counter", &Counter::id,
                   ffi::MakeTypeInfo<Counter>());
XFFI_REGISTER_HANDLER_WITH_RUNTIME(
    "cli_counter", "Host",
    XLA_FFI_Handler_Bundle{kCounterInstantiate, nullptr, nullptr,
                           kCounterExecute, nullptr},
    XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("cli_fail", "Host", kFail);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("cli_mark", "Host", kMark);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("cli_threads", "Host", kThreads);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("cli_stall", "Host", kStall);

}  // namespace

XFFI_DEFINE_HANDLER_SYMBOL(
    CliExported, NegateImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::S32>>().Ret<ffi::Buffer<ffi::S32>>());
