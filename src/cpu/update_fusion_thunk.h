// xffi: a loop fusion that writes straight into the dynamic-update-slice
// reading it.
//
// A fori_loop writing one row per step computes the row (a loop fusion),
// then a dynamic-update-slice copies it into the carried buffer, updated in
// place. When the row's place in that buffer is one contiguous run of bytes,
// the fusion can write there directly: one kernel and no copy per step, as
// XLA's in-place dynamic-update-slice fusion does.
#ifndef XFFI_SRC_CPU_UPDATE_FUSION_THUNK_H_
#define XFFI_SRC_CPU_UPDATE_FUSION_THUNK_H_

#include <memory>
#include <vector>

#include "compiler/buffer_assignment.h"
#include "cpu/executor_thunk.h"
#include "cpu/kernel.h"

namespace xffi {
class ThreadPool;
}

namespace xffi::cpu {

// XFFI_FUSION_INTO_UPDATE=0 turns the rewrite off (to measure it).
bool FusionIntoUpdateEnabled();

// Whether `update` (a dynamic-update-slice's update operand) lands in one
// contiguous run of bytes of `full` wherever it starts: its dims are 1 up
// to some k, then equal `full`'s.
bool UpdateIsContiguous(const Shape& update, const Shape& full);

// Runs `fusion_kernel` (the kernel of `fusion`, reading `operand_ids`) with
// its result at the place `update` (the dynamic-update-slice reading the
// fusion as its update) would copy it to, inside `update`'s buffer
// `result_id`, which holds its operand already (an in-place update).
// `start_ids`: the buffers of `update`'s start indices.
std::unique_ptr<Thunk> MakeUpdateFusionThunk(
    const Instruction& fusion, const Instruction& update, Kernel fusion_kernel,
    std::vector<compiler::BufferId> operand_ids,
    std::vector<compiler::BufferId> start_ids, compiler::BufferId result_id,
    ThreadPool* pool);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_UPDATE_FUSION_THUNK_H_
