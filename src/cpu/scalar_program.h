// xffi: scalar regions (reduce bodies, comparators, scatter combiners)
// evaluated directly on element pointers.
//
// The regions JAX emits beyond a single add or max (argmax's compare/select
// body, the sort comparator that canonicalises -0 and NaN before a
// TOTALORDER compare) are a handful of scalar ops. Running them through the
// executor's RegionRunner costs a compiled-computation call per element;
// compiled once into a flat list of typed steps they cost a few nanoseconds.
// Regions using anything else (other ops or element types, non-scalar
// values) do not compile, and the kernels fall back to the RegionRunner.
#ifndef XFFI_SRC_CPU_SCALAR_PROGRAM_H_
#define XFFI_SRC_CPU_SCALAR_PROGRAM_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "xffi/program/ir.h"

namespace xffi::cpu {

// One value: a float or double for f32/f64; an integer of any width or a
// pred, normalised to the type's range (sign- or zero-extended) in `i`.
union ScalarValue {
  float f32;
  double f64;
  int64_t i;
};

class ScalarProgram {
 public:
  // nullopt when `region` uses an op, element type or shape this evaluator
  // does not cover (the caller then uses the RegionRunner).
  static std::optional<ScalarProgram> Compile(const Computation& region);
  // The same for the value of `root`, an instruction of `region`, computed
  // from the region's parameters (instructions `root` does not use are left
  // out, so parameters it does not use are never read).
  static std::optional<ScalarProgram> Compile(const Computation& region,
                                              const Instruction* root);

  size_t num_parameters() const { return parameter_types_.size(); }
  size_t num_results() const { return results_.size(); }
  size_t num_registers() const { return num_registers_; }

  // Reads parameter i from parameters[i] (one element of its type), and
  // writes result i to results[i]. Every parameter is read before any
  // result is written, so a result may be a parameter's element.
  // `registers` holds num_registers() values (the caller's scratch, so one
  // program may run on several threads at once).
  void Run(const void* const* parameters, void* const* results,
           ScalarValue* registers) const;

  // The same for a region with one pred result (a comparator).
  bool RunPredicate(const void* const* parameters,
                    ScalarValue* registers) const;

  // For a caller that runs the program many times on registers of its own
  // (a loop's scalar runs and condition): writes the constants into
  // `registers` once, after which the Prepared forms skip the constant
  // steps (no other step writes a constant's register).
  void PrepareRegisters(ScalarValue* registers) const;
  void RunPrepared(const void* const* parameters, void* const* results,
                   ScalarValue* registers) const;
  bool RunPredicatePrepared(const void* const* parameters,
                            ScalarValue* registers) const;

  // How a value is held and computed on.
  enum class Kind : uint8_t { kF32, kF64, kSigned, kUnsigned, kPred };
  enum class Op : uint8_t {
    kLoad,  // a: parameter number
    kConstant,
    kAdd,
    kSubtract,
    kMultiply,
    kDivide,  // floats only
    kMaximum,
    kMinimum,
    kAnd,
    kOr,
    kXor,
    kNot,
    kNegate,
    kAbs,
    kCompare,
    kSelect,   // a ? b : c
    kConvert,  // a, held as `from`, to this step's kind
  };
  struct Step {
    Op op;
    Kind kind;                // of the result (compare: of the operands)
    Kind from = Kind::kPred;  // convert: the operand's kind
    uint8_t bits = 64;        // integer width of the result (convert: too)
    ComparisonDirection direction = ComparisonDirection::kEq;
    bool total_order = false;
    ElementType type = ElementType::kInvalid;  // load: the parameter's type
    uint32_t dst = 0, a = 0, b = 0, c = 0;
    ScalarValue constant{};
  };

 private:
  ScalarProgram() = default;
  void Execute(const std::vector<Step>& steps, const void* const* parameters,
               void* const* results, ScalarValue* registers) const;
  bool PredicateOf(const std::vector<Step>& steps,
                   const void* const* parameters, ScalarValue* registers) const;

  std::vector<ElementType> parameter_types_;
  std::vector<Step> steps_;
  std::vector<Step> variable_steps_;  // steps_ without the constants
  struct Result {
    uint32_t reg;
    ElementType type;
  };
  std::vector<Result> results_;
  size_t num_registers_ = 0;
};

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_SCALAR_PROGRAM_H_
