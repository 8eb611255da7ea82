// The parity handlers' one line of difference, XLA's side: jaxlib 0.12's
// headers, and the namespace handler code names as PARITY_NS.
#ifndef XFFI_TESTS_XLA_PARITY_PRELUDE_XLA_H_
#define XFFI_TESTS_XLA_PARITY_PRELUDE_XLA_H_

#include "xla/ffi/api/collectives_api.h"
#include "xla/ffi/api/ffi.h"
#include "xla/ffi/api/record_api.h"

#define PARITY_NS xla::ffi

#endif  // XFFI_TESTS_XLA_PARITY_PRELUDE_XLA_H_
