#include "cpu/widened_kernel.h"

#include <utility>
#include <vector>

#include "cpu/compute_cast.h"
#include "runtime/status_macros.h"

namespace xffi::cpu {

bool IsWidenedToF32(ElementType type) {
  return type == ElementType::kF16 || type == ElementType::kBF16;
}

Kernel WidenedToF32(Kernel f32_kernel) {
  return [inner = std::move(f32_kernel)](const KernelArgs& args) -> Status {
    const size_t arrays = args.operands.size() + args.results.size();
    // Reserved up front: the views below point into both.
    std::vector<std::vector<float>> copies;
    std::vector<Shape> shapes;
    copies.reserve(arrays);
    shapes.reserve(arrays);
    auto widen = [&](const ArrayView& view, bool read) -> ArrayView {
      const ElementType type = view.shape->element_type();
      if (!IsWidenedToF32(type)) return view;
      const int64_t count = view.shape->num_elements();
      std::vector<float>& copy =
          copies.emplace_back(static_cast<size_t>(count));
      const char* bytes = static_cast<const char*>(view.data);
      const int64_t size = static_cast<int64_t>(ElementByteSize(type));
      if (read)
        for (int64_t i = 0; i < count; ++i)
          copy[static_cast<size_t>(i)] = LoadAs<float>(type, bytes + i * size);
      shapes.push_back(Shape::Array(ElementType::kF32, view.shape->dims()));
      return {&shapes.back(), copy.data()};
    };
    std::vector<ArrayView> operands, results;
    for (const ArrayView& view : args.operands)
      operands.push_back(widen(view, true));
    for (const ArrayView& view : args.results)
      results.push_back(widen(view, false));
    KernelArgs wide = args;
    wide.operands = operands;
    wide.results = results;
    XFFI_RETURN_IF_ERROR(inner(wide));
    for (size_t r = 0; r < results.size(); ++r) {
      const ArrayView& view = args.results[r];
      const ElementType type = view.shape->element_type();
      if (!IsWidenedToF32(type)) continue;
      const float* wide_data = static_cast<const float*>(results[r].data);
      char* bytes = static_cast<char*>(view.data);
      const int64_t size = static_cast<int64_t>(ElementByteSize(type));
      const int64_t count = view.shape->num_elements();
      for (int64_t i = 0; i < count; ++i)
        StoreFrom<float>(type, wide_data[i], bytes + i * size);
    }
    return Status::Ok();
  };
}

}  // namespace xffi::cpu
