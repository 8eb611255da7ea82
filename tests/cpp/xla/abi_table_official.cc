// Exports the ABI facts of XLA's official c_api.h. Built once per official
// include dir; CMake names the exported function (XFFI_ABI_TABLE_FN) after
// the FFI version that dir was found to hold. Nothing but the official
// header may be included before the entry lists, or the facts would not be
// the official header's own.
#include "xla/ffi/api/c_api.h"

#include "abi_table.h"

#ifndef XFFI_ABI_TABLE_FN
#error "CMake must define XFFI_ABI_TABLE_FN"
#endif

namespace {
const XffiAbiEntry kEntries[] = {
#include "abi_entries_common.inc"
#if XLA_FFI_API_MINOR >= 4
#include "abi_entries_v05_names.inc"
#else
#include "abi_entries_v03_names.inc"
#endif
};
}  // namespace

extern "C" XffiAbiTable XFFI_ABI_TABLE_FN() {
  return XffiAbiTable{kEntries, sizeof(kEntries) / sizeof(kEntries[0])};
}
