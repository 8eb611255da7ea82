// The fusion contract: which ops a fused computation may hold, and where.
#include "ir/fusion.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/inference_failure.h"

namespace xffi {
namespace {

using inference::Fail;

Status Refuse(const Instruction& op, const std::string& why) {
  return InvalidArgument(op.Describe() + ": " + why);
}

// Index maps and elementwise ops: what either kind may hold.
bool IsLoopOp(const Instruction& op) {
  Opcode opcode = op.opcode();
  if (IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode)) return true;
  switch (opcode) {
    case Opcode::kParameter:
    case Opcode::kSelect:
    case Opcode::kClamp:
    case Opcode::kConvert:
    case Opcode::kIota:
    case Opcode::kBroadcast:
    case Opcode::kReshape:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kReverse:
    case Opcode::kPad:
    case Opcode::kConcatenate:
    case Opcode::kDynamicSlice:
      return true;
    case Opcode::kConstant:
      return op.shape().IsArray() &&
             op.shape().num_elements() <= kMaxFusedConstantElements;
    // A gather of one-element slices reads one operand element per result
    // element, as a dynamic-slice does; a wider slice is a block copy its
    // own kernel does better.
    case Opcode::kGather:
      return op.operand_count() == 2 &&
             std::all_of(op.gather_slice_sizes.begin(),
                         op.gather_slice_sizes.end(),
                         [](int64_t size) { return size == 1; });
    case Opcode::kBitcastConvert:
      return op.operand_count() == 1 && op.operand(0) != nullptr &&
             op.shape().IsArray() && op.operand(0)->shape().IsArray() &&
             ElementBitWidth(op.shape().element_type()) ==
                 ElementBitWidth(op.operand(0)->shape().element_type());
    default:
      return false;
  }
}

// A reduce's first input; null when it has none (a malformed op).
const Instruction* ReducedInput(const Instruction& reduce) {
  return reduce.operand_count() > 0 ? reduce.operand(0) : nullptr;
}

bool IsScalarArray(const Shape& shape) {
  return shape.IsArray() && shape.rank() == 0;
}

// Why `op` cannot be in a fused computation of `kind`, for the message.
std::string WhyNotFusible(const Instruction& op, FusionKind kind) {
  std::string name(OpcodeName(op.opcode()));
  if (op.opcode() == Opcode::kConstant)
    return "a fused constant has at most " +
           std::to_string(kMaxFusedConstantElements) + " elements, this has " +
           std::to_string(op.shape().IsArray() ? op.shape().num_elements() : 0);
  if (op.opcode() == Opcode::kBitcastConvert)
    return "a fused bitcast-convert keeps the bit width";
  if (op.opcode() == Opcode::kReduce)
    return "a kLoop fusion cannot hold reduce (a kInput one can)";
  return std::string("a ") + std::string(FusionKindName(kind)) +
         " fusion cannot hold " + name;
}

}  // namespace

bool IsFusibleOp(const Instruction& op, FusionKind kind) {
  if (IsLoopOp(op)) return true;
  if (kind == FusionKind::kInput)
    return op.opcode() == Opcode::kReduce ||
           op.opcode() == Opcode::kGetTupleElement;
  return false;
}

Status CheckFusedReducer(const Computation& reducer) {
  for (const auto& owned : reducer.instructions()) {
    const Instruction& op = *owned;
    bool root = &op == reducer.root();
    if (op.opcode() == Opcode::kTuple) {
      if (!root)
        return Refuse(op, "a fused reducer holds a tuple only as its root");
      continue;
    }
    if (!IsScalarArray(op.shape()))
      return Refuse(op, "a fused reducer computes scalars only, this is " +
                            op.shape().ToString());
    if (!IsLoopOp(op) || op.opcode() == Opcode::kIota ||
        op.opcode() == Opcode::kDynamicSlice || op.opcode() == Opcode::kGather)
      return Refuse(op, "a fused reducer cannot hold " +
                            std::string(OpcodeName(op.opcode())));
  }
  return Status::Ok();
}

Status CheckFusedComputation(const Computation& fused, FusionKind kind) {
  const Instruction* root = fused.root();
  if (root == nullptr)
    return Fail("fused computation '", fused.name(), "' has no root");
  // The values the root returns: itself, or its tuple's elements.
  std::vector<const Instruction*> outputs;
  if (root->opcode() == Opcode::kTuple) {
    if (root->operand_count() == 0)
      return Refuse(*root, "a fusion returns at least one value");
    for (const Instruction* element : root->operands()) {
      if (element == nullptr) return Refuse(*root, "has a null operand");
      outputs.push_back(element);
    }
  } else {
    outputs.push_back(root);
  }
  std::unordered_set<const Instruction*> output_set(outputs.begin(),
                                                    outputs.end());

  for (const auto& owned : fused.instructions()) {
    const Instruction& op = *owned;
    if (&op == root && op.opcode() == Opcode::kTuple) continue;
    if (!IsFusibleOp(op, kind)) return Refuse(op, WhyNotFusible(op, kind));
    if (!op.shape().IsArray() && op.opcode() != Opcode::kReduce)
      return Refuse(op, "every value of a fused computation is an array, " +
                            std::string("this is ") + op.shape().ToString());
    for (const Instruction* operand : op.operands())
      if (operand != nullptr && !operand->shape().IsArray() &&
          op.opcode() != Opcode::kGetTupleElement)
        return Refuse(op,
                      "reads '" + operand->name() + "', which is not an array");
    if (op.opcode() == Opcode::kGetTupleElement &&
        (op.operand_count() != 1 || op.operand(0) == nullptr ||
         op.operand(0)->opcode() != Opcode::kReduce || !output_set.count(&op)))
      return Refuse(op,
                    "a fused get-tuple-element takes an element of a "
                    "variadic reduce to the root");
    if (op.opcode() == Opcode::kReduce) {
      if (op.called_computations().size() == 1 &&
          op.called_computations()[0] != nullptr) {
        Status reducer = CheckFusedReducer(*op.called_computations()[0]);
        if (!reducer.ok())
          return Refuse(op, "its reducer '" +
                                op.called_computations()[0]->name() +
                                "': " + reducer.message());
      }
    }
  }

  // Where reduces may be: the root's values, directly or through one
  // get-tuple-element; nothing else reads them.
  for (const auto& owned : fused.instructions())
    for (const Instruction* operand : owned->operands())
      if (operand != nullptr && operand->opcode() == Opcode::kReduce &&
          owned.get() != root && owned->opcode() != Opcode::kGetTupleElement)
        return Refuse(*owned, "reads reduce '" + operand->name() +
                                  "'; a fused reduce's value leaves the "
                                  "fusion, nothing inside reads it");
  const Instruction* first_reduce = nullptr;
  for (const Instruction* output : outputs) {
    if (output->opcode() == Opcode::kParameter)
      return Refuse(*root, "returns parameter '" + output->name() +
                               "'; a fusion returns values it computes");
    const Instruction* reduce = output;
    if (output->opcode() == Opcode::kGetTupleElement)
      reduce = output->operand_count() == 1 ? output->operand(0) : nullptr;
    // A malformed reduce is the verifier's to report, on the reduce.
    if (reduce == nullptr || reduce->opcode() != Opcode::kReduce ||
        ReducedInput(*reduce) == nullptr)
      continue;
    if (first_reduce == nullptr) {
      first_reduce = reduce;
    } else if (ReducedInput(*reduce)->shape().dims() !=
                   ReducedInput(*first_reduce)->shape().dims() ||
               reduce->dimensions != first_reduce->dimensions) {
      return Refuse(
          *reduce, "reduces " + ReducedInput(*reduce)->shape().ToString(false) +
                       " over other dimensions than '" + first_reduce->name() +
                       "' does; the reduces of a fusion share their input "
                       "dimensions and reduced dimensions");
    }
  }
  if (kind == FusionKind::kInput && first_reduce == nullptr)
    return Refuse(*root, "a kInput fusion returns at least one reduce");
  // The index space every loop value of the root is computed over.
  const std::vector<int64_t>& space =
      first_reduce != nullptr ? ReducedInput(*first_reduce)->shape().dims()
                              : outputs.front()->shape().dims();
  for (const Instruction* output : outputs) {
    bool reduced = output->opcode() == Opcode::kReduce ||
                   output->opcode() == Opcode::kGetTupleElement;
    if (!reduced && output->shape().dims() != space)
      return Refuse(*output,
                    "is returned with dimensions " +
                        output->shape().ToString(false) +
                        "; the loop values a fusion returns share one index "
                        "space (" +
                        (first_reduce != nullptr ? "the reduces' input"
                                                 : "the first value's") +
                        ")");
  }
  return Status::Ok();
}

}  // namespace xffi
