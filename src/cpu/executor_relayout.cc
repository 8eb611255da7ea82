// Relayout: an element-by-element copy in the source's logical order.
#include "cpu/executor_relayout.h"

#include <cstring>

namespace xffi::cpu {
namespace {

std::vector<int64_t> StridesOf(const std::vector<int64_t>& dims,
                               const std::vector<int64_t>& minor_to_major) {
  std::vector<int64_t> strides(dims.size(), 1);
  int64_t stride = 1;
  for (int64_t dim : minor_to_major) {
    strides[static_cast<size_t>(dim)] = stride;
    stride *= dims[static_cast<size_t>(dim)];
  }
  return strides;
}

}  // namespace

Relayout::Relayout(const Shape& array, const std::vector<int64_t>& from,
                   const std::vector<int64_t>& to)
    : dims_(array.dims()),
      from_strides_(StridesOf(array.dims(), from)),
      to_strides_(StridesOf(array.dims(), to)),
      element_size_(ElementByteSize(array.element_type())),
      byte_size_(array.byte_size()),
      same_order_(from_strides_ == to_strides_) {}

void Relayout::Run(const void* source, void* destination) const {
  if (same_order_ || dims_.size() < 2) {
    if (byte_size_ > 0) std::memcpy(destination, source, byte_size_);
    return;
  }
  for (int64_t dim : dims_)
    if (dim == 0) return;
  const auto* in = static_cast<const unsigned char*>(source);
  auto* out = static_cast<unsigned char*>(destination);
  const size_t rank = dims_.size();
  // An odometer over the logical index, last dimension fastest.
  std::vector<int64_t>& index = index_;
  index.assign(rank, 0);
  int64_t from_offset = 0, to_offset = 0;
  while (true) {
    std::memcpy(out + static_cast<size_t>(to_offset) * element_size_,
                in + static_cast<size_t>(from_offset) * element_size_,
                element_size_);
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++index[d] < dims_[d]) {
        from_offset += from_strides_[d];
        to_offset += to_strides_[d];
        break;
      }
      from_offset -= from_strides_[d] * (dims_[d] - 1);
      to_offset -= to_strides_[d] * (dims_[d] - 1);
      index[d] = 0;
      if (d == 0) return;
    }
  }
}

}  // namespace xffi::cpu
