// Code generation for reduction fusions (see reduce_emitter.h).
#include "cpu/codegen/reduce_emitter.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include "cpu/arg_reduce.h"
#include "cpu/codegen/ir_types.h"
#include "cpu/codegen/program_kernels.h"
#include "cpu/reduce_loops.h"
#include "cpu/region_util.h"
#include "passes/reduction_tree.h"

namespace xffi::cpu::codegen {
namespace {

// Output elements a column reduction accumulates at once: their partial
// results stay in the first cache levels while the reduced rows stream by.
constexpr int64_t kColumnBlock = 1024;
// The cost of folding one element into one reduce, for splitting items.
constexpr double kFoldNanos = 0.3;
// A fusion's column reduction (no kept dimension outside the reduced
// ones) of fewer columns runs in row pieces (EmitFewColumnKernel): the
// column loop below, one element at a time with its partial results in
// memory, took 18-24 ms on resnet_block_train's batch norm fusions
// (f32[16,32,32,64] over N, H, W) where the evaluator's tiles of whole
// rows took 8-9 (bench/README.md).
constexpr int64_t kMinFusedColumns = 256;

// One value the fusion returns: a reduce, or a loop value it also writes.
struct Output {
  const Instruction* value = nullptr;
  const Instruction* input = nullptr;  // reduce: its input
  const Instruction* init = nullptr;   // reduce: its init value
  CombineOp combine = CombineOp::kNone;
  ElementType type = ElementType::kInvalid;  // reduce: its element type
  int first_buffer = 0;                      // the buffer of its (first) result
  // argmax/argmin (arg_reduce.h): the region, and the index operand, init
  // value and type beside the values' above.
  std::optional<ArgReduceRegion> arg;
  const Instruction* index_input = nullptr;
  const Instruction* index_init = nullptr;
  ElementType index_type = ElementType::kInvalid;
};

// How a reduce folds one value into its accumulator, in compute types.
// Float maximum/minimum accumulate a total-order key and whether a NaN
// was seen (see reduce_emitter.h); the rest accumulate the value itself.
class Fold {
 public:
  Fold(llvm::IRBuilder<>& b, CombineOp combine, ElementType type)
      : b_(b), combine_(combine), type_(type) {}

  bool keyed() const {
    return IsFloatType(type_) &&
           (combine_ == CombineOp::kMax || combine_ == CombineOp::kMin);
  }
  llvm::Type* KeyType(llvm::Type* float_type) const {
    return llvm::Type::getIntNTy(
        b_.getContext(), float_type->getPrimitiveSizeInBits().getFixedValue());
  }

  // Sign-magnitude bits as two's complement: the integers order as the
  // floats do, -0 below +0 (an involution, so it maps keys back too).
  llvm::Value* Key(llvm::Value* x) const {
    llvm::Type* bits = KeyType(x->getType());
    llvm::Value* i = b_.CreateBitCast(x, bits);
    const uint64_t width = bits->getIntegerBitWidth();
    return b_.CreateXor(i, b_.CreateLShr(b_.CreateAShr(i, width - 1), 1));
  }
  llvm::Value* FromKey(llvm::Value* key, llvm::Type* float_type) const {
    const uint64_t width = key->getType()->getIntegerBitWidth();
    llvm::Value* i =
        b_.CreateXor(key, b_.CreateLShr(b_.CreateAShr(key, width - 1), 1));
    return b_.CreateBitCast(i, float_type);
  }
  llvm::Value* IsNan(llvm::Value* x) const { return b_.CreateFCmpUNO(x, x); }

  // acc op x for plain accumulators (and keys, with integer max/min).
  llvm::Value* Combine(llvm::Value* acc, llvm::Value* x, bool reassociate) {
    const bool is_float = x->getType()->isFloatingPointTy();
    const bool is_pred = type_ == ElementType::kPred;
    // Keys compare as signed integers; unsigned types as unsigned.
    const bool is_signed = keyed() || IsSignedType(type_);
    llvm::Value* result = nullptr;
    switch (combine_) {
      case CombineOp::kAdd:
        if (is_pred) return b_.CreateOr(acc, x);
        result = is_float ? b_.CreateFAdd(acc, x) : b_.CreateAdd(acc, x);
        break;
      case CombineOp::kMul:
        if (is_pred) return b_.CreateAnd(acc, x);
        result = is_float ? b_.CreateFMul(acc, x) : b_.CreateMul(acc, x);
        break;
      case CombineOp::kAnd:
        return b_.CreateAnd(acc, x);
      case CombineOp::kOr:
        return b_.CreateOr(acc, x);
      case CombineOp::kMax:
        if (is_pred) return b_.CreateOr(acc, x);
        return b_.CreateBinaryIntrinsic(
            is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, acc, x);
      default:  // kMin
        if (is_pred) return b_.CreateAnd(acc, x);
        return b_.CreateBinaryIntrinsic(
            is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, acc, x);
    }
    if (is_float && reassociate)
      if (auto* instruction = llvm::dyn_cast<llvm::Instruction>(result))
        instruction->setHasAllowReassoc(true);
    return result;
  }

  // XLA's float maximum/minimum of two values (NaN wins, then the
  // accumulator's NaN first), for the column layout's element-wise fold.
  llvm::Value* CombineFloatValues(llvm::Value* acc, llvm::Value* x) {
    llvm::Value* picked =
        FromKey(Combine(Key(acc), Key(x), false), acc->getType());
    return b_.CreateSelect(IsNan(acc), acc,
                           b_.CreateSelect(IsNan(x), NanAfter(acc, x), picked));
  }

  // What a NaN x becomes folded into a non-NaN accumulator `acc`, as
  // cpu/float_max_min.h: its payload, negative only when both are
  // (maximum) / either is (minimum).
  llvm::Value* NanAfter(llvm::Value* acc, llvm::Value* x) {
    llvm::Type* bits = KeyType(x->getType());
    const unsigned width = bits->getIntegerBitWidth();
    llvm::Value* sign =
        llvm::ConstantInt::get(bits, llvm::APInt::getSignMask(width));
    llvm::Value* x_bits = b_.CreateBitCast(x, bits);
    llvm::Value* acc_bits = b_.CreateBitCast(acc, bits);
    llvm::Value* adjusted =
        combine_ == CombineOp::kMax
            ? b_.CreateAnd(x_bits, b_.CreateOr(acc_bits, b_.CreateNot(sign)))
            : b_.CreateOr(x_bits, b_.CreateAnd(acc_bits, sign));
    return b_.CreateBitCast(adjusted, x->getType());
  }

 private:
  llvm::IRBuilder<>& b_;
  CombineOp combine_;
  ElementType type_;
};

bool FoldSupported(CombineOp combine, ElementType type) {
  if (type == ElementType::kF16 || type == ElementType::kBF16 ||
      !IsCodegenType(type))
    return false;
  switch (combine) {
    case CombineOp::kAdd:
    case CombineOp::kMul:
      // As the evaluator (region_util.h's FastOpSupported).
      return type != ElementType::kPred;
    case CombineOp::kMax:
    case CombineOp::kMin:
      return true;
    case CombineOp::kAnd:
    case CombineOp::kOr:
      return !IsFloatType(type);
    default:
      return false;
  }
}

bool ArgSupported(ElementType value_type, ElementType index_type) {
  const bool value_covered =
      value_type == ElementType::kF32 || value_type == ElementType::kF64 ||
      IsSignedIntegralType(value_type) || IsUnsignedIntegralType(value_type);
  return value_covered && IsCodegenType(value_type) &&
         (index_type == ElementType::kS32 || index_type == ElementType::kS64);
}

// One step of an argmax/argmin region, as arg_reduce.h's ArgReduceStep:
// (acc_v, acc_i) <- region(acc, (v, i)). The results are whole operands
// selected, so a zero's sign and a NaN's payload are the region's own, and
// each result's inputs step it in input order, as in the evaluator.
std::pair<llvm::Value*, llvm::Value*> ArgStep(
    llvm::IRBuilder<>& b, const ArgReduceRegion& region, bool is_signed,
    llvm::Value* acc_v, llvm::Value* acc_i, llvm::Value* v, llvm::Value* i) {
  const bool acc_first = region.accumulator_first;
  llvm::Value* a_v = acc_first ? acc_v : v;
  llvm::Value* b_v = acc_first ? v : acc_v;
  llvm::Value* a_i = acc_first ? acc_i : i;
  llvm::Value* b_i = acc_first ? i : acc_i;
  llvm::Value* pick = nullptr;
  llvm::Value* equal = nullptr;
  if (a_v->getType()->isFloatingPointTy()) {
    // Ordered compares: false against a NaN, as C++'s > and ==.
    pick =
        region.greater ? b.CreateFCmpOGT(a_v, b_v) : b.CreateFCmpOLT(a_v, b_v);
    if (region.nan_wins) pick = b.CreateOr(pick, b.CreateFCmpUNO(a_v, a_v));
    equal = b.CreateFCmpOEQ(a_v, b_v);
  } else {
    const auto order =
        region.greater
            ? (is_signed ? llvm::CmpInst::ICMP_SGT : llvm::CmpInst::ICMP_UGT)
            : (is_signed ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT);
    pick = b.CreateICmp(order, a_v, b_v);
    equal = b.CreateICmpEQ(a_v, b_v);
  }
  llvm::Value* pick_index =
      b.CreateOr(pick, b.CreateAnd(equal, b.CreateICmpSLT(a_i, b_i)));
  return {b.CreateSelect(pick, a_v, b_v), b.CreateSelect(pick_index, a_i, b_i)};
}

// Coordinates of `linear` in dims [first, last) of `dims` (row-major).
void Decompose(llvm::IRBuilder<>& b, const std::vector<int64_t>& dims,
               size_t first, size_t last, llvm::Value* linear,
               std::vector<llvm::Value*>& coords) {
  llvm::Value* rest = linear;
  for (size_t d = last; d-- > first;) {
    if (d == first) {
      coords[d] = rest;
    } else {
      coords[d] = b.CreateURem(rest, b.getInt64(dims[d]));
      rest = b.CreateUDiv(rest, b.getInt64(dims[d]));
    }
  }
}

// Fills `entry` (then branching to `next`): the leaves' buffers for
// `emitter`, and each output's (and argmax's indices') in `out` and
// `out_index`, a reduce's `reduce_offset` buffers after its result's.
void LoadBuffers(llvm::Function* function, llvm::BasicBlock* entry,
                 llvm::BasicBlock* next, ElementEmitter& emitter,
                 const std::vector<std::pair<const Instruction*, int>>& leaves,
                 const std::vector<Output>& outputs, int reduce_offset,
                 std::vector<llvm::Value*>& out,
                 std::vector<llvm::Value*>& out_index) {
  llvm::IRBuilder<> b(entry);
  llvm::Type* ptr = b.getPtrTy();
  auto buffer = [&](int number) {
    return b.CreateLoad(
        ptr, b.CreateInBoundsGEP(ptr, function->getArg(0), b.getInt64(number)));
  };
  for (const auto& [leaf, number] : leaves)
    emitter.AddLeaf(leaf, buffer(number));
  out.assign(outputs.size(), nullptr);
  out_index.assign(outputs.size(), nullptr);
  for (size_t k = 0; k < outputs.size(); ++k) {
    const int offset = outputs[k].input != nullptr ? reduce_offset : 0;
    out[k] = buffer(outputs[k].first_buffer + offset);
    if (outputs[k].arg)
      out_index[k] = buffer(outputs[k].first_buffer + 1 + offset);
  }
  b.CreateBr(next);
}

// Removes `function`, which the emitter declined to finish.
Status Declined(llvm::Function* function, const ElementEmitter& emitter,
                const Instruction& fusion) {
  function->eraseFromParent();
  return NotFound(emitter.error().empty() ? fusion.Describe() + ": not covered"
                                          : emitter.error());
}

// The reduces' init values (and argmax's index ones) by output, computed
// once per call in the emitter's preheader; false when one is declined.
bool ScalarInits(ElementEmitter& emitter, const std::vector<Output>& outputs,
                 std::vector<llvm::Value*>& inits,
                 std::vector<llvm::Value*>& index_inits) {
  inits.assign(outputs.size(), nullptr);
  index_inits.assign(outputs.size(), nullptr);
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k].input == nullptr) continue;
    inits[k] = emitter.ScalarValue(*outputs[k].init);
    if (inits[k] == nullptr) return false;
    if (!outputs[k].arg) continue;
    index_inits[k] = emitter.ScalarValue(*outputs[k].index_init);
    if (index_inits[k] == nullptr) return false;
  }
  return true;
}

// for (i = from; i < to; ++i) body(i), at `b`'s insert point, which is
// after the loop on return; the loop's latch branch is returned (for
// MarkParallel).
template <typename Body>
llvm::BranchInst* EmitLoop(llvm::IRBuilder<>& b, llvm::Value* from,
                           llvm::Value* to, const char* label,
                           const Body& body) {
  llvm::LLVMContext& context = b.getContext();
  llvm::Function* function = b.GetInsertBlock()->getParent();
  auto* head = llvm::BasicBlock::Create(context, label, function);
  auto* done =
      llvm::BasicBlock::Create(context, std::string(label) + "_done", function);
  llvm::BasicBlock* from_block = b.GetInsertBlock();
  b.CreateCondBr(b.CreateICmpSLT(from, to), head, done);
  b.SetInsertPoint(head);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, label);
  i->addIncoming(from, from_block);
  body(i);
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, b.GetInsertBlock());
  llvm::BranchInst* latch =
      b.CreateCondBr(b.CreateICmpSLT(next, to), head, done);
  b.SetInsertPoint(done);
  return latch;
}

// acc op x for a few-column fold: the evaluator's scalar op (region_util.h's
// ScalarOps), so that both give the same bytes; for float maximum/minimum
// cpu/float_max_min.h's formula, one select that vectorises.
llvm::Value* FewColumnFold(llvm::IRBuilder<>& b, const Output& output,
                           llvm::Value* acc, llvm::Value* x) {
  const bool max = output.combine == CombineOp::kMax;
  if (!IsFloatType(output.type) || (!max && output.combine != CombineOp::kMin))
    return Fold(b, output.combine, output.type).Combine(acc, x, false);
  const unsigned width = acc->getType()->getPrimitiveSizeInBits();
  llvm::Type* bits = b.getIntNTy(width);
  llvm::Value* sign =
      llvm::ConstantInt::get(bits, llvm::APInt::getSignMask(width));
  llvm::Value* a_bits = b.CreateBitCast(acc, bits);
  llvm::Value* x_bits = b.CreateBitCast(x, bits);
  llvm::Value* picked =
      max ? b.CreateAnd(x_bits, b.CreateOr(a_bits, b.CreateNot(sign)))
          : b.CreateOr(x_bits, b.CreateAnd(a_bits, sign));
  llvm::Value* keep =
      b.CreateOr(max ? b.CreateFCmpOGT(acc, x) : b.CreateFCmpOLT(acc, x),
                 b.CreateFCmpUNO(acc, acc));
  return b.CreateSelect(keep, acc, b.CreateBitCast(picked, acc->getType()));
}

// Whether `value` (a compute value of `type`) is `combine`'s identity, as
// cpu/reduce_loops.h's IsIdentity decides for the evaluator.
llvm::Value* IsIdentityValue(llvm::IRBuilder<>& b, CombineOp combine,
                             ElementType type, llvm::Value* value) {
  llvm::Type* t = value->getType();
  if (t->isFloatingPointTy()) {
    double identity = 0;
    switch (combine) {
      case CombineOp::kAdd:
        identity = 0;
        break;
      case CombineOp::kMul:
        identity = 1;
        break;
      case CombineOp::kMax:
        identity = -INFINITY;
        break;
      case CombineOp::kMin:
        identity = INFINITY;
        break;
      default:
        return b.getFalse();
    }
    // == in C++: +0 and -0 both start a sum.
    return b.CreateFCmpOEQ(value, llvm::ConstantFP::get(t, identity));
  }
  const unsigned width = t->getIntegerBitWidth();
  const bool is_signed = IsSignedType(type);
  llvm::APInt identity(width, 0);
  switch (combine) {
    case CombineOp::kAdd:
    case CombineOp::kOr:
      break;
    case CombineOp::kMul:
      identity = llvm::APInt(width, 1);
      break;
    case CombineOp::kMax:
      if (is_signed) identity = llvm::APInt::getSignedMinValue(width);
      break;
    case CombineOp::kMin:
      identity = is_signed ? llvm::APInt::getSignedMaxValue(width)
                           : llvm::APInt::getAllOnes(width);
      break;
    case CombineOp::kAnd:
      identity = llvm::APInt::getAllOnes(width);
      break;
    default:
      return b.getFalse();
  }
  return b.CreateICmpEQ(value, llvm::ConstantInt::get(t, identity));
}

// The compute value of a reduce's init value (a fusion parameter or a
// constant) read from `buffers`; null for anything else.
llvm::Value* InitFromBuffers(llvm::IRBuilder<>& b, const Instruction& init,
                             ElementType type, llvm::Value* buffers) {
  llvm::LLVMContext& context = b.getContext();
  llvm::Type* storage = StorageType(context, type);
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Value* stored = nullptr;
  if (init.opcode() == Opcode::kParameter) {
    llvm::Value* address = b.CreateLoad(
        ptr, b.CreateInBoundsGEP(
                 ptr, buffers,
                 b.getInt64(static_cast<int64_t>(init.parameter_number))));
    stored = b.CreateLoad(storage, address);
  } else if (init.opcode() == Opcode::kConstant) {
    const size_t bytes = ElementByteSize(type);
    uint64_t raw = 0;
    std::memcpy(&raw, init.literal.data(), bytes);
    llvm::Value* as_int = llvm::ConstantInt::get(
        b.getIntNTy(static_cast<unsigned>(8 * bytes)), raw);
    stored = b.CreateBitCast(as_int, storage);
  } else {
    return nullptr;
  }
  return FromStorage(b, type, stored);
}

// The few-column kernel of reduce_emitter.h: `rows` reduced rows of
// `columns` kept columns ([reduced][inner kept], dims[first, last) the
// reduced ones), cut into the evaluator's pieces (fused_reduce.cc). Adds
// the kernel `name`, and for more than one piece `name`_combine and
// `name`_split; buffers as GeneratedPieces says.
StatusOr<EmittedKernel> EmitFewColumnKernel(
    const Instruction& fusion, const std::string& name, llvm::Module& module,
    int prefer_vector_width,
    const std::vector<std::pair<const Instruction*, int>>& leaves,
    const std::vector<Output>& outputs, const std::vector<int64_t>& dims,
    size_t first, size_t last, int64_t rows, int64_t columns, int num_operands,
    int num_buffers, EmittedPieces& pieces) {
  const int num_results = num_buffers - num_operands;
  if (num_buffers + num_results > kMaxKernelBuffers)
    return NotFound(fusion.Describe() + ": too many buffers");
  // The evaluator's pieces: whole rows, 64Ki elements each.
  GeneratedPieces& layout = pieces.layout;
  layout.rows = rows;
  layout.columns = columns;
  layout.rows_per_piece = std::max<int64_t>(1, kPartialElements / columns);
  layout.count = (rows + layout.rows_per_piece - 1) / layout.rows_per_piece;
  layout.stride_bytes.assign(static_cast<size_t>(num_results), 0);
  // Each piece's partials on cache lines of their own: pieces on other
  // threads update theirs once per row.
  auto stride_of = [&](ElementType type) {
    const auto bytes = static_cast<int64_t>(ElementByteSize(type));
    return (columns * bytes + 63) / 64 * 64;
  };
  for (const Output& output : outputs) {
    if (output.input == nullptr) continue;
    const auto at = static_cast<size_t>(output.first_buffer - num_operands);
    layout.stride_bytes[at] = stride_of(output.type);
    if (output.arg) layout.stride_bytes[at + 1] = stride_of(output.index_type);
  }

  llvm::LLVMContext& context = module.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Function* function =
      NewKernelFunction(module, name, prefer_vector_width);
  llvm::Value* begin = function->getArg(1);
  llvm::Value* end = function->getArg(2);
  auto* entry_block = llvm::BasicBlock::Create(context, "entry", function);
  auto* preheader = llvm::BasicBlock::Create(context, "preheader", function);
  ElementEmitter emitter(module, preheader);
  // Loop values' results, reduces' partials (and argmax indices').
  std::vector<llvm::Value*> out, out_index;
  LoadBuffers(function, entry_block, preheader, emitter, leaves, outputs,
              num_results, out, out_index);
  auto fail = [&]() -> Status { return Declined(function, emitter, fusion); };
  std::vector<llvm::Value*> inits, index_inits;
  if (!ScalarInits(emitter, outputs, inits, index_inits)) return fail();

  // The preheader (invariant values) ends once everything is emitted.
  auto* start = llvm::BasicBlock::Create(context, "start", function);
  auto* exit = llvm::BasicBlock::Create(context, "exit", function);
  llvm::IRBuilder<> b(start);
  llvm::Value* width = b.getInt64(columns);
  // The partials start at the init values.
  std::vector<llvm::BranchInst*> parallel;
  parallel.push_back(EmitLoop(b, b.getInt64(0), width, "init", [&](auto* c) {
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (outputs[k].input == nullptr) continue;
      b.CreateStore(ToStorage(b, outputs[k].type, inits[k]),
                    b.CreateInBoundsGEP(StorageType(context, outputs[k].type),
                                        out[k], c));
      if (outputs[k].arg)
        b.CreateStore(
            ToStorage(b, outputs[k].index_type, index_inits[k]),
            b.CreateInBoundsGEP(StorageType(context, outputs[k].index_type),
                                out_index[k], c));
    }
  }));
  // Row by row in order; across a row's columns, one vector loop.
  bool emitted = true;
  EmitLoop(b, begin, end, "row", [&](llvm::Value* r) {
    std::vector<llvm::Value*> coords(dims.size(), nullptr);
    for (size_t d = 0; d < first; ++d) coords[d] = b.getInt64(0);
    Decompose(b, dims, first, last, r, coords);
    llvm::Value* row_start = b.CreateMul(r, width);
    parallel.push_back(
        EmitLoop(b, b.getInt64(0), width, "column", [&](auto* j) {
          std::vector<llvm::Value*> at = coords;
          Decompose(b, dims, last, dims.size(), j, at);
          llvm::Value* linear = b.CreateAdd(row_start, j);
          emitter.SetIndex(&b, &dims, linear, at);
          for (size_t k = 0; k < outputs.size() && emitted; ++k) {
            const Output& output = outputs[k];
            llvm::Value* value = emitter.Value(
                output.input != nullptr ? *output.input : *output.value);
            if (value == nullptr) {
              emitted = false;
              break;
            }
            if (output.input == nullptr) {
              const ElementType type = output.value->shape().element_type();
              b.CreateStore(emitter.Bits(type, value),
                            b.CreateInBoundsGEP(StorageType(context, type),
                                                out[k], linear));
              continue;
            }
            llvm::Type* storage = StorageType(context, output.type);
            llvm::Value* address = b.CreateInBoundsGEP(storage, out[k], j);
            llvm::Value* acc =
                FromStorage(b, output.type, b.CreateLoad(storage, address));
            if (output.arg) {
              llvm::Value* index = emitter.Value(*output.index_input);
              if (index == nullptr) {
                emitted = false;
                break;
              }
              llvm::Type* index_storage =
                  StorageType(context, output.index_type);
              llvm::Value* index_address =
                  b.CreateInBoundsGEP(index_storage, out_index[k], j);
              llvm::Value* acc_index =
                  FromStorage(b, output.index_type,
                              b.CreateLoad(index_storage, index_address));
              auto [next_value, next_index] =
                  ArgStep(b, *output.arg, IsSignedType(output.type), acc,
                          acc_index, value, index);
              b.CreateStore(ToStorage(b, output.type, next_value), address);
              b.CreateStore(ToStorage(b, output.index_type, next_index),
                            index_address);
              continue;
            }
            b.CreateStore(
                ToStorage(b, output.type, FewColumnFold(b, output, acc, value)),
                address);
          }
        }));
  });
  b.CreateBr(exit);
  if (!emitted) return fail();
  llvm::IRBuilder<> pre(preheader);
  pre.CreateCondBr(pre.CreateICmpSLT(begin, end), start, exit);
  llvm::IRBuilder<>(exit).CreateRetVoid();
  MarkParallel(*function, parallel);

  if (layout.count > 1) {
    // Whether every init value is its reducer's identity (argmax: never,
    // as in the evaluator).
    pieces.split_name = name + "_split";
    auto* split_type =
        llvm::FunctionType::get(llvm::Type::getInt64Ty(context), {ptr}, false);
    llvm::Function* split =
        llvm::Function::Create(split_type, llvm::GlobalValue::ExternalLinkage,
                               pieces.split_name, module);
    split->setDoesNotThrow();
    llvm::IRBuilder<> s(llvm::BasicBlock::Create(context, "entry", split));
    llvm::Value* all = s.getTrue();
    for (const Output& output : outputs) {
      if (output.input == nullptr) continue;
      if (output.arg) {
        all = s.getFalse();
        continue;
      }
      llvm::Value* init =
          InitFromBuffers(s, *output.init, output.type, split->getArg(0));
      if (init == nullptr) {
        function->eraseFromParent();
        split->eraseFromParent();
        return NotFound(output.value->Describe() +
                        ": an init value computed in the fusion");
      }
      all = s.CreateAnd(all,
                        IsIdentityValue(s, output.combine, output.type, init));
    }
    s.CreateRet(s.CreateZExt(all, s.getInt64Ty()));

    // The results from the pieces' partials, folded in piece order as the
    // evaluator's FoldPartials does.
    pieces.combine_name = name + "_combine";
    auto* combine_type =
        llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr}, false);
    llvm::Function* combine =
        llvm::Function::Create(combine_type, llvm::GlobalValue::ExternalLinkage,
                               pieces.combine_name, module);
    combine->setDoesNotThrow();
    combine->addFnAttr("denormal-fp-math", "preserve-sign,preserve-sign");
    if (prefer_vector_width > 0)
      combine->addFnAttr("prefer-vector-width",
                         std::to_string(prefer_vector_width));
    llvm::IRBuilder<> c(llvm::BasicBlock::Create(context, "entry", combine));
    std::vector<llvm::BranchInst*> combine_loops;
    for (const Output& output : outputs) {
      if (output.input == nullptr || output.arg) continue;
      auto buffer = [&](int number) {
        return c.CreateLoad(ptr, c.CreateInBoundsGEP(ptr, combine->getArg(0),
                                                     c.getInt64(number)));
      };
      llvm::Value* result = buffer(output.first_buffer);
      llvm::Value* partial = buffer(output.first_buffer + num_results);
      llvm::Type* storage = StorageType(context, output.type);
      const int64_t stride = stride_of(output.type) /
                             static_cast<int64_t>(ElementByteSize(output.type));
      combine_loops.push_back(
          EmitLoop(c, c.getInt64(0), width, "first", [&](auto* j) {
            c.CreateStore(
                c.CreateLoad(storage, c.CreateInBoundsGEP(storage, partial, j)),
                c.CreateInBoundsGEP(storage, result, j));
          }));
      combine_loops.push_back(EmitLoop(
          c, c.getInt64(1), c.getInt64(layout.count), "piece", [&](auto* p) {
            llvm::Value* base = c.CreateInBoundsGEP(
                storage, partial, c.CreateMul(p, c.getInt64(stride)));
            combine_loops.push_back(
                EmitLoop(c, c.getInt64(0), width, "fold", [&](auto* j) {
                  llvm::Value* to = c.CreateInBoundsGEP(storage, result, j);
                  llvm::Value* acc =
                      FromStorage(c, output.type, c.CreateLoad(storage, to));
                  llvm::Value* x = FromStorage(
                      c, output.type,
                      c.CreateLoad(storage,
                                   c.CreateInBoundsGEP(storage, base, j)));
                  c.CreateStore(ToStorage(c, output.type,
                                          FewColumnFold(c, output, acc, x)),
                                to);
                }));
          }));
    }
    c.CreateRetVoid();
    for (llvm::BranchInst* latch : combine_loops) KeepScalar(latch);
  }

  EmittedKernel kernel;
  kernel.range = rows;
  kernel.item_nanos = (std::max(emitter.item_nanos(), kFoldNanos) +
                       kFoldNanos * static_cast<double>(outputs.size())) *
                      static_cast<double>(columns);
  kernel.num_buffers = num_buffers + num_results;
  return kernel;
}

bool FewColumnsGenerated() {
  const char* text = std::getenv("XFFI_CODEGEN_FEW_COLUMNS");
  return text == nullptr || std::string(text) != "0";
}

}  // namespace

StatusOr<EmittedKernel> EmitReduceKernel(const Instruction& fusion,
                                         const std::string& name,
                                         llvm::Module& module,
                                         int prefer_vector_width,
                                         std::optional<EmittedPieces>* pieces) {
  // The computation's root and the values read from buffers.
  const Instruction* root = &fusion;
  std::vector<std::pair<const Instruction*, int>> leaves;
  if (fusion.opcode() == Opcode::kFusion &&
      fusion.fusion_kind == FusionKind::kInput) {
    const Computation& fused = *fusion.called_computations()[0];
    root = fused.root();
    for (const Instruction* parameter : fused.parameters())
      leaves.emplace_back(parameter,
                          static_cast<int>(parameter->parameter_number));
  } else if (fusion.opcode() == Opcode::kReduce) {
    for (int64_t i = 0; i < fusion.operand_count(); ++i)
      leaves.emplace_back(fusion.operand(i), static_cast<int>(i));
  } else {
    return NotFound(fusion.Describe() + ": not a reduction fusion");
  }
  std::vector<const Instruction*> returned;
  if (root->opcode() == Opcode::kTuple)
    returned.assign(root->operands().begin(), root->operands().end());
  else
    returned.push_back(root);

  // The outputs, and the input index space every one of them shares.
  std::vector<Output> outputs;
  const Instruction* first_reduce = nullptr;
  const int num_operands = static_cast<int>(fusion.operand_count());
  int num_buffers = num_operands;
  for (const Instruction* value : returned) {
    Output output;
    output.value = value;
    output.first_buffer = num_buffers++;
    const bool arg_reduce =
        value->opcode() == Opcode::kReduce && value->operand_count() == 4;
    if (!arg_reduce && !value->shape().IsArray())
      return NotFound(value->Describe() + ": not an array");
    if (arg_reduce) {
      const Computation* region = value->called_computations()[0];
      output.arg = MatchArgReduceRegion(region);
      output.input = value->operand(0);
      output.index_input = value->operand(1);
      output.init = value->operand(2);
      output.index_init = value->operand(3);
      output.type = output.input->shape().element_type();
      output.index_type = output.index_input->shape().element_type();
      if (!output.arg || !ArgSupported(output.type, output.index_type))
        return NotFound(value->Describe() +
                        ": a variadic reduce code generation does not fold");
      ++num_buffers;  // the indices
    } else if (value->opcode() == Opcode::kReduce) {
      if (value->operand_count() != 2)
        return NotFound(value->Describe() + ": a variadic reduce");
      output.input = value->operand(0);
      output.init = value->operand(1);
      output.type = value->shape().element_type();
      output.combine = MatchCombineRegion(value->called_computations()[0]);
      if (!FoldSupported(output.combine, output.type))
        return NotFound(value->Describe() +
                        ": a reducer or type code generation does not fold");
    }
    if (value->opcode() == Opcode::kReduce) {
      if (first_reduce == nullptr) {
        first_reduce = value;
      } else if (value->dimensions != first_reduce->dimensions ||
                 output.input->shape().dims() !=
                     first_reduce->operand(0)->shape().dims()) {
        return NotFound(value->Describe() + ": reduces another index space");
      }
    } else if (!IsCodegenType(value->shape().element_type())) {
      return NotFound(value->Describe() +
                      ": not a type code generation covers");
    }
    outputs.push_back(output);
  }
  if (first_reduce == nullptr)
    return NotFound(fusion.Describe() + ": no reduce");
  const std::vector<int64_t>& dims = first_reduce->operand(0)->shape().dims();
  for (const Output& output : outputs)
    if (output.input == nullptr && output.value->shape().dims() != dims)
      return NotFound(output.value->Describe() +
                      ": a loop value not of the reduce's input dimensions");

  // [outer kept][reduced][inner kept].
  std::vector<int64_t> reduced = first_reduce->dimensions;
  std::sort(reduced.begin(), reduced.end());
  if (reduced.empty() || reduced.back() - reduced.front() + 1 !=
                             static_cast<int64_t>(reduced.size()))
    return NotFound(first_reduce->Describe() +
                    ": reduced dimensions not contiguous");
  const auto first = static_cast<size_t>(reduced.front());
  const auto last = static_cast<size_t>(reduced.back()) + 1;
  int64_t outer = 1, extent = 1, inner = 1;
  for (size_t d = 0; d < dims.size(); ++d)
    (d < first ? outer : d < last ? extent : inner) *= dims[d];
  const bool rows = inner == 1;
  // Measured (bench reductions_axis1, jnp.argmax of 1024 rows of 4096
  // f32): the generated row loop, one select chain per row, ran 2.5x
  // slower than the evaluator's, so rows stay there until that loop is
  // faster; columns (one chain per column, a block of them at once) ran
  // 2.4x faster (reductions_axis0). The row code below is kept correct
  // and tested with XFFI_CODEGEN_ARG_ROWS=1.
  if (rows && std::getenv("XFFI_CODEGEN_ARG_ROWS") == nullptr)
    for (const Output& output : outputs)
      if (output.arg)
        return NotFound(output.value->Describe() +
                        ": an argmax over rows (the evaluator's is faster)");
  // As the evaluator: an empty reduction runs as a call.
  if (extent == 0) return NotFound(first_reduce->Describe() + ": empty");
  if (!rows && outer == 1 && inner < kMinFusedColumns &&
      fusion.opcode() == Opcode::kFusion) {
    if (!FewColumnsGenerated() || pieces == nullptr)
      return NotFound(first_reduce->Describe() +
                      ": a column reduction of few columns (turned off)");
    EmittedPieces emitted_pieces;
    StatusOr<EmittedKernel> kernel = EmitFewColumnKernel(
        fusion, name, module, prefer_vector_width, leaves, outputs, dims, first,
        last, extent, inner, num_operands, num_buffers, emitted_pieces);
    if (kernel.ok()) *pieces = std::move(emitted_pieces);
    return kernel;
  }

  if (num_buffers > kMaxKernelBuffers)
    return NotFound(fusion.Describe() + ": too many buffers");

  llvm::LLVMContext& context = module.getContext();
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Function* function =
      NewKernelFunction(module, name, prefer_vector_width);
  llvm::Value* begin = function->getArg(1);
  llvm::Value* end = function->getArg(2);
  auto* entry_block = llvm::BasicBlock::Create(context, "entry", function);
  auto* preheader = llvm::BasicBlock::Create(context, "preheader", function);
  auto* exit = llvm::BasicBlock::Create(context, "exit", function);
  ElementEmitter emitter(module, preheader);
  std::vector<llvm::Value*> out, out_index;
  LoadBuffers(function, entry_block, preheader, emitter, leaves, outputs, 0,
              out, out_index);
  auto fail = [&]() -> Status { return Declined(function, emitter, fusion); };

  std::vector<llvm::Value*> inits, index_inits;
  if (!ScalarInits(emitter, outputs, inits, index_inits)) return fail();

  // The loop nest. `item` is a row (rows) or the first output element of
  // a block (columns).
  auto* item_block = llvm::BasicBlock::Create(context, "item", function);
  llvm::IRBuilder<> loop(item_block);
  llvm::PHINode* item = loop.CreatePHI(i64, 2, "item");
  item->addIncoming(begin, preheader);
  std::vector<llvm::Value*> coords(dims.size(), nullptr);
  llvm::Value* o = item;
  llvm::Value* column0 = nullptr;
  llvm::Value* block_end = nullptr;  // one past the block's last item
  if (!rows) {
    o = loop.CreateUDiv(item, loop.getInt64(inner));
    column0 = loop.CreateURem(item, loop.getInt64(inner));
    llvm::Value* column1 = loop.CreateBinaryIntrinsic(
        llvm::Intrinsic::umin,
        loop.CreateAdd(column0, loop.CreateSub(end, item)),
        loop.CreateAdd(column0, loop.getInt64(kColumnBlock)));
    column1 = loop.CreateBinaryIntrinsic(llvm::Intrinsic::umin, column1,
                                         loop.getInt64(inner));
    block_end = loop.CreateAdd(item, loop.CreateSub(column1, column0));
  }
  Decompose(loop, dims, 0, first, o, coords);
  llvm::Value* reduced_start =
      loop.CreateMul(o, loop.getInt64(extent));  // first reduced row of o

  // The reduce loop over the reduced elements (r), and for columns an
  // inner loop over the block's columns (j).
  llvm::IRBuilder<> body(context);
  std::vector<llvm::Value*> folded(outputs.size(), nullptr);
  std::vector<llvm::Value*> nan_folded(outputs.size(), nullptr);
  std::vector<Fold> folds;
  for (const Output& output : outputs)
    folds.emplace_back(body, output.combine, output.type);

  auto column_loop = [&](llvm::IRBuilder<>& at, const char* label,
                         const auto& emit_body) -> llvm::BasicBlock* {
    // for j in [column0, column1): emit_body(j); returns the block after.
    llvm::BasicBlock* from = at.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(context, label, function);
    auto* done = llvm::BasicBlock::Create(context, std::string(label) + "_done",
                                          function);
    at.CreateBr(head);
    body.SetInsertPoint(head);
    llvm::PHINode* j = body.CreatePHI(i64, 2, "j");
    j->addIncoming(column0, from);
    emit_body(j);
    llvm::Value* next = body.CreateAdd(j, body.getInt64(1));
    j->addIncoming(next, body.GetInsertBlock());
    llvm::Value* column1 =
        body.CreateAdd(column0, body.CreateSub(block_end, item));
    body.CreateCondBr(body.CreateICmpULT(next, column1), head, done);
    body.SetInsertPoint(done);
    return done;
  };

  // Emits the values at one input element and stores the loop outputs;
  // null when the element emitter declines.
  std::vector<llvm::Value*> values(outputs.size(), nullptr);
  std::vector<llvm::Value*> index_values(outputs.size(), nullptr);
  auto emit_element = [&](llvm::Value* r, llvm::Value* j) -> bool {
    std::vector<llvm::Value*> at = coords;
    Decompose(body, dims, first, last, r, at);
    llvm::Value* linear = body.CreateAdd(reduced_start, r);
    if (!rows) {
      Decompose(body, dims, last, dims.size(), j, at);
      linear = body.CreateAdd(body.CreateMul(linear, body.getInt64(inner)), j);
    }
    emitter.SetIndex(&body, &dims, linear, at);
    for (size_t k = 0; k < outputs.size(); ++k) {
      const Output& output = outputs[k];
      values[k] = emitter.Value(output.input != nullptr ? *output.input
                                                        : *output.value);
      if (values[k] == nullptr) return false;
      if (output.arg) {
        index_values[k] = emitter.Value(*output.index_input);
        if (index_values[k] == nullptr) return false;
      }
      if (output.input == nullptr) {
        const ElementType type = output.value->shape().element_type();
        body.CreateStore(
            emitter.Bits(type, values[k]),
            body.CreateInBoundsGEP(StorageType(context, type), out[k], linear));
      }
    }
    return true;
  };

  llvm::BasicBlock* after_reduce = nullptr;
  if (rows) {
    // for r in [0, extent): fold into phis.
    auto* reduce_block = llvm::BasicBlock::Create(context, "reduce", function);
    auto* row_done = llvm::BasicBlock::Create(context, "row_done", function);
    loop.CreateBr(reduce_block);
    body.SetInsertPoint(reduce_block);
    llvm::PHINode* r = body.CreatePHI(i64, 2, "r");
    r->addIncoming(body.getInt64(0), item_block);
    std::vector<llvm::PHINode*> acc(outputs.size(), nullptr);
    std::vector<llvm::PHINode*> nan_acc(outputs.size(), nullptr);
    // Small keyed reductions (passes/reduction_tree.h's ReducesInXlaOrder)
    // also carry their first NaN as XLA's in-order fold gives it; larger
    // ones give the quiet NaN (XLA's YNNPACK ones drop NaNs altogether).
    std::vector<llvm::PHINode*> first_nan(outputs.size(), nullptr);
    std::vector<llvm::Value*> first_nan_folded(outputs.size(), nullptr);
    std::vector<llvm::PHINode*> index_acc(outputs.size(), nullptr);
    std::vector<llvm::Value*> index_folded(outputs.size(), nullptr);
    // The accumulators start at the init values, in the preheader.
    llvm::IRBuilder<> pre(preheader);
    std::vector<llvm::Value*> start(outputs.size(), nullptr);
    std::vector<llvm::Value*> nan_start(outputs.size(), nullptr);
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (outputs[k].input == nullptr) continue;
      Fold start_fold(pre, outputs[k].combine, outputs[k].type);
      start[k] = start_fold.keyed() ? start_fold.Key(inits[k]) : inits[k];
      if (start_fold.keyed()) nan_start[k] = start_fold.IsNan(inits[k]);
      acc[k] = body.CreatePHI(start[k]->getType(), 2, "acc");
      acc[k]->addIncoming(start[k], item_block);
      if (nan_start[k] != nullptr) {
        nan_acc[k] = body.CreatePHI(body.getInt1Ty(), 2, "nan");
        nan_acc[k]->addIncoming(nan_start[k], item_block);
        if (passes::ReducesInXlaOrder(
                outputs[k].type, outputs[k].input->shape().num_elements())) {
          first_nan[k] = body.CreatePHI(inits[k]->getType(), 2, "first_nan");
          first_nan[k]->addIncoming(inits[k], item_block);
        }
      }
      if (outputs[k].arg) {
        index_acc[k] = body.CreatePHI(index_inits[k]->getType(), 2, "index");
        index_acc[k]->addIncoming(index_inits[k], item_block);
      }
    }
    if (!emit_element(r, nullptr)) return fail();
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (outputs[k].input == nullptr) continue;
      Fold& fold = folds[k];
      if (outputs[k].arg) {
        std::tie(folded[k], index_folded[k]) =
            ArgStep(body, *outputs[k].arg, IsSignedType(outputs[k].type),
                    acc[k], index_acc[k], values[k], index_values[k]);
      } else if (fold.keyed()) {
        if (first_nan[k] != nullptr)
          first_nan_folded[k] = body.CreateSelect(
              nan_acc[k], first_nan[k],
              fold.NanAfter(fold.FromKey(acc[k], values[k]->getType()),
                            values[k]));
        folded[k] = fold.Combine(acc[k], fold.Key(values[k]), false);
        nan_folded[k] = body.CreateOr(nan_acc[k], fold.IsNan(values[k]));
      } else {
        // A small float sum folds in order, as XLA:CPU's does
        // (passes/reduction_tree.h); others may reassociate, as XLA's
        // YNNPACK ones do.
        folded[k] = fold.Combine(
            acc[k], values[k],
            /*reassociate=*/
            !passes::ReducesInXlaOrder(
                outputs[k].type, outputs[k].input->shape().num_elements()));
      }
    }
    llvm::Value* next_r = body.CreateAdd(r, body.getInt64(1));
    llvm::BasicBlock* latch = body.GetInsertBlock();
    r->addIncoming(next_r, latch);
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (acc[k] != nullptr) acc[k]->addIncoming(folded[k], latch);
      if (nan_acc[k] != nullptr) nan_acc[k]->addIncoming(nan_folded[k], latch);
      if (first_nan[k] != nullptr)
        first_nan[k]->addIncoming(first_nan_folded[k], latch);
      if (index_acc[k] != nullptr)
        index_acc[k]->addIncoming(index_folded[k], latch);
    }
    body.CreateCondBr(body.CreateICmpULT(next_r, body.getInt64(extent)),
                      reduce_block, row_done);
    // The results, from the last fold (or the init values).
    body.SetInsertPoint(row_done);
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (outputs[k].input == nullptr) continue;
      Fold row_fold(body, outputs[k].combine, outputs[k].type);
      llvm::Value* result = folded[k];
      if (row_fold.keyed()) {
        llvm::Type* float_type = inits[k]->getType();
        result = body.CreateSelect(nan_folded[k],
                                   first_nan[k] != nullptr
                                       ? first_nan_folded[k]
                                       : llvm::ConstantFP::getNaN(float_type),
                                   row_fold.FromKey(result, float_type));
      }
      body.CreateStore(
          ToStorage(body, outputs[k].type, result),
          body.CreateInBoundsGEP(StorageType(context, outputs[k].type), out[k],
                                 item));
      if (outputs[k].arg)
        body.CreateStore(
            ToStorage(body, outputs[k].index_type, index_folded[k]),
            body.CreateInBoundsGEP(StorageType(context, outputs[k].index_type),
                                   out_index[k], item));
    }
    after_reduce = row_done;
  } else {
    // Columns: the block's results start at the init values, then every
    // reduced row folds into them in order.
    llvm::Value* result_base = loop.CreateMul(o, loop.getInt64(inner));
    column_loop(loop, "init", [&](llvm::Value* j) {
      llvm::Value* at = body.CreateAdd(result_base, j);
      for (size_t k = 0; k < outputs.size(); ++k) {
        if (outputs[k].input == nullptr) continue;
        body.CreateStore(
            ToStorage(body, outputs[k].type, inits[k]),
            body.CreateInBoundsGEP(StorageType(context, outputs[k].type),
                                   out[k], at));
        if (outputs[k].arg)
          body.CreateStore(
              ToStorage(body, outputs[k].index_type, index_inits[k]),
              body.CreateInBoundsGEP(
                  StorageType(context, outputs[k].index_type), out_index[k],
                  at));
      }
    });
    auto* reduce_block = llvm::BasicBlock::Create(context, "reduce", function);
    auto* block_done =
        llvm::BasicBlock::Create(context, "block_done", function);
    llvm::BasicBlock* init_done = body.GetInsertBlock();
    body.CreateBr(reduce_block);
    llvm::IRBuilder<> rows_loop(reduce_block);
    llvm::PHINode* r = rows_loop.CreatePHI(i64, 2, "r");
    r->addIncoming(rows_loop.getInt64(0), init_done);
    bool emitted = true;
    column_loop(rows_loop, "columns", [&](llvm::Value* j) {
      if (!emit_element(r, j)) {
        emitted = false;
        return;
      }
      llvm::Value* at = body.CreateAdd(result_base, j);
      for (size_t k = 0; k < outputs.size(); ++k) {
        if (outputs[k].input == nullptr) continue;
        llvm::Type* storage = StorageType(context, outputs[k].type);
        llvm::Value* address = body.CreateInBoundsGEP(storage, out[k], at);
        llvm::Value* acc = FromStorage(body, outputs[k].type,
                                       body.CreateLoad(storage, address));
        if (outputs[k].arg) {
          llvm::Type* index_storage =
              StorageType(context, outputs[k].index_type);
          llvm::Value* index_address =
              body.CreateInBoundsGEP(index_storage, out_index[k], at);
          llvm::Value* acc_index =
              FromStorage(body, outputs[k].index_type,
                          body.CreateLoad(index_storage, index_address));
          auto [next_value, next_index] =
              ArgStep(body, *outputs[k].arg, IsSignedType(outputs[k].type), acc,
                      acc_index, values[k], index_values[k]);
          body.CreateStore(ToStorage(body, outputs[k].type, next_value),
                           address);
          body.CreateStore(ToStorage(body, outputs[k].index_type, next_index),
                           index_address);
          continue;
        }
        Fold& fold = folds[k];
        llvm::Value* next = fold.keyed()
                                ? fold.CombineFloatValues(acc, values[k])
                                : fold.Combine(acc, values[k], false);
        body.CreateStore(ToStorage(body, outputs[k].type, next), address);
      }
    });
    if (!emitted) return fail();
    llvm::Value* next_r = body.CreateAdd(r, body.getInt64(1));
    r->addIncoming(next_r, body.GetInsertBlock());
    body.CreateCondBr(body.CreateICmpULT(next_r, body.getInt64(extent)),
                      reduce_block, block_done);
    body.SetInsertPoint(block_done);
    after_reduce = block_done;
  }

  // Next item (row) or block.
  llvm::Value* next_item =
      rows ? body.CreateAdd(item, body.getInt64(1)) : block_end;
  item->addIncoming(next_item, after_reduce);
  body.CreateCondBr(body.CreateICmpSLT(next_item, end), item_block, exit);
  llvm::IRBuilder<> pre(preheader);
  pre.CreateCondBr(pre.CreateICmpSLT(begin, end), item_block, exit);
  llvm::IRBuilder<>(exit).CreateRetVoid();

  EmittedKernel kernel;
  kernel.range = rows ? outer : outer * inner;
  kernel.item_nanos = (std::max(emitter.item_nanos(), kFoldNanos) +
                       kFoldNanos * static_cast<double>(outputs.size())) *
                      static_cast<double>(std::max<int64_t>(extent, 1));
  kernel.num_buffers = num_buffers;
  return kernel;
}

}  // namespace xffi::cpu::codegen
