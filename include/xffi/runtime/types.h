// xffi: the registry of user types (user data and state).
//
// Handlers identify the C++ types they store in an execution context by a
// TypeId the runtime assigns at registration; the registry keeps each type's
// name, so errors can say which type was missing, and its TypeInfo deleter,
// so the runtime can destroy state it owns.
#ifndef XFFI_RUNTIME_TYPES_H_
#define XFFI_RUNTIME_TYPES_H_

#include <string>
#include <string_view>

#include "xffi/c_api.h"
#include "xffi/runtime/status.h"

namespace xffi {

// `requested` 0 asks for a fresh id (> 0); registering a name again returns
// its id. A nonzero `requested` id must not belong to another name, and must
// equal the name's id when the name is known. `info` (may be null) supplies
// the deleter used for state objects of this type; it is kept from the first
// registration that gives one.
StatusOr<XLA_FFI_TypeId> RegisterType(std::string_view name,
                                      XLA_FFI_TypeId requested,
                                      const XLA_FFI_TypeInfo* info);

// The registered name of `id`, or "" when the id is unknown.
std::string_view TypeName(XLA_FFI_TypeId id);

// The deleter registered for `id`, or null.
using TypeDeleter = void (*)(void*);
TypeDeleter TypeDeleterOf(XLA_FFI_TypeId id);

// "'name' (id N)" or "id N (unregistered)": how errors name a type.
std::string DescribeType(XLA_FFI_TypeId id);

}  // namespace xffi

#endif  // XFFI_RUNTIME_TYPES_H_
