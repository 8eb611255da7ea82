// xffi: Shardy's mesh and sharding syntax, as JAX prints it around a
// shard_map (`sdy.mesh @mesh = <["x"=4]>`, `<@mesh, [{"x"}, {}]>`,
// `manual_axes={"x"}`), read into the IR's Mesh and TensorSharding
// (xffi/program/sharding.h). StableHLO writes it directly, HLO inside
// frontend attributes (hlo/shardy.h).
#ifndef XFFI_SRC_TEXT_MLIR_SDY_SHARDING_H_
#define XFFI_SRC_TEXT_MLIR_SDY_SHARDING_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "text/mlir/attribute.h"
#include "text/mlir/lexer.h"
#include "xffi/program/sharding.h"

namespace xffi::text {

// One value's sharding as written: the mesh it names (by name, or inline)
// and where, for messages, with what it says about the value.
struct SdyShardingRef {
  std::string mesh_name;     // "" when the mesh is written inline
  std::optional<Mesh> mesh;  // an inline mesh<...>
  TensorSharding sharding;
  SourcePos pos;
};

// `<[...], device_ids=[...]>`, the lexer at '<'.
StatusOr<Mesh> ParseSdyMesh(MlirAttributeParser& attrs);
// `<@mesh, [{"x"}, {}]>` (or `<mesh<...>, ...>`), the lexer at '<'.
// Sub-axes (`"x":(1)2`) are rejected with their position.
StatusOr<SdyShardingRef> ParseSdyTensorSharding(MlirAttributeParser& attrs);
// `[<...>, <...>]`, the lexer at '['.
StatusOr<std::vector<SdyShardingRef>> ParseSdyShardingList(
    MlirAttributeParser& attrs);
// `{"x", "y"}`, the lexer at '{'.
StatusOr<std::vector<std::string>> ParseSdyAxisSet(MlirAttributeParser& attrs);

// The one mesh all shardings of a manual computation name, inline or by
// name in `meshes`, into *mesh (named as the first sharding names it).
// Returns what is wrong ("" when nothing is); *culprit is the sharding at
// fault, or null when there is none at all.
std::string CommonMesh(const std::vector<SdyShardingRef>& in_shardings,
                       const std::vector<SdyShardingRef>& out_shardings,
                       const std::map<std::string, Mesh>& meshes, Mesh* mesh,
                       const SdyShardingRef** culprit);

// The shardings alone.
std::vector<TensorSharding> Shardings(const std::vector<SdyShardingRef>& refs);

// The same placement in GSPMD's terms: each dimension tiled by the product
// of its axes' sizes, the axes no dimension uses as a replicated last tile
// dimension, and each tile's device from the mesh. Empty when the sharding
// names an axis the mesh lacks, or one twice.
std::optional<HloSharding> ToHloSharding(const Mesh& mesh,
                                         const TensorSharding& sharding);

}  // namespace xffi::text

#endif  // XFFI_SRC_TEXT_MLIR_SDY_SHARDING_H_
