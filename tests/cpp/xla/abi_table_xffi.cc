// Exports the ABI facts of xffi's c_api.h, once under the 0.5 spellings
// (compared exactly with the 0.5 header) and once under the 0.3 spellings
// xffi keeps for old callers (compared with the 0.3 header, where only the
// documented 0.4/0.5 changes may differ); and those of its extension
// headers (compared exactly with 0.5's).
#include "xffi/c_api.h"
#include "xffi/collectives_c_api.h"
#include "xffi/record_c_api.h"

#include "abi_table.h"

namespace {
const XffiAbiEntry kV05Names[] = {
#include "abi_entries_common.inc"
#include "abi_entries_v05_names.inc"
};
const XffiAbiEntry kV03Names[] = {
#include "abi_entries_common.inc"
#include "abi_entries_v03_names.inc"
};
const XffiAbiEntry kExtensions[] = {
#include "abi_entries_collectives.inc"
#include "abi_entries_record.inc"
};
}  // namespace

extern "C" XffiAbiTable XffiAbiTableXffiV05Names() {
  return XffiAbiTable{kV05Names, sizeof(kV05Names) / sizeof(kV05Names[0])};
}

extern "C" XffiAbiTable XffiAbiTableXffiV03Names() {
  return XffiAbiTable{kV03Names, sizeof(kV03Names) / sizeof(kV03Names[0])};
}

extern "C" XffiAbiTable XffiAbiTableXffiExtensions() {
  return XffiAbiTable{kExtensions,
                      sizeof(kExtensions) / sizeof(kExtensions[0])};
}
