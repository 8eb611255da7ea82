// xffi: GSPMD's sharding strings, as JAX prints them when Shardy is off
// (`mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"` in
// StableHLO, `sharding={...}` in HLO), read into the IR's HloSharding
// (xffi/program/sharding.h); HloSharding::ToString writes them.
#ifndef XFFI_SRC_TEXT_HLO_SHARDING_H_
#define XFFI_SRC_TEXT_HLO_SHARDING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text/hlo/scanner.h"
#include "xffi/program/sharding.h"
#include "xffi/runtime/status.h"

namespace xffi::hlo {

// `{replicated}`, `{manual}`, `{maximal device=N}`, `{devices=[a,b]<=[n]}`,
// `{devices=[a,b]<=[x,y]T(1,0)}`, `{devices=[a,b]0,1,2,3}`, each tiled form
// maybe with ` last_tile_dim_replicate`, any of them with `metadata={...}`
// or a `shard_as N` / `shard_like N` group (both ignored). Forms XLA writes
// that xffi does not read (partially manual `last_tile_dims={...}`,
// `{unknown}`, `{unreduced}`, tuples) are UNIMPLEMENTED, saying so; text
// that is no sharding at all is INVALID_ARGUMENT. `where` starts every
// message ("model.hlo:3:5: sharding").
StatusOr<HloSharding> ParseHloSharding(std::string_view text,
                                       const std::string& where);

// A parameter's or result's own sharding, where xffi reads what it can
// and does without the rest: the sharding, nullopt for a form it does not
// read (UNIMPLEMENTED above), the error for malformed text.
StatusOr<std::optional<HloSharding>> ParseValueSharding(
    std::string_view text, const std::string& where);

// A value's sharding as an HLO op carries it: one sharding, or for a
// tuple-shaped value a tuple of them, `{{...}, {...}}`, one per element.
// An element in a form xffi does not read (UNIMPLEMENTED above, a nested
// tuple) is nullopt; malformed text is INVALID_ARGUMENT at its place.
struct ShardingList {
  bool tuple = false;
  std::vector<std::optional<HloSharding>> elements;  // one unless tuple
};
StatusOr<ShardingList> ParseHloShardingList(std::string_view text,
                                            const std::string& where);

// `[1,2,3]` or `(1,0)`: integers between `open` and `close`.
Status ParseDelimitedInts(Scanner& s, std::vector<int64_t>& out, char open,
                          char close);

// The ids 0..N-1 laid out as `reshape` dims, transposed by `permutation`
// (empty: none), read in order: iota tile assignments and replica groups.
std::vector<int64_t> ExpandIotaDevices(const std::vector<int64_t>& reshape,
                                       const std::vector<int64_t>& permutation);

}  // namespace xffi::hlo

#endif  // XFFI_SRC_TEXT_HLO_SHARDING_H_
