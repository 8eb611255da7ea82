// CommandBuffer and the host implementation of XLA_FFI_RecordApi.
#include "xffi/runtime/command_buffer.h"

#include <cstdio>
#include <cstring>
#include <deque>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "runtime/api_internal.h"

// One recorded command. Handlers hold pointers to these; the deque that owns
// them never moves an element.
struct XLA_FFI_Command {
  enum class Kind { kMemcpy, kEmpty } kind;
  void* dst = nullptr;
  const void* src = nullptr;
  int64_t size = 0;
};

// The recording state a frame's record_ctx points at.
struct XLA_FFI_RecordContext {
  xffi::CommandBuffer::Impl* impl;
};

namespace xffi {

struct CommandBuffer::Impl {
  explicit Impl(int64_t max) : max_commands(max), handles(max) {}

  int64_t max_commands;
  bool recorded = false;
  bool stream_capture = false;
  std::deque<XLA_FFI_Command> commands;
  std::unordered_set<const XLA_FFI_Command*> known;
  // The frame's command list: what the handler created, in order.
  std::vector<const XLA_FFI_Command*> handles;
  int64_t num_handles = 0;
  XLA_FFI_RecordContext context{this};
  XLA_FFI_RecordFrame frame{};

  void Reset() {
    commands.clear();
    known.clear();
    num_handles = 0;
    stream_capture = false;
    recorded = false;
  }
};

namespace {

constexpr const char* kApi = "XLA_FFI_RecordApi";

Status Error(XLA_FFI_Error_Code code, const char* function,
             const std::string& message) {
  return Status(code, std::string(kApi) + "." + function + ": " + message);
}

std::string Hex(const void* p) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", p);
  return text;
}

// The checks every entry point shares: a context from this runtime and
// well-formed dependencies on commands it recorded.
Status CheckContext(const char* function, const XLA_FFI_RecordContext* ctx) {
  if (ctx == nullptr || ctx->impl == nullptr) {
    return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, function,
                 "the record context is null");
  }
  return Status::Ok();
}

Status CheckDependencies(const char* function, const CommandBuffer::Impl& impl,
                         const XLA_FFI_Command* const* dependencies,
                         uint32_t num_dependencies) {
  if (num_dependencies > 0 && dependencies == nullptr) {
    return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, function,
                 std::to_string(num_dependencies) +
                     " dependencies but the dependency array is null");
  }
  for (uint32_t i = 0; i < num_dependencies; ++i) {
    if (impl.known.count(dependencies[i]) == 0) {
      return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, function,
                   "dependency " + std::to_string(i) + " (" +
                       Hex(dependencies[i]) +
                       ") is not a command of this recording");
    }
  }
  return Status::Ok();
}

Status CheckCopy(const char* function, void* dst, const void* src,
                 int64_t size) {
  if (size < 0) {
    return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, function,
                 "size must not be negative, got " + std::to_string(size));
  }
  if (size > 0 && (dst == nullptr || src == nullptr)) {
    return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, function,
                 std::string(dst == nullptr ? "dst" : "src") +
                     " is null for a copy of " + std::to_string(size) +
                     " bytes");
  }
  return Status::Ok();
}

// Records `command` and hands it out.
XLA_FFI_Error* Add(CommandBuffer::Impl& impl, XLA_FFI_Command command,
                   const XLA_FFI_Command** out_command, const char* function) {
  if (out_command == nullptr) {
    return internal::MakeError(Error(XLA_FFI_Error_Code_INVALID_ARGUMENT,
                                     function, "out_command is null"));
  }
  impl.commands.push_back(command);
  const XLA_FFI_Command* added = &impl.commands.back();
  impl.known.insert(added);
  *out_command = added;
  return nullptr;
}

XLA_FFI_Error* NoKernels(const char* function, const char* kernel_name,
                         XLA_FFI_SourceFormat format) {
  static const char* const kFormats[] = {"PTX", "CUBIN", "FUNCTION_PTR"};
  int index = static_cast<int>(format);
  std::string kernel = kernel_name != nullptr
                           ? "kernel '" + std::string(kernel_name) + "'"
                           : std::string("a kernel");
  std::string form = index >= 0 && index < 3
                         ? kFormats[index]
                         : "format " + std::to_string(index);
  return internal::MakeError(Error(
      XLA_FFI_Error_Code_UNIMPLEMENTED, function,
      kernel + " (" + form +
          "): xffi's host command buffer cannot launch kernels; recording "
          "one needs a GPU runtime (the host records copies and joins)"));
}

XLA_FFI_Error* CreateLaunch(XLA_FFI_RecordContext* ctx, const char* name,
                            const void*, int64_t, XLA_FFI_SourceFormat format,
                            XLA_FFI_LaunchDims, uint32_t, int32_t,
                            const XLA_FFI_KernelArgs*,
                            const XLA_FFI_Command* const*, uint32_t,
                            const XLA_FFI_Command**) {
  if (Status s = CheckContext("create_launch", ctx); !s.ok()) {
    return internal::MakeError(std::move(s));
  }
  return NoKernels("create_launch", name, format);
}

XLA_FFI_Error* UpdateLaunch(XLA_FFI_RecordContext* ctx,
                            const XLA_FFI_Command* command,
                            const XLA_FFI_KernelArgs*) {
  if (Status s = CheckContext("update_launch", ctx); !s.ok()) {
    return internal::MakeError(std::move(s));
  }
  // No launch can have been created, so `command` is not one.
  return internal::MakeError(Error(
      XLA_FFI_Error_Code_INVALID_ARGUMENT, "update_launch",
      "command " + Hex(command) + " is not a kernel launch of this recording"));
}

XLA_FFI_Error* CreateMemcpyD2D(XLA_FFI_RecordContext* ctx, void* dst, void* src,
                               int64_t size,
                               const XLA_FFI_Command* const* dependencies,
                               uint32_t num_dependencies,
                               const XLA_FFI_Command** out_command) {
  constexpr const char* kFn = "create_memcpy_d2d";
  Status s = CheckContext(kFn, ctx);
  if (s.ok()) s = CheckCopy(kFn, dst, src, size);
  if (s.ok()) {
    s = CheckDependencies(kFn, *ctx->impl, dependencies, num_dependencies);
  }
  if (!s.ok()) return internal::MakeError(std::move(s));
  XLA_FFI_Command command{XLA_FFI_Command::Kind::kMemcpy, dst, src, size};
  return Add(*ctx->impl, command, out_command, kFn);
}

XLA_FFI_Error* UpdateMemcpyD2D(XLA_FFI_RecordContext* ctx,
                               const XLA_FFI_Command* command, void* dst,
                               void* src, int64_t size) {
  constexpr const char* kFn = "update_memcpy_d2d";
  Status s = CheckContext(kFn, ctx);
  if (s.ok()) s = CheckCopy(kFn, dst, src, size);
  if (!s.ok()) return internal::MakeError(std::move(s));
  if (ctx->impl->known.count(command) == 0 ||
      command->kind != XLA_FFI_Command::Kind::kMemcpy) {
    return internal::MakeError(
        Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, kFn,
              "command " + Hex(command) + " is not a copy of this recording"));
  }
  // The handle is const for the handler; the runtime owns the command.
  auto* mutable_command = const_cast<XLA_FFI_Command*>(command);
  mutable_command->dst = dst;
  mutable_command->src = src;
  mutable_command->size = size;
  return nullptr;
}

XLA_FFI_Error* RequestStreamCapture(XLA_FFI_RecordContext* ctx) {
  if (Status s = CheckContext("request_stream_capture", ctx); !s.ok()) {
    return internal::MakeError(std::move(s));
  }
  ctx->impl->stream_capture = true;
  return nullptr;
}

XLA_FFI_Error* CreateEmptyCommand(XLA_FFI_RecordContext* ctx,
                                  const XLA_FFI_Command* const* dependencies,
                                  uint32_t num_dependencies,
                                  const XLA_FFI_Command** out_command) {
  constexpr const char* kFn = "create_empty_command";
  Status s = CheckContext(kFn, ctx);
  if (s.ok()) {
    s = CheckDependencies(kFn, *ctx->impl, dependencies, num_dependencies);
  }
  if (!s.ok()) return internal::MakeError(std::move(s));
  return Add(*ctx->impl, XLA_FFI_Command{XLA_FFI_Command::Kind::kEmpty},
             out_command, kFn);
}

constexpr XLA_FFI_RecordApi kHostRecordApi = {
    CreateLaunch,    UpdateLaunch,         CreateMemcpyD2D,
    UpdateMemcpyD2D, RequestStreamCapture, CreateEmptyCommand,
};

}  // namespace

CommandBuffer::CommandBuffer(int64_t max_commands)
    : impl_(std::make_unique<Impl>(max_commands > 0 ? max_commands : 0)) {}

CommandBuffer::~CommandBuffer() = default;

bool CommandBuffer::recorded() const { return impl_->recorded; }
size_t CommandBuffer::size() const { return impl_->commands.size(); }
bool CommandBuffer::stream_capture_requested() const {
  return impl_->stream_capture;
}

void CommandBuffer::Execute() const {
  for (const XLA_FFI_Command& command : impl_->commands) {
    if (command.kind == XLA_FFI_Command::Kind::kMemcpy && command.size > 0) {
      // memmove: an overlapping copy is the recorder's mistake, not UB here.
      std::memmove(command.dst, command.src, static_cast<size_t>(command.size));
    }
  }
}

void CommandBuffer::Clear() { impl_->Reset(); }

XLA_FFI_RecordFrame* CommandBuffer::BeginRecording() {
  Impl& impl = *impl_;
  XLA_FFI_RecordAction action = XLA_FFI_RecordAction_Update;
  if (!impl.recorded) {
    impl.Reset();
    impl.recorded = true;
    action = XLA_FFI_RecordAction_Create;
  }
  impl.frame.record_ctx = &impl.context;
  impl.frame.api = &kHostRecordApi;
  impl.frame.action = action;
  impl.frame.commands = impl.handles.empty() ? nullptr : impl.handles.data();
  impl.frame.num_commands = &impl.num_handles;
  impl.frame.max_commands = impl.max_commands;
  return &impl.frame;
}

}  // namespace xffi
