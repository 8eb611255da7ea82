// Helpers for the structural kernel tests: building one op over parameters,
// running its kernel on literals, and a small region interpreter standing in
// for the executor's RegionRunner.
#ifndef XFFI_TESTS_CPP_KERNEL_TEST_UTIL_H_
#define XFFI_TESTS_CPP_KERNEL_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cpu/kernel.h"
#include "xffi/program/ir.h"
#include "xffi/program/literal.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::cpu::testing_util {

inline Shape F32(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kF32, std::move(dims));
}
inline Shape S32(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kS32, std::move(dims));
}

// A computation holding parameters and the op under test.
struct OpUnderTest {
  std::unique_ptr<Computation> computation = std::make_unique<Computation>("f");
  std::vector<Instruction*> params;
  Instruction* Param(const Shape& shape) {
    Instruction* p = computation->AddInstruction(
        Opcode::kParameter, shape, {}, "p" + std::to_string(params.size()));
    p->parameter_number = static_cast<int64_t>(params.size());
    params.push_back(p);
    return p;
  }
  Instruction* Op(Opcode opcode, const Shape& shape,
                  std::vector<Instruction*> operands) {
    return computation->AddInstruction(opcode, shape, std::move(operands),
                                       "op");
  }
};

// Interprets scalar regions made of parameters, scalar constants, the
// arithmetic (remainder too, which ScalarProgram does not compile, so a
// region using it exercises the RegionRunner path), logical, compare and
// select ops and a tuple root. Values are
// held as doubles (exact for the integers the tests use).
class TestRegionRunner : public RegionRunner {
 public:
  int calls = 0;
  Status Run(const Computation& computation,
             std::span<const ArrayView> arguments,
             std::span<const ArrayView> results) override {
    ++calls;
    std::map<const Instruction*, double> value;
    for (const auto& owned : computation.instructions()) {
      const Instruction* inst = owned.get();
      auto in = [&](int64_t i) { return value[inst->operand(i)]; };
      double v = 0;
      switch (inst->opcode()) {
        case Opcode::kParameter:
          v = Load(arguments[static_cast<size_t>(inst->parameter_number)]);
          break;
        case Opcode::kConstant:
          v = Load({&inst->literal.shape(),
                    const_cast<void*>(inst->literal.data())});
          break;
        case Opcode::kAdd:
          v = in(0) + in(1);
          break;
        case Opcode::kSubtract:
          v = in(0) - in(1);
          break;
        case Opcode::kMultiply:
          v = in(0) * in(1);
          break;
        case Opcode::kRemainder:  // not in ScalarProgram: forces this path
          v = std::fmod(in(0), in(1));
          break;
        case Opcode::kMaximum:
          v = std::fmax(in(0), in(1));
          break;
        case Opcode::kMinimum:
          v = std::fmin(in(0), in(1));
          break;
        case Opcode::kAnd:
          v = (in(0) != 0) && (in(1) != 0);
          break;
        case Opcode::kOr:
          v = (in(0) != 0) || (in(1) != 0);
          break;
        case Opcode::kSelect:
          v = in(0) != 0 ? in(1) : in(2);
          break;
        case Opcode::kCompare: {
          double a = in(0), b = in(1);
          switch (inst->comparison_direction) {
            case ComparisonDirection::kEq:
              v = a == b;
              break;
            case ComparisonDirection::kNe:
              v = a != b;
              break;
            case ComparisonDirection::kLt:
              v = a < b;
              break;
            case ComparisonDirection::kLe:
              v = a <= b;
              break;
            case ComparisonDirection::kGt:
              v = a > b;
              break;
            case ComparisonDirection::kGe:
              v = a >= b;
              break;
          }
          break;
        }
        case Opcode::kTuple:
          break;
        default:
          return Unimplemented("test runner: " + inst->Describe());
      }
      value[inst] = v;
    }
    const Instruction* root = computation.root();
    if (root->opcode() == Opcode::kTuple) {
      for (int64_t i = 0; i < root->operand_count(); ++i)
        Store(results[static_cast<size_t>(i)], value[root->operand(i)]);
    } else {
      Store(results[0], value[root]);
    }
    return Status::Ok();
  }

  static double Load(const ArrayView& a) {
    switch (a.shape->element_type()) {
      case ElementType::kF32:
        return *static_cast<float*>(a.data);
      case ElementType::kF64:
        return *static_cast<double*>(a.data);
      case ElementType::kS32:
        return *static_cast<int32_t*>(a.data);
      case ElementType::kS64:
        return static_cast<double>(*static_cast<int64_t*>(a.data));
      case ElementType::kU32:
        return *static_cast<uint32_t*>(a.data);
      case ElementType::kS8:
        return *static_cast<int8_t*>(a.data);
      case ElementType::kPred:
      case ElementType::kU8:
        return *static_cast<uint8_t*>(a.data);
      case ElementType::kS16:
        return *static_cast<int16_t*>(a.data);
      default:
        return 0;
    }
  }
  static void Store(const ArrayView& a, double v) {
    switch (a.shape->element_type()) {
      case ElementType::kF32:
        *static_cast<float*>(a.data) = static_cast<float>(v);
        break;
      case ElementType::kF64:
        *static_cast<double*>(a.data) = v;
        break;
      case ElementType::kS32:
        *static_cast<int32_t*>(a.data) = static_cast<int32_t>(v);
        break;
      case ElementType::kS64:
        *static_cast<int64_t*>(a.data) = static_cast<int64_t>(v);
        break;
      case ElementType::kU32:
        *static_cast<uint32_t*>(a.data) = static_cast<uint32_t>(v);
        break;
      case ElementType::kS8:
        *static_cast<int8_t*>(a.data) = static_cast<int8_t>(v);
        break;
      case ElementType::kPred:
        *static_cast<uint8_t*>(a.data) = v != 0;
        break;
      case ElementType::kU8:
        *static_cast<uint8_t*>(a.data) = static_cast<uint8_t>(v);
        break;
      case ElementType::kS16:
        *static_cast<int16_t*>(a.data) = static_cast<int16_t>(v);
        break;
      default:
        break;
    }
  }
};

// A region computing `opcode` of two scalar parameters of `type` (or
// returning parameter 1 when opcode is kParameter).
inline std::unique_ptr<Computation> BinaryRegion(Opcode opcode,
                                                 ElementType type,
                                                 bool swap = false) {
  auto c = std::make_unique<Computation>("region");
  Shape s = Shape::Scalar(type);
  Instruction* a = c->AddInstruction(Opcode::kParameter, s, {}, "a");
  a->parameter_number = 0;
  Instruction* b = c->AddInstruction(Opcode::kParameter, s, {}, "b");
  b->parameter_number = 1;
  if (opcode == Opcode::kParameter) {
    c->set_root(b);
  } else {
    c->set_root(c->AddInstruction(
        opcode, s, swap ? std::vector{b, a} : std::vector{a, b}, "r"));
  }
  return c;
}

// Runs `kernel` on `operands`, writing into `results` (preallocated).
// `pool` (may be null) is the intra-op pool the kernel may split work on.
inline Status RunKernel(const Kernel& kernel, std::vector<Literal*> operands,
                        std::vector<Literal*> results,
                        RegionRunner* runner = nullptr,
                        ThreadPool* pool = nullptr) {
  std::vector<ArrayView> ins, outs;
  for (Literal* l : operands) ins.push_back({&l->shape(), l->data()});
  for (Literal* l : results) outs.push_back({&l->shape(), l->data()});
  KernelArgs args;
  args.operands = ins;
  args.results = outs;
  args.regions = runner;
  args.pool = pool;
  return kernel(args);
}

// Runs `kernel` with an intra-op pool of `threads` threads (0: none) into
// one fresh result of `shape`.
inline Literal RunOnThreads(const Kernel& kernel,
                            std::vector<Literal*> operands, const Shape& shape,
                            int threads) {
  std::unique_ptr<ThreadPool> pool;
  if (threads > 0) pool = std::make_unique<ThreadPool>(threads);
  Literal out(shape);
  Status s =
      RunKernel(kernel, std::move(operands), {&out}, nullptr, pool.get());
  if (!s.ok()) ADD_FAILURE() << s.ToString();
  return out;
}

// Builds the kernel for `inst` and runs it into one result literal of the
// instruction's shape (the first leaf of a tuple when `leaf` says so).
inline Literal RunOne(const Instruction& inst, std::vector<Literal*> operands,
                      RegionRunner* runner = nullptr) {
  StatusOr<Kernel> kernel = MakeStructuralKernel(inst);
  if (!kernel.ok()) {
    ADD_FAILURE() << kernel.status().ToString();
    return Literal();
  }
  Literal result(inst.shape());
  Status s = RunKernel(*kernel, std::move(operands), {&result}, runner);
  if (!s.ok()) ADD_FAILURE() << s.ToString();
  return result;
}

}  // namespace xffi::cpu::testing_util

#endif  // XFFI_TESTS_CPP_KERNEL_TEST_UTIL_H_
