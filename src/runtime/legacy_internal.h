// Private to libxffi: what the legacy registry, the legacy call layer and the
// plugin loader share.
#ifndef XFFI_SRC_RUNTIME_LEGACY_INTERNAL_H_
#define XFFI_SRC_RUNTIME_LEGACY_INTERNAL_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xffi/custom_call_status.h"
#include "xffi/runtime/status.h"

// The status a legacy target writes into; successful until told otherwise.
struct XlaCustomCallStatus_ {
  std::optional<std::string> failure;
};

namespace xffi::internal {

// While alive, legacy registrations made on this thread (by the static
// initializers of a library being opened) are attributed to `origin`, and
// their failures are collected instead of printed, so the loader can report
// them. Scopes nest; the innermost wins.
class LegacyRegistrationScope {
 public:
  explicit LegacyRegistrationScope(std::string origin);
  ~LegacyRegistrationScope();
  LegacyRegistrationScope(const LegacyRegistrationScope&) = delete;
  LegacyRegistrationScope& operator=(const LegacyRegistrationScope&) = delete;

  const std::string& origin() const { return origin_; }
  std::vector<Status> TakeErrors() { return std::move(errors_); }

  // The innermost scope of this thread, or null.
  static LegacyRegistrationScope* Current();
  void AddError(Status status) { errors_.push_back(std::move(status)); }

 private:
  std::string origin_;
  std::vector<Status> errors_;
  LegacyRegistrationScope* outer_;
};

// "0x7f12... (subtract_f32 in /path/libsubtract_f32.so)", as much as the
// dynamic linker knows about an address.
std::string DescribeAddress(const void* address);

}  // namespace xffi::internal

#endif  // XFFI_SRC_RUNTIME_LEGACY_INTERNAL_H_
