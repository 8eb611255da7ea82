// xffi: custom-call targets registered as batch partitionable.
//
// XLA's SPMD partitioner runs a batch-partitionable custom call
// (xla_client.register_custom_call_as_batch_partitionable) once per device,
// on that device's block of the call's leading (batch) dimensions, instead
// of gathering its operands first. The registration is kept here so the
// compiler (the batch-partition pass) sees what Python registered.
//
// The registration names the target only: as in XLA, how many leading
// dimensions are batch dimensions is each call's own num_batch_dims
// frontend attribute, which the call's lowering writes.
#ifndef XFFI_RUNTIME_PARTITIONING_H_
#define XFFI_RUNTIME_PARTITIONING_H_

#include <string>
#include <string_view>
#include <vector>

#include "xffi/runtime/status.h"

namespace xffi {

// Registering a name again is harmless. An error when the name is empty.
// Thread-safe.
Status RegisterBatchPartitionable(std::string_view target);
bool IsBatchPartitionable(std::string_view target);
// Sorted.
std::vector<std::string> ListBatchPartitionable();

}  // namespace xffi

#endif  // XFFI_RUNTIME_PARTITIONING_H_
