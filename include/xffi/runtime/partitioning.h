// xffi: custom-call targets registered as batch partitionable.
//
// XLA's SPMD partitioner runs a batch-partitionable custom call
// (xla_client.register_custom_call_as_batch_partitionable) once per device,
// on that device's block of the call's leading (batch) dimensions, instead
// of gathering its operands first. The registration is kept here so the
// compiler (the batch-partition pass) sees what Python registered.
//
// XLA reads how many leading dimensions are batch dimensions from each
// call's num_batch_dims frontend attribute; xffi's IR keeps no frontend
// attributes, so the number is kept with the registration instead (1 unless
// the registration says otherwise).
#ifndef XFFI_RUNTIME_PARTITIONING_H_
#define XFFI_RUNTIME_PARTITIONING_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xffi/runtime/status.h"

namespace xffi {

// Registering a name again replaces its number of batch dimensions. An
// error when the name is empty or the number is below 1 (XLA leaves such a
// call whole; a registration that cannot take effect is a mistake).
// Thread-safe.
Status RegisterBatchPartitionable(std::string_view target,
                                  int64_t num_batch_dims = 1);
bool IsBatchPartitionable(std::string_view target);
// How many leading dimensions of `target`'s operands and results are batch
// dimensions; 0 when it is not registered.
int64_t BatchPartitionableDims(std::string_view target);
// Sorted.
std::vector<std::string> ListBatchPartitionable();

}  // namespace xffi

#endif  // XFFI_RUNTIME_PARTITIONING_H_
