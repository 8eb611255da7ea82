// convert (between every pair of element types) and bitcast-convert.
#include <cstring>
#include <type_traits>

#include "cpu/byte_float_format.h"
#include "cpu/element_convert.h"
#include "cpu/element_traits.h"
#include "cpu/elementwise_internal.h"
#include "cpu/elementwise_loops.h"

namespace xffi::cpu::internal {
namespace {

// One element of From's storage converted to To's (each an element's
// traits, or a byte-float format chosen at run time).
template <typename From, typename To>
typename To::Storage ConvertStored(const From& from, const To& to,
                                   typename From::Storage s) {
  using FromTraits = ComputeTraits<From>;
  if constexpr (std::is_same_v<To, ByteFloatFormat>)
    return ConvertToByteFloat<FromTraits>(
        from.Load(s), to,
        std::is_same_v<From, ByteFloatFormat> || kHeldAsHalf<FromTraits>);
  else
    return ConvertElement<FromTraits, To>(from.Load(s));
}

template <typename From, typename To>
Kernel ConvertKernel(int64_t n, From from, To to) {
  return [n, from, to](const KernelArgs& args) -> Status {
    if (Status s = CheckArity(args, 1, Opcode::kConvert); !s.ok()) return s;
    const auto* in =
        static_cast<const typename From::Storage*>(args.operands[0].data);
    auto* out = static_cast<typename To::Storage*>(args.results[0].data);
    ParallelFor(args.pool, n, [&](int64_t begin, int64_t end) {
      int64_t i = begin;
      for (; i + kBlock <= end; i += kBlock) {
        typename To::Storage block[kBlock];
        for (int j = 0; j < kBlock; ++j)
          block[j] = ConvertStored(from, to, in[i + j]);
        for (int j = 0; j < kBlock; ++j) out[i + j] = block[j];
      }
      for (; i < end; ++i) out[i] = ConvertStored(from, to, in[i]);
    });
    return Status();
  };
}

// Same type: a copy (skipped when the result shares the operand's buffer).
Kernel CopyKernel(size_t bytes, Opcode opcode) {
  return [bytes, opcode](const KernelArgs& args) -> Status {
    if (Status s = CheckArity(args, 1, opcode); !s.ok()) return s;
    if (args.results[0].data != args.operands[0].data && bytes > 0)
      std::memmove(args.results[0].data, args.operands[0].data, bytes);
    return Status();
  };
}

// Bitcasts between sub-byte types of one width (s4, u4, f4e2m1fn): each
// byte's low bits, re-read as the result type (sign-extended for signed).
Kernel SubByteBitcastKernel(int64_t n, int bits, bool to_signed) {
  return [n, bits, to_signed](const KernelArgs& args) -> Status {
    if (Status s = CheckArity(args, 1, Opcode::kBitcastConvert); !s.ok())
      return s;
    const auto* in = static_cast<const uint8_t*>(args.operands[0].data);
    auto* out = static_cast<uint8_t*>(args.results[0].data);
    const unsigned mask = (1u << bits) - 1;
    const int pad = 8 - bits;
    for (int64_t i = 0; i < n; ++i) {
      const unsigned low = in[i] & mask;
      out[i] =
          to_signed
              ? static_cast<uint8_t>(static_cast<int8_t>(low << pad) >> pad)
              : static_cast<uint8_t>(low);
    }
    return Status();
  };
}

}  // namespace

StatusOr<Kernel> MakeConvertKernel(const Instruction& inst) {
  auto shapes = OperandShapes(inst, 1);
  if (!shapes.ok()) return shapes.status();
  const Shape& operand = *(*shapes)[0];
  if (Status s = CheckElementCount(inst, 0, operand); !s.ok()) return s;
  const ElementType from = operand.element_type();
  const ElementType to = inst.shape().element_type();
  const int64_t n = inst.shape().num_elements();
  if (from == to) return CopyKernel(inst.shape().byte_size(), inst.opcode());
  // The byte floats fold into one instantiation on either side.
  return VisitFoldingByteFloats(from, [&](auto from_codec) -> StatusOr<Kernel> {
    return VisitFoldingByteFloats(to, [&](auto to_codec) -> StatusOr<Kernel> {
      return ConvertKernel(n, from_codec, to_codec);
    });
  });
}

StatusOr<Kernel> MakeBitcastConvertKernel(const Instruction& inst) {
  auto shapes = OperandShapes(inst, 1);
  if (!shapes.ok()) return shapes.status();
  const Shape& operand = *(*shapes)[0];
  const ElementType from = operand.element_type();
  const ElementType to = inst.shape().element_type();
  const int from_bits = ElementBitWidth(from);
  const int to_bits = ElementBitWidth(to);
  // XLA: equal widths keep the shape; a wider operand gains a minor
  // dimension of width ratio in the result, a narrower one loses it.
  std::vector<int64_t> expected = operand.dims();
  if (from_bits > to_bits && to_bits > 0 && from_bits % to_bits == 0) {
    expected.push_back(from_bits / to_bits);
  } else if (from_bits < to_bits && from_bits > 0 && to_bits % from_bits == 0) {
    if (expected.empty() || expected.back() != to_bits / from_bits)
      return InvalidArgument(
          inst.Describe() + ": bitcasting " + operand.ToString(false) + " to " +
          std::string(ElementTypeName(to)) + " needs a minor dimension of " +
          std::to_string(to_bits / from_bits));
    expected.pop_back();
  } else if (from_bits != to_bits) {
    return InvalidArgument(inst.Describe() + ": cannot bitcast " +
                           std::string(ElementTypeName(from)) + " to " +
                           std::string(ElementTypeName(to)));
  }
  if (expected != inst.shape().dims())
    return InvalidArgument(inst.Describe() + ": bitcasting " +
                           operand.ToString(false) + " gives " +
                           Shape::Array(to, expected).ToString(false) +
                           ", not " + inst.shape().ToString(false));
  const bool from_packed_bytes =
      static_cast<int>(ElementByteSize(from)) * 8 == from_bits;
  const bool to_packed_bytes =
      static_cast<int>(ElementByteSize(to)) * 8 == to_bits;
  if (from == to || (from_packed_bytes && to_packed_bytes))
    return CopyKernel(inst.shape().byte_size(), inst.opcode());
  // Sub-byte types (and pred, one bit in a byte) only bitcast to a type of
  // their own width.
  if (from_bits == to_bits && from != ElementType::kPred &&
      to != ElementType::kPred)
    return SubByteBitcastKernel(inst.shape().num_elements(), to_bits,
                                IsSignedIntegralType(to));
  return Unimplemented(inst.Describe() + ": bitcast-convert from " +
                       std::string(ElementTypeName(from)) + " to " +
                       std::string(ElementTypeName(to)) +
                       " is not supported on CPU (sub-byte elements are "
                       "stored one per byte)");
}

}  // namespace xffi::cpu::internal
