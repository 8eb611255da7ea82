// Listing the handlers a library marks for export, from its ELF file alone.
#include <elf.h>

#include <algorithm>
#include <cstring>

#include "runtime/elf_reader.h"
#include "xffi/runtime/plugin.h"

namespace xffi {

StatusOr<std::vector<ExportedHandler>> ListExportedHandlers(
    const std::string& path) {
  StatusOr<std::vector<internal::ElfSymbol>> symbols =
      internal::ReadElfDynamicSymbols(path);
  if (!symbols.ok()) return symbols.status();
  constexpr std::string_view kPrefix = XFFI_EXPORT_MARKER_PREFIX;
  std::vector<ExportedHandler> handlers;
  for (const internal::ElfSymbol& symbol : *symbols) {
    // A marker is a defined, visible data object; an undefined reference to
    // a marker (a library using another's handler) is not an export.
    bool visible =
        symbol.visibility == STV_DEFAULT || symbol.visibility == STV_PROTECTED;
    bool global = symbol.binding == STB_GLOBAL || symbol.binding == STB_WEAK;
    if (!symbol.defined || !visible || !global || symbol.type != STT_OBJECT ||
        symbol.name.size() <= kPrefix.size() ||
        symbol.name.compare(0, kPrefix.size(), kPrefix) != 0) {
      continue;
    }
    handlers.push_back({symbol.name.substr(kPrefix.size()), nullptr});
  }
  std::sort(handlers.begin(), handlers.end(),
            [](const ExportedHandler& a, const ExportedHandler& b) {
              return a.name < b.name;
            });
  handlers.erase(
      std::unique(handlers.begin(), handlers.end(),
                  [](const ExportedHandler& a, const ExportedHandler& b) {
                    return a.name == b.name;
                  }),
      handlers.end());
  return handlers;
}

}  // namespace xffi
