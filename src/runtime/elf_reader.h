// Private to libxffi: a bounds-checked reader of an ELF64 file's dynamic
// symbol table, so tools can list what a library exports without running
// any of its code. Malformed input is an error naming what is wrong, never
// an out-of-bounds read.
#ifndef XFFI_SRC_RUNTIME_ELF_READER_H_
#define XFFI_SRC_RUNTIME_ELF_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xffi/runtime/status.h"

namespace xffi::internal {

struct ElfSymbol {
  std::string name;
  uint8_t type = 0;        // STT_*
  uint8_t binding = 0;     // STB_*
  uint8_t visibility = 0;  // STV_*
  bool defined = false;    // st_shndx != SHN_UNDEF
  uint64_t value = 0;
  uint64_t size = 0;
};

// Parses the .dynsym of an ELF64 little-endian image. `what` (a path) names
// the image in errors. The null symbol at index 0 is left out.
StatusOr<std::vector<ElfSymbol>> ParseElfDynamicSymbols(const uint8_t* data,
                                                        size_t size,
                                                        std::string_view what);

// Checks what the dynamic linker trusts without checking: that the image is
// an ELF64 shared object for this machine whose program headers and loadable
// segments lie inside the file. glibc maps a truncated library and dies of
// SIGBUS touching the missing part, so the loader calls this first.
Status CheckElfLoadable(const uint8_t* data, size_t size,
                        std::string_view what);

// Reads a whole file; NOT_FOUND when it cannot be opened.
StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path);

// Reads the file at `path`, then parses it.
StatusOr<std::vector<ElfSymbol>> ReadElfDynamicSymbols(const std::string& path);

}  // namespace xffi::internal

#endif  // XFFI_SRC_RUNTIME_ELF_READER_H_
