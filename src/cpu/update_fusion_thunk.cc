// A loop fusion writing into its dynamic-update-slice (see
// update_fusion_thunk.h).
#include "cpu/update_fusion_thunk.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "cpu/index_util.h"

namespace xffi::cpu {
namespace {

using compiler::BufferId;

class UpdateFusionThunk : public Thunk {
 public:
  UpdateFusionThunk(const Instruction& fusion, const Instruction& update,
                    Kernel kernel, std::vector<BufferId> operand_ids,
                    std::vector<BufferId> start_ids, BufferId result_id,
                    ThreadPool* pool)
      : fusion_(fusion),
        kernel_(std::move(kernel)),
        operand_ids_(std::move(operand_ids)),
        start_ids_(std::move(start_ids)),
        result_id_(result_id) {
    const Shape& full = update.shape();
    const std::vector<int64_t> strides = RowMajorStrides(full.dims());
    const auto element =
        static_cast<int64_t>(ElementByteSize(full.element_type()));
    for (int64_t d = 0; d < full.rank(); ++d) {
      const auto j = static_cast<size_t>(d);
      limits_.push_back(full.dim(d) - fusion.shape().dim(d));
      strides_.push_back(strides[j] * element);
      index_types_.push_back(update.operand(d + 2)->shape().element_type());
    }
    for (const Instruction* operand : fusion.operands())
      operands_.push_back({&operand->shape(), nullptr});
    results_.push_back({&fusion.shape(), nullptr});
    args_.operands = operands_;
    args_.results = results_;
    args_.pool = pool;
  }

  Status Run(void* const* addresses) override {
    // Starts clamp so the update fits, as the dynamic-update-slice's own
    // kernel clamps them.
    int64_t offset = 0;
    for (size_t d = 0; d < start_ids_.size(); ++d) {
      const int64_t start = std::clamp<int64_t>(
          ReadIndex(addresses[start_ids_[d]], index_types_[d]), 0, limits_[d]);
      offset += start * strides_[d];
    }
    for (size_t i = 0; i < operands_.size(); ++i)
      operands_[i].data = addresses[operand_ids_[i]];
    results_[0].data = static_cast<char*>(addresses[result_id_]) + offset;
    Status status = kernel_(args_);
    if (!status.ok()) [[unlikely]]
      status = AtLocation(fusion_, status);
    return status;
  }

 private:
  const Instruction& fusion_;
  Kernel kernel_;
  std::vector<BufferId> operand_ids_, start_ids_;
  BufferId result_id_;
  std::vector<int64_t> limits_, strides_;
  std::vector<ElementType> index_types_;
  std::vector<ArrayView> operands_, results_;
  KernelArgs args_;
};

}  // namespace

bool FusionIntoUpdateEnabled() {
  const char* text = std::getenv("XFFI_FUSION_INTO_UPDATE");
  return text == nullptr || std::string(text) != "0";
}

bool UpdateIsContiguous(const Shape& update, const Shape& full) {
  if (!update.IsArray() || !full.IsArray() || update.rank() != full.rank())
    return false;
  int64_t d = 0;
  while (d < update.rank() && update.dim(d) == 1) ++d;
  for (int64_t k = d + 1; k < update.rank(); ++k)
    if (update.dim(k) != full.dim(k)) return false;
  return true;
}

std::unique_ptr<Thunk> MakeUpdateFusionThunk(
    const Instruction& fusion, const Instruction& update, Kernel fusion_kernel,
    std::vector<BufferId> operand_ids, std::vector<BufferId> start_ids,
    BufferId result_id, ThreadPool* pool) {
  return std::make_unique<UpdateFusionThunk>(
      fusion, update, std::move(fusion_kernel), std::move(operand_ids),
      std::move(start_ids), result_id, pool);
}

}  // namespace xffi::cpu
