// The core ops as device kernel launches.
#include "device_backend/op_kernels.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "device_backend/device_kernels.h"
#include "device_backend/dot_as_gemm.h"
#include "runtime/status_macros.h"

namespace xffi::device_backend {
namespace {

using compiler::BufferId;

constexpr int64_t kThreadsPerBlock = 256;

uint8_t* Bytes(void* address) { return static_cast<uint8_t*>(address); }

template <typename F>
Status LaunchKernel(device::Stream& stream, const char* name, int64_t n,
                    const F& functor) {
  if (n == 0) return Status::Ok();
  return device::LaunchFunctor(
      stream, name, {device::BlocksFor(n, kThreadsPerBlock), kThreadsPerBlock},
      functor);
}

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
#undef XFFI_DEVICE_OP
    case Opcode::kCompare:
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
      return true;
    default:
      return false;
  }
}

bool IsIntegerOnly(ElementOp op) {
  switch (op) {
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

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

StatusOr<DType> TypeOf(const Instruction& op, const Shape& shape) {
  std::optional<DType> type = ToDType(shape.element_type());
  if (!type)
    return Unsupported(op, "element type " + shape.ToString(false) +
                               " is not one of pred, s8-s64, u8-u64, f32, f64");
  return *type;
}

StatusOr<Launcher> ElementwiseLauncher(const Instruction& op, ElementOp kind,
                                       const std::vector<BufferId>& operands,
                                       BufferId result) {
  if (op.opcode() == Opcode::kCompare &&
      op.comparison_type == ComparisonType::kTotalOrder)
    return Unsupported(op, "TOTALORDER comparisons are not implemented");
  // The arithmetic type: select's and clamp's are their value operands'.
  const Instruction* typed = op.operand(op.opcode() == Opcode::kSelect ? 1 : 0);
  StatusOr<DType> in_type = TypeOf(op, typed->shape());
  if (!in_type.ok()) return in_type.status();
  StatusOr<DType> out_type = TypeOf(op, op.shape());
  if (!out_type.ok()) return out_type.status();
  const ValueClass value_class = ClassOf(*in_type);
  if (IsFloatOnly(kind) && value_class != ValueClass::kFloat)
    return Unsupported(op, "only float operands are implemented");
  if (IsIntegerOnly(kind) && value_class == ValueClass::kFloat)
    return Unsupported(op, "float operands are not valid");
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

// A strided copy whose pointers come from buffers `src` and `dst`.
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
      for (size_t d = 0; d < in.dims().size(); ++d) {
        const PadDimension& pad = op.padding[d];
        if (pad.low < 0 || pad.high < 0)
          return Unsupported(op, "negative padding is not implemented");
        body.src_strides[d] = in_strides[d];
        body.dst_strides[d] = out_strides[d] * (pad.interior + 1);
        body.dst_offset += pad.low * out_strides[d];
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

StatusOr<Launcher> ReduceLauncher(const Instruction& op,
                                  const std::vector<BufferId>& operands,
                                  BufferId result) {
  if (op.operand_count() != 2 || op.shape().IsTuple())
    return Unsupported(op, "only single-input reduces are implemented");
  std::optional<ElementOp> combiner =
      ReduceCombiner(*op.called_computations()[0]);
  if (!combiner)
    return Unsupported(op,
                       "only regions that add, multiply, take the maximum or "
                       "minimum, and or or their two parameters are "
                       "implemented");
  StatusOr<DType> type = TypeOf(op, op.shape());
  if (!type.ok()) return type.status();
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

StatusOr<Launcher> GatherLauncher(const Instruction& op,
                                  const std::vector<BufferId>& operands,
                                  BufferId result) {
  const GatherDimensionNumbers& numbers = op.gather_dimension_numbers;
  if (!numbers.operand_batching_dims.empty())
    return Unsupported(op, "batching dimensions are not implemented");
  const Shape& operand = op.operand(0)->shape();
  const Shape& indices = op.operand(1)->shape();
  StatusOr<DType> index_type = TypeOf(op, indices);
  if (!index_type.ok()) return index_type.status();
  GatherKernel kernel;
  kernel.index_type = *index_type;
  kernel.element_size =
      static_cast<int32_t>(ElementByteSize(operand.element_type()));
  kernel.n = op.shape().num_elements();
  kernel.out_rank = static_cast<int32_t>(op.shape().rank());
  kernel.operand_rank = static_cast<int32_t>(operand.rank());
  kernel.indices_rank = static_cast<int32_t>(indices.rank());
  kernel.index_vector_dim = static_cast<int32_t>(numbers.index_vector_dim);
  kernel.starts = static_cast<int32_t>(numbers.start_index_map.size());
  for (int64_t d = 0; d < operand.rank(); ++d) {
    kernel.operand_dims[d] = operand.dim(d);
    kernel.slice_sizes[d] = op.gather_slice_sizes[static_cast<size_t>(d)];
  }
  for (int64_t d = 0; d < indices.rank(); ++d)
    kernel.indices_dims[d] = indices.dim(d);
  for (size_t k = 0; k < numbers.start_index_map.size(); ++k)
    kernel.start_index_map[k] =
        static_cast<int32_t>(numbers.start_index_map[k]);
  // Offset dimensions walk the operand's uncollapsed dimensions in order;
  // batch dimensions walk the indices' dimensions other than the index
  // vector's, in order.
  std::vector<int32_t> uncollapsed, batch;
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (std::find(numbers.collapsed_slice_dims.begin(),
                  numbers.collapsed_slice_dims.end(),
                  d) == numbers.collapsed_slice_dims.end())
      uncollapsed.push_back(static_cast<int32_t>(d));
  for (int64_t d = 0; d < indices.rank(); ++d)
    if (d != numbers.index_vector_dim) batch.push_back(static_cast<int32_t>(d));
  size_t next_offset = 0, next_batch = 0;
  for (int64_t o = 0; o < op.shape().rank(); ++o) {
    kernel.out_dims[o] = op.shape().dim(o);
    kernel.out_to_operand[o] = kernel.out_to_indices[o] = -1;
    if (std::find(numbers.offset_dims.begin(), numbers.offset_dims.end(), o) !=
        numbers.offset_dims.end()) {
      if (next_offset >= uncollapsed.size())
        return Unsupported(op, "inconsistent offset dimensions");
      kernel.out_to_operand[o] = uncollapsed[next_offset++];
    } else {
      if (next_batch >= batch.size())
        return Unsupported(op, "inconsistent batch dimensions");
      kernel.out_to_indices[o] = batch[next_batch++];
    }
  }
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

}  // namespace

std::optional<FusedLoopKernel> CompileFusedLoop(const Computation& fused,
                                                int64_t n) {
  FusedLoopKernel kernel;
  kernel.n = n;
  // The step holding each instruction's value.
  std::unordered_map<const Instruction*, int16_t> step_of;
  auto add = [&](const Instruction* instruction, FusedStep step) {
    if (kernel.count >= kMaxFusedSteps) return false;
    step_of[instruction] = static_cast<int16_t>(kernel.count);
    kernel.steps[kernel.count++] = step;
    return true;
  };
  for (const auto& owned : fused.instructions()) {
    const Instruction* instruction = owned.get();
    const Shape& shape = instruction->shape();
    if (!shape.IsArray()) return std::nullopt;
    const int64_t elements = shape.num_elements();
    // Every value is indexed by the result's linear index, or is a scalar.
    if (elements != n && elements != 1) return std::nullopt;
    std::optional<DType> type = ToDType(shape.element_type());
    if (!type) return std::nullopt;
    FusedStep step;
    step.out_type = step.in_type = *type;
    switch (instruction->opcode()) {
      case Opcode::kParameter: {
        const int64_t number = instruction->parameter_number;
        if (number >= kMaxFusedInputs) return std::nullopt;
        step.kind = StepKind::kInput;
        step.args[0] = static_cast<int16_t>(number);
        kernel.input_scalar[number] = elements == 1 && n != 1;
        if (!add(instruction, step)) return std::nullopt;
        continue;
      }
      case Opcode::kConstant: {
        std::optional<Value> value = ScalarConstant(*instruction, *type);
        if (!value) return std::nullopt;
        step.kind = StepKind::kConstant;
        step.constant = *value;
        if (!add(instruction, step)) return std::nullopt;
        continue;
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
          return std::nullopt;
        if (from != 1 && from != elements) return std::nullopt;
        if (instruction->opcode() == Opcode::kBroadcast && from != 1 &&
            operand->shape().dims() != shape.dims())
          return std::nullopt;
        auto found = step_of.find(operand);
        if (found == step_of.end()) return std::nullopt;
        step_of[instruction] = found->second;
        continue;
      }
      default:
        break;
    }
    std::optional<ElementOp> kind = ToElementOp(*instruction);
    if (!kind || instruction->operand_count() > 3) return std::nullopt;
    if (instruction->opcode() == Opcode::kCompare &&
        instruction->comparison_type == ComparisonType::kTotalOrder)
      return std::nullopt;
    const Instruction* typed =
        instruction->operand(instruction->opcode() == Opcode::kSelect ? 1 : 0);
    std::optional<DType> in_type = ToDType(typed->shape().element_type());
    if (!in_type) return std::nullopt;
    const ValueClass value_class = ClassOf(*in_type);
    if (IsFloatOnly(*kind) && value_class != ValueClass::kFloat)
      return std::nullopt;
    if (IsIntegerOnly(*kind) && value_class == ValueClass::kFloat)
      return std::nullopt;
    step.kind = StepKind::kOp;
    step.op = *kind;
    step.in_type = *in_type;
    for (int64_t k = 0; k < instruction->operand_count(); ++k) {
      auto found = step_of.find(instruction->operand(k));
      if (found == step_of.end()) return std::nullopt;
      step.args[k] = found->second;
    }
    if (!add(instruction, step)) return std::nullopt;
  }
  // The root must be the last step.
  auto root = step_of.find(fused.root());
  if (root == step_of.end() || kernel.count == 0) return std::nullopt;
  if (root->second != kernel.count - 1) {
    // A root that is an alias of an earlier step: copy it through a
    // convert to its own type.
    FusedStep step;
    step.kind = StepKind::kOp;
    step.op = ElementOp::kConvert;
    step.in_type = step.out_type = kernel.steps[root->second].out_type;
    step.args[0] = root->second;
    if (!add(fused.root(), step)) return std::nullopt;
  }
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

Status Unsupported(const Instruction& op, const std::string& why) {
  return Unimplemented("the device backend cannot run op " + op.Describe() +
                       ": " + why);
}

StatusOr<Launcher> MakeOpLauncher(const Instruction& op,
                                  const std::vector<BufferId>& operands,
                                  BufferId result,
                                  const ReserveScratch& scratch) {
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
      if (op.opcode() == Opcode::kBitcastConvert &&
          ElementByteSize(op.shape().element_type()) !=
              ElementByteSize(op.operand(0)->shape().element_type()))
        return Unsupported(op, "a bitcast between element widths");
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
    default:
      return Unsupported(op, "no device kernel for this op yet");
  }
}

}  // namespace xffi::device_backend
