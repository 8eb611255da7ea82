// xffi: converting between a linear element number and its multi-index in a
// row-major array, for code that walks literals one element at a time (the
// constant folder, the StableHLO front end's shape refinement). Kernels use
// the strided plans of src/cpu/index_util.h instead.
#ifndef XFFI_SRC_IR_ROW_MAJOR_INDEX_H_
#define XFFI_SRC_IR_ROW_MAJOR_INDEX_H_

#include <cstdint>
#include <vector>

namespace xffi {

// The multi-index of element `linear` of an array of `dims`. An array with
// a zero dimension has no elements; its index is all zeros.
inline std::vector<int64_t> UnravelRowMajor(int64_t linear,
                                            const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = dims[d] == 0 ? 0 : linear % dims[d];
    linear = dims[d] == 0 ? 0 : linear / dims[d];
  }
  return index;
}

// The element number of `index` in an array of `dims`.
inline int64_t RavelRowMajor(const std::vector<int64_t>& index,
                             const std::vector<int64_t>& dims) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + index[d];
  return linear;
}

}  // namespace xffi

#endif  // XFFI_SRC_IR_ROW_MAJOR_INDEX_H_
