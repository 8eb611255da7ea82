// iota: each element is its index along one dimension, in the result type.
#include <cstring>
#include <memory>
#include <vector>

#include "cpu/element_convert.h"
#include "cpu/element_traits.h"
#include "cpu/elementwise_internal.h"

namespace xffi::cpu::internal {

StatusOr<Kernel> MakeIotaKernel(const Instruction& inst) {
  const Shape& shape = inst.shape();
  if (!shape.IsArray())
    return InvalidArgument(inst.Describe() + " must produce an array, not " +
                           shape.ToString());
  if (inst.operand_count() != 0)
    return InvalidArgument(inst.Describe() + " takes no operands, has " +
                           std::to_string(inst.operand_count()));
  if (inst.dimensions.size() != 1 || inst.dimensions[0] < 0 ||
      inst.dimensions[0] >= shape.rank())
    return InvalidArgument(inst.Describe() +
                           ": iota_dimension must name one of the " +
                           std::to_string(shape.rank()) + " dimensions of " +
                           shape.ToString(false));
  const int64_t dimension = inst.dimensions[0];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dimension; ++d) outer *= shape.dim(d);
  for (int64_t d = dimension + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
  const int64_t count = shape.dim(dimension);
  const size_t element_bytes = ElementByteSize(shape.element_type());
  // The values along the dimension, converted once here; a run only copies.
  auto values = std::make_shared<std::vector<unsigned char>>(
      static_cast<size_t>(count) * element_bytes);
  StatusOr<Kernel> fill = VisitElementType(
      shape.element_type(), [&](auto traits) -> StatusOr<Kernel> {
        using Tr = decltype(traits);
        using S64 = ElementTraits<ElementType::kS64>;
        auto* typed = reinterpret_cast<typename Tr::Storage*>(values->data());
        for (int64_t k = 0; k < count; ++k)
          typed[k] = ConvertElement<S64, Tr>(k);
        return Kernel([values, outer, inner,
                       count](const KernelArgs& args) -> Status {
          if (args.operands.size() != 0 || args.results.size() != 1)
            return Internal("iota kernel expects no operands and 1 result");
          auto* out = static_cast<typename Tr::Storage*>(args.results[0].data);
          const auto* source =
              reinterpret_cast<const typename Tr::Storage*>(values->data());
          for (int64_t o = 0; o < outer; ++o)
            for (int64_t k = 0; k < count; ++k) {
              const typename Tr::Storage v = source[k];
              for (int64_t i = 0; i < inner; ++i) *out++ = v;
            }
          return Status();
        });
      });
  return fill;
}

}  // namespace xffi::cpu::internal
