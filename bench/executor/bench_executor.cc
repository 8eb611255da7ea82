// The CPU executor's cost per execution, on programs whose ops do next to no
// work (f32[4] operands), so what is left is thunk dispatch, address
// patching, loop control and custom-call dispatch:
//
//   negate_x100   100 chained negates
//   ffi_x100      100 chained typed-FFI custom calls (a 4-float copy each)
//   legacy_x100   100 chained legacy (api_version 2) custom calls
//   while_x100    a while loop of 100 iterations (counter + negate)
//
// For each: nanoseconds per ExecuteRaw (buffers allocated once) and per
// Execute (literals in, literals out), the median of 5 batches.
//
//   bench_executor [--min-time SECONDS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "xffi/custom_call_status.h"
#include "xffi/ffi.h"
#include "xffi/program/builder.h"
#include "xffi/program/executable.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace {

XFFI_DEFINE_HANDLER(
    kCopy4,
    [](ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y) {
      std::memcpy(y->untyped_data(), x.untyped_data(), 4 * sizeof(float));
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());

void LegacyCopy4(void* out, const void** in, XlaCustomCallStatus*) {
  std::memcpy(out, in[0], 4 * sizeof(float));
}

using Clock = std::chrono::steady_clock;
using xffi::Builder;
using xffi::ElementType;
using xffi::Literal;
using xffi::Op;
using xffi::Shape;

Shape F32x4() { return Shape::Array(ElementType::kF32, {4}); }

xffi::StatusOr<xffi::Module> Chain(const std::function<Op(Builder&, Op)>& op) {
  Builder b("chain");
  Op v = b.Parameter(0, F32x4(), "x");
  for (int i = 0; i < 100; ++i) v = op(b, v);
  return b.Build(v);
}

xffi::StatusOr<xffi::Module> WhileLoop() {
  Builder b("loop");
  Shape state = Shape::Tuple({Shape::Scalar(ElementType::kS32), F32x4()});
  auto cond_builder = b.CreateSubBuilder("cond");
  Op s = cond_builder->Parameter(0, state, "s");
  xffi::Computation* cond = cond_builder->BuildSubcomputation(
      cond_builder->Compare(cond_builder->GetTupleElement(s, 0),
                            cond_builder->ConstantScalar<int32_t>(100),
                            xffi::ComparisonDirection::kLt));
  auto body_builder = b.CreateSubBuilder("body");
  Op t = body_builder->Parameter(0, state, "s");
  xffi::Computation* body =
      body_builder->BuildSubcomputation(body_builder->Tuple(
          {body_builder->Add(body_builder->GetTupleElement(t, 0),
                             body_builder->ConstantScalar<int32_t>(1)),
           body_builder->Unary(xffi::Opcode::kNegate,
                               body_builder->GetTupleElement(t, 1))}));
  Op x = b.Parameter(0, F32x4(), "x");
  Op loop = b.While(cond, body, b.Tuple({b.ConstantScalar<int32_t>(0), x}));
  return b.Build(b.GetTupleElement(loop, 1));
}

// Median over 5 batches of the mean seconds per call of `run`.
double Median(const std::function<bool()>& run, double min_time) {
  for (int i = 0; i < 100; ++i)
    if (!run()) return -1;
  std::vector<double> batches;
  for (int batch = 0; batch < 5; ++batch) {
    int64_t runs = 0;
    Clock::time_point start = Clock::now();
    double elapsed = 0;
    do {
      for (int i = 0; i < 64; ++i)
        if (!run()) return -1;
      runs += 64;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < min_time / 5);
    batches.push_back(elapsed / static_cast<double>(runs));
  }
  std::sort(batches.begin(), batches.end());
  return batches[2];
}

}  // namespace

int main(int argc, char** argv) {
  double min_time = 0.5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--min-time") == 0 && i + 1 < argc) {
      min_time = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_executor [--min-time SECONDS]\n");
      return 2;
    }
  }
  if (!xffi::RegisterHandler(
           "bench.copy4", "Host",
           XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, kCopy4, nullptr})
           .ok() ||
      !xffi::RegisterLegacyTarget("bench.legacy_copy4",
                                  reinterpret_cast<void*>(&LegacyCopy4), "Host",
                                  xffi::LegacyApiVersion::kStatusReturning)
           .ok()) {
    std::fprintf(stderr, "could not register the targets\n");
    return 1;
  }
  struct Case {
    const char* name;
    xffi::StatusOr<xffi::Module> module;
  };
  std::vector<Case> cases;
  cases.push_back({"negate_x100", Chain([](Builder& b, Op v) {
                     return b.Unary(xffi::Opcode::kNegate, v);
                   })});
  cases.push_back({"ffi_x100", Chain([](Builder& b, Op v) {
                     return b.CustomCall("bench.copy4", {v}, F32x4(), "", false,
                                         {}, nullptr,
                                         xffi::CustomCallSchedule::kNone,
                                         xffi::CustomCallApiVersion::kTypedFfi);
                   })});
  cases.push_back({"legacy_x100", Chain([](Builder& b, Op v) {
                     return b.CustomCall(
                         "bench.legacy_copy4", {v}, F32x4(), "", false, {},
                         nullptr, xffi::CustomCallSchedule::kNone,
                         xffi::CustomCallApiVersion::kStatusReturning);
                   })});
  cases.push_back({"while_x100", WhileLoop()});

  std::printf("%-12s %14s %14s\n", "case", "raw ns/run", "literal ns/run");
  int failures = 0;
  for (Case& c : cases) {
    if (!c.module.ok()) {
      std::printf("%-12s build failed: %s\n", c.name,
                  c.module.status().message().c_str());
      ++failures;
      continue;
    }
    xffi::CompileOptions options;
    options.intra_op_threads = 1;
    auto exe = xffi::Compile(std::move(*c.module), options);
    if (!exe.ok()) {
      std::printf("%-12s compile failed: %s\n", c.name,
                  exe.status().message().c_str());
      ++failures;
      continue;
    }
    std::vector<Literal> arguments;
    arguments.push_back(Literal::Vector<float>({1, 2, 3, 4}));
    float out[4];
    std::vector<const void*> raw_arguments = {arguments[0].data()};
    std::vector<void*> raw_results = {out};
    xffi::Executable& executable = **exe;
    double raw = Median(
        [&] { return executable.ExecuteRaw(raw_arguments, raw_results).ok(); },
        min_time);
    double literal =
        Median([&] { return executable.Execute(arguments).ok(); }, min_time);
    std::printf("%-12s %14.1f %14.1f\n", c.name, raw * 1e9, literal * 1e9);
  }
  return failures == 0 ? 0 : 1;
}
