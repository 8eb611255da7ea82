// xffi: the runtime's C++ API (libxffi). One piece header per concept.
#ifndef XFFI_RUNTIME_H_
#define XFFI_RUNTIME_H_

#include "xffi/c_api.h"
#include "xffi/runtime/api.h"
#include "xffi/runtime/attributes.h"
#include "xffi/runtime/call.h"
#include "xffi/runtime/call_frame.h"
#include "xffi/runtime/collectives.h"
#include "xffi/runtime/command_buffer.h"
#include "xffi/runtime/context.h"
#include "xffi/runtime/future.h"
#include "xffi/runtime/introspect.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/platform.h"
#include "xffi/runtime/plugin.h"
#include "xffi/runtime/registry.h"
#include "xffi/runtime/status.h"
#include "xffi/runtime/thread_pool.h"
#include "xffi/runtime/types.h"

#endif  // XFFI_RUNTIME_H_
