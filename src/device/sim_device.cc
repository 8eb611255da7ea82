#include "device/sim_device.h"

#include <cstring>
#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "device/host_gemm.h"
#include "runtime/status_macros.h"

namespace xffi::device {

// What became of one recording of an event: set when its stream reaches
// it. Shared with the queued op, which may outlive the event.
struct SimEventMark {
  bool reached = false;
  Status error;  // the stream's unreported asynchronous error by then
};

// One piece of enqueued work.
struct SimOp {
  std::string what;             // for messages: "CopyHostToDevice", ...
  std::function<Status()> run;  // null: nothing to run (an event record)
  uint64_t wait_stream = 0;     // non-zero: first run that stream ...
  uint64_t wait_through = 0;    // ... up to this op
  bool sticky = false;          // a failure leaves the device unusable
  // An event record's: what the stream had raised when it got there.
  std::shared_ptr<SimEventMark> mark = nullptr;
  uint64_t id = 0;
};

namespace {

class SimGraph final : public Graph {
 public:
  SimGraph(const SimDevice* device, std::vector<SimOp> ops)
      : device(device), ops(std::move(ops)) {}
  const SimDevice* device;
  std::vector<SimOp> ops;
};

}  // namespace

class SimEventImpl final : public Event {
 public:
  explicit SimEventImpl(const SimDevice* device) : device(device) {}
  const SimDevice* device;
  uint64_t stream = 0;  // 0: never recorded
  uint64_t op = 0;
  std::shared_ptr<SimEventMark> mark;  // of the latest recording
};

class SimStream final : public Stream {
 public:
  SimStream(SimDevice& device, uint64_t id) : device_(device), id_(id) {}
  ~SimStream() override;

  Device& device() const override { return device_; }
  void* native_handle() override { return static_cast<Stream*>(this); }

  Status CopyHostToDevice(void* device_dst, const void* host_src,
                          size_t size) override;
  Status CopyDeviceToHost(void* host_dst, const void* device_src,
                          size_t size) override;
  Status CopyDeviceToDevice(void* device_dst, const void* device_src,
                            size_t size) override;
  Status Memset(void* device_dst, uint8_t value, size_t size) override;
  Status Launch(const KernelSpec& kernel, const LaunchDims& dims,
                const void* functor) override;
  Status MatrixMultiply(const Gemm& gemm) override;
  Status AddHostCallback(std::function<void()> callback) override;
  Status RecordEvent(Event& event) override;
  Status WaitEvent(Event& event) override;
  Status Synchronize() override;
  Status BeginCapture() override;
  StatusOr<std::unique_ptr<Graph>> EndCapture() override;
  Status LaunchGraph(Graph& graph) override;

 private:
  friend class SimDevice;

  std::string Name() const { return "SimDevice stream " + std::to_string(id_); }
  // A host address a copy may use: not null, not device memory.
  Status CheckHost(const void* address, std::string_view what) const;
  StatusOr<SimEventImpl*> OwnEvent(Event& event) const;

  SimDevice& device_;
  const uint64_t id_;
  std::deque<SimOp> queue_;
  Status error_;  // the first asynchronous error since the last sync
  bool capturing_ = false;
  std::string capture_invalidated_;  // why, when it was
  std::vector<SimOp> capture_;
};

// ---- the device

StatusOr<std::unique_ptr<SimDevice>> SimDevice::Create(
    SimDeviceOptions options) {
  XFFI_ASSIGN_OR_RETURN(std::unique_ptr<SimMemory> memory,
                        SimMemory::Create(options.memory_bytes));
  return std::unique_ptr<SimDevice>(new SimDevice(options, std::move(memory)));
}

SimDevice::SimDevice(SimDeviceOptions options,
                     std::unique_ptr<SimMemory> memory)
    : options_(options), memory_(std::move(memory)) {}

SimDevice::~SimDevice() = default;

Status SimDevice::Enter(std::string_view call, bool synchronising) {
  if (in_callback_ && callback_thread_ == std::this_thread::get_id())
    return FailedPrecondition(
        "SimDevice: " + std::string(call) +
        " called from a host callback; a host callback must not call the "
        "device (CUDA forbids it)");
  if (!sticky_error_.ok())
    return Status(sticky_error_.code(),
                  "SimDevice: " + std::string(call) +
                      ": the device is unusable after an earlier error: " +
                      sticky_error_.message());
  if (synchronising && open_captures_ > 0) {
    std::string reason = std::string(call) + " was called during the capture";
    for (auto& [id, stream] : streams_)
      if (stream->capturing_ && stream->capture_invalidated_.empty())
        stream->capture_invalidated_ = reason;
    return FailedPrecondition(
        "SimDevice: " + std::string(call) +
        " is not permitted while a stream capture is open (it would "
        "synchronise; CUDA's cudaErrorStreamCaptureUnsupported); the capture "
        "is invalidated");
  }
  return Status::Ok();
}

uint64_t SimDevice::Enqueue(SimStream& stream, SimOp op) {
  if (stream.capturing_) {
    stream.capture_.push_back(std::move(op));
    return 0;
  }
  op.id = ++next_op_id_;
  stream.queue_.push_back(std::move(op));
  return next_op_id_;
}

void SimDevice::Drain(uint64_t stream_id, uint64_t through) {
  auto found = streams_.find(stream_id);
  if (found == streams_.end()) return;  // destroyed: its work has run
  SimStream& stream = *found->second;
  while (!stream.queue_.empty() && stream.queue_.front().id <= through) {
    SimOp op = std::move(stream.queue_.front());
    stream.queue_.pop_front();
    if (!sticky_error_.ok()) continue;  // a dead device runs nothing
    if (op.wait_stream != 0) Drain(op.wait_stream, op.wait_through);
    if (op.mark != nullptr) {
      op.mark->reached = true;
      op.mark->error = stream.error_;
    }
    if (!op.run) continue;
    Status status = op.run();
    if (status.ok()) continue;
    Status failure(status.code(),
                   stream.Name() + ": " + op.what +
                       " failed asynchronously: " + status.message());
    if (op.sticky) {
      sticky_error_ = std::move(failure);
    } else if (stream.error_.ok()) {
      stream.error_ = std::move(failure);
    }
  }
}

void SimDevice::DrainAll() {
  std::vector<uint64_t> ids;
  for (auto& [id, stream] : streams_) ids.push_back(id);
  for (uint64_t id : ids) Drain(id, std::numeric_limits<uint64_t>::max());
}

StatusOr<void*> SimDevice::Allocate(size_t size) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  XFFI_RETURN_IF_ERROR(Enter("Allocate", /*synchronising=*/true));
  return memory_->Allocate(size, options_.poison);
}

Status SimDevice::Free(void* data) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  XFFI_RETURN_IF_ERROR(Enter("Free", /*synchronising=*/true));
  // As cudaFree: outstanding work may still use the memory.
  DrainAll();
  return memory_->Free(data);
}

Stream* SimDevice::FindStream(const void* native_handle) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  for (auto& [id, stream] : streams_)
    if (stream->native_handle() == native_handle) return stream;
  return nullptr;
}

StatusOr<std::unique_ptr<Stream>> SimDevice::CreateStream() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  XFFI_RETURN_IF_ERROR(Enter("CreateStream", /*synchronising=*/false));
  auto stream = std::make_unique<SimStream>(*this, ++next_stream_id_);
  streams_.emplace(next_stream_id_, stream.get());
  return std::unique_ptr<Stream>(std::move(stream));
}

StatusOr<std::unique_ptr<Event>> SimDevice::CreateEvent() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  XFFI_RETURN_IF_ERROR(Enter("CreateEvent", /*synchronising=*/false));
  return std::unique_ptr<Event>(std::make_unique<SimEventImpl>(this));
}

Status SimDevice::SynchronizeEvent(Event& event) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  XFFI_RETURN_IF_ERROR(Enter("SynchronizeEvent", /*synchronising=*/true));
  auto* sim_event = dynamic_cast<SimEventImpl*>(&event);
  if (sim_event == nullptr || sim_event->device != this)
    return InvalidArgument(
        "SimDevice: SynchronizeEvent of an event of another device");
  ++synchronizations_.event;
  if (sim_event->stream != 0) Drain(sim_event->stream, sim_event->op);
  if (!sticky_error_.ok()) return sticky_error_;
  return Status::Ok();
}

StatusOr<bool> SimDevice::QueryEvent(Event& event) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  // Not synchronising: runs nothing (work still waits for a
  // synchronisation, so the answer is often false here where a GPU would
  // have finished).
  Status entered = Enter("QueryEvent", /*synchronising=*/false);
  auto* sim_event = dynamic_cast<SimEventImpl*>(&event);
  if (sim_event == nullptr || sim_event->device != this)
    return InvalidArgument(
        "SimDevice: QueryEvent of an event of another device");
  const std::shared_ptr<SimEventMark>& mark = sim_event->mark;
  // Work that completed before a sticky error keeps its answer, so that the
  // error is put on the work that raised it (CUDA reports a sticky error to
  // every query, so there the first event since the last clean
  // synchronisation takes the blame).
  const bool reached = mark != nullptr && mark->reached;
  if (!entered.ok() && !(reached && !sticky_error_.ok())) return entered;
  if (!reached) return mark == nullptr;
  if (!mark->error.ok()) return mark->error;
  return true;
}

Status SimDevice::Synchronize() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  XFFI_RETURN_IF_ERROR(Enter("Synchronize", /*synchronising=*/true));
  ++synchronizations_.device;
  DrainAll();
  if (!sticky_error_.ok()) return sticky_error_;
  Status first;
  for (auto& [id, stream] : streams_) {
    if (first.ok()) first = stream->error_;
    stream->error_ = Status::Ok();
  }
  return first;
}

Status SimDevice::InjectAsyncError(Stream& stream, Status error, bool sticky) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  XFFI_RETURN_IF_ERROR(Enter("InjectAsyncError", /*synchronising=*/false));
  auto* sim_stream = dynamic_cast<SimStream*>(&stream);
  if (sim_stream == nullptr || &sim_stream->device_ != this)
    return InvalidArgument("SimDevice: InjectAsyncError on another device");
  if (error.ok()) return InvalidArgument("InjectAsyncError needs an error");
  SimOp op;
  op.what = "injected error";
  op.run = [error] { return error; };
  op.sticky = sticky;
  Enqueue(*sim_stream, std::move(op));
  return Status::Ok();
}

bool SimDevice::Holds(const void* data, size_t size) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return data != nullptr && memory_->Resolve(data, size, "Holds").ok();
}

bool SimDevice::IsDeviceMemory(const void* address) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return memory_->Contains(address);
}

size_t SimDevice::bytes_in_use() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return memory_->bytes_in_use();
}

size_t SimDevice::pending_work() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  size_t pending = 0;
  for (auto& [id, stream] : streams_) pending += stream->queue_.size();
  return pending;
}

SimDevice::HostSynchronizations SimDevice::host_synchronizations() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return synchronizations_;
}

// ---- streams

SimStream::~SimStream() {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  if (capturing_) --device_.open_captures_;
  // As cudaStreamDestroy: the work already enqueued still completes.
  device_.Drain(id_, std::numeric_limits<uint64_t>::max());
  device_.streams_.erase(id_);
}

Status SimStream::CheckHost(const void* address, std::string_view what) const {
  if (address == nullptr)
    return InvalidArgument(Name() + ": " + std::string(what) + " is null");
  if (device_.memory_->Contains(address))
    return InvalidArgument(Name() + ": " + std::string(what) +
                           " is device memory, not host memory");
  return Status::Ok();
}

StatusOr<SimEventImpl*> SimStream::OwnEvent(Event& event) const {
  auto* sim_event = dynamic_cast<SimEventImpl*>(&event);
  if (sim_event == nullptr || sim_event->device != &device_)
    return InvalidArgument(Name() + ": an event of another device");
  return sim_event;
}

Status SimStream::CopyHostToDevice(void* device_dst, const void* host_src,
                                   size_t size) {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("CopyHostToDevice", false));
  if (size == 0) return Status::Ok();
  XFFI_RETURN_IF_ERROR(CheckHost(host_src, "CopyHostToDevice's source"));
  XFFI_ASSIGN_OR_RETURN(
      char* dst, device_.memory_->Resolve(device_dst, size,
                                          "CopyHostToDevice's destination"));
  device_.Enqueue(*this, SimOp{"CopyHostToDevice", [dst, host_src, size] {
                                 std::memcpy(dst, host_src, size);
                                 return Status::Ok();
                               }});
  return Status::Ok();
}

Status SimStream::CopyDeviceToHost(void* host_dst, const void* device_src,
                                   size_t size) {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("CopyDeviceToHost", false));
  if (size == 0) return Status::Ok();
  XFFI_RETURN_IF_ERROR(CheckHost(host_dst, "CopyDeviceToHost's destination"));
  XFFI_ASSIGN_OR_RETURN(
      char* src,
      device_.memory_->Resolve(device_src, size, "CopyDeviceToHost's source"));
  device_.Enqueue(*this, SimOp{"CopyDeviceToHost", [host_dst, src, size] {
                                 std::memcpy(host_dst, src, size);
                                 return Status::Ok();
                               }});
  return Status::Ok();
}

Status SimStream::CopyDeviceToDevice(void* device_dst, const void* device_src,
                                     size_t size) {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("CopyDeviceToDevice", false));
  if (size == 0) return Status::Ok();
  XFFI_ASSIGN_OR_RETURN(
      char* src, device_.memory_->Resolve(device_src, size,
                                          "CopyDeviceToDevice's source"));
  XFFI_ASSIGN_OR_RETURN(
      char* dst, device_.memory_->Resolve(device_dst, size,
                                          "CopyDeviceToDevice's destination"));
  device_.Enqueue(*this, SimOp{"CopyDeviceToDevice", [dst, src, size] {
                                 std::memmove(dst, src, size);
                                 return Status::Ok();
                               }});
  return Status::Ok();
}

Status SimStream::Memset(void* device_dst, uint8_t value, size_t size) {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("Memset", false));
  if (size == 0) return Status::Ok();
  XFFI_ASSIGN_OR_RETURN(
      char* dst,
      device_.memory_->Resolve(device_dst, size, "Memset's destination"));
  device_.Enqueue(*this, SimOp{"Memset", [dst, value, size] {
                                 std::memset(dst, value, size);
                                 return Status::Ok();
                               }});
  return Status::Ok();
}

Status SimStream::Launch(const KernelSpec& kernel, const LaunchDims& dims,
                         const void* functor) {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("Launch", false));
  const std::string what = "kernel '" + kernel.name + "'";
  if (kernel.run_threads == nullptr || kernel.rewrite_pointers == nullptr)
    return InvalidArgument(Name() + ": " + what +
                           " has no host code to simulate it with");
  // CUDA's limits on a one-dimensional launch.
  if (dims.blocks < 1 || dims.blocks > std::numeric_limits<int32_t>::max() ||
      dims.threads_per_block < 1 || dims.threads_per_block > 1024)
    return InvalidArgument(
        Name() + ": " + what + " launched with " + std::to_string(dims.blocks) +
        " blocks of " + std::to_string(dims.threads_per_block) +
        " threads; blocks must be in [1, 2^31) and threads in [1, 1024]");
  // The functor's own copy, whose device pointers are rewritten to the
  // simulator's view now: the launch fails here, naming the argument, when
  // one is not device memory (a GPU would fault at some later point).
  auto copy = std::shared_ptr<std::max_align_t[]>(
      new std::max_align_t[(kernel.functor_size + sizeof(std::max_align_t) -
                            1) /
                               sizeof(std::max_align_t) +
                           1]);
  std::memcpy(copy.get(), functor, kernel.functor_size);
  int index = 0;
  XFFI_RETURN_IF_ERROR(
      kernel.rewrite_pointers(copy.get(), [&](void*& pointer) -> Status {
        const int this_index = index++;
        if (pointer == nullptr) return Status::Ok();
        StatusOr<char*> view = device_.memory_->Resolve(
            pointer, 0,
            what + "'s device pointer " + std::to_string(this_index));
        if (!view.ok()) return view.status();
        pointer = *view;
        return Status::Ok();
      }));
  auto run = kernel.run_threads;
  const int64_t threads = dims.threads();
  device_.Enqueue(*this, SimOp{what, [run, copy, threads] {
                                 run(copy.get(), 0, threads);
                                 return Status::Ok();
                               }});
  return Status::Ok();
}

Status SimStream::MatrixMultiply(const Gemm& gemm) {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("MatrixMultiply", false));
  XFFI_RETURN_IF_ERROR(ValidateGemm(gemm));
  const std::string what = DescribeGemm(gemm);
  // The simulator's view of each matrix: a matrix that is not wholly in one
  // device allocation fails here, naming it (a GPU would fault later).
  Gemm host = gemm;
  auto view = [&](const void* data, const GemmMatrix& matrix, int64_t rows,
                  int64_t cols, size_t element_size,
                  const char* name) -> StatusOr<char*> {
    const size_t extent =
        GemmMatrixExtent(matrix, rows, cols, gemm.batch, element_size);
    if (extent == 0) return static_cast<char*>(nullptr);
    return device_.memory_->Resolve(data, extent, what + "'s " + name);
  };
  const size_t ab_size = GemmTypeSize(gemm.ab_type);
  XFFI_ASSIGN_OR_RETURN(
      char* a, view(gemm.a.data, gemm.a, gemm.m, gemm.k, ab_size, "A"));
  XFFI_ASSIGN_OR_RETURN(
      char* b, view(gemm.b.data, gemm.b, gemm.k, gemm.n, ab_size, "B"));
  GemmMatrix c_matrix;
  c_matrix.ld = gemm.ldc;
  c_matrix.batch_stride = gemm.c_batch_stride;
  XFFI_ASSIGN_OR_RETURN(char* c, view(gemm.c, c_matrix, gemm.m, gemm.n,
                                      GemmTypeSize(gemm.c_type), "C"));
  host.a.data = a;
  host.b.data = b;
  host.c = c;
  device_.Enqueue(*this, SimOp{what, [host] {
                                 RunHostGemm(host);
                                 return Status::Ok();
                               }});
  return Status::Ok();
}

Status SimStream::AddHostCallback(std::function<void()> callback) {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("AddHostCallback", false));
  if (!callback)
    return InvalidArgument(Name() + ": the host callback is empty");
  SimDevice* device = &device_;
  device_.Enqueue(*this, SimOp{"host callback", [device, callback] {
                                 device->in_callback_ = true;
                                 device->callback_thread_ =
                                     std::this_thread::get_id();
                                 callback();
                                 device->in_callback_ = false;
                                 return Status::Ok();
                               }});
  return Status::Ok();
}

Status SimStream::RecordEvent(Event& event) {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("RecordEvent", false));
  XFFI_ASSIGN_OR_RETURN(SimEventImpl * sim_event, OwnEvent(event));
  if (capturing_)
    return Unimplemented(Name() +
                         ": SimDevice does not simulate events recorded "
                         "inside a capture");
  SimOp op{"RecordEvent", nullptr};
  op.mark = std::make_shared<SimEventMark>();
  sim_event->mark = op.mark;
  sim_event->op = device_.Enqueue(*this, std::move(op));
  sim_event->stream = id_;
  return Status::Ok();
}

Status SimStream::WaitEvent(Event& event) {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("WaitEvent", false));
  XFFI_ASSIGN_OR_RETURN(SimEventImpl * sim_event, OwnEvent(event));
  if (sim_event->stream == 0) return Status::Ok();  // never recorded
  if (capturing_)
    return Unimplemented(Name() +
                         ": SimDevice does not simulate a capture waiting "
                         "on an event recorded outside it");
  SimOp op{"WaitEvent", nullptr};
  op.wait_stream = sim_event->stream;
  op.wait_through = sim_event->op;
  device_.Enqueue(*this, std::move(op));
  return Status::Ok();
}

Status SimStream::Synchronize() {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("Stream::Synchronize", true));
  ++device_.synchronizations_.stream;
  device_.Drain(id_, std::numeric_limits<uint64_t>::max());
  if (!device_.sticky_error_.ok()) return device_.sticky_error_;
  return std::exchange(error_, Status::Ok());
}

Status SimStream::BeginCapture() {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("BeginCapture", false));
  if (capturing_)
    return FailedPrecondition(Name() + ": BeginCapture while capturing");
  capturing_ = true;
  capture_invalidated_.clear();
  capture_.clear();
  ++device_.open_captures_;
  return Status::Ok();
}

StatusOr<std::unique_ptr<Graph>> SimStream::EndCapture() {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("EndCapture", false));
  if (!capturing_)
    return FailedPrecondition(Name() + ": EndCapture without BeginCapture");
  capturing_ = false;
  --device_.open_captures_;
  std::vector<SimOp> ops = std::exchange(capture_, {});
  if (!capture_invalidated_.empty())
    return FailedPrecondition(Name() + ": the capture was invalidated: " +
                              std::exchange(capture_invalidated_, {}));
  return std::unique_ptr<Graph>(
      std::make_unique<SimGraph>(&device_, std::move(ops)));
}

Status SimStream::LaunchGraph(Graph& graph) {
  std::lock_guard<std::recursive_mutex> lock(device_.mutex_);
  XFFI_RETURN_IF_ERROR(device_.Enter("LaunchGraph", false));
  auto* sim_graph = dynamic_cast<SimGraph*>(&graph);
  if (sim_graph == nullptr || sim_graph->device != &device_)
    return InvalidArgument(Name() + ": a graph of another device");
  for (const SimOp& op : sim_graph->ops) device_.Enqueue(*this, op);
  return Status::Ok();
}

}  // namespace xffi::device
