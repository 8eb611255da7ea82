// select-and-scatter (what the gradient of max-pooling lowers to): the
// result starts as the init value everywhere; for each window position, in
// row-major order, `select` picks one operand element of the window (the
// first element stays picked while select(picked, next) is true) and
// `scatter` combines the window's source element into the result there.
// Padding is never picked, as in XLA. Per dimension a table made at compile
// time maps (window position, window index) to the operand index or -1.
// Max/min-pooling's gradient (select a comparison, scatter add) of the
// common types runs row by row (window_rows.h) across the pool.
#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/elementwise_loops.h"
#include "cpu/index_util.h"
#include "cpu/region_util.h"
#include "cpu/structural_kernels.h"
#include "cpu/window_rows.h"
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

// The select region when it is compare(parameter 0, parameter 1) GE, GT,
// LE or LT whose comparison C++'s operators on T compute: floats in the
// FLOAT order, integers in their own signedness.
template <typename T>
std::optional<ComparisonDirection> MatchOrderSelect(const Computation* select) {
  const Instruction* root = select->root();
  if (root == nullptr || root->opcode() != Opcode::kCompare ||
      root->operand_count() != 2 || root->operand(0) != select->parameter(0) ||
      root->operand(1) != select->parameter(1))
    return std::nullopt;
  const ComparisonType type = root->comparison_type;
  const bool native =
      type == ComparisonType::kDefault ||
      (std::is_floating_point_v<T> && type == ComparisonType::kFloat) ||
      (std::is_integral_v<T> && std::is_signed_v<T> &&
       type == ComparisonType::kSigned) ||
      (std::is_integral_v<T> && std::is_unsigned_v<T> &&
       type == ComparisonType::kUnsigned);
  switch (root->comparison_direction) {
    case ComparisonDirection::kGe:
    case ComparisonDirection::kGt:
    case ComparisonDirection::kLe:
    case ComparisonDirection::kLt:
      if (native) return root->comparison_direction;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// Scratch for one source row: the input rows of its windows, and per run
// element the picked operand element (-1: none).
struct RowPicks {
  std::vector<int64_t> input_rows;
  // Per window ordinal (input row * window + k): the offset of run element
  // 0's window element there (At(input row, 0, k)).
  std::vector<int64_t> ordinal_offset;
  std::vector<int64_t> offset;
  int64_t index[kMaxWindowRowsRank];
};

// Picks the operand element of every window of source row `row`: windows
// visited in row-major order, the pick replaced whenever keep(picked,
// candidate) is false -- the general path's picks. A block of run elements
// at a time keeps its picks (value, and window ordinal: input row * window
// + k) in local arrays, so the compare-and-blend vectorises at -O2.
template <typename T, typename Keep>
void PickRow(const WindowRows& g, const T* operand, int64_t row,
             const Keep& keep, RowPicks& picks) {
  picks.input_rows.clear();
  ForEachInputRow(g, row, picks.index, [&](int64_t row_offset) {
    picks.input_rows.push_back(row_offset);
  });
  const int64_t rows = static_cast<int64_t>(picks.input_rows.size());
  picks.ordinal_offset.clear();
  for (int64_t row_offset : picks.input_rows)
    for (int64_t k = 0; k < g.window; ++k)
      picks.ordinal_offset.push_back(g.At(row_offset, 0, k));
  const int64_t stride = g.stride;
  for (int64_t j0 = 0; j0 < g.run; j0 += kBlock) {
    const int64_t n = std::min<int64_t>(kBlock, g.run - j0);
    T value[kBlock] = {};
    int32_t which[kBlock];
    std::fill(which, which + kBlock, -1);
    auto update = [&](int64_t i, T candidate, int32_t ordinal) {
      const bool take = (which[i] < 0) | !keep(value[i], candidate);
      value[i] = take ? candidate : value[i];
      which[i] = take ? ordinal : which[i];
    };
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < g.window; ++k) {
        const int32_t ordinal = static_cast<int32_t>(r * g.window + k);
        const int64_t begin = g.begin[static_cast<size_t>(k)];
        const int64_t end = g.end[static_cast<size_t>(k)];
        const int64_t row_offset = picks.input_rows[static_cast<size_t>(r)];
        if (n == kBlock && j0 >= begin && j0 + kBlock <= end) {
          const T* from = operand + g.At(row_offset, j0, k);
          T candidate[kBlock];
          if (stride == 1)
            for (int i = 0; i < kBlock; ++i) candidate[i] = from[i];
          else
            for (int i = 0; i < kBlock; ++i) candidate[i] = from[i * stride];
          for (int i = 0; i < kBlock; ++i) update(i, candidate[i], ordinal);
          continue;
        }
        const int64_t first = std::max(j0, begin);
        const int64_t last = std::min(j0 + n, end);
        for (int64_t j = first; j < last; ++j)
          update(j - j0, operand[g.At(row_offset, j, k)], ordinal);
      }
    for (int64_t i = 0; i < n; ++i) {
      const int32_t w = which[i];
      picks.offset[static_cast<size_t>(j0 + i)] =
          w < 0 ? -1
                : picks.ordinal_offset[static_cast<size_t>(w)] +
                      (j0 + i) * stride;
    }
  }
}

// Select-and-scatter row by row: each source row's picks, then its source
// added into them in run order. Blocks of rows that never share an operand
// element (WindowRows::DisjointBlocks) run in parallel; within a block rows
// go in row-major order, so overlapping windows add in the general path's
// order.
template <typename T, typename Keep>
Kernel RowSelectAndScatter(WindowRows g, int64_t operand_count, Keep keep) {
  return [g = std::move(g), operand_count, keep](const KernelArgs& args) {
    const T* operand = static_cast<const T*>(args.operands[0].data);
    const T* source = static_cast<const T*>(args.operands[1].data);
    const T init = *static_cast<const T*>(args.operands[2].data);
    T* out = static_cast<T*>(args.results[0].data);
    ParallelFor(args.pool, operand_count, kElementNanos,
                [&](int64_t first, int64_t last) {
                  std::fill(out + first, out + last, init);
                });
    if (g.rows == 0 || g.run == 0) return Status::Ok();
    const int64_t window = g.WindowElements();
    const int64_t blocks = g.DisjointBlocks();
    const int64_t rows_per_block = g.rows / blocks;
    const double block_nanos =
        static_cast<double>(rows_per_block) *
        (30 + static_cast<double>(g.run * std::max<int64_t>(window, 1)));
    auto run_blocks = [&](int64_t first, int64_t last) {
      RowPicks picks;
      picks.offset.resize(static_cast<size_t>(g.run));
      for (int64_t row = first * rows_per_block; row < last * rows_per_block;
           ++row) {
        PickRow(g, operand, row, keep, picks);
        const T* s = source + row * g.run;
        for (int64_t j = 0; j < g.run; ++j) {
          const int64_t at = picks.offset[static_cast<size_t>(j)];
          if (at >= 0) out[at] = ScalarOps<T>::Add(out[at], s[j]);
        }
      }
    };
    ParallelFor(args.pool, blocks, block_nanos, run_blocks);
    return Status::Ok();
  };
}

template <typename T>
std::optional<Kernel> MakeRowSelectAndScatter(WindowRows& g,
                                              int64_t operand_count,
                                              ComparisonDirection direction) {
  // PickRow numbers a row's window elements with int32.
  if (g.WindowElements() > INT32_MAX) return std::nullopt;
  switch (direction) {
    case ComparisonDirection::kGe:
      return RowSelectAndScatter<T>(std::move(g), operand_count,
                                    [](T a, T b) { return a >= b; });
    case ComparisonDirection::kGt:
      return RowSelectAndScatter<T>(std::move(g), operand_count,
                                    [](T a, T b) { return a > b; });
    case ComparisonDirection::kLe:
      return RowSelectAndScatter<T>(std::move(g), operand_count,
                                    [](T a, T b) { return a <= b; });
    case ComparisonDirection::kLt:
      return RowSelectAndScatter<T>(std::move(g), operand_count,
                                    [](T a, T b) { return a < b; });
    default:
      return std::nullopt;
  }
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
  if (static_cast<int64_t>(inst.window.size()) != operand.rank() ||
      static_cast<int64_t>(plan.source_dims.size()) != operand.rank())
    return InvalidArgument(
        "op " + inst.Describe() + ": window has " +
        std::to_string(inst.window.size()) + " dimensions and the source " +
        std::to_string(plan.source_dims.size()) + " for an operand of rank " +
        std::to_string(operand.rank()));
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
  // Select-and-scatter windows have no dilation (the table above ignores
  // it); leave any that claims one to that path.
  const bool undilated =
      std::all_of(inst.window.begin(), inst.window.end(), [](const auto& w) {
        return w.window_dilation == 1 && w.base_dilation == 1;
      });
  if (undilated && MatchCombineRegion(plan.scatter) == CombineOp::kAdd &&
      plan.type != ElementType::kPred) {
    std::optional<WindowRows> rows =
        MakeWindowRows(operand.dims(), plan.source_dims, inst.window);
    std::optional<Kernel> kernel;
    if (rows)
      DispatchFastType(plan.type, [&](auto zero) {
        using T = decltype(zero);
        if (std::optional<ComparisonDirection> direction =
                MatchOrderSelect<T>(plan.select))
          kernel =
              MakeRowSelectAndScatter<T>(*rows, plan.operand_count, *direction);
      });
    if (kernel) return std::move(*kernel);
  }
  plan.select_program = ScalarProgram::Compile(*plan.select);
  plan.scatter_program = ScalarProgram::Compile(*plan.scatter);
  return Kernel([plan = std::move(plan)](const KernelArgs& args) {
    return RunSelectAndScatter(plan, args);
  });
}

}  // namespace xffi::cpu
