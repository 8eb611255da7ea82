// User types and the decoders a handler author writes for them against
// XLA's ffi.h: Arg/Ret/Attr/CtxDecoding specialisations taking a
// DiagnosticEngine&, an AttrBinding, a CtxBinding and a ResultEncoding.
// Written once against PARITY_NS, which the includer defines as the
// namespace of the FFI header it uses (xla::ffi or xffi::ffi): the parity
// handlers include it under both, test_ffi_decoders under xffi's.
#ifndef XFFI_TESTS_XLA_PARITY_XLA_STYLE_DECODERS_H_
#define XFFI_TESTS_XLA_PARITY_XLA_STYLE_DECODERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#ifndef PARITY_NS
#error "define PARITY_NS as the FFI header's namespace before including this"
#endif

namespace user {

// An S64 array attribute of exactly two values.
struct Range {
  int64_t lo;
  int64_t hi;
};

// A rank-2 F32 argument or result.
struct Matrix {
  float* data;
  int64_t rows;
  int64_t cols;
};

// Where a call runs, from its context.
struct Where {
  int64_t run_id;
  int32_t device;
};

// A float attribute named "scale", bound by BindTo through AttrBinding.
struct Scale {
  Scale(float v) : value(v) {}  // NOLINT: BindTo converts the decoded float
  float value;
};

// The user's own status type.
struct Status {
  bool ok;
  std::string message;
};

}  // namespace user

namespace PARITY_NS {

template <>
struct AttrDecoding<user::Range> {
  using Type = user::Range;
  static bool Isa(XLA_FFI_AttrType type, void* attr) {
    return type == XLA_FFI_AttrType_ARRAY &&
           reinterpret_cast<XLA_FFI_Array*>(attr)->dtype ==
               XLA_FFI_DataType_S64;
  }
  static std::optional<Type> Decode(XLA_FFI_AttrType type, void* attr,
                                    DiagnosticEngine& diagnostic) {
    if (type != XLA_FFI_AttrType_ARRAY) {
      return diagnostic.Emit("range: expected ")
             << XLA_FFI_AttrType_ARRAY << " but got " << type;
    }
    auto* array = reinterpret_cast<XLA_FFI_Array*>(attr);
    if (array->dtype != XLA_FFI_DataType_S64 || array->size != 2) {
      return diagnostic.Emit("range: two S64 values, got ")
             << array->size << " of " << array->dtype;
    }
    auto* values = reinterpret_cast<int64_t*>(array->data);
    return user::Range{values[0], values[1]};
  }
};

// Composes with the header's own buffer decoders, as XLA decoders do.
template <>
struct ArgDecoding<user::Matrix> {
  static bool Isa(XLA_FFI_ArgType type, void* arg) {
    return ArgDecoding<Buffer<F32, 2>>::Isa(type, arg);
  }
  static std::optional<user::Matrix> Decode(XLA_FFI_ArgType type, void* arg,
                                            DiagnosticEngine& diagnostic) {
    std::optional<Buffer<F32, 2>> buffer =
        ArgDecoding<Buffer<F32, 2>>::Decode(type, arg, diagnostic);
    if (!buffer.has_value()) {
      return diagnostic.Emit(" (matrix: F32 of rank 2)");
    }
    return user::Matrix{buffer->typed_data(), buffer->dimensions()[0],
                        buffer->dimensions()[1]};
  }
};

template <>
struct RetDecoding<user::Matrix> {
  static bool Isa(XLA_FFI_RetType type, void* ret) {
    return RetDecoding<Buffer<F32, 2>>::Isa(type, ret);
  }
  static std::optional<Result<user::Matrix>> Decode(
      XLA_FFI_RetType type, void* ret, DiagnosticEngine& diagnostic) {
    std::optional<Result<Buffer<F32, 2>>> buffer =
        RetDecoding<Buffer<F32, 2>>::Decode(type, ret, diagnostic);
    if (!buffer.has_value()) {
      return diagnostic.Emit(" (matrix result: F32 of rank 2)");
    }
    Buffer<F32, 2>& matrix = **buffer;
    return Result<user::Matrix>(user::Matrix{
        matrix.typed_data(), matrix.dimensions()[0], matrix.dimensions()[1]});
  }
};

template <>
struct CtxDecoding<user::Where> {
  using Type = user::Where;
  static std::optional<Type> Decode(const XLA_FFI_Api* api,
                                    XLA_FFI_ExecutionContext* ctx,
                                    DiagnosticEngine& diagnostic) {
    XLA_FFI_RunId_Get_Args run;
    run.struct_size = XLA_FFI_RunId_Get_Args_STRUCT_SIZE;
    run.extension_start = nullptr;
    run.ctx = ctx;
    run.run_id = 0;
    if (XLA_FFI_Error* error = api->XLA_FFI_RunId_Get(&run)) {
      diagnostic.Emit("where: ") << internal::GetErrorMessage(api, error);
      internal::DestroyError(api, error);
      return std::nullopt;
    }
    XLA_FFI_DeviceOrdinal_Get_Args device;
    device.struct_size = XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE;
    device.extension_start = nullptr;
    device.ctx = ctx;
    device.device_ordinal = 0;
    if (XLA_FFI_Error* error = api->XLA_FFI_DeviceOrdinal_Get(&device)) {
      diagnostic.Emit("where: ") << internal::GetErrorMessage(api, error);
      internal::DestroyError(api, error);
      return std::nullopt;
    }
    if (device.device_ordinal < 0) {
      return diagnostic.Emit("where: no device (ordinal ")
             << device.device_ordinal << ")";
    }
    return user::Where{run.run_id, device.device_ordinal};
  }
};

template <>
struct CtxBinding<user::Where> {
  using Ctx = user::Where;
};

template <>
struct AttrBinding<user::Scale> {
  using Attr = float;
  static constexpr std::string_view name() { return "scale"; }
};

template <ExecutionStage stage>
struct ResultEncoding<stage, user::Status> {
  static XLA_FFI_Error* Encode(const XLA_FFI_Api* api,
                               XLA_FFI_ExecutionContext*, user::Status status) {
    if (status.ok) return nullptr;
    XLA_FFI_Error_Create_Args args;
    args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.message = status.message.c_str();
    args.errc = XLA_FFI_Error_Code_ABORTED;
    return api->XLA_FFI_Error_Create(&args);
  }
};

}  // namespace PARITY_NS

#endif  // XFFI_TESTS_XLA_PARITY_XLA_STYLE_DECODERS_H_
