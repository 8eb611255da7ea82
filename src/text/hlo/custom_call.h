// xffi: the custom-call attributes of HLO text, shared by the parser and the
// printer: API version names, and how a parsed call's layouts and backend
// config become a CustomCallConfig.
#ifndef XFFI_SRC_TEXT_HLO_CUSTOM_CALL_H_
#define XFFI_SRC_TEXT_HLO_CUSTOM_CALL_H_

#include <optional>
#include <string>
#include <string_view>

#include "text/hlo/scanner.h"
#include "xffi/program/ir.h"

namespace xffi::hlo {

// "API_VERSION_TYPED_FFI" and the other CustomCallApiVersion names.
std::string_view ApiVersionName(CustomCallApiVersion version);
std::optional<CustomCallApiVersion> ApiVersionFromName(std::string_view name);

std::string_view ScheduleName(CustomCallSchedule schedule);

// Completes a custom call once its attributes are read: with
// operand_layout_constraints the result shape's layouts are the result
// layouts (one per leaf), and a typed FFI call's backend_config becomes its
// attribute dictionary. `at` is the instruction's position, for messages.
Status FinishCustomCallConfig(Instruction& instruction, const Scanner& scanner,
                              TextPos at);

// The backend_config text a typed FFI call prints: its attribute dictionary.
std::string TypedFfiBackendConfig(const CustomCallConfig& config);

}  // namespace xffi::hlo

#endif  // XFFI_SRC_TEXT_HLO_CUSTOM_CALL_H_
