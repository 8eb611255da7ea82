#include "cpu/scalar_program.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "cpu/float_max_min.h"
#include "cpu/total_order.h"
#include "ir/compare_values.h"

namespace xffi::cpu {
namespace {

using Kind = ScalarProgram::Kind;
using Op = ScalarProgram::Op;
using Step = ScalarProgram::Step;

// The kind and integer width a type is held as; false for types the
// evaluator does not cover (narrow floats, complex, sub-byte integers).
bool KindOf(ElementType type, Kind& kind, uint8_t& bits) {
  switch (type) {
    case ElementType::kF32:
      kind = Kind::kF32;
      bits = 32;
      return true;
    case ElementType::kF64:
      kind = Kind::kF64;
      bits = 64;
      return true;
    case ElementType::kPred:
      kind = Kind::kPred;
      bits = 1;
      return true;
    case ElementType::kS8:
    case ElementType::kS16:
    case ElementType::kS32:
    case ElementType::kS64:
      kind = Kind::kSigned;
      bits = static_cast<uint8_t>(ElementByteSize(type) * 8);
      return true;
    case ElementType::kU8:
    case ElementType::kU16:
    case ElementType::kU32:
    case ElementType::kU64:
      kind = Kind::kUnsigned;
      bits = static_cast<uint8_t>(ElementByteSize(type) * 8);
      return true;
    default:
      return false;
  }
}

bool IsScalar(const Shape& shape) {
  return shape.IsArray() && shape.rank() == 0;
}

// Integers wrap to their width, as XLA's do.
inline int64_t Wrap(uint64_t v, Kind kind, uint8_t bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  v &= mask;
  if (kind == Kind::kSigned && (v >> (bits - 1)) != 0) v |= ~mask;
  return static_cast<int64_t>(v);
}

ScalarValue Load(const void* p, ElementType type) {
  ScalarValue v{};
  switch (type) {
    case ElementType::kF32:
      std::memcpy(&v.f32, p, 4);
      return v;
    case ElementType::kF64:
      std::memcpy(&v.f64, p, 8);
      return v;
    case ElementType::kPred:
      v.i = *static_cast<const uint8_t*>(p) != 0;
      return v;
    case ElementType::kS8:
      v.i = *static_cast<const int8_t*>(p);
      return v;
    case ElementType::kS16: {
      int16_t x;
      std::memcpy(&x, p, 2);
      v.i = x;
      return v;
    }
    case ElementType::kS32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      v.i = x;
      return v;
    }
    case ElementType::kU8:
      v.i = *static_cast<const uint8_t*>(p);
      return v;
    case ElementType::kU16: {
      uint16_t x;
      std::memcpy(&x, p, 2);
      v.i = x;
      return v;
    }
    case ElementType::kU32: {
      uint32_t x;
      std::memcpy(&x, p, 4);
      v.i = x;
      return v;
    }
    default:  // s64, u64
      std::memcpy(&v.i, p, 8);
      return v;
  }
}

void Store(void* p, ElementType type, ScalarValue v) {
  switch (type) {
    case ElementType::kF32:
      std::memcpy(p, &v.f32, 4);
      return;
    case ElementType::kF64:
      std::memcpy(p, &v.f64, 8);
      return;
    default: {
      // Little-endian: the low bytes of the normalised integer. Fixed
      // sizes, so each copy is one store rather than calls (a loop
      // counter's update is stored once per iteration).
      switch (type) {
        case ElementType::kPred:
        case ElementType::kS8:
        case ElementType::kU8:
          std::memcpy(p, &v.i, 1);
          return;
        case ElementType::kS16:
        case ElementType::kU16:
          std::memcpy(p, &v.i, 2);
          return;
        case ElementType::kS32:
        case ElementType::kU32:
          std::memcpy(p, &v.i, 4);
          return;
        default:  // s64, u64
          std::memcpy(p, &v.i, 8);
          return;
      }
    }
  }
}

// XLA's float-to-integer conversion: NaN is 0, out-of-range values saturate.
template <typename F>
int64_t FloatToInt(F v, Kind kind, uint8_t bits) {
  if (std::isnan(v)) return 0;
  if (kind == Kind::kUnsigned) {
    if (v <= 0) return 0;
    const long double max =
        bits >= 64 ? 18446744073709551615.0L
                   : static_cast<long double>((uint64_t{1} << bits) - 1);
    if (static_cast<long double>(v) >= max)
      return static_cast<int64_t>(bits >= 64 ? ~uint64_t{0}
                                             : (uint64_t{1} << bits) - 1);
    return static_cast<int64_t>(static_cast<uint64_t>(v));
  }
  const int64_t max = bits >= 64 ? std::numeric_limits<int64_t>::max()
                                 : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  if (static_cast<long double>(v) >= static_cast<long double>(max)) return max;
  if (static_cast<long double>(v) <= static_cast<long double>(min)) return min;
  return static_cast<int64_t>(v);
}

ScalarValue Convert(ScalarValue v, Kind from, Kind to, uint8_t bits) {
  ScalarValue r{};
  const bool from_float = from == Kind::kF32 || from == Kind::kF64;
  const double as_double = from == Kind::kF32   ? static_cast<double>(v.f32)
                           : from == Kind::kF64 ? v.f64
                           : from == Kind::kUnsigned
                               ? static_cast<double>(static_cast<uint64_t>(v.i))
                               : static_cast<double>(v.i);
  switch (to) {
    case Kind::kF32:
      if (from == Kind::kF64)
        r.f32 = static_cast<float>(v.f64);
      else if (from == Kind::kF32)
        r.f32 = v.f32;
      else if (from == Kind::kUnsigned)
        r.f32 = static_cast<float>(static_cast<uint64_t>(v.i));
      else
        r.f32 = static_cast<float>(v.i);
      return r;
    case Kind::kF64:
      r.f64 = as_double;
      return r;
    case Kind::kPred:
      r.i = from == Kind::kF32   ? (v.f32 != 0)
            : from == Kind::kF64 ? (v.f64 != 0)
                                 : (v.i != 0);
      return r;
    case Kind::kSigned:
    case Kind::kUnsigned:
      if (from_float)
        r.i = from == Kind::kF32 ? FloatToInt(v.f32, to, bits)
                                 : FloatToInt(v.f64, to, bits);
      else
        r.i = Wrap(static_cast<uint64_t>(v.i), to, bits);
      return r;
  }
  return r;
}

}  // namespace

std::optional<ScalarProgram> ScalarProgram::Compile(const Computation& region) {
  return Compile(region, region.root());
}

std::optional<ScalarProgram> ScalarProgram::Compile(const Computation& region,
                                                    const Instruction* root) {
  ScalarProgram program;
  if (root == nullptr || root->parent() != &region) return std::nullopt;
  // What `root` uses; instructions come operands first, so one backward
  // sweep finds them all.
  std::unordered_set<const Instruction*> used = {root};
  const auto& instructions = region.instructions();
  for (auto it = instructions.rbegin(); it != instructions.rend(); ++it)
    if (used.count(it->get()) != 0)
      for (const Instruction* o : (*it)->operands()) used.insert(o);
  const int64_t num_parameters = region.num_parameters();
  for (int64_t i = 0; i < num_parameters; ++i) {
    const Instruction* p = region.parameter(i);
    Kind kind;
    uint8_t bits;
    if (p == nullptr) return std::nullopt;
    if (used.count(p) != 0 && (!IsScalar(p->shape()) ||
                               !KindOf(p->shape().element_type(), kind, bits)))
      return std::nullopt;
    program.parameter_types_.push_back(p->shape().element_type());
  }
  std::unordered_map<const Instruction*, uint32_t> reg;
  for (const auto& owned : instructions) {
    const Instruction* inst = owned.get();
    if (used.count(inst) == 0) continue;
    if (inst->opcode() == Opcode::kTuple) {
      if (inst != root) return std::nullopt;
      continue;
    }
    Step step{};
    if (!IsScalar(inst->shape()) ||
        !KindOf(inst->shape().element_type(), step.kind, step.bits))
      return std::nullopt;
    auto operand = [&](int64_t i, uint32_t& out) {
      if (i >= inst->operand_count()) return false;
      auto it = reg.find(inst->operand(i));
      if (it == reg.end()) return false;
      out = it->second;
      return true;
    };
    auto operands = [&](int64_t count) {
      if (inst->operand_count() != count) return false;
      return (count < 1 || operand(0, step.a)) &&
             (count < 2 || operand(1, step.b)) &&
             (count < 3 || operand(2, step.c));
    };
    const ElementType type = inst->shape().element_type();
    const bool is_float = step.kind == Kind::kF32 || step.kind == Kind::kF64;
    bool ok = true;
    switch (inst->opcode()) {
      case Opcode::kParameter:
        step.op = Op::kLoad;
        step.a = static_cast<uint32_t>(inst->parameter_number);
        step.type = type;
        break;
      case Opcode::kConstant:
        if (inst->literal.shape() != inst->shape()) return std::nullopt;
        step.op = Op::kConstant;
        step.constant = Load(inst->literal.data(), type);
        break;
      case Opcode::kAdd:
        step.op = Op::kAdd;
        ok = operands(2) && step.kind != Kind::kPred;
        break;
      case Opcode::kSubtract:
        step.op = Op::kSubtract;
        ok = operands(2) && step.kind != Kind::kPred;
        break;
      case Opcode::kMultiply:
        step.op = Op::kMultiply;
        ok = operands(2) && step.kind != Kind::kPred;
        break;
      case Opcode::kDivide:
        step.op = Op::kDivide;
        ok = operands(2) && is_float;
        break;
      case Opcode::kMaximum:
        step.op = Op::kMaximum;
        ok = operands(2);
        break;
      case Opcode::kMinimum:
        step.op = Op::kMinimum;
        ok = operands(2);
        break;
      case Opcode::kAnd:
        step.op = Op::kAnd;
        ok = operands(2) && !is_float;
        break;
      case Opcode::kOr:
        step.op = Op::kOr;
        ok = operands(2) && !is_float;
        break;
      case Opcode::kXor:
        step.op = Op::kXor;
        ok = operands(2) && !is_float;
        break;
      case Opcode::kNot:
        step.op = Op::kNot;
        ok = operands(1) && !is_float;
        break;
      case Opcode::kNegate:
        step.op = Op::kNegate;
        ok = operands(1) && step.kind != Kind::kPred;
        break;
      case Opcode::kAbs:
        step.op = Op::kAbs;
        ok = operands(1) && step.kind != Kind::kPred;
        break;
      case Opcode::kSelect:
        step.op = Op::kSelect;
        ok = operands(3) &&
             inst->operand(0)->shape().element_type() == ElementType::kPred;
        break;
      case Opcode::kCompare: {
        step.op = Op::kCompare;
        if (!operands(2)) return std::nullopt;
        const ElementType t = inst->operand(0)->shape().element_type();
        uint8_t bits;
        if (!KindOf(t, step.kind, bits) ||
            inst->operand(1)->shape().element_type() != t)
          return std::nullopt;
        step.direction = inst->comparison_direction;
        const ComparisonType ct = inst->comparison_type;
        const bool float_operands =
            step.kind == Kind::kF32 || step.kind == Kind::kF64;
        if (float_operands) {
          ok = ct == ComparisonType::kDefault || ct == ComparisonType::kFloat ||
               ct == ComparisonType::kTotalOrder;
          step.total_order = ct == ComparisonType::kTotalOrder;
        } else {
          // A signedness the type does not have would reinterpret bits;
          // leave that to the general path.
          ok = ct == ComparisonType::kDefault ||
               (ct == ComparisonType::kSigned && step.kind == Kind::kSigned) ||
               (ct == ComparisonType::kUnsigned && step.kind != Kind::kSigned);
        }
        break;
      }
      case Opcode::kConvert: {
        step.op = Op::kConvert;
        if (!operands(1)) return std::nullopt;
        uint8_t bits;
        ok = KindOf(inst->operand(0)->shape().element_type(), step.from, bits);
        break;
      }
      default:
        ok = false;
    }
    if (!ok) return std::nullopt;
    step.dst = static_cast<uint32_t>(program.steps_.size());
    reg[inst] = step.dst;
    program.steps_.push_back(step);
  }
  program.num_registers_ = program.steps_.size();
  for (const Step& step : program.steps_)
    if (step.op != Op::kConstant) program.variable_steps_.push_back(step);
  std::vector<const Instruction*> leaves;
  if (root->opcode() == Opcode::kTuple)
    for (const Instruction* o : root->operands()) leaves.push_back(o);
  else
    leaves.push_back(root);
  for (const Instruction* leaf : leaves) {
    auto it = reg.find(leaf);
    if (it == reg.end()) return std::nullopt;
    program.results_.push_back({it->second, leaf->shape().element_type()});
  }
  return program;
}

void ScalarProgram::Run(const void* const* parameters, void* const* results,
                        ScalarValue* registers) const {
  Execute(steps_, parameters, results, registers);
}

void ScalarProgram::PrepareRegisters(ScalarValue* registers) const {
  for (const Step& s : steps_)
    if (s.op == Op::kConstant) registers[s.dst] = s.constant;
}

void ScalarProgram::RunPrepared(const void* const* parameters,
                                void* const* results,
                                ScalarValue* registers) const {
  Execute(variable_steps_, parameters, results, registers);
}

bool ScalarProgram::RunPredicatePrepared(const void* const* parameters,
                                         ScalarValue* registers) const {
  return PredicateOf(variable_steps_, parameters, registers);
}

bool ScalarProgram::PredicateOf(const std::vector<Step>& steps,
                                const void* const* parameters,
                                ScalarValue* registers) const {
  uint8_t result = 0;
  void* out = &result;
  Execute(steps, parameters, &out, registers);
  return result != 0;
}

void ScalarProgram::Execute(const std::vector<Step>& steps,
                            const void* const* parameters, void* const* results,
                            ScalarValue* r) const {
  for (const Step& s : steps) {
    ScalarValue v{};
    // Results are stored only after the last step, so every parameter is
    // read before any result is written.
    const ScalarValue& a = r[s.a];
    switch (s.op) {
      case Op::kLoad:
        v = Load(parameters[s.a], s.type);
        break;
      case Op::kConstant:
        v = s.constant;
        break;
      case Op::kAdd:
      case Op::kSubtract:
      case Op::kMultiply:
      case Op::kDivide: {
        const ScalarValue b = r[s.b];
        if (s.kind == Kind::kF32) {
          v.f32 = s.op == Op::kAdd        ? a.f32 + b.f32
                  : s.op == Op::kSubtract ? a.f32 - b.f32
                  : s.op == Op::kMultiply ? a.f32 * b.f32
                                          : a.f32 / b.f32;
        } else if (s.kind == Kind::kF64) {
          v.f64 = s.op == Op::kAdd        ? a.f64 + b.f64
                  : s.op == Op::kSubtract ? a.f64 - b.f64
                  : s.op == Op::kMultiply ? a.f64 * b.f64
                                          : a.f64 / b.f64;
        } else {
          const uint64_t x = static_cast<uint64_t>(a.i);
          const uint64_t y = static_cast<uint64_t>(b.i);
          v.i = Wrap(s.op == Op::kAdd        ? x + y
                     : s.op == Op::kSubtract ? x - y
                                             : x * y,
                     s.kind, s.bits);
        }
        break;
      }
      case Op::kMaximum:
      case Op::kMinimum: {
        const ScalarValue b = r[s.b];
        const bool max = s.op == Op::kMaximum;
        if (s.kind == Kind::kF32) {
          v.f32 = max ? XlaFloatMax(a.f32, b.f32) : XlaFloatMin(a.f32, b.f32);
        } else if (s.kind == Kind::kF64) {
          v.f64 = max ? XlaFloatMax(a.f64, b.f64) : XlaFloatMin(a.f64, b.f64);
        } else if (s.kind == Kind::kSigned) {
          v.i = max ? std::max(a.i, b.i) : std::min(a.i, b.i);
        } else {
          const uint64_t x = static_cast<uint64_t>(a.i);
          const uint64_t y = static_cast<uint64_t>(b.i);
          v.i = static_cast<int64_t>(max ? std::max(x, y) : std::min(x, y));
        }
        break;
      }
      case Op::kAnd:
        v.i = a.i & r[s.b].i;
        break;
      case Op::kOr:
        v.i = a.i | r[s.b].i;
        break;
      case Op::kXor:
        v.i = a.i ^ r[s.b].i;
        break;
      case Op::kNot:
        v.i = s.kind == Kind::kPred ? (a.i == 0)
                                    : Wrap(~uint64_t(a.i), s.kind, s.bits);
        break;
      case Op::kNegate:
        if (s.kind == Kind::kF32)
          v.f32 = -a.f32;
        else if (s.kind == Kind::kF64)
          v.f64 = -a.f64;
        else
          v.i = Wrap(uint64_t{0} - static_cast<uint64_t>(a.i), s.kind, s.bits);
        break;
      case Op::kAbs:
        if (s.kind == Kind::kF32)
          v.f32 = std::fabs(a.f32);
        else if (s.kind == Kind::kF64)
          v.f64 = std::fabs(a.f64);
        else if (s.kind == Kind::kSigned && a.i < 0)
          v.i = Wrap(uint64_t{0} - static_cast<uint64_t>(a.i), s.kind, s.bits);
        else
          v = a;
        break;
      case Op::kCompare: {
        const ScalarValue b = r[s.b];
        bool c;
        if (s.kind == Kind::kF32)
          c = s.total_order ? CompareValues(s.direction, TotalOrderKey(a.f32),
                                            TotalOrderKey(b.f32))
                            : CompareValues(s.direction, a.f32, b.f32);
        else if (s.kind == Kind::kF64)
          c = s.total_order ? CompareValues(s.direction, TotalOrderKey(a.f64),
                                            TotalOrderKey(b.f64))
                            : CompareValues(s.direction, a.f64, b.f64);
        else if (s.kind == Kind::kSigned)
          c = CompareValues(s.direction, a.i, b.i);
        else
          c = CompareValues(s.direction, static_cast<uint64_t>(a.i),
                            static_cast<uint64_t>(b.i));
        v.i = c;
        break;
      }
      case Op::kSelect:
        v = a.i != 0 ? r[s.b] : r[s.c];
        break;
      case Op::kConvert:
        v = Convert(a, s.from, s.kind, s.bits);
        break;
    }
    r[s.dst] = v;
  }
  for (size_t i = 0; i < results_.size(); ++i)
    Store(results[i], results_[i].type, r[results_[i].reg]);
}

bool ScalarProgram::RunPredicate(const void* const* parameters,
                                 ScalarValue* registers) const {
  return PredicateOf(steps_, parameters, registers);
}

}  // namespace xffi::cpu
