// Fuzz target: ParseStableHlo on arbitrary text. A program it accepts must
// print as HLO text that ParseHlo reads back and that prints the same again.
#include <string>
#include <string_view>

#include "fuzz_targets.h"
#include "xffi/program/text.h"

namespace xffi::fuzz {

int FuzzStableHloParser(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<Module> module = ParseStableHlo(text, "fuzz.mlir");
  if (!module.ok()) {
    CheckErrorHasPosition("fuzz.mlir", module.status().message());
    return 0;
  }
  if (IsShapePolymorphic(*module)) {
    // Refinement as well, with each `?` of the entry's arguments taken as 2.
    ParseOptions options;
    options.argument_shapes.emplace();
    bool arrays = true;
    for (const Instruction* parameter : module->entry()->parameters()) {
      const Shape& shape = parameter->shape();
      arrays = arrays && shape.IsArray();
      std::vector<int64_t> dims = shape.dims();
      for (int64_t& d : dims)
        if (d == kDynamicDimension) d = 2;
      options.argument_shapes->push_back(
          Shape::Array(shape.element_type(), dims));
    }
    if (arrays) {
      StatusOr<Module> refined = ParseStableHlo(text, "fuzz.mlir", options);
      if (!refined.ok())
        CheckErrorHasPosition("fuzz.mlir", refined.status().message());
    }
  }
  std::string printed = PrintHlo(*module);
  StatusOr<Module> reparsed = ParseHlo(printed, "printed.hlo");
  if (!reparsed.ok())
    Fail("the printed program does not parse", text,
         reparsed.status().message() + "\n--- printed\n" + printed);
  std::string reprinted = PrintHlo(*reparsed);
  if (reprinted != printed)
    Fail("the reparsed program prints differently", text,
         printed + "\n--- reprinted\n" + reprinted);
  return 0;
}

}  // namespace xffi::fuzz

#ifndef XFFI_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return xffi::fuzz::FuzzStableHloParser(data, size);
}
#endif
