// xffi: the commands a handler records in the RECORD stage, and their
// replay on the host (the Record FFI extension, xffi/record_c_api.h).
//
// Each call site keeps one CommandBuffer (CallSiteState::command_buffer()).
// The first RECORD call of the site creates commands (action Create); later
// ones see them in the frame and update them (action Update), as XLA's
// command buffers do. Execute() replays them in the order they were created,
// which respects their dependencies, since a command can only depend on
// commands created before it.
//
// What the host can replay: device-to-device copies (host memory here) and
// empty join commands. Kernel launches need a GPU runtime: create_launch
// and update_launch fail with UNIMPLEMENTED naming the kernel. A handler
// that asks for stream capture instead records nothing; the caller then
// runs the handler's execute stage in place of Execute(), because on the
// host there is no stream to capture.
#ifndef XFFI_RUNTIME_COMMAND_BUFFER_H_
#define XFFI_RUNTIME_COMMAND_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "xffi/c_api.h"
#include "xffi/record_c_api.h"
#include "xffi/runtime/status.h"

namespace xffi {

class CommandBuffer {
 public:
  // How many commands one recording may create (the frame's max_commands).
  static constexpr int64_t kDefaultMaxCommands = 256;

  explicit CommandBuffer(int64_t max_commands = kDefaultMaxCommands);
  ~CommandBuffer();
  CommandBuffer(const CommandBuffer&) = delete;
  CommandBuffer& operator=(const CommandBuffer&) = delete;

  // Whether a recording has happened: the next one is an Update.
  bool recorded() const;
  size_t size() const;
  bool stream_capture_requested() const;

  // Runs every command, in creation order.
  void Execute() const;

  // Back to empty: the next recording is a Create.
  void Clear();

  // The frame for one RECORD call, valid until the next BeginRecording or
  // Clear: action Create the first time (dropping anything left over),
  // Update afterwards.
  XLA_FFI_RecordFrame* BeginRecording();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace xffi

#endif  // XFFI_RUNTIME_COMMAND_BUFFER_H_
