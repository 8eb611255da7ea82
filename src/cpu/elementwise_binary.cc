// Binary elementwise kernels: arithmetic, bitwise, shifts, atan2, complex
// and compare; one instantiation per (op, element type), the byte floats
// sharing one (byte_float_format.h).
#include <bit>
#include <type_traits>

#include "cpu/byte_float_arithmetic.h"
#include "cpu/byte_float_format.h"
#include "cpu/element_traits.h"
#include "cpu/elementwise_internal.h"
#include "cpu/elementwise_loops.h"
#include "cpu/elementwise_ops.h"
#include "cpu/total_order.h"

namespace xffi::cpu::internal {
namespace {

// Both operands share a type and the result's shape.
StatusOr<ElementType> BinaryOperandType(const Instruction& inst) {
  auto shapes = OperandShapes(inst, 2);
  if (!shapes.ok()) return shapes.status();
  const Shape& lhs = *(*shapes)[0];
  const Shape& rhs = *(*shapes)[1];
  for (int64_t i = 0; i < 2; ++i)
    if (Status s = CheckElementCount(inst, i, *(*shapes)[i]); !s.ok()) return s;
  if (lhs.element_type() != rhs.element_type())
    return InvalidArgument(inst.Describe() + ": operands have types " +
                           std::string(ElementTypeName(lhs.element_type())) +
                           " and " +
                           std::string(ElementTypeName(rhs.element_type())));
  return lhs.element_type();
}

Status WrongResultType(const Instruction& inst, ElementType expected) {
  return InvalidArgument(
      inst.Describe() + " produces " + std::string(ElementTypeName(expected)) +
      ", not " + std::string(ElementTypeName(inst.shape().element_type())));
}

// A kernel running fn(a, b) for operand traits In and result traits Out.
template <typename In, typename Out, typename Fn>
Kernel BinaryLoopKernel(int64_t n, Opcode opcode, Fn fn) {
  return [n, opcode, fn](const KernelArgs& args) -> Status {
    if (Status s = CheckArity(args, 2, opcode); !s.ok()) return s;
    const auto* a =
        static_cast<const typename In::Storage*>(args.operands[0].data);
    const auto* b =
        static_cast<const typename In::Storage*>(args.operands[1].data);
    auto* out = static_cast<typename Out::Storage*>(args.results[0].data);
    ParallelFor(args.pool, n, [&](int64_t begin, int64_t end) {
      MapBinary<In, Out>(a, b, out, begin, end, fn);
    });
    return Status();
  };
}

using ByteTraits = ElementTraits<ElementType::kU8>;

// Op on a byte-float format (byte_float_format.h): computed as on f32,
// stored as XLA:CPU stores its widened result (byte_float_arithmetic.h).
template <template <typename> class Op>
Kernel ByteFloatBinaryKernel(int64_t n, Opcode opcode, ByteFloatFormat format) {
  using Fn = Op<ByteFloatComputeTraits>;
  static_assert(std::is_same_v<typename Fn::Out, ByteFloatComputeTraits>);
  using F32 = ByteFloatComputeTraits;
  constexpr bool kMaxOrMin = std::is_same_v<Fn, ops::Maximum<F32>> ||
                             std::is_same_v<Fn, ops::Minimum<F32>>;
  constexpr bool kCommutative = std::is_same_v<Fn, ops::Add<F32>> ||
                                std::is_same_v<Fn, ops::Multiply<F32>>;
  return BinaryLoopKernel<ByteTraits, ByteTraits>(
      n, opcode, [format](uint8_t a, uint8_t b) {
        const float x = format.Load(a);
        float result = Fn{}(x, format.Load(b));
        if constexpr (kMaxOrMin) result = XlaMaxMinResult(result);
        if constexpr (kCommutative) result = XlaCommutativeResult(x, result);
        return StoreByteFloatResult(format, result);
      });
}

template <template <typename> class Op>
StatusOr<Kernel> MakeBinary(const Instruction& inst, ElementType type) {
  return VisitElementType(type, [&](auto traits) -> StatusOr<Kernel> {
    using In = decltype(traits);
    using Fn = Op<In>;
    if constexpr (!Fn::kSupported) {
      return UnsupportedType(inst, In::kType);
    } else {
      using Out = typename Fn::Out;
      if (inst.shape().element_type() != Out::kType)
        return WrongResultType(inst, Out::kType);
      if constexpr (kIsByteFloat<In>) {
        static_assert(std::is_same_v<Out, In>);
        return ByteFloatBinaryKernel<Op>(inst.shape().num_elements(),
                                         inst.opcode(),
                                         ByteFloatFormat::Of<In>());
      } else {
        return BinaryLoopKernel<In, Out>(inst.shape().num_elements(),
                                         inst.opcode(), Fn{});
      }
    }
  });
}

StatusOr<Kernel> MakeComplex(const Instruction& inst, ElementType type) {
  auto make = [&](auto real_traits, auto complex_traits) -> StatusOr<Kernel> {
    using In = decltype(real_traits);
    using Out = decltype(complex_traits);
    if (inst.shape().element_type() != Out::kType)
      return WrongResultType(inst, Out::kType);
    using V = typename In::Value;
    return BinaryLoopKernel<In, Out>(
        inst.shape().num_elements(), inst.opcode(),
        [](V re, V im) { return std::complex<V>(re, im); });
  };
  if (type == ElementType::kF32)
    return make(ElementTraits<ElementType::kF32>{},
                ElementTraits<ElementType::kC64>{});
  if (type == ElementType::kF64)
    return make(ElementTraits<ElementType::kF64>{},
                ElementTraits<ElementType::kC128>{});
  return UnsupportedType(inst, type);
}

// --- compare -----------------------------------------------------------------

using PredTraits = ElementTraits<ElementType::kPred>;

// A kernel comparing key(a) with key(b) in `direction` (kOrdered: the
// type has an order; complex numbers only compare for equality).
template <typename In, bool kOrdered = true, typename Key>
Kernel CompareKernel(int64_t n, ComparisonDirection direction, Key key) {
  constexpr Opcode kOp = Opcode::kCompare;
  using V = typename In::Value;
  if (direction == ComparisonDirection::kEq)
    return BinaryLoopKernel<In, PredTraits>(
        n, kOp, [key](V a, V b) { return key(a) == key(b); });
  if (direction == ComparisonDirection::kNe || !kOrdered)
    return BinaryLoopKernel<In, PredTraits>(
        n, kOp, [key](V a, V b) { return key(a) != key(b); });
  if constexpr (!kOrdered) {
    return nullptr;  // unreachable: the caller allows only EQ and NE
  } else {
    switch (direction) {
      case ComparisonDirection::kGe:
        return BinaryLoopKernel<In, PredTraits>(
            n, kOp, [key](V a, V b) { return key(a) >= key(b); });
      case ComparisonDirection::kGt:
        return BinaryLoopKernel<In, PredTraits>(
            n, kOp, [key](V a, V b) { return key(a) > key(b); });
      case ComparisonDirection::kLe:
        return BinaryLoopKernel<In, PredTraits>(
            n, kOp, [key](V a, V b) { return key(a) <= key(b); });
      default:
        break;
    }
    return BinaryLoopKernel<In, PredTraits>(
        n, kOp, [key](V a, V b) { return key(a) < key(b); });
  }
}

// Compares of a byte-float format: its values are floats, compared (or
// keyed for the total order) as f32's are.
Kernel ByteFloatCompareKernel(int64_t n, ComparisonDirection direction,
                              bool total_order, ByteFloatFormat format) {
  if (total_order)
    return CompareKernel<ByteTraits>(n, direction, [format](uint8_t s) {
      return TotalOrderKey(format.Load(s));
    });
  return CompareKernel<ByteTraits>(
      n, direction, [format](uint8_t s) { return format.Load(s); });
}

std::string_view ComparisonTypeLabel(ComparisonType type) {
  return ComparisonTypeName(type);
}

}  // namespace

StatusOr<Kernel> MakeBinaryKernel(const Instruction& inst) {
  StatusOr<ElementType> type = BinaryOperandType(inst);
  if (!type.ok()) return type.status();
  switch (inst.opcode()) {
    case Opcode::kAdd:
      return MakeBinary<ops::Add>(inst, *type);
    case Opcode::kSubtract:
      return MakeBinary<ops::Subtract>(inst, *type);
    case Opcode::kMultiply:
      return MakeBinary<ops::Multiply>(inst, *type);
    case Opcode::kDivide:
      return MakeBinary<ops::Divide>(inst, *type);
    case Opcode::kRemainder:
      return MakeBinary<ops::Remainder>(inst, *type);
    case Opcode::kPower:
      return MakeBinary<ops::Power>(inst, *type);
    case Opcode::kMaximum:
      return MakeBinary<ops::Maximum>(inst, *type);
    case Opcode::kMinimum:
      return MakeBinary<ops::Minimum>(inst, *type);
    case Opcode::kAnd:
      return MakeBinary<ops::And>(inst, *type);
    case Opcode::kOr:
      return MakeBinary<ops::Or>(inst, *type);
    case Opcode::kXor:
      return MakeBinary<ops::Xor>(inst, *type);
    case Opcode::kShiftLeft:
      return MakeBinary<ops::ShiftLeft>(inst, *type);
    case Opcode::kShiftRightArithmetic:
      return MakeBinary<ops::ShiftRightArithmetic>(inst, *type);
    case Opcode::kShiftRightLogical:
      return MakeBinary<ops::ShiftRightLogical>(inst, *type);
    case Opcode::kAtan2:
      return MakeBinary<ops::Atan2>(inst, *type);
    case Opcode::kNextAfter:
      return MakeBinary<ops::NextAfter>(inst, *type);
    case Opcode::kMulhi:
      return MakeBinary<ops::Mulhi>(inst, *type);
    case Opcode::kPolygamma:
      return MakeBinary<ops::Polygamma>(inst, *type);
    case Opcode::kZeta:
      return MakeBinary<ops::Zeta>(inst, *type);
    case Opcode::kComplex:
      return MakeComplex(inst, *type);
    default:
      return NotFound(inst.Describe() + " is not a binary elementwise op");
  }
}

StatusOr<Kernel> MakeCompareKernel(const Instruction& inst) {
  StatusOr<ElementType> type = BinaryOperandType(inst);
  if (!type.ok()) return type.status();
  if (inst.shape().element_type() != ElementType::kPred)
    return WrongResultType(inst, ElementType::kPred);
  const int64_t n = inst.shape().num_elements();
  const ComparisonDirection direction = inst.comparison_direction;
  const ComparisonType requested = inst.comparison_type;
  return VisitElementType(*type, [&](auto traits) -> StatusOr<Kernel> {
    using In = decltype(traits);
    using V = typename In::Value;
    auto mismatch = [&] {
      return InvalidArgument(inst.Describe() + ": comparison type " +
                             std::string(ComparisonTypeLabel(requested)) +
                             " does not apply to " +
                             std::string(ElementTypeName(In::kType)));
    };
    auto identity = [](V v) { return v; };
    if constexpr (kIsByteFloat<In>) {
      const bool total_order = requested == ComparisonType::kTotalOrder;
      if (!total_order && requested != ComparisonType::kDefault &&
          requested != ComparisonType::kFloat)
        return mismatch();
      return ByteFloatCompareKernel(n, direction, total_order,
                                    ByteFloatFormat::Of<In>());
    } else if constexpr (In::kIsFloat) {
      if (requested == ComparisonType::kTotalOrder)
        return CompareKernel<In>(n, direction,
                                 [](V v) { return TotalOrderKey(v); });
      if (requested != ComparisonType::kDefault &&
          requested != ComparisonType::kFloat)
        return mismatch();
      return CompareKernel<In>(n, direction, identity);
    } else if constexpr (In::kIsComplex) {
      if (requested != ComparisonType::kDefault &&
          requested != ComparisonType::kFloat)
        return mismatch();
      if (direction != ComparisonDirection::kEq &&
          direction != ComparisonDirection::kNe)
        return InvalidArgument(inst.Describe() +
                               ": complex numbers compare only EQ or NE, not " +
                               std::string(ComparisonDirectionName(direction)));
      return CompareKernel<In, false>(n, direction, identity);
    } else if constexpr (In::kIsPred) {
      if (requested == ComparisonType::kFloat) return mismatch();
      return CompareKernel<In>(n, direction, identity);
    } else {
      if (requested == ComparisonType::kFloat) return mismatch();
      // SIGNED on an unsigned type (or UNSIGNED on a signed one) reads the
      // same bits the other way.
      const bool as_signed =
          requested == ComparisonType::kSigned ||
          (requested != ComparisonType::kUnsigned && In::kIsSigned);
      if (as_signed == In::kIsSigned)
        return CompareKernel<In>(n, direction, identity);
      if (as_signed) {
        return CompareKernel<In>(n, direction, [](V v) {
          constexpr int kPad = 64 - In::kBits;
          return static_cast<int64_t>(ops::Bits<In>(v) << kPad) >> kPad;
        });
      }
      return CompareKernel<In>(n, direction,
                               [](V v) { return ops::Bits<In>(v); });
    }
  });
}

}  // namespace xffi::cpu::internal
