// A table of ABI facts (offsets, sizes, STRUCT_SIZE constants, enum values)
// that one translation unit exports through an extern "C" function, so that
// facts computed from XLA's official c_api.h and from xffi's c_api.h can be
// compared in a third TU that includes neither. This header includes no C
// API header itself: the TU that expands the XFFI_ABI_* macros decides which.
#ifndef XFFI_TESTS_XLA_ABI_TABLE_H_
#define XFFI_TESTS_XLA_ABI_TABLE_H_

#include <stddef.h>
#include <stdint.h>

extern "C" {

struct XffiAbiEntry {
  const char* name;
  int64_t value;
};

struct XffiAbiTable {
  const XffiAbiEntry* entries;
  size_t size;
};

// Facts from jaxlib 0.10.2's header (FFI 0.3), with 0.3 spellings.
XffiAbiTable XffiAbiTableOfficialV03();
// Facts from jaxlib 0.12.0.1's header (FFI 0.5), with 0.5 spellings.
XffiAbiTable XffiAbiTableOfficialV05();
// Facts from xffi's header, with the 0.5 spellings.
XffiAbiTable XffiAbiTableXffiV05Names();
// Facts from xffi's header, with the 0.3 spellings it keeps for old callers.
XffiAbiTable XffiAbiTableXffiV03Names();
// Facts from the record and collectives extension headers: jaxlib
// 0.12.0.1's and xffi's.
XffiAbiTable XffiAbiTableOfficialExtensions();
XffiAbiTable XffiAbiTableXffiExtensions();

}  // extern "C"

// Expansions of the entry lists (abi_entries_*.inc) into XffiAbiEntry
// initializers. A field contributes its offset and its size, so a changed
// field type is caught even when the offsets of its neighbours are not.
#define XFFI_ABI_STRUCT(S)                         \
  {#S " sizeof", static_cast<int64_t>(sizeof(S))}, \
      {#S " alignof", static_cast<int64_t>(alignof(S))},
#define XFFI_ABI_FIELD(S, f)                                   \
  {#S "." #f " offset", static_cast<int64_t>(offsetof(S, f))}, \
      {#S "." #f " sizeof",                                    \
       static_cast<int64_t>(sizeof(static_cast<S*>(nullptr)->f))},
#define XFFI_ABI_STRUCT_SIZE(S) \
  {#S "_STRUCT_SIZE", static_cast<int64_t>(S##_STRUCT_SIZE)},
#define XFFI_ABI_ENUM(E) {#E, static_cast<int64_t>(E)},

#endif  // XFFI_TESTS_XLA_ABI_TABLE_H_
