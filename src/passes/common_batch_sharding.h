// xffi: how XLA settles the split of a batch-partitionable custom call whose
// operands are split differently.
//
// XLA's partitioner (custom_call_batch_partitioner.cc) takes each operand's
// sharding that it knows, keeps only its batch dimensions (the others join
// the replication; an operand with no more dimensions than batch dimensions
// counts as replicated), and merges them with
// hlo_sharding_util::FindCommonSharding: starting from the first, each next
// one that differs is merged into the common sharding if they are
// compatible -- the common one still has devices sharing a block
// (replication), every dimension splits the same in both or is whole in
// one of them, and every merged block can be given distinct devices that
// hold its block in both; otherwise the first operand's sharding is used.
// A replicated sharding merges into nothing but a replicated common
// sharding, which it then replaces. jax 0.10.2 with 8 CPU devices and
// lax.linalg.triangular_solve (two batch dimensions), GSPMD and Shardy
// alike: a split on ("x") and one on (None, "y") give blocks split on both;
// ("x") and (None, "x") give ("x"), the same axis not splitting two
// dimensions; ("x") then a replicated operand give ("x").
#ifndef XFFI_SRC_PASSES_COMMON_BATCH_SHARDING_H_
#define XFFI_SRC_PASSES_COMMON_BATCH_SHARDING_H_

#include <cstdint>
#include <vector>

namespace xffi::passes {

// An operand's split as the partitioner sees it: the block count of each
// batch dimension and the devices holding each block.
struct BatchTiling {
  // Empty: replicated (no batch dimension split).
  std::vector<int64_t> tiles;
  // The devices holding each block, blocks row-major over `tiles`, each
  // sorted.
  std::vector<std::vector<int64_t>> holders;
  int64_t num_devices = 0;

  bool replicated() const { return tiles.empty(); }
  int64_t blocks() const;
  bool operator==(const BatchTiling& o) const {
    return tiles == o.tiles && holders == o.holders &&
           num_devices == o.num_devices;
  }
  bool operator!=(const BatchTiling& o) const { return !(*this == o); }
};

// The batch split of a value whose dimensions split into `tiles` blocks
// (each block held by consecutive entries of `devices`, blocks row-major,
// as an HloSharding's device list runs): the first `num_batch_dims`
// dimensions' blocks; replicated when none of them splits or the value has
// no more dimensions than `num_batch_dims`.
BatchTiling BatchTilingOf(const std::vector<int64_t>& tiles,
                          const std::vector<int64_t>& devices,
                          int64_t num_batch_dims);

// XLA's FindCommonSharding over `tilings` (in operand order, not empty).
BatchTiling FindCommonBatchTiling(const std::vector<BatchTiling>& tilings);

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_COMMON_BATCH_SHARDING_H_
