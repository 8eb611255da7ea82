#include "device_arrays.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <mutex>
#include <optional>
#include <tuple>
#include <utility>

#include "bindings.h"
#include "common.h"
#include "device/sim_device.h"
#include "device_backend/device_backend.h"

namespace xffi::python {
namespace {

using AnyTensor = nb::ndarray<nb::ro>;
using nb::dlpack::dtype_code;
using namespace nb::literals;

// The DLPack dtype of an XLA element type, or nullopt for those DLPack
// cannot describe (the float8 family, sub-byte integers, tokens).
std::optional<nb::dlpack::dtype> DlpackDtypeOf(XLA_FFI_DataType type) {
  auto make = [](dtype_code code, int bits) {
    return nb::dlpack::dtype{static_cast<uint8_t>(code),
                             static_cast<uint8_t>(bits), 1};
  };
  switch (type) {
    case XLA_FFI_DataType_PRED:
      return make(dtype_code::Bool, 8);
    case XLA_FFI_DataType_S8:
      return make(dtype_code::Int, 8);
    case XLA_FFI_DataType_S16:
      return make(dtype_code::Int, 16);
    case XLA_FFI_DataType_S32:
      return make(dtype_code::Int, 32);
    case XLA_FFI_DataType_S64:
      return make(dtype_code::Int, 64);
    case XLA_FFI_DataType_U8:
      return make(dtype_code::UInt, 8);
    case XLA_FFI_DataType_U16:
      return make(dtype_code::UInt, 16);
    case XLA_FFI_DataType_U32:
      return make(dtype_code::UInt, 32);
    case XLA_FFI_DataType_U64:
      return make(dtype_code::UInt, 64);
    case XLA_FFI_DataType_F16:
      return make(dtype_code::Float, 16);
    case XLA_FFI_DataType_F32:
      return make(dtype_code::Float, 32);
    case XLA_FFI_DataType_F64:
      return make(dtype_code::Float, 64);
    case XLA_FFI_DataType_BF16:
      return make(dtype_code::Bfloat, 16);
    case XLA_FFI_DataType_C64:
      return make(dtype_code::Complex, 64);
    case XLA_FFI_DataType_C128:
      return make(dtype_code::Complex, 128);
    default:
      return std::nullopt;
  }
}

// "float32", "bfloat16", "int8x4": a DLPack dtype for messages.
std::string DlpackDtypeName(nb::dlpack::dtype dtype) {
  static const char* const kCodes[] = {"int",    "uint",    "float", "opaque",
                                       "bfloat", "complex", "bool"};
  std::string name =
      dtype.code < 7 ? kCodes[dtype.code] : "code" + std::to_string(dtype.code);
  name += std::to_string(dtype.bits);
  if (dtype.lanes != 1) name += "x" + std::to_string(dtype.lanes);
  return name;
}

std::string DeviceTypeName(int32_t type) {
  switch (type) {
    case kDlpackCpu:
      return "kDLCPU";
    case kDlpackCuda:
      return "kDLCUDA";
    case kDlpackExtDev:
      return "kDLExtDev (xffi's simulated GPU)";
    default:
      return "DLPack device type " + std::to_string(type);
  }
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + (dims.size() == 1 ? ",)" : ")");
}

// GPU 0 for reading kDLCUDA arrays given to a program elsewhere; the
// status "no CUDA device: ..." where there is none. Not cached on failure:
// asking again is cheap, and a message stays exact.
StatusOr<std::shared_ptr<device::Device>> PythonCudaDevice() {
  static std::mutex mutex;
  static auto* device = new std::shared_ptr<device::Device>;
  std::lock_guard<std::mutex> lock(mutex);
  if (*device) return *device;
  CompileOptions options;
  options.platform = Platform::kCuda;
  StatusOr<std::shared_ptr<device::Device>> made =
      device_backend::DefaultDevice(options);
  if (made.ok()) *device = *made;
  return made;
}

void CheckOk(const Status& status, const std::string& where) {
  if (!status.ok())
    ThrowStatus(Status(status.code(), where + ": " + status.message()));
}

// `size` bytes at `device_data` into `host_data`, the GIL released.
void CopyToHost(device::Device& device, void* host_data,
                const void* device_data, size_t size,
                const std::string& where) {
  Status status;
  {
    nb::gil_scoped_release release;
    StatusOr<std::unique_ptr<device::Stream>> stream = device.CreateStream();
    status = stream.status();
    if (stream.ok()) {
      status = (*stream)->CopyDeviceToHost(host_data, device_data, size);
      Status done = (*stream)->Synchronize();
      if (status.ok()) status = done;
    }
  }
  CheckOk(status, where);
}

nb::object NewHostArray(ElementType type, const std::vector<int64_t>& dims) {
  PyArray_Descr* descr = DescrOfDtype(ToFfiDataType(type));
  if (descr == nullptr)
    ThrowTypeError("element type " + std::string(ElementTypeName(type)) +
                   " has no NumPy dtype here");
  std::vector<npy_intp> shape(dims.begin(), dims.end());
  PyObject* array =
      PyArray_NewFromDescr(&PyArray_Type, descr, static_cast<int>(dims.size()),
                           shape.data(), nullptr, nullptr, 0, nullptr);
  if (array == nullptr) throw nb::python_error();
  return nb::steal(array);
}

// The producer's tensor: __dlpack__ asked for a versioned capsule first,
// then (a producer older than DLPack 1.0 refuses max_version) without.
// With `stream_taken` (the stream is the consumer's own, which the producer
// may not support: DLPack makes a stream other than None optional), a
// producer that refuses it with TypeError or NotImplementedError is asked
// once more with no stream at all, and `*stream_taken` is set to false.
AnyTensor ImportTensor(nb::handle value, nb::object stream, bool* stream_taken,
                       const std::string& where) {
  nb::object dlpack = value.attr("__dlpack__");
  nb::object capsule;
  try {
    capsule =
        dlpack("stream"_a = stream, "max_version"_a = nb::make_tuple(1, 0));
  } catch (nb::python_error& error) {
    const bool refused_stream =
        stream_taken != nullptr && error.matches(PyExc_NotImplementedError);
    if (!error.matches(PyExc_TypeError) && !refused_stream) throw;
    try {
      capsule = dlpack("stream"_a = stream);
    } catch (nb::python_error& again) {
      if (stream_taken == nullptr ||
          (!again.matches(PyExc_TypeError) &&
           !again.matches(PyExc_NotImplementedError)))
        throw;
      capsule = dlpack();
      *stream_taken = false;
    }
  }
  AnyTensor tensor;
  if (!nb::try_cast(capsule, tensor, /*convert=*/false))
    ThrowTypeError(where + ": its __dlpack__() returned " +
                   PythonTypeName(capsule) +
                   ", not a DLPack tensor capsule nanobind can read");
  return tensor;
}

void CheckTensor(const AnyTensor& tensor, ElementType element_type,
                 const std::vector<int64_t>& dims, const std::string& where) {
  const XLA_FFI_DataType type = ToFfiDataType(element_type);
  const std::optional<nb::dlpack::dtype> want = DlpackDtypeOf(type);
  if (!want)
    ThrowTypeError(where + ": the parameter's dtype " + DtypeName(type) +
                   " has no DLPack code, so it cannot come from a device "
                   "array");
  const nb::dlpack::dtype got = tensor.dtype();
  if (got != *want)
    ThrowTypeError(where + " has dtype " + DlpackDtypeName(got) +
                   ", the parameter is " + DtypeName(type) + " (" +
                   DlpackDtypeName(*want) + ")");
  std::vector<int64_t> shape(tensor.ndim());
  for (size_t i = 0; i < shape.size(); ++i)
    shape[i] = static_cast<int64_t>(tensor.shape(i));
  if (shape != dims)
    ThrowValueError(where + " has shape " + DimsText(shape) +
                    ", the parameter's is " + DimsText(dims));
  // Row-major, in elements; a dimension of extent 1 may have any stride.
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && tensor.stride(i) != expected) {
      std::vector<int64_t> strides(shape.size());
      for (size_t j = 0; j < shape.size(); ++j) strides[j] = tensor.stride(j);
      ThrowValueError(where + " is a device array with strides " +
                      DimsText(strides) + " (elements) for shape " +
                      DimsText(shape) +
                      "; xffi takes device arrays in row-major order only "
                      "(make it contiguous first)");
    }
    expected *= shape[i];
  }
}

// The element type whose DLPack dtype is `dtype`.
ElementType ElementTypeOfDlpack(nb::dlpack::dtype dtype,
                                const std::string& where) {
  for (XLA_FFI_DataType type :
       {XLA_FFI_DataType_PRED, XLA_FFI_DataType_S8, XLA_FFI_DataType_S16,
        XLA_FFI_DataType_S32, XLA_FFI_DataType_S64, XLA_FFI_DataType_U8,
        XLA_FFI_DataType_U16, XLA_FFI_DataType_U32, XLA_FFI_DataType_U64,
        XLA_FFI_DataType_F16, XLA_FFI_DataType_F32, XLA_FFI_DataType_F64,
        XLA_FFI_DataType_BF16, XLA_FFI_DataType_C64, XLA_FFI_DataType_C128})
    if (DlpackDtypeOf(type) == dtype) return static_cast<ElementType>(type);
  ThrowTypeError(where + " has DLPack dtype " + DlpackDtypeName(dtype) +
                 ", which has no XLA element type");
}

// A capsule that owns `tensor`, so the producer's memory outlives the run.
nb::object Keep(AnyTensor tensor) {
  return nb::capsule(new AnyTensor(std::move(tensor)), [](void* p) noexcept {
    delete static_cast<AnyTensor*>(p);
  });
}

}  // namespace

std::shared_ptr<device::Device> PythonSimDevice() {
  static std::once_flag once;
  static std::shared_ptr<device::Device>* device = nullptr;
  static Status error;
  std::call_once(once, [] {
    StatusOr<std::unique_ptr<device::SimDevice>> made =
        device::SimDevice::Create();
    if (made.ok())
      device = new std::shared_ptr<device::Device>(std::move(*made));
    else
      error = made.status();
  });
  if (device == nullptr) ThrowStatus(error);
  return *device;
}

int32_t DlpackDeviceTypeOf(const device::Device& device) {
  return dynamic_cast<const device::SimDevice*>(&device) != nullptr
             ? kDlpackExtDev
             : kDlpackCuda;
}

std::unique_ptr<DeviceArgument> TakeDeviceArgument(
    nb::handle value, device::Device* program_device,
    const RunStream& run_stream, ElementType element_type,
    std::vector<int64_t> dims, const std::string& where) {
  if (!PyObject_HasAttrString(value.ptr(), "__dlpack_device__")) return nullptr;
  nb::object device = value.attr("__dlpack_device__")();
  std::tuple<int32_t, int32_t> pair;
  if (!nb::try_cast(device, pair))
    ThrowTypeError(where + ": __dlpack_device__() returned " +
                   nb::cast<std::string>(nb::repr(device)) +
                   ", not a (device type, device id) pair of ints");
  auto [type, ordinal] = pair;
  if (type == kDlpackCpu) return nullptr;

  // The device that can read the tensor, before asking the producer for it.
  std::shared_ptr<device::Device> reader;
  const bool on_program_device = program_device != nullptr &&
                                 DlpackDeviceTypeOf(*program_device) == type &&
                                 program_device->ordinal() == ordinal;
  nb::object stream = nb::none();
  if (type == kDlpackCuda) {
    stream = nb::int_(1);  // the legacy default stream (DLPack Python spec)
    if (!on_program_device) {
      if (ordinal != 0)
        ThrowValueError(where + " is on CUDA device " +
                        std::to_string(ordinal) +
                        "; xffi reads CUDA arrays on device 0 only");
      StatusOr<std::shared_ptr<device::Device>> cuda = PythonCudaDevice();
      if (!cuda.ok())
        ThrowStatus(Status(cuda.status().code(),
                           where +
                               " is a kDLCUDA array on device 0, which "
                               "xffi cannot read: " +
                               cuda.status().message()));
      reader = *cuda;
    }
  } else if (type == kDlpackExtDev) {
    // Its streams are xffi's convention (device_arrays.h), handed over only
    // on the program's device; read elsewhere, the reader synchronises the
    // whole device before the copy.
    if (!on_program_device) {
      if (ordinal != 0)
        ThrowValueError(where + " is on simulated device " +
                        std::to_string(ordinal) + "; there is only device 0");
      reader = PythonSimDevice();
    }
  } else {
    ThrowTypeError(where + " is on " + DeviceTypeName(type) + " (ordinal " +
                   std::to_string(ordinal) +
                   "), which xffi cannot read; it takes kDLCPU, kDLCUDA and "
                   "kDLExtDev (its simulated GPU) arrays");
  }

  // On the program's device the producer orders its work before the run's
  // stream (device_arrays.h), which is handed over as an int.
  const bool consumer_stream = on_program_device && run_stream;
  bool stream_taken = true;
  if (consumer_stream) {
    PyObject* handle = PyLong_FromVoidPtr(run_stream()->native_handle());
    if (handle == nullptr) throw nb::python_error();
    stream = nb::steal(handle);
  }
  AnyTensor tensor = ImportTensor(
      value, stream, consumer_stream ? &stream_taken : nullptr, where);
  if (tensor.device_type() != type || tensor.device_id() != ordinal)
    ThrowValueError(where + ": __dlpack_device__() said " +
                    DeviceTypeName(type) + " " + std::to_string(ordinal) +
                    ", its tensor is on " +
                    DeviceTypeName(tensor.device_type()) + " " +
                    std::to_string(tensor.device_id()));
  if (element_type == ElementType::kInvalid) {
    element_type = ElementTypeOfDlpack(tensor.dtype(), where);
    dims.resize(tensor.ndim());
    for (size_t i = 0; i < dims.size(); ++i)
      dims[i] = static_cast<int64_t>(tensor.shape(i));
  }
  CheckTensor(tensor, element_type, dims, where);
  device::Device& holder = reader ? *reader : *program_device;
  if (auto* sim = dynamic_cast<device::SimDevice*>(&holder);
      sim != nullptr && tensor.size() > 0 &&
      !sim->IsDeviceMemory(tensor.data()))
    ThrowValueError(where +
                    " is a kDLExtDev array whose memory is not on xffi's "
                    "simulated GPU");

  auto argument = std::make_unique<DeviceArgument>();
  if (on_program_device) {
    argument->device_data = tensor.data();
    argument->needs_device_wait =
        consumer_stream ? !stream_taken : type == kDlpackCuda;
    argument->keep = Keep(std::move(tensor));
    return argument;
  }
  // On a device the program does not run on: through the host.
  SynchronizeDeviceArguments(*reader);
  argument->host_copy = NewHostArray(element_type, dims);
  CopyToHost(
      *reader,
      PyArray_DATA(reinterpret_cast<PyArrayObject*>(argument->host_copy.ptr())),
      tensor.data(), tensor.nbytes(), where);
  return argument;
}

nb::object HostCopyOfDeviceArray(nb::handle value, const std::string& where) {
  std::unique_ptr<DeviceArgument> argument = TakeDeviceArgument(
      value, nullptr, RunStream(), ElementType::kInvalid, {}, where);
  return argument == nullptr ? nb::none() : std::move(argument->host_copy);
}

void SynchronizeDeviceArguments(device::Device& device) {
  Status status;
  {
    nb::gil_scoped_release release;
    status = device.Synchronize();
  }
  CheckOk(status, "waiting for the device arguments' producers");
}

std::shared_ptr<DeviceBuffer> DeviceBuffer::Allocate(
    std::shared_ptr<device::Device> device, size_t size) {
  StatusOr<void*> data = device->Allocate(size);
  if (!data.ok())
    ThrowStatus(Status(data.status().code(),
                       "cannot allocate a " + std::to_string(size) +
                           "-byte device result on " +
                           std::string(device->name()) + ": " +
                           data.status().message()));
  return std::shared_ptr<DeviceBuffer>(
      new DeviceBuffer(std::move(device), *data));
}

DeviceBuffer::~DeviceBuffer() {
  // Free waits for the device's work; nothing to report to at this point.
  if (data_ != nullptr) (void)device_->Free(data_);
}

namespace {

// xffi.DeviceArray: a program's result left on its device.
class DeviceArray {
 public:
  DeviceArray(std::shared_ptr<DeviceBuffer> buffer, ElementType type,
              std::vector<int64_t> dims)
      : buffer_(std::move(buffer)), type_(type), dims_(std::move(dims)) {}

  const std::vector<int64_t>& dims() const { return dims_; }
  ElementType type() const { return type_; }
  const DeviceBuffer* buffer() const { return buffer_.get(); }
  size_t nbytes() const {
    size_t n = DtypeSize(ToFfiDataType(type_));
    for (int64_t d : dims_) n *= static_cast<size_t>(d);
    return n;
  }
  std::tuple<int32_t, int32_t> dlpack_device() const {
    return {DlpackDeviceTypeOf(buffer_->device()), buffer_->device().ordinal()};
  }

  nb::object ToHost() const {
    nb::object array = NewHostArray(type_, dims_);
    if (nbytes() > 0)
      CopyToHost(buffer_->device(),
                 PyArray_DATA(reinterpret_cast<PyArrayObject*>(array.ptr())),
                 buffer_->data(), nbytes(), "DeviceArray.copy_to_host");
    return array;
  }

 private:
  std::shared_ptr<DeviceBuffer> buffer_;
  ElementType type_;
  std::vector<int64_t> dims_;
};

// For tests of the stream hand-over (xffi._core._SimPendingProducer): a
// DLPack producer on the simulated GPU whose values are still being copied
// in on its own stream, which SimDevice runs only when something waits for
// it. Given a consumer's stream (an int: the device::Stream* of a run), it
// records an event after the copy and makes that stream wait for it, as
// CuPy and PyTorch do for a CUDA stream; `honours_stream` false ignores the
// stream instead (the fault the simulator must expose), and
// `accepts_stream` false refuses the keyword with TypeError, as producers
// without stream support do.
class SimPendingProducer {
 public:
  SimPendingProducer(
      nb::ndarray<float, nb::ro, nb::c_contig, nb::device::cpu> values,
      bool accepts_stream, bool honours_stream)
      : accepts_stream_(accepts_stream), honours_stream_(honours_stream) {
    device_ = PythonSimDevice();
    for (size_t i = 0; i < values.ndim(); ++i)
      shape_.push_back(values.shape(i));
    host_.assign(values.data(), values.data() + values.size());
    buffer_ = DeviceBuffer::Allocate(device_, values.nbytes());
    StatusOr<std::unique_ptr<device::Stream>> stream = device_->CreateStream();
    CheckOk(stream.status(), "_SimPendingProducer");
    stream_ = std::move(*stream);
    CheckOk(stream_->CopyHostToDevice(buffer_->data(), host_.data(),
                                      values.nbytes()),
            "_SimPendingProducer");
  }
  ~SimPendingProducer() {
    // Its copy reads host_: run it before the vector goes.
    if (stream_ != nullptr) (void)stream_->Synchronize();
  }
  SimPendingProducer(const SimPendingProducer&) = delete;
  SimPendingProducer& operator=(const SimPendingProducer&) = delete;

  nb::object Dlpack(nb::handle self, nb::kwargs kwargs) {
    if (kwargs.contains("stream") && !accepts_stream_)
      throw nb::type_error(
          "__dlpack__() got an unexpected keyword argument 'stream'");
    calls_.append(kwargs);
    nb::object stream = nb::none();
    if (kwargs.contains("stream")) stream = kwargs["stream"];
    if (honours_stream_ && !stream.is_none()) {
      void* handle = PyLong_AsVoidPtr(stream.ptr());
      if (handle == nullptr && PyErr_Occurred()) throw nb::python_error();
      auto* sim = dynamic_cast<device::SimDevice*>(device_.get());
      device::Stream* consumer = sim->FindStream(handle);
      if (consumer == nullptr)
        ThrowValueError("_SimPendingProducer.__dlpack__: stream " +
                        nb::cast<std::string>(nb::repr(stream)) +
                        " is no stream of the simulated GPU");
      StatusOr<std::unique_ptr<device::Event>> event = device_->CreateEvent();
      CheckOk(event.status(), "_SimPendingProducer.__dlpack__");
      CheckOk(stream_->RecordEvent(**event), "_SimPendingProducer.__dlpack__");
      CheckOk(consumer->WaitEvent(**event), "_SimPendingProducer.__dlpack__");
    }
    nb::ndarray<nb::array_api> view(
        buffer_->data(), shape_.size(), shape_.data(), self, nullptr,
        nb::dtype<float>(), kDlpackExtDev, device_->ordinal());
    nb::object dlpack = nb::cast(view).attr("__dlpack__");
    if (!kwargs.contains("max_version")) return dlpack();
    nb::object max_version = kwargs["max_version"];
    return dlpack("max_version"_a = max_version);
  }

  nb::list calls() const { return calls_; }

 private:
  bool accepts_stream_, honours_stream_;
  std::shared_ptr<device::Device> device_;
  std::vector<size_t> shape_;
  std::vector<float> host_;
  std::shared_ptr<DeviceBuffer> buffer_;
  std::unique_ptr<device::Stream> stream_;
  nb::list calls_;  // each successful call's keywords
};

}  // namespace

nb::object NewDeviceArray(std::shared_ptr<DeviceBuffer> buffer,
                          ElementType type, std::vector<int64_t> dims) {
  return nb::cast(DeviceArray(std::move(buffer), type, std::move(dims)));
}

void BindDeviceArrays(nb::module_& m) {
  m.def(
      "_sim_device_synchronizations",
      [] {
        auto* sim = dynamic_cast<device::SimDevice*>(PythonSimDevice().get());
        device::SimDevice::HostSynchronizations counts =
            sim->host_synchronizations();
        nb::dict result;
        result["stream"] = counts.stream;
        result["event"] = counts.event;
        result["device"] = counts.device;
        return result;
      },
      "How often the host has waited for the simulated GPU of platform "
      "'sim' programs, by call ('stream', 'event', 'device'): tests check "
      "that runs wait only where they must.");
  nb::class_<SimPendingProducer>(
      m, "_SimPendingProducer",
      "For tests: a DLPack producer on the simulated GPU (kDLExtDev 0) "
      "whose float32 values are still being copied in on its own stream; "
      "given a consumer's stream it orders the copy before it (unless "
      "honours_stream=False); accepts_stream=False refuses the stream "
      "keyword. `calls` lists each __dlpack__ call's keywords.")
      .def(nb::init<nb::ndarray<float, nb::ro, nb::c_contig, nb::device::cpu>,
                    bool, bool>(),
           nb::arg("values"), nb::kw_only(), nb::arg("accepts_stream") = true,
           nb::arg("honours_stream") = true)
      .def("__dlpack_device__",
           [](const SimPendingProducer&) {
             return std::make_tuple(kDlpackExtDev, 0);
           })
      .def("__dlpack__",
           [](nb::handle self, nb::kwargs kwargs) {
             return nb::cast<SimPendingProducer&>(self).Dlpack(
                 self, std::move(kwargs));
           })
      .def_prop_ro("calls", &SimPendingProducer::calls);
  m.def(
      "_host_copy_of_device_array",
      [](nb::handle value, const std::string& where) {
        return HostCopyOfDeviceArray(value, where);
      },
      nb::arg("value"), nb::arg("where"),
      "A NumPy copy of a DLPack producer on a device (None for one on the "
      "CPU); errors begin with `where`.");
  nb::class_<DeviceArray>(
      m, "DeviceArray",
      "A program's result left on its device (Program(..., "
      "device_results=True)). It keeps its device memory alive, and DLPack "
      "consumers (CuPy, JAX on a GPU; xffi programs on the same device) take "
      "it without a copy; np.asarray and copy_to_host() copy it to the host.")
      .def_prop_ro("shape",
                   [](const DeviceArray& a) {
                     nb::list shape;
                     for (int64_t d : a.dims()) shape.append(d);
                     return nb::tuple(shape);
                   })
      .def_prop_ro("dtype",
                   [](const DeviceArray& a) {
                     return nb::steal(reinterpret_cast<PyObject*>(
                         DescrOfDtype(ToFfiDataType(a.type()))));
                   })
      .def_prop_ro("nbytes", &DeviceArray::nbytes)
      .def("copy_to_host", &DeviceArray::ToHost,
           "A NumPy array with the array's values (waits for the device).")
      .def(
          "__array__",
          [](const DeviceArray& a, nb::handle dtype, nb::handle copy) {
            if (!copy.is_none() && !nb::cast<bool>(copy))
              ThrowValueError(
                  "a DeviceArray is on its device: a host array of it is "
                  "always a copy (copy=False cannot be honoured)");
            nb::object array = a.ToHost();
            if (!dtype.is_none()) array = array.attr("astype")(dtype);
            return array;
          },
          nb::arg("dtype") = nb::none(), nb::kw_only(),
          nb::arg("copy") = nb::none())
      .def("__dlpack_device__", &DeviceArray::dlpack_device)
      .def("__dlpack__",
           [](nb::handle self, nb::kwargs kwargs) {
             // nanobind's ndarray makes the capsule (versioned or not, as the
             // consumer's max_version asks) and keeps `self`, so the memory
             // lives as long as any consumer holds it. The stream keyword is
             // accepted and needs nothing: a result is complete on return.
             const DeviceArray& a = nb::cast<const DeviceArray&>(self);
             auto [type, ordinal] = a.dlpack_device();
             std::vector<size_t> shape(a.dims().begin(), a.dims().end());
             const std::optional<nb::dlpack::dtype> dtype =
                 DlpackDtypeOf(ToFfiDataType(a.type()));
             if (!dtype)
               ThrowTypeError("DeviceArray.__dlpack__: dtype " +
                              DtypeName(ToFfiDataType(a.type())) +
                              " has no DLPack code");
             nb::ndarray<nb::array_api> view(a.buffer()->data(), shape.size(),
                                             shape.data(), self, nullptr,
                                             *dtype, type, ordinal);
             return nb::cast(view).attr("__dlpack__")(**kwargs);
           })
      .def("__repr__", [](const DeviceArray& a) {
        auto [type, ordinal] = a.dlpack_device();
        return "<xffi.DeviceArray " + DtypeName(ToFfiDataType(a.type())) +
               DimsText(a.dims()) + " on " +
               (type == kDlpackCuda ? "cuda:" : "sim:") +
               std::to_string(ordinal) + ">";
      });
}

}  // namespace xffi::python
