// The core ops as device kernel launches.
#include "device_backend/op_kernels.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "device_backend/convolution.h"
#include "device_backend/device_kernels.h"
#include "device_backend/dot_as_gemm.h"
#include "device_backend/fft.h"
#include "device_backend/rng.h"
#include "device_backend/sort_kernel.h"
#include "runtime/status_macros.h"

namespace xffi::device_backend {
namespace {

using compiler::BufferId;

uint8_t* Bytes(void* address) { return static_cast<uint8_t*>(address); }

std::optional<DType> ToDType(ElementType type) {
  switch (type) {
    case ElementType::kPred:
      return DType::kPred;
    case ElementType::kS8:
      return DType::kS8;
    case ElementType::kS16:
      return DType::kS16;
    case ElementType::kS32:
      return DType::kS32;
    case ElementType::kS64:
      return DType::kS64;
    case ElementType::kU8:
      return DType::kU8;
    case ElementType::kU16:
      return DType::kU16;
    case ElementType::kU32:
      return DType::kU32;
    case ElementType::kU64:
      return DType::kU64;
    case ElementType::kF32:
      return DType::kF32;
    case ElementType::kF64:
      return DType::kF64;
    case ElementType::kF16:
      return DType::kF16;
    case ElementType::kBF16:
      return DType::kBF16;
    case ElementType::kC64:
      return DType::kC64;
    case ElementType::kC128:
      return DType::kC128;
    default:
      return std::nullopt;
  }
}

std::optional<ElementOp> ToElementOp(const Instruction& op) {
  switch (op.opcode()) {
#define XFFI_DEVICE_OP(name) \
  case Opcode::k##name:      \
    return ElementOp::k##name;
    XFFI_DEVICE_OP(Negate)
    XFFI_DEVICE_OP(Abs)
    XFFI_DEVICE_OP(Sign)
    XFFI_DEVICE_OP(Not)
    XFFI_DEVICE_OP(Floor)
    XFFI_DEVICE_OP(Ceil)
    XFFI_DEVICE_OP(RoundNearestAfz)
    XFFI_DEVICE_OP(RoundNearestEven)
    XFFI_DEVICE_OP(Exp)
    XFFI_DEVICE_OP(Expm1)
    XFFI_DEVICE_OP(Log)
    XFFI_DEVICE_OP(Log1p)
    XFFI_DEVICE_OP(Logistic)
    XFFI_DEVICE_OP(Sqrt)
    XFFI_DEVICE_OP(Rsqrt)
    XFFI_DEVICE_OP(Cbrt)
    XFFI_DEVICE_OP(Tanh)
    XFFI_DEVICE_OP(Sin)
    XFFI_DEVICE_OP(Cos)
    XFFI_DEVICE_OP(Tan)
    XFFI_DEVICE_OP(IsFinite)
    XFFI_DEVICE_OP(Convert)
    XFFI_DEVICE_OP(Add)
    XFFI_DEVICE_OP(Subtract)
    XFFI_DEVICE_OP(Multiply)
    XFFI_DEVICE_OP(Divide)
    XFFI_DEVICE_OP(Remainder)
    XFFI_DEVICE_OP(Power)
    XFFI_DEVICE_OP(Maximum)
    XFFI_DEVICE_OP(Minimum)
    XFFI_DEVICE_OP(And)
    XFFI_DEVICE_OP(Or)
    XFFI_DEVICE_OP(Xor)
    XFFI_DEVICE_OP(ShiftLeft)
    XFFI_DEVICE_OP(ShiftRightArithmetic)
    XFFI_DEVICE_OP(ShiftRightLogical)
    XFFI_DEVICE_OP(Atan2)
    XFFI_DEVICE_OP(Select)
    XFFI_DEVICE_OP(Clamp)
    XFFI_DEVICE_OP(Real)
    XFFI_DEVICE_OP(Imag)
    XFFI_DEVICE_OP(Complex)
    XFFI_DEVICE_OP(Erf)
    XFFI_DEVICE_OP(PopulationCount)
    XFFI_DEVICE_OP(Clz)
    XFFI_DEVICE_OP(Asin)
    XFFI_DEVICE_OP(Acos)
    XFFI_DEVICE_OP(Atan)
    XFFI_DEVICE_OP(Asinh)
    XFFI_DEVICE_OP(Acosh)
    XFFI_DEVICE_OP(Atanh)
    XFFI_DEVICE_OP(Sinh)
    XFFI_DEVICE_OP(Cosh)
    XFFI_DEVICE_OP(Erfc)
    XFFI_DEVICE_OP(ErfInv)
    XFFI_DEVICE_OP(Lgamma)
    XFFI_DEVICE_OP(NextAfter)
    XFFI_DEVICE_OP(Digamma)
    XFFI_DEVICE_OP(BesselI1e)
    XFFI_DEVICE_OP(Zeta)
    XFFI_DEVICE_OP(Polygamma)
#undef XFFI_DEVICE_OP
    case Opcode::kCompare:
      if (op.comparison_type == ComparisonType::kTotalOrder) {
        switch (op.comparison_direction) {
          case ComparisonDirection::kEq:
            return ElementOp::kCompareTotalEq;
          case ComparisonDirection::kNe:
            return ElementOp::kCompareTotalNe;
          case ComparisonDirection::kGe:
            return ElementOp::kCompareTotalGe;
          case ComparisonDirection::kGt:
            return ElementOp::kCompareTotalGt;
          case ComparisonDirection::kLe:
            return ElementOp::kCompareTotalLe;
          case ComparisonDirection::kLt:
            return ElementOp::kCompareTotalLt;
        }
        return std::nullopt;
      }
      switch (op.comparison_direction) {
        case ComparisonDirection::kEq:
          return ElementOp::kCompareEq;
        case ComparisonDirection::kNe:
          return ElementOp::kCompareNe;
        case ComparisonDirection::kGe:
          return ElementOp::kCompareGe;
        case ComparisonDirection::kGt:
          return ElementOp::kCompareGt;
        case ComparisonDirection::kLe:
          return ElementOp::kCompareLe;
        case ComparisonDirection::kLt:
          return ElementOp::kCompareLt;
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

bool IsFloatOnly(ElementOp op) {
  switch (op) {
    case ElementOp::kFloor:
    case ElementOp::kCeil:
    case ElementOp::kRoundNearestAfz:
    case ElementOp::kRoundNearestEven:
    case ElementOp::kExp:
    case ElementOp::kExpm1:
    case ElementOp::kLog:
    case ElementOp::kLog1p:
    case ElementOp::kLogistic:
    case ElementOp::kSqrt:
    case ElementOp::kRsqrt:
    case ElementOp::kCbrt:
    case ElementOp::kTanh:
    case ElementOp::kSin:
    case ElementOp::kCos:
    case ElementOp::kTan:
    case ElementOp::kIsFinite:
    case ElementOp::kPower:
    case ElementOp::kAtan2:
    case ElementOp::kErf:
    case ElementOp::kAsin:
    case ElementOp::kAcos:
    case ElementOp::kAtan:
    case ElementOp::kAsinh:
    case ElementOp::kAcosh:
    case ElementOp::kAtanh:
    case ElementOp::kSinh:
    case ElementOp::kCosh:
    case ElementOp::kErfc:
    case ElementOp::kErfInv:
    case ElementOp::kLgamma:
    case ElementOp::kNextAfter:
    case ElementOp::kDigamma:
    case ElementOp::kBesselI1e:
    case ElementOp::kZeta:
    case ElementOp::kPolygamma:
      return true;
    default:
      return false;
  }
}

// The ops complex operands take.
bool TakesComplex(ElementOp op) {
  switch (op) {
    case ElementOp::kNegate:
    case ElementOp::kAbs:
    case ElementOp::kSign:
    case ElementOp::kExp:
    case ElementOp::kExpm1:
    case ElementOp::kLog:
    case ElementOp::kLog1p:
    case ElementOp::kSqrt:
    case ElementOp::kRsqrt:
    case ElementOp::kLogistic:
    case ElementOp::kPower:
    case ElementOp::kSin:
    case ElementOp::kCos:
    case ElementOp::kTan:
    case ElementOp::kTanh:
    case ElementOp::kSinh:
    case ElementOp::kCosh:
    case ElementOp::kAsin:
    case ElementOp::kAcos:
    case ElementOp::kAtan:
    case ElementOp::kAsinh:
    case ElementOp::kAcosh:
    case ElementOp::kAtanh:
    case ElementOp::kConvert:
    case ElementOp::kAdd:
    case ElementOp::kSubtract:
    case ElementOp::kMultiply:
    case ElementOp::kDivide:
    case ElementOp::kCompareEq:
    case ElementOp::kCompareNe:
    case ElementOp::kSelect:
    case ElementOp::kReal:
    case ElementOp::kImag:
      return true;
    default:
      return false;
  }
}

bool IsIntegerOnly(ElementOp op) {
  switch (op) {
    case ElementOp::kPopulationCount:
    case ElementOp::kClz:
    case ElementOp::kNot:
    case ElementOp::kAnd:
    case ElementOp::kOr:
    case ElementOp::kXor:
    case ElementOp::kShiftLeft:
    case ElementOp::kShiftRightArithmetic:
    case ElementOp::kShiftRightLogical:
      return true;
    default:
      return false;
  }
}

// Why `kind` cannot take operands of `type`, if it cannot.
std::optional<std::string> OperandTypeProblem(ElementOp kind, DType type) {
  const ValueClass value_class = ClassOf(type);
  if (value_class == ValueClass::kComplex) {
    if (!TakesComplex(kind))
      return std::string("complex operands are not implemented for this op");
    return std::nullopt;
  }
  if (kind == ElementOp::kComplex && type != DType::kF32 && type != DType::kF64)
    return std::string("complex takes f32 or f64 parts");
  if (IsFloatOnly(kind) && value_class != ValueClass::kFloat)
    return std::string("only float operands are implemented");
  if (IsIntegerOnly(kind) && value_class == ValueClass::kFloat)
    return std::string("float operands are not valid");
  return std::nullopt;
}

StatusOr<Launcher> ElementwiseLauncher(const Instruction& op, ElementOp kind,
                                       const std::vector<BufferId>& operands,
                                       BufferId result) {
  // The arithmetic type: select's and clamp's are their value operands'.
  const Instruction* typed = op.operand(op.opcode() == Opcode::kSelect ? 1 : 0);
  StatusOr<DType> in_type = TypeOf(op, typed->shape());
  if (!in_type.ok()) return in_type.status();
  StatusOr<DType> out_type = TypeOf(op, op.shape());
  if (!out_type.ok()) return out_type.status();
  if (std::optional<std::string> problem = OperandTypeProblem(kind, *in_type))
    return Unsupported(op, *problem);
  ElementwiseKernel kernel;
  kernel.op = kind;
  kernel.in_type = *in_type;
  kernel.out_type = *out_type;
  kernel.operands = static_cast<int32_t>(op.operand_count());
  kernel.n = op.shape().num_elements();
  for (int64_t k = 0; k < op.operand_count(); ++k)
    kernel.in_scalar[k] =
        op.operand(k)->shape().num_elements() == 1 && kernel.n != 1;
  std::vector<BufferId> ids = operands;
  return Launcher([kernel, ids, result](device::Stream& stream,
                                        void* const* addresses) mutable {
    for (size_t k = 0; k < ids.size(); ++k)
      kernel.in[k] = Bytes(addresses[ids[k]]);
    kernel.out = Bytes(addresses[result]);
    return LaunchKernel(stream, ElementwiseKernel::kName, kernel.n, kernel);
  });
}

// The contraction kernel's dot accumulates real values only.
bool HasNarrowOrComplexOperand(const Instruction& op) {
  for (const Instruction* operand : op.operands()) {
    const ElementType type = operand->shape().element_type();
    if (type == ElementType::kF16 || type == ElementType::kBF16 ||
        type == ElementType::kC64 || type == ElementType::kC128)
      return true;
  }
  return false;
}

StridedCopyKernel CopyOver(const std::vector<int64_t>& dims,
                           size_t element_size) {
  StridedCopyKernel copy;
  copy.rank = static_cast<int32_t>(dims.size());
  copy.element_size = static_cast<int32_t>(element_size);
  copy.n = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    copy.dims[d] = dims[d];
    copy.n *= dims[d];
  }
  std::vector<int64_t> strides = RowMajorStrides(dims);
  for (size_t d = 0; d < dims.size(); ++d) copy.dst_strides[d] = strides[d];
  return copy;
}

StatusOr<Launcher> DataMovementLauncher(const Instruction& op,
                                        const std::vector<BufferId>& operands,
                                        BufferId result) {
  const Shape& out = op.shape();
  const size_t element_size = ElementByteSize(out.element_type());
  const std::vector<int64_t>& out_dims = out.dims();
  const Shape& in = op.operand(0)->shape();
  const std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
  switch (op.opcode()) {
    case Opcode::kBroadcast: {
      StridedCopyKernel copy = CopyOver(out_dims, element_size);
      for (size_t k = 0; k < op.dimensions.size(); ++k) {
        const size_t d = static_cast<size_t>(op.dimensions[k]);
        copy.src_strides[d] =
            in.dim(static_cast<int64_t>(k)) == 1 && out_dims[d] != 1
                ? 0
                : in_strides[k];
      }
      return StridedCopyLauncher({copy}, {{operands[0], result}});
    }
    case Opcode::kTranspose: {
      StridedCopyKernel copy = CopyOver(out_dims, element_size);
      for (size_t d = 0; d < out_dims.size(); ++d)
        copy.src_strides[d] = in_strides[static_cast<size_t>(op.dimensions[d])];
      return StridedCopyLauncher({copy}, {{operands[0], result}});
    }
    case Opcode::kSlice: {
      StridedCopyKernel copy = CopyOver(out_dims, element_size);
      for (size_t d = 0; d < out_dims.size(); ++d) {
        const int64_t step = op.slice_strides.empty() ? 1 : op.slice_strides[d];
        copy.src_strides[d] = in_strides[d] * step;
        copy.src_offset += op.slice_starts[d] * in_strides[d];
      }
      return StridedCopyLauncher({copy}, {{operands[0], result}});
    }
    case Opcode::kReverse: {
      StridedCopyKernel copy = CopyOver(out_dims, element_size);
      for (size_t d = 0; d < out_dims.size(); ++d)
        copy.src_strides[d] = in_strides[d];
      for (int64_t dimension : op.dimensions) {
        const size_t d = static_cast<size_t>(dimension);
        copy.src_strides[d] = -in_strides[d];
        copy.src_offset += (out_dims[d] - 1) * in_strides[d];
      }
      return StridedCopyLauncher({copy}, {{operands[0], result}});
    }
    case Opcode::kConcatenate: {
      const size_t axis = static_cast<size_t>(op.dimensions[0]);
      const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
      std::vector<StridedCopyKernel> copies;
      std::vector<std::pair<BufferId, BufferId>> ids;
      int64_t position = 0;
      for (int64_t k = 0; k < op.operand_count(); ++k) {
        const std::vector<int64_t>& dims = op.operand(k)->shape().dims();
        StridedCopyKernel copy = CopyOver(dims, element_size);
        std::vector<int64_t> strides = RowMajorStrides(dims);
        for (size_t d = 0; d < dims.size(); ++d) {
          copy.src_strides[d] = strides[d];
          copy.dst_strides[d] = out_strides[d];
        }
        copy.dst_offset = position * out_strides[axis];
        position += dims[axis];
        copies.push_back(copy);
        ids.emplace_back(operands[static_cast<size_t>(k)], result);
      }
      return StridedCopyLauncher(std::move(copies), std::move(ids));
    }
    case Opcode::kPad: {
      // The padding value everywhere, then the operand over it.
      const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
      StridedCopyKernel fill = CopyOver(out_dims, element_size);
      StridedCopyKernel body = CopyOver(in.dims(), element_size);
      // Negative padding cuts the operand: only its elements that land
      // inside the result are copied.
      body.n = 1;
      for (size_t d = 0; d < in.dims().size(); ++d) {
        const PadDimension& pad = op.padding[d];
        const int64_t step = pad.interior + 1;
        const int64_t first = pad.low < 0 ? (-pad.low + step - 1) / step : 0;
        const int64_t last = std::min<int64_t>(
            in.dims()[d] - 1, out_dims[d] - 1 - pad.low < 0
                                  ? -1
                                  : (out_dims[d] - 1 - pad.low) / step);
        body.dims[d] = std::max<int64_t>(last - first + 1, 0);
        body.n *= body.dims[d];
        body.src_strides[d] = in_strides[d];
        body.src_offset += first * in_strides[d];
        body.dst_strides[d] = out_strides[d] * step;
        body.dst_offset += (pad.low + first * step) * out_strides[d];
      }
      return StridedCopyLauncher(
          {fill, body}, {{operands[1], result}, {operands[0], result}});
    }
    default:
      return Unsupported(op, "no device kernel");
  }
}

// The combiner of a reduce region `lhs op rhs` over its two parameters.
std::optional<ElementOp> ReduceCombiner(const Computation& region) {
  const Instruction* root = region.root();
  if (region.parameters().size() != 2 || root->operand_count() != 2)
    return std::nullopt;
  if (root->operand(0)->opcode() != Opcode::kParameter ||
      root->operand(1)->opcode() != Opcode::kParameter ||
      root->operand(0) == root->operand(1))
    return std::nullopt;
  switch (root->opcode()) {
    case Opcode::kAdd:
      return ElementOp::kAdd;
    case Opcode::kMultiply:
      return ElementOp::kMultiply;
    case Opcode::kMaximum:
      return ElementOp::kMaximum;
    case Opcode::kMinimum:
      return ElementOp::kMinimum;
    case Opcode::kAnd:
      return ElementOp::kAnd;
    case Opcode::kOr:
      return ElementOp::kOr;
    default:
      return std::nullopt;
  }
}

Launcher ContractionLauncher(ContractionKernel kernel, BufferId lhs,
                             BufferId rhs, BufferId init, BufferId result) {
  return [kernel, lhs, rhs, init, result](device::Stream& stream,
                                          void* const* addresses) mutable {
    kernel.lhs = Bytes(addresses[lhs]);
    kernel.rhs = rhs == compiler::kNoBuffer ? nullptr : Bytes(addresses[rhs]);
    kernel.init =
        init == compiler::kNoBuffer ? nullptr : Bytes(addresses[init]);
    kernel.out = Bytes(addresses[result]);
    return LaunchKernel(stream, ContractionKernel::kName, kernel.n, kernel);
  };
}

StatusOr<Launcher> VariadicReduceLauncher(const Instruction& op,
                                          const std::vector<BufferId>& operands,
                                          const std::vector<BufferId>& results);

StatusOr<Launcher> ReduceLauncher(const Instruction& op,
                                  const std::vector<BufferId>& operands,
                                  BufferId result) {
  if (op.operand_count() != 2 || op.shape().IsTuple())
    return Unsupported(op, "only single-input reduces are implemented");
  std::optional<ElementOp> combiner =
      ReduceCombiner(*op.called_computations()[0]);
  StatusOr<DType> type = TypeOf(op, op.shape());
  if (!type.ok()) return type.status();
  // Other regions are interpreted, as a reduce of one input and init.
  if (!combiner ||
      (ClassOf(*type) == ValueClass::kComplex && *combiner != ElementOp::kAdd &&
       *combiner != ElementOp::kMultiply))
    return VariadicReduceLauncher(op, operands, {result});
  const Shape& in = op.operand(0)->shape();
  if (in.rank() > kMaxRank) return Unsupported(op, "rank above 8");
  const std::vector<int64_t> strides = RowMajorStrides(in.dims());
  ContractionKernel kernel;
  kernel.op = *combiner;
  kernel.lhs_type = kernel.out_type = *type;
  kernel.n = op.shape().num_elements();
  std::vector<bool> reduced(static_cast<size_t>(in.rank()), false);
  for (int64_t d : op.dimensions) reduced[static_cast<size_t>(d)] = true;
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (reduced[d]) {
      kernel.k_dims[kernel.k_rank] = in.dims()[d];
      kernel.lhs_k_strides[kernel.k_rank++] = strides[d];
      kernel.k_count *= in.dims()[d];
    } else {
      kernel.out_dims[kernel.out_rank] = in.dims()[d];
      kernel.lhs_out_strides[kernel.out_rank++] = strides[d];
    }
  }
  return ContractionLauncher(kernel, operands[0], compiler::kNoBuffer,
                             operands[1], result);
}

// Through the device's GEMM (cuBLAS) where the types allow; the contraction
// functor for the rest (integer dots, mixed operand types).
StatusOr<Launcher> DotLauncher(const Instruction& op,
                               const std::vector<BufferId>& operands,
                               BufferId result, const ReserveScratch& scratch) {
  if (std::optional<Launcher> gemm =
          MakeGemmDotLauncher(op, operands, result, scratch))
    return std::move(*gemm);
  // The per-element functor is checked for integer and f32/f64 dots only.
  if (HasNarrowOrComplexOperand(op))
    return Unsupported(op, "f16, bf16 and complex dots that are not one GEMM");
  const DotDimensionNumbers& numbers = op.dot_dimension_numbers;
  const Shape& lhs = op.operand(0)->shape();
  const Shape& rhs = op.operand(1)->shape();
  ContractionKernel kernel;
  kernel.is_dot = true;
  StatusOr<DType> lhs_type = TypeOf(op, lhs);
  if (!lhs_type.ok()) return lhs_type.status();
  StatusOr<DType> rhs_type = TypeOf(op, rhs);
  if (!rhs_type.ok()) return rhs_type.status();
  StatusOr<DType> out_type = TypeOf(op, op.shape());
  if (!out_type.ok()) return out_type.status();
  if (*out_type == DType::kPred) return Unsupported(op, "a pred result");
  kernel.lhs_type = *lhs_type;
  kernel.rhs_type = *rhs_type;
  kernel.out_type = *out_type;
  kernel.n = op.shape().num_elements();
  if (op.shape().rank() > kMaxRank ||
      static_cast<int64_t>(numbers.lhs_contracting.size()) > kMaxRank)
    return Unsupported(op, "rank above 8");
  const std::vector<int64_t> lhs_strides = RowMajorStrides(lhs.dims());
  const std::vector<int64_t> rhs_strides = RowMajorStrides(rhs.dims());
  auto add_out = [&](int64_t size, int64_t lhs_stride, int64_t rhs_stride) {
    kernel.out_dims[kernel.out_rank] = size;
    kernel.lhs_out_strides[kernel.out_rank] = lhs_stride;
    kernel.rhs_out_strides[kernel.out_rank++] = rhs_stride;
  };
  auto contains = [](const std::vector<int64_t>& list, int64_t d) {
    for (int64_t x : list)
      if (x == d) return true;
    return false;
  };
  // The result's dimensions: batch, then lhs's free, then rhs's free.
  for (size_t b = 0; b < numbers.lhs_batch.size(); ++b)
    add_out(lhs.dim(numbers.lhs_batch[b]),
            lhs_strides[static_cast<size_t>(numbers.lhs_batch[b])],
            rhs_strides[static_cast<size_t>(numbers.rhs_batch[b])]);
  for (int64_t d = 0; d < lhs.rank(); ++d)
    if (!contains(numbers.lhs_batch, d) &&
        !contains(numbers.lhs_contracting, d))
      add_out(lhs.dim(d), lhs_strides[static_cast<size_t>(d)], 0);
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (!contains(numbers.rhs_batch, d) &&
        !contains(numbers.rhs_contracting, d))
      add_out(rhs.dim(d), 0, rhs_strides[static_cast<size_t>(d)]);
  for (size_t k = 0; k < numbers.lhs_contracting.size(); ++k) {
    const int64_t size = lhs.dim(numbers.lhs_contracting[k]);
    kernel.k_dims[kernel.k_rank] = size;
    kernel.lhs_k_strides[kernel.k_rank] =
        lhs_strides[static_cast<size_t>(numbers.lhs_contracting[k])];
    kernel.rhs_k_strides[kernel.k_rank++] =
        rhs_strides[static_cast<size_t>(numbers.rhs_contracting[k])];
    kernel.k_count *= size;
  }
  return ContractionLauncher(kernel, operands[0], operands[1],
                             compiler::kNoBuffer, result);
}

StatusOr<Launcher> DynamicWindowLauncher(const Instruction& op,
                                         const std::vector<BufferId>& operands,
                                         BufferId result) {
  const bool update = op.opcode() == Opcode::kDynamicUpdateSlice;
  const Shape& full = op.operand(0)->shape();
  const Shape& window = update ? op.operand(1)->shape() : op.shape();
  const size_t first_start = update ? 2 : 1;
  if (operands.size() != first_start + static_cast<size_t>(full.rank()))
    return Unsupported(op, "start indices as one array operand");
  StatusOr<DType> index_type =
      TypeOf(op, op.operand(static_cast<int64_t>(first_start))->shape());
  if (!index_type.ok()) return index_type.status();
  DynamicWindowKernel kernel;
  kernel.update = update;
  kernel.index_type = *index_type;
  kernel.rank = static_cast<int32_t>(full.rank());
  kernel.element_size =
      static_cast<int32_t>(ElementByteSize(full.element_type()));
  kernel.n = window.num_elements();
  for (int64_t d = 0; d < full.rank(); ++d) {
    kernel.dims[d] = window.dim(d);
    kernel.full_dims[d] = full.dim(d);
  }
  const size_t bytes = full.byte_size();
  return Launcher([kernel, operands, result, update, first_start, bytes](
                      device::Stream& stream, void* const* addresses) mutable {
    if (update && addresses[operands[0]] != addresses[result] && bytes > 0)
      XFFI_RETURN_IF_ERROR(stream.CopyDeviceToDevice(
          addresses[result], addresses[operands[0]], bytes));
    kernel.src = Bytes(addresses[operands[update ? 1 : 0]]);
    kernel.dst = Bytes(addresses[result]);
    for (int32_t d = 0; d < kernel.rank; ++d)
      kernel.starts[d] = Bytes(addresses[operands[first_start + d]]);
    return LaunchKernel(stream, DynamicWindowKernel::kName, kernel.n, kernel);
  });
}

// The gather's index arithmetic (GatherGeometry), or the refusal.
StatusOr<GatherGeometry> MakeGatherGeometry(const Instruction& op) {
  const GatherDimensionNumbers& numbers = op.gather_dimension_numbers;
  if (numbers.operand_batching_dims.size() > static_cast<size_t>(kMaxRank) ||
      numbers.operand_batching_dims.size() !=
          numbers.start_indices_batching_dims.size())
    return Unsupported(op, "inconsistent batching dimensions");
  const Shape& operand = op.operand(0)->shape();
  const Shape& indices = op.operand(1)->shape();
  StatusOr<DType> index_type = TypeOf(op, indices);
  if (!index_type.ok()) return index_type.status();
  GatherGeometry geometry;
  geometry.index_type = *index_type;
  geometry.out_rank = static_cast<int32_t>(op.shape().rank());
  geometry.operand_rank = static_cast<int32_t>(operand.rank());
  geometry.indices_rank = static_cast<int32_t>(indices.rank());
  geometry.index_vector_dim = static_cast<int32_t>(numbers.index_vector_dim);
  geometry.starts = static_cast<int32_t>(numbers.start_index_map.size());
  for (int64_t d = 0; d < operand.rank(); ++d) {
    geometry.operand_dims[d] = operand.dim(d);
    geometry.slice_sizes[d] = op.gather_slice_sizes[static_cast<size_t>(d)];
  }
  for (int64_t d = 0; d < indices.rank(); ++d)
    geometry.indices_dims[d] = indices.dim(d);
  for (size_t k = 0; k < numbers.start_index_map.size(); ++k)
    geometry.start_index_map[k] =
        static_cast<int32_t>(numbers.start_index_map[k]);
  geometry.batching =
      static_cast<int32_t>(numbers.operand_batching_dims.size());
  for (size_t b = 0; b < numbers.operand_batching_dims.size(); ++b) {
    geometry.operand_batching_dims[b] =
        static_cast<int32_t>(numbers.operand_batching_dims[b]);
    geometry.indices_batching_dims[b] =
        static_cast<int32_t>(numbers.start_indices_batching_dims[b]);
  }
  // Offset dimensions walk the operand's uncollapsed dimensions in order;
  // batch dimensions walk the indices' dimensions other than the index
  // vector's, in order.
  std::vector<int32_t> uncollapsed, batch;
  auto listed = [](const std::vector<int64_t>& list, int64_t d) {
    return std::find(list.begin(), list.end(), d) != list.end();
  };
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (!listed(numbers.collapsed_slice_dims, d) &&
        !listed(numbers.operand_batching_dims, d))
      uncollapsed.push_back(static_cast<int32_t>(d));
  for (int64_t d = 0; d < indices.rank(); ++d)
    if (d != numbers.index_vector_dim) batch.push_back(static_cast<int32_t>(d));
  size_t next_offset = 0, next_batch = 0;
  for (int64_t o = 0; o < op.shape().rank(); ++o) {
    geometry.out_dims[o] = op.shape().dim(o);
    geometry.out_to_operand[o] = geometry.out_to_indices[o] = -1;
    if (std::find(numbers.offset_dims.begin(), numbers.offset_dims.end(), o) !=
        numbers.offset_dims.end()) {
      if (next_offset >= uncollapsed.size())
        return Unsupported(op, "inconsistent offset dimensions");
      geometry.out_to_operand[o] = uncollapsed[next_offset++];
    } else {
      if (next_batch >= batch.size())
        return Unsupported(op, "inconsistent batch dimensions");
      geometry.out_to_indices[o] = batch[next_batch++];
    }
  }
  return geometry;
}

StatusOr<Launcher> GatherLauncher(const Instruction& op,
                                  const std::vector<BufferId>& operands,
                                  BufferId result) {
  StatusOr<GatherGeometry> geometry = MakeGatherGeometry(op);
  if (!geometry.ok()) return geometry.status();
  GatherKernel kernel;
  kernel.geometry = *geometry;
  kernel.element_size = static_cast<int32_t>(
      ElementByteSize(op.operand(0)->shape().element_type()));
  kernel.n = op.shape().num_elements();
  return Launcher([kernel, operands, result](device::Stream& stream,
                                             void* const* addresses) mutable {
    kernel.operand = Bytes(addresses[operands[0]]);
    kernel.indices = Bytes(addresses[operands[1]]);
    kernel.out = Bytes(addresses[result]);
    return LaunchKernel(stream, GatherKernel::kName, kernel.n, kernel);
  });
}

// The value of a one-element constant, loaded as the kernels hold values.
std::optional<Value> ScalarConstant(const Instruction& constant, DType type) {
  const Shape& shape = constant.literal.shape();
  if (!shape.IsArray() || shape.num_elements() != 1) return std::nullopt;
  return Load(constant.literal.data(), 0, type);
}

// Turns a computation's elementwise instructions into FusedSteps, in
// order: what the fused loop and the scalar regions interpret.
class StepBuilder {
 public:
  StepBuilder(FusedStep* steps, int32_t* count, int32_t capacity)
      : steps_(steps), count_(count), capacity_(capacity) {}

  // A step reading input `number`.
  bool AddInput(const Instruction* parameter, int16_t number) {
    std::optional<DType> type = ToDType(parameter->shape().element_type());
    if (!type) return false;
    FusedStep step;
    step.kind = StepKind::kInput;
    step.in_type = step.out_type = *type;
    step.args[0] = number;
    return Append(parameter, step);
  }

  // A constant, a view of an earlier step, or an elementwise op on earlier
  // steps; false for anything else.
  bool Add(const Instruction* instruction) {
    const Shape& shape = instruction->shape();
    if (!shape.IsArray()) return false;
    std::optional<DType> type = ToDType(shape.element_type());
    if (!type) return false;
    FusedStep step;
    step.out_type = step.in_type = *type;
    switch (instruction->opcode()) {
      case Opcode::kConstant: {
        std::optional<Value> value = ScalarConstant(*instruction, *type);
        if (!value) return false;
        step.kind = StepKind::kConstant;
        step.constant = *value;
        return Append(instruction, step);
      }
      case Opcode::kBroadcast:
      case Opcode::kReshape:
      case Opcode::kBitcastConvert:
      case Opcode::kCopy: {
        // Same elements in the same row-major order (or a scalar spread):
        // the operand's step serves.
        const Instruction* operand = instruction->operand(0);
        const int64_t from = operand->shape().num_elements();
        if (instruction->opcode() == Opcode::kBitcastConvert &&
            operand->shape().element_type() != shape.element_type())
          return false;
        if (from != 1 && from != shape.num_elements()) return false;
        if (instruction->opcode() == Opcode::kBroadcast && from != 1 &&
            operand->shape().dims() != shape.dims())
          return false;
        auto found = step_of_.find(operand);
        if (found == step_of_.end()) return false;
        step_of_[instruction] = found->second;
        return true;
      }
      default:
        break;
    }
    std::optional<ElementOp> kind = ToElementOp(*instruction);
    if (!kind || instruction->operand_count() > 3) return false;
    const Instruction* typed =
        instruction->operand(instruction->opcode() == Opcode::kSelect ? 1 : 0);
    std::optional<DType> in_type = ToDType(typed->shape().element_type());
    if (!in_type || OperandTypeProblem(*kind, *in_type)) return false;
    step.kind = StepKind::kOp;
    step.op = *kind;
    step.in_type = *in_type;
    for (int64_t k = 0; k < instruction->operand_count(); ++k) {
      auto found = step_of_.find(instruction->operand(k));
      if (found == step_of_.end()) return false;
      step.args[k] = found->second;
    }
    return Append(instruction, step);
  }

  // A step made elsewhere (a fused gather) holding `instruction`'s value.
  bool AddStep(const Instruction* instruction, const FusedStep& step) {
    return Append(instruction, step);
  }

  // The step holding `instruction`'s value, or -1.
  int16_t StepOf(const Instruction* instruction) const {
    auto found = step_of_.find(instruction);
    return found == step_of_.end() ? int16_t{-1} : found->second;
  }

  // Makes `root`'s value the last step (a root that is a view of an earlier
  // step is copied through a convert to its own type).
  bool FinishAt(const Instruction* root) {
    auto found = step_of_.find(root);
    if (found == step_of_.end() || *count_ == 0) return false;
    if (found->second == *count_ - 1) return true;
    FusedStep step;
    step.kind = StepKind::kOp;
    step.op = ElementOp::kConvert;
    step.in_type = step.out_type = steps_[found->second].out_type;
    step.args[0] = found->second;
    return Append(root, step);
  }

 private:
  bool Append(const Instruction* instruction, const FusedStep& step) {
    if (*count_ >= capacity_) return false;
    step_of_[instruction] = static_cast<int16_t>(*count_);
    steps_[(*count_)++] = step;
    return true;
  }

  FusedStep* steps_;
  int32_t* count_;
  int32_t capacity_;
  std::unordered_map<const Instruction*, int16_t> step_of_;
};

// A region of scalar parameters and elementwise ops as steps, its root one
// of them or a tuple of them; nullopt for anything else (non-scalar values,
// ops the kernels lack).
std::optional<RegionProgram> CompileRegion(const Computation& region) {
  if (region.parameters().size() > static_cast<size_t>(kMaxRegionParameters))
    return std::nullopt;
  RegionProgram program;
  StepBuilder builder(program.steps, &program.count, kMaxRegionSteps);
  const Instruction* root = region.root();
  for (const auto& owned : region.instructions()) {
    const Instruction* instruction = owned.get();
    if (instruction == root && root->opcode() == Opcode::kTuple) {
      if (root->operand_count() > kMaxRegionResults) return std::nullopt;
      for (const Instruction* element : root->operands()) {
        const int16_t step = builder.StepOf(element);
        if (step < 0) return std::nullopt;
        program.results[program.result_count++] = step;
      }
      return program;
    }
    if (!instruction->shape().IsArray() ||
        instruction->shape().num_elements() != 1)
      return std::nullopt;
    const bool added =
        instruction->opcode() == Opcode::kParameter
            ? builder.AddInput(instruction, static_cast<int16_t>(
                                                instruction->parameter_number))
            : builder.Add(instruction);
    if (!added) return std::nullopt;
  }
  if (!builder.FinishAt(region.root())) return std::nullopt;
  return program;
}

// A two-parameter combiner region (old value, new value) over `type`: one
// op or a copy where it is one, else the region interpreted.
StatusOr<Combiner> MakeCombiner(const Instruction& op,
                                const Computation& region, DType type) {
  Combiner combiner;
  const Instruction* root = region.root();
  if (region.parameters().size() != 2)
    return Unsupported(op, "only regions of one value pair are implemented");
  if (root == region.parameters()[1]) {
    combiner.kind = CombineKind::kSet;
    return combiner;
  }
  if (std::optional<ElementOp> fast = ReduceCombiner(region)) {
    if (!OperandTypeProblem(*fast, type) &&
        (ClassOf(type) != ValueClass::kComplex || *fast == ElementOp::kAdd ||
         *fast == ElementOp::kMultiply)) {
      combiner.op = *fast;
      return combiner;
    }
  }
  std::optional<RegionProgram> program = CompileRegion(region);
  if (!program || program->result_count != 0)
    return Unsupported(op,
                       "its region is not scalar elementwise ops of at most " +
                           std::to_string(kMaxRegionSteps) + " steps");
  combiner.kind = CombineKind::kRegion;
  combiner.region = *program;
  return combiner;
}

// The operand's bytes into the result, unless they share a buffer.
Status CopyUnlessSame(device::Stream& stream, void* const* addresses,
                      BufferId from, BufferId to, size_t size) {
  if (size == 0 || addresses[from] == addresses[to]) return Status::Ok();
  return stream.CopyDeviceToDevice(addresses[to], addresses[from], size);
}

bool Contains(const std::vector<int64_t>& list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The combiner of `count` accumulators of `types`: MakeCombiner's for one,
// else the region (params: accumulators, then values) returning a tuple of
// `count`.
StatusOr<Combiner> MakeVariadicCombiner(const Instruction& op,
                                        const Computation& region,
                                        const DType* types, size_t count) {
  if (count == 1) return MakeCombiner(op, region, types[0]);
  std::optional<RegionProgram> program = CompileRegion(region);
  if (!program || program->result_count != static_cast<int32_t>(count))
    return Unsupported(
        op, "its region is not scalar elementwise ops of at most " +
                std::to_string(kMaxRegionSteps) + " steps returning a tuple");
  Combiner combiner;
  combiner.kind = CombineKind::kRegion;
  combiner.region = *program;
  return combiner;
}

// The element types of `count` operands of `op` from operand `first` on.
Status OperandTypes(const Instruction& op, int64_t first, size_t count,
                    DType* types) {
  for (size_t k = 0; k < count; ++k) {
    StatusOr<DType> type =
        TypeOf(op, op.operand(first + static_cast<int64_t>(k))->shape());
    if (!type.ok()) return type.status();
    types[k] = *type;
  }
  return Status::Ok();
}

// scatter of N operands (operands: N operands, the indices, N updates)
// into N results.
StatusOr<Launcher> ScatterLauncher(const Instruction& op,
                                   const std::vector<BufferId>& operands,
                                   const std::vector<BufferId>& results) {
  const ScatterDimensionNumbers& numbers = op.scatter_dimension_numbers;
  const size_t count = results.size();
  if (count == 0 || count > static_cast<size_t>(kMaxRegionResults))
    return Unsupported(op, "more than " + std::to_string(kMaxRegionResults) +
                               " operands are not implemented");
  if (operands.size() != 2 * count + 1 ||
      op.operand_count() != static_cast<int64_t>(2 * count + 1))
    return Unsupported(op, "token or tuple operands");
  if (numbers.input_batching_dims.size() !=
      numbers.scatter_indices_batching_dims.size())
    return Unsupported(op, "inconsistent batching dimensions");
  const int64_t indices_at = static_cast<int64_t>(count);
  const Shape& operand = op.operand(0)->shape();
  const Shape& indices = op.operand(indices_at)->shape();
  const Shape& updates = op.operand(indices_at + 1)->shape();
  ScatterKernel kernel;
  kernel.operands = static_cast<int32_t>(count);
  XFFI_RETURN_IF_ERROR(OperandTypes(op, 0, count, kernel.types));
  StatusOr<DType> index_type = TypeOf(op, indices);
  if (!index_type.ok()) return index_type.status();
  StatusOr<Combiner> combiner = MakeVariadicCombiner(
      op, *op.called_computations()[0], kernel.types, count);
  if (!combiner.ok()) return combiner.status();
  kernel.index_type = *index_type;
  kernel.combiner = *combiner;
  const std::vector<int64_t> operand_strides = RowMajorStrides(operand.dims());
  const std::vector<int64_t> index_strides = RowMajorStrides(indices.dims());
  const std::vector<int64_t> update_strides = RowMajorStrides(updates.dims());
  const std::vector<int64_t>& moved_dims = numbers.scatter_dims_to_operand_dims;
  // Update window dims walk the operand's dims that are not inserted, in
  // order; the other update dims walk the indices' dims other than the
  // index vector's, in order.
  std::vector<int64_t> window_operand_dims, position_index_dims;
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (!Contains(numbers.inserted_window_dims, d) &&
        !Contains(numbers.input_batching_dims, d))
      window_operand_dims.push_back(d);
  for (int64_t d = 0; d < indices.rank(); ++d)
    if (d != numbers.index_vector_dim) position_index_dims.push_back(d);
  std::vector<int64_t> window_size(static_cast<size_t>(operand.rank()), 1);
  size_t next_window = 0, next_position = 0;
  kernel.positions = 1;
  for (int64_t u = 0; u < updates.rank(); ++u) {
    const size_t us = static_cast<size_t>(u);
    if (Contains(numbers.update_window_dims, u)) {
      if (next_window >= window_operand_dims.size())
        return Unsupported(op, "inconsistent update window dimensions");
      const int64_t d = window_operand_dims[next_window++];
      const size_t ds = static_cast<size_t>(d);
      window_size[ds] = updates.dim(u);
      if (Contains(moved_dims, d)) {
        kernel.moved_dims[kernel.moved_rank] = updates.dim(u);
        kernel.moved_update_strides[kernel.moved_rank] = update_strides[us];
        kernel.moved_out_strides[kernel.moved_rank++] = operand_strides[ds];
        kernel.moved *= updates.dim(u);
      } else {
        kernel.free_dims[kernel.free_rank] = updates.dim(u);
        kernel.free_update_strides[kernel.free_rank] = update_strides[us];
        kernel.free_out_strides[kernel.free_rank++] = operand_strides[ds];
      }
    } else {
      if (next_position >= position_index_dims.size())
        return Unsupported(op, "inconsistent scatter dimensions");
      const int64_t index_dim = position_index_dims[next_position++];
      const size_t id = static_cast<size_t>(index_dim);
      const auto batching =
          std::find(numbers.scatter_indices_batching_dims.begin(),
                    numbers.scatter_indices_batching_dims.end(), index_dim);
      if (batching != numbers.scatter_indices_batching_dims.end())
        kernel.position_out_strides[kernel.position_rank] =
            operand_strides[static_cast<
                size_t>(numbers.input_batching_dims[static_cast<size_t>(
                batching - numbers.scatter_indices_batching_dims.begin())])];
      kernel.position_dims[kernel.position_rank] = updates.dim(u);
      kernel.position_update_strides[kernel.position_rank] = update_strides[us];
      kernel.position_index_strides[kernel.position_rank++] = index_strides[id];
      kernel.positions *= updates.dim(u);
    }
  }
  kernel.n = 1;
  for (int32_t d = 0; d < kernel.free_rank; ++d)
    kernel.n *= kernel.free_dims[d];
  kernel.starts = static_cast<int32_t>(moved_dims.size());
  if (kernel.starts > kMaxRank) return Unsupported(op, "rank above 8");
  kernel.index_vector_stride =
      numbers.index_vector_dim < indices.rank()
          ? index_strides[static_cast<size_t>(numbers.index_vector_dim)]
          : 0;
  for (size_t k = 0; k < moved_dims.size(); ++k) {
    const size_t d = static_cast<size_t>(moved_dims[k]);
    kernel.start_out_strides[k] = operand_strides[d];
    kernel.start_max[k] = operand.dims()[d] - window_size[d];
  }
  if (kernel.positions == 0 || kernel.moved == 0) kernel.n = 0;
  std::vector<size_t> bytes;
  for (size_t k = 0; k < count; ++k)
    bytes.push_back(op.operand(static_cast<int64_t>(k))->shape().byte_size());
  return Launcher([kernel, operands, results, bytes, count](
                      device::Stream& stream, void* const* addresses) mutable {
    for (size_t k = 0; k < count; ++k) {
      XFFI_RETURN_IF_ERROR(
          CopyUnlessSame(stream, addresses, operands[k], results[k], bytes[k]));
      kernel.out[k] = Bytes(addresses[results[k]]);
      kernel.updates[k] = Bytes(addresses[operands[count + 1 + k]]);
    }
    kernel.indices = Bytes(addresses[operands[count]]);
    return LaunchKernel(stream, ScatterKernel::kName, kernel.n, kernel);
  });
}

// reduce-window of N inputs (N inits follow them) into N results.
StatusOr<Launcher> ReduceWindowLauncher(const Instruction& op,
                                        const std::vector<BufferId>& operands,
                                        const std::vector<BufferId>& results) {
  const size_t count = results.size();
  if (count == 0 || count > static_cast<size_t>(kMaxRegionResults))
    return Unsupported(op, "more than " + std::to_string(kMaxRegionResults) +
                               " inputs are not implemented");
  if (operands.size() != 2 * count ||
      op.operand_count() != static_cast<int64_t>(2 * count))
    return Unsupported(op, "token or tuple operands");
  const Shape& in = op.operand(0)->shape();
  ReduceWindowKernel kernel;
  kernel.operands = static_cast<int32_t>(count);
  XFFI_RETURN_IF_ERROR(OperandTypes(op, 0, count, kernel.types));
  StatusOr<Combiner> combiner = MakeVariadicCombiner(
      op, *op.called_computations()[0], kernel.types, count);
  if (!combiner.ok()) return combiner.status();
  if (op.window.size() != static_cast<size_t>(in.rank()))
    return Unsupported(op, "a window of another rank than its operand");
  kernel.combiner = *combiner;
  const Shape& out =
      op.shape().IsArray() ? op.shape() : op.shape().tuple_shape(0);
  kernel.n = out.num_elements();
  kernel.rank = static_cast<int32_t>(in.rank());
  for (size_t d = 0; d < op.window.size(); ++d) {
    const WindowDimension& window = op.window[d];
    if (window.window_reversal)
      return Unsupported(op, "window reversal is not valid here");
    kernel.in_dims[d] = in.dims()[d];
    kernel.out_dims[d] = out.dims()[d];
    kernel.window_sizes[d] = window.size;
    kernel.strides[d] = window.stride;
    kernel.padding_low[d] = window.padding_low;
    kernel.window_dilations[d] = window.window_dilation;
    kernel.base_dilations[d] = window.base_dilation;
    kernel.window_count *= window.size;
  }
  return Launcher([kernel, operands, results, count](
                      device::Stream& stream, void* const* addresses) mutable {
    for (size_t k = 0; k < count; ++k) {
      kernel.in[k] = Bytes(addresses[operands[k]]);
      kernel.init[k] = Bytes(addresses[operands[count + k]]);
      kernel.out[k] = Bytes(addresses[results[k]]);
    }
    return LaunchKernel(stream, ReduceWindowKernel::kName, kernel.n, kernel);
  });
}

StatusOr<Launcher> SelectAndScatterLauncher(
    const Instruction& op, const std::vector<BufferId>& operands,
    BufferId result) {
  const Shape& in = op.operand(0)->shape();
  const Shape& source = op.operand(1)->shape();
  StatusOr<DType> type = TypeOf(op, in);
  if (!type.ok()) return type.status();
  if (op.window.size() != static_cast<size_t>(in.rank()) ||
      source.rank() != in.rank())
    return Unsupported(op,
                       "a window or source of another rank than its "
                       "operand");
  std::optional<RegionProgram> select =
      CompileRegion(*op.called_computations()[0]);
  if (!select)
    return Unsupported(op,
                       "its select region is not scalar elementwise ops "
                       "of at most " +
                           std::to_string(kMaxRegionSteps) + " steps");
  StatusOr<Combiner> scatter =
      MakeCombiner(op, *op.called_computations()[1], *type);
  if (!scatter.ok()) return scatter.status();
  SelectAndScatterKernel kernel;
  kernel.type = *type;
  kernel.select = *select;
  kernel.scatter = *scatter;
  kernel.n = in.num_elements();
  kernel.rank = static_cast<int32_t>(in.rank());
  for (size_t d = 0; d < op.window.size(); ++d) {
    const WindowDimension& window = op.window[d];
    if (window.window_dilation != 1 || window.base_dilation != 1 ||
        window.window_reversal || window.stride < 1)
      return Unsupported(op, "a dilated, reversed or unstrided window");
    kernel.operand_dims[d] = in.dims()[d];
    kernel.source_dims[d] = source.dims()[d];
    kernel.window_sizes[d] = window.size;
    kernel.strides[d] = window.stride;
    kernel.padding_low[d] = window.padding_low;
  }
  return Launcher([kernel, operands, result](device::Stream& stream,
                                             void* const* addresses) mutable {
    kernel.operand = Bytes(addresses[operands[0]]);
    kernel.source = Bytes(addresses[operands[1]]);
    kernel.init = Bytes(addresses[operands[2]]);
    kernel.out = Bytes(addresses[result]);
    return LaunchKernel(stream, SelectAndScatterKernel::kName, kernel.n,
                        kernel);
  });
}

}  // namespace

namespace {

// The fusion input `instruction` is, or -1.
int16_t FusedInputNumber(const Instruction& instruction) {
  if (instruction.opcode() != Opcode::kParameter ||
      instruction.parameter_number >= kMaxFusedInputs)
    return -1;
  return static_cast<int16_t>(instruction.parameter_number);
}

// A gather of one-element slices as a step of `kernel` over `n` elements:
// its operand a fusion input, its one start computed at the same index as
// the gather's result (take_along_axis's indices), or its indices a fusion
// input read where the geometry says. False for anything else.
bool AddFusedGather(const Instruction& gather, int64_t n,
                    FusedLoopKernel& kernel, int32_t& gathers,
                    StepBuilder& builder) {
  if (gathers >= kMaxFusedGathers || gather.operand_count() != 2) return false;
  const Instruction& operand = *gather.operand(0);
  const Instruction& indices = *gather.operand(1);
  const int16_t operand_input = FusedInputNumber(operand);
  std::optional<DType> type = ToDType(gather.shape().element_type());
  if (operand_input < 0 || !type || gather.shape().rank() > kMaxRank ||
      operand.shape().rank() > kMaxRank || indices.shape().rank() > kMaxRank)
    return false;
  StatusOr<GatherGeometry> geometry = MakeGatherGeometry(gather);
  if (!geometry.ok()) return false;
  FusedGather& fused = kernel.gathers[gathers];
  fused.operand_input = operand_input;
  fused.geometry = *geometry;
  FusedStep step;
  step.kind = StepKind::kGather;
  step.in_type = step.out_type = *type;
  step.args[0] = static_cast<int16_t>(gathers);
  step.args[1] = -1;
  // With one start per result element, indices element i is result
  // element i's start (the other dimensions are the slice's, all 1).
  const int16_t start_step = builder.StepOf(&indices);
  if (geometry->starts == 1 && indices.shape().num_elements() == n &&
      start_step >= 0) {
    fused.indices_input = -1;
    step.args[1] = start_step;
  } else {
    fused.indices_input = FusedInputNumber(indices);
    if (fused.indices_input < 0) return false;
  }
  if (!builder.AddStep(&gather, step)) return false;
  ++gathers;
  return true;
}

}  // namespace

std::optional<FusedLoopKernel> CompileFusedLoop(const Computation& fused,
                                                int64_t n) {
  FusedLoopKernel kernel;
  kernel.n = n;
  StepBuilder builder(kernel.steps, &kernel.count, kMaxFusedSteps);
  int32_t gathers = 0;
  for (const auto& owned : fused.instructions()) {
    const Instruction* instruction = owned.get();
    const Shape& shape = instruction->shape();
    if (!shape.IsArray()) return std::nullopt;
    const int64_t elements = shape.num_elements();
    const bool indexed_by_result = elements == n || elements == 1;
    if (instruction->opcode() == Opcode::kParameter) {
      const int64_t number = instruction->parameter_number;
      if (number >= kMaxFusedInputs) return std::nullopt;
      // An input of another shape is only read where a gather says: it
      // gets no step, so any other use of it fails below.
      if (!indexed_by_result) continue;
      kernel.input_scalar[number] = elements == 1 && n != 1;
      if (!builder.AddInput(instruction, static_cast<int16_t>(number)))
        return std::nullopt;
      continue;
    }
    // Every value is indexed by the result's linear index, or is a scalar.
    if (!indexed_by_result) return std::nullopt;
    const bool added =
        instruction->opcode() == Opcode::kGather
            ? elements == n &&
                  AddFusedGather(*instruction, n, kernel, gathers, builder)
            : builder.Add(instruction);
    if (!added) return std::nullopt;
  }
  if (!builder.FinishAt(fused.root())) return std::nullopt;
  return kernel;
}

std::optional<Launcher> MakeFusedLoopLauncher(
    const Instruction& fusion, const std::vector<BufferId>& operands,
    BufferId result) {
  if (fusion.fusion_kind != FusionKind::kLoop || !fusion.shape().IsArray() ||
      operands.size() > static_cast<size_t>(kMaxFusedInputs))
    return std::nullopt;
  std::optional<FusedLoopKernel> compiled = CompileFusedLoop(
      *fusion.called_computations()[0], fusion.shape().num_elements());
  if (!compiled) return std::nullopt;
  return Launcher([kernel = *compiled, operands, result](
                      device::Stream& stream, void* const* addresses) mutable {
    for (size_t k = 0; k < operands.size(); ++k)
      kernel.inputs[k] = Bytes(addresses[operands[k]]);
    kernel.out = Bytes(addresses[result]);
    return LaunchKernel(stream, FusedLoopKernel::kName, kernel.n, kernel);
  });
}

namespace {

StatusOr<Launcher> SortLauncher(const Instruction& op,
                                const std::vector<BufferId>& operands,
                                const std::vector<BufferId>& results,
                                const ReserveScratch& scratch) {
  if (op.operand_count() > kMaxSortOperands)
    return Unsupported(op, "more than " + std::to_string(kMaxSortOperands) +
                               " operands are not implemented");
  for (const Instruction* operand : op.operands())
    if (operand->shape().rank() > kMaxRank)
      return Unsupported(op, "rank above 8");
  if (operands.size() != static_cast<size_t>(op.operand_count()) ||
      results.size() != operands.size())
    return Unsupported(op, "token or tuple operands");
  SortKernel kernel;
  kernel.operands = static_cast<int32_t>(op.operand_count());
  for (int64_t k = 0; k < op.operand_count(); ++k) {
    const Shape& shape = op.operand(k)->shape();
    StatusOr<DType> type = TypeOf(op, shape);
    if (!type.ok()) return type.status();
    kernel.types[k] = *type;
    kernel.element_sizes[k] =
        static_cast<int32_t>(ElementByteSize(shape.element_type()));
  }
  std::optional<RegionProgram> less =
      CompileRegion(*op.called_computations()[0]);
  if (!less)
    return Unsupported(op,
                       "its comparator is not scalar elementwise ops of at "
                       "most " +
                           std::to_string(kMaxRegionSteps) + " steps");
  kernel.less = *less;
  const Shape& shape = op.operand(0)->shape();
  const size_t dimension = static_cast<size_t>(op.dimensions[0]);
  kernel.length = shape.dims()[dimension];
  for (size_t d = dimension + 1; d < shape.dims().size(); ++d)
    kernel.inner *= shape.dims()[d];
  kernel.n = kernel.length == 0 ? 0 : shape.num_elements() / kernel.length;
  std::vector<size_t> sizes;
  for (const Instruction* operand : op.operands())
    sizes.push_back(operand->shape().byte_size());
  // Rows of one element need no merging, and no scratch.
  std::vector<BufferId> merge_scratch;
  if (scratch && kernel.length > 1)
    for (size_t size : sizes) merge_scratch.push_back(scratch(size));
  // Rows longer than one thread's chunk: merge passes over all rows at once
  // (sort_kernel.h); shorter rows: a thread each.
  const bool in_passes =
      !merge_scratch.empty() && kernel.length > kSortMergeChunk;
  return Launcher([kernel, operands, results, sizes, merge_scratch, in_passes](
                      device::Stream& stream, void* const* addresses) mutable {
    for (size_t k = 0; k < operands.size(); ++k) {
      XFFI_RETURN_IF_ERROR(
          CopyUnlessSame(stream, addresses, operands[k], results[k], sizes[k]));
      kernel.out[k] = Bytes(addresses[results[k]]);
    }
    for (size_t k = 0; k < merge_scratch.size(); ++k)
      kernel.scratch[k] = Bytes(addresses[merge_scratch[k]]);
    if (!in_passes)
      return LaunchKernel(stream, SortKernel::kName, kernel.n, kernel);
    SortMergePassKernel pass;
    pass.sort = kernel;
    for (; pass.width < kernel.length; pass.width *= 2) {
      pass.chunk = std::min(kSortMergeChunk, 2 * pass.width);
      pass.chunks = (kernel.length + pass.chunk - 1) / pass.chunk;
      pass.n = kernel.n * pass.chunks;
      XFFI_RETURN_IF_ERROR(
          LaunchKernel(stream, SortMergePassKernel::kName, pass.n, pass));
      pass.from_scratch = !pass.from_scratch;
    }
    if (pass.from_scratch)  // the last pass wrote scratch
      for (size_t k = 0; k < merge_scratch.size(); ++k)
        XFFI_RETURN_IF_ERROR(stream.CopyDeviceToDevice(
            kernel.out[k], kernel.scratch[k], sizes[k]));
    return Status::Ok();
  });
}

// reduce of N inputs (N inits follow them) into N results.
StatusOr<Launcher> VariadicReduceLauncher(
    const Instruction& op, const std::vector<BufferId>& operands,
    const std::vector<BufferId>& results) {
  const size_t count = results.size();
  if (count > static_cast<size_t>(kMaxRegionResults))
    return Unsupported(op, "more than " + std::to_string(kMaxRegionResults) +
                               " inputs are not implemented");
  if (operands.size() != 2 * count)
    return Unsupported(op, "token or tuple operands");
  VariadicReduceKernel kernel;
  kernel.operands = static_cast<int32_t>(count);
  XFFI_RETURN_IF_ERROR(OperandTypes(op, 0, count, kernel.types));
  StatusOr<Combiner> combiner = MakeVariadicCombiner(
      op, *op.called_computations()[0], kernel.types, count);
  if (!combiner.ok()) return combiner.status();
  kernel.combiner = *combiner;
  const Shape& in = op.operand(0)->shape();
  if (in.rank() > kMaxRank) return Unsupported(op, "rank above 8");
  const std::vector<int64_t> strides = RowMajorStrides(in.dims());
  kernel.n = 1;
  for (size_t d = 0; d < in.dims().size(); ++d) {
    if (Contains(op.dimensions, static_cast<int64_t>(d))) {
      kernel.k_dims[kernel.k_rank] = in.dims()[d];
      kernel.k_strides[kernel.k_rank++] = strides[d];
      kernel.k_count *= in.dims()[d];
    } else {
      kernel.out_dims[kernel.out_rank] = in.dims()[d];
      kernel.out_strides[kernel.out_rank++] = strides[d];
      kernel.n *= in.dims()[d];
    }
  }
  return Launcher([kernel, operands, results, count](
                      device::Stream& stream, void* const* addresses) mutable {
    for (size_t k = 0; k < count; ++k) {
      kernel.in[k] = Bytes(addresses[operands[k]]);
      kernel.init[k] = Bytes(addresses[operands[count + k]]);
      kernel.out[k] = Bytes(addresses[results[k]]);
    }
    return LaunchKernel(stream, VariadicReduceKernel::kName, kernel.n, kernel);
  });
}

StatusOr<Launcher> TopKLauncher(const Instruction& op,
                                const std::vector<BufferId>& operands,
                                const std::vector<BufferId>& results) {
  if (operands.size() != 1 || results.size() != 2)
    return Unsupported(op, "token or tuple operands");
  const Shape& in = op.operand(0)->shape();
  StatusOr<DType> type = TypeOf(op, in);
  if (!type.ok()) return type.status();
  if (*type == DType::kPred || ClassOf(*type) == ValueClass::kComplex)
    return Unsupported(op, "pred and complex operands are not valid");
  if (in.rank() == 0) return Unsupported(op, "a scalar operand");
  TopKKernel kernel;
  kernel.type = *type;
  kernel.element_size =
      static_cast<int32_t>(ElementByteSize(in.element_type()));
  kernel.largest = op.top_k_largest ? 1 : 0;
  kernel.length = in.dims().back();
  kernel.k = op.top_k;
  if (kernel.k < 0 || kernel.k > kernel.length)
    return Unsupported(op, "k outside [0, the row length]");
  kernel.n = kernel.length == 0 ? 0 : in.num_elements() / kernel.length;
  return Launcher([kernel, operands, results](device::Stream& stream,
                                              void* const* addresses) mutable {
    kernel.in = Bytes(addresses[operands[0]]);
    kernel.values = Bytes(addresses[results[0]]);
    kernel.indices = Bytes(addresses[results[1]]);
    return LaunchKernel(stream, TopKKernel::kName, kernel.n, kernel);
  });
}

}  // namespace

StatusOr<Launcher> MakeTupleResultLauncher(
    const Instruction& op, const std::vector<BufferId>& operands,
    const std::vector<BufferId>& results, const ReserveScratch& scratch) {
  switch (op.opcode()) {
    case Opcode::kSort:
      return SortLauncher(op, operands, results, scratch);
    case Opcode::kReduce:
      return VariadicReduceLauncher(op, operands, results);
    case Opcode::kTopK:
      return TopKLauncher(op, operands, results);
    case Opcode::kScatter:
      return ScatterLauncher(op, operands, results);
    case Opcode::kReduceWindow:
      return ReduceWindowLauncher(op, operands, results);
    case Opcode::kRngBitGenerator:
      return RngBitGeneratorLauncher(op, operands, results);
    default:
      return Unsupported(op, "a tuple result");
  }
}

Launcher StridedCopyLauncher(std::vector<StridedCopyKernel> copies,
                             std::vector<std::pair<BufferId, BufferId>> ids) {
  return [copies = std::move(copies), ids = std::move(ids)](
             device::Stream& stream, void* const* addresses) mutable {
    for (size_t i = 0; i < copies.size(); ++i) {
      copies[i].src = Bytes(addresses[ids[i].first]);
      copies[i].dst = Bytes(addresses[ids[i].second]);
      XFFI_RETURN_IF_ERROR(LaunchKernel(stream, StridedCopyKernel::kName,
                                        copies[i].n, copies[i]));
    }
    return Status::Ok();
  };
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

StatusOr<DType> TypeOf(const Instruction& op, const Shape& shape) {
  std::optional<DType> type = ToDType(shape.element_type());
  if (!type)
    return Unsupported(op,
                       "element type " + shape.ToString(false) +
                           " is not one of pred, s8-s64, u8-u64, f16, bf16, "
                           "f32, f64, c64, c128");
  return *type;
}

Status Unsupported(const Instruction& op, const std::string& why) {
  return Unimplemented("the device backend cannot run op " + op.Describe() +
                       ": " + why);
}

StatusOr<Launcher> MakeOpLauncher(const Instruction& op,
                                  const std::vector<BufferId>& operands,
                                  BufferId result,
                                  const ReserveScratch& scratch,
                                  const DeviceFeatures& features) {
  if (op.shape().IsArray() && op.shape().rank() > kMaxRank)
    return Unsupported(op, "rank above 8");
  for (const Instruction* operand : op.operands())
    if (operand->shape().IsArray() && operand->shape().rank() > kMaxRank)
      return Unsupported(op, "rank above 8");
  if (std::optional<ElementOp> kind = ToElementOp(op))
    return ElementwiseLauncher(op, *kind, operands, result);
  switch (op.opcode()) {
    case Opcode::kReshape:
    case Opcode::kBitcastConvert: {
      // Whole-byte elements of any width: a wider operand's minor
      // dimension of narrower elements holds the same bytes row-major (as
      // the CPU backend copies them); sub-byte types are stored one per byte.
      auto whole_bytes = [](ElementType type) {
        return static_cast<int>(ElementByteSize(type)) * 8 ==
               ElementBitWidth(type);
      };
      if (op.opcode() == Opcode::kBitcastConvert &&
          ElementByteSize(op.shape().element_type()) !=
              ElementByteSize(op.operand(0)->shape().element_type()) &&
          (!whole_bytes(op.shape().element_type()) ||
           !whole_bytes(op.operand(0)->shape().element_type()) ||
           op.shape().byte_size() != op.operand(0)->shape().byte_size()))
        return Unsupported(op, "a bitcast between sub-byte element widths");
      // Row-major on both sides: the same bytes.
      const size_t size = op.shape().byte_size();
      BufferId from = operands[0];
      return Launcher(
          [from, result, size](device::Stream& stream, void* const* addresses) {
            if (size == 0 || addresses[from] == addresses[result])
              return Status::Ok();
            return stream.CopyDeviceToDevice(addresses[result], addresses[from],
                                             size);
          });
    }
    case Opcode::kIota: {
      StatusOr<DType> type = TypeOf(op, op.shape());
      if (!type.ok()) return type.status();
      IotaKernel kernel;
      kernel.type = *type;
      kernel.n = op.shape().num_elements();
      const size_t dimension = static_cast<size_t>(op.dimensions[0]);
      kernel.size = op.shape().dims()[dimension];
      for (size_t d = dimension + 1; d < op.shape().dims().size(); ++d)
        kernel.inner *= op.shape().dims()[d];
      return Launcher([kernel, result](device::Stream& stream,
                                       void* const* addresses) mutable {
        kernel.out = Bytes(addresses[result]);
        return LaunchKernel(stream, IotaKernel::kName, kernel.n, kernel);
      });
    }
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kReverse:
    case Opcode::kConcatenate:
    case Opcode::kPad:
      return DataMovementLauncher(op, operands, result);
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
      return DynamicWindowLauncher(op, operands, result);
    case Opcode::kGather:
      return GatherLauncher(op, operands, result);
    case Opcode::kReduce:
      return ReduceLauncher(op, operands, result);
    case Opcode::kDot:
      return DotLauncher(op, operands, result, scratch);
    case Opcode::kScatter:
      return ScatterLauncher(op, operands, {result});
    case Opcode::kReduceWindow:
      return ReduceWindowLauncher(op, operands, {result});
    case Opcode::kSelectAndScatter:
      return SelectAndScatterLauncher(op, operands, result);
    case Opcode::kConvolution:
      return ConvolutionLauncher(op, operands, result, scratch);
    case Opcode::kFft:
      return FftLauncher(op, operands, result, scratch, features);
    default:
      return Unsupported(op, "no device kernel for this op yet");
  }
}

}  // namespace xffi::device_backend
