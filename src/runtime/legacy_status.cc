// The C functions legacy targets report failure through (custom_call_status.h).
#include <cstring>

#include "runtime/legacy_internal.h"
#include "xffi/custom_call_status.h"

extern "C" {

void XlaCustomCallStatusSetSuccess(XlaCustomCallStatus* status) {
  if (status == nullptr) return;
  status->failure.reset();
}

void XlaCustomCallStatusSetFailure(XlaCustomCallStatus* status,
                                   const char* message, size_t message_len) {
  if (status == nullptr) return;
  if (message == nullptr) {
    status->failure.emplace();
    return;
  }
  // XLA reads at most message_len bytes and stops at a NUL: callers pass
  // strlen() or a buffer's capacity.
  status->failure.emplace(message, strnlen(message, message_len));
}

}  // extern "C"
