// A test plugin whose legacy registration collides with one the test made
// first, so loading it reports the registry's error.
#include "xffi/custom_call_target.h"

namespace {
void conflicting(void*, const void**) {}
}  // namespace

XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM("plugin_conflict", conflicting);
