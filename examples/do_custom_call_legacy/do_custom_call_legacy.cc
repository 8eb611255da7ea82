// A[i] = B[i % 128] + C[i], XLA's custom-call example, in the legacy
// (untyped) API versions, registered on Host:
//   "do_custom_call"        version 1, void(void* out, const void** in), the
//                           example exactly as XLA's documentation gives it:
//                           sizes hard-coded (B f32[128], C and A f32[2048])
//   "do_custom_call_status" version 2, adds XlaCustomCallStatus*: refuses a
//                           NaN in B instead of spreading it
//   "do_custom_call_v3"     version 3, adds the opaque bytes: they carry the
//                           length of C and A as decimal text ("2048"), so
//                           the size is no longer hard-coded, and bad text
//                           is reported through the status
//
// The library links no xffi library. Versions 2 and 3 call
// XlaCustomCallStatusSetFailure, which the process running the target
// provides (libxffi, or XLA), so that one symbol is resolved at load time.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "xffi/custom_call_status.h"
#include "xffi/custom_call_target.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr int64_t kPeriod = 128;
constexpr int64_t kDocumentedLength = 2048;

void Compute(int64_t length, const float* b, const float* c, float* a) {
  for (int64_t i = 0; i < length; ++i) a[i] = b[i % kPeriod] + c[i];
}

void Fail(XlaCustomCallStatus* status, const std::string& message) {
  XlaCustomCallStatusSetFailure(status, message.c_str(), message.size());
}

}  // namespace

EXPORT void do_custom_call(void* out, const void** in) {
  Compute(kDocumentedLength, static_cast<const float*>(in[0]),
          static_cast<const float*>(in[1]), static_cast<float*>(out));
}

EXPORT void do_custom_call_status(void* out, const void** in,
                                  XlaCustomCallStatus* status) {
  const float* b = static_cast<const float*>(in[0]);
  for (int64_t i = 0; i < kPeriod; ++i) {
    if (std::isnan(b[i])) {
      Fail(status,
           "do_custom_call_status: B[" + std::to_string(i) + "] is NaN");
      return;
    }
  }
  Compute(kDocumentedLength, b, static_cast<const float*>(in[1]),
          static_cast<float*>(out));
}

EXPORT void do_custom_call_v3(void* out, const void** in, const char* opaque,
                              size_t opaque_len, XlaCustomCallStatus* status) {
  std::string text(opaque, opaque_len);
  char* end = nullptr;
  long long length = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || length < 0) {
    Fail(status,
         "do_custom_call_v3: the opaque bytes must be the length of C as "
         "decimal text, got '" +
             text + "'");
    return;
  }
  Compute(length, static_cast<const float*>(in[0]),
          static_cast<const float*>(in[1]), static_cast<float*>(out));
}

XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET(do_custom_call);
XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET(do_custom_call_status);
XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET(do_custom_call_v3);
