// Runs of scalar ops as one ScalarProgram thunk (see scalar_run_thunk.h).
#include "cpu/scalar_run_thunk.h"

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cpu/scalar_program.h"

namespace xffi::cpu {
namespace {

using compiler::BufferId;
using compiler::kNoBuffer;

class ScalarRunThunk : public Thunk {
 public:
  ScalarRunThunk(ScalarProgram program, std::vector<BufferId> inputs,
                 std::vector<BufferId> outputs)
      : program_(std::move(program)),
        input_ids_(std::move(inputs)),
        output_ids_(std::move(outputs)),
        inputs_(input_ids_.size()),
        outputs_(output_ids_.size()),
        registers_(program_.num_registers()) {
    program_.PrepareRegisters(registers_.data());
  }

  Status Run(void* const* addresses) override {
    for (size_t i = 0; i < input_ids_.size(); ++i)
      inputs_[i] = addresses[input_ids_[i]];
    for (size_t i = 0; i < output_ids_.size(); ++i)
      outputs_[i] = addresses[output_ids_[i]];
    // Every input is read before any output is written, so an output may
    // reuse the buffer of an input; outputs sharing a buffer are written in
    // schedule order, the later (live) value last.
    program_.RunPrepared(inputs_.data(), outputs_.data(), registers_.data());
    return Status::Ok();
  }

 private:
  ScalarProgram program_;
  std::vector<BufferId> input_ids_, output_ids_;
  std::vector<const void*> inputs_;
  std::vector<void*> outputs_;
  std::vector<ScalarValue> registers_;
};

}  // namespace

bool IsScalarArray(const Shape& shape) {
  return shape.IsArray() && shape.rank() == 0 && shape.byte_size() > 0;
}

bool IsScalarRunOp(const Instruction& op) {
  switch (op.opcode()) {
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kMultiply:
    case Opcode::kDivide:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kNot:
    case Opcode::kNegate:
    case Opcode::kAbs:
    case Opcode::kSelect:
    case Opcode::kCompare:
    case Opcode::kConvert:
      break;
    default:
      return false;
  }
  if (!IsScalarArray(op.shape())) return false;
  for (const Instruction* operand : op.operands())
    if (!IsScalarArray(operand->shape())) return false;
  return true;
}

std::unique_ptr<Thunk> MakeScalarRunThunk(
    const compiler::BufferAssignment& assignment, size_t begin, size_t end) {
  // The run as a computation of its own: values from outside become its
  // parameters, and its root is a tuple of every op's value, so the
  // program computes them all in one pass.
  Computation run("scalar_run");
  std::unordered_map<const Instruction*, Instruction*> inside;
  std::vector<BufferId> inputs, outputs;
  std::vector<Instruction*> values;
  std::vector<Shape> value_shapes;
  for (size_t p = begin; p < end; ++p) {
    const Instruction& op = *assignment.schedule[p];
    if (!IsScalarRunOp(op)) continue;
    const compiler::InstructionBuffers& buffers = assignment.instructions[p];
    if (buffers.leaves.size() != 1 || buffers.leaves[0] == kNoBuffer ||
        buffers.operands.size() != static_cast<size_t>(op.operand_count()))
      return nullptr;
    auto clone = std::make_unique<Instruction>(op);
    for (int64_t i = 0; i < op.operand_count(); ++i) {
      const Instruction* operand = op.operand(i);
      auto found = inside.find(operand);
      if (found != inside.end()) {
        clone->ReplaceOperand(i, found->second);
        continue;
      }
      const std::vector<BufferId>& ids =
          buffers.operands[static_cast<size_t>(i)];
      if (ids.size() != 1 || ids[0] == kNoBuffer) return nullptr;
      Instruction* parameter =
          run.AddInstruction(Opcode::kParameter, operand->shape());
      parameter->parameter_number = static_cast<int64_t>(inputs.size());
      inputs.push_back(ids[0]);
      inside[operand] = parameter;
      clone->ReplaceOperand(i, parameter);
    }
    Instruction* value = run.AddInstruction(std::move(clone));
    inside[&op] = value;
    values.push_back(value);
    value_shapes.push_back(op.shape());
    outputs.push_back(buffers.leaves[0]);
  }
  if (values.empty()) return nullptr;
  run.set_root(
      run.AddInstruction(Opcode::kTuple, Shape::Tuple(value_shapes), values));
  std::optional<ScalarProgram> program = ScalarProgram::Compile(run);
  if (!program.has_value() || program->num_results() != outputs.size())
    return nullptr;
  return std::make_unique<ScalarRunThunk>(
      std::move(*program), std::move(inputs), std::move(outputs));
}

}  // namespace xffi::cpu
