// The tile-by-tile evaluator of loop fusions (see fused_loop.h).
#include "cpu/fused_loop.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "cpu/elementwise_loops.h"
#include "cpu/index_util.h"
#include "cpu/parallel.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::cpu {
namespace {

// Elements per tile: a few scratch buffers of this many 8-byte elements
// stay within L2 while each op streams through them.
constexpr int64_t kTileElements = 4096;
constexpr size_t kScratchAlignment = 64;

// offset(index) = base + sum(index[d] * strides[d]), in elements of the
// array it reads, for an index into the value's own dimensions.
struct AffineMap {
  int64_t base = 0;
  std::vector<int64_t> strides;
};

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

bool IsIndexMap(Opcode opcode) {
  return opcode == Opcode::kBroadcast || opcode == Opcode::kTranspose ||
         opcode == Opcode::kSlice || opcode == Opcode::kReverse;
}

// A reshape, or a broadcast that only inserts dimensions of size 1: an
// element keeps its row-major linear index.
bool KeepsLinearIndex(const Instruction& op) {
  if (op.opcode() == Opcode::kReshape) return true;
  return op.opcode() == Opcode::kBroadcast &&
         op.shape().num_elements() == op.operand(0)->shape().num_elements() &&
         std::is_sorted(op.dimensions.begin(), op.dimensions.end());
}

bool IsTileKernelOp(Opcode opcode) {
  return IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode) ||
         opcode == Opcode::kSelect || opcode == Opcode::kClamp ||
         opcode == Opcode::kConvert || opcode == Opcode::kBitcastConvert;
}

// An iota of several dimensions: read in tiles as a broadcast of a 1-D
// iota (as HLO from JAX writes it), not computed whole — a 2-D iota beside
// an argmax's input would otherwise take as many bytes as that input.
bool IsGatheredIota(const Instruction& op) {
  return op.opcode() == Opcode::kIota && op.shape().IsArray() &&
         op.shape().rank() > 1 && op.dimensions.size() == 1 &&
         op.dimensions[0] >= 0 && op.dimensions[0] < op.shape().rank();
}

// The map of `op` (an index map) in terms of its operand's map.
AffineMap Compose(const Instruction& op, const AffineMap& operand) {
  AffineMap out;
  out.base = operand.base;
  const std::vector<int64_t>& dims = op.shape().dims();
  out.strides.assign(dims.size(), 0);
  switch (op.opcode()) {
    case Opcode::kBroadcast: {
      // An operand dimension of size 1 may stretch to any size (StableHLO's
      // broadcast_in_dim): its index stays 0.
      const std::vector<int64_t>& in_dims = op.operand(0)->shape().dims();
      for (size_t j = 0; j < op.dimensions.size(); ++j)
        if (in_dims[j] != 1)
          out.strides[static_cast<size_t>(op.dimensions[j])] +=
              operand.strides[j];
      break;
    }
    case Opcode::kTranspose:
      for (size_t i = 0; i < dims.size(); ++i)
        out.strides[i] = operand.strides[static_cast<size_t>(op.dimensions[i])];
      break;
    case Opcode::kSlice:
      for (size_t j = 0; j < dims.size(); ++j) {
        out.strides[j] = operand.strides[j] * op.slice_strides[j];
        out.base += op.slice_starts[j] * operand.strides[j];
      }
      break;
    case Opcode::kReverse: {
      out.strides = operand.strides;
      const std::vector<int64_t>& in_dims = op.operand(0)->shape().dims();
      for (int64_t d : op.dimensions) {
        auto j = static_cast<size_t>(d);
        out.base += (in_dims[j] - 1) * operand.strides[j];
        out.strides[j] = -operand.strides[j];
      }
      break;
    }
    default:
      break;
  }
  return out;
}

template <typename T>
void CopyRun(const unsigned char* from, int64_t stride, int64_t count,
             unsigned char* to) {
  const T* in = reinterpret_cast<const T*>(from);
  T* out = reinterpret_cast<T*>(to);
  if (stride == 0) {
    FillElements(out, in, sizeof(T), count);
  } else if (stride == 1) {
    std::memcpy(out, in, static_cast<size_t>(count) * sizeof(T));
  } else {
    for (int64_t i = 0; i < count; ++i) out[i] = in[i * stride];
  }
}

struct Bytes16 {
  uint64_t lo, hi;
};

void CopyElements(int element_bytes, const unsigned char* from, int64_t stride,
                  int64_t count, unsigned char* to) {
  switch (element_bytes) {
    case 1:
      return CopyRun<uint8_t>(from, stride, count, to);
    case 2:
      return CopyRun<uint16_t>(from, stride, count, to);
    case 4:
      return CopyRun<uint32_t>(from, stride, count, to);
    case 8:
      return CopyRun<uint64_t>(from, stride, count, to);
    default:
      return CopyRun<Bytes16>(from, stride, count, to);
  }
}

// Writes elements [begin, begin + count) of a value of dimensions `dims`
// that reads `array` through `map`.
void Gather(const unsigned char* array, int element_bytes,
            const std::vector<int64_t>& dims, const AffineMap& map,
            int64_t begin, int64_t count, unsigned char* out) {
  if (dims.empty()) {
    CopyElements(element_bytes, array + map.base * element_bytes, 0, count,
                 out);
    return;
  }
  const size_t rank = dims.size();
  std::vector<int64_t> index(rank);
  int64_t rest = begin;
  int64_t offset = map.base;
  for (size_t d = rank; d-- > 0;) {
    index[d] = rest % dims[d];
    rest /= dims[d];
    offset += index[d] * map.strides[d];
  }
  const size_t minor = rank - 1;
  while (count > 0) {
    int64_t run = std::min(dims[minor] - index[minor], count);
    CopyElements(element_bytes, array + offset * element_bytes,
                 map.strides[minor], run, out);
    out += run * element_bytes;
    count -= run;
    offset += run * map.strides[minor];
    index[minor] += run;
    for (size_t d = minor; d > 0 && index[d] == dims[d]; --d) {
      offset -= dims[d] * map.strides[d];
      index[d] = 0;
      ++index[d - 1];
      offset += map.strides[d - 1];
    }
  }
}

// What one value of the fused computation is within a tile.
struct TileStep {
  enum class Kind { kStream, kCompute, kAlias, kGather };
  Kind kind = Kind::kStream;
  int element_bytes = 0;
  // kStream, kGather: the whole array it reads (an index into Plan's
  // arrays); kAlias: the tile slot it shares.
  int source = 0;
  // kCompute: per operand, a tile slot (>= 0) or, for a scalar operand,
  // -1 - its whole array.
  std::vector<int> operands;
  // kCompute, per tile size (Plan::sizes): its kernel, and the shapes of
  // its operands and result.
  std::vector<Kernel> kernels;
  std::vector<std::vector<const Shape*>> shapes;
  std::vector<int64_t> dims;  // kGather
  AffineMap map;              // kGather
  int scratch = -1;           // kCompute, kGather: its tile buffer
  // kGather of one element (a broadcast scalar): the same in every tile,
  // so filled once per run of tiles.
  bool uniform = false;
};

// A value computed whole before the tiles, by its own kernel.
struct WholeStep {
  const Instruction* op = nullptr;
  Kernel kernel;
  std::vector<int> operands;  // whole arrays
  int result = 0;             // whole array
};

struct Plan {
  int64_t n = 0;     // output elements
  int64_t tile = 0;  // elements per full tile
  // The tile sizes kernels were made for: `tile`, then the partial tiles'.
  std::vector<int64_t> sizes;
  // The tile slots of the values the plan computes (the root alone for a
  // loop fusion's own kernel).
  std::vector<int> roots;
  // Whole arrays: fusion operand `parameter` (>= 0), a constant's bytes,
  // or a whole value's run buffer (`scratch_bytes` > 0).
  struct Array {
    int parameter = -1;
    const void* constant = nullptr;
    size_t scratch_bytes = 0;
  };
  std::vector<Array> arrays;
  std::vector<WholeStep> wholes;
  std::vector<TileStep> tiles;  // in program order; the last is the root
  int scratch_buffers = 0;
  size_t scratch_stride = 0;  // bytes per tile buffer
  // The tile-shaped stand-ins the tile kernels were made from.
  std::vector<std::unique_ptr<Instruction>> stand_ins;
  std::vector<std::unique_ptr<Shape>> shapes;
};

int ElementBytes(const Shape& shape) {
  return static_cast<int>(ElementByteSize(shape.element_type()));
}

class Planner {
 public:
  explicit Planner(const Instruction& fusion)
      : fusion_(fusion), fused_(*fusion.called_computations()[0]) {}
  // The fusion's own result, over its elements.
  StatusOr<std::shared_ptr<Plan>> Make();
  // `values` of one index space, in tiles of `tile` elements or of a size
  // in `partial`.
  StatusOr<std::shared_ptr<Plan>> Make(
      const std::vector<const Instruction*>& values, int64_t tile,
      const std::vector<int64_t>& partial);

 private:
  int ArrayOf(const Instruction* op);
  // `op` (IsGatheredIota) read as a broadcast of the values along its
  // dimension, computed whole as a 1-D iota of the plan's own.
  Status GatherIota(const Instruction& op, TileStep& step);
  const Shape* TileShape(const Shape& like, int64_t elements);
  StatusOr<Kernel> TileKernel(const Instruction& op,
                              const std::vector<bool>& scalar, int64_t elements,
                              std::vector<const Shape*>& shapes);

  const Instruction& fusion_;
  const Computation& fused_;
  std::shared_ptr<Plan> plan_ = std::make_shared<Plan>();
  std::unordered_map<const Instruction*, int> array_of_;
  std::unordered_map<const Instruction*, int> slot_of_;
};

int Planner::ArrayOf(const Instruction* op) {
  auto found = array_of_.find(op);
  if (found != array_of_.end()) return found->second;
  Plan::Array array;
  if (op->opcode() == Opcode::kParameter) {
    array.parameter = static_cast<int>(op->parameter_number);
  } else if (op->opcode() == Opcode::kConstant) {
    array.constant = op->literal.data();
  } else {
    array.scratch_bytes = op->shape().byte_size();
  }
  plan_->arrays.push_back(array);
  int index = static_cast<int>(plan_->arrays.size()) - 1;
  array_of_[op] = index;
  return index;
}

Status Planner::GatherIota(const Instruction& op, TileStep& step) {
  const auto dimension = static_cast<size_t>(op.dimensions[0]);
  auto values = std::make_unique<Instruction>(
      Opcode::kIota, Shape::Array(op.shape().element_type(),
                                  {op.shape().dim(op.dimensions[0])}));
  values->dimensions = {0};
  values->set_name(op.name());
  const Instruction* base = values.get();
  plan_->stand_ins.push_back(std::move(values));
  StatusOr<Kernel> kernel = MakeKernel(*base);
  if (!kernel.ok()) return kernel.status();
  WholeStep whole;
  whole.op = base;
  whole.kernel = std::move(*kernel);
  whole.result = ArrayOf(base);
  plan_->wholes.push_back(std::move(whole));
  step.kind = TileStep::Kind::kGather;
  step.source = ArrayOf(base);
  step.map.strides.assign(op.shape().dims().size(), 0);
  step.map.strides[dimension] = 1;
  step.dims = op.shape().dims();
  step.uniform = false;
  step.scratch = plan_->scratch_buffers++;
  return Status::Ok();
}

const Shape* Planner::TileShape(const Shape& like, int64_t elements) {
  plan_->shapes.push_back(
      std::make_unique<Shape>(Shape::Array(like.element_type(), {elements})));
  return plan_->shapes.back().get();
}

// The kernel of `op` over `elements` elements: made from a stand-in whose
// operands and result are 1-D arrays of that length (scalars stay scalars).
StatusOr<Kernel> Planner::TileKernel(const Instruction& op,
                                     const std::vector<bool>& scalar,
                                     int64_t elements,
                                     std::vector<const Shape*>& shapes) {
  shapes.clear();
  auto stand_in = std::make_unique<Instruction>(op);
  stand_in->set_shape(*TileShape(op.shape(), elements));
  for (int64_t i = 0; i < op.operand_count(); ++i) {
    const Shape& operand = op.operand(i)->shape();
    Shape shape = scalar[static_cast<size_t>(i)]
                      ? operand
                      : *TileShape(operand, elements);
    auto parameter = std::make_unique<Instruction>(Opcode::kParameter, shape);
    parameter->set_name(op.operand(i)->name());
    stand_in->ReplaceOperand(i, parameter.get());
    shapes.push_back(&parameter->shape());
    plan_->stand_ins.push_back(std::move(parameter));
  }
  shapes.push_back(&stand_in->shape());
  StatusOr<Kernel> kernel = MakeElementwiseKernel(*stand_in);
  plan_->stand_ins.push_back(std::move(stand_in));
  return kernel;
}

StatusOr<std::shared_ptr<Plan>> Planner::Make() {
  const Instruction* root = fused_.root();
  if (!fusion_.shape().IsArray() || root == nullptr || !root->shape().IsArray())
    return NotFound("a fusion with a tuple result");
  const int64_t n = root->shape().num_elements();
  const int64_t tile = std::min(kTileElements, std::max<int64_t>(n, 1));
  StatusOr<std::shared_ptr<Plan>> plan = Make({root}, tile, {n % tile});
  if (!plan.ok()) return plan.status();
  if ((*plan)->roots.back() != static_cast<int>((*plan)->tiles.size()) - 1)
    return NotFound("a fused computation whose root is not its last value");
  (*plan)->n = n;
  return plan;
}

StatusOr<std::shared_ptr<Plan>> Planner::Make(
    const std::vector<const Instruction*>& values, int64_t tile,
    const std::vector<int64_t>& partial) {
  const auto& instructions = fused_.instructions();
  // Which values the tiles read in the output's index space (linear), and
  // which are needed whole; users come after their operands, so walking
  // backwards settles each value's uses before the value.
  std::unordered_map<const Instruction*, bool> linear, whole;
  std::unordered_map<const Instruction*, const Instruction*> chain_base;
  for (const Instruction* value : values) {
    if (!value->shape().IsArray() ||
        value->shape().dims() != values.front()->shape().dims())
      return NotFound("values of different index spaces");
    linear[value] = true;
  }
  for (size_t i = instructions.size(); i-- > 0;) {
    const Instruction* op = instructions[i].get();
    if (!linear[op] && !whole[op]) continue;
    if (ElementBytes(op->shape()) == 0)
      return NotFound("an element type without a byte size");
    Opcode opcode = op->opcode();
    if (opcode == Opcode::kParameter || opcode == Opcode::kConstant) continue;
    if (!whole[op] && IsGatheredIota(*op)) continue;
    bool tiled = !whole[op] && (IsTileKernelOp(opcode) || IsIndexMap(opcode) ||
                                opcode == Opcode::kReshape);
    if (!tiled) {
      whole[op] = true;
      for (const Instruction* operand : op->operands()) whole[operand] = true;
    } else if (KeepsLinearIndex(*op)) {
      linear[op->operand(0)] = true;
    } else if (IsIndexMap(opcode)) {
      const Instruction* base = op;
      while (IsIndexMap(base->opcode())) base = base->operand(0);
      chain_base[op] = base;
      whole[base] = true;
    } else {
      for (const Instruction* operand : op->operands()) {
        if (operand->shape().rank() == 0 && op->shape().rank() > 0)
          whole[operand] = true;
        else
          linear[operand] = true;
      }
    }
  }

  Plan& plan = *plan_;
  plan.n = values.front()->shape().num_elements();
  plan.tile = tile;
  plan.sizes = {tile};
  for (int64_t size : partial)
    if (size > 0 && std::find(plan.sizes.begin(), plan.sizes.end(), size) ==
                        plan.sizes.end())
      plan.sizes.push_back(size);
  size_t widest = 1;
  for (const auto& owned : instructions) {
    const Instruction* op = owned.get();
    Opcode opcode = op->opcode();
    bool leaf = opcode == Opcode::kParameter || opcode == Opcode::kConstant;
    if (whole[op] && !leaf) {
      WholeStep step;
      step.op = op;
      StatusOr<Kernel> kernel = MakeKernel(*op);
      if (!kernel.ok()) return NotFound(kernel.status().message());
      step.kernel = std::move(*kernel);
      for (const Instruction* operand : op->operands())
        step.operands.push_back(ArrayOf(operand));
      step.result = ArrayOf(op);
      plan.wholes.push_back(std::move(step));
    }
    if (!linear[op]) continue;
    TileStep step;
    step.element_bytes = ElementBytes(op->shape());
    widest = std::max(widest, static_cast<size_t>(step.element_bytes));
    if (leaf || whole[op]) {
      step.kind = TileStep::Kind::kStream;
      step.source = ArrayOf(op);
    } else if (IsGatheredIota(*op)) {
      Status status = GatherIota(*op, step);
      if (!status.ok()) return NotFound(status.message());
    } else if (KeepsLinearIndex(*op)) {
      step.kind = TileStep::Kind::kAlias;
      step.source = slot_of_.at(op->operand(0));
    } else if (IsIndexMap(opcode)) {
      step.kind = TileStep::Kind::kGather;
      const Instruction* base = chain_base.at(op);
      step.source = ArrayOf(base);
      std::vector<const Instruction*> chain;
      for (const Instruction* at = op; at != base; at = at->operand(0))
        chain.push_back(at);
      AffineMap map;
      map.strides = RowMajorStrides(base->shape().dims());
      for (size_t k = chain.size(); k-- > 0;) map = Compose(*chain[k], map);
      step.uniform = std::all_of(map.strides.begin(), map.strides.end(),
                                 [](int64_t stride) { return stride == 0; });
      step.map = std::move(map);
      step.dims = op->shape().dims();
      step.scratch = plan.scratch_buffers++;
    } else {
      step.kind = TileStep::Kind::kCompute;
      std::vector<bool> scalar;
      for (const Instruction* operand : op->operands()) {
        bool is_scalar = operand->shape().rank() == 0 && op->shape().rank() > 0;
        scalar.push_back(is_scalar);
        step.operands.push_back(is_scalar ? -1 - ArrayOf(operand)
                                          : slot_of_.at(operand));
      }
      for (int64_t size : plan.sizes) {
        step.shapes.emplace_back();
        StatusOr<Kernel> kernel =
            TileKernel(*op, scalar, size, step.shapes.back());
        if (!kernel.ok()) return NotFound(kernel.status().message());
        step.kernels.push_back(std::move(*kernel));
      }
      step.scratch = plan.scratch_buffers++;
    }
    slot_of_[op] = static_cast<int>(plan.tiles.size());
    plan.tiles.push_back(std::move(step));
  }
  for (const Instruction* value : values) {
    if (slot_of_.count(value) == 0)
      return NotFound("a fused value the tiles do not compute");
    plan.roots.push_back(slot_of_.at(value));
  }
  size_t bytes = static_cast<size_t>(plan.tile) * widest;
  plan.scratch_stride =
      (bytes + kScratchAlignment - 1) / kScratchAlignment * kScratchAlignment;
  return plan_;
}

struct AlignedFree {
  void operator()(void* p) const {
    ::operator delete(p, std::align_val_t(kScratchAlignment));
  }
};
using Scratch = std::unique_ptr<void, AlignedFree>;

Scratch Allocate(size_t bytes) {
  return Scratch(::operator new(std::max<size_t>(bytes, 1),
                                std::align_val_t(kScratchAlignment)));
}

// Buffers one thread's tiles use: scratch for the computed and gathered
// values, the current tile's value pointers, a kernel's operand views.
struct TileBuffers {
  Scratch scratch;
  std::vector<unsigned char*> slots;
  std::vector<ArrayView> operands;
  std::vector<unsigned char*> values;  // the roots' data, for a sink
  std::vector<unsigned char*> direct;  // per step: its output array

  explicit TileBuffers(const Plan& plan)
      : scratch(Allocate(plan.scratch_stride *
                         static_cast<size_t>(plan.scratch_buffers))),
        slots(plan.tiles.size()) {}
};

// Runs tiles [begin, end) (element offsets; every tile but the last has
// plan.tile elements, and each has a size in plan.sizes). With an `output`,
// the root's tiles are written there; without, each tile's root values are
// handed to `sink` (at, count, the roots' tile data).
//
// `root_outputs` (with a sink; may be null): per root, an array of its
// dimensions that a computed or gathered root is written into directly
// instead of into scratch (null: none).
Status RunTiles(const Plan& plan, const std::vector<unsigned char*>& arrays,
                unsigned char* output, int64_t begin, int64_t end,
                TileBuffers& buffers, const TileSink* sink = nullptr,
                unsigned char* const* root_outputs = nullptr) {
  auto* scratch = static_cast<unsigned char*>(buffers.scratch.get());
  std::vector<unsigned char*>& slots = buffers.slots;
  std::vector<ArrayView>& operands = buffers.operands;
  ArrayView result;
  // Without an output no step writes in place.
  const size_t root = output != nullptr ? plan.tiles.size() - 1 : SIZE_MAX;
  std::vector<unsigned char*>& values = buffers.values;
  // Per tile step: the array it is written into directly, if any.
  std::vector<unsigned char*>& direct = buffers.direct;
  direct.assign(plan.tiles.size(), nullptr);
  if (root_outputs != nullptr)
    for (size_t k = 0; k < plan.roots.size(); ++k)
      if (root_outputs[k] != nullptr)
        direct[static_cast<size_t>(plan.roots[k])] = root_outputs[k];
  if (output != nullptr) direct[root] = output;
  for (int64_t at = begin; at < end; at += plan.tile) {
    const int64_t count = std::min(plan.tile, end - at);
    size_t size_class = 0;
    while (size_class < plan.sizes.size() && plan.sizes[size_class] != count)
      ++size_class;
    if (size_class == plan.sizes.size())
      return Internal("a fused tile of " + std::to_string(count) +
                      " elements, which no kernel was made for");
    for (size_t s = 0; s < plan.tiles.size(); ++s) {
      const TileStep& step = plan.tiles[s];
      const int64_t offset = at * step.element_bytes;
      unsigned char* own =
          direct[s] != nullptr
              ? direct[s] + offset
              : scratch +
                    plan.scratch_stride * static_cast<size_t>(step.scratch);
      switch (step.kind) {
        case TileStep::Kind::kStream:
          slots[s] = arrays[static_cast<size_t>(step.source)] + offset;
          break;
        case TileStep::Kind::kAlias:
          slots[s] = slots[static_cast<size_t>(step.source)];
          break;
        case TileStep::Kind::kGather:
          // The first tile is full unless it is the only one, so a uniform
          // value filled then covers every later tile.
          if (!step.uniform || at == begin || direct[s] != nullptr)
            Gather(arrays[static_cast<size_t>(step.source)], step.element_bytes,
                   step.dims, step.map, at, count, own);
          slots[s] = own;
          break;
        case TileStep::Kind::kCompute: {
          const std::vector<const Shape*>& shapes = step.shapes[size_class];
          operands.clear();
          for (size_t k = 0; k < step.operands.size(); ++k) {
            int source = step.operands[k];
            void* data = source >= 0 ? slots[static_cast<size_t>(source)]
                                     : arrays[static_cast<size_t>(-1 - source)];
            operands.push_back({shapes[k], data});
          }
          result = {shapes.back(), own};
          KernelArgs args;
          args.operands = operands;
          args.results = std::span<const ArrayView>(&result, 1);
          Status status = step.kernels[size_class](args);
          if (!status.ok()) return status;
          slots[s] = own;
          break;
        }
      }
    }
    if (output == nullptr) {
      values.clear();
      for (int slot : plan.roots)
        values.push_back(slots[static_cast<size_t>(slot)]);
      (*sink)(at, count, values.data());
      continue;
    }
    unsigned char* out = output + at * plan.tiles[root].element_bytes;
    if (slots[root] != out)
      std::memmove(out, slots[root],
                   static_cast<size_t>(count * plan.tiles[root].element_bytes));
  }
  return Status::Ok();
}

// A plan's whole arrays for one run: the fusion's operands, its constants,
// and the values computed whole before the tiles (buffers kept from run to
// run: a program runs one thunk at a time).
class PlanArrays {
 public:
  explicit PlanArrays(const Plan& plan) : arrays_(plan.arrays.size()) {
    for (size_t i = 0; i < plan.arrays.size(); ++i) {
      const Plan::Array& array = plan.arrays[i];
      if (array.constant != nullptr) {
        arrays_[i] =
            static_cast<unsigned char*>(const_cast<void*>(array.constant));
      } else if (array.parameter < 0) {
        wholes_.push_back(Allocate(array.scratch_bytes));
        arrays_[i] = static_cast<unsigned char*>(wholes_.back().get());
      }
    }
  }

  // Points at `args`' operands and computes the whole values.
  Status Prepare(const Plan& plan, const KernelArgs& args) {
    for (size_t i = 0; i < plan.arrays.size(); ++i)
      if (plan.arrays[i].parameter >= 0)
        arrays_[i] = static_cast<unsigned char*>(
            args.operands[static_cast<size_t>(plan.arrays[i].parameter)].data);
    for (const WholeStep& step : plan.wholes) {
      operands_.clear();
      for (size_t k = 0; k < step.operands.size(); ++k)
        operands_.push_back(
            {&step.op->operand(static_cast<int64_t>(k))->shape(),
             arrays_[static_cast<size_t>(step.operands[k])]});
      ArrayView result{&step.op->shape(),
                       arrays_[static_cast<size_t>(step.result)]};
      KernelArgs whole_args;
      whole_args.operands = operands_;
      whole_args.results = std::span<const ArrayView>(&result, 1);
      whole_args.pool = args.pool;
      Status status = step.kernel(whole_args);
      if (!status.ok()) return status;
    }
    return Status::Ok();
  }

  const std::vector<unsigned char*>& arrays() const { return arrays_; }

 private:
  std::vector<unsigned char*> arrays_;
  std::vector<Scratch> wholes_;
  std::vector<ArrayView> operands_;
};

// A fusion's kernel: its plan, its arrays, and tile buffers kept from run
// to run for the calling thread (the pool's threads allocate their own).
class FusedLoop {
 public:
  explicit FusedLoop(std::shared_ptr<const Plan> plan)
      : plan_(std::move(plan)), arrays_(*plan_), caller_(*plan_) {}

  Status Run(const KernelArgs& args) {
    const Plan& plan = *plan_;
    if (Status status = arrays_.Prepare(plan, args); !status.ok())
      return status;
    auto* output = static_cast<unsigned char*>(args.results[0].data);
    // Each tiled value costs about one elementwise op per element.
    const int64_t chunk =
        args.pool == nullptr
            ? plan.n
            : ChunkSize(args.pool->num_threads(), plan.n,
                        kElementNanos * static_cast<double>(plan.tiles.size()),
                        plan.tile);
    if (chunk >= plan.n)
      return RunTiles(plan, arrays_.arrays(), output, 0, plan.n, caller_);
    Status failure;
    std::mutex failure_mutex;
    args.pool->ParallelFor(plan.n, chunk, [&](int64_t begin, int64_t end) {
      TileBuffers buffers(plan);
      Status status =
          RunTiles(plan, arrays_.arrays(), output, begin, end, buffers);
      if (!status.ok()) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        failure = status;
      }
    });
    return failure;
  }

 private:
  std::shared_ptr<const Plan> plan_;
  PlanArrays arrays_;
  TileBuffers caller_;
};

}  // namespace

struct FusedTiles::Buffers : TileBuffers {
  using TileBuffers::TileBuffers;
};

struct FusedTiles::State {
  std::shared_ptr<const Plan> plan;
  PlanArrays arrays;
  explicit State(std::shared_ptr<const Plan> made)
      : plan(std::move(made)), arrays(*plan) {}
};

FusedTiles::FusedTiles(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
FusedTiles::~FusedTiles() = default;

StatusOr<std::unique_ptr<FusedTiles>> FusedTiles::Make(
    const Instruction& fusion, const std::vector<const Instruction*>& values,
    int64_t tile, const std::vector<int64_t>& partial) {
  if (fusion.opcode() != Opcode::kFusion ||
      fusion.called_computations().size() != 1 || values.empty() || tile < 1)
    return NotFound(fusion.Describe() + ": no tiles to make");
  StatusOr<std::shared_ptr<Plan>> plan =
      Planner(fusion).Make(values, tile, partial);
  if (!plan.ok()) return plan.status();
  return std::unique_ptr<FusedTiles>(
      new FusedTiles(std::make_unique<State>(std::move(*plan))));
}

int FusedTiles::ValueCount() const {
  return static_cast<int>(state_->plan->roots.size());
}

int64_t FusedTiles::StepCount() const {
  return static_cast<int64_t>(state_->plan->tiles.size());
}

Status FusedTiles::Prepare(const KernelArgs& args) {
  return state_->arrays.Prepare(*state_->plan, args);
}

std::shared_ptr<FusedTiles::Buffers> FusedTiles::NewBuffers() const {
  return std::make_shared<Buffers>(*state_->plan);
}

Status FusedTiles::Run(int64_t begin, int64_t end, Buffers& buffers,
                       const TileSink& sink,
                       unsigned char* const* outputs) const {
  return RunTiles(*state_->plan, state_->arrays.arrays(), nullptr, begin, end,
                  buffers, &sink, outputs);
}

StatusOr<Kernel> MakeFusedLoopKernel(const Instruction& fusion) {
  if (fusion.opcode() != Opcode::kFusion ||
      fusion.fusion_kind != FusionKind::kLoop ||
      fusion.called_computations().size() != 1)
    return NotFound(fusion.Describe() + " is not a loop fusion");
  StatusOr<std::shared_ptr<Plan>> plan = Planner(fusion).Make();
  if (!plan.ok()) return plan.status();
  auto loop = std::make_shared<FusedLoop>(std::move(*plan));
  return Kernel(
      [loop](const KernelArgs& args) -> Status { return loop->Run(args); });
}

}  // namespace xffi::cpu
