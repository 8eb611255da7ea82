// xffi: what a handler sees through its invoke context.
#ifndef XFFI_RUNTIME_CONTEXT_H_
#define XFFI_RUNTIME_CONTEXT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "xffi/c_api.h"
#include "xffi/runtime/platform.h"
#include "xffi/runtime/status.h"

namespace xffi {

class CommandBuffer;
class HostCollectives;
class ThreadPool;

// Device memory for DeviceMemory_Allocate/Free on a device platform. The
// runtime links no device library; the platform layer provides this.
class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;
  virtual StatusOr<void*> Allocate(size_t size, size_t alignment) = 0;
  virtual Status Free(void* data, size_t size) = 0;
};

// Per run: the platform, its stream, thread pool, user data and extensions.
// Not owned pointers (stream, pool, allocator, custom options, extensions)
// must outlive every call made with the context.
class ExecutionContext {
 public:
  explicit ExecutionContext(Platform platform = Platform::kHost);
  ~ExecutionContext();
  ExecutionContext(const ExecutionContext&) = delete;
  ExecutionContext& operator=(const ExecutionContext&) = delete;

  Platform platform() const { return platform_; }

  void set_run_id(int64_t run_id) { run_id_ = run_id; }
  int64_t run_id() const { return run_id_; }
  void set_device_ordinal(int32_t ordinal) { device_ordinal_ = ordinal; }
  int32_t device_ordinal() const { return device_ordinal_; }  // -1: none
  void set_stream(void* stream) { stream_ = stream; }
  void* stream() const { return stream_; }
  void set_thread_pool(ThreadPool* pool) { thread_pool_ = pool; }
  ThreadPool* thread_pool() const { return thread_pool_; }
  void set_device_allocator(DeviceAllocator* a) { device_allocator_ = a; }
  DeviceAllocator* device_allocator() const { return device_allocator_; }

  // What CustomOptions_Get answers; null means an empty dictionary.
  void set_custom_options(const XLA_FFI_Attrs* attrs) {
    custom_options_ = attrs;
  }
  const XLA_FFI_Attrs* custom_options() const { return custom_options_; }

  // Backend extensions InvokeContext_FindExtension searches, in order; a
  // node's own `next` chain is searched too.
  void AddExtension(const XLA_FFI_Extension* extension);
  const XLA_FFI_Extension* FindExtension(int64_t extension_type) const;

  // The collectives handlers reach through the Collectives extension; null:
  // the extension is absent (unless added with AddExtension).
  void set_collectives(HostCollectives* collectives) {
    collectives_ = collectives;
  }
  HostCollectives* collectives() const { return collectives_; }

  // User data; the context owns `data` when a deleter is given. One object
  // per type id: a second insert is ALREADY_EXISTS.
  Status InsertUserData(XLA_FFI_TypeId id, void* data,
                        void (*deleter)(void*) = nullptr);
  // The same, destroyed with the deleter registered for the type (its
  // XLA_FFI_TypeInfo); FAILED_PRECONDITION when the type registered none.
  Status AdoptUserData(XLA_FFI_TypeId id, void* data);
  // NOT_FOUND names the type when absent.
  StatusOr<void*> LookupUserData(XLA_FFI_TypeId id) const;

 private:
  struct UserData {
    void* data;
    void (*deleter)(void*);
  };

  Platform platform_;
  int64_t run_id_ = 0;
  int32_t device_ordinal_ = -1;
  void* stream_ = nullptr;
  ThreadPool* thread_pool_ = nullptr;
  DeviceAllocator* device_allocator_ = nullptr;
  const XLA_FFI_Attrs* custom_options_ = nullptr;
  HostCollectives* collectives_ = nullptr;
  std::vector<const XLA_FFI_Extension*> extensions_;
  std::map<int64_t, UserData> user_data_;
};

// The state objects of one call site, one per execution stage, kept across
// the stages and runs of that call site. Each is destroyed with the deleter
// its type registered (or the one given with it, for 0.2-era handlers).
// Also the commands the site's RECORD stage recorded.
class CallSiteState {
 public:
  CallSiteState();
  ~CallSiteState();
  CallSiteState(const CallSiteState&) = delete;
  CallSiteState& operator=(const CallSiteState&) = delete;

  // A second Set for the same stage is ALREADY_EXISTS (the first is kept).
  // A null deleter means "the deleter registered for type_id".
  Status Set(XLA_FFI_ExecutionStage stage, XLA_FFI_TypeId type_id, void* state,
             void (*deleter)(void*) = nullptr);
  // NOT_FOUND when the stage has none; INVALID_ARGUMENT naming both types
  // when the stored type differs.
  StatusOr<void*> Get(XLA_FFI_ExecutionStage stage,
                      XLA_FFI_TypeId type_id) const;
  bool Has(XLA_FFI_ExecutionStage stage) const;

  // What RECORD calls of this site record into (made on first use).
  CommandBuffer& command_buffer();

 private:
  struct Entry {
    XLA_FFI_TypeId type_id;
    void* state;
    void (*deleter)(void*);
  };
  mutable std::mutex mutex_;
  std::map<int, Entry> by_stage_;
  std::unique_ptr<CommandBuffer> command_buffer_;
};

// "INSTANTIATE", "EXECUTE", ... or "stage N".
std::string ExecutionStageName(int stage);

}  // namespace xffi

#endif  // XFFI_RUNTIME_CONTEXT_H_
