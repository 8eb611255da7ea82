// Shared by the elementwise kernel tests: builds one op with the builder
// (so shapes are inferred and verified as a program would have them) and
// runs the kernel MakeElementwiseKernel prepares for it on literals, without
// the executor.
#ifndef XFFI_TESTS_CPP_ELEMENTWISE_TEST_UTIL_H_
#define XFFI_TESTS_CPP_ELEMENTWISE_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cpu/kernel.h"
#include "xffi/program/builder.h"
#include "xffi/program/ir.h"
#include "xffi/program/literal.h"

namespace xffi::test {

// A literal of `type` whose elements are given in their storage type T
// (uint16_t bit patterns for f16 and bf16, one byte each for the 8- and
// 4-bit types). `dims` empty: a vector of values.size() elements.
template <typename T>
Literal Typed(ElementType type, const std::vector<T>& values,
              std::vector<int64_t> dims = {-1}) {
  if (dims.size() == 1 && dims[0] == -1)
    dims[0] = static_cast<int64_t>(values.size());
  return Literal::FromBytes(Shape::Array(type, std::move(dims)), values.data(),
                            values.size() * sizeof(T));
}

// The elements of `literal` in their storage type T (the counterpart of
// Typed, for types ToVector has no C++ type for).
template <typename T>
std::vector<T> Stored(const Literal& literal) {
  const T* data = literal.data<T>();
  return std::vector<T>(data, data + literal.shape().num_elements());
}

// Runs the kernel for `instruction` on `arguments` (one per operand).
inline StatusOr<Literal> RunInstruction(const Instruction& instruction,
                                        const std::vector<Literal>& arguments,
                                        ThreadPool* pool = nullptr) {
  StatusOr<cpu::Kernel> kernel = cpu::MakeElementwiseKernel(instruction);
  if (!kernel.ok()) return kernel.status();
  Literal result(instruction.shape());
  std::vector<cpu::ArrayView> operands;
  for (const Literal& argument : arguments)
    operands.push_back({&argument.shape(), const_cast<void*>(argument.data())});
  cpu::ArrayView out{&result.shape(), result.data()};
  cpu::KernelArgs args;
  args.operands = operands;
  args.results = std::span<const cpu::ArrayView>(&out, 1);
  args.pool = pool;
  Status status = (*kernel)(args);
  if (!status.ok()) return status;
  return result;
}

using OpMaker = std::function<Op(Builder&, const std::vector<Op>&)>;

// Builds `make` over parameters shaped like `arguments`, verifies the
// program, and runs its root's kernel.
inline StatusOr<Literal> RunOp(const OpMaker& make,
                               const std::vector<Literal>& arguments,
                               ThreadPool* pool = nullptr) {
  Builder builder("elementwise");
  std::vector<Op> parameters;
  for (size_t i = 0; i < arguments.size(); ++i)
    parameters.push_back(builder.Parameter(static_cast<int64_t>(i),
                                           arguments[i].shape(),
                                           "p" + std::to_string(i)));
  Op root = make(builder, parameters);
  StatusOr<Module> module = builder.Build(root);
  if (!module.ok()) return module.status();
  return RunInstruction(*module->entry()->root(), arguments, pool);
}

inline StatusOr<Literal> RunUnary(Opcode opcode, const Literal& x) {
  return RunOp([&](Builder& b,
                   const std::vector<Op>& p) { return b.Unary(opcode, p[0]); },
               {x});
}

inline StatusOr<Literal> RunBinary(Opcode opcode, const Literal& x,
                                   const Literal& y) {
  return RunOp(
      [&](Builder& b, const std::vector<Op>& p) {
        return b.Binary(opcode, p[0], p[1]);
      },
      {x, y});
}

// An instruction built by hand (no shape inference), for the kernels' own
// checks: the returned module owns it.
struct HandBuilt {
  std::unique_ptr<Computation> computation;
  Instruction* op = nullptr;
};
inline HandBuilt HandBuild(Opcode opcode, const Shape& result,
                           const std::vector<Shape>& operands) {
  HandBuilt out;
  out.computation = std::make_unique<Computation>("hand");
  std::vector<Instruction*> params;
  for (size_t i = 0; i < operands.size(); ++i) {
    Instruction* p = out.computation->AddInstruction(
        Opcode::kParameter, operands[i], {}, "p" + std::to_string(i));
    p->parameter_number = static_cast<int64_t>(i);
    params.push_back(p);
  }
  out.op = out.computation->AddInstruction(opcode, result, params, "op");
  return out;
}

// Bit-exact float comparisons that treat every NaN alike.
inline bool SameFloat(double a, double b) {
  if (a != a || b != b) return a != a && b != b;
  return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace xffi::test

#endif  // XFFI_TESTS_CPP_ELEMENTWISE_TEST_UTIL_H_
