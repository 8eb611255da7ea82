// xffi: where a value lives across devices.
//
// Two vocabularies, as JAX writes them:
//   - Shardy's (sdy): a Mesh of named axes, and for each value a
//     TensorSharding that says which axes split each of its dimensions.
//     A shard_map is an sdy.manual_computation over a mesh (ir.h's
//     kManualComputation op holds one).
//   - GSPMD's: an HloSharding string on an op (`sharding={devices=[2,2]<=[4]}`
//     in HLO, `mhlo.sharding = "..."` in StableHLO): replicated, manual,
//     maximal (on one device), or tiled over a device assignment. JAX with
//     Shardy off marks a shard_map with such shardings on the Sharding /
//     SPMDFullToShardShape / SPMDShardToFullShape custom calls.
// The text readers only read these; the spmd-emulation pass gives them
// meaning.
#ifndef XFFI_PROGRAM_SHARDING_H_
#define XFFI_PROGRAM_SHARDING_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xffi/runtime/status.h"

namespace xffi {

// A Shardy mesh: axes major to minor, and the device at each position.
struct Mesh {
  std::string name;  // as sdy.mesh @name defines it; "" for an inline mesh
  std::vector<std::string> axis_names;
  std::vector<int64_t> axis_sizes;
  // The device at each position of the mesh (row-major over the axes);
  // empty: position i is device i.
  std::vector<int64_t> device_ids;

  int64_t device_count() const;
  int64_t AxisIndex(std::string_view axis) const;  // -1 when absent
  int64_t DeviceId(int64_t position) const;
  // Mesh position `position`'s coordinate along axis `axis`.
  int64_t Coordinate(int64_t position, size_t axis) const;
  // The same axes and devices, whatever the names of the meshes.
  bool SameDevices(const Mesh& other) const;
  // `<["x"=4, "y"=2]>` or `<["x"=4], device_ids=[3, 2, 1, 0]>`.
  std::string ToString() const;

  bool operator==(const Mesh& o) const {
    return name == o.name && SameDevices(o);
  }
  bool operator!=(const Mesh& o) const { return !(*this == o); }
};

// One value's Shardy sharding: for each dimension, the mesh axes it is
// split over, major to minor.
struct TensorSharding {
  std::vector<std::vector<std::string>> dims;

  // `<@mesh, [{"x"}, {}]>`, or `<mesh<[...]>, [...]>` when the mesh has no
  // name.
  std::string ToString(const Mesh& mesh) const;

  bool operator==(const TensorSharding& o) const { return dims == o.dims; }
  bool operator!=(const TensorSharding& o) const { return !(*this == o); }
};

// `{"x", "y"}`: a set of axes (a manual computation's manual axes).
std::string AxisSetToString(const std::vector<std::string>& axes);

// How many blocks each dimension of a rank-`rank` value splits into under
// `sharding`, counting only the axes in `manual_axes` (a free axis leaves the
// body's view of the value whole). An error names `value` ("operand 0") and
// the rule it breaks: a dimension count other than `rank`, an axis the mesh
// lacks, an axis used twice.
StatusOr<std::vector<int64_t>> ManualBlockCounts(
    const Mesh& mesh, const TensorSharding& sharding,
    const std::vector<std::string>& manual_axes, int64_t rank,
    const std::string& value);

// A GSPMD sharding.
struct HloSharding {
  enum class Kind { kReplicated, kManual, kTiled, kMaximal };
  Kind kind = Kind::kReplicated;
  // kTiled: the tile counts per dimension (with the replicated dimension
  // last when `replicated_last`), and the device of each tile, row-major.
  // kMaximal: the one device.
  std::vector<int64_t> tile_dims;
  std::vector<int64_t> devices;
  bool replicated_last = false;

  // HLO's text: `{replicated}`, `{manual}`, `{maximal device=1}`,
  // `{devices=[2,2]0,1,2,3 last_tile_dim_replicate}`.
  std::string ToString() const;

  bool operator==(const HloSharding& o) const {
    return kind == o.kind && tile_dims == o.tile_dims && devices == o.devices &&
           replicated_last == o.replicated_last;
  }
  bool operator!=(const HloSharding& o) const { return !(*this == o); }
};

// GSPMD's markers around a shard_map (JAX with Shardy off), custom calls
// that carry a sharding: "Sharding", "SPMDFullToShardShape",
// "SPMDShardToFullShape".
bool IsGspmdMarker(std::string_view custom_call_target);

}  // namespace xffi

#endif  // XFFI_PROGRAM_SHARDING_H_
