// The parity handlers' one line of difference, xffi's side: xffi's headers,
// and the namespace handler code names as PARITY_NS.
#ifndef XFFI_TESTS_XLA_PARITY_PRELUDE_XFFI_H_
#define XFFI_TESTS_XLA_PARITY_PRELUDE_XFFI_H_

#include "xffi/ffi.h"
#include "xffi/ffi/collectives.h"
#include "xffi/ffi/record.h"

#define PARITY_NS xffi::ffi

#endif  // XFFI_TESTS_XLA_PARITY_PRELUDE_XFFI_H_
