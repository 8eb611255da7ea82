// Programs from Python: shapes, the builder (include/xffi/program/builder.h
// with Python names), modules, and compiled executables called on NumPy
// arrays. An executable's __call__ hands the arrays' own memory to
// ExecuteRaw: only Python values that are not arrays of the parameter's
// dtype are converted.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "attributes.h"
#include "bindings.h"
#include "common.h"
#include "compiler/compiler.h"
#include "device_arrays.h"
#include "device_backend/device_backend.h"
#include "device_backend/device_executor.h"
#include "dlpack.h"
#include "result_memory.h"
#include "xffi/program/builder.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/runtime/registry.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::python {
namespace {

ElementType ElementTypeOfDtype(nb::handle dtype_like) {
  PyArray_Descr* descr = nullptr;
  if (!PyArray_DescrConverter(dtype_like.ptr(), &descr)) {
    throw nb::python_error();
  }
  XLA_FFI_DataType dtype = DtypeOfTypeNum(descr->type_num);
  std::string name =
      nb::cast<std::string>(nb::str(reinterpret_cast<PyObject*>(descr)));
  Py_DECREF(descr);
  if (dtype == XLA_FFI_DataType_INVALID) {
    ThrowTypeError("dtype " + name + " has no XLA element type");
  }
  return static_cast<ElementType>(dtype);
}

nb::object DtypeOfElementType(ElementType type) {
  PyArray_Descr* descr = DescrOfDtype(ToFfiDataType(type));
  if (descr == nullptr) {
    ThrowTypeError("element type " + std::string(ElementTypeName(type)) +
                   " has no NumPy dtype here");
  }
  return nb::steal(reinterpret_cast<PyObject*>(descr));
}

// An op handle with a copy of its shape: the shape stays readable after
// the builder has handed its instructions to a module.
struct PyOp {
  Op op;
  Shape shape;
};

// What a sub-builder finished: a region for reduce, while, conditional...
struct PyComputation {
  Computation* computation;
};

struct PyModule {
  Module module;
};

class PyBuilder {
 public:
  explicit PyBuilder(std::string name)
      : owned_(std::make_unique<Builder>(std::move(name))),
        builder_(owned_.get()) {}
  PyBuilder(std::unique_ptr<Builder> sub) : owned_(std::move(sub)) {
    builder_ = owned_.get();
  }

  Builder& b() { return *builder_; }

  // Raises the builder's first error when `op` is invalid: Python sees the
  // failing op's message where it was built, not at build().
  PyOp Wrap(Op op) {
    if (!op.valid()) {
      Status status = builder_->status();
      if (status.ok()) status = Internal("builder returned an invalid op");
      ThrowStatus(status);
    }
    return PyOp{op, op.shape()};
  }

  std::vector<Op> Ops(const std::vector<PyOp*>& ops) {
    std::vector<Op> out;
    out.reserve(ops.size());
    for (const PyOp* op : ops) out.push_back(op->op);
    return out;
  }

 private:
  std::unique_ptr<Builder> owned_;
  Builder* builder_;
};

Literal LiteralOf(nb::handle value, nb::handle dtype) {
  PyArray_Descr* descr = nullptr;
  if (!dtype.is_none() && !PyArray_DescrConverter(dtype.ptr(), &descr)) {
    throw nb::python_error();
  }
  // Steals descr.
  PyObject* array =
      PyArray_FromAny(value.ptr(), descr, 0, 0,
                      NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, nullptr);
  if (array == nullptr) throw nb::python_error();
  nb::object owner = nb::steal(array);
  auto* a = reinterpret_cast<PyArrayObject*>(array);
  XLA_FFI_DataType type = DtypeOfTypeNum(PyArray_TYPE(a));
  if (type == XLA_FFI_DataType_INVALID) {
    ThrowTypeError("constant: dtype " +
                   nb::cast<std::string>(
                       nb::str(reinterpret_cast<PyObject*>(PyArray_DESCR(a)))) +
                   " has no XLA element type");
  }
  Shape shape = Shape::Array(
      static_cast<ElementType>(type),
      std::vector<int64_t>(PyArray_DIMS(a), PyArray_DIMS(a) + PyArray_NDIM(a)));
  return Literal::FromBytes(shape, PyArray_DATA(a),
                            static_cast<size_t>(PyArray_NBYTES(a)));
}

std::vector<Computation*> Regions(const std::vector<PyComputation*>& regions) {
  std::vector<Computation*> out;
  for (const PyComputation* r : regions) out.push_back(r->computation);
  return out;
}

// A compiled program. Calls from several Python threads run concurrently:
// the GIL is released around ExecuteRaw, which is safe to call concurrently
// on one executable (cpu/executor.h); only the argument conversion and the
// result arrays' creation hold it.
class PyExecutable {
 public:
  explicit PyExecutable(std::unique_ptr<Executable> executable)
      : executable_(std::move(executable)),
        device_(device_backend::DeviceOfExecutable(*executable_)) {
    for (const Shape& shape : executable_->parameter_shapes()) {
      for (const Shape* leaf : shape.Leaves()) {
        parameter_leaves_.push_back(Leaf(*leaf));
      }
    }
    for (const Shape* leaf : executable_->result_shape().Leaves()) {
      result_leaves_.push_back(Leaf(*leaf));
    }
  }

  // The arrays of runs whose handler is still running outlive the program
  // (the executor keeps its own buffers until then, cpu/executor.cc): they
  // go to the process-wide list, which every program's next call sweeps.
  ~PyExecutable() {
    ReleaseCompletedRuns(abandoned_);
    std::vector<AbandonedRun>& orphans = OrphanedRuns();
    for (AbandonedRun& run : abandoned_) orphans.push_back(std::move(run));
  }
  PyExecutable(const PyExecutable&) = delete;
  PyExecutable& operator=(const PyExecutable&) = delete;

  Executable& executable() { return *executable_; }

  bool device_results() const { return device_results_; }
  void set_device_results(bool on_device) {
    if (on_device && device_ == nullptr)
      ThrowValueError(
          "device_results=True needs a device platform ('sim' or 'cuda'); "
          "this program runs on the host");
    device_results_ = on_device;
  }

  nb::object Call(nb::args args) {
    if (!abandoned_.empty()) ReleaseCompletedRuns(abandoned_);
    if (!OrphanedRuns().empty()) ReleaseCompletedRuns(OrphanedRuns());
    const std::vector<Shape>& params = executable_->parameter_shapes();
    if (args.size() != params.size()) {
      ThrowTypeError("the program takes " + CountOf(params.size(), "argument") +
                     " (" + ParameterList() + "), got " +
                     std::to_string(args.size()));
    }
    std::vector<nb::object> keep;  // conversions live until the run ends
    std::vector<const void*> arguments;
    arguments.reserve(parameter_leaves_.size());
    device_backend::LeafPlaces places;
    size_t leaf = 0;
    bool wait_for_device = false;
    // The run is reserved at the first argument on the program's device:
    // its producer is handed the run's stream and orders its work before
    // it. An exception before the run gives the reservation back.
    std::unique_ptr<device_backend::ReservedRun> reserved;
    RunStream run_stream;
    if (device_ != nullptr)
      run_stream = [this, &reserved]() -> device::Stream* {
        if (reserved == nullptr) {
          StatusOr<std::unique_ptr<device_backend::ReservedRun>> made = [&] {
            nb::gil_scoped_release release;
            return device_backend::ReserveRun(*executable_);
          }();
          if (!made.ok()) ThrowStatus(made.status());
          reserved = std::move(*made);
        }
        return &reserved->stream();
      };
    for (size_t i = 0; i < params.size(); ++i) {
      TakeArgument(args[i], params[i], "argument " + std::to_string(i), leaf,
                   arguments, places.argument_on_device, keep, wait_for_device,
                   run_stream);
    }
    places.results_on_device = device_results_;
    bool any_on_device = device_results_;
    for (bool on_device : places.argument_on_device)
      any_on_device = any_on_device || on_device;
    // Only a producer that could not take the run's stream (so works on
    // CUDA's legacy default stream, say) needs the whole device
    // synchronised; results go to fresh memory.
    if (wait_for_device) SynchronizeDeviceArguments(*device_);
    std::vector<nb::object> outputs;
    std::vector<void*> results;
    outputs.reserve(result_leaves_.size());
    for (const LeafSpec& spec : result_leaves_) {
      if (spec.token) {
        outputs.push_back(nb::none());
        results.push_back(nullptr);
        continue;
      }
      if (device_results_) {
        std::shared_ptr<DeviceBuffer> buffer = DeviceBuffer::Allocate(
            device_, Shape::Array(spec.type, spec.dims).byte_size());
        results.push_back(buffer->data());
        outputs.push_back(
            NewDeviceArray(std::move(buffer), spec.type, spec.dims));
        continue;
      }
      Py_INCREF(spec.descr.ptr());
      PyObject* array =
          NewResultArray(static_cast<int>(spec.dims.size()),
                         reinterpret_cast<const npy_intp*>(spec.dims.data()),
                         reinterpret_cast<PyArray_Descr*>(spec.descr.ptr()));
      if (array == nullptr) throw nb::python_error();
      outputs.push_back(nb::steal(array));
      results.push_back(PyArray_DATA(reinterpret_cast<PyArrayObject*>(array)));
    }
    Status status;
    // Set, without the GIL, by the thread completing a custom call this run
    // abandoned at the timeout (only programs with one pay for it).
    std::shared_ptr<std::atomic<bool>> completed;
    if (has_timeout_) completed = std::make_shared<std::atomic<bool>>(false);
    {
      nb::gil_scoped_release release;
      const ffi::Span<const void* const> argument_leaves(arguments.data(),
                                                         arguments.size());
      const ffi::Span<void* const> result_leaves(results.data(),
                                                 results.size());
      if (any_on_device) {
        std::function<void()> notify;
        if (completed != nullptr)
          notify = [completed] {
            completed->store(true, std::memory_order_release);
          };
        status = device_backend::ExecuteWithDeviceLeaves(
            *executable_, argument_leaves, result_leaves, places,
            std::move(notify), reserved.get());
      } else if (completed == nullptr) {
        status = executable_->ExecuteRaw(argument_leaves, result_leaves);
      } else {
        status = executable_->ExecuteRawNotifying(
            argument_leaves, result_leaves,
            [completed] { completed->store(true, std::memory_order_release); });
      }
    }
    if (status.code() == XLA_FFI_Error_Code_DEADLINE_EXCEEDED) {
      // A custom call that timed out may still read the arguments and
      // write the results: they are kept until it completes.
      AbandonedRun run;
      run.completed = std::move(completed);
      run.objects.push_back(nb::borrow<nb::object>(args));
      for (nb::object& object : keep) run.objects.push_back(std::move(object));
      for (nb::object& object : outputs)
        run.objects.push_back(std::move(object));
      abandoned_.push_back(std::move(run));
    }
    ThrowIfError(status);
    size_t next = 0;
    return Assemble(executable_->result_shape(), outputs, next);
  }

  // Timed-out runs whose arrays are still kept, after releasing those whose
  // handler has completed since (tests watch it).
  size_t AbandonedRuns() {
    ReleaseCompletedRuns(abandoned_);
    if (!OrphanedRuns().empty()) ReleaseCompletedRuns(OrphanedRuns());
    return abandoned_.size();
  }

  void set_has_timeout(bool has_timeout) { has_timeout_ = has_timeout; }

  std::string ParameterList() const {
    std::string s;
    const std::vector<Shape>& params = executable_->parameter_shapes();
    for (size_t i = 0; i < params.size(); ++i) {
      s += (i ? ", " : "") + params[i].ToString(false);
    }
    return s;
  }

 private:
  // A run that timed out: what its abandoned custom call may still use.
  // `completed` is null where the executor cannot tell (kept for good).
  struct AbandonedRun {
    std::shared_ptr<std::atomic<bool>> completed;
    std::vector<nb::object> objects;  // arguments, conversions, results
  };

  // With the GIL: frees the arrays of runs whose handler has completed.
  static void ReleaseCompletedRuns(std::vector<AbandonedRun>& runs) {
    runs.erase(
        std::remove_if(runs.begin(), runs.end(),
                       [](const AbandonedRun& run) {
                         return run.completed != nullptr &&
                                run.completed->load(std::memory_order_acquire);
                       }),
        runs.end());
  }

  // Runs of programs destroyed meanwhile. Never destroyed itself: at exit
  // a handler may still be running, and the arrays must not be released
  // after the interpreter is gone.
  static std::vector<AbandonedRun>& OrphanedRuns() {
    static auto* runs = new std::vector<AbandonedRun>;
    return *runs;
  }

  struct LeafSpec {
    bool token = false;
    ElementType type = ElementType::kInvalid;
    std::vector<int64_t> dims;
    nb::object descr;
  };

  static LeafSpec Leaf(const Shape& shape) {
    LeafSpec spec;
    if (shape.IsToken()) {
      spec.token = true;
      return spec;
    }
    spec.type = shape.element_type();
    spec.dims = shape.dims();
    spec.descr = DtypeOfElementType(spec.type);
    return spec;
  }

  // Arrays of the parameter's dtype are taken as they are (C-contiguous ones
  // without a copy; DLPack producers through numpy.from_dlpack, which wraps
  // their memory; device ones as device_arrays.h says); Python scalars and
  // lists are converted to that dtype. `on_device` gets one flag per leaf.
  void TakeArgument(nb::handle value, const Shape& shape,
                    const std::string& where, size_t& leaf,
                    std::vector<const void*>& arguments,
                    std::vector<bool>& on_device, std::vector<nb::object>& keep,
                    bool& wait_for_device, const RunStream& run_stream) {
    if (shape.IsTuple()) {
      if (!PyTuple_Check(value.ptr()) && !PyList_Check(value.ptr())) {
        ThrowTypeError(where + " must be a tuple for parameter shape " +
                       shape.ToString(false) + ", got " +
                       PythonTypeName(value));
      }
      nb::sequence seq = nb::borrow<nb::sequence>(value);
      if (nb::len(seq) != static_cast<size_t>(shape.tuple_size())) {
        ThrowValueError(where + " must have " +
                        std::to_string(shape.tuple_size()) + " elements for " +
                        shape.ToString(false) + ", got " +
                        std::to_string(nb::len(seq)));
      }
      for (int64_t i = 0; i < shape.tuple_size(); ++i) {
        TakeArgument(seq[static_cast<size_t>(i)], shape.tuple_shape(i),
                     where + "[" + std::to_string(i) + "]", leaf, arguments,
                     on_device, keep, wait_for_device, run_stream);
      }
      return;
    }
    const LeafSpec& spec = parameter_leaves_[leaf++];
    on_device.push_back(false);
    if (spec.token) {
      arguments.push_back(nullptr);
      return;
    }
    nb::handle array_like = value;
    bool is_array = PyArray_Check(value.ptr());
    if (!is_array) {
      std::unique_ptr<DeviceArgument> device_argument = TakeDeviceArgument(
          value, device_.get(), run_stream, spec.type, spec.dims, where);
      if (device_argument != nullptr && device_argument->device_data) {
        keep.push_back(std::move(device_argument->keep));
        arguments.push_back(device_argument->device_data);
        on_device.back() = true;
        wait_for_device = wait_for_device || device_argument->needs_device_wait;
        return;
      }
      if (device_argument != nullptr) {
        keep.push_back(std::move(device_argument->host_copy));
        array_like = keep.back();
        is_array = true;
      }
    }
    if (!is_array && !PyArray_IsScalar(value.ptr(), Generic) &&
        PyObject_HasAttrString(value.ptr(), "__dlpack__")) {
      nb::object imported;
      try {
        imported = FromDlpack()(value);
      } catch (nb::python_error&) {
        // bfloat16 tensors, say: NumPy's importer has no dtype for them.
        imported = ArrayFromDlpackExtendedDtype(value);
        if (!imported.is_valid()) throw;
      }
      keep.push_back(std::move(imported));
      array_like = keep.back();
      is_array = true;
    }
    if (is_array) {
      auto* a = reinterpret_cast<PyArrayObject*>(array_like.ptr());
      XLA_FFI_DataType type = DtypeOfTypeNum(PyArray_TYPE(a));
      if (type != ToFfiDataType(spec.type)) {
        ThrowTypeError(where + " has dtype " + DtypeName(type) +
                       ", the parameter is " + shape.ToString(false));
      }
    }
    Py_INCREF(spec.descr.ptr());
    PyObject* converted = PyArray_FromAny(
        array_like.ptr(), reinterpret_cast<PyArray_Descr*>(spec.descr.ptr()), 0,
        0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, nullptr);
    if (converted == nullptr) throw nb::python_error();
    keep.push_back(nb::steal(converted));
    auto* a = reinterpret_cast<PyArrayObject*>(converted);
    std::vector<int64_t> dims(PyArray_DIMS(a),
                              PyArray_DIMS(a) + PyArray_NDIM(a));
    if (dims != spec.dims) {
      ThrowValueError(where + " has shape " +
                      Shape::Array(spec.type, dims).ToString(false) +
                      ", the parameter is " + shape.ToString(false));
    }
    arguments.push_back(PyArray_DATA(a));
  }

  static nb::object& FromDlpack() {
    static nb::object* from_dlpack =
        new nb::object(nb::module_::import_("numpy").attr("from_dlpack"));
    return *from_dlpack;
  }

  static nb::object Assemble(const Shape& shape,
                             std::vector<nb::object>& outputs, size_t& next) {
    if (!shape.IsTuple()) return std::move(outputs[next++]);
    PyObject* tuple = PyTuple_New(shape.tuple_size());
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      PyTuple_SET_ITEM(
          tuple, i,
          Assemble(shape.tuple_shape(i), outputs, next).release().ptr());
    }
    return nb::steal(tuple);
  }

  std::unique_ptr<Executable> executable_;
  // The device it runs on; null on the host.
  std::shared_ptr<device::Device> device_;
  bool device_results_ = false;
  std::vector<LeafSpec> parameter_leaves_, result_leaves_;
  std::vector<AbandonedRun> abandoned_;  // see Call; touched with the GIL
  bool has_timeout_ = false;
};

StatusOr<std::unique_ptr<Executable>> CompileForPlatform(
    Module module, const CompileOptions& options) {
  if (!options.simulated_device) return Compile(std::move(module), options);
  // One SimDevice for every "sim" program, as every "cuda" one shares
  // GPU 0: one program's device results are another's arguments.
  std::shared_ptr<device::Device> sim = PythonSimDevice();
  device_backend::DeviceBackend backend(
      {[sim](const CompileOptions&)
           -> StatusOr<std::shared_ptr<device::Device>> { return sim; }});
  return compiler::CompileWithBackend(std::move(module), options, backend);
}

std::unique_ptr<PyExecutable> CompileModule(Module module, int threads,
                                            bool eliminate_dead_code,
                                            int64_t memory_limit,
                                            double custom_call_timeout,
                                            const std::string& platform) {
  CompileOptions options;
  // "sim": the CUDA platform on xffi's simulated GPU (SimDevice).
  if (platform == "sim") {
    options.platform = Platform::kCuda;
    options.simulated_device = true;
  } else {
    StatusOr<Platform> parsed = ParsePlatform(platform);
    if (!parsed.ok())
      ThrowValueError(
          "platform must be 'host', 'cpu', 'cuda', 'gpu' or "
          "'sim', got '" +
          platform + "'");
    options.platform = *parsed;
  }
  options.intra_op_threads = threads;
  options.eliminate_dead_code = eliminate_dead_code;
  options.memory_limit_bytes = memory_limit;
  if (!(custom_call_timeout >= 0)) {
    ThrowValueError("custom_call_timeout must be >= 0 seconds, got " +
                    std::to_string(custom_call_timeout));
  }
  options.custom_call_timeout =
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::duration<double>(custom_call_timeout));
  StatusOr<std::unique_ptr<Executable>> executable =
      CompileForPlatform(std::move(module), options);
  if (!executable.ok()) ThrowStatus(executable.status());
  auto compiled = std::make_unique<PyExecutable>(std::move(*executable));
  compiled->set_has_timeout(options.custom_call_timeout.count() > 0);
  return compiled;
}

std::vector<int64_t> Ints(nb::handle sequence) {
  std::vector<int64_t> out;
  for (nb::handle v : sequence) out.push_back(nb::cast<int64_t>(v));
  return out;
}

Opcode OpcodeNamed(const std::string& name, bool binary) {
  std::optional<Opcode> opcode = OpcodeFromName(name);
  if (!opcode) opcode = OpcodeFromStableHloName("stablehlo." + name);
  if (!opcode ||
      (binary ? !IsElementwiseBinary(*opcode) : !IsElementwiseUnary(*opcode))) {
    ThrowValueError(std::string(binary ? "binary" : "unary") + ": '" + name +
                    "' is not an elementwise " + (binary ? "binary" : "unary") +
                    " op (HLO names such as " +
                    (binary ? "'add', 'multiply', 'power'"
                            : "'exponential', 'sqrt', 'negate'") +
                    ")");
  }
  return *opcode;
}

// An enum attribute by its HLO spelling; anything else raises naming the op,
// the argument and the spellings it takes.
template <typename Enum>
Enum EnumNamed(std::optional<Enum> (*from_name)(std::string_view),
               const std::string& name, const char* op, const char* argument,
               const char* choices) {
  std::optional<Enum> value = from_name(name);
  if (!value) {
    ThrowValueError(std::string(op) + ": " + argument + " '" + name +
                    "' is not one of " + choices);
  }
  return *value;
}

// One WindowDimension per window dimension from lax.reduce_window's and
// lax.conv_general_dilated's arguments; absent ones take their defaults,
// given ones must have one entry per dimension.
std::vector<WindowDimension> WindowOf(
    const char* op, const std::vector<int64_t>& sizes,
    const std::optional<std::vector<int64_t>>& strides,
    const std::optional<std::vector<std::pair<int64_t, int64_t>>>& padding,
    const std::optional<std::vector<int64_t>>& base_dilations,
    const std::optional<std::vector<int64_t>>& window_dilations) {
  auto check = [&](size_t n, const char* argument) {
    if (n != sizes.size()) {
      ThrowValueError(std::string(op) + ": " + argument + " has " +
                      std::to_string(n) + " entries, the window " +
                      std::to_string(sizes.size()) + " dimensions");
    }
  };
  if (strides) check(strides->size(), "window_strides");
  if (padding) check(padding->size(), "padding");
  if (base_dilations) check(base_dilations->size(), "base_dilations");
  if (window_dilations) check(window_dilations->size(), "window_dilations");
  std::vector<WindowDimension> window(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    window[i].size = sizes[i];
    if (strides) window[i].stride = (*strides)[i];
    if (padding) {
      window[i].padding_low = (*padding)[i].first;
      window[i].padding_high = (*padding)[i].second;
    }
    if (base_dilations) window[i].base_dilation = (*base_dilations)[i];
    if (window_dilations) window[i].window_dilation = (*window_dilations)[i];
  }
  return window;
}

// lax.ConvDimensionNumbers' (lhs_spec, rhs_spec, out_spec): (batch,
// feature, spatial...), (output feature, input feature, spatial...),
// (batch, feature, spatial...).
using ConvolutionSpecs = std::tuple<std::vector<int64_t>, std::vector<int64_t>,
                                    std::vector<int64_t>>;

ConvolutionDimensionNumbers ConvolutionNumbersOf(
    const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs,
    const std::vector<int64_t>& out) {
  if (lhs.size() < 2 || rhs.size() != lhs.size() || out.size() != lhs.size()) {
    ThrowValueError(
        "convolution: dimension_numbers must be three specs of one rank >= 2 "
        "(got " +
        std::to_string(lhs.size()) + ", " + std::to_string(rhs.size()) + ", " +
        std::to_string(out.size()) + " entries)");
  }
  ConvolutionDimensionNumbers numbers;
  numbers.input_batch_dimension = lhs[0];
  numbers.input_feature_dimension = lhs[1];
  numbers.input_spatial_dimensions.assign(lhs.begin() + 2, lhs.end());
  numbers.kernel_output_feature_dimension = rhs[0];
  numbers.kernel_input_feature_dimension = rhs[1];
  numbers.kernel_spatial_dimensions.assign(rhs.begin() + 2, rhs.end());
  numbers.output_batch_dimension = out[0];
  numbers.output_feature_dimension = out[1];
  numbers.output_spatial_dimensions.assign(out.begin() + 2, out.end());
  return numbers;
}

// Which devices a collective combines (see CollectiveDevices).
CollectiveDevices DevicesOf(std::vector<std::vector<int64_t>> replica_groups,
                            int64_t channel_id, bool use_global_device_ids) {
  CollectiveDevices devices;
  devices.replica_groups = std::move(replica_groups);
  devices.channel_id = channel_id;
  devices.use_global_device_ids = use_global_device_ids;
  return devices;
}

void BindShape(nb::module_& m) {
  nb::class_<Shape>(m, "Shape",
                    "An array (dtype, dimensions, optional minor-to-major "
                    "layout), token or tuple shape, as XLA's.")
      .def_static(
          "array_shape",
          [](nb::handle dtype, nb::handle dims, nb::handle minor_to_major) {
            std::vector<int64_t> layout;
            if (!minor_to_major.is_none()) layout = Ints(minor_to_major);
            return Shape::Array(ElementTypeOfDtype(dtype), Ints(dims),
                                std::move(layout));
          },
          nb::arg("dtype"), nb::arg("dims"),
          nb::arg("minor_to_major").none() = nb::none())
      .def_static(
          "scalar_shape",
          [](nb::handle dtype) {
            return Shape::Scalar(ElementTypeOfDtype(dtype));
          },
          nb::arg("dtype"))
      .def_static("tuple_shape", &Shape::Tuple, nb::arg("shapes"))
      .def_static("token_shape", &Shape::Token)
      .def("is_array", &Shape::IsArray)
      .def("is_tuple", &Shape::IsTuple)
      .def("is_token", &Shape::IsToken)
      .def("dimensions",
           [](const Shape& s) {
             nb::list dims;
             for (int64_t d : s.dims()) dims.append(d);
             return nb::tuple(dims);
           })
      .def("minor_to_major",
           [](const Shape& s) {
             nb::list dims;
             for (int64_t d : s.minor_to_major()) dims.append(d);
             return nb::tuple(dims);
           })
      .def("tuple_shapes", [](const Shape& s) { return s.tuple_shapes(); })
      .def("numpy_dtype",
           [](const Shape& s) { return DtypeOfElementType(s.element_type()); })
      .def_prop_ro("element_type",
                   [](const Shape& s) {
                     return std::string(ElementTypeName(s.element_type()));
                   })
      .def("__eq__", [](const Shape& a, const Shape& b) { return a == b; })
      .def(
          "__hash__",
          [](const Shape& s) { return std::hash<std::string>()(s.ToString()); })
      .def("__str__", [](const Shape& s) { return s.ToString(); })
      .def("__repr__",
           [](const Shape& s) { return "Shape(" + s.ToString() + ")"; });
}

void BindBuilder(nb::module_& m) {
  nb::class_<PyOp>(m, "Op", "A value being built (a Builder's handle).")
      .def_prop_ro("shape", [](const PyOp& op) { return op.shape; })
      .def("__repr__", [](const PyOp& op) {
        return "<xffi.Op " + op.op.instruction()->name() + ": " +
               op.shape.ToString() + ">";
      });
  nb::class_<PyComputation>(m, "Computation",
                            "A region a sub-builder finished (a reducer, a "
                            "loop body, a branch).")
      .def_prop_ro(
          "name", [](const PyComputation& c) { return c.computation->name(); });

  // Every method returning an Op keeps the builder alive as long as the Op.
  using KA = nb::keep_alive<0, 1>;
  nb::
      class_<PyBuilder>(m, "Builder",
                        "Builds a program op by op (XlaBuilder's model): "
                        "result shapes are inferred, an impossible op raises "
                        "at once naming it.")
          .def(nb::init<std::string>(), nb::arg("name"))
          .def(
              "create_sub_builder",
              [](PyBuilder& self, std::string name) {
                return std::make_unique<PyBuilder>(
                    self.b().CreateSubBuilder(std::move(name)));
              },
              nb::arg("name"), KA())
          .def(
              "build_subcomputation",
              [](PyBuilder& self, PyOp& root) {
                Computation* c = self.b().BuildSubcomputation(root.op);
                if (c == nullptr) ThrowStatus(self.b().status());
                return PyComputation{c};
              },
              nb::arg("root"), KA())
          .def(
              "build",
              [](PyBuilder& self, PyOp& root) {
                StatusOr<Module> module = self.b().Build(root.op);
                if (!module.ok()) ThrowStatus(module.status());
                return PyModule{std::move(*module)};
              },
              nb::arg("root"))
          .def(
              "parameter",
              [](PyBuilder& self, int64_t number, const Shape& shape,
                 std::string name) {
                return self.Wrap(
                    self.b().Parameter(number, shape, std::move(name)));
              },
              nb::arg("number"), nb::arg("shape"), nb::arg("name") = "", KA())
          .def(
              "constant",
              [](PyBuilder& self, nb::handle value, nb::handle dtype) {
                return self.Wrap(self.b().Constant(LiteralOf(value, dtype)));
              },
              nb::arg("value"), nb::arg("dtype").none() = nb::none(), KA(),
              "A constant from a NumPy array or anything numpy.asarray takes "
              "(converted to `dtype` when given).")
          .def(
              "tuple",
              [](PyBuilder& self, const std::vector<PyOp*>& elements) {
                return self.Wrap(self.b().Tuple(self.Ops(elements)));
              },
              nb::arg("elements"), KA())
          .def(
              "get_tuple_element",
              [](PyBuilder& self, PyOp& tuple, int64_t index) {
                return self.Wrap(self.b().GetTupleElement(tuple.op, index));
              },
              nb::arg("tuple"), nb::arg("index"), KA())
          .def(
              "unary",
              [](PyBuilder& self, const std::string& opcode, PyOp& operand) {
                return self.Wrap(
                    self.b().Unary(OpcodeNamed(opcode, false), operand.op));
              },
              nb::arg("opcode"), nb::arg("operand"), KA(),
              "An elementwise unary op by HLO name: 'exponential', 'sqrt', ...")
          .def(
              "binary",
              [](PyBuilder& self, const std::string& opcode, PyOp& lhs,
                 PyOp& rhs) {
                return self.Wrap(
                    self.b().Binary(OpcodeNamed(opcode, true), lhs.op, rhs.op));
              },
              nb::arg("opcode"), nb::arg("lhs"), nb::arg("rhs"), KA(),
              "An elementwise binary op by HLO name: 'add', 'power', ...")
          .def(
              "compare",
              [](PyBuilder& self, PyOp& lhs, PyOp& rhs,
                 const std::string& direction,
                 std::optional<std::string> type) {
                ComparisonDirection d =
                    EnumNamed(&ComparisonDirectionFromName, direction,
                              "compare", "direction", "EQ, NE, GE, GT, LE, LT");
                ComparisonType t =
                    type ? EnumNamed(&ComparisonTypeFromName, *type, "compare",
                                     "type",
                                     "FLOAT, TOTALORDER, SIGNED, UNSIGNED")
                         : ComparisonType::kDefault;
                return self.Wrap(self.b().Compare(lhs.op, rhs.op, d, t));
              },
              nb::arg("lhs"), nb::arg("rhs"), nb::arg("direction"),
              nb::arg("type").none() = nb::none(), KA(),
              "type: HLO's comparison type (TOTALORDER orders -0 before +0 and "
              "NaNs by sign); default FLOAT, SIGNED or UNSIGNED by element "
              "type.")
          .def(
              "select",
              [](PyBuilder& self, PyOp& pred, PyOp& on_true, PyOp& on_false) {
                return self.Wrap(
                    self.b().Select(pred.op, on_true.op, on_false.op));
              },
              nb::arg("pred"), nb::arg("on_true"), nb::arg("on_false"), KA())
          .def(
              "convert",
              [](PyBuilder& self, PyOp& operand, nb::handle dtype) {
                return self.Wrap(
                    self.b().Convert(operand.op, ElementTypeOfDtype(dtype)));
              },
              nb::arg("operand"), nb::arg("dtype"), KA())
          .def(
              "iota",
              [](PyBuilder& self, const Shape& shape, int64_t dimension) {
                return self.Wrap(self.b().Iota(shape, dimension));
              },
              nb::arg("shape"), nb::arg("dimension"), KA())
          .def(
              "broadcast_in_dim",
              [](PyBuilder& self, PyOp& operand,
                 std::vector<int64_t> result_dims,
                 std::vector<int64_t> broadcast_dimensions) {
                return self.Wrap(
                    self.b().BroadcastInDim(operand.op, std::move(result_dims),
                                            std::move(broadcast_dimensions)));
              },
              nb::arg("operand"), nb::arg("result_dims"),
              nb::arg("broadcast_dimensions"), KA())
          .def(
              "reshape",
              [](PyBuilder& self, PyOp& operand, std::vector<int64_t> dims) {
                return self.Wrap(self.b().Reshape(operand.op, std::move(dims)));
              },
              nb::arg("operand"), nb::arg("dims"), KA())
          .def(
              "transpose",
              [](PyBuilder& self, PyOp& operand,
                 std::vector<int64_t> permutation) {
                return self.Wrap(
                    self.b().Transpose(operand.op, std::move(permutation)));
              },
              nb::arg("operand"), nb::arg("permutation"), KA())
          .def(
              "slice",
              [](PyBuilder& self, PyOp& operand, std::vector<int64_t> starts,
                 std::vector<int64_t> limits,
                 std::optional<std::vector<int64_t>> strides) {
                std::vector<int64_t> s =
                    strides ? *strides : std::vector<int64_t>(starts.size(), 1);
                return self.Wrap(self.b().Slice(operand.op, std::move(starts),
                                                std::move(limits),
                                                std::move(s)));
              },
              nb::arg("operand"), nb::arg("starts"), nb::arg("limits"),
              nb::arg("strides").none() = nb::none(), KA())
          .def(
              "concatenate",
              [](PyBuilder& self, const std::vector<PyOp*>& operands,
                 int64_t dimension) {
                return self.Wrap(
                    self.b().Concatenate(self.Ops(operands), dimension));
              },
              nb::arg("operands"), nb::arg("dimension"), KA())
          .def(
              "dot",
              [](PyBuilder& self, PyOp& lhs, PyOp& rhs) {
                return self.Wrap(self.b().Dot(lhs.op, rhs.op));
              },
              nb::arg("lhs"), nb::arg("rhs"), KA())
          .def(
              "reduce",
              [](PyBuilder& self, const std::vector<PyOp*>& operands,
                 const std::vector<PyOp*>& inits, PyComputation& reducer,
                 std::vector<int64_t> dimensions) {
                return self.Wrap(self.b().Reduce(
                    self.Ops(operands), self.Ops(inits), reducer.computation,
                    std::move(dimensions)));
              },
              nb::arg("operands"), nb::arg("inits"), nb::arg("reducer"),
              nb::arg("dimensions"), KA())
          .def(
              "while_loop",
              [](PyBuilder& self, PyComputation& condition, PyComputation& body,
                 PyOp& init) {
                return self.Wrap(self.b().While(condition.computation,
                                                body.computation, init.op));
              },
              nb::arg("condition"), nb::arg("body"), nb::arg("init"), KA())
          .def(
              "conditional",
              [](PyBuilder& self, PyOp& index,
                 const std::vector<PyComputation*>& branches,
                 const std::vector<PyOp*>& branch_operands) {
                return self.Wrap(self.b().Conditional(
                    index.op, Regions(branches), self.Ops(branch_operands)));
              },
              nb::arg("index"), nb::arg("branches"), nb::arg("branch_operands"),
              KA())
          .def(
              "call",
              [](PyBuilder& self, PyComputation& computation,
                 const std::vector<PyOp*>& operands) {
                return self.Wrap(
                    self.b().Call(computation.computation, self.Ops(operands)));
              },
              nb::arg("computation"), nb::arg("operands"), KA())
          .def(
              "clamp",
              [](PyBuilder& self, PyOp& min, PyOp& operand, PyOp& max) {
                return self.Wrap(self.b().Clamp(min.op, operand.op, max.op));
              },
              nb::arg("min"), nb::arg("operand"), nb::arg("max"), KA())
          .def(
              "bitcast_convert",
              [](PyBuilder& self, PyOp& operand, nb::handle dtype) {
                return self.Wrap(self.b().BitcastConvert(
                    operand.op, ElementTypeOfDtype(dtype)));
              },
              nb::arg("operand"), nb::arg("dtype"), KA())
          .def(
              "dynamic_slice",
              [](PyBuilder& self, PyOp& operand,
                 const std::vector<PyOp*>& start_indices,
                 std::vector<int64_t> sizes) {
                return self.Wrap(self.b().DynamicSlice(
                    operand.op, self.Ops(start_indices), std::move(sizes)));
              },
              nb::arg("operand"), nb::arg("start_indices"), nb::arg("sizes"),
              KA())
          .def(
              "dynamic_update_slice",
              [](PyBuilder& self, PyOp& operand, PyOp& update,
                 const std::vector<PyOp*>& start_indices) {
                return self.Wrap(self.b().DynamicUpdateSlice(
                    operand.op, update.op, self.Ops(start_indices)));
              },
              nb::arg("operand"), nb::arg("update"), nb::arg("start_indices"),
              KA())
          .def(
              "pad",
              [](PyBuilder& self, PyOp& operand, PyOp& padding_value,
                 const std::vector<std::tuple<int64_t, int64_t, int64_t>>&
                     padding) {
                std::vector<PadDimension> dims;
                for (auto [low, high, interior] : padding) {
                  dims.push_back(PadDimension{low, high, interior});
                }
                return self.Wrap(self.b().Pad(operand.op, padding_value.op,
                                              std::move(dims)));
              },
              nb::arg("operand"), nb::arg("padding_value"), nb::arg("padding"),
              KA(), "padding: one (low, high, interior) per dimension.")
          .def(
              "reverse",
              [](PyBuilder& self, PyOp& operand,
                 std::vector<int64_t> dimensions) {
                return self.Wrap(
                    self.b().Reverse(operand.op, std::move(dimensions)));
              },
              nb::arg("operand"), nb::arg("dimensions"), KA())
          .def(
              "dot_general",
              [](PyBuilder& self, PyOp& lhs, PyOp& rhs,
                 std::vector<int64_t> lhs_contracting,
                 std::vector<int64_t> rhs_contracting,
                 std::vector<int64_t> lhs_batch, std::vector<int64_t> rhs_batch,
                 nb::handle preferred_element_type) {
                DotDimensionNumbers numbers;
                numbers.lhs_contracting = std::move(lhs_contracting);
                numbers.rhs_contracting = std::move(rhs_contracting);
                numbers.lhs_batch = std::move(lhs_batch);
                numbers.rhs_batch = std::move(rhs_batch);
                ElementType result_type =
                    preferred_element_type.is_none()
                        ? ElementType::kInvalid
                        : ElementTypeOfDtype(preferred_element_type);
                return self.Wrap(
                    self.b().DotGeneral(lhs.op, rhs.op, numbers, result_type));
              },
              nb::arg("lhs"), nb::arg("rhs"), nb::arg("lhs_contracting"),
              nb::arg("rhs_contracting"),
              nb::arg("lhs_batch") = std::vector<int64_t>{},
              nb::arg("rhs_batch") = std::vector<int64_t>{},
              nb::arg("preferred_element_type").none() = nb::none(), KA())
          .def(
              "sort",
              [](PyBuilder& self, const std::vector<PyOp*>& operands,
                 PyComputation& comparator, int64_t dimension, bool is_stable) {
                return self.Wrap(self.b().Sort(self.Ops(operands),
                                               comparator.computation,
                                               dimension, is_stable));
              },
              nb::arg("operands"), nb::arg("comparator"), nb::arg("dimension"),
              nb::arg("is_stable") = false, KA(),
              "comparator: two scalar parameters per operand -> pred.")
          .def(
              "fft",
              [](PyBuilder& self, PyOp& operand, const std::string& fft_type,
                 std::vector<int64_t> fft_length) {
                FftType type = EnumNamed(&FftTypeFromName, fft_type, "fft",
                                         "fft_type", "FFT, IFFT, RFFT, IRFFT");
                return self.Wrap(
                    self.b().Fft(operand.op, type, std::move(fft_length)));
              },
              nb::arg("operand"), nb::arg("fft_type"), nb::arg("fft_length"),
              KA(), "The transform over the last len(fft_length) dimensions.")
          .def(
              "top_k",
              [](PyBuilder& self, PyOp& operand, int64_t k, bool largest) {
                return self.Wrap(self.b().TopK(operand.op, k, largest));
              },
              nb::arg("operand"), nb::arg("k"), nb::arg("largest") = true, KA(),
              "A tuple (values, s32 indices) along the last dimension, sorted.")
          .def(
              "rng_bit_generator",
              [](PyBuilder& self, PyOp& state, const Shape& bits_shape,
                 const std::string& algorithm) {
                RngAlgorithm a = EnumNamed(&RngAlgorithmFromName, algorithm,
                                           "rng_bit_generator", "algorithm",
                                           "DEFAULT, THREE_FRY, PHILOX");
                return self.Wrap(
                    self.b().RngBitGenerator(state.op, bits_shape, a));
              },
              nb::arg("state"), nb::arg("bits_shape"),
              nb::arg("algorithm") = "DEFAULT", KA(),
              "A tuple (new u64 state, random bits of bits_shape).")
          .def(
              "rng",
              [](PyBuilder& self, PyOp& a, PyOp& b, std::vector<int64_t> dims,
                 const std::string& distribution) {
                RngDistribution d =
                    EnumNamed(&RngDistributionFromName, distribution, "rng",
                              "distribution", "UNIFORM, NORMAL");
                return self.Wrap(self.b().Rng(a.op, b.op, std::move(dims), d));
              },
              nb::arg("a"), nb::arg("b"), nb::arg("dims"),
              nb::arg("distribution") = "UNIFORM", KA(),
              "UNIFORM in [a, b), or NORMAL with mean a and standard deviation "
              "b.")
          .def(
              "reduce_precision",
              [](PyBuilder& self, PyOp& operand, int64_t exponent_bits,
                 int64_t mantissa_bits) {
                return self.Wrap(self.b().ReducePrecision(
                    operand.op, exponent_bits, mantissa_bits));
              },
              nb::arg("operand"), nb::arg("exponent_bits"),
              nb::arg("mantissa_bits"), KA())
          .def(
              "cholesky",
              [](PyBuilder& self, PyOp& a, bool lower) {
                return self.Wrap(self.b().Cholesky(a.op, lower));
              },
              nb::arg("a"), nb::arg("lower") = true, KA())
          .def(
              "triangular_solve",
              [](PyBuilder& self, PyOp& a, PyOp& b, bool left_side, bool lower,
                 bool unit_diagonal, const std::string& transpose_a) {
                TriangularTranspose t =
                    EnumNamed(&TriangularTransposeFromName, transpose_a,
                              "triangular_solve", "transpose_a",
                              "NO_TRANSPOSE, TRANSPOSE, ADJOINT");
                return self.Wrap(self.b().TriangularSolve(
                    a.op, b.op, left_side, lower, unit_diagonal, t));
              },
              nb::arg("a"), nb::arg("b"), nb::arg("left_side"),
              nb::arg("lower"), nb::arg("unit_diagonal") = false,
              nb::arg("transpose_a") = "NO_TRANSPOSE", KA(),
              "x with op(a) x = b (left_side) or x op(a) = b.")
          .def(
              "map",
              [](PyBuilder& self, const std::vector<PyOp*>& operands,
                 PyComputation& computation) {
                return self.Wrap(
                    self.b().Map(self.Ops(operands), computation.computation));
              },
              nb::arg("operands"), nb::arg("computation"), KA(),
              "computation (one scalar parameter per operand) at every index.")
          .def(
              "batch_norm_training",
              [](PyBuilder& self, PyOp& operand, PyOp& scale, PyOp& offset,
                 float epsilon, int64_t feature_index) {
                return self.Wrap(self.b().BatchNormTraining(
                    operand.op, scale.op, offset.op, epsilon, feature_index));
              },
              nb::arg("operand"), nb::arg("scale"), nb::arg("offset"),
              nb::arg("epsilon"), nb::arg("feature_index"), KA(),
              "A tuple (normalized, batch mean, batch variance).")
          .def(
              "batch_norm_inference",
              [](PyBuilder& self, PyOp& operand, PyOp& scale, PyOp& offset,
                 PyOp& mean, PyOp& variance, float epsilon,
                 int64_t feature_index) {
                return self.Wrap(self.b().BatchNormInference(
                    operand.op, scale.op, offset.op, mean.op, variance.op,
                    epsilon, feature_index));
              },
              nb::arg("operand"), nb::arg("scale"), nb::arg("offset"),
              nb::arg("mean"), nb::arg("variance"), nb::arg("epsilon"),
              nb::arg("feature_index"), KA())
          .def(
              "batch_norm_grad",
              [](PyBuilder& self, PyOp& operand, PyOp& scale, PyOp& mean,
                 PyOp& variance, PyOp& grad_output, float epsilon,
                 int64_t feature_index) {
                return self.Wrap(self.b().BatchNormGrad(
                    operand.op, scale.op, mean.op, variance.op, grad_output.op,
                    epsilon, feature_index));
              },
              nb::arg("operand"), nb::arg("scale"), nb::arg("mean"),
              nb::arg("variance"), nb::arg("grad_output"), nb::arg("epsilon"),
              nb::arg("feature_index"), KA(),
              "A tuple (grad operand, grad scale, grad offset).")
          .def(
              "optimization_barrier",
              [](PyBuilder& self, PyOp& operand) {
                return self.Wrap(self.b().OptimizationBarrier(operand.op));
              },
              nb::arg("operand"), KA())
          .def(
              "reduce_window",
              [](PyBuilder& self, const std::vector<PyOp*>& operands,
                 const std::vector<PyOp*>& inits, PyComputation& reducer,
                 const std::vector<int64_t>& window_dimensions,
                 const std::optional<std::vector<int64_t>>& window_strides,
                 const std::optional<std::vector<std::pair<int64_t, int64_t>>>&
                     padding,
                 const std::optional<std::vector<int64_t>>& base_dilations,
                 const std::optional<std::vector<int64_t>>& window_dilations) {
                return self.Wrap(self.b().ReduceWindow(
                    self.Ops(operands), self.Ops(inits), reducer.computation,
                    WindowOf("reduce_window", window_dimensions, window_strides,
                             padding, base_dilations, window_dilations)));
              },
              nb::arg("operands"), nb::arg("inits"), nb::arg("reducer"),
              nb::arg("window_dimensions"),
              nb::arg("window_strides").none() = nb::none(),
              nb::arg("padding").none() = nb::none(),
              nb::arg("base_dilations").none() = nb::none(),
              nb::arg("window_dilations").none() = nb::none(), KA(),
              "lax.reduce_window's window: padding is (low, high) per "
              "dimension.")
          .def(
              "select_and_scatter",
              [](PyBuilder& self, PyOp& operand, PyComputation& select,
                 const std::vector<int64_t>& window_dimensions,
                 const std::optional<std::vector<int64_t>>& window_strides,
                 const std::optional<std::vector<std::pair<int64_t, int64_t>>>&
                     padding,
                 PyOp& source, PyOp& init, PyComputation& scatter) {
                return self.Wrap(self.b().SelectAndScatter(
                    operand.op, select.computation,
                    WindowOf("select_and_scatter", window_dimensions,
                             window_strides, padding, std::nullopt,
                             std::nullopt),
                    source.op, init.op, scatter.computation));
              },
              nb::arg("operand"), nb::arg("select"),
              nb::arg("window_dimensions"), nb::arg("window_strides").none(),
              nb::arg("padding").none(), nb::arg("source"), nb::arg("init"),
              nb::arg("scatter"), KA(),
              "select: (T, T) -> pred; scatter: (T, T) -> T.")
          .def(
              "convolution",
              [](PyBuilder& self, PyOp& lhs, PyOp& rhs,
                 const std::vector<int64_t>& window_strides,
                 const std::vector<std::pair<int64_t, int64_t>>& padding,
                 const std::optional<std::vector<int64_t>>& lhs_dilation,
                 const std::optional<std::vector<int64_t>>& rhs_dilation,
                 const std::optional<ConvolutionSpecs>& dimension_numbers,
                 int64_t feature_group_count, int64_t batch_group_count,
                 nb::handle preferred_element_type) {
                const size_t rank = window_strides.size() + 2;
                ConvolutionDimensionNumbers numbers;
                if (dimension_numbers) {
                  numbers =
                      ConvolutionNumbersOf(std::get<0>(*dimension_numbers),
                                           std::get<1>(*dimension_numbers),
                                           std::get<2>(*dimension_numbers));
                } else {
                  std::vector<int64_t> identity(rank);
                  for (size_t i = 0; i < rank; ++i) identity[i] = int64_t(i);
                  numbers = ConvolutionNumbersOf(identity, identity, identity);
                }
                const Shape& kernel = rhs.shape;
                std::vector<int64_t> sizes;
                for (int64_t d : numbers.kernel_spatial_dimensions) {
                  if (d < 0 || d >= kernel.rank()) {
                    ThrowValueError("convolution: kernel spatial dimension " +
                                    std::to_string(d) + " is outside rhs " +
                                    kernel.ToString());
                  }
                  sizes.push_back(kernel.dim(d));
                }
                ElementType result_type =
                    preferred_element_type.is_none()
                        ? ElementType::kInvalid
                        : ElementTypeOfDtype(preferred_element_type);
                return self.Wrap(self.b().Convolution(
                    lhs.op, rhs.op,
                    WindowOf("convolution", sizes, window_strides, padding,
                             lhs_dilation, rhs_dilation),
                    numbers, feature_group_count, batch_group_count,
                    result_type));
              },
              nb::arg("lhs"), nb::arg("rhs"), nb::arg("window_strides"),
              nb::arg("padding"), nb::arg("lhs_dilation").none() = nb::none(),
              nb::arg("rhs_dilation").none() = nb::none(),
              nb::arg("dimension_numbers").none() = nb::none(),
              nb::arg("feature_group_count") = 1,
              nb::arg("batch_group_count") = 1,
              nb::arg("preferred_element_type").none() = nb::none(), KA(),
              "lax.conv_general_dilated's arguments; dimension_numbers as "
              "lax.ConvDimensionNumbers (lhs_spec, rhs_spec, out_spec), "
              "default "
              "NC..., OI..., NC....")
          .def(
              "gather",
              [](PyBuilder& self, PyOp& operand, PyOp& start_indices,
                 std::vector<int64_t> offset_dims,
                 std::vector<int64_t> collapsed_slice_dims,
                 std::vector<int64_t> start_index_map, int64_t index_vector_dim,
                 std::vector<int64_t> slice_sizes,
                 std::vector<int64_t> operand_batching_dims,
                 std::vector<int64_t> start_indices_batching_dims,
                 bool indices_are_sorted) {
                GatherDimensionNumbers numbers;
                numbers.offset_dims = std::move(offset_dims);
                numbers.collapsed_slice_dims = std::move(collapsed_slice_dims);
                numbers.start_index_map = std::move(start_index_map);
                numbers.index_vector_dim = index_vector_dim;
                numbers.operand_batching_dims =
                    std::move(operand_batching_dims);
                numbers.start_indices_batching_dims =
                    std::move(start_indices_batching_dims);
                return self.Wrap(self.b().Gather(
                    operand.op, start_indices.op, numbers,
                    std::move(slice_sizes), indices_are_sorted));
              },
              nb::arg("operand"), nb::arg("start_indices"),
              nb::arg("offset_dims"), nb::arg("collapsed_slice_dims"),
              nb::arg("start_index_map"), nb::arg("index_vector_dim"),
              nb::arg("slice_sizes"),
              nb::arg("operand_batching_dims") = std::vector<int64_t>{},
              nb::arg("start_indices_batching_dims") = std::vector<int64_t>{},
              nb::arg("indices_are_sorted") = false, KA())
          .def(
              "scatter",
              [](PyBuilder& self, const std::vector<PyOp*>& operands,
                 PyOp& scatter_indices, const std::vector<PyOp*>& updates,
                 PyComputation& update_computation,
                 std::vector<int64_t> update_window_dims,
                 std::vector<int64_t> inserted_window_dims,
                 std::vector<int64_t> scatter_dims_to_operand_dims,
                 int64_t index_vector_dim,
                 std::vector<int64_t> input_batching_dims,
                 std::vector<int64_t> scatter_indices_batching_dims,
                 bool indices_are_sorted, bool unique_indices) {
                ScatterDimensionNumbers numbers;
                numbers.update_window_dims = std::move(update_window_dims);
                numbers.inserted_window_dims = std::move(inserted_window_dims);
                numbers.scatter_dims_to_operand_dims =
                    std::move(scatter_dims_to_operand_dims);
                numbers.index_vector_dim = index_vector_dim;
                numbers.input_batching_dims = std::move(input_batching_dims);
                numbers.scatter_indices_batching_dims =
                    std::move(scatter_indices_batching_dims);
                return self.Wrap(self.b().Scatter(
                    self.Ops(operands), scatter_indices.op, self.Ops(updates),
                    update_computation.computation, numbers, indices_are_sorted,
                    unique_indices));
              },
              nb::arg("operands"), nb::arg("scatter_indices"),
              nb::arg("updates"), nb::arg("update_computation"),
              nb::arg("update_window_dims"), nb::arg("inserted_window_dims"),
              nb::arg("scatter_dims_to_operand_dims"),
              nb::arg("index_vector_dim"),
              nb::arg("input_batching_dims") = std::vector<int64_t>{},
              nb::arg("scatter_indices_batching_dims") = std::vector<int64_t>{},
              nb::arg("indices_are_sorted") = false,
              nb::arg("unique_indices") = false, KA())
          .def(
              "after_all",
              [](PyBuilder& self, const std::vector<PyOp*>& tokens) {
                return self.Wrap(self.b().AfterAll(self.Ops(tokens)));
              },
              nb::arg("tokens"), KA())
          .def(
              "partition_id",
              [](PyBuilder& self) { return self.Wrap(self.b().PartitionId()); },
              KA())
          .def(
              "replica_id",
              [](PyBuilder& self) { return self.Wrap(self.b().ReplicaId()); },
              KA())
          .def(
              "fusion",
              [](PyBuilder& self, const std::string& kind,
                 const std::vector<PyOp*>& operands,
                 PyComputation& fused_computation) {
                FusionKind k = EnumNamed(&FusionKindFromName, kind, "fusion",
                                         "kind", "kLoop, kInput");
                return self.Wrap(self.b().Fusion(
                    k, self.Ops(operands), fused_computation.computation));
              },
              nb::arg("kind"), nb::arg("operands"),
              nb::arg("fused_computation"), KA(),
              "fused_computation: one parameter per operand, keeping the "
              "fusion "
              "contract (the first op that breaks it raises).")
          .def(
              "manual_computation",
              [](PyBuilder& self, const std::vector<PyOp*>& operands,
                 PyComputation& body,
                 const std::vector<std::pair<std::string, int64_t>>& mesh_axes,
                 const std::vector<std::vector<std::vector<std::string>>>&
                     in_shardings,
                 const std::vector<std::vector<std::vector<std::string>>>&
                     out_shardings,
                 std::optional<std::vector<std::string>> manual_axes,
                 std::string mesh_name, std::vector<int64_t> device_ids) {
                ManualComputationConfig config;
                config.mesh.name = std::move(mesh_name);
                for (const auto& [axis, size] : mesh_axes) {
                  config.mesh.axis_names.push_back(axis);
                  config.mesh.axis_sizes.push_back(size);
                }
                config.mesh.device_ids = std::move(device_ids);
                for (const auto& dims : in_shardings) {
                  config.in_shardings.push_back(TensorSharding{dims});
                }
                for (const auto& dims : out_shardings) {
                  config.out_shardings.push_back(TensorSharding{dims});
                }
                config.manual_axes = manual_axes ? std::move(*manual_axes)
                                                 : config.mesh.axis_names;
                return self.Wrap(self.b().ManualComputation(
                    self.Ops(operands), body.computation, std::move(config)));
              },
              nb::arg("operands"), nb::arg("body"), nb::arg("mesh_axes"),
              nb::arg("in_shardings"), nb::arg("out_shardings"),
              nb::arg("manual_axes").none() = nb::none(),
              nb::arg("mesh_name") = "mesh",
              nb::arg("device_ids") = std::vector<int64_t>{}, KA(),
              "A shard_map: `body` (one parameter per operand, its block's "
              "shape) runs on every device of the mesh (mesh_axes: (name, "
              "size) "
              "pairs). A sharding names the mesh axes splitting each "
              "dimension: "
              "[['x'], []] splits dimension 0 along x. manual_axes: default "
              "all.")
          .def(
              "all_reduce",
              [](PyBuilder& self, const std::vector<PyOp*>& operands,
                 PyComputation& reduction,
                 std::vector<std::vector<int64_t>> replica_groups,
                 int64_t channel_id, bool use_global_device_ids) {
                return self.Wrap(self.b().AllReduce(
                    self.Ops(operands), reduction.computation,
                    DevicesOf(std::move(replica_groups), channel_id,
                              use_global_device_ids)));
              },
              nb::arg("operands"), nb::arg("reduction"),
              nb::arg("replica_groups") = std::vector<std::vector<int64_t>>{},
              nb::arg("channel_id") = 0,
              nb::arg("use_global_device_ids") = false, KA())
          .def(
              "all_gather",
              [](PyBuilder& self, const std::vector<PyOp*>& operands,
                 int64_t dimension, int64_t shard_count,
                 std::vector<std::vector<int64_t>> replica_groups,
                 int64_t channel_id, bool use_global_device_ids) {
                return self.Wrap(self.b().AllGather(
                    self.Ops(operands), dimension, shard_count,
                    DevicesOf(std::move(replica_groups), channel_id,
                              use_global_device_ids)));
              },
              nb::arg("operands"), nb::arg("dimension"), nb::arg("shard_count"),
              nb::arg("replica_groups") = std::vector<std::vector<int64_t>>{},
              nb::arg("channel_id") = 0,
              nb::arg("use_global_device_ids") = false, KA())
          .def(
              "reduce_scatter",
              [](PyBuilder& self, const std::vector<PyOp*>& operands,
                 PyComputation& reduction, int64_t dimension,
                 int64_t shard_count,
                 std::vector<std::vector<int64_t>> replica_groups,
                 int64_t channel_id, bool use_global_device_ids) {
                return self.Wrap(self.b().ReduceScatter(
                    self.Ops(operands), reduction.computation, dimension,
                    shard_count,
                    DevicesOf(std::move(replica_groups), channel_id,
                              use_global_device_ids)));
              },
              nb::arg("operands"), nb::arg("reduction"), nb::arg("dimension"),
              nb::arg("shard_count"),
              nb::arg("replica_groups") = std::vector<std::vector<int64_t>>{},
              nb::arg("channel_id") = 0,
              nb::arg("use_global_device_ids") = false, KA())
          .def(
              "all_to_all",
              [](PyBuilder& self, const std::vector<PyOp*>& operands,
                 int64_t split_dimension, int64_t concat_dimension,
                 int64_t split_count,
                 std::vector<std::vector<int64_t>> replica_groups,
                 int64_t channel_id, bool use_global_device_ids) {
                return self.Wrap(self.b().AllToAll(
                    self.Ops(operands), split_dimension, concat_dimension,
                    split_count,
                    DevicesOf(std::move(replica_groups), channel_id,
                              use_global_device_ids)));
              },
              nb::arg("operands"), nb::arg("split_dimension"),
              nb::arg("concat_dimension"), nb::arg("split_count"),
              nb::arg("replica_groups") = std::vector<std::vector<int64_t>>{},
              nb::arg("channel_id") = 0,
              nb::arg("use_global_device_ids") = false, KA())
          .def(
              "collective_permute",
              [](PyBuilder& self, PyOp& operand,
                 std::vector<std::pair<int64_t, int64_t>> source_target_pairs,
                 int64_t channel_id) {
                return self.Wrap(self.b().CollectivePermute(
                    operand.op, std::move(source_target_pairs), channel_id));
              },
              nb::arg("operand"), nb::arg("source_target_pairs"),
              nb::arg("channel_id") = 0, KA())
          .def(
              "custom_call",
              [](PyBuilder& self, std::string target,
                 const std::vector<PyOp*>& operands, const Shape& shape,
                 nb::handle opaque, bool has_side_effect,
                 std::vector<std::pair<int64_t, int64_t>>
                     output_operand_aliases,
                 int api_version, nb::handle attributes,
                 std::optional<std::vector<Shape>> operand_shapes_with_layout) {
                if (api_version < 1 || api_version > 4) {
                  ThrowValueError("custom_call('" + target +
                                  "'): api_version must be 1, 2, 3 (legacy) or "
                                  "4 (typed FFI), got " +
                                  std::to_string(api_version));
                }
                FfiAttributes attrs;
                if (!attributes.is_none() && nb::len(attributes) > 0) {
                  if (api_version != 4) {
                    ThrowValueError(
                        "custom_call('" + target +
                        "'): attributes are for typed FFI calls "
                        "(api_version=4); legacy calls take opaque");
                  }
                  // Checked and narrowed against the handler's description when
                  // it is registered already, as eager calls are.
                  std::vector<const XFFI_Signature*> signatures;
                  StatusOr<const HandlerRecord*> record =
                      FindHandler(target, "cpu");
                  if (record.ok()) {
                    signatures = StageSignatures(target, (*record)->bundle);
                  }
                  attrs = ConvertAttributes(attributes, signatures, target,
                                            "custom_call");
                }
                std::string opaque_bytes;
                if (PyBytes_Check(opaque.ptr())) {
                  opaque_bytes.assign(
                      PyBytes_AS_STRING(opaque.ptr()),
                      static_cast<size_t>(PyBytes_GET_SIZE(opaque.ptr())));
                } else if (!opaque.is_none()) {
                  opaque_bytes = nb::cast<std::string>(opaque);
                }
                std::vector<OutputOperandAlias> aliases;
                for (auto [output, operand] : output_operand_aliases) {
                  OutputOperandAlias alias;
                  if (shape.IsTuple()) alias.output_index = {output};
                  alias.operand = operand;
                  aliases.push_back(alias);
                }
                const auto version =
                    static_cast<CustomCallApiVersion>(api_version);
                if (operand_shapes_with_layout) {
                  Op op = self.b().CustomCallWithLayout(
                      std::move(target), self.Ops(operands), shape,
                      *operand_shapes_with_layout, std::move(opaque_bytes),
                      has_side_effect, version, std::move(attrs));
                  if (op.valid() && !aliases.empty()) {
                    op.instruction()->custom_call.output_operand_aliases =
                        aliases;
                  }
                  return self.Wrap(op);
                }
                return self.Wrap(self.b().CustomCall(
                    std::move(target), self.Ops(operands), shape,
                    std::move(opaque_bytes), has_side_effect,
                    std::move(aliases), nullptr, CustomCallSchedule::kNone,
                    version, std::move(attrs)));
              },
              nb::arg("target"), nb::arg("operands"), nb::arg("shape"),
              nb::arg("opaque").none() = nb::none(),
              nb::arg("has_side_effect") = false,
              nb::arg("output_operand_aliases") =
                  std::vector<std::pair<int64_t, int64_t>>{},
              nb::arg("api_version") = 1,
              nb::arg("attributes").none() = nb::none(),
              nb::arg("operand_shapes_with_layout").none() = nb::none(), KA(),
              "XLA's CustomCall. api_version 1-3 calls a legacy target with "
              "`opaque` as its backend_config; 4 a typed FFI handler with "
              "`attributes` (a dict, checked against the handler's description "
              "when it is registered). output_operand_aliases: (result index, "
              "operand) pairs.");
}

}  // namespace

void BindProgram(nb::module_& m) {
  BindShape(m);
  BindBuilder(m);

  nb::class_<PyModule>(m, "Module",
                       "A program: what a Builder built or a "
                       "text parsed.")
      .def_prop_ro("name", [](const PyModule& p) { return p.module.name(); })
      .def("hlo_text", [](const PyModule& p) { return PrintHlo(p.module); })
      .def_prop_ro(
          "is_shape_polymorphic",
          [](const PyModule& p) { return IsShapePolymorphic(p.module); },
          "Some value has a dynamic (?) dimension: the program compiles "
          "once refined to argument shapes.")
      .def_prop_ro(
          "parameter_shapes",
          [](const PyModule& p) {
            std::vector<Shape> shapes;
            for (const Instruction* i : p.module.entry()->parameters())
              shapes.push_back(i->shape());
            return shapes;
          },
          "The entry's parameter shapes (a dynamic dimension is -1).")
      .def("__str__", [](const PyModule& p) { return PrintHlo(p.module); })
      .def(
          "compile",
          [](const PyModule& p, int intra_op_threads, bool eliminate_dead_code,
             int64_t memory_limit, double custom_call_timeout,
             const std::string& platform) {
            return CompileModule(p.module.Clone(), intra_op_threads,
                                 eliminate_dead_code, memory_limit,
                                 custom_call_timeout, platform);
          },
          nb::arg("intra_op_threads") = 0,
          nb::arg("eliminate_dead_code") = true, nb::arg("memory_limit") = 0,
          nb::arg("custom_call_timeout") = 0.0, nb::arg("platform") = "host");

  m.def(
      "_parse_program",
      [](const std::string& text, const std::string& source_name,
         std::optional<std::vector<Shape>> argument_shapes) {
        ParseOptions options;
        options.argument_shapes = std::move(argument_shapes);
        StatusOr<Module> module = ParseProgram(text, source_name, options);
        if (!module.ok()) ThrowStatus(module.status());
        return PyModule{std::move(*module)};
      },
      nb::arg("text"), nb::arg("source_name") = "<input>",
      nb::arg("argument_shapes").none() = nb::none());
  m.def(
      "_detect_program_format",
      [](const std::string& text) {
        return DetectProgramFormat(text) == ProgramFormat::kHlo ? "hlo"
                                                                : "stablehlo";
      },
      nb::arg("text"));

  nb::class_<PyExecutable>(m, "_Executable")
      .def("__call__", &PyExecutable::Call)
      .def_prop_rw("device_results", &PyExecutable::device_results,
                   &PyExecutable::set_device_results,
                   "Results stay on the device as xffi.DeviceArray (device "
                   "platforms only).")
      .def("_abandoned_runs", &PyExecutable::AbandonedRuns)
      .def_prop_ro(
          "parameter_shapes",
          [](PyExecutable& e) { return e.executable().parameter_shapes(); })
      .def_prop_ro(
          "result_shape",
          [](PyExecutable& e) { return e.executable().result_shape(); })
      .def_prop_ro("intra_op_threads",
                   [](PyExecutable& e) {
                     ThreadPool* pool = e.executable().context().thread_pool();
                     return pool == nullptr ? 0 : pool->num_threads();
                   })
      .def("hlo_text",
           [](PyExecutable& e) { return PrintHlo(e.executable().module()); });
}

}  // namespace xffi::python
