// sort: every slice along the sort dimension gets a permutation, found by a
// stable sort of positions (std::stable_sort: a merge sort that stays in
// bounds even when a comparator region is not a strict weak order), then
// applied to every operand. When the comparator is one LT/GT compare of
// operand 0's two parameters, positions are sorted by typed keys; otherwise
// the region decides each comparison, evaluated as a ScalarProgram when it
// compiles to one and through the RegionRunner when not.
#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cpu/index_util.h"
#include "cpu/region_util.h"
#include "cpu/structural_kernels.h"

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

// Float keys under TOTALORDER: -NaN < -inf < ... < -0 < +0 < ... < inf < NaN.
template <typename F>
auto TotalOrderKey(F value) {
  using I = std::conditional_t<sizeof(F) == 4, int32_t, int64_t>;
  using U = std::make_unsigned_t<I>;
  I bits = std::bit_cast<I>(value);
  // Negative floats order backwards as integers: flip their magnitude bits.
  return bits < 0
             ? static_cast<I>(static_cast<U>(bits) ^ (static_cast<U>(-1) >> 1))
             : bits;
}

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

// Sorts by typed keys of operand 0. `key(value)` maps an element to a
// totally ordered key; `descending` for GT.
template <typename T, typename Key>
Kernel KeySort(SortPlan plan, bool descending, Key key) {
  return [plan = std::move(plan), descending, key](const KernelArgs& args) {
    const T* data = static_cast<const T*>(args.operands[0].data);
    using K = decltype(key(T{}));
    std::vector<std::pair<K, int64_t>> items(static_cast<size_t>(plan.length));
    std::vector<int64_t> perm(static_cast<size_t>(plan.length));
    for (int64_t start : plan.slice_starts) {
      for (int64_t j = 0; j < plan.length; ++j)
        items[static_cast<size_t>(j)] = {key(data[start + j * plan.stride]), j};
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

// The direction when the comparator is `compare(p0, p1)` (or the swapped
// `compare(p1, p0)`) with LT/GT and a type the key sort reproduces.
std::optional<bool> MatchSimpleComparator(const Computation* region,
                                          ElementType type) {
  const Instruction* root = region->root();
  if (root == nullptr || root->opcode() != Opcode::kCompare ||
      root->operand_count() != 2)
    return std::nullopt;
  const Instruction* p0 = region->parameter(0);
  const Instruction* p1 = region->parameter(1);
  bool swapped;
  if (root->operand(0) == p0 && root->operand(1) == p1)
    swapped = false;
  else if (root->operand(0) == p1 && root->operand(1) == p0)
    swapped = true;
  else
    return std::nullopt;
  bool descending;
  if (root->comparison_direction == ComparisonDirection::kLt)
    descending = false;
  else if (root->comparison_direction == ComparisonDirection::kGt)
    descending = true;
  else
    return std::nullopt;
  const ComparisonType ct = root->comparison_type;
  const bool is_float = type == ElementType::kF32 || type == ElementType::kF64;
  if (is_float) {
    if (ct != ComparisonType::kDefault && ct != ComparisonType::kFloat &&
        ct != ComparisonType::kTotalOrder)
      return std::nullopt;
  } else if (ct == ComparisonType::kFloat ||
             ct == ComparisonType::kTotalOrder ||
             (ct == ComparisonType::kSigned && IsUnsignedIntegralType(type)) ||
             (ct == ComparisonType::kUnsigned && IsSignedIntegralType(type))) {
    return std::nullopt;
  }
  return swapped ? !descending : descending;
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

  const ElementType key_type = plan.types[0];
  std::optional<bool> descending = MatchSimpleComparator(plan.region, key_type);
  const ComparisonType ct = plan.region->root()->comparison_type;
  if (descending) {
    if (key_type == ElementType::kF32 || key_type == ElementType::kF64) {
      const bool total = ct == ComparisonType::kTotalOrder;
      if (key_type == ElementType::kF32)
        return total ? KeySort<float>(plan, *descending,
                                      [](float v) { return TotalOrderKey(v); })
                     : KeySort<float>(plan, *descending,
                                      [](float v) { return v; });
      return total ? KeySort<double>(plan, *descending,
                                     [](double v) { return TotalOrderKey(v); })
                   : KeySort<double>(plan, *descending,
                                     [](double v) { return v; });
    }
    std::optional<Kernel> kernel;
    if (key_type != ElementType::kPred)
      DispatchFastType(key_type, [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_integral_v<T>)
          kernel = KeySort<T>(plan, *descending, [](T v) { return v; });
      });
    if (kernel) return std::move(*kernel);
  }
  plan.program = ScalarProgram::Compile(*plan.region);
  return Kernel(
      [plan = std::move(plan), name = inst.name()](const KernelArgs& args) {
        return RunRegionSort(plan, args, name);
      });
}

}  // namespace xffi::cpu
