#include "xffi/program/ir.h"

#include <algorithm>
#include <unordered_map>

namespace xffi {
namespace {

struct OpcodeNames {
  Opcode opcode;
  std::string_view hlo;
  std::string_view stablehlo;
};

constexpr OpcodeNames kOpcodeNames[] = {
#define XFFI_OPCODE_ROW(e, hlo, shlo) {Opcode::e, hlo, shlo},
    XFFI_OPCODES(XFFI_OPCODE_ROW)
#undef XFFI_OPCODE_ROW
};

constexpr std::string_view kDirectionNames[] = {"EQ", "NE", "GE",
                                                "GT", "LE", "LT"};
constexpr std::string_view kComparisonTypeNames[] = {
    "DEFAULT", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
constexpr std::string_view kFftTypeNames[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
constexpr std::string_view kRngAlgorithmNames[] = {"DEFAULT", "THREE_FRY",
                                                   "PHILOX"};
constexpr std::string_view kRngDistributionNames[] = {"UNIFORM", "NORMAL"};
constexpr std::string_view kTriangularTransposeNames[] = {
    "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};

template <typename Enum, size_t N>
std::optional<Enum> EnumFromName(const std::string_view (&names)[N],
                                 std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}
constexpr std::string_view kFusionKindNames[] = {"kLoop", "kInput"};

}  // namespace

std::string_view OpcodeName(Opcode opcode) {
  return kOpcodeNames[static_cast<size_t>(opcode)].hlo;
}

std::string_view StableHloOpcodeName(Opcode opcode) {
  return kOpcodeNames[static_cast<size_t>(opcode)].stablehlo;
}

std::optional<Opcode> OpcodeFromName(std::string_view hlo_name) {
  for (const OpcodeNames& row : kOpcodeNames)
    if (row.hlo == hlo_name) return row.opcode;
  return std::nullopt;
}

std::optional<Opcode> OpcodeFromStableHloName(std::string_view name) {
  if (name.empty()) return std::nullopt;
  // MHLO's name for an after_all of nothing, which JAX still prints for
  // jax.lax.create_token().
  if (name == "stablehlo.create_token") return Opcode::kAfterAll;
  for (const OpcodeNames& row : kOpcodeNames)
    if (row.stablehlo == name) return row.opcode;
  return std::nullopt;
}

bool IsElementwiseUnary(Opcode opcode) {
  return opcode >= Opcode::kAbs && opcode <= Opcode::kReducePrecision;
}

bool IsElementwiseBinary(Opcode opcode) {
  return opcode >= Opcode::kAdd && opcode <= Opcode::kCompare;
}

bool IsCollective(Opcode opcode) {
  return opcode >= Opcode::kAllReduce && opcode <= Opcode::kReplicaId;
}

std::string_view OpcodeName(Opcode opcode, OpSpelling spelling) {
  std::string_view stablehlo = StableHloOpcodeName(opcode);
  if (spelling == OpSpelling::kStableHlo && !stablehlo.empty())
    return stablehlo;
  return OpcodeName(opcode);
}

std::string_view ComparisonDirectionName(ComparisonDirection d) {
  return kDirectionNames[static_cast<size_t>(d)];
}

std::optional<ComparisonDirection> ComparisonDirectionFromName(
    std::string_view name) {
  for (size_t i = 0; i < std::size(kDirectionNames); ++i)
    if (kDirectionNames[i] == name) return static_cast<ComparisonDirection>(i);
  return std::nullopt;
}

std::string_view ComparisonTypeName(ComparisonType t) {
  return kComparisonTypeNames[static_cast<size_t>(t)];
}

std::optional<ComparisonType> ComparisonTypeFromName(std::string_view name) {
  for (size_t i = 0; i < std::size(kComparisonTypeNames); ++i)
    if (kComparisonTypeNames[i] == name) return static_cast<ComparisonType>(i);
  return std::nullopt;
}

std::string_view FftTypeName(FftType type) {
  return kFftTypeNames[static_cast<size_t>(type)];
}
std::optional<FftType> FftTypeFromName(std::string_view name) {
  return EnumFromName<FftType>(kFftTypeNames, name);
}
std::string_view RngAlgorithmName(RngAlgorithm a) {
  return kRngAlgorithmNames[static_cast<size_t>(a)];
}
std::optional<RngAlgorithm> RngAlgorithmFromName(std::string_view name) {
  return EnumFromName<RngAlgorithm>(kRngAlgorithmNames, name);
}
std::string_view RngDistributionName(RngDistribution d) {
  return kRngDistributionNames[static_cast<size_t>(d)];
}
std::optional<RngDistribution> RngDistributionFromName(std::string_view name) {
  return EnumFromName<RngDistribution>(kRngDistributionNames, name);
}
std::string_view TriangularTransposeName(TriangularTranspose t) {
  return kTriangularTransposeNames[static_cast<size_t>(t)];
}
std::optional<TriangularTranspose> TriangularTransposeFromName(
    std::string_view name) {
  return EnumFromName<TriangularTranspose>(kTriangularTransposeNames, name);
}
std::string_view FusionKindName(FusionKind kind) {
  return kFusionKindNames[static_cast<size_t>(kind)];
}
std::optional<FusionKind> FusionKindFromName(std::string_view name) {
  return EnumFromName<FusionKind>(kFusionKindNames, name);
}

std::string Location::ToString() const {
  std::string out;
  if (line > 0) {
    out = (file.empty() ? std::string("line ") : file + ":") +
          std::to_string(line) + ":" + std::to_string(column);
  }
  if (!name.empty()) {
    if (!out.empty()) out += " ";
    out += out.empty() ? name : "(" + name + ")";
  }
  return out.empty() ? "unknown location" : out;
}

std::string Instruction::Describe() const {
  std::string out = "'" + name_ + "' (" + std::string(OpcodeName(opcode_));
  if (opcode_ == Opcode::kCustomCall) out += " \"" + custom_call.target + "\"";
  out += ")";
  if (parent_ != nullptr) out += " in computation '" + parent_->name() + "'";
  if (location_.known()) out += " at " + location_.ToString();
  return out;
}

bool Instruction::HasSideEffect() const {
  switch (opcode_) {
    case Opcode::kCustomCall:
      return custom_call.has_side_effect;
    case Opcode::kAfterAll:
      return false;
    case Opcode::kRng:
      // Each rng draws new numbers: two are never one.
      return true;
    default:
      return false;
  }
}

Instruction* Computation::AddInstruction(
    std::unique_ptr<Instruction> instruction) {
  instruction->parent_ = this;
  if (instruction->name().empty())
    instruction->set_name(std::string(OpcodeName(instruction->opcode())) + "." +
                          std::to_string(instructions_.size()));
  instructions_.push_back(std::move(instruction));
  return instructions_.back().get();
}

Instruction* Computation::AddInstruction(Opcode opcode, Shape shape,
                                         std::vector<Instruction*> operands,
                                         std::string name) {
  auto instruction = std::make_unique<Instruction>(opcode, std::move(shape));
  instruction->set_name(std::move(name));
  for (Instruction* operand : operands) instruction->AppendOperand(operand);
  return AddInstruction(std::move(instruction));
}

Instruction* Computation::InsertInstructionBefore(
    std::unique_ptr<Instruction> instruction, const Instruction* before) {
  auto at = std::find_if(instructions_.begin(), instructions_.end(),
                         [&](const std::unique_ptr<Instruction>& in) {
                           return in.get() == before;
                         });
  size_t position = static_cast<size_t>(at - instructions_.begin());
  Instruction* added = AddInstruction(std::move(instruction));
  std::rotate(instructions_.begin() + static_cast<std::ptrdiff_t>(position),
              instructions_.end() - 1, instructions_.end());
  return added;
}

std::vector<Instruction*> Computation::parameters() const {
  std::vector<Instruction*> params;
  for (const auto& instruction : instructions_)
    if (instruction->opcode() == Opcode::kParameter)
      params.push_back(instruction.get());
  std::stable_sort(params.begin(), params.end(),
                   [](const Instruction* a, const Instruction* b) {
                     return a->parameter_number < b->parameter_number;
                   });
  return params;
}

int64_t Computation::result_count() const {
  if (root_ == nullptr) return 0;
  return root_->shape().IsTuple() ? root_->shape().tuple_size() : 1;
}

int64_t Computation::num_parameters() const {
  return static_cast<int64_t>(
      std::count_if(instructions_.begin(), instructions_.end(),
                    [](const std::unique_ptr<Instruction>& i) {
                      return i->opcode() == Opcode::kParameter;
                    }));
}

Instruction* Computation::parameter(int64_t number) const {
  for (const auto& instruction : instructions_)
    if (instruction->opcode() == Opcode::kParameter &&
        instruction->parameter_number == number)
      return instruction.get();
  return nullptr;
}

Computation* Module::AddComputation(std::unique_ptr<Computation> computation) {
  computation->parent_ = this;
  computations_.push_back(std::move(computation));
  return computations_.back().get();
}

Computation* Module::FindComputation(std::string_view name) const {
  for (const auto& computation : computations_)
    if (computation->name() == name) return computation.get();
  return nullptr;
}

std::vector<std::unique_ptr<Computation>> Module::ReleaseComputations() {
  std::vector<std::unique_ptr<Computation>> released = std::move(computations_);
  computations_.clear();
  for (auto& computation : released) computation->parent_ = nullptr;
  entry_ = nullptr;
  return released;
}

Module Module::Clone() const {
  Module copy(name_);
  copy.set_op_spelling(op_spelling_);
  copy.set_num_partitions(num_partitions_);
  std::unordered_map<const Computation*, Computation*> computation_map;
  std::unordered_map<const Instruction*, Instruction*> instruction_map;
  for (const auto& computation : computations_) {
    auto clone = std::make_unique<Computation>(computation->name());
    computation_map[computation.get()] = clone.get();
    copy.AddComputation(std::move(clone));
  }
  for (const auto& computation : computations_) {
    Computation* target = computation_map[computation.get()];
    for (const auto& instruction : computation->instructions()) {
      auto clone = std::make_unique<Instruction>(*instruction);
      for (int64_t i = 0; i < clone->operand_count(); ++i)
        clone->ReplaceOperand(i, instruction_map.at(clone->operand(i)));
      for (size_t i = 0; i < clone->called_computations().size(); ++i)
        clone->ReplaceCalledComputation(
            i, computation_map.at(clone->called_computations()[i]));
      instruction_map[instruction.get()] =
          target->AddInstruction(std::move(clone));
    }
    if (computation->root() != nullptr)
      target->set_root(instruction_map.at(computation->root()));
    target->set_result_shardings(computation->result_shardings());
    target->set_result_names(computation->result_names());
  }
  if (entry_ != nullptr) copy.set_entry(computation_map.at(entry_));
  return copy;
}

}  // namespace xffi
