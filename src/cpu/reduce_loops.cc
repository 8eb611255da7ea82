#include "cpu/reduce_loops.h"

namespace xffi::cpu {

DualLoops MakeReduceLoops(const std::vector<int64_t>& in_dims,
                          const std::vector<bool>& reduced) {
  std::vector<int64_t> kept_dims;
  for (size_t i = 0; i < in_dims.size(); ++i)
    if (!reduced[i]) kept_dims.push_back(in_dims[i]);
  std::vector<int64_t> kept_strides = RowMajorStrides(kept_dims);
  std::vector<int64_t> out_strides(in_dims.size(), 0);
  size_t k = 0;
  for (size_t i = 0; i < in_dims.size(); ++i)
    if (!reduced[i]) out_strides[i] = kept_strides[k++];
  return MakeDualLoops(in_dims, RowMajorStrides(in_dims), out_strides);
}

int KeptSplitDim(const DualLoops& loops) {
  for (size_t d = 0; d < loops.dims.size(); ++d)
    if (loops.b_strides[d] != 0 && loops.dims[d] > 1)
      return static_cast<int>(d);
  return -1;
}

}  // namespace xffi::cpu
