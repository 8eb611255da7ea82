// xffi: early returns on an error Status, for the library's own sources
// (the IR, the text readers, the passes). Internal: not installed.
#ifndef XFFI_SRC_RUNTIME_STATUS_MACROS_H_
#define XFFI_SRC_RUNTIME_STATUS_MACROS_H_

#include <utility>

#include "xffi/runtime/status.h"

#define XFFI_STATUS_CONCAT_INNER(a, b) a##b
#define XFFI_STATUS_CONCAT(a, b) XFFI_STATUS_CONCAT_INNER(a, b)

#define XFFI_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::xffi::Status xffi_status_ = (expr);        \
    if (!xffi_status_.ok()) return xffi_status_; \
  } while (0)

// `lhs` may declare a variable: XFFI_ASSIGN_OR_RETURN(int x, Make()).
#define XFFI_ASSIGN_OR_RETURN(lhs, expr)                        \
  auto XFFI_STATUS_CONCAT(xffi_result_, __LINE__) = (expr);     \
  if (!XFFI_STATUS_CONCAT(xffi_result_, __LINE__).ok())         \
    return XFFI_STATUS_CONCAT(xffi_result_, __LINE__).status(); \
  lhs = std::move(*XFFI_STATUS_CONCAT(xffi_result_, __LINE__))

#endif  // XFFI_SRC_RUNTIME_STATUS_MACROS_H_
