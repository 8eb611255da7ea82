#include "cuda/capture_mode.h"

namespace xffi::cuda {

Status OutsideCaptureRules(const CaptureModeCalls& calls,
                           const std::function<Status()>& setup) {
  StatusOr<bool> capturing = calls.is_capturing();
  if (!capturing.ok()) return capturing.status();
  if (!*capturing) return setup();
  // The thread's mode is per thread and nests: swap relaxed in, and swap
  // the same value back, so whatever mode the caller had is restored.
  int mode = calls.relaxed_mode;
  if (Status relaxed = calls.exchange_mode(&mode); !relaxed.ok())
    return relaxed;
  Status status = setup();
  Status restored = calls.exchange_mode(&mode);
  return status.ok() ? restored : status;
}

}  // namespace xffi::cuda
