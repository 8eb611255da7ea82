// Shared by the compiler and executor tests: hand-made IR in a few lines,
// and a small kernel set (add, subtract, multiply, maximum, negate, compare,
// full reduce with a region) so the tests do not depend on the kernel
// library. Ops outside the set fall back to cpu::MakeKernel. HLO text
// compiled and run in one call.
#ifndef XFFI_TESTS_CPP_EXECUTOR_TEST_UTIL_H_
#define XFFI_TESTS_CPP_EXECUTOR_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/compiler.h"
#include "cpu/cpu_backend.h"
#include "cpu/kernel.h"
#include "xffi/program/executable.h"
#include "xffi/program/ir.h"
#include "xffi/program/text.h"

namespace xffi::test {

inline Shape F32(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kF32, std::move(dims));
}
inline Shape S32(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kS32, std::move(dims));
}
inline Shape Pred() { return Shape::Scalar(ElementType::kPred); }

// Builds computations by hand; instructions get names "<opcode>.<n>" and a
// location "test.hlo:<n>:1" so messages are predictable.
class IrBuilder {
 public:
  explicit IrBuilder(Computation* computation) : c_(computation) {}

  Instruction* Param(int64_t number, const Shape& shape,
                     std::string name = "") {
    Instruction* op = Emit(Opcode::kParameter, shape, {}, std::move(name));
    op->parameter_number = number;
    return op;
  }
  Instruction* Constant(Literal literal) {
    Instruction* op = Emit(Opcode::kConstant, literal.shape(), {});
    op->literal = std::move(literal);
    return op;
  }
  Instruction* Op(Opcode opcode, const Shape& shape,
                  std::vector<Instruction*> operands, std::string name = "") {
    return Emit(opcode, shape, std::move(operands), std::move(name));
  }
  Instruction* Binary(Opcode opcode, Instruction* a, Instruction* b) {
    return Emit(opcode, a->shape(), {a, b});
  }
  Instruction* Compare(Instruction* a, Instruction* b,
                       ComparisonDirection direction) {
    Instruction* op =
        Emit(Opcode::kCompare,
             Shape::Array(ElementType::kPred, a->shape().dims()), {a, b});
    op->comparison_direction = direction;
    return op;
  }
  Instruction* Tuple(std::vector<Instruction*> elements) {
    std::vector<Shape> shapes;
    for (Instruction* e : elements) shapes.push_back(e->shape());
    return Emit(Opcode::kTuple, Shape::Tuple(shapes), std::move(elements));
  }
  Instruction* Gte(Instruction* tuple, int64_t index) {
    Instruction* op = Emit(Opcode::kGetTupleElement,
                           tuple->shape().tuple_shape(index), {tuple});
    op->tuple_index = index;
    return op;
  }
  Instruction* CustomCall(
      std::string target, std::vector<Instruction*> operands,
      const Shape& shape,
      CustomCallApiVersion version = CustomCallApiVersion::kTypedFfi,
      std::string name = "") {
    Instruction* op =
        Emit(Opcode::kCustomCall, shape, std::move(operands), std::move(name));
    op->custom_call.target = std::move(target);
    op->custom_call.api_version = version;
    return op;
  }
  Instruction* Called(Opcode opcode, const Shape& shape,
                      std::vector<Instruction*> operands,
                      std::vector<Computation*> called) {
    Instruction* op = Emit(opcode, shape, std::move(operands));
    for (Computation* c : called) op->AppendCalledComputation(c);
    return op;
  }
  void Root(Instruction* root) { c_->set_root(root); }
  Computation* computation() const { return c_; }

 private:
  Instruction* Emit(Opcode opcode, const Shape& shape,
                    std::vector<Instruction*> operands, std::string name = "") {
    Instruction* op =
        c_->AddInstruction(opcode, shape, std::move(operands), std::move(name));
    Location location;
    location.file = "test.hlo";
    location.line = static_cast<int>(c_->instruction_count());
    location.column = 1;
    op->set_location(location);
    return op;
  }
  Computation* c_;
};

// A module with an entry, plus helpers for more computations.
struct TestModule {
  Module module{"test"};
  Computation* Add(std::string name) {
    return module.AddComputation(std::make_unique<Computation>(name));
  }
  Computation* Entry(std::string name = "main") {
    Computation* c = Add(std::move(name));
    module.set_entry(c);
    return c;
  }
};

template <typename T, typename F>
Status Elementwise(const cpu::KernelArgs& args, F f) {
  const int64_t n = args.results[0].shape->num_elements();
  const T* a = static_cast<const T*>(args.operands[0].data);
  const T* b = args.operands.size() > 1
                   ? static_cast<const T*>(args.operands[1].data)
                   : nullptr;
  T* out = static_cast<T*>(args.results[0].data);
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b ? b[i] : T{});
  return Status::Ok();
}

template <typename F>
cpu::Kernel Typed(ElementType type, F f) {
  if (type == ElementType::kS32)
    return [f](const cpu::KernelArgs& args) {
      return Elementwise<int32_t>(args, f);
    };
  return
      [f](const cpu::KernelArgs& args) { return Elementwise<float>(args, f); };
}

template <typename T>
Status CompareKernel(const cpu::KernelArgs& args, ComparisonDirection d) {
  const int64_t n = args.results[0].shape->num_elements();
  const T* a = static_cast<const T*>(args.operands[0].data);
  const T* b = static_cast<const T*>(args.operands[1].data);
  auto* out = static_cast<unsigned char*>(args.results[0].data);
  for (int64_t i = 0; i < n; ++i) {
    bool r = false;
    switch (d) {
      case ComparisonDirection::kEq:
        r = a[i] == b[i];
        break;
      case ComparisonDirection::kNe:
        r = a[i] != b[i];
        break;
      case ComparisonDirection::kLt:
        r = a[i] < b[i];
        break;
      case ComparisonDirection::kLe:
        r = a[i] <= b[i];
        break;
      case ComparisonDirection::kGt:
        r = a[i] > b[i];
        break;
      case ComparisonDirection::kGe:
        r = a[i] >= b[i];
        break;
    }
    out[i] = r ? 1 : 0;
  }
  return Status::Ok();
}

// Reduces every element of operand 0 (f32) into a scalar, starting from
// operand 1, through the region; the accumulator is passed as both the
// region's first argument and its result, as accumulating kernels do.
inline Status ReduceAll(const Instruction& op, const cpu::KernelArgs& args) {
  const Computation& region = *op.called_computations()[0];
  const Shape& scalar = *args.results[0].shape;
  const auto* in = static_cast<const float*>(args.operands[0].data);
  auto* acc = static_cast<float*>(args.results[0].data);
  std::memcpy(acc, args.operands[1].data, sizeof(float));
  const int64_t n = args.operands[0].shape->num_elements();
  for (int64_t i = 0; i < n; ++i) {
    cpu::ArrayView arguments[2] = {{&scalar, acc},
                                   {&scalar, const_cast<float*>(in + i)}};
    cpu::ArrayView results[1] = {{&scalar, acc}};
    Status status = args.regions->Run(region, arguments, results);
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

// Integer arithmetic wraps, as XLA's does; in 64-bit unsigned arithmetic so
// that no C++ signed overflow (undefined, and caught by UBSan) happens.
template <typename T, typename Op>
T Wrapping(T a, T b, Op op) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(
        op(static_cast<uint64_t>(a), static_cast<uint64_t>(b)));
  } else {
    return op(a, b);
  }
}

inline StatusOr<cpu::Kernel> TestKernels(const Instruction& op) {
  ElementType type = op.operand_count() > 0
                         ? op.operand(0)->shape().element_type()
                         : op.shape().element_type();
  switch (op.opcode()) {
    case Opcode::kAdd:
      return Typed(type, [](auto a, auto b) {
        return Wrapping(a, b, [](auto x, auto y) { return x + y; });
      });
    case Opcode::kSubtract:
      return Typed(type, [](auto a, auto b) {
        return Wrapping(a, b, [](auto x, auto y) { return x - y; });
      });
    case Opcode::kMultiply:
      return Typed(type, [](auto a, auto b) {
        return Wrapping(a, b, [](auto x, auto y) { return x * y; });
      });
    case Opcode::kMaximum:
      return Typed(type, [](auto a, auto b) { return a > b ? a : b; });
    case Opcode::kNegate:
      return Typed(type, [](auto a, auto) {
        using T = decltype(a);
        if constexpr (std::is_integral_v<T>)
          return Wrapping(T{0}, a, [](auto x, auto y) { return x - y; });
        else
          return -a;  // keeps the sign of zero
      });
    case Opcode::kCompare: {
      ComparisonDirection d = op.comparison_direction;
      if (type == ElementType::kS32)
        return cpu::Kernel([d](const cpu::KernelArgs& args) {
          return CompareKernel<int32_t>(args, d);
        });
      return cpu::Kernel([d](const cpu::KernelArgs& args) {
        return CompareKernel<float>(args, d);
      });
    }
    case Opcode::kReduce:
      return cpu::Kernel(
          [&op](const cpu::KernelArgs& args) { return ReduceAll(op, args); });
    default:
      return cpu::MakeKernel(op);
  }
}

// The compile pipeline on the CPU backend with `kernels` in place of
// cpu::MakeKernel.
inline StatusOr<std::unique_ptr<Executable>> CompileWithKernels(
    Module module, const CompileOptions& options, cpu::KernelFactory kernels) {
  cpu::CpuBackend backend(cpu::CpuBackendOptions{std::move(kernels)});
  return compiler::CompileWithBackend(std::move(module), options, backend);
}

// Without loop fusion: these tests count the executor's thunks, buffers
// and kernel calls op by op (fusion has its own tests).
inline StatusOr<std::unique_ptr<Executable>> CompileForTest(
    Module module, CompileOptions options = {}) {
  if (options.intra_op_threads == 0) options.intra_op_threads = 2;
  options.fuse_loops = false;
  return CompileWithKernels(std::move(module), options, TestKernels);
}

// HLO text as a module (an empty one, and a test failure, when it does not
// parse).
inline Module ParseHloForTest(const std::string& text) {
  StatusOr<Module> module = ParseHlo(text);
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  return module.ok() ? std::move(*module) : Module();
}

// Compiles `module` (CompileForTest) and runs it once; no results, and a
// test failure, when either fails.
inline std::vector<Literal> CompileAndRun(
    Module module, const std::vector<Literal>& arguments) {
  auto exe = CompileForTest(std::move(module));
  EXPECT_TRUE(exe.ok()) << exe.status().ToString();
  if (!exe.ok()) return {};
  auto out = (*exe)->Execute(arguments);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? std::move(*out) : std::vector<Literal>{};
}

inline std::vector<float> Iota(int64_t n, float start = 0, float step = 1) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = start + step * static_cast<float>(i);
  return v;
}

}  // namespace xffi::test

#endif  // XFFI_TESTS_CPP_EXECUTOR_TEST_UTIL_H_
