/* xffi: the status a legacy custom-call target reports its failure through.
 *
 * Targets of API versions 2 and 3 (STATUS_RETURNING, STATUS_RETURNING_UNIFIED)
 * receive an XlaCustomCallStatus* as their last parameter. The names and
 * signatures are XLA's, so a target written for XLA compiles against this
 * header unchanged, and a target compiled against either header runs in
 * either runtime: the functions are provided by the process that calls the
 * target (libxffi here, XLA inside JAX), never by the target's library.
 *
 * Pure C; a status starts out successful, so a target that never fails may
 * ignore it. */
#ifndef XFFI_CUSTOM_CALL_STATUS_H_
#define XFFI_CUSTOM_CALL_STATUS_H_

#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define XFFI_CUSTOM_CALL_STATUS_API __attribute__((visibility("default")))
#else
#define XFFI_CUSTOM_CALL_STATUS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque; owned by the runtime for the duration of one call. The struct tag
 * is XLA's, so code that forward-declares it keeps compiling. */
typedef struct XlaCustomCallStatus_ XlaCustomCallStatus;

/* Marks the call successful, undoing an earlier failure. */
XFFI_CUSTOM_CALL_STATUS_API void XlaCustomCallStatusSetSuccess(
    XlaCustomCallStatus* status);

/* Marks the call failed. The message is copied: at most message_len bytes,
 * stopping early at a NUL, so strlen(msg) and a generous bound both work. The
 * runtime reports it, naming the target, and discards the call's results. */
XFFI_CUSTOM_CALL_STATUS_API void XlaCustomCallStatusSetFailure(
    XlaCustomCallStatus* status, const char* message, size_t message_len);

#ifdef __cplusplus
}
#endif

#endif /* XFFI_CUSTOM_CALL_STATUS_H_ */
