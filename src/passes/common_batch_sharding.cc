#include "passes/common_batch_sharding.h"

#include <algorithm>
#include <set>

namespace xffi::passes {

int64_t BatchTiling::blocks() const {
  int64_t product = 1;
  for (int64_t t : tiles) product *= t;
  return product;
}

BatchTiling BatchTilingOf(const std::vector<int64_t>& tiles,
                          const std::vector<int64_t>& devices,
                          int64_t num_batch_dims) {
  BatchTiling batch;  // replicated until shown split
  const auto num_devices = static_cast<int64_t>(devices.size());
  const auto rank = static_cast<int64_t>(tiles.size());
  if (num_batch_dims <= 0 || num_batch_dims >= rank) return batch;
  int64_t all_blocks = 1, batch_blocks = 1;
  for (int64_t d = 0; d < rank; ++d) {
    all_blocks *= tiles[static_cast<size_t>(d)];
    if (d < num_batch_dims) batch_blocks *= tiles[static_cast<size_t>(d)];
  }
  if (batch_blocks == 1 || all_blocks == 0 || num_devices == 0 ||
      num_devices % all_blocks != 0)
    return batch;
  batch.num_devices = num_devices;
  batch.tiles.assign(tiles.begin(), tiles.begin() + num_batch_dims);
  batch.holders.resize(static_cast<size_t>(batch_blocks));
  // Block b of the value (row-major) is its batch block b / (blocks per
  // batch block): the other dimensions are minor.
  const int64_t per_block = batch.num_devices / all_blocks;
  const int64_t blocks_per_batch_block = all_blocks / batch_blocks;
  for (int64_t p = 0; p < batch.num_devices; ++p)
    batch.holders[static_cast<size_t>(p / per_block / blocks_per_batch_block)]
        .push_back(devices[static_cast<size_t>(p)]);
  for (auto& holders : batch.holders) std::sort(holders.begin(), holders.end());
  return batch;
}

namespace {

// Row-major index of `index` in `dims`, counting a dimension of size 1 as
// index 0.
int64_t FlatIndex(const std::vector<int64_t>& index,
                  const std::vector<int64_t>& dims) {
  int64_t flat = 0;
  for (size_t d = 0; d < dims.size(); ++d)
    flat = flat * dims[d] + (dims[d] == 1 ? 0 : index[d]);
  return flat;
}

// XLA's MergeShardingIfCompatible of `to_merge` into `common` (partial
// replication and batch dimensions only; the minimum tile count is the
// common one's, as FindCommonSharding asks).
bool MergeIfCompatible(const BatchTiling& to_merge, BatchTiling* common) {
  if (to_merge.replicated()) return false;
  if (common->replicated()) {
    *common = to_merge;
    return true;
  }
  if (common->blocks() == common->num_devices) return false;  // no replicas
  if (to_merge.tiles.size() != common->tiles.size() ||
      to_merge.num_devices != common->num_devices)
    return false;
  std::vector<int64_t> merged(common->tiles.size());
  for (size_t d = 0; d < merged.size(); ++d) {
    const int64_t mine = common->tiles[d], theirs = to_merge.tiles[d];
    if (mine != theirs && mine != 1 && theirs != 1) return false;
    merged[d] = std::max(mine, theirs);
  }
  BatchTiling result;
  result.tiles = merged;
  result.num_devices = common->num_devices;
  const int64_t blocks = result.blocks();
  if (result.num_devices % blocks != 0) return false;
  const int64_t replication = result.num_devices / blocks;
  // Each merged block's r-th device: the smallest device holding both
  // blocks it lies in that no earlier one took (XLA's second method, which
  // decides in every case the first one does).
  std::vector<std::set<int64_t>> left_mine, left_theirs;
  for (const auto& h : common->holders)
    left_mine.emplace_back(h.begin(), h.end());
  for (const auto& h : to_merge.holders)
    left_theirs.emplace_back(h.begin(), h.end());
  result.holders.resize(static_cast<size_t>(blocks));
  std::vector<int64_t> index(merged.size(), 0);
  for (int64_t b = 0; b < blocks; ++b) {
    std::set<int64_t>& mine =
        left_mine[static_cast<size_t>(FlatIndex(index, common->tiles))];
    std::set<int64_t>& theirs =
        left_theirs[static_cast<size_t>(FlatIndex(index, to_merge.tiles))];
    for (int64_t r = 0; r < replication; ++r) {
      auto both = std::find_if(mine.begin(), mine.end(), [&](int64_t device) {
        return theirs.count(device) > 0;
      });
      if (both == mine.end()) return false;
      result.holders[static_cast<size_t>(b)].push_back(*both);
      theirs.erase(*both);
      mine.erase(both);
    }
    for (size_t d = merged.size(); d-- > 0;) {  // the next block, row-major
      if (++index[d] < merged[d]) break;
      index[d] = 0;
    }
  }
  *common = std::move(result);
  return true;
}

}  // namespace

BatchTiling FindCommonBatchTiling(const std::vector<BatchTiling>& tilings) {
  BatchTiling common = tilings.front();
  for (size_t i = 1; i < tilings.size(); ++i)
    if (common != tilings[i] && !MergeIfCompatible(tilings[i], &common))
      return tilings.front();
  return common;
}

}  // namespace xffi::passes
