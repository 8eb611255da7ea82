// Exports the ABI facts of XLA's official extension headers (record and
// collectives, shipped from FFI 0.5 on). Built only against the FFI 0.5
// include dir. Nothing but the official headers may be included before the
// entry lists, or the facts would not be the official headers' own.
#include "xla/ffi/api/collectives_c_api.h"
#include "xla/ffi/api/record_c_api.h"

#include "abi_table.h"

namespace {
const XffiAbiEntry kEntries[] = {
#include "abi_entries_collectives.inc"
#include "abi_entries_record.inc"
};
}  // namespace

extern "C" XffiAbiTable XffiAbiTableOfficialExtensions() {
  return XffiAbiTable{kEntries, sizeof(kEntries) / sizeof(kEntries[0])};
}
