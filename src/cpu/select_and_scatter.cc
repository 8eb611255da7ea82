// select-and-scatter (what the gradient of max-pooling lowers to): the
// result starts as the init value everywhere; for each window position, in
// row-major order, `select` picks one operand element of the window (the
// first element stays picked while select(picked, next) is true) and
// `scatter` combines the window's source element into the result there.
// Padding is never picked, as in XLA. Per dimension a table made at compile
// time maps (window position, window index) to the operand index or -1.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cpu/index_util.h"
#include "cpu/region_util.h"
#include "cpu/structural_kernels.h"
#include "runtime/status_macros.h"

namespace xffi::cpu {
namespace {

struct SelectPlan {
  ElementType type;
  size_t element_size = 0;
  std::vector<int64_t> source_dims, window_sizes, operand_strides;
  std::vector<std::vector<int64_t>> tables;  // [position * size + k]
  int64_t operand_count = 0, source_count = 0;
  const Computation* select = nullptr;
  const Computation* scatter = nullptr;
  std::optional<ScalarProgram> select_program, scatter_program;
};

// Runs `select` on two operand elements, compiled or through the runner.
class Selector {
 public:
  Selector(const SelectPlan& plan, RegionRunner* runner)
      : plan_(plan), runner_(runner), scalar_(Shape::Scalar(plan.type)) {
    if (plan.select_program)
      registers_.resize(plan.select_program->num_registers());
  }

  // Whether `picked` stays picked over `candidate`.
  Status Keep(const void* picked, const void* candidate, bool* keep) {
    if (plan_.select_program) {
      const void* parameters[2] = {picked, candidate};
      *keep = plan_.select_program->RunPredicate(parameters, registers_.data());
      return Status::Ok();
    }
    if (runner_ == nullptr)
      return Internal("select-and-scatter: no region runner");
    const ArrayView arguments[2] = {{&scalar_, const_cast<void*>(picked)},
                                    {&scalar_, const_cast<void*>(candidate)}};
    uint8_t result = 0;
    const ArrayView out{&pred_, &result};
    Status status = runner_->Run(*plan_.select, arguments,
                                 std::span<const ArrayView>(&out, 1));
    *keep = result != 0;
    return status;
  }

 private:
  const SelectPlan& plan_;
  RegionRunner* runner_;
  Shape scalar_;
  Shape pred_ = Shape::Scalar(ElementType::kPred);
  std::vector<ScalarValue> registers_;
};

// For each window position s in row-major order: visit(operand offset) for
// each operand element in its window, in order, then end(s).
template <typename Visit, typename End>
void ForEachWindow(const SelectPlan& plan, Visit&& visit, End&& end) {
  const size_t rank = plan.source_dims.size();
  std::vector<int64_t> position(rank, 0), k(rank, 0);
  int64_t s = 0;
  do {
    std::fill(k.begin(), k.end(), 0);
    do {
      int64_t offset = 0;
      bool inside = true;
      for (size_t d = 0; d < rank && inside; ++d) {
        const int64_t i = plan.tables[d][static_cast<size_t>(
            position[d] * plan.window_sizes[d] + k[d])];
        inside = i >= 0;
        offset += i * plan.operand_strides[d];
      }
      if (inside) visit(offset);
    } while (NextIndex(k, plan.window_sizes));
    end(s++);
  } while (NextIndex(position, plan.source_dims));
}

// Max-pooling's gradient (select: GE or GT of its parameters in order;
// scatter: add) without calling regions. Comparisons with NaN are false, as
// compare's FLOAT order makes them.
template <typename T, bool kStrict>
Kernel FastSelectAndScatter(SelectPlan plan) {
  return [plan = std::move(plan)](const KernelArgs& args) {
    const T* operand = static_cast<const T*>(args.operands[0].data);
    const T* source = static_cast<const T*>(args.operands[1].data);
    T* out = static_cast<T*>(args.results[0].data);
    std::fill(out, out + plan.operand_count,
              *static_cast<const T*>(args.operands[2].data));
    if (plan.source_count == 0) return Status::Ok();
    int64_t picked = -1;
    ForEachWindow(
        plan,
        [&](int64_t offset) {
          if (picked >= 0) {
            const T a = operand[picked], b = operand[offset];
            if (kStrict ? a > b : a >= b) return;
          }
          picked = offset;
        },
        [&](int64_t s) {
          if (picked >= 0) out[picked] += source[s];
          picked = -1;
        });
    return Status::Ok();
  };
}

// The select region's comparison when it is compare(parameter 0, parameter
// 1) GE or GT in the FLOAT order.
std::optional<bool> MatchMaxSelect(const Computation* select) {
  const Instruction* root = select->root();
  if (root == nullptr || root->opcode() != Opcode::kCompare ||
      root->operand_count() != 2 ||
      root->comparison_type == ComparisonType::kTotalOrder ||
      root->operand(0) != select->parameter(0) ||
      root->operand(1) != select->parameter(1))
    return std::nullopt;
  if (root->comparison_direction == ComparisonDirection::kGe) return false;
  if (root->comparison_direction == ComparisonDirection::kGt) return true;
  return std::nullopt;
}

Status RunSelectAndScatter(const SelectPlan& plan, const KernelArgs& args) {
  const char* operand = static_cast<const char*>(args.operands[0].data);
  const char* source = static_cast<const char*>(args.operands[1].data);
  char* out = static_cast<char*>(args.results[0].data);
  const int64_t size = static_cast<int64_t>(plan.element_size);
  FillElements(out, plan.operand_count, args.operands[2].data,
               plan.element_size);
  if (plan.source_count == 0) return Status::Ok();
  Selector selector(plan, args.regions);
  ScalarCombiner scatter(
      plan.scatter, {plan.type},
      plan.scatter_program ? &*plan.scatter_program : nullptr);
  Status status;
  int64_t picked = -1;
  ForEachWindow(
      plan,
      [&](int64_t offset) {
        if (!status.ok()) return;
        bool keep = false;
        if (picked >= 0)
          status = selector.Keep(operand + picked * size,
                                 operand + offset * size, &keep);
        if (!keep) picked = offset;
      },
      [&](int64_t s) {
        if (picked >= 0 && status.ok()) {
          void* acc = out + picked * size;
          const void* value = source + s * size;
          status = scatter.Combine(args.regions, &acc, &value);
        }
        picked = -1;
      });
  return status;
}

}  // namespace

StatusOr<Kernel> MakeSelectAndScatterKernel(const Instruction& inst) {
  const Shape& operand = inst.operand(0)->shape();
  SelectPlan plan;
  plan.type = operand.element_type();
  plan.element_size = ElementByteSize(plan.type);
  plan.source_dims = inst.operand(1)->shape().dims();
  plan.operand_count = Product(operand.dims());
  plan.source_count = Product(plan.source_dims);
  plan.operand_strides = RowMajorStrides(operand.dims());
  plan.select = inst.called_computations()[0];
  plan.scatter = inst.called_computations()[1];
  XFFI_RETURN_IF_ERROR(CheckScalarRegion(
      inst, plan.select, {plan.type, plan.type}, {ElementType::kPred}));
  XFFI_RETURN_IF_ERROR(CheckScalarRegion(inst, plan.scatter,
                                         {plan.type, plan.type}, {plan.type}));
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const WindowDimension& w = inst.window[static_cast<size_t>(d)];
    plan.window_sizes.push_back(w.size);
    const int64_t positions = plan.source_dims[static_cast<size_t>(d)];
    std::vector<int64_t> table(static_cast<size_t>(positions * w.size), -1);
    for (int64_t o = 0; o < positions; ++o)
      for (int64_t j = 0; j < w.size; ++j) {
        const int64_t i = o * w.stride - w.padding_low + j;
        if (i >= 0 && i < operand.dim(d))
          table[static_cast<size_t>(o * w.size + j)] = i;
      }
    plan.tables.push_back(std::move(table));
  }
  if (std::optional<bool> strict = MatchMaxSelect(plan.select);
      strict && MatchCombineRegion(plan.scatter) == CombineOp::kAdd) {
    if (plan.type == ElementType::kF32)
      return *strict ? FastSelectAndScatter<float, true>(std::move(plan))
                     : FastSelectAndScatter<float, false>(std::move(plan));
    if (plan.type == ElementType::kF64)
      return *strict ? FastSelectAndScatter<double, true>(std::move(plan))
                     : FastSelectAndScatter<double, false>(std::move(plan));
  }
  plan.select_program = ScalarProgram::Compile(*plan.select);
  plan.scatter_program = ScalarProgram::Compile(*plan.scatter);
  return Kernel([plan = std::move(plan)](const KernelArgs& args) {
    return RunSelectAndScatter(plan, args);
  });
}

}  // namespace xffi::cpu
