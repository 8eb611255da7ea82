// Unary elementwise kernels: one instantiation per (op, element type), the
// byte floats sharing one (byte_float_format.h), chosen when the program
// compiles.
#include <type_traits>

#include "cpu/byte_float_arithmetic.h"
#include "cpu/byte_float_format.h"
#include "cpu/element_traits.h"
#include "cpu/elementwise_internal.h"
#include "cpu/elementwise_loops.h"
#include "cpu/elementwise_ops.h"
#include "cpu/vector_math.h"
#include "runtime/float_control.h"

namespace xffi::cpu::internal {
namespace {

// Op on a byte-float format (byte_float_format.h): computed as on f32,
// stored as XLA:CPU stores its widened result (byte_float_arithmetic.h), or
// as pred for the predicates.
template <template <typename> class Op>
Kernel ByteFloatUnaryKernel(int64_t n, Opcode opcode, ByteFloatFormat format) {
  using Fn = Op<ByteFloatComputeTraits>;
  using Out = typename Fn::Out;
  static_assert(Out::kIsPred || std::is_same_v<Out, ByteFloatComputeTraits>);
  using Bytes = ElementTraits<ElementType::kU8>;
  // A byte has 256 values: the results are a table, built once, where
  // XLA's exceptions are also written (ApplyXlaUnaryExceptions). Built with
  // subnormals flushed, as the executor runs kernels (f8e8m0fnu's 2^-127 is
  // an f32 subnormal).
  ScopedFlushSubnormals flush;
  ByteFloatUnaryTable table;
  for (int byte = 0; byte < 256; ++byte) {
    const float x = format.Load(static_cast<uint8_t>(byte));
    if constexpr (Out::kIsPred)
      table[byte] = Out::Store(Fn{}(x));
    else
      table[byte] = StoreByteFloatResult(format, Fn{}(x));
  }
  if constexpr (!Out::kIsPred) ApplyXlaUnaryExceptions(opcode, format, table);
  return [n, opcode, table](const KernelArgs& args) -> Status {
    if (Status s = CheckArity(args, 1, opcode); !s.ok()) return s;
    const auto* in = static_cast<const uint8_t*>(args.operands[0].data);
    auto* out = static_cast<uint8_t*>(args.results[0].data);
    ParallelFor(args.pool, n, [&](int64_t begin, int64_t end) {
      MapUnary<Bytes, Bytes>(in, out, begin, end,
                             [&](uint8_t x) -> uint8_t { return table[x]; });
    });
    return Status();
  };
}

template <template <typename> class Op>
StatusOr<Kernel> MakeUnary(const Instruction& inst, ElementType in_type) {
  return VisitElementType(in_type, [&](auto traits) -> StatusOr<Kernel> {
    using In = decltype(traits);
    using Fn = Op<In>;
    if constexpr (!Fn::kSupported) {
      return UnsupportedType(inst, In::kType);
    } else {
      using Out = typename Fn::Out;
      if (inst.shape().element_type() != Out::kType)
        return InvalidArgument(
            inst.Describe() + " of " + std::string(ElementTypeName(In::kType)) +
            " produces " + std::string(ElementTypeName(Out::kType)) + ", not " +
            std::string(ElementTypeName(inst.shape().element_type())));
      const int64_t n = inst.shape().num_elements();
      const Opcode opcode = inst.opcode();
      if constexpr (kIsByteFloat<In>) {
        using ComputeOut = typename Op<ByteFloatComputeTraits>::Out;
        static_assert(std::is_same_v<Out, In> ==
                      std::is_same_v<ComputeOut, ByteFloatComputeTraits>);
        return ByteFloatUnaryKernel<Op>(n, opcode, ByteFloatFormat::Of<In>());
      } else {
        return Kernel([n, opcode](const KernelArgs& args) -> Status {
          if (Status s = CheckArity(args, 1, opcode); !s.ok()) return s;
          const auto* in =
              static_cast<const typename In::Storage*>(args.operands[0].data);
          auto* out = static_cast<typename Out::Storage*>(args.results[0].data);
          ParallelFor(args.pool, n, [&](int64_t begin, int64_t end) {
            MapUnary<In, Out>(in, out, begin, end, Fn{});
          });
          return Status();
        });
      }
    }
  });
}

// f32 tanh in vector registers (cpu/vector_math.h) rather than libm per
// element: RNN cells and GELU spend most of their time here.
StatusOr<Kernel> VectorTanhF32(const Instruction& inst) {
  const int64_t n = inst.shape().num_elements();
  const Opcode opcode = inst.opcode();
  return Kernel([n, opcode](const KernelArgs& args) -> Status {
    if (Status s = CheckArity(args, 1, opcode); !s.ok()) return s;
    const auto* in = static_cast<const float*>(args.operands[0].data);
    auto* out = static_cast<float*>(args.results[0].data);
    ParallelFor(args.pool, n, [&](int64_t begin, int64_t end) {
      TanhF32(in + begin, out + begin, end - begin);
    });
    return Status();
  });
}

// log as XLA:CPU computes it under flushed subnormals: libm's log
// classifies its argument by its bits, which the DAZ mode does not touch, so
// log(-1e-40) would be NaN where XLA (arithmetic only) gives log(-0) = -inf.
// Adding zero is arithmetic: the mode reads the subnormal as zero there
// (and the sign of a zero does not change a real log).
template <typename Tr>
struct LogOfFlushedArgument {
  static constexpr bool kSupported = ops::Log<Tr>::kSupported;
  using V = typename Tr::Value;
  using Out = Tr;
  typename Out::Value operator()(V x) const {
    if constexpr (Tr::kIsComplex)
      return ops::Log<Tr>{}(x);
    else
      return ops::Log<Tr>{}(x + V{0});
  }
};

// f16 negate, abs and sign as XLA:CPU computes them, on the bits: a
// signalling NaN stays signalling, where a value widened to float would be
// quieted (probe, jax 0.10.2: tests/cpp/xla_half_nan_table.h). Sign of a
// NaN is the NaN itself.
StatusOr<Kernel> HalfSignBitKernel(const Instruction& inst) {
  using Half = ElementTraits<ElementType::kF16>;
  const int64_t n = inst.shape().num_elements();
  const Opcode opcode = inst.opcode();
  return Kernel([n, opcode](const KernelArgs& args) -> Status {
    if (Status s = CheckArity(args, 1, opcode); !s.ok()) return s;
    const auto* in = static_cast<const uint16_t*>(args.operands[0].data);
    auto* out = static_cast<uint16_t*>(args.results[0].data);
    ParallelFor(args.pool, n, [&](int64_t begin, int64_t end) {
      if (opcode == Opcode::kNegate) {
        for (int64_t i = begin; i < end; ++i)
          out[i] = static_cast<uint16_t>(in[i] ^ 0x8000u);
      } else if (opcode == Opcode::kAbs) {
        for (int64_t i = begin; i < end; ++i)
          out[i] = static_cast<uint16_t>(in[i] & 0x7fffu);
      } else {
        for (int64_t i = begin; i < end; ++i)
          out[i] = (in[i] & 0x7fffu) > 0x7c00u
                       ? in[i]
                       : Half::Store(ops::Sign<Half>{}(Half::Load(in[i])));
      }
    });
    return Status();
  });
}

}  // namespace

StatusOr<Kernel> MakeUnaryKernel(const Instruction& inst) {
  auto shapes = OperandShapes(inst, 1);
  if (!shapes.ok()) return shapes.status();
  const Shape& operand = *(*shapes)[0];
  if (Status s = CheckElementCount(inst, 0, operand); !s.ok()) return s;
  const ElementType type = operand.element_type();
  if (type == ElementType::kF16 && inst.shape().element_type() == type &&
      (inst.opcode() == Opcode::kNegate || inst.opcode() == Opcode::kAbs ||
       inst.opcode() == Opcode::kSign))
    return HalfSignBitKernel(inst);
  switch (inst.opcode()) {
    case Opcode::kAbs:
      return MakeUnary<ops::Abs>(inst, type);
    case Opcode::kNegate:
      return MakeUnary<ops::Negate>(inst, type);
    case Opcode::kSign:
      return MakeUnary<ops::Sign>(inst, type);
    case Opcode::kNot:
      return MakeUnary<ops::Not>(inst, type);
    case Opcode::kFloor:
      return MakeUnary<ops::Floor>(inst, type);
    case Opcode::kCeil:
      return MakeUnary<ops::Ceil>(inst, type);
    case Opcode::kRoundNearestAfz:
      return MakeUnary<ops::RoundNearestAfz>(inst, type);
    case Opcode::kRoundNearestEven:
      return MakeUnary<ops::RoundNearestEven>(inst, type);
    case Opcode::kExp:
      return MakeUnary<ops::Exp>(inst, type);
    case Opcode::kExpm1:
      return MakeUnary<ops::Expm1>(inst, type);
    case Opcode::kLog:
      return MakeUnary<LogOfFlushedArgument>(inst, type);
    case Opcode::kLog1p:
      return MakeUnary<ops::Log1p>(inst, type);
    case Opcode::kLogistic:
      return MakeUnary<ops::Logistic>(inst, type);
    case Opcode::kSqrt:
      return MakeUnary<ops::Sqrt>(inst, type);
    case Opcode::kRsqrt:
      return MakeUnary<ops::Rsqrt>(inst, type);
    case Opcode::kCbrt:
      return MakeUnary<ops::Cbrt>(inst, type);
    case Opcode::kTanh:
      if (type == ElementType::kF32 &&
          inst.shape().element_type() == ElementType::kF32)
        return VectorTanhF32(inst);
      return MakeUnary<ops::Tanh>(inst, type);
    case Opcode::kSin:
      return MakeUnary<ops::Sin>(inst, type);
    case Opcode::kCos:
      return MakeUnary<ops::Cos>(inst, type);
    case Opcode::kTan:
      return MakeUnary<ops::Tan>(inst, type);
    case Opcode::kIsFinite:
      return MakeUnary<ops::IsFinite>(inst, type);
    case Opcode::kPopulationCount:
      return MakeUnary<ops::PopulationCount>(inst, type);
    case Opcode::kClz:
      return MakeUnary<ops::CountLeadingZeros>(inst, type);
    case Opcode::kReal:
      return MakeUnary<ops::Real>(inst, type);
    case Opcode::kImag:
      return MakeUnary<ops::Imag>(inst, type);
    case Opcode::kErf:
      return MakeUnary<ops::Erf>(inst, type);
    case Opcode::kErfInv:
      return MakeUnary<ops::ErfInv>(inst, type);
    case Opcode::kLgamma:
      return MakeUnary<ops::Lgamma>(inst, type);
    case Opcode::kDigamma:
      return MakeUnary<ops::Digamma>(inst, type);
    case Opcode::kErfc:
      return MakeUnary<ops::Erfc>(inst, type);
    case Opcode::kBesselI1e:
      return MakeUnary<ops::BesselI1e>(inst, type);
    case Opcode::kAsin:
      return MakeUnary<ops::Asin>(inst, type);
    case Opcode::kAcos:
      return MakeUnary<ops::Acos>(inst, type);
    case Opcode::kAtan:
      return MakeUnary<ops::Atan>(inst, type);
    case Opcode::kAsinh:
      return MakeUnary<ops::Asinh>(inst, type);
    case Opcode::kAcosh:
      return MakeUnary<ops::Acosh>(inst, type);
    case Opcode::kAtanh:
      return MakeUnary<ops::Atanh>(inst, type);
    case Opcode::kSinh:
      return MakeUnary<ops::Sinh>(inst, type);
    case Opcode::kCosh:
      return MakeUnary<ops::Cosh>(inst, type);
    case Opcode::kIsInf:
      return MakeUnary<ops::IsInf>(inst, type);
    case Opcode::kIsPosInf:
      return MakeUnary<ops::IsPosInf>(inst, type);
    case Opcode::kIsNegInf:
      return MakeUnary<ops::IsNegInf>(inst, type);
    case Opcode::kConj:
      return MakeUnary<ops::Conj>(inst, type);
    default:
      return NotFound(inst.Describe() + " is not a unary elementwise op");
  }
}

}  // namespace xffi::cpu::internal
