// The Record extension for C++ handlers, with XLA's names (record_api.h):
//
//   ffi::Ffi::BindRecord()
//       .Ctx<ffi::Extension<ffi::RecordExtension>>()
//       .RemainingArgs().RemainingRets()
//       .To([](ffi::RecordContext record, ffi::RemainingArgs args,
//              ffi::RemainingRets rets) -> ffi::Error {
//         if (record.action() == ffi::RecordAction::kCreate) {
//           auto copy = record.CreateMemcpyD2D(dst, src, bytes);
//           ...
//         } else {
//           record.UpdateMemcpyD2D(record.commands()[0], dst, src, bytes);
//         }
//       });
//
// XLA spells the context internal::RecordContextBase<internal::ErrorPolicy>
// and the extension internal::RecordExtensionBase<that>; both spellings work
// here, RecordContext and RecordExtension are xffi's short names for them.
#ifndef XFFI_FFI_RECORD_H_
#define XFFI_FFI_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <type_traits>
#include <variant>
#include <vector>

#include "xffi/c_api.h"
#include "xffi/ffi.h"
#include "xffi/record_c_api.h"

namespace xffi::ffi {

// A kernel argument passed as the device pointer it is.
struct DevicePointer {
  void* ptr;
};

// A kernel argument passed by value: `size` (> 0) bytes at `ptr`, which the
// runtime copies when recording.
struct HostValue {
  const void* ptr;
  size_t size;
};

using KernelArg = std::variant<DevicePointer, HostValue>;

enum class SourceFormat {
  kPtx = XLA_FFI_SourceFormat_PTX,
  kCubin = XLA_FFI_SourceFormat_CUBIN,
  kFunctionPtr = XLA_FFI_SourceFormat_FUNCTION_PTR,
};

enum class RecordAction {
  kCreate = XLA_FFI_RecordAction_Create,
  kUpdate = XLA_FFI_RecordAction_Update,
};

namespace internal {
template <typename ErrorPolicy>
class RecordContextBase;
}  // namespace internal

// The frame's command handles, in the order they were created: read them on
// Update; the record context appends to them on Create, up to capacity().
// Does not own the storage.
class BoundedCommandVector {
 public:
  BoundedCommandVector(const XLA_FFI_Command** commands, int64_t* num_commands,
                       int64_t max_commands)
      : commands_(commands),
        num_commands_(num_commands),
        max_commands_(max_commands) {}

  const XLA_FFI_Command* operator[](size_t index) const {
    return commands_[index];
  }
  bool has_storage() const { return commands_ != nullptr; }
  int64_t size() const { return *num_commands_; }
  int64_t capacity() const { return max_commands_; }

 private:
  template <typename>
  friend class internal::RecordContextBase;

  // False when there is no room (or no storage) left.
  bool push_back(const XLA_FFI_Command* command) {
    if (!has_storage() || size() >= max_commands_) return false;
    commands_[(*num_commands_)++] = command;
    return true;
  }

  const XLA_FFI_Command** commands_;
  int64_t* num_commands_;
  int64_t max_commands_;
};

namespace internal {

// A callable with every lambda's operator(), for std::visit.
template <class... Fs>
struct Overload : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overload(Fs...) -> Overload<Fs...>;

// The recording functions of one frame, reporting errors through
// ErrorPolicy (Error and ErrorOr<T> here).
template <typename ErrorPolicy>
class RecordContextBase {
 public:
  using Status = typename ErrorPolicy::Status;
  template <typename T>
  using StatusOr = typename ErrorPolicy::template StatusOr<T>;

  RecordContextBase(const XLA_FFI_Api* api, const XLA_FFI_RecordFrame* frame)
      : api_(api), frame_(frame) {}

  RecordAction action() const {
    return static_cast<RecordAction>(frame_->action);
  }

  BoundedCommandVector commands() const {
    return BoundedCommandVector(frame_->commands, frame_->num_commands,
                                frame_->max_commands);
  }

  // `args` holds KernelArg values or plain device pointers (void*).
  // kernel_data is PTX or CUBIN bytes, or a loaded function with
  // kernel_size 0.
  template <typename KernelArgSpan,
            typename DepSpan = std::initializer_list<const XLA_FFI_Command*>>
  StatusOr<const XLA_FFI_Command*> CreateLaunch(
      const char* kernel_name, const void* kernel_data, size_t kernel_size,
      SourceFormat format, XLA_FFI_LaunchDims launch_dims,
      uint32_t shared_mem_bytes, bool uses_pdl, const KernelArgSpan& args,
      const DepSpan& dependencies = {}) {
    if (kernel_data == nullptr) {
      return ErrorPolicy::FromErrorCode(
          XLA_FFI_Error_Code_INVALID_ARGUMENT,
          "kernel_data/function_ptr must not be null during create_launch.");
    }
    std::vector<XLA_FFI_KernelArg> raw = ToRawArgs(args);
    XLA_FFI_KernelArgs kernel_args{raw.data(),
                                   static_cast<int64_t>(raw.size())};
    const XLA_FFI_Command* command = nullptr;
    XLA_FFI_Error* error = frame_->api->create_launch(
        frame_->record_ctx, kernel_name, kernel_data,
        static_cast<int64_t>(kernel_size),
        static_cast<XLA_FFI_SourceFormat>(format), launch_dims,
        shared_mem_bytes, static_cast<int32_t>(uses_pdl), &kernel_args,
        std::data(dependencies), static_cast<uint32_t>(std::size(dependencies)),
        &command);
    return Created(error, command, "create_launch");
  }

  template <typename KernelArgSpan>
  Status UpdateLaunch(const XLA_FFI_Command* command,
                      const KernelArgSpan& args) {
    std::vector<XLA_FFI_KernelArg> raw = ToRawArgs(args);
    XLA_FFI_KernelArgs kernel_args{raw.data(),
                                   static_cast<int64_t>(raw.size())};
    return Done(
        frame_->api->update_launch(frame_->record_ctx, command, &kernel_args));
  }

  template <typename DepSpan = std::initializer_list<const XLA_FFI_Command*>>
  StatusOr<const XLA_FFI_Command*> CreateEmptyCommand(
      DepSpan dependencies = {}) {
    const XLA_FFI_Command* command = nullptr;
    XLA_FFI_Error* error = frame_->api->create_empty_command(
        frame_->record_ctx, std::data(dependencies),
        static_cast<uint32_t>(std::size(dependencies)), &command);
    return Created(error, command, "create_empty_command");
  }

  Status RequestStreamCapture() {
    return Done(frame_->api->request_stream_capture(frame_->record_ctx));
  }

  template <typename DepSpan = std::initializer_list<const XLA_FFI_Command*>>
  StatusOr<const XLA_FFI_Command*> CreateMemcpyD2D(void* dst, void* src,
                                                   size_t size,
                                                   DepSpan dependencies = {}) {
    const XLA_FFI_Command* command = nullptr;
    XLA_FFI_Error* error = frame_->api->create_memcpy_d2d(
        frame_->record_ctx, dst, src, static_cast<int64_t>(size),
        std::data(dependencies), static_cast<uint32_t>(std::size(dependencies)),
        &command);
    return Created(error, command, "create_memcpy_d2d");
  }

  Status UpdateMemcpyD2D(const XLA_FFI_Command* command, void* dst, void* src,
                         size_t size) {
    return Done(frame_->api->update_memcpy_d2d(
        frame_->record_ctx, command, dst, src, static_cast<int64_t>(size)));
  }

 private:
  template <typename KernelArgSpan>
  static std::vector<XLA_FFI_KernelArg> ToRawArgs(const KernelArgSpan& args) {
    std::vector<XLA_FFI_KernelArg> raw;
    raw.reserve(std::size(args));
    for (const auto& arg : args) {
      using Arg = std::remove_cv_t<std::remove_reference_t<decltype(arg)>>;
      if constexpr (std::is_same_v<Arg, KernelArg>) {
        std::visit(Overload{[&](const DevicePointer& pointer) {
                              raw.push_back({pointer.ptr, 0,
                                             XLA_FFI_KernelArgType_DevicePtr});
                            },
                            [&](const HostValue& value) {
                              raw.push_back({value.ptr,
                                             static_cast<int64_t>(value.size),
                                             XLA_FFI_KernelArgType_HostValue});
                            }},
                   arg);
      } else {
        raw.push_back({arg, 0, XLA_FFI_KernelArgType_DevicePtr});
      }
    }
    return raw;
  }

  Status Done(XLA_FFI_Error* error) {
    if (error != nullptr) return ErrorPolicy::TakeError(api_, error);
    return ErrorPolicy::Ok();
  }

  // A new command is appended to the frame's commands, XLA's messages for
  // what can go wrong.
  StatusOr<const XLA_FFI_Command*> Created(XLA_FFI_Error* error,
                                           const XLA_FFI_Command* command,
                                           const char* function) {
    if (error != nullptr) return ErrorPolicy::TakeError(api_, error);
    if (command == nullptr) {
      return ErrorPolicy::FromErrorCode(
          XLA_FFI_Error_Code_INTERNAL,
          StrCat("out_command is null but no error was returned during ",
                 function, "."));
    }
    if (!commands().push_back(command)) {
      return ErrorPolicy::FromErrorCode(
          XLA_FFI_Error_Code_RESOURCE_EXHAUSTED,
          "Maximum number of commands that can be recorded per FFI::Record "
          "call has been reached.");
    }
    return command;
  }

  const XLA_FFI_Api* api_;
  const XLA_FFI_RecordFrame* frame_;
};

// Describes the Record extension to CtxDecoding<Extension<...>>.
template <typename RecordContextT>
struct RecordExtensionBase {
  using Type = RecordContextT;
  using CExtension = XLA_FFI_Record_Extension;

  static constexpr auto kName = "RecordExtension";
  static constexpr int32_t kExtensionType = XLA_FFI_Extension_Record;
  static constexpr int32_t kMajorVersion =
      XLA_FFI_Extension_Record_MajorVersion;
  static constexpr int32_t kMinorVersion =
      XLA_FFI_Extension_Record_MinorVersion;

  static RecordContextT Create(const XLA_FFI_Api* api, const CExtension* ext) {
    return RecordContextT(api, ext->record_frame);
  }
};

}  // namespace internal

using RecordContext = internal::RecordContextBase<internal::ErrorPolicy>;
using RecordExtension = internal::RecordExtensionBase<RecordContext>;

// The extension a runtime attaches for `frame` (its `next` is null).
inline XLA_FFI_Record_Extension BuildRecordCExtension(
    XLA_FFI_RecordFrame* frame) {
  XLA_FFI_Record_Extension extension;
  extension.extension_base =
      MakeExtensionHeader<internal::RecordExtensionBase<void>>();
  extension.record_frame = frame;
  return extension;
}

}  // namespace xffi::ffi

#endif  // XFFI_FFI_RECORD_H_
