// xffi: copying an array between two physical layouts of its dimensions
// (minor-to-major orders), for targets that ask for a layout other than
// the executor's row-major one.
#ifndef XFFI_SRC_CPU_EXECUTOR_RELAYOUT_H_
#define XFFI_SRC_CPU_EXECUTOR_RELAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "xffi/program/shape.h"

namespace xffi::cpu {

// Planned once; Run does no allocation. One Run at a time per object.
class Relayout {
 public:
  Relayout() = default;
  // `from` and `to` are permutations of the array's dimension numbers.
  Relayout(const Shape& array, const std::vector<int64_t>& from,
           const std::vector<int64_t>& to);

  void Run(const void* source, void* destination) const;

 private:
  std::vector<int64_t> dims_;
  std::vector<int64_t> from_strides_, to_strides_;  // elements, per dim
  size_t element_size_ = 0;
  size_t byte_size_ = 0;
  bool same_order_ = true;
  mutable std::vector<int64_t> index_;  // scratch: one run at a time
};

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_EXECUTOR_RELAYOUT_H_
