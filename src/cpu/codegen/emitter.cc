// Elemental emission of loop kernels (see emitter.h).
#include "cpu/codegen/emitter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include "cpu/codegen/complex_emitter.h"
#include "cpu/codegen/ir_types.h"
#include "cpu/codegen/math_emitter.h"

namespace xffi::cpu::codegen {
namespace {

// Rough cost of one element of one op on one core, for splitting loops:
// simple arithmetic vectorises; a libm call does not. A transcendental
// function written here as vector IR (math_emitter.h, FastExp, FastTanh)
// measured 0.2-0.9 ns per f32 element and 0.9-2.5 ns per f64 element on
// one core of the project's Zen 5 (1M elements each): costed as a libm
// call, an RNN step's tanh of 8192 elements (2 us) was split across the
// pool, whose fork and join cost more than the whole loop. sin and cos
// counted as calls while LLVM made their large-argument call one per
// element (10-17 ns); now 0.6-0.8 ns, they are inline (but under
// XFFI_MATH_LEGACY=1).
constexpr double kSimpleOpNanos = 0.3;
constexpr double kInlineMathNanos = 1.0;
constexpr double kMathCallNanos = 8.0;
// Elements per block of a loop with special elements (see EmitKernel): a
// block with one is computed twice.
constexpr int64_t kSpecialBlock = 512;

}  // namespace

// Marks `latch`'s loop parallel: no iteration reads what another writes.
// Each writes its own result element and reads the operands' elements;
// buffer assignment lets a result share an operand's buffer only where
// the loop reads that operand at the result's own index (in place), so
// the vectoriser needs no run-time overlap check, which would send an
// in-place loop down its scalar path.
// A kernel with several element loops (a row split at a concatenate's
// seams) passes each one's latch: one access group serves them all.
void MarkParallel(llvm::Function& function,
                  const std::vector<llvm::BranchInst*>& latches) {
  llvm::LLVMContext& context = function.getContext();
  llvm::MDNode* group = llvm::MDNode::getDistinct(context, {});
  for (llvm::BasicBlock& block : function)
    for (llvm::Instruction& instruction : block)
      if (llvm::isa<llvm::LoadInst, llvm::StoreInst>(instruction))
        instruction.setMetadata(llvm::LLVMContext::MD_access_group, group);
  llvm::Metadata* parallel[] = {
      llvm::MDString::get(context, "llvm.loop.parallel_accesses"), group};
  for (llvm::BranchInst* latch : latches) {
    llvm::TempMDTuple self = llvm::MDNode::getTemporary(context, {});
    llvm::Metadata* loop[] = {self.get(), llvm::MDNode::get(context, parallel)};
    llvm::MDNode* id = llvm::MDNode::getDistinct(context, loop);
    id->replaceOperandWith(0, id);
    latch->setMetadata(llvm::LLVMContext::MD_loop, id);
  }
}

llvm::Function* NewKernelFunction(llvm::Module& module, const std::string& name,
                                  int prefer_vector_width) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                       {ptr, i64, i64}, false);
  llvm::Function* function = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, name, module);
  function->setDoesNotThrow();
  // Kernels run with FTZ+DAZ set (runtime/float_control.h): LLVM must not
  // fold float operations as if subnormals were kept (it would, e.g., test
  // a widened bf16 for zero by its bits, where the hardware says zero).
  function->addFnAttr("denormal-fp-math", "preserve-sign,preserve-sign");
  if (prefer_vector_width > 0)
    function->addFnAttr("prefer-vector-width",
                        std::to_string(prefer_vector_width));
  return function;
}

void KeepScalar(llvm::BranchInst* latch) {
  llvm::LLVMContext& context = latch->getContext();
  llvm::TempMDTuple self = llvm::MDNode::getTemporary(context, {});
  llvm::Metadata* unroll[] = {
      llvm::MDString::get(context, "llvm.loop.unroll.disable")};
  llvm::Metadata* vectorize[] = {
      llvm::MDString::get(context, "llvm.loop.vectorize.enable"),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::getFalse(context))};
  llvm::Metadata* loop[] = {self.get(), llvm::MDNode::get(context, unroll),
                            llvm::MDNode::get(context, vectorize)};
  llvm::MDNode* id = llvm::MDNode::getDistinct(context, loop);
  id->replaceOperandWith(0, id);
  latch->setMetadata(llvm::LLVMContext::MD_loop, id);
}

namespace {

bool IsMathCall(Opcode opcode) {
  switch (opcode) {
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kTanh:
    case Opcode::kSin:
    case Opcode::kCos:
    case Opcode::kTan:
    case Opcode::kCbrt:
    case Opcode::kErf:
    case Opcode::kErfc:
    case Opcode::kErfInv:
    case Opcode::kLgamma:
    case Opcode::kDigamma:
    case Opcode::kAsin:
    case Opcode::kAcos:
    case Opcode::kAtan:
    case Opcode::kAsinh:
    case Opcode::kAcosh:
    case Opcode::kAtanh:
    case Opcode::kSinh:
    case Opcode::kCosh:
    case Opcode::kAtan2:
    case Opcode::kPower:
    case Opcode::kRemainder:
      return true;
    default:
      return false;
  }
}

// The index of one element of a value, in its own dimensions: the linear
// (row-major) index, the coordinates, or both; the other is derived when
// asked for. A value of one element has the constant index 0.
struct Index {
  const std::vector<int64_t>* dims = nullptr;
  llvm::Value* linear = nullptr;
  std::vector<llvm::Value*> coords;  // empty until known
  bool invariant = false;            // the same element for the whole loop
};

class Emitter {
 public:
  Emitter(llvm::Module& module, llvm::BasicBlock* preheader)
      : module_(module), context_(module.getContext()), entry_(context_) {
    entry_.SetInsertPoint(preheader);
  }

  void SetBody(llvm::IRBuilder<>* body, const Index* root_index) {
    b_ = body;
    root_index_ = root_index;
  }
  // A new element loop after the first (SplitRowsKernel): the values
  // computed in the loops before it do not dominate it.
  void StartLoop(llvm::IRBuilder<>* body, const Index* root_index) {
    at_root_.clear();
    SetBody(body, root_index);
  }
  void AddLeaf(const Instruction* op, llvm::Value* pointer) {
    leaves_[op] = pointer;
  }
  const std::string& error() const { return error_; }
  double item_nanos() const { return nanos_; }
  // Elements that need a C library call (c64 division and exp) get the
  // ordinary formula's value in the loop, and special() says which they
  // are (null: no such op), for a pass that recomputes them.
  void DeferSpecialElements(bool defer = true) { defer_special_ = defer; }
  llvm::Value* special() const { return special_; }

  // The compute value of `op` at `index` (null after an error).
  llvm::Value* Value(const Instruction& op, Index& index);
  // The bits to store for `value` of `type`: those it was loaded from, when
  // it was (a signalling NaN stays as it is, as a copy keeps it), else its
  // rounding.
  llvm::Value* Bits(ElementType type, llvm::Value* value) {
    if (IsComplexType(type)) return value;  // stored part by part
    auto found = stored_bits_.find(value);
    if (found != stored_bits_.end() && type != ElementType::kPred &&
        found->second->getType() == StorageType(context_, type))
      return found->second;
    return ToStorage(*b_, type, value);
  }
  llvm::Value* ValueAt(const Instruction& op, Index& index);

  llvm::Value* Linear(Index& index);
  const std::vector<llvm::Value*>& Coords(Index& index);

 private:
  llvm::Value* Decline(const Instruction& op, std::string_view why) {
    if (error_.empty()) error_ = op.Describe() + ": " + std::string(why);
    return nullptr;
  }
  Index ScalarIndex(const Instruction& op) {
    Index index;
    index.dims = &op.shape().dims();
    index.linear = entry_.getInt64(0);
    index.invariant = true;
    return index;
  }
  // An operand of an elementwise op: at the op's index, or the scalar
  // itself when it is a one-element operand of a larger op (select, clamp).
  llvm::Value* Operand(const Instruction& op, int64_t i, Index& index);
  llvm::Value* Load(const Instruction& op, llvm::Value* base, Index& index);
  llvm::Value* Constant(const Instruction& op, Index& index);
  llvm::Value* Unary(const Instruction& op, llvm::Value* x);
  llvm::Value* Binary(const Instruction& op, llvm::Value* a, llvm::Value* c);
  llvm::Value* Compare(const Instruction& op, llvm::Value* a, llvm::Value* c);
  llvm::Value* Convert(ElementType from, ElementType to, llvm::Value* x);
  llvm::Value* MathCall(const char* name, std::vector<llvm::Value*> args);
  llvm::Value* Intrinsic(llvm::Intrinsic::ID id,
                         std::vector<llvm::Value*> args);
  // `half_nan`: an f16 NaN result is the positive quiet NaN, as XLA's
  // f16 maximum and minimum give it (not its clamp).
  llvm::Value* Maximum(ElementType type, llvm::Value* a, llvm::Value* c,
                       bool max, bool half_nan = true);
  llvm::Value* FastTanh(llvm::Value* x);
  // `fused`: the polynomial in fused multiply-adds (see FastExp).
  llvm::Value* FastExp(llvm::Value* x, bool fused = true);
  llvm::Value* IndexMap(const Instruction& op, Index& index);
  llvm::Value* ChoosingIndexMap(const Instruction& op, Index& index);
  llvm::Value* PointGather(const Instruction& op, Index& index);
  void PrefetchNextBatch(const Instruction& op,
                         const std::vector<llvm::Value*>& coords,
                         bool invariant);
  // `operand`'s value at `coords` (its only element when it has one).
  llvm::Value* At(const Instruction& operand, std::vector<llvm::Value*> coords,
                  bool invariant);

  llvm::Module& module_;
  llvm::LLVMContext& context_;
  llvm::IRBuilder<> entry_;  // before the loop: invariant loads
  llvm::IRBuilder<>* b_ = nullptr;
  std::unordered_map<const Instruction*, llvm::Value*> leaves_;
  // Values at the loop's own index, and invariant ones.
  std::unordered_map<const Instruction*, llvm::Value*> at_root_, invariant_;
  std::unordered_map<const llvm::Value*, llvm::Value*> stored_bits_;
  const Index* root_index_ = nullptr;
  std::string error_;
  double nanos_ = 0;
  // Calls of a C library function emitted so far (MathCall).
  int64_t library_calls_ = 0;
  bool defer_special_ = false;
  llvm::Value* special_ = nullptr;
};

llvm::Value* Emitter::Linear(Index& index) {
  if (index.linear != nullptr) return index.linear;
  const std::vector<int64_t>& dims = *index.dims;
  llvm::IRBuilder<>& b = index.invariant ? entry_ : *b_;
  llvm::Value* linear = b.getInt64(0);
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    if (dims[d] != 1)
      linear =
          b.CreateAdd(linear, b.CreateMul(index.coords[d], b.getInt64(stride)));
    stride *= dims[d];
  }
  index.linear = linear;
  return linear;
}

const std::vector<llvm::Value*>& Emitter::Coords(Index& index) {
  if (!index.coords.empty() || index.dims->empty()) return index.coords;
  const std::vector<int64_t>& dims = *index.dims;
  llvm::IRBuilder<>& b = index.invariant ? entry_ : *b_;
  index.coords.assign(dims.size(), nullptr);
  llvm::Value* rest = index.linear;
  for (size_t d = dims.size(); d-- > 0;) {
    if (d == 0) {
      index.coords[d] = rest;
    } else {
      index.coords[d] = b.CreateURem(rest, b.getInt64(dims[d]));
      rest = b.CreateUDiv(rest, b.getInt64(dims[d]));
    }
  }
  return index.coords;
}

llvm::Value* Emitter::Load(const Instruction& op, llvm::Value* base,
                           Index& index) {
  const ElementType type = op.shape().element_type();
  llvm::Type* storage = StorageType(context_, type);
  Index scalar;
  Index& at =
      op.shape().num_elements() == 1 ? (scalar = ScalarIndex(op)) : index;
  llvm::IRBuilder<>& b = at.invariant ? entry_ : *b_;
  if (IsComplexType(type)) {
    // Part by part: an interleaved pair of loads vectorises, a struct load
    // does not.
    llvm::Type* part = ComputeType(context_, ComplexPartType(type));
    llvm::Value* first = b.CreateShl(Linear(at), 1);
    llvm::Value* re =
        b.CreateLoad(part, b.CreateInBoundsGEP(part, base, first));
    llvm::Value* im = b.CreateLoad(
        part, b.CreateInBoundsGEP(part, base, b.CreateOr(first, 1)));
    return MakeComplex(b, storage, re, im);
  }
  llvm::Value* address = b.CreateInBoundsGEP(storage, base, Linear(at));
  llvm::Value* bits = b.CreateLoad(storage, address);
  llvm::Value* value = FromStorage(b, type, bits);
  stored_bits_[value] = bits;
  return value;
}

llvm::Value* Emitter::Constant(const Instruction& op, Index& index) {
  const ElementType type = op.shape().element_type();
  llvm::Type* storage = StorageType(context_, type);
  const auto* bytes = static_cast<const char*>(op.literal.data());
  const size_t size = op.literal.size_bytes();
  if (IsComplexType(type)) {
    // The parts as an array of floats or doubles, twice as long.
    const ElementType part_type = ComplexPartType(type);
    llvm::Type* part = ComputeType(context_, part_type);
    if (op.shape().num_elements() == 1) {
      auto part_at = [&](size_t offset) -> llvm::Value* {
        if (part_type == ElementType::kF32) {
          float v;
          std::memcpy(&v, bytes + offset, sizeof v);
          return llvm::ConstantFP::get(part, v);
        }
        double v;
        std::memcpy(&v, bytes + offset, sizeof v);
        return llvm::ConstantFP::get(part, v);
      };
      const size_t half = ElementByteSize(part_type);
      return MakeComplex(entry_, storage, part_at(0), part_at(half));
    }
    auto* data = llvm::ConstantDataArray::getRaw(
        llvm::StringRef(bytes, size), 2 * op.shape().num_elements(), part);
    auto* global = new llvm::GlobalVariable(
        module_, data->getType(), /*isConstant=*/true,
        llvm::GlobalValue::PrivateLinkage, data, "constant");
    global->setAlignment(llvm::Align(64));
    return Load(op, global, index);
  }
  if (op.shape().num_elements() == 1) {
    llvm::Constant* bits = nullptr;
    const int width = static_cast<int>(ElementByteSize(type));
    uint64_t raw = 0;
    for (int i = width; i-- > 0;)
      raw = (raw << 8) | static_cast<unsigned char>(bytes[i]);
    if (storage->isIntegerTy()) {
      bits = llvm::ConstantInt::get(storage, raw);
    } else {
      llvm::Type* int_type =
          llvm::Type::getIntNTy(context_, static_cast<unsigned>(width * 8));
      bits = llvm::ConstantExpr::getBitCast(
          llvm::ConstantInt::get(int_type, raw), storage);
    }
    return FromStorage(entry_, type, bits);
  }
  auto* data = llvm::ConstantDataArray::getRaw(
      llvm::StringRef(bytes, size), op.shape().num_elements(), storage);
  auto* global = new llvm::GlobalVariable(
      module_, data->getType(), /*isConstant=*/true,
      llvm::GlobalValue::PrivateLinkage, data, "constant");
  global->setAlignment(llvm::Align(64));
  return Load(op, global, index);
}

llvm::Value* Emitter::Operand(const Instruction& op, int64_t i, Index& index) {
  const Instruction& operand = *op.operand(i);
  if (operand.shape().num_elements() == 1 && op.shape().num_elements() != 1) {
    Index scalar = ScalarIndex(operand);
    return Value(operand, scalar);
  }
  return Value(operand, index);
}

llvm::Value* Emitter::Value(const Instruction& op, Index& index) {
  if (!error_.empty()) return nullptr;
  // Values at another index (under an index map) are computed again.
  auto* memo = index.invariant         ? &invariant_
               : &index == root_index_ ? &at_root_
                                       : nullptr;
  if (memo != nullptr) {
    auto found = memo->find(&op);
    if (found != memo->end()) return found->second;
  }
  // Invariant values go before the loop.
  llvm::IRBuilder<>* saved = b_;
  if (index.invariant) b_ = &entry_;
  llvm::Value* result = ValueAt(op, index);
  b_ = saved;
  if (result != nullptr && memo != nullptr) (*memo)[&op] = result;
  return result;
}

llvm::Value* Emitter::ValueAt(const Instruction& op, Index& index) {
  llvm::Value* result = nullptr;
  auto leaf = leaves_.find(&op);
  const ElementType type = op.shape().element_type();
  if (!op.shape().IsArray() || !IsCodegenType(type)) {
    return Decline(op, "its type is not one code generation covers");
  } else if (leaf != leaves_.end()) {
    result = Load(op, leaf->second, index);
  } else if (op.opcode() == Opcode::kConstant) {
    result = Constant(op, index);
  } else if (op.opcode() == Opcode::kIota) {
    llvm::Value* position =
        Coords(index).empty()
            ? b_->getInt64(0)
            : Coords(index)[static_cast<size_t>(op.dimensions[0])];
    nanos_ += kSimpleOpNanos;
    result = Convert(ElementType::kS64, type, position);
  } else if (op.opcode() == Opcode::kBroadcast ||
             op.opcode() == Opcode::kReshape ||
             op.opcode() == Opcode::kTranspose ||
             op.opcode() == Opcode::kSlice || op.opcode() == Opcode::kReverse ||
             op.opcode() == Opcode::kCopy) {
    result = IndexMap(op, index);
  } else if (op.opcode() == Opcode::kConcatenate ||
             op.opcode() == Opcode::kPad ||
             op.opcode() == Opcode::kDynamicSlice) {
    result = ChoosingIndexMap(op, index);
  } else if (op.opcode() == Opcode::kGather) {
    result = PointGather(op, index);
  } else {
    // Elementwise: every operand's type must be covered too.
    std::vector<llvm::Value*> operands;
    for (int64_t i = 0; i < op.operand_count(); ++i) {
      llvm::Value* value = Operand(op, i, index);
      if (value == nullptr) return nullptr;
      operands.push_back(value);
    }
    llvm::IRBuilder<>& b = *b_;
    const bool transcendental = IsMathCall(op.opcode());
    const int64_t calls_before = library_calls_;
    const bool complex =
        IsComplexType(type) ||
        std::any_of(op.operands().begin(), op.operands().end(),
                    [](const Instruction* operand) {
                      return IsComplexType(operand->shape().element_type());
                    });
    if (complex && op.opcode() != Opcode::kConvert) {
      std::string why;
      result = EmitComplexOp(
          b, module_, op, operands, /*may_branch=*/b_ != &entry_,
          [this](llvm::Value* x) { return FastExp(x); }, &why,
          defer_special_ && b_ != &entry_ ? &special_ : nullptr);
      nanos_ += transcendental ? kMathCallNanos : kSimpleOpNanos;
      return result != nullptr ? result : Decline(op, why);
    }
    switch (op.opcode()) {
      case Opcode::kSelect:
        result = b.CreateSelect(operands[0], operands[1], operands[2]);
        break;
      case Opcode::kClamp:
        result = Maximum(type, operands[1], operands[0], true, false);
        result = Maximum(type, result, operands[2], false, false);
        break;
      case Opcode::kConvert:
        result =
            Convert(op.operand(0)->shape().element_type(), type, operands[0]);
        break;
      case Opcode::kBitcastConvert: {
        const ElementType from = op.operand(0)->shape().element_type();
        if (from == ElementType::kPred || type == ElementType::kPred) {
          result = Decline(op, "bitcast-convert of pred");
          break;
        }
        result = FromStorage(b, type,
                             b.CreateBitCast(Bits(from, operands[0]),
                                             StorageType(context_, type)));
        break;
      }
      case Opcode::kCompare:
        result = Compare(op, operands[0], operands[1]);
        break;
      default:
        if (IsElementwiseUnary(op.opcode()) && operands.size() == 1)
          result = Unary(op, operands[0]);
        else if (IsElementwiseBinary(op.opcode()) && operands.size() == 2)
          result = Binary(op, operands[0], operands[1]);
        else
          result = Decline(op, "code generation does not cover this op");
        break;
    }
    if (result != nullptr) result = RoundTo(b, type, result);
    const bool library_cost = library_calls_ > calls_before ||
                              (LegacyMath() && (op.opcode() == Opcode::kSin ||
                                                op.opcode() == Opcode::kCos));
    nanos_ += !transcendental ? kSimpleOpNanos
              : library_cost  ? kMathCallNanos
                              : kInlineMathNanos;
  }
  return result;
}

// The coordinates of `index` in `to` when the two shapes differ only by
// dimensions of size 1 (a reshape or broadcast that adds or drops unit
// dimensions, as a scan's dynamic-slice of one step does), taken from the
// coordinates `index` already has; empty otherwise. Rebuilt from the
// linear index by division instead, they reach LLVM as masks it cannot
// see as affine in the loop counter, and the row loop stays scalar.
std::vector<llvm::Value*> CoordsAcrossUnitDims(const Index& index,
                                               const std::vector<int64_t>& to,
                                               llvm::IRBuilder<>& entry) {
  std::vector<llvm::Value*> coords;
  if (index.coords.empty()) return coords;
  const std::vector<int64_t>& from = *index.dims;
  size_t f = 0;
  for (int64_t dim : to) {
    while (f < from.size() && from[f] == 1) ++f;
    if (dim == 1) {
      coords.push_back(entry.getInt64(0));
      continue;
    }
    if (f == from.size() || from[f] != dim) return {};
    coords.push_back(index.coords[f++]);
  }
  while (f < from.size() && from[f] == 1) ++f;
  if (f != from.size()) return {};
  return coords;
}

llvm::Value* Emitter::IndexMap(const Instruction& op, Index& index) {
  const Instruction& operand = *op.operand(0);
  const std::vector<int64_t>& in_dims = operand.shape().dims();
  if (operand.shape().num_elements() == 1) {
    Index scalar = ScalarIndex(operand);
    return Value(operand, scalar);
  }
  Index mapped;
  mapped.dims = &in_dims;
  mapped.invariant = index.invariant;
  const bool same_order =
      op.opcode() == Opcode::kReshape || op.opcode() == Opcode::kCopy ||
      (op.opcode() == Opcode::kBroadcast &&
       op.shape().num_elements() == operand.shape().num_elements() &&
       std::is_sorted(op.dimensions.begin(), op.dimensions.end()));
  if (same_order) {
    // The element keeps its row-major linear index.
    mapped.linear = Linear(index);
    if (op.opcode() == Opcode::kCopy)
      mapped.coords = index.coords;
    else
      mapped.coords = CoordsAcrossUnitDims(index, in_dims, entry_);
    return Value(operand, mapped);
  }
  const std::vector<llvm::Value*>& coords = Coords(index);
  llvm::IRBuilder<>& b = index.invariant ? entry_ : *b_;
  mapped.coords.assign(in_dims.size(), nullptr);
  switch (op.opcode()) {
    case Opcode::kBroadcast:
      for (size_t j = 0; j < in_dims.size(); ++j)
        mapped.coords[j] = in_dims[j] == 1
                               ? b.getInt64(0)
                               : coords[static_cast<size_t>(op.dimensions[j])];
      break;
    case Opcode::kTranspose:
      for (size_t i = 0; i < coords.size(); ++i)
        mapped.coords[static_cast<size_t>(op.dimensions[i])] = coords[i];
      break;
    case Opcode::kSlice:
      for (size_t j = 0; j < in_dims.size(); ++j) {
        llvm::Value* c = coords[j];
        if (op.slice_strides[j] != 1)
          c = b.CreateMul(c, b.getInt64(op.slice_strides[j]));
        if (op.slice_starts[j] != 0)
          c = b.CreateAdd(c, b.getInt64(op.slice_starts[j]));
        mapped.coords[j] = c;
      }
      break;
    default:  // reverse
      mapped.coords = coords;
      for (int64_t d : op.dimensions) {
        auto j = static_cast<size_t>(d);
        mapped.coords[j] = b.CreateSub(b.getInt64(in_dims[j] - 1), coords[j]);
      }
      break;
  }
  return Value(operand, mapped);
}

llvm::Value* Emitter::Intrinsic(llvm::Intrinsic::ID id,
                                std::vector<llvm::Value*> args) {
  llvm::Function* callee =
      llvm::Intrinsic::getDeclaration(&module_, id, {args[0]->getType()});
  return b_->CreateCall(callee, args);
}

llvm::Value* Emitter::MathCall(const char* name,
                               std::vector<llvm::Value*> args) {
  llvm::Type* type = args[0]->getType();
  std::string symbol = name;
  if (type->isFloatTy()) symbol += "f";
  ++library_calls_;
  return CallPure(*b_, module_, symbol, type, std::move(args));
}

// tanh of a float as XLA:CPU computes it (Eigen's rational approximation,
// a few units in the last place): vectorisable where libm's is a call.
// Inputs beyond +-c give +-1 in float; tiny ones are their own tanh (which
// keeps -0); NaN passes through the selects. Separate multiplies and adds,
// as the template kernel's Eigen evaluates them: the two give the same
// bits (fused multiply-adds moved them up to 7 ulp apart near +-c).
llvm::Value* Emitter::FastTanh(llvm::Value* x) {
  llvm::IRBuilder<>& b = *b_;
  llvm::Type* t = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
  const double kClamp = 7.90531110763549805;
  llvm::Value* clamped =
      b.CreateSelect(b.CreateFCmpOGT(x, c(kClamp)), c(kClamp), x);
  clamped =
      b.CreateSelect(b.CreateFCmpOLT(clamped, c(-kClamp)), c(-kClamp), clamped);
  llvm::Value* x2 = b.CreateFMul(clamped, clamped);
  const double kNumerator[] = {-2.76076847742355e-16, 2.00018790482477e-13,
                               -8.60467152213735e-11, 5.12229709037114e-08,
                               1.48572235717979e-05,  6.37261928875436e-04,
                               4.89352455891786e-03};
  const double kDenominator[] = {1.19825839466702e-06, 1.18534705686654e-04,
                                 2.26843463243900e-03, 4.89352518554385e-03};
  llvm::Value* p = c(kNumerator[0]);
  for (size_t i = 1; i < std::size(kNumerator); ++i)
    p = b.CreateFAdd(b.CreateFMul(p, x2), c(kNumerator[i]));
  p = b.CreateFMul(p, clamped);
  llvm::Value* q = c(kDenominator[0]);
  for (size_t i = 1; i < std::size(kDenominator); ++i)
    q = b.CreateFAdd(b.CreateFMul(q, x2), c(kDenominator[i]));
  llvm::Value* tiny =
      b.CreateFCmpOLT(Intrinsic(llvm::Intrinsic::fabs, {x}), c(0.0004));
  return b.CreateSelect(tiny, x, b.CreateFDiv(p, q));
}

// exp of a float in plain IR, so loops of it vectorise (libm's expf is a
// call per element), within a few units in the last place: x = n ln2 + r
// with |r| <= ln2 / 2 (ln2 split so n * hi is exact), a degree-6
// polynomial for e^r (Cephes' expf coefficients), and 2^n applied in two
// halves so results that overflow, or are subnormal, round once. Every
// element runs the same code, wherever it falls in the loop.
llvm::Value* Emitter::FastExp(llvm::Value* x, bool fused) {
  llvm::IRBuilder<>& b = *b_;
  llvm::Type* t = x->getType();
  llvm::Type* i32 = b.getInt32Ty();
  auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
  // Beyond these e^x is inf or 0 all the same; NaN computes as 0 and is
  // put back at the end.
  llvm::Value* nan = b.CreateFCmpUNO(x, x);
  llvm::Value* clamped = b.CreateSelect(nan, c(0), x);
  clamped = b.CreateSelect(b.CreateFCmpOGT(clamped, c(90)), c(90), clamped);
  clamped = b.CreateSelect(b.CreateFCmpOLT(clamped, c(-110)), c(-110), clamped);
  llvm::Value* n = Intrinsic(llvm::Intrinsic::roundeven,
                             {b.CreateFMul(clamped, c(1.44269504088896341))});
  llvm::Value* r = b.CreateFSub(clamped, b.CreateFMul(n, c(0.693359375)));
  r = b.CreateFSub(r, b.CreateFMul(n, c(-2.12194440e-4)));
  const double kPoly[] = {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3,
                          4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1};
  auto mul_add = [&](llvm::Value* a, llvm::Value* x, llvm::Value* c) {
    return fused ? MulAdd(b, module_, a, x, c)
                 : b.CreateFAdd(b.CreateFMul(a, x), c);
  };
  llvm::Value* p = c(kPoly[0]);
  for (size_t i = 1; i < std::size(kPoly); ++i) p = mul_add(p, r, c(kPoly[i]));
  llvm::Value* y = b.CreateFAdd(mul_add(p, b.CreateFMul(r, r), r), c(1));
  // 2^n for n in [-159, 130], rounding once.
  llvm::Value* result = TimesPowerOfTwo(b, y, b.CreateFPToSI(n, i32));
  return b.CreateSelect(nan, x, result);
}

llvm::Value* Emitter::Maximum(ElementType type, llvm::Value* a, llvm::Value* c,
                              bool max, bool half_nan) {
  llvm::IRBuilder<>& b = *b_;
  if (IsFloatType(type)) {
    // XLA's rule, as cpu/float_max_min.h's XlaFloatMax/XlaFloatMin: a NaN
    // first operand wins; otherwise the second is picked with its sign bit
    // ANDed (max) / ORed (min) with the first's, which orders -0 below +0
    // and gives a NaN second operand XLA's sign.
    llvm::Value* ordered = max ? b.CreateFCmpOGT(a, c) : b.CreateFCmpOLT(a, c);
    llvm::Value* a_nan = b.CreateFCmpUNO(a, a);
    llvm::Type* bits = llvm::Type::getIntNTy(
        context_, a->getType()->getPrimitiveSizeInBits().getFixedValue());
    llvm::Value* a_bits = b.CreateBitCast(a, bits);
    llvm::Value* c_bits = b.CreateBitCast(c, bits);
    const unsigned width = bits->getIntegerBitWidth();
    llvm::Value* sign_mask =
        llvm::ConstantInt::get(bits, llvm::APInt::getSignMask(width));
    llvm::Value* picked =
        max ? b.CreateAnd(c_bits, b.CreateOr(a_bits, b.CreateNot(sign_mask)))
            : b.CreateOr(c_bits, b.CreateAnd(a_bits, sign_mask));
    llvm::Value* result = b.CreateSelect(b.CreateOr(ordered, a_nan), a,
                                         b.CreateBitCast(picked, a->getType()));
    if (type != ElementType::kF16 || !half_nan) return result;
    // XLA's f16 max/min give every NaN as the positive quiet NaN
    // (elementwise_ops.h's XlaHalfMaxMinResult).
    llvm::Value* nan = llvm::ConstantFP::get(
        a->getType(), llvm::APFloat::getQNaN(llvm::APFloat::IEEEsingle()));
    return b.CreateSelect(b.CreateFCmpUNO(result, result), nan, result);
  }
  const bool is_signed = IsSignedType(type);
  llvm::Value* pick =
      max ? (is_signed ? b.CreateICmpSGT(a, c) : b.CreateICmpUGT(a, c))
          : (is_signed ? b.CreateICmpSLT(a, c) : b.CreateICmpULT(a, c));
  return b.CreateSelect(pick, a, c);
}

llvm::Value* Emitter::Convert(ElementType from, ElementType to,
                              llvm::Value* x) {
  llvm::IRBuilder<>& b = *b_;
  if (from == to) return x;
  if (IsComplexType(from) || IsComplexType(to)) {
    return EmitComplexConvert(
        b, from, to, x, [this](ElementType f, ElementType t, llvm::Value* v) {
          return Convert(f, t, v);
        });
  }
  llvm::Type* target = ComputeType(context_, to);
  if (to == ElementType::kPred) {
    // Through an addition: under DAZ a subnormal is zero, and only
    // arithmetic reads it so (a widened f16/bf16 compares by its bits).
    if (IsFloatType(from)) {
      llvm::Value* zero = llvm::ConstantFP::get(x->getType(), 0.0);
      return b.CreateFCmpUNE(b.CreateFAdd(x, zero), zero);
    }
    return b.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
  }
  if (from == ElementType::kPred) {
    if (IsFloatType(to)) return b.CreateUIToFP(x, target);
    return b.CreateZExt(x, target);
  }
  const bool from_float = IsFloatType(from);
  if (IsFloatType(to)) {
    if (from_float) {
      if (to == ElementType::kF16 && from == ElementType::kF64) {
        // One rounding, from the double (ElementTraits<f16>::StoreDouble);
        // a NaN is the quiet NaN of its sign, as XLA converts from f64.
        llvm::Value* rounded =
            b.CreateFPExt(b.CreateFPTrunc(x, b.getHalfTy()), target);
        llvm::Type* i32 = b.getInt32Ty();
        llvm::Value* sign =
            b.CreateAnd(b.CreateBitCast(b.CreateFPTrunc(x, target), i32),
                        llvm::ConstantInt::get(i32, 0x80000000u));
        llvm::Value* nan = b.CreateBitCast(
            b.CreateOr(sign, llvm::ConstantInt::get(i32, 0x7fc00000u)), target);
        return b.CreateSelect(b.CreateFCmpUNO(x, x), nan, rounded);
      }
      if (x->getType() == target) return x;  // RoundTo follows
      return x->getType()->isDoubleTy() ? b.CreateFPTrunc(x, target)
                                        : b.CreateFPExt(x, target);
    }
    const bool is_signed = IsSignedType(from);
    if (to == ElementType::kF16 && ComputeBits(from) > 24) {
      llvm::Value* wide = is_signed ? b.CreateSIToFP(x, b.getDoubleTy())
                                    : b.CreateUIToFP(x, b.getDoubleTy());
      return b.CreateFPExt(b.CreateFPTrunc(wide, b.getHalfTy()), target);
    }
    return is_signed ? b.CreateSIToFP(x, target) : b.CreateUIToFP(x, target);
  }
  if (from_float) {
    // Saturating, NaN to 0: LLVM's fpto[su]i.sat (element_convert.h's
    // SaturatingCast).
    llvm::Function* sat = llvm::Intrinsic::getDeclaration(
        &module_,
        IsSignedType(to) ? llvm::Intrinsic::fptosi_sat
                         : llvm::Intrinsic::fptoui_sat,
        {target, x->getType()});
    return b.CreateCall(sat, {x});
  }
  return IsSignedType(from) ? b.CreateSExtOrTrunc(x, target)
                            : b.CreateZExtOrTrunc(x, target);
}

llvm::Value* Emitter::Unary(const Instruction& op, llvm::Value* x) {
  llvm::IRBuilder<>& b = *b_;
  const ElementType type = op.operand(0)->shape().element_type();
  const bool is_float = IsFloatType(type);
  const bool is_int = IsIntegerType(type);
  llvm::Type* t = x->getType();
  auto fp = [&](double v) { return llvm::ConstantFP::get(t, v); };
  auto decline = [&] { return Decline(op, "not for this element type"); };
  switch (op.opcode()) {
    case Opcode::kAbs:
      if (is_float) return Intrinsic(llvm::Intrinsic::fabs, {x});
      if (!is_int) return decline();
      if (!IsSignedType(type)) return x;
      return b.CreateSelect(b.CreateICmpSLT(x, llvm::ConstantInt::get(t, 0)),
                            b.CreateNeg(x), x);
    case Opcode::kNegate:
      if (is_float) return b.CreateFNeg(x);
      if (!is_int) return decline();
      return b.CreateNeg(x);
    case Opcode::kSign:
      if (is_float) {
        // NaN and both zeros are their own sign.
        llvm::Value* keep =
            b.CreateOr(b.CreateFCmpUNO(x, x), b.CreateFCmpOEQ(x, fp(0)));
        return b.CreateSelect(keep, x,
                              Intrinsic(llvm::Intrinsic::copysign, {fp(1), x}));
      }
      if (!is_int) return decline();
      if (IsSignedType(type)) {
        llvm::Value* zero = llvm::ConstantInt::get(t, 0);
        return b.CreateSub(b.CreateZExt(b.CreateICmpSGT(x, zero), t),
                           b.CreateZExt(b.CreateICmpSLT(x, zero), t));
      }
      return b.CreateZExt(b.CreateICmpNE(x, llvm::ConstantInt::get(t, 0)), t);
    case Opcode::kNot:
      if (is_float) return decline();
      return b.CreateNot(x);
    case Opcode::kPopulationCount:
      if (!is_int) return decline();
      return Intrinsic(llvm::Intrinsic::ctpop, {x});
    case Opcode::kClz:
      if (!is_int) return decline();
      return b.CreateCall(
          llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::ctlz, {t}),
          {x, b.getFalse()});
    default:
      break;
  }
  if (!is_float) return decline();
  switch (op.opcode()) {
    case Opcode::kFloor:
      return Intrinsic(llvm::Intrinsic::floor, {x});
    case Opcode::kCeil:
      return Intrinsic(llvm::Intrinsic::ceil, {x});
    case Opcode::kRoundNearestAfz:
      return Intrinsic(llvm::Intrinsic::round, {x});
    case Opcode::kRoundNearestEven:
      return Intrinsic(llvm::Intrinsic::roundeven, {x});
    case Opcode::kSqrt:
      return Intrinsic(llvm::Intrinsic::sqrt, {x});
    case Opcode::kRsqrt:
      return b.CreateFDiv(fp(1), Intrinsic(llvm::Intrinsic::sqrt, {x}));
    case Opcode::kExp:
      // Fused multiply-adds made f32 exp 18% faster and f16's 7%, but
      // a bf16 chain 8% slower: LLVM's cost model then picked 16 lanes
      // instead of 32 for the loop (stop 26, math_functions.py).
      return t->isFloatTy() ? FastExp(x, type != ElementType::kBF16)
                            : EmitExpF64(b, module_, x);
    case Opcode::kLog:
      // libm's log classifies its argument by its bits, which DAZ leaves
      // alone: the emitted logs flush a subnormal first, as the template
      // kernel does (log(-1e-40) is -inf under XLA:CPU, not NaN).
      return t->isFloatTy() ? EmitLogF32(b, module_, x)
                            : EmitLogF64(b, module_, x);
    case Opcode::kSin:
    case Opcode::kCos:
      return EmitSinCos(b, module_, x, op.opcode() == Opcode::kCos,
                        /*may_branch=*/b_ != &entry_, /*in_range=*/false,
                        defer_special_ && b_ != &entry_ ? &special_ : nullptr);
    case Opcode::kLogistic: {
      llvm::Value* minus = b.CreateFNeg(x);
      return b.CreateFDiv(
          fp(1),
          b.CreateFAdd(fp(1), t->isFloatTy()
                                  ? FastExp(minus)
                                  : Intrinsic(llvm::Intrinsic::exp, {minus})));
    }
    case Opcode::kIsFinite: {
      llvm::Value* magnitude = Intrinsic(llvm::Intrinsic::fabs, {x});
      return b.CreateFCmpONE(magnitude, fp(INFINITY));
    }
    case Opcode::kIsInf:
      return b.CreateFCmpOEQ(Intrinsic(llvm::Intrinsic::fabs, {x}),
                             fp(INFINITY));
    case Opcode::kIsPosInf:
      return b.CreateFCmpOEQ(x, fp(INFINITY));
    case Opcode::kIsNegInf:
      return b.CreateFCmpOEQ(x, fp(-INFINITY));
    case Opcode::kReal:
    case Opcode::kConj:
      return x;
    case Opcode::kImag:
      return fp(0);
    case Opcode::kExpm1:
      return t->isFloatTy() ? MathCall("expm1", {x})
                            : EmitExpm1F64(b, module_, x);
    case Opcode::kLog1p:
      return t->isFloatTy() ? EmitLog1pF32(b, module_, x)
                            : EmitLog1pF64(b, module_, x);
    case Opcode::kTanh:
      return t->isFloatTy() ? FastTanh(x) : EmitTanhF64(b, module_, x);
    case Opcode::kErfInv:
      return t->isFloatTy() ? EmitErfInvF32(b, module_, x)
                            : MathCall("xffi_erf_inv_f64", {x});
    case Opcode::kTan:
      return MathCall("tan", {x});
    case Opcode::kCbrt:
      return MathCall("cbrt", {x});
    case Opcode::kErf:
      return MathCall("erf", {x});
    case Opcode::kErfc:
      return MathCall("erfc", {x});
    case Opcode::kAsin:
      return MathCall("asin", {x});
    case Opcode::kAcos:
      return MathCall("acos", {x});
    case Opcode::kAtan:
      return MathCall("atan", {x});
    case Opcode::kAsinh:
      return MathCall("asinh", {x});
    case Opcode::kAcosh:
      return MathCall("acosh", {x});
    case Opcode::kAtanh:
      return MathCall("atanh", {x});
    case Opcode::kSinh:
      return MathCall("sinh", {x});
    case Opcode::kCosh:
      return MathCall("cosh", {x});
    default:
      return Decline(op, "code generation does not cover this op");
  }
}

llvm::Value* Emitter::Binary(const Instruction& op, llvm::Value* a,
                             llvm::Value* c) {
  llvm::IRBuilder<>& b = *b_;
  const ElementType type = op.operand(0)->shape().element_type();
  const bool is_float = IsFloatType(type);
  const bool is_pred = type == ElementType::kPred;
  const bool is_signed = IsSignedType(type);
  llvm::Type* t = a->getType();
  auto constant = [&](int64_t v) {
    return llvm::ConstantInt::get(t, static_cast<uint64_t>(v), true);
  };
  auto decline = [&] { return Decline(op, "not for this element type"); };
  switch (op.opcode()) {
    case Opcode::kAdd:
      if (is_float) return b.CreateFAdd(a, c);
      return is_pred ? b.CreateOr(a, c) : b.CreateAdd(a, c);
    case Opcode::kSubtract:
      if (is_pred) return decline();
      return is_float ? b.CreateFSub(a, c) : b.CreateSub(a, c);
    case Opcode::kMultiply:
      if (is_float) return b.CreateFMul(a, c);
      return is_pred ? b.CreateAnd(a, c) : b.CreateMul(a, c);
    case Opcode::kMaximum:
    case Opcode::kMinimum:
      return Maximum(type, a, c, op.opcode() == Opcode::kMaximum);
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      if (is_float) return decline();
      return op.opcode() == Opcode::kAnd  ? b.CreateAnd(a, c)
             : op.opcode() == Opcode::kOr ? b.CreateOr(a, c)
                                          : b.CreateXor(a, c);
    case Opcode::kAtan2:
      if (!is_float) return decline();
      return MathCall("atan2", {a, c});
    default:
      break;
  }
  if (is_pred) return decline();
  if (is_float) {
    switch (op.opcode()) {
      case Opcode::kDivide:
        return b.CreateFDiv(a, c);
      case Opcode::kRemainder:
        return b.CreateFRem(a, c);
      case Opcode::kPower:
        return Intrinsic(llvm::Intrinsic::pow, {a, c});
      default:
        return Decline(op, "code generation does not cover this op");
    }
  }
  const int bits = ComputeBits(type);
  llvm::Value* zero = constant(0);
  llvm::Value* minus_one = constant(-1);
  switch (op.opcode()) {
    case Opcode::kDivide:
    case Opcode::kRemainder: {
      // XLA's rules, without a trapping division: x / 0 = -1, x % 0 = x,
      // INT_MIN / -1 = INT_MIN (the negation wraps), INT_MIN % -1 = 0.
      const bool divide = op.opcode() == Opcode::kDivide;
      llvm::Value* by_zero = b.CreateICmpEQ(c, zero);
      llvm::Value* by_minus_one =
          is_signed ? b.CreateICmpEQ(c, minus_one) : b.getFalse();
      llvm::Value* safe =
          b.CreateSelect(b.CreateOr(by_zero, by_minus_one), constant(1), c);
      llvm::Value* q =
          divide ? (is_signed ? b.CreateSDiv(a, safe) : b.CreateUDiv(a, safe))
                 : (is_signed ? b.CreateSRem(a, safe) : b.CreateURem(a, safe));
      llvm::Value* special_minus_one = divide ? b.CreateNeg(a) : zero;
      q = b.CreateSelect(by_minus_one, special_minus_one, q);
      return b.CreateSelect(by_zero, divide ? minus_one : a, q);
    }
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightLogical:
    case Opcode::kShiftRightArithmetic: {
      // The amount reads as unsigned; >= the width shifts everything out.
      llvm::Value* out_of_range = b.CreateICmpUGE(c, constant(bits));
      llvm::Value* amount = b.CreateAnd(c, constant(bits - 1));
      if (op.opcode() == Opcode::kShiftLeft)
        return b.CreateSelect(out_of_range, zero, b.CreateShl(a, amount));
      if (op.opcode() == Opcode::kShiftRightLogical)
        return b.CreateSelect(out_of_range, zero, b.CreateLShr(a, amount));
      return b.CreateAShr(
          a, b.CreateSelect(out_of_range, constant(bits - 1), amount));
    }
    case Opcode::kMulhi: {
      if (bits < 8) return decline();
      llvm::Type* wide =
          llvm::Type::getIntNTy(context_, static_cast<unsigned>(2 * bits));
      llvm::Value* wa =
          is_signed ? b.CreateSExt(a, wide) : b.CreateZExt(a, wide);
      llvm::Value* wc =
          is_signed ? b.CreateSExt(c, wide) : b.CreateZExt(c, wide);
      llvm::Value* product = b.CreateMul(wa, wc);
      llvm::Value* high =
          is_signed ? b.CreateAShr(product, static_cast<uint64_t>(bits))
                    : b.CreateLShr(product, static_cast<uint64_t>(bits));
      return b.CreateTrunc(high, t);
    }
    case Opcode::kPower: {
      // ops::Power: a negative exponent (top bit set) gives 1 for base 1,
      // +-1 by parity for base -1 (all ones), 0 otherwise; else six
      // squarings over the exponent's low six bits.
      llvm::Value* result = constant(1);
      llvm::Value* base = a;
      for (int bit = 0; bit < 6; ++bit) {
        llvm::Value* set =
            b.CreateICmpNE(b.CreateAnd(c, constant(int64_t{1} << bit)), zero);
        result = b.CreateSelect(set, b.CreateMul(result, base), result);
        base = b.CreateMul(base, base);
      }
      llvm::Value* negative = b.CreateICmpSLT(c, zero);
      llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(c, constant(1)), zero);
      llvm::Value* for_negative = b.CreateSelect(
          b.CreateICmpEQ(a, constant(1)), constant(1),
          b.CreateSelect(b.CreateICmpEQ(a, minus_one),
                         b.CreateSelect(odd, a, constant(1)), zero));
      return b.CreateSelect(negative, for_negative, result);
    }
    default:
      return Decline(op, "code generation does not cover this op");
  }
}

llvm::Value* Emitter::Compare(const Instruction& op, llvm::Value* a,
                              llvm::Value* c) {
  llvm::IRBuilder<>& b = *b_;
  const ElementType type = op.operand(0)->shape().element_type();
  const ComparisonDirection direction = op.comparison_direction;
  const ComparisonType requested = op.comparison_type;
  using P = llvm::CmpInst::Predicate;
  auto pick = [&](P eq, P ne, P ge, P gt, P le, P lt) {
    switch (direction) {
      case ComparisonDirection::kEq:
        return eq;
      case ComparisonDirection::kNe:
        return ne;
      case ComparisonDirection::kGe:
        return ge;
      case ComparisonDirection::kGt:
        return gt;
      case ComparisonDirection::kLe:
        return le;
      default:
        return lt;
    }
  };
  if (IsFloatType(type)) {
    if (requested == ComparisonType::kTotalOrder) {
      // cpu/total_order.h: sign-magnitude bits made two's complement.
      llvm::Type* bits = llvm::Type::getIntNTy(
          context_, a->getType()->getPrimitiveSizeInBits().getFixedValue());
      const uint64_t width = bits->getIntegerBitWidth();
      auto key = [&](llvm::Value* x) {
        llvm::Value* i = b.CreateBitCast(x, bits);
        return b.CreateXor(i, b.CreateLShr(b.CreateAShr(i, width - 1), 1));
      };
      a = key(a);
      c = key(c);
      return b.CreateICmp(pick(P::ICMP_EQ, P::ICMP_NE, P::ICMP_SGE, P::ICMP_SGT,
                               P::ICMP_SLE, P::ICMP_SLT),
                          a, c);
    }
    if (requested != ComparisonType::kDefault &&
        requested != ComparisonType::kFloat)
      return Decline(op, "comparison type does not apply");
    return b.CreateFCmp(pick(P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OGE, P::FCMP_OGT,
                             P::FCMP_OLE, P::FCMP_OLT),
                        a, c);
  }
  if (requested == ComparisonType::kFloat)
    return Decline(op, "comparison type does not apply");
  const bool as_signed =
      type != ElementType::kPred &&
      (requested == ComparisonType::kSigned ||
       (requested != ComparisonType::kUnsigned && IsSignedType(type)));
  if (type == ElementType::kPred && requested == ComparisonType::kSigned)
    return Decline(op, "signed comparison of pred");
  return b.CreateICmp(as_signed ? pick(P::ICMP_EQ, P::ICMP_NE, P::ICMP_SGE,
                                       P::ICMP_SGT, P::ICMP_SLE, P::ICMP_SLT)
                                : pick(P::ICMP_EQ, P::ICMP_NE, P::ICMP_UGE,
                                       P::ICMP_UGT, P::ICMP_ULE, P::ICMP_ULT),
                      a, c);
}

// A start index of integer `type` as an i64, as the kernels read one
// (ReadIndex): a u64 past INT64_MAX stays large (it clamps to the end),
// not negative.
llvm::Value* StartIndex(llvm::IRBuilder<>& b, ElementType type,
                        llvm::Value* start) {
  if (IsSignedType(type)) return b.CreateSExtOrTrunc(start, b.getInt64Ty());
  start = b.CreateZExtOrTrunc(start, b.getInt64Ty());
  if (ElementBitWidth(type) < 64) return start;
  return b.CreateSelect(b.CreateICmpSLT(start, b.getInt64(0)),
                        b.getInt64(INT64_MAX), start);
}

// Index maps that choose between values (concatenate: the operand whose
// range holds the coordinate; pad: the operand or the padding value) or
// move by values known only at run time (dynamic-slice: start indices,
// clamped as XLA clamps them so the slice stays inside the operand). Every
// candidate is read at a coordinate clamped into its operand, so no load
// leaves its buffer, and the choice is a select: the loop stays
// vectorisable.
llvm::Value* Emitter::At(const Instruction& operand,
                         std::vector<llvm::Value*> coords, bool invariant) {
  if (operand.shape().num_elements() == 1) {
    Index scalar = ScalarIndex(operand);
    return Value(operand, scalar);
  }
  Index mapped;
  mapped.dims = &operand.shape().dims();
  mapped.invariant = invariant;
  mapped.coords = std::move(coords);
  return Value(operand, mapped);
}

llvm::Value* Emitter::ChoosingIndexMap(const Instruction& op, Index& index) {
  const std::vector<llvm::Value*>& coords = Coords(index);
  llvm::IRBuilder<>& b = index.invariant ? entry_ : *b_;
  auto clamp = [&](llvm::Value* v, int64_t high) {
    v = b.CreateSelect(b.CreateICmpSLT(v, b.getInt64(0)), b.getInt64(0), v);
    return b.CreateSelect(b.CreateICmpSGT(v, b.getInt64(high)),
                          b.getInt64(high), v);
  };
  auto at = [&](const Instruction& operand,
                std::vector<llvm::Value*> operand_coords) {
    return At(operand, std::move(operand_coords), index.invariant);
  };
  nanos_ += kSimpleOpNanos;
  if (op.opcode() == Opcode::kConcatenate) {
    const auto d = static_cast<size_t>(op.dimensions[0]);
    llvm::Value* result = nullptr;
    int64_t offset = 0;
    for (int64_t k = 0; k < op.operand_count(); ++k) {
      const Instruction& operand = *op.operand(k);
      const int64_t size = operand.shape().dims()[d];
      if (size == 0) continue;
      std::vector<llvm::Value*> operand_coords = coords;
      operand_coords[d] =
          clamp(b.CreateSub(coords[d], b.getInt64(offset)), size - 1);
      llvm::Value* value = at(operand, operand_coords);
      if (value == nullptr) return nullptr;
      // Later operands take over from their offset on.
      result =
          result == nullptr
              ? value
              : b.CreateSelect(b.CreateICmpSGE(coords[d], b.getInt64(offset)),
                               value, result);
      offset += size;
    }
    if (result == nullptr) return Decline(op, "every operand is empty");
    return result;
  }
  const Instruction& operand = *op.operand(0);
  const std::vector<int64_t>& in_dims = operand.shape().dims();
  std::vector<llvm::Value*> operand_coords(in_dims.size(), nullptr);
  if (op.opcode() == Opcode::kPad) {
    llvm::Value* inside = b.getTrue();
    for (size_t j = 0; j < in_dims.size(); ++j) {
      const PadDimension& pad = op.padding[j];
      const int64_t step = pad.interior + 1;
      llvm::Value* t = b.CreateSub(coords[j], b.getInt64(pad.low));
      llvm::Value* nonnegative = b.CreateICmpSGE(t, b.getInt64(0));
      llvm::Value* safe = b.CreateSelect(nonnegative, t, b.getInt64(0));
      llvm::Value* q = step == 1 ? safe : b.CreateUDiv(safe, b.getInt64(step));
      inside = b.CreateAnd(inside, nonnegative);
      if (step != 1)
        inside = b.CreateAnd(
            inside, b.CreateICmpEQ(b.CreateURem(safe, b.getInt64(step)),
                                   b.getInt64(0)));
      inside = b.CreateAnd(inside, b.CreateICmpSLT(q, b.getInt64(in_dims[j])));
      operand_coords[j] = clamp(q, std::max<int64_t>(in_dims[j] - 1, 0));
    }
    Index scalar = ScalarIndex(*op.operand(1));
    llvm::Value* padding = Value(*op.operand(1), scalar);
    if (padding == nullptr) return nullptr;
    if (operand.shape().num_elements() == 0) return padding;
    llvm::Value* value = at(operand, operand_coords);
    if (value == nullptr) return nullptr;
    return b.CreateSelect(inside, value, padding);
  }
  // dynamic-slice
  for (size_t j = 0; j < in_dims.size(); ++j) {
    const Instruction& start_op = *op.operand(static_cast<int64_t>(j) + 1);
    const ElementType start_type = start_op.shape().element_type();
    if (!IsIntegerType(start_type))
      return Decline(op, "start indices are not integers");
    Index scalar = ScalarIndex(start_op);
    llvm::Value* start = Value(start_op, scalar);
    if (start == nullptr) return nullptr;
    // Before the loop: the start is the same for every element.
    start = StartIndex(entry_, start_type, start);
    const int64_t size = op.dynamic_slice_sizes[j];
    llvm::Value* low =
        entry_.CreateSelect(entry_.CreateICmpSLT(start, entry_.getInt64(0)),
                            entry_.getInt64(0), start);
    llvm::Value* clamped = entry_.CreateSelect(
        entry_.CreateICmpSGT(low, entry_.getInt64(in_dims[j] - size)),
        entry_.getInt64(in_dims[j] - size), low);
    operand_coords[j] = b.CreateAdd(coords[j], clamped);
  }
  return at(operand, operand_coords);
}

// A gather of one-element slices (the only gather a fusion holds): the
// element's start indices are values of the indices operand at the
// element's batch position, so a producer of the indices fuses in and the
// index is computed per element beside the load it steers.
llvm::Value* Emitter::PointGather(const Instruction& op, Index& index) {
  const Instruction& operand = *op.operand(0);
  const Instruction& indices = *op.operand(1);
  const GatherDimensionNumbers& dn = op.gather_dimension_numbers;
  const ElementType index_type = indices.shape().element_type();
  if (!IsIntegerType(index_type))
    return Decline(op, "start indices are not integers");
  const std::vector<llvm::Value*>& coords = Coords(index);
  llvm::IRBuilder<>& b = index.invariant ? entry_ : *b_;
  const int64_t ivd = dn.index_vector_dim;
  const int64_t index_rank = indices.shape().rank();
  // The result's batch dims walk the indices' dims other than
  // index_vector_dim, in order.
  std::vector<llvm::Value*> index_coords(static_cast<size_t>(index_rank),
                                         nullptr);
  std::vector<llvm::Value*> batch_of_index_dim = index_coords;
  int64_t next = 0;
  for (size_t d = 0; d < coords.size(); ++d) {
    if (std::find(dn.offset_dims.begin(), dn.offset_dims.end(),
                  static_cast<int64_t>(d)) != dn.offset_dims.end())
      continue;
    if (next == ivd) ++next;
    if (next >= index_rank) return Decline(op, "batch dims do not match");
    index_coords[static_cast<size_t>(next)] = coords[d];
    batch_of_index_dim[static_cast<size_t>(next)] = coords[d];
    ++next;
  }
  const std::vector<int64_t>& in_dims = operand.shape().dims();
  std::vector<llvm::Value*> operand_coords(in_dims.size(), b.getInt64(0));
  for (size_t k = 0; k < dn.start_index_map.size(); ++k) {
    Index at;
    at.dims = &indices.shape().dims();
    at.invariant = index.invariant;
    at.coords = index_coords;
    if (ivd < index_rank)
      at.coords[static_cast<size_t>(ivd)] = b.getInt64(static_cast<int64_t>(k));
    llvm::Value* start = indices.shape().num_elements() == 1
                             ? Operand(op, 1, index)
                             : Value(indices, at);
    if (start == nullptr) return nullptr;
    start = StartIndex(b, index_type, start);
    const auto d = static_cast<size_t>(dn.start_index_map[k]);
    const int64_t high = in_dims[d] - op.gather_slice_sizes[d];
    start = b.CreateSelect(b.CreateICmpSLT(start, b.getInt64(0)), b.getInt64(0),
                           start);
    operand_coords[d] = b.CreateSelect(b.CreateICmpSGT(start, b.getInt64(high)),
                                       b.getInt64(high), start);
  }
  for (size_t j = 0; j < dn.operand_batching_dims.size(); ++j)
    operand_coords[static_cast<size_t>(dn.operand_batching_dims[j])] =
        batch_of_index_dim[static_cast<size_t>(
            dn.start_indices_batching_dims[j])];
  nanos_ += kSimpleOpNanos;
  PrefetchNextBatch(op, operand_coords, index.invariant);
  return At(operand, std::move(operand_coords), index.invariant);
}

// take_along_axis reads a row of its operand at random columns: every
// first touch of a line would wait for memory, and the hardware
// prefetcher cannot guess the next. Each element prefetches the same
// column of the next row (along the innermost operand batching dim), so
// by the time the loop gets there the lines it reads have mostly come
// in. (The gather kernel prefetches the next row's region the same way.)
void Emitter::PrefetchNextBatch(const Instruction& op,
                                const std::vector<llvm::Value*>& coords,
                                bool invariant) {
  const Instruction& operand = *op.operand(0);
  const std::vector<int64_t>& batching =
      op.gather_dimension_numbers.operand_batching_dims;
  auto leaf = leaves_.find(&operand);
  if (invariant || batching.empty() || leaf == leaves_.end() ||
      IsComplexType(operand.shape().element_type()))
    return;
  const auto d =
      static_cast<size_t>(*std::max_element(batching.begin(), batching.end()));
  const int64_t last = operand.shape().dims()[d] - 1;
  llvm::IRBuilder<>& b = *b_;
  Index ahead;
  ahead.dims = &operand.shape().dims();
  ahead.coords = coords;
  llvm::Value* next = b.CreateAdd(coords[d], b.getInt64(1));
  ahead.coords[d] = b.CreateSelect(b.CreateICmpSLT(next, b.getInt64(last)),
                                   next, b.getInt64(last));
  llvm::Value* address =
      b.CreateInBoundsGEP(StorageType(context_, operand.shape().element_type()),
                          leaf->second, Linear(ahead));
  llvm::Function* prefetch = llvm::Intrinsic::getDeclaration(
      &module_, llvm::Intrinsic::prefetch, {address->getType()});
  // Read, keep in every cache level, data.
  b.CreateCall(prefetch,
               {address, b.getInt32(0), b.getInt32(3), b.getInt32(1)});
}

// Whether every value `op` reaches is read at the output's linear index
// (so the kernel can be one flat loop).
bool ReachedLinearly(const Instruction& op,
                     const std::unordered_map<const Instruction*, int>& leaves,
                     std::unordered_set<const Instruction*>& seen) {
  if (leaves.count(&op) != 0 || op.opcode() == Opcode::kConstant ||
      !seen.insert(&op).second)
    return true;
  switch (op.opcode()) {
    case Opcode::kIota:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kReverse:
    case Opcode::kConcatenate:
    case Opcode::kPad:
    case Opcode::kDynamicSlice:
    case Opcode::kGather:
      return false;
    case Opcode::kBroadcast:
      if (op.operand(0)->shape().num_elements() != 1 &&
          !(op.shape().num_elements() ==
                op.operand(0)->shape().num_elements() &&
            std::is_sorted(op.dimensions.begin(), op.dimensions.end())))
        return false;
      break;
    default:
      break;
  }
  for (const Instruction* operand : op.operands())
    if (operand->shape().num_elements() != 1 &&
        !ReachedLinearly(*operand, leaves, seen))
      return false;
  return true;
}

// The coordinates of row `item` of an array of `dims`, the minor one left
// null (the element loop's).
std::vector<llvm::Value*> RowCoords(llvm::IRBuilder<>& b, llvm::Value* item,
                                    const std::vector<int64_t>& dims) {
  std::vector<llvm::Value*> coords(dims.size(), nullptr);
  llvm::Value* rest = item;
  for (size_t d = dims.size() - 1; d-- > 0;) {
    if (d == 0) {
      coords[d] = rest;
    } else {
      coords[d] = b.CreateURem(rest, b.getInt64(dims[d]));
      rest = b.CreateUDiv(rest, b.getInt64(dims[d]));
    }
  }
  return coords;
}

// Whether `root` (the value the kernel of `op` stores) is a concatenate
// along its minor dimension whose rows are better written as one element
// loop per operand: each loop then reads its operand at its own index, in
// order, where a single loop over the row computes every operand at a
// clamped index for each element and selects one (gathers, and N times the
// work: JAX's LSTM gradient concatenates its four gates' gradients so).
// Not with complex values, whose special elements the single loop
// recomputes.
// XFFI_CODEGEN_SPLIT_CONCAT=0 turns it off (to measure it).
bool SplitsRowsAtConcatenate(const Instruction& op, const Instruction& root) {
  const char* enabled = std::getenv("XFFI_CODEGEN_SPLIT_CONCAT");
  if (enabled != nullptr && std::string_view(enabled) == "0") return false;
  if (root.opcode() != Opcode::kConcatenate || root.shape().rank() < 2 ||
      root.dimensions.size() != 1 ||
      root.dimensions[0] != root.shape().rank() - 1)
    return false;
  auto complex = [](const Instruction& value) {
    for (const Shape* leaf : value.shape().Leaves())
      if (leaf->IsArray() && IsComplexType(leaf->element_type())) return true;
    return false;
  };
  if (op.opcode() == Opcode::kFusion) {
    for (const auto& fused : op.called_computations()[0]->instructions())
      if (complex(*fused)) return false;
  } else {
    for (const Instruction* operand : op.operands())
      if (complex(*operand)) return false;
  }
  int64_t nonempty = 0;
  for (const Instruction* operand : root.operands())
    nonempty += operand->shape().dims().back() > 0 ? 1 : 0;
  return nonempty >= 2;
}

}  // namespace

StatusOr<EmittedKernel> EmitKernel(const Instruction& op,
                                   const std::string& name,
                                   llvm::Module& module,
                                   int prefer_vector_width) {
  // The computation to emit and the values read from buffers.
  const Instruction* root = &op;
  std::unordered_map<const Instruction*, int> leaf_numbers;
  if (op.opcode() == Opcode::kFusion) {
    if (op.fusion_kind != FusionKind::kLoop)
      return NotFound(op.Describe() + ": not a loop fusion");
    const Computation& fused = *op.called_computations()[0];
    root = fused.root();
    for (const Instruction* parameter : fused.parameters())
      leaf_numbers[parameter] = static_cast<int>(parameter->parameter_number);
  } else {
    for (int64_t i = 0; i < op.operand_count(); ++i)
      leaf_numbers.emplace(op.operand(i), static_cast<int>(i));
  }
  const Shape& shape = root->shape();
  if (!shape.IsArray() || !IsCodegenType(shape.element_type()))
    return NotFound(op.Describe() +
                    ": result is not an array code "
                    "generation covers");
  const int num_buffers = static_cast<int>(op.operand_count()) + 1;

  llvm::LLVMContext& context = module.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Function* function =
      NewKernelFunction(module, name, prefer_vector_width);
  llvm::Value* buffers = function->getArg(0);
  llvm::Value* begin = function->getArg(1);
  llvm::Value* end = function->getArg(2);

  auto* entry_block = llvm::BasicBlock::Create(context, "entry", function);
  auto* preheader = llvm::BasicBlock::Create(context, "preheader", function);
  Emitter emitter(module, preheader);
  emitter.DeferSpecialElements();
  // Recomputes, with the C library calls, the blocks where `emitter` left
  // special elements.
  Emitter exact(module, preheader);
  llvm::IRBuilder<> b(entry_block);
  for (const auto& [leaf, number] : leaf_numbers) {
    llvm::Value* slot = b.CreateInBoundsGEP(ptr, buffers, b.getInt64(number));
    llvm::Value* pointer = b.CreateLoad(ptr, slot);
    emitter.AddLeaf(leaf, pointer);
    exact.AddLeaf(leaf, pointer);
  }
  llvm::Value* out = b.CreateLoad(
      ptr, b.CreateInBoundsGEP(ptr, buffers, b.getInt64(num_buffers - 1)));
  b.CreateBr(preheader);

  const std::vector<int64_t>& dims = shape.dims();
  std::unordered_set<const Instruction*> seen;
  const bool flat =
      dims.size() <= 1 || ReachedLinearly(*root, leaf_numbers, seen);
  const int64_t minor = flat ? 1 : dims.back();
  const int64_t range = shape.num_elements() / std::max<int64_t>(minor, 1);
  const ElementType out_type = shape.element_type();
  auto store = [&](llvm::IRBuilder<>& at, Emitter& from, llvm::Value* value,
                   llvm::Value* linear) {
    if (IsComplexType(out_type)) {
      llvm::Type* part = ComputeType(context, ComplexPartType(out_type));
      llvm::Value* first = at.CreateShl(linear, 1);
      at.CreateStore(RealPart(at, value),
                     at.CreateInBoundsGEP(part, out, first));
      at.CreateStore(ImagPart(at, value),
                     at.CreateInBoundsGEP(part, out, at.CreateOr(first, 1)));
    } else {
      at.CreateStore(
          from.Bits(out_type, value),
          at.CreateInBoundsGEP(StorageType(context, out_type), out, linear));
    }
  };

  if (!flat && SplitsRowsAtConcatenate(op, *root)) {
    // An item is a row; its element loops follow each other, one per
    // operand, each storing at the operand's offset in the row. They have
    // no recomputation pass: sin and cos branch to their call per element.
    emitter.DeferSpecialElements(false);
    auto* outer = llvm::BasicBlock::Create(context, "outer", function);
    auto* exit = llvm::BasicBlock::Create(context, "exit", function);
    llvm::IRBuilder<> loop(outer);
    llvm::PHINode* item = loop.CreatePHI(i64, 2, "item");
    std::vector<llvm::Value*> row_coords = RowCoords(loop, item, dims);
    llvm::Value* row_start = loop.CreateMul(item, loop.getInt64(minor));
    llvm::IRBuilder<> body(context);
    llvm::IRBuilder<>* from = &loop;
    std::vector<llvm::BranchInst*> latches;
    double row_nanos = 0;
    int64_t offset = 0;
    for (const Instruction* operand : root->operands()) {
      const int64_t size = operand->shape().dims().back();
      if (size == 0) continue;
      auto* segment = llvm::BasicBlock::Create(context, "segment", function);
      from->CreateBr(segment);
      llvm::BasicBlock* before = from->GetInsertBlock();
      body.SetInsertPoint(segment);
      llvm::PHINode* position = body.CreatePHI(i64, 2, "minor");
      position->addIncoming(body.getInt64(0), before);
      Index index;
      index.dims = &operand->shape().dims();
      index.coords = row_coords;
      index.coords.back() = position;
      index.linear =
          body.CreateAdd(body.CreateMul(item, body.getInt64(size)), position);
      emitter.StartLoop(&body, &index);
      const double nanos_before = emitter.item_nanos();
      llvm::Value* value = emitter.Value(*operand, index);
      if (value == nullptr || emitter.special() != nullptr) {
        function->eraseFromParent();
        return NotFound(emitter.error().empty()
                            ? op.Describe() + ": not covered"
                            : emitter.error());
      }
      row_nanos +=
          std::max(emitter.item_nanos() - nanos_before, kSimpleOpNanos) *
          static_cast<double>(size);
      store(body, emitter, value,
            body.CreateAdd(row_start,
                           body.CreateAdd(position, body.getInt64(offset))));
      llvm::Value* next = body.CreateAdd(position, body.getInt64(1));
      position->addIncoming(next, body.GetInsertBlock());
      auto* done = llvm::BasicBlock::Create(context, "segment_done", function);
      latches.push_back(body.CreateCondBr(
          body.CreateICmpSLT(next, body.getInt64(size)), segment, done));
      body.SetInsertPoint(done);
      from = &body;
      offset += size;
    }
    llvm::Value* next = body.CreateAdd(item, body.getInt64(1));
    item->addIncoming(begin, preheader);
    item->addIncoming(next, body.GetInsertBlock());
    body.CreateCondBr(body.CreateICmpSLT(next, end), outer, exit);
    llvm::IRBuilder<> pre(preheader);
    pre.CreateCondBr(pre.CreateICmpSLT(begin, end), outer, exit);
    llvm::IRBuilder<>(exit).CreateRetVoid();
    MarkParallel(*function, latches);
    EmittedKernel kernel;
    kernel.range = range;
    kernel.item_nanos = row_nanos;
    kernel.num_buffers = num_buffers;
    return kernel;
  }

  // Outer loop: items [begin, end).
  auto* outer = llvm::BasicBlock::Create(context, "outer", function);
  auto* exit = llvm::BasicBlock::Create(context, "exit", function);
  llvm::IRBuilder<> loop(outer);
  llvm::PHINode* item = loop.CreatePHI(i64, 2, "item");
  Index index;
  index.dims = &dims;
  llvm::IRBuilder<> body(context);
  llvm::PHINode* inner_phi = nullptr;
  llvm::BasicBlock* inner = nullptr;
  std::vector<llvm::Value*> row_coords;
  llvm::Value* row_start = nullptr;
  if (flat) {
    index.linear = item;
    body.SetInsertPoint(outer);
  } else {
    // Coordinates of the row, then an inner loop over the minor dimension.
    row_coords = RowCoords(loop, item, dims);
    row_start = loop.CreateMul(item, loop.getInt64(minor));
    inner = llvm::BasicBlock::Create(context, "inner", function);
    loop.CreateBr(inner);
    body.SetInsertPoint(inner);
    inner_phi = body.CreatePHI(i64, 2, "minor");
    inner_phi->addIncoming(body.getInt64(0), outer);
    index.coords = row_coords;
    index.coords.back() = inner_phi;
    index.linear = body.CreateAdd(row_start, inner_phi);
  }
  emitter.SetBody(&body, &index);
  llvm::Value* value = emitter.Value(*root, index);
  auto decline = [&](const Emitter& failed) -> StatusOr<EmittedKernel> {
    function->eraseFromParent();
    return NotFound(failed.error().empty() ? op.Describe() + ": not covered"
                                           : failed.error());
  };
  if (value == nullptr) return decline(emitter);
  store(body, emitter, value, index.linear);

  // With special elements, the element loop runs over blocks (of
  // kSpecialBlock elements, or a row) and ORs their flags; a block with
  // one is then computed again, element by element, with the calls. The
  // element loop itself calls nothing and so vectorises.
  llvm::Value* special = emitter.special();
  llvm::Value* any_special = nullptr;
  llvm::PHINode* any_phi = nullptr;
  if (special != nullptr) {
    llvm::BasicBlock* head = flat ? outer : inner;
    llvm::IRBuilder<> at_head(head->getFirstNonPHI());
    any_phi = at_head.CreatePHI(body.getInt8Ty(), 2, "any_special");
    any_special =
        body.CreateOr(any_phi, body.CreateZExt(special, body.getInt8Ty()));
    any_phi->addIncoming(any_special, body.GetInsertBlock());
  }
  // After the element loop of a block [first, limit) (in `at`): its
  // recomputation when it had a special element, then `done`.
  auto recompute = [&](llvm::IRBuilder<>& at, llvm::Value* first,
                       llvm::Value* limit, llvm::BasicBlock* done) -> bool {
    auto* again = llvm::BasicBlock::Create(context, "recompute", function);
    at.CreateCondBr(at.CreateICmpNE(any_special, at.getInt8(0)), again, done);
    llvm::IRBuilder<> fix(again);
    llvm::PHINode* position = fix.CreatePHI(i64, 2, "recomputed");
    position->addIncoming(first, at.GetInsertBlock());
    Index fix_index;
    fix_index.dims = &dims;
    if (flat) {
      fix_index.linear = position;
    } else {
      fix_index.coords = row_coords;
      fix_index.coords.back() = position;
      fix_index.linear = fix.CreateAdd(row_start, position);
    }
    exact.SetBody(&fix, &fix_index);
    llvm::Value* exact_value = exact.Value(*root, fix_index);
    if (exact_value == nullptr) return false;
    store(fix, exact, exact_value, fix_index.linear);
    llvm::Value* next = fix.CreateAdd(position, fix.getInt64(1));
    position->addIncoming(next, fix.GetInsertBlock());
    // Only blocks holding a special element come here: vectorising this
    // second copy of the kernel doubled the optimised IR (elementwise_f32's
    // compile 41 -> 92 ms) for elements that are rare.
    KeepScalar(fix.CreateCondBr(fix.CreateICmpSLT(next, limit), again, done));
    return true;
  };

  llvm::IRBuilder<> pre(preheader);
  // The innermost element loop's back edge, when it has no recomputation.
  llvm::BranchInst* latch = nullptr;
  if (flat && special != nullptr) {
    auto* block_head = llvm::BasicBlock::Create(context, "block", function);
    auto* block_done =
        llvm::BasicBlock::Create(context, "block_done", function);
    llvm::IRBuilder<> head(block_head);
    llvm::PHINode* block_first = head.CreatePHI(i64, 2, "block_first");
    block_first->addIncoming(begin, preheader);
    llvm::Value* full =
        head.CreateAdd(block_first, head.getInt64(kSpecialBlock));
    llvm::Value* limit =
        head.CreateSelect(head.CreateICmpSLT(full, end), full, end);
    head.CreateBr(outer);
    item->addIncoming(block_first, block_head);
    any_phi->addIncoming(head.getInt8(0), block_head);
    llvm::Value* next = body.CreateAdd(item, body.getInt64(1));
    item->addIncoming(next, body.GetInsertBlock());
    auto* elements_done =
        llvm::BasicBlock::Create(context, "elements_done", function);
    body.CreateCondBr(body.CreateICmpSLT(next, limit), outer, elements_done);
    llvm::IRBuilder<> after(elements_done);
    if (!recompute(after, block_first, limit, block_done))
      return decline(exact);
    llvm::IRBuilder<> done(block_done);
    block_first->addIncoming(limit, block_done);
    done.CreateCondBr(done.CreateICmpSLT(limit, end), block_head, exit);
    pre.CreateCondBr(pre.CreateICmpSLT(begin, end), block_head, exit);
  } else {
    item->addIncoming(begin, preheader);
    if (!flat) {
      llvm::Value* next_minor = body.CreateAdd(inner_phi, body.getInt64(1));
      inner_phi->addIncoming(next_minor, body.GetInsertBlock());
      auto* row_done = llvm::BasicBlock::Create(context, "row_done", function);
      llvm::Value* more = body.CreateICmpSLT(next_minor, body.getInt64(minor));
      if (special != nullptr) {
        any_phi->addIncoming(body.getInt8(0), outer);
        auto* elements_done =
            llvm::BasicBlock::Create(context, "elements_done", function);
        body.CreateCondBr(more, inner, elements_done);
        llvm::IRBuilder<> after(elements_done);
        if (!recompute(after, body.getInt64(0), body.getInt64(minor), row_done))
          return decline(exact);
      } else {
        latch = body.CreateCondBr(more, inner, row_done);
      }
      body.SetInsertPoint(row_done);
    }
    llvm::Value* next = body.CreateAdd(item, body.getInt64(1));
    item->addIncoming(next, body.GetInsertBlock());
    llvm::BranchInst* outer_latch =
        body.CreateCondBr(body.CreateICmpSLT(next, end), outer, exit);
    if (flat && special == nullptr) latch = outer_latch;
    // The preheader ends once every invariant value is in it; an empty
    // range skips the loop.
    pre.CreateCondBr(pre.CreateICmpSLT(begin, end), outer, exit);
  }
  llvm::IRBuilder<>(exit).CreateRetVoid();
  if (latch != nullptr) MarkParallel(*function, {latch});

  EmittedKernel kernel;
  kernel.range = range;
  kernel.item_nanos = std::max(emitter.item_nanos(), kSimpleOpNanos) *
                      static_cast<double>(minor);
  kernel.num_buffers = num_buffers;
  return kernel;
}

}  // namespace xffi::cpu::codegen

namespace xffi::cpu::codegen {

struct ElementEmitter::Impl {
  Impl(llvm::Module& module, llvm::BasicBlock* preheader)
      : context(module.getContext()), emitter(module, preheader) {}
  llvm::LLVMContext& context;
  Emitter emitter;
  Index index;
};

ElementEmitter::ElementEmitter(llvm::Module& module,
                               llvm::BasicBlock* preheader)
    : impl_(std::make_unique<Impl>(module, preheader)) {}

ElementEmitter::~ElementEmitter() = default;

void ElementEmitter::AddLeaf(const Instruction* op, llvm::Value* pointer) {
  impl_->emitter.AddLeaf(op, pointer);
}

void ElementEmitter::SetIndex(llvm::IRBuilder<>* body,
                              const std::vector<int64_t>* dims,
                              llvm::Value* linear,
                              std::vector<llvm::Value*> coords) {
  impl_->index.dims = dims;
  impl_->index.linear = linear;
  impl_->index.coords = std::move(coords);
  impl_->emitter.SetBody(body, &impl_->index);
}

llvm::Value* ElementEmitter::Value(const Instruction& op) {
  if (op.shape().num_elements() == 1 && impl_->index.dims != nullptr &&
      !impl_->index.dims->empty())
    return ScalarValue(op);
  return impl_->emitter.Value(op, impl_->index);
}

llvm::Value* ElementEmitter::ScalarValue(const Instruction& op) {
  Index scalar;
  scalar.dims = &op.shape().dims();
  scalar.linear =
      llvm::ConstantInt::get(llvm::Type::getInt64Ty(impl_->context), 0);
  scalar.invariant = true;
  return impl_->emitter.Value(op, scalar);
}

llvm::Value* ElementEmitter::Bits(ElementType type, llvm::Value* value) {
  return impl_->emitter.Bits(type, value);
}

const std::string& ElementEmitter::error() const {
  return impl_->emitter.error();
}

double ElementEmitter::item_nanos() const {
  return impl_->emitter.item_nanos();
}

}  // namespace xffi::cpu::codegen
