// Buffer assignment: values to buffers, aliasing with copy insertion, and
// the arena layout with reuse of dead buffers.
#include "compiler/buffer_assignment.h"

#include "compiler/in_place.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <unordered_set>

namespace xffi::compiler {
namespace {

size_t AlignUp(size_t size) {
  size_t aligned = (size + kBufferAlignment - 1) / kBufferAlignment;
  // Even an empty array gets its own address.
  return std::max<size_t>(aligned, 1) * kBufferAlignment;
}

// The leaf range [first, first + count) of the subshape at `index` (a
// path the verifier has checked).
void LeafRangeOf(const Shape& shape, const std::vector<int64_t>& index,
                 int64_t* first, int64_t* count) {
  const Shape* current = &shape;
  int64_t offset = 0;
  for (int64_t i : index) {
    offset += TupleElementLeafOffset(*current, i);
    current = &current->tuple_shape(i);
  }
  *first = offset;
  *count = LeafCount(*current);
}

// Per value leaf, whether `layouts` (one per leaf once flattened, valid
// permutations: the verifier checked them) asks for a non-row-major layout.
std::vector<bool> NonDefaultLayouts(const std::vector<Shape>& layouts,
                                    const std::vector<const Shape*>& leaves) {
  std::vector<bool> non_default(leaves.size(), false);
  if (layouts.empty()) return non_default;
  size_t i = 0;
  for (const Shape& layout : layouts)
    for (const Shape* leaf : layout.Leaves()) {
      non_default[i] = leaves[i]->IsArray() && leaf->has_layout() &&
                       !leaf->HasDefaultLayout();
      ++i;
    }
  return non_default;
}

bool IsComplex(const Shape& shape) {
  return shape.IsArray() && (shape.element_type() == ElementType::kC64 ||
                             shape.element_type() == ElementType::kC128);
}

// Generated complex exp and division loops write a block, then recompute
// its special elements from the operands (codegen/emitter.cc), which must
// still be there.
bool RereadsItsOperands(const Instruction& op) {
  if (op.opcode() != Opcode::kExp && op.opcode() != Opcode::kDivide)
    return false;
  return IsComplex(op.shape()) ||
         std::any_of(op.operands().begin(), op.operands().end(),
                     [](const Instruction* operand) {
                       return IsComplex(operand->shape());
                     });
}

bool IsElementwise(const Instruction& op) {
  const Opcode opcode = op.opcode();
  return IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode) ||
         opcode == Opcode::kSelect || opcode == Opcode::kClamp ||
         opcode == Opcode::kConvert || opcode == Opcode::kBitcastConvert;
}

// Whether `value` has the dimensions, element size and layout of `like`,
// so that element i of each lies at the same bytes.
bool SameBytesPerIndex(const Shape& value, const Shape& like) {
  return value.IsArray() && like.IsArray() && value.dims() == like.dims() &&
         ElementByteSize(value.element_type()) ==
             ElementByteSize(like.element_type()) &&
         value.EffectiveMinorToMajor() == like.EffectiveMinorToMajor();
}

// Whether every element of `op`'s result is computed from the elements of
// operand `k` at its own index only, with the same bytes per index: the
// CPU's kernels (template and generated) then read an element before they
// write the result element there, so the result may take the operand's
// buffer. Elementwise ops and loop fusions that reach the parameter only
// through elementwise ops of the result's dimensions, none of which rereads
// its operands (RereadsItsOperands).
bool ReadsAtItsOwnIndex(const Instruction& op, int64_t k) {
  const Shape& result = op.shape();
  if (!SameBytesPerIndex(op.operand(k)->shape(), result)) return false;
  if (IsElementwise(op)) return !RereadsItsOperands(op);
  if (op.opcode() != Opcode::kFusion || op.fusion_kind != FusionKind::kLoop)
    return false;
  const Computation& fused = *op.called_computations()[0];
  // Values that read the parameter, in an order where operands come first.
  std::unordered_set<const Instruction*> reading;
  for (const auto& owned : fused.instructions()) {
    const Instruction& inner = *owned;
    if (RereadsItsOperands(inner)) return false;
    if (inner.opcode() == Opcode::kParameter) {
      if (inner.parameter_number == k) reading.insert(&inner);
      continue;
    }
    const bool reads = std::any_of(
        inner.operands().begin(), inner.operands().end(),
        [&](const Instruction* operand) { return reading.count(operand) > 0; });
    if (!reads) continue;
    if (!IsElementwise(inner) || inner.shape().dims() != result.dims())
      return false;
    reading.insert(&inner);
  }
  return true;
}

// XFFI_RESULTS_IN_PLACE=0 turns the rule off (to measure it).
bool ResultsInPlaceEnabled() {
  const char* text = std::getenv("XFFI_RESULTS_IN_PLACE");
  return text == nullptr || std::string(text) != "0";
}

class Assigner {
 public:
  Assigner(const Computation& computation, const InPlaceAnalysis* in_place,
           bool results_in_place)
      : in_place_(in_place), reads_(computation) {
    result_.computation = &computation;
    results_in_place_ = results_in_place && in_place != nullptr &&
                        ResultsInPlaceEnabled() &&
                        !in_place->RunByCustomCalls(&computation);
  }

  StatusOr<BufferAssignment> Run();

 private:
  BufferId NewBuffer(BufferKind kind, size_t size, int64_t position) {
    Buffer buffer;
    buffer.kind = kind;
    buffer.size = size;
    buffer.defined_at = position;
    buffer.live_until = position;
    result_.buffers.push_back(buffer);
    return static_cast<BufferId>(result_.buffers.size() - 1);
  }
  std::vector<BufferId> FreshLeaves(const Instruction& op, int64_t position) {
    std::vector<BufferId> leaves;
    for (const Shape* leaf : op.shape().Leaves()) {
      leaves.push_back(leaf->IsArray() ? NewBuffer(BufferKind::kArena,
                                                   leaf->byte_size(), position)
                                       : kNoBuffer);
    }
    return leaves;
  }
  // The buffer result leaf of `op` takes for aliasing operand leaf
  // (`operand`, `leaf`): the operand's own when nothing reads it after the
  // op, else a copy made before the op (which the op then reads).
  BufferId Alias(const Instruction& op, int64_t position,
                 InstructionBuffers& buffers, size_t operand, size_t leaf,
                 std::vector<BufferId>& claimed);

  // The same for an op that overwrites operand leaf (`operand`, `leaf`)
  // with result leaf `result` (dynamic-update-slice, a call that updates in
  // place): shareable when the array's last reader is this op, reading it
  // once, and it is an arena buffer or a parameter leaf the callers hand
  // over (InPlaceAnalysis). Otherwise a copy when `copy_if_live`, else a
  // fresh buffer (the op then writes all of its result itself).
  BufferId Overwrite(const Instruction& op, int64_t position,
                     InstructionBuffers& buffers, size_t operand, size_t leaf,
                     bool copy_if_live, size_t result_size);

  // An elementwise op or loop fusion (ReadsAtItsOwnIndex) computes its
  // result into the buffer of an operand that nothing reads afterwards: an
  // arena buffer no custom call has seen, which every operand on it reads
  // at the result's own index. Otherwise a fresh buffer.
  BufferId ElementwiseResult(const Instruction& op, int64_t position,
                             const InstructionBuffers& buffers);

  // Result `k` of a sort or a scatter: operand k's buffer when the op is
  // its last reader, reading it once (an arena buffer no custom call has
  // seen), else a fresh one.
  BufferId ResultInOperandBuffer(const Instruction& op, int64_t position,
                                 const InstructionBuffers& buffers, int64_t k);
  // Whether an in-place result may take `source`, the buffer of operand
  // leaf (k, 0) of `op`: an arena buffer of the result's size that no
  // custom call has seen, whose value `op` reads last.
  bool MayTake(const Instruction& op, int64_t position, int64_t k,
               BufferId source, size_t result_size) const;

  // A reshape between row-major shapes of one element type moves no byte:
  // its value is its operand's arena buffer (one no custom call has seen)
  // when results are computed in place (the CPU's reshape kernel copies
  // nothing from a buffer to itself, and the executor skips it). Otherwise
  // a fresh buffer.
  BufferId ReshapeResult(const Instruction& op, int64_t position,
                         const InstructionBuffers& buffers);
  // Whether no view (a reshape above) still reads `source` after `position`
  // and `op`'s operands read it at most `reads` times: the last read of the
  // value an in-place rule looks at is then the buffer's. Always true for a
  // buffer no reshape views.
  bool ViewsDone(const InstructionBuffers& buffers, BufferId source,
                 int64_t position, int reads) const;

  Status AssignCustomCall(const Instruction& op, int64_t position,
                          InstructionBuffers& buffers);
  void AssignWhile(const Instruction& op, int64_t position,
                   InstructionBuffers& buffers);
  void LayOutArena();

  const InPlaceAnalysis* in_place_;
  const LastReads reads_;
  // Off without the analysis and inside computations a custom call runs.
  bool results_in_place_ = true;
  // Buffers a custom call read or wrote: a handler is foreign code that
  // may keep an address it was given (a registry of its buffers, a call
  // abandoned by a timeout), so no later op writes over them in place.
  std::unordered_set<BufferId> seen_by_custom_calls_;
  // Buffers a reshape reads as a view (ReshapeResult).
  std::unordered_set<BufferId> viewed_;
  BufferAssignment result_;
  std::vector<int64_t> last_use_;  // by position
};

BufferId Assigner::Alias(const Instruction& op, int64_t position,
                         InstructionBuffers& buffers, size_t operand,
                         size_t leaf, std::vector<BufferId>& claimed) {
  BufferId source = buffers.operands[operand][leaf];
  if (source == kNoBuffer) return kNoBuffer;
  const Buffer buffer = result_.buffers[static_cast<size_t>(source)];
  int uses = 0;
  for (const auto& list : buffers.operands)
    uses += static_cast<int>(std::count(list.begin(), list.end(), source));
  bool shareable =
      buffer.kind == BufferKind::kArena && buffer.live_until <= position &&
      uses == 1 &&
      std::find(claimed.begin(), claimed.end(), source) == claimed.end();
  (void)op;
  if (shareable) {
    claimed.push_back(source);
    return source;
  }
  BufferId copy = NewBuffer(BufferKind::kArena, buffer.size, position);
  buffers.copies_before.push_back({source, copy, buffer.size});
  buffers.operands[operand][leaf] = copy;
  claimed.push_back(copy);
  return copy;
}

bool Assigner::MayTake(const Instruction& op, int64_t position, int64_t k,
                       BufferId source, size_t result_size) const {
  if (!results_in_place_ || source == kNoBuffer) return false;
  const Buffer& buffer = result_.buffers[static_cast<size_t>(source)];
  // Read last here, through any view (per leaf: a tuple's other elements
  // may be read later).
  int64_t value_leaf = 0;
  const Instruction* value = ProducerOfLeaf(op.operand(k), 0, &value_leaf);
  return buffer.kind == BufferKind::kArena &&
         reads_.Of(value, value_leaf) == position &&
         buffer.size == result_size &&
         seen_by_custom_calls_.count(source) == 0 &&
         ViewsDone(result_.instructions[static_cast<size_t>(position)], source,
                   position, std::numeric_limits<int>::max());
}

BufferId Assigner::ReshapeResult(const Instruction& op, int64_t position,
                                 const InstructionBuffers& buffers) {
  const Shape& from = op.operand(0)->shape();
  const Shape& to = op.shape();
  const BufferId source =
      buffers.operands[0].size() == 1 ? buffers.operands[0][0] : kNoBuffer;
  if (results_in_place_ && source != kNoBuffer && from.IsArray() &&
      to.IsArray() && from.element_type() == to.element_type() &&
      from.HasDefaultLayout() && to.HasDefaultLayout() &&
      result_.buffers[static_cast<size_t>(source)].kind == BufferKind::kArena &&
      seen_by_custom_calls_.count(source) == 0) {
    viewed_.insert(source);
    return source;
  }
  return NewBuffer(BufferKind::kArena, to.byte_size(), position);
}

bool Assigner::ViewsDone(const InstructionBuffers& buffers, BufferId source,
                         int64_t position, int reads) const {
  if (viewed_.count(source) == 0) return true;
  int uses = 0;
  for (const auto& list : buffers.operands)
    uses += static_cast<int>(std::count(list.begin(), list.end(), source));
  return result_.buffers[static_cast<size_t>(source)].live_until <= position &&
         uses <= reads;
}

BufferId Assigner::ElementwiseResult(const Instruction& op, int64_t position,
                                     const InstructionBuffers& buffers) {
  for (int64_t k = 0; k < op.operand_count(); ++k) {
    const std::vector<BufferId>& leaves =
        buffers.operands[static_cast<size_t>(k)];
    if (leaves.size() != 1 ||
        !MayTake(op, position, k, leaves[0], op.shape().byte_size()) ||
        !ReadsAtItsOwnIndex(op, k))
      continue;
    // Another operand on the same buffer must read it at its own index
    // too (x * x).
    bool every_read_at_own_index = true;
    for (int64_t j = 0; j < op.operand_count(); ++j) {
      const auto& other = buffers.operands[static_cast<size_t>(j)];
      if (j != k &&
          std::find(other.begin(), other.end(), leaves[0]) != other.end())
        every_read_at_own_index =
            every_read_at_own_index && ReadsAtItsOwnIndex(op, j);
    }
    if (every_read_at_own_index) return leaves[0];
  }
  return NewBuffer(BufferKind::kArena, op.shape().byte_size(), position);
}

BufferId Assigner::ResultInOperandBuffer(const Instruction& op,
                                         int64_t position,
                                         const InstructionBuffers& buffers,
                                         int64_t k) {
  const Shape& result =
      op.shape().IsTuple() ? op.shape().tuple_shape(k) : op.shape();
  const std::vector<BufferId>& leaves =
      buffers.operands[static_cast<size_t>(k)];
  if (leaves.size() == 1 &&
      MayTake(op, position, k, leaves[0], result.byte_size())) {
    int uses = 0;
    for (const auto& list : buffers.operands)
      uses += static_cast<int>(std::count(list.begin(), list.end(), leaves[0]));
    if (uses == 1) return leaves[0];
  }
  return NewBuffer(BufferKind::kArena, result.byte_size(), position);
}

BufferId Assigner::Overwrite(const Instruction& op, int64_t position,
                             InstructionBuffers& buffers, size_t operand,
                             size_t leaf, bool copy_if_live,
                             size_t result_size) {
  BufferId source = buffers.operands[operand][leaf];
  if (source != kNoBuffer) {
    const Buffer buffer = result_.buffers[static_cast<size_t>(source)];
    int64_t value_leaf = 0;
    const Instruction* value =
        ProducerOfLeaf(op.operand(static_cast<int64_t>(operand)),
                       static_cast<int64_t>(leaf), &value_leaf);
    const bool writable =
        buffer.kind == BufferKind::kArena ||
        (buffer.kind == BufferKind::kParameter && buffer.handed_over);
    if (writable && reads_.Of(value, value_leaf) == position &&
        LastReads::ReadsBy(op, value, value_leaf) == 1 &&
        ViewsDone(buffers, source, position, 1))
      return source;
    if (copy_if_live) {
      BufferId copy = NewBuffer(BufferKind::kArena, buffer.size, position);
      buffers.copies_before.push_back({source, copy, buffer.size});
      buffers.operands[operand][leaf] = copy;
      return copy;
    }
  }
  return NewBuffer(BufferKind::kArena, result_size, position);
}

Status Assigner::AssignCustomCall(const Instruction& op, int64_t position,
                                  InstructionBuffers& buffers) {
  const CustomCallConfig& config = op.custom_call;
  std::vector<const Shape*> operand_leaves;
  std::vector<std::pair<size_t, size_t>> operand_leaf_index;  // (op, leaf)
  for (int64_t i = 0; i < op.operand_count(); ++i) {
    std::vector<const Shape*> leaves = op.operand(i)->shape().Leaves();
    for (size_t j = 0; j < leaves.size(); ++j) {
      operand_leaves.push_back(leaves[j]);
      operand_leaf_index.emplace_back(static_cast<size_t>(i), j);
    }
  }
  std::vector<const Shape*> result_leaves = op.shape().Leaves();
  const std::vector<bool> operand_relayout =
      NonDefaultLayouts(config.operand_layouts, operand_leaves);
  const std::vector<bool> result_relayout =
      NonDefaultLayouts(config.result_layouts, result_leaves);

  // Aliases by result leaf: the flattened operand leaf it reuses. The
  // verifier has checked every alias names an array result and an operand
  // of its shape, each result once.
  std::vector<int64_t> aliased_operand_leaf(result_leaves.size(), -1);
  for (const OutputOperandAlias& alias : config.output_operand_aliases) {
    int64_t out_first = 0, out_count = 0, in_first = 0, in_count = 0;
    LeafRangeOf(op.shape(), alias.output_index, &out_first, &out_count);
    LeafRangeOf(op.operand(alias.operand)->shape(), alias.operand_index,
                &in_first, &in_count);
    int64_t base = 0;
    for (int64_t i = 0; i < alias.operand; ++i)
      base += LeafCount(op.operand(i)->shape());
    aliased_operand_leaf[static_cast<size_t>(out_first)] = base + in_first;
  }

  // Relayout scratch per operand leaf, then per result leaf.
  buffers.temps.assign(operand_leaves.size() + result_leaves.size(), kNoBuffer);
  for (size_t i = 0; i < operand_leaves.size(); ++i) {
    if (operand_relayout[i])
      buffers.temps[i] = NewBuffer(BufferKind::kArena,
                                   operand_leaves[i]->byte_size(), position);
  }

  std::vector<BufferId> claimed;
  buffers.leaves.clear();
  for (size_t r = 0; r < result_leaves.size(); ++r) {
    int64_t source = aliased_operand_leaf[r];
    bool relayout = result_relayout[r];
    size_t temp_slot = operand_leaves.size() + r;
    if (source < 0) {
      buffers.leaves.push_back(result_leaves[r]->IsArray()
                                   ? NewBuffer(BufferKind::kArena,
                                               result_leaves[r]->byte_size(),
                                               position)
                                   : kNoBuffer);
      if (relayout)
        buffers.temps[temp_slot] = NewBuffer(
            BufferKind::kArena, result_leaves[r]->byte_size(), position);
      continue;
    }
    bool operand_relayout_here = operand_relayout[static_cast<size_t>(source)];
    if (relayout || operand_relayout_here) {
      // The target reads and writes one buffer in its layout: the operand's
      // relayout scratch, copied back into a fresh result buffer.
      const Shape* in_layout = nullptr;
      const Shape* out_layout = nullptr;
      {
        std::vector<const Shape*> all_in, all_out;
        for (const Shape& s : config.operand_layouts)
          for (const Shape* l : s.Leaves()) all_in.push_back(l);
        for (const Shape& s : config.result_layouts)
          for (const Shape* l : s.Leaves()) all_out.push_back(l);
        if (!all_in.empty()) in_layout = all_in[static_cast<size_t>(source)];
        if (!all_out.empty()) out_layout = all_out[r];
      }
      std::vector<int64_t> in_order =
          in_layout ? in_layout->EffectiveMinorToMajor()
                    : operand_leaves[static_cast<size_t>(source)]
                          ->EffectiveMinorToMajor();
      std::vector<int64_t> out_order =
          out_layout
              ? out_layout->EffectiveMinorToMajor()
              : result_leaves[r]->WithoutLayout().EffectiveMinorToMajor();
      if (in_order != out_order) {
        return InvalidArgument(
            op.Describe() + ": result leaf " + std::to_string(r) +
            " aliases operand leaf " + std::to_string(source) +
            " but their layouts differ; an aliased pair needs one layout");
      }
      buffers.leaves.push_back(NewBuffer(
          BufferKind::kArena, result_leaves[r]->byte_size(), position));
      buffers.temps[temp_slot] = buffers.temps[static_cast<size_t>(source)];
      continue;
    }
    auto [operand, leaf] = operand_leaf_index[static_cast<size_t>(source)];
    buffers.leaves.push_back(
        Alias(op, position, buffers, operand, leaf, claimed));
  }
  return Status::Ok();
}

void Assigner::AssignWhile(const Instruction& op, int64_t position,
                           InstructionBuffers& buffers) {
  const Computation* body = op.called_computations()[1];
  const Instruction* root = body->root();
  std::vector<const Shape*> leaves = op.shape().Leaves();
  auto passes_through = [&](size_t leaf) {
    int64_t producer_leaf = 0;
    const Instruction* producer =
        ProducerOfLeaf(root, static_cast<int64_t>(leaf), &producer_leaf);
    return producer->opcode() == Opcode::kParameter &&
           producer->parameter_number == 0 &&
           producer_leaf == static_cast<int64_t>(leaf);
  };

  // The loop never writes a leaf its body passes through: when the initial
  // value is memory nothing may write (a constant, or a parameter no caller
  // hands over), the state reads that memory instead of a copy of it (a
  // scan's inputs and weights, a Newton loop's right-hand side).
  std::vector<BufferId> claimed;
  buffers.leaves.clear();
  for (size_t leaf = 0; leaf < buffers.operands[0].size(); ++leaf) {
    const BufferId source = buffers.operands[0][leaf];
    if (source != kNoBuffer && passes_through(leaf)) {
      const Buffer& buffer = result_.buffers[static_cast<size_t>(source)];
      if (buffer.kind == BufferKind::kConstant ||
          (buffer.kind == BufferKind::kParameter && !buffer.handed_over)) {
        buffers.leaves.push_back(source);
        continue;
      }
    }
    buffers.leaves.push_back(Alias(op, position, buffers, 0, leaf, claimed));
  }

  // The body writes the next state while it reads the current one, so it
  // gets a second set, except where it returns its parameter's leaf as is.
  for (size_t leaf = 0; leaf < leaves.size(); ++leaf) {
    const bool passed_through = passes_through(leaf);
    // A leaf the body updates in place is one buffer in both sets too.
    const bool updated_in_place =
        in_place_ != nullptr &&
        in_place_->Writes(body, static_cast<int64_t>(leaf));
    if (!leaves[leaf]->IsArray())
      buffers.temps.push_back(kNoBuffer);
    else if (passed_through || updated_in_place)
      buffers.temps.push_back(buffers.leaves[leaf]);
    else
      buffers.temps.push_back(
          NewBuffer(BufferKind::kArena, leaves[leaf]->byte_size(), position));
  }
  buffers.temps.push_back(NewBuffer(BufferKind::kArena, 1, position));
}

void Assigner::LayOutArena() {
  // Events by position: allocate what is defined there, then free what
  // dies there, so an op's results never overlap its operands.
  int64_t end = static_cast<int64_t>(result_.schedule.size());
  std::vector<std::vector<BufferId>> defined(static_cast<size_t>(end + 1));
  std::vector<std::vector<BufferId>> dying(static_cast<size_t>(end + 1));
  for (size_t id = 0; id < result_.buffers.size(); ++id) {
    const Buffer& buffer = result_.buffers[id];
    if (buffer.kind != BufferKind::kArena) continue;
    result_.unshared_arena_size += AlignUp(buffer.size);
    defined[static_cast<size_t>(buffer.defined_at)].push_back(
        static_cast<BufferId>(id));
    dying[static_cast<size_t>(std::min(buffer.live_until, end))].push_back(
        static_cast<BufferId>(id));
  }
  std::map<size_t, size_t> free_blocks;  // offset -> size
  size_t top = 0;
  auto allocate = [&](size_t size) {
    for (auto it = free_blocks.begin(); it != free_blocks.end(); ++it) {
      if (it->second < size) continue;
      size_t offset = it->first, remaining = it->second - size;
      free_blocks.erase(it);
      if (remaining > 0) free_blocks[offset + size] = remaining;
      return offset;
    }
    // Grow the arena, starting inside a free block that ends at the top.
    if (!free_blocks.empty()) {
      auto last = std::prev(free_blocks.end());
      if (last->first + last->second == top) {
        size_t offset = last->first;
        free_blocks.erase(last);
        top = offset + size;
        return offset;
      }
    }
    size_t offset = top;
    top += size;
    return offset;
  };
  auto release = [&](size_t offset, size_t size) {
    auto next = free_blocks.lower_bound(offset);
    if (next != free_blocks.end() && offset + size == next->first) {
      size += next->second;
      next = free_blocks.erase(next);
    }
    if (next != free_blocks.begin()) {
      auto previous = std::prev(next);
      if (previous->first + previous->second == offset) {
        previous->second += size;
        return;
      }
    }
    free_blocks[offset] = size;
  };
  for (int64_t p = 0; p <= end; ++p) {
    for (BufferId id : defined[static_cast<size_t>(p)]) {
      Buffer& buffer = result_.buffers[static_cast<size_t>(id)];
      buffer.offset = allocate(AlignUp(buffer.size));
    }
    for (BufferId id : dying[static_cast<size_t>(p)]) {
      const Buffer& buffer = result_.buffers[static_cast<size_t>(id)];
      release(buffer.offset, AlignUp(buffer.size));
    }
  }
  result_.arena_size = top;
}

StatusOr<BufferAssignment> Assigner::Run() {
  const Computation& computation = *result_.computation;
  for (const auto& instruction : computation.instructions())
    result_.schedule.push_back(instruction.get());
  const int64_t end = static_cast<int64_t>(result_.schedule.size());
  for (int64_t p = 0; p < end; ++p)
    result_.position[result_.schedule[static_cast<size_t>(p)]] = p;

  // An op's value is read up to its last user; the root's to the end; an
  // unread value still occupies its buffer while its op runs.
  last_use_.assign(static_cast<size_t>(end), 0);
  for (int64_t p = 0; p < end; ++p) {
    last_use_[static_cast<size_t>(p)] =
        std::max(last_use_[static_cast<size_t>(p)], p);
    for (const Instruction* operand :
         result_.schedule[static_cast<size_t>(p)]->operands()) {
      int64_t& use =
          last_use_[static_cast<size_t>(result_.position.at(operand))];
      use = std::max(use, p);
    }
  }
  if (computation.root() != nullptr)
    last_use_[static_cast<size_t>(result_.position.at(computation.root()))] =
        end;

  // Parameter leaves are numbered in parameter order.
  std::vector<int64_t> parameter_leaf_base;
  for (const Instruction* parameter : computation.parameters()) {
    parameter_leaf_base.push_back(result_.num_parameter_leaves);
    result_.num_parameter_leaves += LeafCount(parameter->shape());
  }

  result_.instructions.resize(static_cast<size_t>(end));
  for (int64_t p = 0; p < end; ++p) {
    const Instruction& op = *result_.schedule[static_cast<size_t>(p)];
    InstructionBuffers& buffers = result_.instructions[static_cast<size_t>(p)];
    for (const Instruction* operand : op.operands())
      buffers.operands.push_back(result_.Of(operand).leaves);
    switch (op.opcode()) {
      case Opcode::kParameter: {
        int64_t number =
            parameter_leaf_base[static_cast<size_t>(op.parameter_number)];
        for (const Shape* leaf : op.shape().Leaves()) {
          if (leaf->IsArray()) {
            BufferId id =
                NewBuffer(BufferKind::kParameter, leaf->byte_size(), p);
            result_.buffers[static_cast<size_t>(id)].number = number;
            result_.buffers[static_cast<size_t>(id)].handed_over =
                in_place_ != nullptr && in_place_->Writes(&computation, number);
            buffers.leaves.push_back(id);
          } else {
            buffers.leaves.push_back(kNoBuffer);
          }
          ++number;
        }
        break;
      }
      case Opcode::kConstant: {
        std::vector<const Literal*> literal_leaves;
        // Depth first, as Shape::Leaves orders them.
        std::function<void(const Literal&)> walk = [&](const Literal& l) {
          if (l.shape().IsTuple()) {
            for (const Literal& e : l.tuple_elements()) walk(e);
          } else {
            literal_leaves.push_back(&l);
          }
        };
        walk(op.literal);
        std::vector<const Shape*> leaves = op.shape().Leaves();
        for (size_t i = 0; i < leaves.size(); ++i) {
          if (!leaves[i]->IsArray() || i >= literal_leaves.size() ||
              literal_leaves[i]->size_bytes() < leaves[i]->byte_size()) {
            if (leaves[i]->IsArray()) {
              return InvalidArgument(op.Describe() +
                                     ": the literal does not match the shape " +
                                     op.shape().ToString(false));
            }
            buffers.leaves.push_back(kNoBuffer);
            continue;
          }
          BufferId id =
              NewBuffer(BufferKind::kConstant, leaves[i]->byte_size(), p);
          result_.buffers[static_cast<size_t>(id)].constant =
              literal_leaves[i]->data();
          buffers.leaves.push_back(id);
        }
        break;
      }
      case Opcode::kTuple:
        for (const auto& list : buffers.operands)
          buffers.leaves.insert(buffers.leaves.end(), list.begin(), list.end());
        break;
      case Opcode::kGetTupleElement: {
        const Shape& tuple = op.operand(0)->shape();
        int64_t first = TupleElementLeafOffset(tuple, op.tuple_index);
        int64_t count = LeafCount(tuple.tuple_shape(op.tuple_index));
        buffers.leaves.assign(buffers.operands[0].begin() + first,
                              buffers.operands[0].begin() + first + count);
        break;
      }
      case Opcode::kOptimizationBarrier:
        buffers.leaves = buffers.operands[0];
        break;
      case Opcode::kCustomCall: {
        Status status = AssignCustomCall(op, p, buffers);
        if (!status.ok()) return status;
        for (const auto& list : buffers.operands)
          seen_by_custom_calls_.insert(list.begin(), list.end());
        seen_by_custom_calls_.insert(buffers.leaves.begin(),
                                     buffers.leaves.end());
        seen_by_custom_calls_.insert(buffers.temps.begin(),
                                     buffers.temps.end());
        break;
      }
      case Opcode::kWhile:
        AssignWhile(op, p, buffers);
        break;
      case Opcode::kSort: {
        // The kernel applies each slice's permutation after finding it, to
        // a gathered copy when a result shares its operand's buffer.
        buffers.leaves.clear();
        for (int64_t k = 0; k < op.operand_count(); ++k)
          buffers.leaves.push_back(ResultInOperandBuffer(op, p, buffers, k));
        break;
      }
      case Opcode::kScatter: {
        // Result k starts as a copy of operand k: when nothing reads that
        // array afterwards the scatter updates it where it lies, as XLA
        // does, and the kernel skips the copy.
        buffers.leaves.clear();
        for (int64_t k = 0; k < op.operand_count() / 2; ++k)
          buffers.leaves.push_back(ResultInOperandBuffer(op, p, buffers, k));
        break;
      }
      case Opcode::kReshape:
        buffers.leaves = {ReshapeResult(op, p, buffers)};
        break;
      case Opcode::kDynamicUpdateSlice:
        buffers.leaves = {
            Overwrite(op, p, buffers, 0, 0, false, op.shape().byte_size())};
        break;
      case Opcode::kCopy: {
        // A copy of an array nothing reads afterwards is that array: the
        // executor's copy is then from a buffer to itself, which it skips.
        std::vector<const Shape*> leaves = op.shape().Leaves();
        buffers.leaves.clear();
        for (size_t leaf = 0; leaf < leaves.size(); ++leaf)
          buffers.leaves.push_back(leaves[leaf]->IsArray()
                                       ? Overwrite(op, p, buffers, 0, leaf,
                                                   false,
                                                   leaves[leaf]->byte_size())
                                       : kNoBuffer);
        break;
      }
      case Opcode::kCall: {
        // A result leaf the callee computes over one of its parameters'
        // arrays takes that argument's buffer (or a copy of it).
        std::vector<const Shape*> leaves = op.shape().Leaves();
        std::vector<int64_t> overwritten(leaves.size(), -1);
        if (in_place_ != nullptr)
          for (const InPlaceUpdate& update :
               in_place_->Of(op.called_computations()[0]))
            overwritten[static_cast<size_t>(update.output_leaf)] =
                update.parameter_leaf;
        buffers.leaves.clear();
        for (size_t r = 0; r < leaves.size(); ++r) {
          if (overwritten[r] < 0) {
            buffers.leaves.push_back(
                leaves[r]->IsArray()
                    ? NewBuffer(BufferKind::kArena, leaves[r]->byte_size(), p)
                    : kNoBuffer);
            continue;
          }
          size_t operand = 0;
          int64_t leaf = overwritten[r];
          while (leaf >= static_cast<int64_t>(buffers.operands[operand].size()))
            leaf -= static_cast<int64_t>(buffers.operands[operand++].size());
          buffers.leaves.push_back(Overwrite(op, p, buffers, operand,
                                             static_cast<size_t>(leaf), true,
                                             leaves[r]->byte_size()));
        }
        break;
      }
      default:
        if ((IsElementwise(op) || op.opcode() == Opcode::kFusion) &&
            op.shape().IsArray())
          buffers.leaves = {ElementwiseResult(op, p, buffers)};
        else
          buffers.leaves = FreshLeaves(op, p);
        break;
    }
    // Whatever this value maps to lives as long as the value is read.
    for (BufferId id : buffers.leaves) {
      if (id == kNoBuffer) continue;
      Buffer& buffer = result_.buffers[static_cast<size_t>(id)];
      buffer.live_until =
          std::max(buffer.live_until, last_use_[static_cast<size_t>(p)]);
    }
  }

  // Root leaves computed here are computed straight into the caller's
  // memory; the others are copied there at the end.
  if (computation.root() != nullptr) {
    const std::vector<BufferId>& root = result_.Of(computation.root()).leaves;
    result_.num_output_leaves = static_cast<int64_t>(root.size());
    for (size_t k = 0; k < root.size(); ++k) {
      BufferId id = root[k];
      if (id == kNoBuffer) continue;
      Buffer& buffer = result_.buffers[static_cast<size_t>(id)];
      if (buffer.kind == BufferKind::kArena) {
        buffer.kind = BufferKind::kOutput;
        buffer.number = static_cast<int64_t>(k);
        continue;
      }
      size_t size = buffer.size;
      BufferId output = NewBuffer(BufferKind::kOutput, size, end);
      result_.buffers[static_cast<size_t>(output)].number =
          static_cast<int64_t>(k);
      result_.output_copies.push_back({id, output, size});
    }
  }
  LayOutArena();
  return std::move(result_);
}

}  // namespace

int64_t TupleElementLeafOffset(const Shape& tuple, int64_t index) {
  int64_t offset = 0;
  for (int64_t i = 0; i < index; ++i) offset += LeafCount(tuple.tuple_shape(i));
  return offset;
}

StatusOr<BufferAssignment> AssignBuffers(const Computation& computation,
                                         const InPlaceAnalysis* in_place,
                                         bool results_in_place) {
  return Assigner(computation, in_place, results_in_place).Run();
}

}  // namespace xffi::compiler
