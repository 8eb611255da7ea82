#include "device_backend/rng.h"

#include <algorithm>
#include <string>

#include "device_backend/rng_kernel.h"

namespace xffi::device_backend {

StatusOr<Launcher> RngBitGeneratorLauncher(
    const Instruction& op, const std::vector<compiler::BufferId>& operands,
    const std::vector<compiler::BufferId>& results) {
  if (operands.size() != 1 || results.size() != 2 || !op.shape().IsTuple() ||
      op.shape().tuple_shapes().size() != 2)
    return Unsupported(op, "a state and bits result");
  const Shape& state = op.operand(0)->shape();
  const Shape& bits = op.shape().tuple_shapes()[1];
  const int width = ElementBitWidth(bits.element_type());
  if (state.element_type() != ElementType::kU64 || state.rank() != 1 ||
      state.dim(0) < 2 ||
      (width != 8 && width != 16 && width != 32 && width != 64) ||
      static_cast<int>(ElementByteSize(bits.element_type())) * 8 != width)
    return Unsupported(op, "a state of u64[>=2] and bits of 8-64 bits");
  RngBitGeneratorKernel kernel;
  kernel.philox = op.rng_algorithm != RngAlgorithm::kThreeFry;
  kernel.wide = width == 64;
  kernel.element_size = width / 8;
  kernel.state_size = state.dim(0);
  kernel.elements = bits.num_elements();
  kernel.n = std::max<int64_t>(kernel.elements, 1);
  // THREE_FRY pairs 32-bit values along the dimension that leaves the
  // fewest blocks (the first on a tie), as XLA does.
  const std::vector<int64_t>& dims = bits.dims();
  int64_t fewest = -1;
  size_t split = 0;
  for (size_t d = 0; d < dims.size() && kernel.elements > 0; ++d) {
    const int64_t blocks = kernel.elements / dims[d] * ((dims[d] + 1) / 2);
    if (fewest < 0 || blocks < fewest) {
      fewest = blocks;
      split = d;
    }
  }
  if (!dims.empty()) {
    kernel.outer = 1;
    kernel.inner = 1;
    for (size_t d = 0; d < split; ++d) kernel.outer *= dims[d];
    for (size_t d = split + 1; d < dims.size(); ++d) kernel.inner *= dims[d];
    kernel.length = dims[split];
  }
  const compiler::BufferId in = operands[0];
  const compiler::BufferId next = results[0], out = results[1];
  const std::string name = op.Describe();
  return Launcher([kernel, in, next, out, name](
                      device::Stream& stream, void* const* addresses) mutable {
    // Every thread reads the state thread 0 replaces.
    if (addresses[in] == addresses[next])
      return Internal("op " + name +
                      ": its next state shares the state's buffer");
    kernel.state = static_cast<const uint8_t*>(addresses[in]);
    kernel.next_state = static_cast<uint8_t*>(addresses[next]);
    kernel.out = static_cast<uint8_t*>(addresses[out]);
    return LaunchKernel(stream, RngBitGeneratorKernel::kName, kernel.n, kernel);
  });
}

}  // namespace xffi::device_backend
