// Data movement kernels: each is one or more CopyPlans built at compile time;
// dynamic-slice and dynamic-update-slice add a clamped start offset at run
// time. The ops come from a verified module (see kernel.h): their shapes,
// dimension lists, slice bounds and paddings agree, so nothing is checked
// again here.
#include <cstring>
#include <string>
#include <vector>

#include "cpu/index_util.h"
#include "cpu/parallel.h"
#include "cpu/structural_kernels.h"

namespace xffi::cpu {
namespace {

void CopyIfDistinct(void* dst, const void* src, size_t bytes) {
  if (dst != src && bytes > 0) std::memmove(dst, src, bytes);
}

StatusOr<Kernel> MakeCopy(const Instruction& inst) {
  const size_t bytes = inst.shape().byte_size();
  return Kernel([bytes](const KernelArgs& args) {
    CopyIfDistinct(args.results[0].data, args.operands[0].data, bytes);
    return Status::Ok();
  });
}

// Runs `plan`, split along its outermost loop across `pool` (may be null)
// when it moves enough to pay: pieces write disjoint parts of dst.
void RunPlan(const CopyPlan& plan, void* dst, const void* src,
             ThreadPool* pool) {
  const int64_t extent = plan.outer_extent();
  if (pool == nullptr || extent < 2) return plan.Run(dst, src);
  // Nanoseconds per element, roughly: contiguous runs are memcpy, strided
  // ones an element at a time.
  const double element_nanos = plan.inner_memcpy() ? 0.1 : 0.5;
  const double per_item =
      element_nanos * static_cast<double>(plan.element_count() / extent);
  ParallelFor(pool, extent, per_item, [&](int64_t begin, int64_t end) {
    plan.RunOuter(dst, src, begin, end);
  });
}

Kernel PlanKernel(CopyPlan plan, int64_t src_offset_bytes) {
  return [plan = std::move(plan), src_offset_bytes](const KernelArgs& args) {
    RunPlan(plan, args.results[0].data,
            static_cast<const char*>(args.operands[0].data) + src_offset_bytes,
            args.pool);
    return Status::Ok();
  };
}

StatusOr<Kernel> MakeBroadcast(const Instruction& inst) {
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
  std::vector<int64_t> src(static_cast<size_t>(out.rank()), 0);
  for (int64_t i = 0; i < in.rank(); ++i) {
    int64_t d = inst.dimensions[static_cast<size_t>(i)];
    if (in.dim(i) != 1) src[static_cast<size_t>(d)] = in_strides[i];
  }
  return PlanKernel(CopyPlan(out.dims(), src, RowMajorStrides(out.dims()),
                             ElementByteSize(out.element_type())),
                    0);
}

StatusOr<Kernel> MakeTranspose(const Instruction& inst) {
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
  std::vector<int64_t> src(static_cast<size_t>(out.rank()));
  for (int64_t i = 0; i < out.rank(); ++i) {
    int64_t p = inst.dimensions[static_cast<size_t>(i)];
    src[static_cast<size_t>(i)] = in_strides[static_cast<size_t>(p)];
  }
  return PlanKernel(CopyPlan(out.dims(), src, RowMajorStrides(out.dims()),
                             ElementByteSize(out.element_type())),
                    0);
}

StatusOr<Kernel> MakeSlice(const Instruction& inst) {
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  const size_t rank = static_cast<size_t>(in.rank());
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
  std::vector<int64_t> src(rank);
  const int64_t esize =
      static_cast<int64_t>(ElementByteSize(out.element_type()));
  int64_t offset = 0;
  for (size_t i = 0; i < rank; ++i) {
    int64_t step = inst.slice_strides[i];
    int64_t start = inst.slice_starts[i];
    src[i] = in_strides[i] * step;
    offset += start * in_strides[i] * esize;
  }
  return PlanKernel(CopyPlan(out.dims(), src, RowMajorStrides(out.dims()),
                             static_cast<size_t>(esize)),
                    offset);
}

StatusOr<Kernel> MakeReverse(const Instruction& inst) {
  const Shape& out = inst.shape();
  std::vector<int64_t> src = RowMajorStrides(out.dims());
  const int64_t esize =
      static_cast<int64_t>(ElementByteSize(out.element_type()));
  int64_t offset = 0;
  for (int64_t d : inst.dimensions) {
    size_t i = static_cast<size_t>(d);
    if (out.dim(d) > 0) offset += (out.dim(d) - 1) * src[i] * esize;
    src[i] = -src[i];
  }
  return PlanKernel(CopyPlan(out.dims(), src, RowMajorStrides(out.dims()),
                             static_cast<size_t>(esize)),
                    offset);
}

StatusOr<Kernel> MakeConcatenate(const Instruction& inst) {
  const Shape& out = inst.shape();
  const int64_t dim = inst.dimensions[0];
  const std::vector<int64_t> out_strides = RowMajorStrides(out.dims());
  const size_t esize = ElementByteSize(out.element_type());
  struct Part {
    CopyPlan plan;
    int64_t dst_offset;  // bytes
  };
  std::vector<Part> parts;
  int64_t at = 0;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Shape& in = inst.operand(i)->shape();
    parts.push_back(
        {CopyPlan(in.dims(), RowMajorStrides(in.dims()), out_strides, esize),
         at * out_strides[static_cast<size_t>(dim)] *
             static_cast<int64_t>(esize)});
    at += in.dim(dim);
  }
  return Kernel([parts = std::move(parts)](const KernelArgs& args) {
    char* dst = static_cast<char*>(args.results[0].data);
    for (size_t i = 0; i < parts.size(); ++i)
      parts[i].plan.Run(dst + parts[i].dst_offset, args.operands[i].data);
    return Status::Ok();
  });
}

StatusOr<Kernel> MakePad(const Instruction& inst) {
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  const size_t rank = static_cast<size_t>(in.rank());
  const size_t esize = ElementByteSize(out.element_type());
  const std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
  const std::vector<int64_t> out_strides = RowMajorStrides(out.dims());
  std::vector<int64_t> dims(rank), src(rank), dst(rank);
  int64_t src_offset = 0, dst_offset = 0;
  bool any_copied = true;
  for (size_t i = 0; i < rank; ++i) {
    const PadDimension& p = inst.padding[i];
    const int64_t step = p.interior + 1;
    // Operand elements land at low + k*step; keep those inside the result.
    int64_t first = 0;
    if (p.low < 0) first = (-p.low + step - 1) / step;
    int64_t last = in.dims()[i] - 1;  // inclusive
    const int64_t out_dim = out.dims()[i];
    if (last >= 0 && p.low + last * step >= out_dim)
      last = (out_dim - 1 - p.low) >= 0 ? (out_dim - 1 - p.low) / step : -1;
    dims[i] = last >= first ? last - first + 1 : 0;
    if (dims[i] == 0) any_copied = false;
    src[i] = in_strides[i];
    dst[i] = out_strides[i] * step;
    src_offset += first * in_strides[i];
    dst_offset += (p.low + first * step) * out_strides[i];
  }
  const int64_t count = out.num_elements();
  CopyPlan plan(dims, src, dst, esize);
  const int64_t src_bytes = src_offset * static_cast<int64_t>(esize);
  const int64_t dst_bytes = dst_offset * static_cast<int64_t>(esize);
  return Kernel([=, plan = std::move(plan)](const KernelArgs& args) {
    FillElements(args.results[0].data, count, args.operands[1].data, esize);
    if (any_copied)
      plan.Run(static_cast<char*>(args.results[0].data) + dst_bytes,
               static_cast<const char*>(args.operands[0].data) + src_bytes);
    return Status::Ok();
  });
}

// Start indices (operands first_index..) clamped so the window
// `sizes` fits inside `dims`, as XLA does; returns the byte offset.
struct DynamicStart {
  std::vector<int64_t> dims, sizes, strides;  // strides in bytes
  std::vector<ElementType> index_types;
  int64_t first_index = 1;
  int64_t Offset(std::span<const ArrayView> operands) const {
    int64_t offset = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      int64_t start = ReadIndex(
          operands[static_cast<size_t>(first_index) + i].data, index_types[i]);
      start = std::clamp<int64_t>(start, 0, dims[i] - sizes[i]);
      offset += start * strides[i];
    }
    return offset;
  }
};

DynamicStart MakeDynamicStart(const Instruction& inst, const Shape& full,
                              std::vector<int64_t> sizes, int64_t first_index) {
  const size_t rank = static_cast<size_t>(full.rank());
  DynamicStart start;
  start.first_index = first_index;
  start.dims = full.dims();
  start.sizes = std::move(sizes);
  start.strides = RowMajorStrides(full.dims());
  const int64_t esize =
      static_cast<int64_t>(ElementByteSize(full.element_type()));
  for (size_t i = 0; i < rank; ++i) {
    start.strides[i] *= esize;
    const Shape& index =
        inst.operand(first_index + static_cast<int64_t>(i))->shape();
    start.index_types.push_back(index.element_type());
  }
  return start;
}

StatusOr<Kernel> MakeDynamicSlice(const Instruction& inst) {
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  DynamicStart start = MakeDynamicStart(inst, in, out.dims(), 1);
  CopyPlan plan(out.dims(), RowMajorStrides(in.dims()),
                RowMajorStrides(out.dims()),
                ElementByteSize(out.element_type()));
  return Kernel([plan = std::move(plan),
                 start = std::move(start)](const KernelArgs& args) {
    plan.Run(args.results[0].data,
             static_cast<const char*>(args.operands[0].data) +
                 start.Offset(args.operands));
    return Status::Ok();
  });
}

StatusOr<Kernel> MakeDynamicUpdateSlice(const Instruction& inst) {
  const Shape& out = inst.shape();
  const Shape& update = inst.operand(1)->shape();
  DynamicStart start = MakeDynamicStart(inst, out, update.dims(), 2);
  CopyPlan plan(update.dims(), RowMajorStrides(update.dims()),
                RowMajorStrides(out.dims()),
                ElementByteSize(out.element_type()));
  const size_t bytes = out.byte_size();
  return Kernel([plan = std::move(plan), start = std::move(start),
                 bytes](const KernelArgs& args) {
    CopyIfDistinct(args.results[0].data, args.operands[0].data, bytes);
    plan.Run(
        static_cast<char*>(args.results[0].data) + start.Offset(args.operands),
        args.operands[1].data);
    return Status::Ok();
  });
}

}  // namespace

StatusOr<Kernel> MakeDataMovementKernel(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kCopy:
    case Opcode::kReshape:
      return MakeCopy(inst);
    case Opcode::kBroadcast:
      return MakeBroadcast(inst);
    case Opcode::kTranspose:
      return MakeTranspose(inst);
    case Opcode::kSlice:
      return MakeSlice(inst);
    case Opcode::kDynamicSlice:
      return MakeDynamicSlice(inst);
    case Opcode::kDynamicUpdateSlice:
      return MakeDynamicUpdateSlice(inst);
    case Opcode::kConcatenate:
      return MakeConcatenate(inst);
    case Opcode::kPad:
      return MakePad(inst);
    case Opcode::kReverse:
      return MakeReverse(inst);
    default:
      return NotFound("op " + inst.Describe() + " is not data movement");
  }
}

}  // namespace xffi::cpu
