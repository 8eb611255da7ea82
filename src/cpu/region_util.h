// xffi: recognising the regions the fast paths handle, the scalar
// operations those paths use, and calling a region on scalars otherwise.
#ifndef XFFI_SRC_CPU_REGION_UTIL_H_
#define XFFI_SRC_CPU_REGION_UTIL_H_

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/byte_float_reduce.h"
#include "cpu/float_max_min.h"
#include "cpu/kernel.h"
#include "cpu/scalar_program.h"

namespace xffi::cpu {

// What a two-parameter scalar region computes when it is one op of its
// parameters (kSet: it returns parameter 1, as .at[].set's combiner does).
enum class CombineOp { kNone, kAdd, kMul, kMax, kMin, kAnd, kOr, kSet };

// kNone unless `region` takes two scalars of one type and its root is one of
// the ops above applied to parameters 0 and 1.
CombineOp MatchCombineRegion(const Computation* region);

// Calls `f(T{})` for the C++ type of the element types the fast paths cover
// (pred as uint8_t); false for any other type.
template <typename F>
bool DispatchFastType(ElementType type, F&& f) {
  switch (type) {
    case ElementType::kF32:
      f(float{});
      return true;
    case ElementType::kF64:
      f(double{});
      return true;
    case ElementType::kS8:
      f(int8_t{});
      return true;
    case ElementType::kS16:
      f(int16_t{});
      return true;
    case ElementType::kS32:
      f(int32_t{});
      return true;
    case ElementType::kS64:
      f(int64_t{});
      return true;
    case ElementType::kPred:
    case ElementType::kU8:
      f(uint8_t{});
      return true;
    case ElementType::kU16:
      f(uint16_t{});
      return true;
    case ElementType::kU32:
      f(uint32_t{});
      return true;
    case ElementType::kU64:
      f(uint64_t{});
      return true;
    default:
      return false;
  }
}

// Whether `op` is meaningful for `type` in the fast path (and/or only for
// integers and pred; add/mul not for pred, where HLO means or/and).
inline bool FastOpSupported(CombineOp op, ElementType type) {
  if (op == CombineOp::kNone) return false;
  if (type == ElementType::kPred)
    return op != CombineOp::kAdd && op != CombineOp::kMul;
  if (op == CombineOp::kAnd || op == CombineOp::kOr)
    return IsIntegralType(type);
  return true;
}

// The unsigned type integer arithmetic on T runs in, so that it wraps (as
// XLA's does) without signed overflow or promotion to int.
template <typename T, bool = std::is_integral_v<T>>
struct WrapType {
  using type = T;
};
template <typename T>
struct WrapType<T, true> {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                  std::make_unsigned_t<T>>;
};

template <typename T>
struct ScalarOps {
  using Wide = typename WrapType<T>::type;
  static T Add(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<Wide>(a) + static_cast<Wide>(b));
    else
      return a + b;
  }
  static T Mul(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<Wide>(a) * static_cast<Wide>(b));
    else
      return a * b;
  }
  static T Max(T a, T b) {
    if constexpr (std::is_floating_point_v<T>)
      return XlaFloatMax(a, b);
    else
      return a > b ? a : b;
  }
  static T Min(T a, T b) {
    if constexpr (std::is_floating_point_v<T>)
      return XlaFloatMin(a, b);
    else
      return a < b ? a : b;
  }
  static T And(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(a & b);
    else
      return a;
  }
  static T Or(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(a | b);
    else
      return a;
  }
};

// Calls f(op) with op a stateless functor (T, T) -> T for `op`.
template <typename T, typename F>
void DispatchCombine(CombineOp op, F&& f) {
  using O = ScalarOps<T>;
  switch (op) {
    case CombineOp::kAdd:
      return f([](T a, T b) { return O::Add(a, b); });
    case CombineOp::kMul:
      return f([](T a, T b) { return O::Mul(a, b); });
    case CombineOp::kMax:
      return f([](T a, T b) { return O::Max(a, b); });
    case CombineOp::kMin:
      return f([](T a, T b) { return O::Min(a, b); });
    case CombineOp::kAnd:
      return f([](T a, T b) { return O::And(a, b); });
    case CombineOp::kOr:
      return f([](T a, T b) { return O::Or(a, b); });
    case CombineOp::kSet:
    case CombineOp::kNone:
      return f([](T, T b) { return b; });
  }
}

// Calls a region of 2*n scalar parameters (n accumulators, then n values)
// and n scalar results: the general path of reduce, reduce-window and
// scatter. It evaluates `program` (the region compiled, when it could be)
// directly, else runs the region through the RegionRunner. Owns the scalar
// buffers; one per kernel run (not thread-safe).
class ScalarCombiner {
 public:
  // `types`: the n element types.
  // `nan_rule`: which NaN a byte-float step gives in the loop this
  // combiner serves (byte_float_reduce.h).
  // `reduction`: the combiner serves a reduce, whose f16 max/min steps
  // keep the f32 rule (below); elsewhere (reduce-window, scatter, ...) they
  // are the elementwise ops'.
  ScalarCombiner(const Computation* region, std::vector<ElementType> types,
                 const ScalarProgram* program = nullptr,
                 ByteFloatNanRule nan_rule = ByteFloatNanRule::kScalar,
                 bool reduction = false);

  // acc[i] <- region(acc..., value...); each pointer is one element.
  Status Combine(RegionRunner* runner, void* const* acc,
                 const void* const* values);

 private:
  const Computation* region_;
  const ScalarProgram* program_;
  // A one-op region over byte floats, run without the region runner.
  std::optional<ByteFloatReduceStep> byte_float_step_;
  // A reduce's one-op maximum or minimum region over f16, likewise:
  // XLA:CPU's reduce steps keep the f32 rule (float_max_min.h) and convert
  // back, where its elementwise f16 max/min (and its reduce-window's),
  // which the region runner's kernels follow, give every NaN as the
  // positive one (elementwise_ops.h).
  struct HalfMaxMinStep {
    bool max = true;
    bool swapped = false;  // the region reads (value, accumulator)
  };
  std::optional<HalfMaxMinStep> half_step_;
  std::vector<ScalarValue> registers_;
  std::vector<const void*> parameters_;
  std::vector<ElementType> types_;
  std::vector<size_t> sizes_;
  std::vector<Shape> shapes_;
  std::vector<ArrayView> arguments_, results_;
  std::vector<unsigned char> scratch_;  // 3n elements of 16 bytes
};

// Checks that `region` takes `parameters` scalars and returns `results`
// scalars (a tuple when more than one) of the given types.
Status CheckScalarRegion(const Instruction& inst, const Computation* region,
                         const std::vector<ElementType>& parameter_types,
                         const std::vector<ElementType>& result_types);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_REGION_UTIL_H_
