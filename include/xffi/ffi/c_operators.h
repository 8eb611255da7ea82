// Operators on the C ABI's plain types. They live at global scope, as XLA
// declares them: the C structs and enums belong to the global namespace, so
// only there does argument-dependent lookup find them from any code.
//   ==, !=  on XLA_FFI_TypeId, XLA_FFI_Api_Version, XLA_FFI_Metadata and
//           XLA_FFI_Handler_Bundle (the structs XLA compares)
//   <<      on XLA_FFI_DataType ("F32"), XLA_FFI_AttrType ("scalar") and
//           XLA_FFI_ExecutionStage ("execute"), XLA's spellings
#ifndef XFFI_FFI_C_OPERATORS_H_
#define XFFI_FFI_C_OPERATORS_H_

#include <ostream>

#include "xffi/c_api.h"
#include "xffi/ffi/types.h"

inline bool operator==(const XLA_FFI_TypeId& a, const XLA_FFI_TypeId& b) {
  return a.type_id == b.type_id;
}
inline bool operator!=(const XLA_FFI_TypeId& a, const XLA_FFI_TypeId& b) {
  return !(a == b);
}

// Only the version numbers: struct_size and the extension chain say how a
// caller laid the struct out, not which version it names.
inline bool operator==(const XLA_FFI_Api_Version& a,
                       const XLA_FFI_Api_Version& b) {
  return a.major_version == b.major_version &&
         a.minor_version == b.minor_version;
}
inline bool operator!=(const XLA_FFI_Api_Version& a,
                       const XLA_FFI_Api_Version& b) {
  return !(a == b);
}

inline bool operator==(const XLA_FFI_Metadata& a, const XLA_FFI_Metadata& b) {
  return a.api_version == b.api_version && a.traits == b.traits &&
         a.state_type_id == b.state_type_id;
}
inline bool operator!=(const XLA_FFI_Metadata& a, const XLA_FFI_Metadata& b) {
  return !(a == b);
}

// XLA's own operator compares the first four members only; a bundle that
// differs in its record handler is a different bundle, so xffi compares it
// too.
inline bool operator==(const XLA_FFI_Handler_Bundle& a,
                       const XLA_FFI_Handler_Bundle& b) {
  return a.instantiate == b.instantiate && a.prepare == b.prepare &&
         a.initialize == b.initialize && a.execute == b.execute &&
         a.record == b.record;
}
inline bool operator!=(const XLA_FFI_Handler_Bundle& a,
                       const XLA_FFI_Handler_Bundle& b) {
  return !(a == b);
}

inline std::ostream& operator<<(std::ostream& os, XLA_FFI_DataType dtype) {
  return os << ::xffi::ffi::DataTypeName(dtype);
}

inline std::ostream& operator<<(std::ostream& os, XLA_FFI_AttrType type) {
  switch (type) {
    case XLA_FFI_AttrType_ARRAY:
      return os << "array";
    case XLA_FFI_AttrType_DICTIONARY:
      return os << "dictionary";
    case XLA_FFI_AttrType_SCALAR:
      return os << "scalar";
    case XLA_FFI_AttrType_STRING:
      return os << "string";
  }
  return os << "attribute type " << static_cast<int>(type);
}

inline std::ostream& operator<<(std::ostream& os,
                                XLA_FFI_ExecutionStage stage) {
  switch (stage) {
    case XLA_FFI_ExecutionStage_INSTANTIATE:
      return os << "instantiate";
    case XLA_FFI_ExecutionStage_PREPARE:
      return os << "prepare";
    case XLA_FFI_ExecutionStage_INITIALIZE:
      return os << "initialize";
    case XLA_FFI_ExecutionStage_EXECUTE:
      return os << "execute";
    case XLA_FFI_ExecutionStage_RECORD:
      return os << "record";
  }
  return os << "stage " << static_cast<int>(stage);
}

namespace xffi::ffi {

// XLA declares these two in its namespace rather than globally.
inline std::ostream& operator<<(std::ostream& os, XLA_FFI_ArgType type) {
  if (type == XLA_FFI_ArgType_BUFFER) return os << "buffer";
  return os << "argument type " << static_cast<int>(type);
}

inline std::ostream& operator<<(std::ostream& os, XLA_FFI_RetType type) {
  if (type == XLA_FFI_RetType_BUFFER) return os << "buffer";
  return os << "result type " << static_cast<int>(type);
}

}  // namespace xffi::ffi

#endif  // XFFI_FFI_C_OPERATORS_H_
