/* A test plugin written in C: the legacy macros and the status functions
 * work without C++. C cannot see a function's parameter count, so these
 * targets leave the API version to the call site. */
#include "xffi/custom_call_target.h"

static void c_negate(void* out, const void** in) {
  *(float*)out = -*(const float*)in[0];
}

static void c_fail(void* out, const void** in, XlaCustomCallStatus* status) {
  (void)out;
  (void)in;
  XlaCustomCallStatusSetFailure(status, "failed in C", 11);
}

XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET(c_negate)
XFFI_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM("c_fail", c_fail, "Host")
