// select and clamp: the two elementwise ops whose operands may be scalars
// broadcast across the result (select's predicate, clamp's bounds).
#include <cstring>
#include <type_traits>

#include "cpu/byte_float_arithmetic.h"
#include "cpu/byte_float_format.h"
#include "cpu/element_traits.h"
#include "cpu/elementwise_internal.h"
#include "cpu/elementwise_loops.h"
#include "cpu/elementwise_ops.h"

namespace xffi::cpu::internal {
namespace {

// Select moves elements without reading them, so one loop per element size
// serves every type.
struct Bytes16 {
  uint64_t low, high;
};

template <typename T>
Kernel SelectByPredArray(int64_t n) {
  return [n](const KernelArgs& args) -> Status {
    if (Status s = CheckArity(args, 3, Opcode::kSelect); !s.ok()) return s;
    const auto* pred = static_cast<const uint8_t*>(args.operands[0].data);
    const auto* on_true = static_cast<const T*>(args.operands[1].data);
    const auto* on_false = static_cast<const T*>(args.operands[2].data);
    auto* out = static_cast<T*>(args.results[0].data);
    ParallelFor(args.pool, n, [&](int64_t begin, int64_t end) {
      int64_t i = begin;
      for (; i + kBlock <= end; i += kBlock) {
        T block[kBlock];
        for (int j = 0; j < kBlock; ++j)
          block[j] = pred[i + j] != 0 ? on_true[i + j] : on_false[i + j];
        for (int j = 0; j < kBlock; ++j) out[i + j] = block[j];
      }
      for (; i < end; ++i) out[i] = pred[i] != 0 ? on_true[i] : on_false[i];
    });
    return Status();
  };
}

// A scalar predicate picks a whole operand.
Kernel SelectByPredScalar(size_t bytes) {
  return [bytes](const KernelArgs& args) -> Status {
    if (Status s = CheckArity(args, 3, Opcode::kSelect); !s.ok()) return s;
    const bool pred = *static_cast<const uint8_t*>(args.operands[0].data) != 0;
    const void* chosen = args.operands[pred ? 1 : 2].data;
    if (chosen != args.results[0].data && bytes > 0)
      std::memmove(args.results[0].data, chosen, bytes);
    return Status();
  };
}

// Codec: Tr itself, or the byte-float format (byte_float_format.h) whose
// values Tr (f32) computes with.
template <typename Tr, bool kScalarMin, bool kScalarMax, typename Codec>
Kernel ClampKernel(int64_t n, Codec codec) {
  return [n, codec](const KernelArgs& args) -> Status {
    if (Status s = CheckArity(args, 3, Opcode::kClamp); !s.ok()) return s;
    using S = typename Codec::Storage;
    const auto* low = static_cast<const S*>(args.operands[0].data);
    const auto* x = static_cast<const S*>(args.operands[1].data);
    const auto* high = static_cast<const S*>(args.operands[2].data);
    auto* out = static_cast<S*>(args.results[0].data);
    // XLA's f16 clamp keeps a NaN operand's payload (the f32 rule), where
    // its f16 maximum and minimum give the positive NaN (elementwise_ops.h).
    auto max = [](auto a, auto b) {
      if constexpr (Tr::kType == ElementType::kF16)
        return XlaFloatMax(a, b);
      else
        return ops::Maximum<Tr>{}(a, b);
    };
    auto min = [](auto a, auto b) {
      if constexpr (Tr::kType == ElementType::kF16)
        return XlaFloatMin(a, b);
      else
        return ops::Minimum<Tr>{}(a, b);
    };
    auto clamp = [&](int64_t i) {
      const auto value =
          min(max(codec.Load(x[i]), codec.Load(At<kScalarMin>(low, i))),
              codec.Load(At<kScalarMax>(high, i)));
      // A byte float's clamp is XLA:CPU's widened max and min, stored back
      // (byte_float_arithmetic.h).
      if constexpr (std::is_same_v<Codec, ByteFloatFormat>)
        return StoreByteFloatResult(codec, XlaMaxMinResult(value));
      else
        return codec.Store(value);
    };
    ParallelFor(args.pool, n, [&](int64_t begin, int64_t end) {
      int64_t i = begin;
      for (; i + kBlock <= end; i += kBlock) {
        S block[kBlock];
        for (int j = 0; j < kBlock; ++j) block[j] = clamp(i + j);
        for (int j = 0; j < kBlock; ++j) out[i + j] = block[j];
      }
      for (; i < end; ++i) out[i] = clamp(i);
    });
    return Status();
  };
}

}  // namespace

StatusOr<Kernel> MakeSelectKernel(const Instruction& inst) {
  auto shapes = OperandShapes(inst, 3);
  if (!shapes.ok()) return shapes.status();
  const Shape& pred = *(*shapes)[0];
  if (pred.element_type() != ElementType::kPred)
    return InvalidArgument(inst.Describe() +
                           ": operand 0 (the predicate) must be pred, not " +
                           std::string(ElementTypeName(pred.element_type())));
  if (Status s = CheckElementCount(inst, 0, pred, /*scalar_allowed=*/true);
      !s.ok())
    return s;
  const ElementType type = inst.shape().element_type();
  for (int64_t i = 1; i < 3; ++i) {
    const Shape& operand = *(*shapes)[static_cast<size_t>(i)];
    if (Status s = CheckElementCount(inst, i, operand); !s.ok()) return s;
    if (operand.element_type() != type)
      return InvalidArgument(
          inst.Describe() + ": operand " + std::to_string(i) + " is " +
          std::string(ElementTypeName(operand.element_type())) +
          ", the result " + std::string(ElementTypeName(type)));
  }
  const int64_t n = inst.shape().num_elements();
  if (pred.rank() == 0 && n != 1)
    return SelectByPredScalar(inst.shape().byte_size());
  switch (ElementByteSize(type)) {
    case 1:
      return SelectByPredArray<uint8_t>(n);
    case 2:
      return SelectByPredArray<uint16_t>(n);
    case 4:
      return SelectByPredArray<uint32_t>(n);
    case 8:
      return SelectByPredArray<uint64_t>(n);
    case 16:
      return SelectByPredArray<Bytes16>(n);
    default:
      return UnsupportedType(inst, type);
  }
}

StatusOr<Kernel> MakeClampKernel(const Instruction& inst) {
  auto shapes = OperandShapes(inst, 3);
  if (!shapes.ok()) return shapes.status();
  const ElementType type = inst.shape().element_type();
  for (int64_t i = 0; i < 3; ++i) {
    const Shape& operand = *(*shapes)[static_cast<size_t>(i)];
    if (Status s = CheckElementCount(inst, i, operand,
                                     /*scalar_allowed=*/i != 1);
        !s.ok())
      return s;
    if (operand.element_type() != type)
      return InvalidArgument(
          inst.Describe() + ": operand " + std::to_string(i) + " is " +
          std::string(ElementTypeName(operand.element_type())) +
          ", the result " + std::string(ElementTypeName(type)));
  }
  const int64_t n = inst.shape().num_elements();
  // A rank-0 result has only scalars: the array loop reads index 0 too.
  const bool scalar_min = (*shapes)[0]->rank() == 0;
  const bool scalar_max = (*shapes)[2]->rank() == 0;
  return VisitFoldingByteFloats(type, [&](auto codec) -> StatusOr<Kernel> {
    using Codec = decltype(codec);
    using Tr = ComputeTraits<Codec>;
    if constexpr (Tr::kIsComplex) {
      return UnsupportedType(inst, Tr::kType);
    } else {
      if (scalar_min && scalar_max)
        return ClampKernel<Tr, true, true>(n, codec);
      if (scalar_min) return ClampKernel<Tr, true, false>(n, codec);
      if (scalar_max) return ClampKernel<Tr, false, true>(n, codec);
      return ClampKernel<Tr, false, false>(n, codec);
    }
  });
}

}  // namespace xffi::cpu::internal
