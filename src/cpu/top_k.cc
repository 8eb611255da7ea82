// topk: the k largest (or smallest) elements of every row along the last
// dimension, sorted, with their indices. The order is XLA's: a stable sort
// by a GT (LT) compare in the total order, so NaN is the largest value, +0
// ranks above -0 and equal values keep their order.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cpu/element_traits.h"
#include "cpu/structural_kernels.h"
#include "cpu/total_order.h"

namespace xffi::cpu {
namespace {

template <typename Tr>
auto RankKey(typename Tr::Storage s) {
  if constexpr (Tr::kIsFloat) {
    if constexpr (sizeof(typename Tr::Value) == 8)
      return TotalOrderKey(static_cast<double>(Tr::Load(s)));
    else
      return static_cast<int64_t>(
          TotalOrderKey(static_cast<float>(Tr::Load(s))));
  } else {
    return Tr::Load(s);
  }
}

template <typename Tr>
Kernel TypedTopK(int64_t rows, int64_t n, int64_t k, bool largest) {
  return [=](const KernelArgs& args) -> Status {
    using S = typename Tr::Storage;
    using Key = decltype(RankKey<Tr>(S{}));
    const S* in = static_cast<const S*>(args.operands[0].data);
    S* values = static_cast<S*>(args.results[0].data);
    int32_t* indices = static_cast<int32_t*>(args.results[1].data);
    std::vector<std::pair<Key, int64_t>> items(static_cast<size_t>(n));
    auto before = [largest](const std::pair<Key, int64_t>& a,
                            const std::pair<Key, int64_t>& b) {
      if (a.first != b.first)
        return largest ? a.first > b.first : a.first < b.first;
      return a.second < b.second;
    };
    for (int64_t r = 0; r < rows; ++r) {
      const S* row = in + r * n;
      for (int64_t j = 0; j < n; ++j)
        items[static_cast<size_t>(j)] = {RankKey<Tr>(row[j]), j};
      std::partial_sort(items.begin(), items.begin() + k, items.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        const int64_t from = items[static_cast<size_t>(j)].second;
        values[r * k + j] = row[from];
        indices[r * k + j] = static_cast<int32_t>(from);
      }
    }
    return Status::Ok();
  };
}

}  // namespace

StatusOr<Kernel> MakeTopKKernel(const Instruction& instruction) {
  const Shape& operand = instruction.operand(0)->shape();
  const int64_t n = operand.dims().back();
  const int64_t rows = n == 0 ? 0 : operand.num_elements() / n;
  const int64_t k = instruction.top_k;
  const bool largest = instruction.top_k_largest;
  return VisitElementType(
      operand.element_type(), [&](auto traits) -> StatusOr<Kernel> {
        using Tr = decltype(traits);
        if constexpr (Tr::kIsPred || Tr::kIsComplex || Tr::kBits < 8) {
          return Unimplemented("op " + instruction.Describe() + ": topk of " +
                               std::string(ElementTypeName(Tr::kType)) +
                               " is not supported on CPU");
        } else {
          return TypedTopK<Tr>(rows, n, k, largest);
        }
      });
}

}  // namespace xffi::cpu
