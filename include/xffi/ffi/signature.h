// Names of C++ types as a handler's signature reports them ("float",
// "std::string_view", "Buffer<F32, 2>"), for xffi's signature extension and
// for error messages.
#ifndef XFFI_FFI_SIGNATURE_H_
#define XFFI_FFI_SIGNATURE_H_

#include <complex>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace xffi::ffi::internal {

// The compiler's spelling of T, taken from the function signature it prints.
template <typename T>
std::string_view CompilerTypeName() {
#if defined(__clang__) || defined(__GNUC__)
  std::string_view pretty = __PRETTY_FUNCTION__;
  size_t start = pretty.find("T = ");
  if (start == std::string_view::npos) return "unknown";
  start += 4;
  size_t end = pretty.find_first_of(";]", start);
  return pretty.substr(start, end - start);
#else
  return "unknown";
#endif
}

// Portable names for the types users write most; the compiler's spelling for
// the rest (user enums, structs, stream types).
template <typename T>
std::string_view CppTypeName() {
  if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_same_v<T, int8_t>)
    return "int8_t";
  else if constexpr (std::is_same_v<T, int16_t>)
    return "int16_t";
  else if constexpr (std::is_same_v<T, int32_t>)
    return "int32_t";
  else if constexpr (std::is_same_v<T, int64_t>)
    return "int64_t";
  else if constexpr (std::is_same_v<T, uint8_t>)
    return "uint8_t";
  else if constexpr (std::is_same_v<T, uint16_t>)
    return "uint16_t";
  else if constexpr (std::is_same_v<T, uint32_t>)
    return "uint32_t";
  else if constexpr (std::is_same_v<T, uint64_t>)
    return "uint64_t";
  else if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, double>)
    return "double";
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return "std::complex<float>";
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return "std::complex<double>";
  else if constexpr (std::is_same_v<T, void*>)
    return "void*";
  else
    return CompilerTypeName<T>();
}

}  // namespace xffi::ffi::internal

#endif  // XFFI_FFI_SIGNATURE_H_
