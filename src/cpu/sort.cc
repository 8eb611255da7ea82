// sort: every slice along the sort dimension gets a permutation, found by a
// stable sort of positions (std::stable_sort: a merge sort that stays in
// bounds even when a comparator region is not a strict weak order), then
// applied to every operand. When the comparator is one LT/GT compare of
// the same function of operand 0's two parameters (the plain comparator, or
// JAX's float comparator that canonicalises -0 and NaN first), positions are
// sorted by typed keys computed once per element; otherwise
// the region decides each comparison, evaluated as a ScalarProgram when it
// compiles to one and through the RegionRunner when not.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cpu/index_util.h"
#include "cpu/region_util.h"
#include "cpu/structural_kernels.h"
#include "cpu/total_order.h"

namespace xffi::cpu {
namespace {

struct SortPlan {
  size_t n = 1;  // operands
  std::vector<ElementType> types;
  std::vector<size_t> sizes;
  int64_t length = 0;                 // along the sort dimension
  int64_t stride = 0;                 // elements between neighbours along it
  std::vector<int64_t> slice_starts;  // element offset of each slice
  const Computation* region = nullptr;
  std::optional<ScalarProgram> program;  // the comparator, when it compiles
};

void ApplyPermutation(const SortPlan& plan, const KernelArgs& args,
                      int64_t start, const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < plan.n; ++i) {
    const size_t e = plan.sizes[i];
    const char* src = static_cast<const char*>(args.operands[i].data);
    char* dst = static_cast<char*>(args.results[i].data);
    const int64_t step = plan.stride * static_cast<int64_t>(e);
    const int64_t base = start * static_cast<int64_t>(e);
    if (src == dst) {
      // In place: gather the slice first.
      std::vector<char> copy(static_cast<size_t>(plan.length) * e);
      for (int64_t j = 0; j < plan.length; ++j)
        std::memcpy(copy.data() + j * static_cast<int64_t>(e),
                    src + base + j * step, e);
      for (int64_t j = 0; j < plan.length; ++j)
        std::memcpy(dst + base + j * step,
                    copy.data() +
                        perm[static_cast<size_t>(j)] * static_cast<int64_t>(e),
                    e);
    } else {
      for (int64_t j = 0; j < plan.length; ++j)
        std::memcpy(dst + base + j * step,
                    src + base + perm[static_cast<size_t>(j)] * step, e);
    }
  }
}

// Sorts by typed keys of operand 0: `key(value)` maps an element's key
// value (the element itself, or what `key_program` computes from it) to a
// totally ordered key; `descending` for GT.
template <typename T, typename Key>
Kernel KeySort(SortPlan plan, bool descending, Key key,
               std::optional<ScalarProgram> key_program = std::nullopt) {
  return [plan = std::move(plan), descending, key,
          key_program = std::move(key_program)](const KernelArgs& args) {
    const char* data = static_cast<const char*>(args.operands[0].data);
    const int64_t element_size = static_cast<int64_t>(plan.sizes[0]);
    using K = decltype(key(T{}));
    std::vector<std::pair<K, int64_t>> items(static_cast<size_t>(plan.length));
    std::vector<int64_t> perm(static_cast<size_t>(plan.length));
    std::vector<ScalarValue> registers;
    std::vector<const void*> parameters;
    if (key_program) {
      registers.resize(key_program->num_registers());
      parameters.resize(key_program->num_parameters());
    }
    for (int64_t start : plan.slice_starts) {
      for (int64_t j = 0; j < plan.length; ++j) {
        const char* element = data + (start + j * plan.stride) * element_size;
        T value{};
        if (key_program) {
          // The program reads parameter 0 only.
          std::fill(parameters.begin(), parameters.end(), element);
          void* out = &value;
          key_program->Run(parameters.data(), &out, registers.data());
        } else {
          std::memcpy(&value, element, sizeof(T));
        }
        items[static_cast<size_t>(j)] = {key(value), j};
      }
      if (descending)
        std::stable_sort(
            items.begin(), items.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
      else
        std::stable_sort(
            items.begin(), items.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t j = 0; j < items.size(); ++j) perm[j] = items[j].second;
      ApplyPermutation(plan, args, start, perm);
    }
    return Status::Ok();
  };
}

// Sorts with the compiled comparator.
void RunProgramSort(const SortPlan& plan, const KernelArgs& args) {
  const size_t n = plan.n;
  std::vector<ScalarValue> registers(plan.program->num_registers());
  std::vector<const void*> parameters(2 * n);
  std::vector<int64_t> perm(static_cast<size_t>(plan.length));
  for (int64_t start : plan.slice_starts) {
    for (int64_t j = 0; j < plan.length; ++j) perm[static_cast<size_t>(j)] = j;
    auto element = [&](size_t i, int64_t j) {
      return static_cast<const char*>(args.operands[i].data) +
             (start + j * plan.stride) * static_cast<int64_t>(plan.sizes[i]);
    };
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      for (size_t i = 0; i < n; ++i) {
        parameters[2 * i] = element(i, a);
        parameters[2 * i + 1] = element(i, b);
      }
      return plan.program->RunPredicate(parameters.data(), registers.data());
    });
    ApplyPermutation(plan, args, start, perm);
  }
}

Status RunRegionSort(const SortPlan& plan, const KernelArgs& args,
                     const std::string& name) {
  if (plan.program) {
    RunProgramSort(plan, args);
    return Status::Ok();
  }
  if (args.regions == nullptr)
    return Internal("op '" + name + "' (sort): no region runner");
  const size_t n = plan.n;
  std::vector<Shape> shapes;
  for (ElementType t : plan.types) shapes.push_back(Shape::Scalar(t));
  Shape pred = Shape::Scalar(ElementType::kPred);
  std::vector<ArrayView> arguments(2 * n);
  for (size_t i = 0; i < n; ++i) {
    arguments[2 * i].shape = &shapes[i];
    arguments[2 * i + 1].shape = &shapes[i];
  }
  uint8_t less = 0;
  ArrayView result{&pred, &less};
  std::vector<int64_t> perm(static_cast<size_t>(plan.length));
  Status status;
  for (int64_t start : plan.slice_starts) {
    for (int64_t j = 0; j < plan.length; ++j) perm[static_cast<size_t>(j)] = j;
    auto element = [&](size_t i, int64_t j) {
      return static_cast<char*>(const_cast<void*>(args.operands[i].data)) +
             (start + j * plan.stride) * static_cast<int64_t>(plan.sizes[i]);
    };
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      if (!status.ok()) return false;
      for (size_t i = 0; i < n; ++i) {
        arguments[2 * i].data = element(i, a);
        arguments[2 * i + 1].data = element(i, b);
      }
      status = args.regions->Run(*plan.region, arguments,
                                 std::span<const ArrayView>(&result, 1));
      return status.ok() && less != 0;
    });
    if (!status.ok()) return status;
    ApplyPermutation(plan, args, start, perm);
  }
  return Status::Ok();
}

// Whether `a` computes from `pa` what `b` computes from `pb`: the same ops
// with the same attributes and constants, and no other parameter.
bool SameExpression(const Instruction* a, const Instruction* b,
                    const Instruction* pa, const Instruction* pb) {
  if (a == pa || b == pb) return a == pa && b == pb;
  if (a == b) return a->opcode() == Opcode::kConstant;
  if (a->opcode() != b->opcode() || a->shape() != b->shape() ||
      a->operand_count() != b->operand_count() ||
      !a->called_computations().empty() || !b->called_computations().empty())
    return false;
  switch (a->opcode()) {
    case Opcode::kParameter:
      return false;
    case Opcode::kConstant:
      return a->literal.shape() == b->literal.shape() &&
             a->literal.size_bytes() == b->literal.size_bytes() &&
             std::memcmp(a->literal.data(), b->literal.data(),
                         a->literal.size_bytes()) == 0;
    case Opcode::kCompare:
      if (a->comparison_direction != b->comparison_direction ||
          a->comparison_type != b->comparison_type)
        return false;
      break;
    default:
      // Ops with other attributes never compile to a ScalarProgram, which
      // the key path needs anyway.
      break;
  }
  for (int64_t i = 0; i < a->operand_count(); ++i)
    if (!SameExpression(a->operand(i), b->operand(i), pa, pb)) return false;
  return true;
}

// A comparator `compare(f(p0), f(p1))` with LT or GT: f is the sort key of
// operand 0 (f(x) = x for the plain comparator; JAX's float comparator maps
// -0 to +0 and NaNs to one NaN first).
struct KeyComparator {
  const Instruction* key;      // f(p0)
  const Instruction* compare;  // the root
  bool descending;
};

std::optional<KeyComparator> MatchKeyComparator(const Computation* region) {
  const Instruction* root = region->root();
  const Instruction* p0 = region->parameter(0);
  const Instruction* p1 = region->parameter(1);
  if (root == nullptr || p0 == nullptr || p1 == nullptr ||
      root->opcode() != Opcode::kCompare || root->operand_count() != 2)
    return std::nullopt;
  const ComparisonDirection d = root->comparison_direction;
  if (d != ComparisonDirection::kLt && d != ComparisonDirection::kGt)
    return std::nullopt;
  const bool gt = d == ComparisonDirection::kGt;
  const Instruction* lhs = root->operand(0);
  const Instruction* rhs = root->operand(1);
  if (SameExpression(lhs, rhs, p0, p1)) return KeyComparator{lhs, root, gt};
  // compare(f(p1), f(p0)) orders the other way round.
  if (SameExpression(rhs, lhs, p0, p1)) return KeyComparator{rhs, root, !gt};
  return std::nullopt;
}

// Whether the compare's type means the natural order of `type` (a SIGNED
// compare of unsigned values, say, reinterprets them: left to the region).
bool NaturalComparison(ComparisonType ct, ElementType type) {
  if (type == ElementType::kF32 || type == ElementType::kF64)
    return ct == ComparisonType::kDefault || ct == ComparisonType::kFloat ||
           ct == ComparisonType::kTotalOrder;
  if (ct == ComparisonType::kFloat || ct == ComparisonType::kTotalOrder)
    return false;
  if (ct == ComparisonType::kSigned) return IsSignedIntegralType(type);
  if (ct == ComparisonType::kUnsigned) return !IsSignedIntegralType(type);
  return true;
}

// The key sort for `comparator`, or nullopt when its key type or compare
// is one the key sort does not reproduce.
std::optional<Kernel> MakeKeySort(const SortPlan& plan,
                                  const KeyComparator& comparator) {
  const Instruction* p0 = plan.region->parameter(0);
  const ElementType key_type = comparator.key->shape().element_type();
  const ComparisonType ct = comparator.compare->comparison_type;
  if (!comparator.key->shape().IsArray() ||
      comparator.key->shape().rank() != 0 || !NaturalComparison(ct, key_type) ||
      key_type == ElementType::kPred)
    return std::nullopt;
  std::optional<ScalarProgram> program;
  if (comparator.key != p0) {
    program = ScalarProgram::Compile(*plan.region, comparator.key);
    if (!program) return std::nullopt;
  }
  // Without a program the key is the element itself, so T is operand 0's
  // type; with one, the program's result type.
  if (program == std::nullopt && key_type != plan.types[0]) return std::nullopt;
  const bool descending = comparator.descending;
  if (key_type == ElementType::kF32 || key_type == ElementType::kF64) {
    const bool total = ct == ComparisonType::kTotalOrder;
    if (key_type == ElementType::kF32)
      return total ? KeySort<float>(
                         plan, descending,
                         [](float v) { return TotalOrderKey(v); }, program)
                   : KeySort<float>(
                         plan, descending, [](float v) { return v; }, program);
    return total ? KeySort<double>(
                       plan, descending,
                       [](double v) { return TotalOrderKey(v); }, program)
                 : KeySort<double>(
                       plan, descending, [](double v) { return v; }, program);
  }
  std::optional<Kernel> kernel;
  DispatchFastType(key_type, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>)
      kernel = KeySort<T>(
          plan, descending, [](T v) { return v; }, program);
  });
  return kernel;
}

}  // namespace

StatusOr<Kernel> MakeSortKernel(const Instruction& inst) {
  auto fail = [&](const std::string& what) -> Status {
    return InvalidArgument("op " + inst.Describe() + ": " + what);
  };
  if (inst.operand_count() == 0) return fail("expects operands");
  if (inst.called_computations().size() != 1)
    return fail("expects one comparator");
  SortPlan plan;
  plan.n = static_cast<size_t>(inst.operand_count());
  plan.region = inst.called_computations()[0];
  const Shape& first = inst.operand(0)->shape();
  if (!first.IsArray()) return fail("operand 0 is not an array");
  std::vector<const Shape*> results;
  if (inst.shape().IsTuple())
    for (const Shape& s : inst.shape().tuple_shapes()) results.push_back(&s);
  else
    results.push_back(&inst.shape());
  if (results.size() != plan.n)
    return fail("result count differs from operands");
  std::vector<ElementType> params;
  for (size_t i = 0; i < plan.n; ++i) {
    const Shape& s = inst.operand(static_cast<int64_t>(i))->shape();
    if (!s.IsArray() || s.dims() != first.dims() || !results[i]->IsArray() ||
        results[i]->dims() != first.dims() ||
        results[i]->element_type() != s.element_type())
      return fail("operand " + std::to_string(i) +
                  " or its result does not match operand 0's dims");
    plan.types.push_back(s.element_type());
    plan.sizes.push_back(ElementByteSize(s.element_type()));
    params.push_back(s.element_type());
    params.push_back(s.element_type());
  }
  if (Status s =
          CheckScalarRegion(inst, plan.region, params, {ElementType::kPred});
      !s.ok())
    return s;
  const int64_t dim =
      inst.dimensions.empty() ? first.rank() - 1 : inst.dimensions[0];
  if (first.rank() == 0 || dim < 0 || dim >= first.rank())
    return fail("bad sort dimension " + std::to_string(dim));
  const std::vector<int64_t> strides = RowMajorStrides(first.dims());
  plan.length = first.dim(dim);
  plan.stride = strides[static_cast<size_t>(dim)];
  std::vector<int64_t> outer_dims = first.dims();
  outer_dims[static_cast<size_t>(dim)] = 1;
  if (Product(outer_dims) > 0 && plan.length > 0) {
    std::vector<int64_t> index(outer_dims.size(), 0);
    do {
      int64_t off = 0;
      for (size_t d = 0; d < index.size(); ++d) off += index[d] * strides[d];
      plan.slice_starts.push_back(off);
    } while (NextIndex(index, outer_dims));
  }

  if (std::optional<KeyComparator> comparator =
          MatchKeyComparator(plan.region)) {
    std::optional<Kernel> kernel = MakeKeySort(plan, *comparator);
    if (kernel) return std::move(*kernel);
  }
  plan.program = ScalarProgram::Compile(*plan.region);
  return Kernel(
      [plan = std::move(plan), name = inst.name()](const KernelArgs& args) {
        return RunRegionSort(plan, args, name);
      });
}

}  // namespace xffi::cpu
