// xffi: Shardy's mesh and sharding syntax, as JAX prints it around a
// shard_map (`sdy.mesh @mesh = <["x"=4]>`, `<@mesh, [{"x"}, {}]>`,
// `manual_axes={"x"}`). The StableHLO parser reads these to run an
// `sdy.manual_computation` one partition at a time (spmd_emulation.h).
#ifndef XFFI_SRC_TEXT_SDY_SHARDING_H_
#define XFFI_SRC_TEXT_SDY_SHARDING_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "text/mlir_attribute.h"
#include "text/mlir_lexer.h"

namespace xffi::text {

struct SdyMesh {
  std::vector<std::string> axis_names;
  std::vector<int64_t> axis_sizes;
  // The device at each position of the mesh (row-major over the axes);
  // empty: position i is device i.
  std::vector<int64_t> device_ids;
  SourcePos pos;

  int64_t device_count() const;
  int64_t AxisIndex(const std::string& name) const;  // -1 when absent
  int64_t DeviceId(int64_t position) const;
};

// One value's sharding: for each dimension, the mesh axes it is split over,
// major to minor.
struct SdyTensorSharding {
  std::string mesh_name;        // "" when the mesh is written inline
  std::optional<SdyMesh> mesh;  // an inline mesh<...>
  std::vector<std::vector<std::string>> dims;
  SourcePos pos;
};

// `<[...], device_ids=[...]>`, the lexer at '<'.
StatusOr<SdyMesh> ParseSdyMesh(MlirAttributeParser& attrs);
// `<@mesh, [{"x"}, {}]>` (or `<mesh<...>, ...>`), the lexer at '<'.
// Sub-axes (`"x":(1)2`) are rejected with their position.
StatusOr<SdyTensorSharding> ParseSdyTensorSharding(MlirAttributeParser& attrs);
// `[<...>, <...>]`, the lexer at '['.
StatusOr<std::vector<SdyTensorSharding>> ParseSdyShardingList(
    MlirAttributeParser& attrs);
// `{"x", "y"}`, the lexer at '{'.
StatusOr<std::vector<std::string>> ParseSdyAxisSet(MlirAttributeParser& attrs);

// The one mesh all shardings of a manual computation name, inline or by
// name in `meshes`, into *mesh. Returns what is wrong ("" when nothing is);
// *culprit is the sharding at fault, or null when there is none at all.
std::string CommonMesh(const std::vector<SdyTensorSharding>& in_shardings,
                       const std::vector<SdyTensorSharding>& out_shardings,
                       const std::map<std::string, SdyMesh>& meshes,
                       SdyMesh* mesh, const SdyTensorSharding** culprit);

}  // namespace xffi::text

#endif  // XFFI_SRC_TEXT_SDY_SHARDING_H_
