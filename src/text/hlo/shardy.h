// xffi: shard_map programs in HLO text. JAX's HLO keeps Shardy's meshes and
// shardings as strings in frontend_attributes (the module's
// xla.sdy.meshes, the xla.sdy.in_shardings / out_shardings / manual_axes of
// the xla.sdy.GlobalToLocalShape and LocalToGlobalShape custom calls around
// the call of an xla.sdy.manual_computation_body), and prints collectives as
// HLO ops (all-reduce, all-gather, reduce-scatter, all-to-all,
// collective-permute, partition-id, replica-id). These read the attributes
// and the collectives' device lists; the HLO parser finds the pattern and
// makes it a manual-computation op.
#ifndef XFFI_SRC_TEXT_HLO_SHARDY_H_
#define XFFI_SRC_TEXT_HLO_SHARDY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text/hlo/scanner.h"
#include "text/mlir/sdy_sharding.h"

namespace xffi::hlo {

// Shardy's attributes, each given as the text of a frontend attribute;
// `where` ("model.hlo:3:5: xla.sdy.in_shardings") starts every error.
// `{mesh = #sdy.mesh<["x"=4]>, ...}`
StatusOr<std::map<std::string, Mesh>> ParseSdyMeshesAttribute(
    std::string_view text, const std::string& where);
// `#sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, ...]>`
StatusOr<std::vector<text::SdyShardingRef>> ParseShardingPerValue(
    std::string_view text, const std::string& where);
// `#sdy<manual_axes{"x", "y"}>`
StatusOr<std::vector<std::string>> ParseManualAxes(std::string_view text,
                                                   const std::string& where);

// replica_groups={{0,1},{2,3}}, replica_groups={} or the iota form
// replica_groups=[2,2]<=[4] / [2,2]<=[2,2]T(1,0); the scanner after '='.
Status ParseReplicaGroups(Scanner& s,
                          std::vector<std::vector<int64_t>>& groups);
// source_target_pairs={{0,1},{1,2}}
Status ParseSourceTargetPairs(Scanner& s,
                              std::vector<std::pair<int64_t, int64_t>>& pairs);

}  // namespace xffi::hlo

#endif  // XFFI_SRC_TEXT_HLO_SHARDY_H_
