// xffi: the runtime's C++ API (libxffi).
#ifndef XFFI_RUNTIME_H_
#define XFFI_RUNTIME_H_

#include "xffi/c_api.h"
#include "xffi/runtime/api.h"
#include "xffi/runtime/call.h"
#include "xffi/runtime/context.h"
#include "xffi/runtime/future.h"
#include "xffi/runtime/platform.h"
#include "xffi/runtime/registry.h"
#include "xffi/runtime/status.h"
#include "xffi/runtime/thread_pool.h"
#include "xffi/runtime/types.h"

// ---- Owned by the legacy+plugins helper: legacy custom-call targets and
// ---- plugin loading. Included when present so this umbrella builds before
// ---- they land.
#if __has_include("xffi/runtime/legacy.h")
#include "xffi/runtime/legacy.h"
#endif
#if __has_include("xffi/runtime/plugin.h")
#include "xffi/runtime/plugin.h"
#endif
// ---- End of the legacy+plugins spot.

#endif  // XFFI_RUNTIME_H_
