// Eager calls: the object xffi.ffi_call returns. Its __call__ releases the
// GIL while the handler runs. Calls of one callable from several threads
// run concurrently: they share the call site's state (as concurrent runs of
// one XLA executable do) and each takes a call frame of its own from the
// site's small pool; legacy targets' calls take turns on one frame. It is
// the hot path, so it reads NumPy arrays straight from their C structs,
// keeps the call frames it built for the last shapes and attributes, and
// only repoints buffer addresses when they repeat (as an executor does
// between runs).
// Anything that is not a C-contiguous NumPy array (a list, a JAX array, a
// vmap tracer) goes to the Python fallback, which converts it or batches
// the call and comes back here.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "attributes.h"
#include "bindings.h"
#include "common.h"
#include "dlpack.h"
#include "xffi/runtime/call.h"
#include "xffi/runtime/call_frame.h"
#include "xffi/runtime/context.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"

namespace xffi::python {
namespace {

static_assert(sizeof(npy_intp) == sizeof(int64_t), "LP64 only");

// The context eager calls on this thread use (xffi.execution_context);
// null: the process-wide default one. Its Python object too, which a call
// that times out keeps alive (its handler may still read the user data).
thread_local ExecutionContext* current_context = nullptr;
thread_local PyObject* current_context_object = nullptr;
// Whether any thread ever made a context current: until then a call skips
// the thread-local lookup (a call into the TLS resolver in a shared
// library). Set by the thread that sets its own context, so that thread
// always sees it.
std::atomic<bool> any_current_context{false};

// How long an eager call waits for a handler that returned a future, when
// its ffi_call gave no custom_call_timeout (xffi.set_custom_call_timeout);
// nanoseconds, 0: as long as it takes.
std::atomic<int64_t> default_timeout_ns{0};

// A call that timed out: its handler may still read the arguments, the
// frame and the state and write the results until it completes its future,
// so all of them are kept until then. Touched with the GIL held.
struct AbandonedCall {
  std::shared_ptr<AsyncValue> future;
  std::shared_ptr<const void> frame;
  std::shared_ptr<const void> site;  // its state
  std::vector<nb::object> objects;   // arguments, results, the context
};

// Never destroyed: at exit a call may still be pending, and the Python
// objects in it must not be released after the interpreter is gone.
std::vector<AbandonedCall>& AbandonedCalls() {
  static auto* calls = new std::vector<AbandonedCall>;
  return *calls;
}

// Frees what completed calls kept; their states' deleters run here, once.
// The list is whole again before anything is freed: releasing an argument
// may run Python code (a finalizer), which may switch threads, and the
// other thread may look at the list.
void ReleaseCompletedAbandonedCalls() {
  std::vector<AbandonedCall>& calls = AbandonedCalls();
  std::vector<AbandonedCall> pending, completed;
  for (AbandonedCall& call : calls) {
    (call.future->IsReady() ? completed : pending).push_back(std::move(call));
  }
  calls.swap(pending);
}

std::string SecondsText(std::chrono::nanoseconds duration) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g",
                std::chrono::duration<double>(duration).count());
  return text;
}

int64_t TimeoutNanoseconds(double seconds, const char* where) {
  if (!(seconds >= 0) || seconds > 1e9) {
    ThrowValueError(std::string(where) +
                    ": custom_call_timeout must be a number of seconds "
                    "between 0 (no timeout) and 1e9, got " +
                    std::to_string(seconds));
  }
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::duration<double>(seconds))
      .count();
}

ExecutionContext& DefaultContext() {
  static ExecutionContext* context = new ExecutionContext(Platform::kHost);
  return *context;
}

ExecutionContext* CurrentContext() {
  if (any_current_context.load(std::memory_order_relaxed) &&
      current_context != nullptr) {
    return current_context;
  }
  return &DefaultContext();
}

// An argument: a NumPy array, or a token (array null, dtype TOKEN).
struct ArgView {
  PyArrayObject* array;
  XLA_FFI_DataType dtype;
};

struct ResultSpec {
  std::vector<int64_t> dims;
  XLA_FFI_DataType dtype = XLA_FFI_DataType_INVALID;
  nb::object descr;  // numpy.dtype
};

// A call site of a typed handler, as XLA has one per custom-call op: the
// shapes and attributes its frames are built for, and its state, which
// concurrent calls share. A call takes `hot` when it is free, else a frame
// from `idle` (or builds one), with the Caller's mutex held. `hot` is given
// back without the lock (the common, uncontended case pays for no second
// lock and no reference count); `idle` frames with it.
struct CallSite {
  CallFrameBuilder builder;
  std::vector<ResultSpec> results;  // read by calls after the lock is gone
  std::optional<CallFrame> hot;
  std::atomic<bool> hot_busy{false};
  std::vector<CallFrame> idle;
  bool abandoned = false;  // a call on `hot` timed out; guarded by the mutex
  CallSiteState state;
  // Instantiate runs once per site; concurrent first calls wait for it.
  std::mutex instantiate_mutex;
  std::atomic<bool> instantiated{false};
  // Its instantiate timed out and may still set the state: calls that were
  // waiting for it fail rather than run it again on the same state.
  bool instantiate_abandoned = false;  // guarded by instantiate_mutex
};

// The objects a call returns, owned until it hands them over (and released
// if it fails first). Raw pointers: a few slots on the stack, without the
// destructor call per slot an array of nb::object costs.
class ResultSlots {
 public:
  explicit ResultSlots(size_t count) : count_(count) {
    if (count > kOnStack) {
      heap_ = std::make_unique<PyObject*[]>(count);
      items_ = heap_.get();
    }
    std::fill_n(items_, count, nullptr);
  }
  ResultSlots(const ResultSlots&) = delete;
  ResultSlots& operator=(const ResultSlots&) = delete;
  ~ResultSlots() {
    for (size_t r = 0; r < count_; ++r) Py_XDECREF(items_[r]);
  }

  // Takes a new reference.
  void Set(size_t r, PyObject* object) { items_[r] = object; }
  PyObject* operator[](size_t r) const { return items_[r]; }
  PyObject* const* data() const { return items_; }
  // Hands slot r's reference over.
  PyObject* Release(size_t r) { return std::exchange(items_[r], nullptr); }

 private:
  static constexpr size_t kOnStack = 4;
  size_t count_;
  PyObject* on_stack_[kOnStack];
  std::unique_ptr<PyObject*[]> heap_;
  PyObject** items_ = on_stack_;
};

// Idle frames a site keeps: as many as calls usually run at once.
constexpr size_t kMaxIdleFrames = 8;

// Gives a site's hot frame back when the call leaves, however it leaves.
struct HotFrameLease {
  CallSite* site = nullptr;
  HotFrameLease() = default;
  HotFrameLease(const HotFrameLease&) = delete;
  HotFrameLease& operator=(const HotFrameLease&) = delete;
  ~HotFrameLease() {
    if (site != nullptr) site->hot_busy.store(false, std::memory_order_release);
  }
};

std::string ShapeText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    s += (i ? "," : "") + std::to_string(dims[i]);
  }
  return s + "]";
}

std::string ArrayText(XLA_FFI_DataType dtype, int ndim, const npy_intp* dims) {
  return DtypeName(dtype) + ShapeText(std::vector<int64_t>(dims, dims + ndim));
}

// Attribute values whose identity proves equality: immutable ones.
bool ImmutableValue(PyObject* v) {
  return PyLong_CheckExact(v) || PyFloat_CheckExact(v) || PyBool_Check(v) ||
         PyUnicode_CheckExact(v) || PyBytes_CheckExact(v) ||
         PyArray_IsScalar(v, Generic);
}

// The first bytes of a Caller: Python finds the vectorcall entry point of
// an instance at a fixed offset in the object (tp_vectorcall_offset).
struct VectorcallEntry {
  vectorcallfunc vectorcall = nullptr;
};

PyObject* CallerVectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                           PyObject* kwnames);

// Eager ffi_call runs on the host, as jax.ffi.ffi_call does in a CPU JAX
// (which then fails "No FFI handler registered for T on a platform Host"):
// for a target registered for CUDA only, the message says where it runs.
Status WithCudaOnlyHint(Status status, const std::string& target,
                        bool registered_for_cuda) {
  if (status.code() != XLA_FFI_Error_Code_NOT_FOUND || !registered_for_cuda)
    return status;
  return Status(status.code(),
                status.message() + "; '" + target +
                    "' is registered for CUDA only, and ffi_call runs "
                    "eagerly on the host: call it from a program compiled "
                    "with platform='cuda' (or 'sim', xffi's simulated GPU)");
}

class Caller : public VectorcallEntry {
 public:
  Caller(std::string target, std::string platform, nb::object results,
         bool single_result, bool tuple_result, int api_version,
         std::string backend_config, std::vector<std::pair<int, int>> aliases,
         bool donate, nb::object fallback, bool strict, int num_input_layouts,
         int num_output_layouts, nb::object token_type, double timeout)
      : target_(std::move(target)),
        platform_(std::move(platform)),
        single_result_(single_result),
        tuple_result_(tuple_result),
        api_version_(api_version),
        aliases_(std::move(aliases)),
        donate_(donate),
        strict_(strict),
        num_input_layouts_(num_input_layouts),
        num_output_layouts_(num_output_layouts),
        fallback_(std::move(fallback)),
        token_type_(std::move(token_type)) {
    vectorcall = CallerVectorcall;
    if (timeout >= 0) timeout_ns_ = TimeoutNanoseconds(timeout, "ffi_call");
    for (auto [in, o] : aliases_) {
      if (o < 0) continue;
      if (donated_.size() <= static_cast<size_t>(o)) donated_.resize(o + 1);
      donated_[o] = true;
    }
    if (api_version_ >= 4) {
      StatusOr<const HandlerRecord*> record = FindHandler(target_, platform_);
      if (!record.ok())
        ThrowStatus(WithCudaOnlyHint(record.status(), target_,
                                     FindHandler(target_, "cuda").ok()));
      record_ = *record;
    } else {
      StatusOr<const LegacyTargetRecord*> record =
          FindLegacyTarget(target_, platform_);
      if (!record.ok())
        ThrowStatus(WithCudaOnlyHint(record.status(), target_,
                                     FindLegacyTarget(target_, "cuda").ok()));
      legacy_ = *record;
      backend_config_ = std::move(backend_config);
    }
    if (!results.is_none()) {
      given_results_ = true;
      for (nb::handle spec : results) {
        ResultSpec r;
        if (!PyTuple_Check(spec.ptr()) || PyTuple_GET_SIZE(spec.ptr()) != 3) {
          ThrowTypeError(
              "_Caller: results are (shape, xla dtype, numpy dtype)");
        }
        nb::handle shape = PyTuple_GET_ITEM(spec.ptr(), 0);
        for (nb::handle d : shape) r.dims.push_back(nb::cast<int64_t>(d));
        r.dtype = static_cast<XLA_FFI_DataType>(
            nb::cast<int>(nb::handle(PyTuple_GET_ITEM(spec.ptr(), 1))));
        r.descr = nb::borrow(PyTuple_GET_ITEM(spec.ptr(), 2));
        results_.push_back(std::move(r));
      }
    } else if (record_ == nullptr || record_->signature == nullptr) {
      ThrowValueError("ffi_call('" + target_ +
                      "'): result_shape_dtypes is required: the target does "
                      "not describe its results (only handlers built with "
                      "xffi's header do)");
    }
  }

  const std::string& target() const { return target_; }
  const std::vector<ResultSpec>& results() const { return results_; }
  bool single_result() const { return single_result_; }
  bool tuple_result() const { return tuple_result_; }
  // Seconds; None when the process-wide setting applies.
  nb::object timeout() const {
    if (timeout_ns_ < 0) return nb::none();
    return nb::float_(
        std::chrono::duration<double>(std::chrono::nanoseconds(timeout_ns_))
            .count());
  }

  // `kwargs` is null when the call has no keyword arguments (tp_call).
  nb::object Call(nb::handle self, PyObject* const* argv, size_t n,
                  nb::handle kwargs) {
    if (!kwargs) kwargs = EmptyDict();
    ArgView views[kMaxFastArgs];
    std::vector<ArgView> many;
    ArgView* view = views;
    if (n > kMaxFastArgs) {
      many.resize(n);
      view = many.data();
    }
    // Whether the shapes and dtypes are the cached ones, compared as the
    // arguments are read (under the GIL: see TakeHotFrame).
    bool shapes_repeat = cache_valid_ && n == num_args_;
    const int64_t* key = key_.data();
    for (size_t i = 0; i < n; ++i) {
      PyObject* a = argv[i];
      if (reinterpret_cast<PyObject*>(Py_TYPE(a)) == token_type_.ptr()) {
        view[i] = {nullptr, XLA_FFI_DataType_TOKEN};
        if (shapes_repeat) shapes_repeat = KeyMatches(key, view[i]);
        continue;
      }
      if (Py_TYPE(a) != &PyArray_Type && !PyArray_Check(a))
        return Fallback(self, argv, n, kwargs);
      auto* array = reinterpret_cast<PyArrayObject*>(a);
      constexpr int kNeed = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED;
      if ((PyArray_FLAGS(array) & kNeed) != kNeed) {
        return Fallback(self, argv, n, kwargs);
      }
      XLA_FFI_DataType dtype = DtypeOfTypeNum(PyArray_TYPE(array));
      if (dtype == XLA_FFI_DataType_INVALID) {
        ThrowTypeError("ffi_call('" + target_ + "'): argument " +
                       std::to_string(i) + " has dtype " +
                       nb::cast<std::string>(nb::str(
                           reinterpret_cast<PyObject*>(PyArray_DESCR(array)))) +
                       ", which has no XLA element type");
      }
      view[i] = {array, dtype};
      if (shapes_repeat) shapes_repeat = KeyMatches(key, view[i]);
    }
    // The cache and the sites are shared by every thread calling this
    // callable. A typed call whose shapes and attributes repeat and whose
    // site's hot frame is free takes that frame under the GIL alone (see
    // TakeHotFrame); any other call takes the lock, a typed one only to
    // take its site and a frame, a legacy call (one frame) for the whole
    // call. A thread that finds the lock taken waits without the GIL, which
    // the holder may need.
    std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
    CallSite* site = nullptr;
    CallFrame* frame = nullptr;
    HotFrameLease hot;
    std::shared_ptr<CallSite> pooled_site;  // alive while its frame is used
    std::optional<CallFrame> pooled;
    if (TakeHotFrame(shapes_repeat, kwargs)) {
      site = site_.get();
      hot.site = site;
      frame = &*site->hot;
    } else {
      if (!lock.try_lock()) {
        nb::gil_scoped_release release;
        lock.lock();
      }
      if (!AbandonedCalls().empty()) ReleaseCompletedAbandonedCalls();
      if (!CacheHit(view, n, kwargs)) Rebuild(view, n, kwargs);
      if (record_ != nullptr) {
        site = site_.get();
        if (!site->hot_busy.load(std::memory_order_acquire)) {
          site->hot_busy.store(true, std::memory_order_relaxed);
          hot.site = site;
          frame = &*site->hot;
        } else {
          pooled_site = site_;
          if (site->idle.empty()) {
            pooled.emplace(site->builder.Build());
          } else {
            pooled.emplace(std::move(site->idle.back()));
            site->idle.pop_back();
          }
          frame = &*pooled;
        }
        lock.unlock();
      }
    }
    const std::vector<ResultSpec>& results =
        site != nullptr ? site->results : results_;

    // Results, then the addresses that changed since the last call.
    const size_t num_results = results.size();
    ResultSlots out(num_results);
    if (donate_) {
      // The aliased result is the argument itself: the handler writes into
      // the caller's memory, as XLA does with a donated buffer.
      for (auto [in, o] : aliases_) {
        PyArrayObject* a = view[in].array;
        if (a == nullptr) {  // a token passes through
          out.Set(o, nb::borrow(argv[in]).release().ptr());
          continue;
        }
        if (!PyArray_ISWRITEABLE(a)) {
          ThrowValueError("ffi_call('" + target_ + "'): argument " +
                          std::to_string(in) +
                          " is read-only, so it cannot be donated to "
                          "result " +
                          std::to_string(o));
        }
        out.Set(o, nb::borrow(reinterpret_cast<PyObject*>(a)).release().ptr());
      }
    }
    for (size_t r = 0; r < num_results; ++r) {
      if (donate_ && r < donated_.size() && donated_[r]) continue;
      const ResultSpec& spec = results[r];
      if (spec.dtype == XLA_FFI_DataType_TOKEN) {
        out.Set(r, token_type_().release().ptr());
        continue;
      }
      // Uninitialised, as numpy.empty (no dtype here holds objects).
      Py_INCREF(spec.descr.ptr());
      PyObject* array = PyArray_NewFromDescr(
          &PyArray_Type, reinterpret_cast<PyArray_Descr*>(spec.descr.ptr()),
          static_cast<int>(spec.dims.size()),
          reinterpret_cast<npy_intp*>(const_cast<int64_t*>(spec.dims.data())),
          nullptr, nullptr, 0, nullptr);
      if (array == nullptr) throw nb::python_error();
      out.Set(r, array);
    }
    for (auto [in, o] : aliases_) {
      if (donate_) break;
      if (view[in].array == nullptr) continue;  // token to token
      auto* dst = reinterpret_cast<PyArrayObject*>(out[o]);
      std::memcpy(PyArray_DATA(dst), PyArray_DATA(view[in].array),
                  static_cast<size_t>(PyArray_NBYTES(dst)));
    }

    if (record_ != nullptr) {
      // The frame was built for these shapes: its argument and result
      // entries are the XLA_FFI_Buffers whose addresses change.
      XLA_FFI_CallFrame* c_frame = frame->get();
      for (size_t i = 0; i < n; ++i) {
        if (view[i].array != nullptr) {
          static_cast<XLA_FFI_Buffer*>(c_frame->args.args[i])->data =
              PyArray_DATA(view[i].array);
        }
      }
      for (size_t r = 0; r < num_results; ++r) {
        if (results[r].dtype == XLA_FFI_DataType_TOKEN) continue;
        static_cast<XLA_FFI_Buffer*>(c_frame->rets.rets[r])->data =
            PyArray_DATA(reinterpret_cast<PyArrayObject*>(out[r]));
      }
      ExecutionContext* context = CurrentContext();
      std::shared_ptr<AsyncValue> abandoned;
      Status status = [&] {
        nb::gil_scoped_release release;
        return RunTyped(context, *site, *frame, abandoned);
      }();
      if (abandoned != nullptr) {
        hot.site = nullptr;  // the late handler may still use it
        Abandon(std::move(abandoned), site, std::move(pooled_site), *frame,
                argv, n, out.data(), num_results);
      } else if (pooled.has_value()) {
        GiveBack(pooled_site, std::move(*pooled));
      }
      ThrowIfError(status);
    } else {
      // Tokens stay null, as XLA passes them to a legacy target.
      for (size_t i = 0; i < n; ++i) {
        if (view[i].array == nullptr) continue;
        ThrowIfError(
            legacy_frame_->SetOperandLeaf(i, PyArray_DATA(view[i].array)));
      }
      for (size_t r = 0; r < num_results; ++r) {
        if (results[r].dtype == XLA_FFI_DataType_TOKEN) continue;
        ThrowIfError(legacy_frame_->SetResultLeaf(
            r, PyArray_DATA(reinterpret_cast<PyArrayObject*>(out[r]))));
      }
      Status status;
      {
        nb::gil_scoped_release release;
        status = CallLegacyTarget(*legacy_,
                                  static_cast<LegacyApiVersion>(api_version_),
                                  *legacy_frame_);
      }
      ThrowIfError(InCall(status));
    }

    if (single_result_) return nb::steal(out.Release(0));
    PyObject* seq =
        tuple_result_ ? PyTuple_New(num_results) : PyList_New(num_results);
    for (size_t r = 0; r < num_results; ++r) {
      PyObject* item = out.Release(r);
      if (tuple_result_) {
        PyTuple_SET_ITEM(seq, r, item);
      } else {
        PyList_SET_ITEM(seq, r, item);
      }
    }
    return nb::steal(seq);
  }

  // The result specs the given arrays lead to, without calling anything
  // (xffi.vmap and tests use it): [(shape, numpy dtype)].
  nb::list ResultsFor(nb::args args) {
    std::vector<ArgView> view(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      nb::handle a = args[i];
      if (!PyArray_Check(a.ptr())) {
        ThrowTypeError("results_for: arguments must be NumPy arrays");
      }
      auto* array = reinterpret_cast<PyArrayObject*>(a.ptr());
      view[i] = {array, DtypeOfTypeNum(PyArray_TYPE(array))};
    }
    std::vector<ResultSpec> specs =
        given_results_ ? results_ : DeriveResults(view.data(), view.size());
    nb::list out;
    for (const ResultSpec& spec : specs) {
      nb::list dims;
      for (int64_t d : spec.dims) dims.append(d);
      out.append(nb::make_tuple(nb::tuple(dims), spec.descr));
    }
    return out;
  }

 private:
  static constexpr size_t kMaxFastArgs = 16;

  nb::object Fallback(nb::handle self, PyObject* const* argv, size_t n,
                      nb::handle kwargs) {
    nb::object args = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(n)));
    for (size_t i = 0; i < n; ++i) {
      Py_INCREF(argv[i]);
      PyTuple_SET_ITEM(args.ptr(), static_cast<Py_ssize_t>(i), argv[i]);
    }
    return fallback_(self, args, kwargs);
  }

  static nb::handle EmptyDict() {
    static PyObject* empty = PyDict_New();  // only ever read
    return empty;
  }

  // The common typed call, without the lock: shapes and attributes that
  // hit the cache, and a free hot frame, which it marks busy. The GIL
  // guards this: what it reads (the cache, site_, the hot frame's flag) is
  // changed only with the GIL held, nothing here can release the GIL, and
  // Rebuild invalidates the cache before it changes anything (a thread that
  // runs while Rebuild's Python conversions release the GIL misses and
  // takes the lock). A free-threaded Python has no GIL: every call takes
  // the lock there.
  bool TakeHotFrame(bool shapes_repeat, nb::handle kwargs) {
#ifdef Py_GIL_DISABLED
    (void)shapes_repeat;
    (void)kwargs;
    return false;
#else
    if (record_ == nullptr || !shapes_repeat || !AbandonedCalls().empty() ||
        !AttrsHit(kwargs)) {
      return false;
    }
    CallSite* site = site_.get();
    if (site->hot_busy.load(std::memory_order_acquire)) return false;
    site->hot_busy.store(true, std::memory_order_relaxed);
    return true;
#endif
  }

  // Compares one argument with its entry in key_ (dtype, rank, dims) and
  // steps past the entry.
  [[gnu::always_inline]] static bool KeyMatches(const int64_t*& k,
                                                const ArgView& arg) {
    if (*k++ != arg.dtype) return false;
    if (arg.array == nullptr) return *k++ == 0;  // a token: rank 0
    const int nd = PyArray_NDIM(arg.array);
    if (*k++ != nd) return false;
    const npy_intp* dims = PyArray_DIMS(arg.array);
    for (int d = 0; d < nd; ++d) {
      if (*k++ != dims[d]) return false;
    }
    return true;
  }

  bool CacheHit(const ArgView* view, size_t n, nb::handle kwargs) {
    if (!cache_valid_ || n != num_args_) return false;
    const int64_t* k = key_.data();
    for (size_t i = 0; i < n; ++i) {
      if (!KeyMatches(k, view[i])) return false;
    }
    return AttrsHit(kwargs);
  }

  bool AttrsHit(nb::handle kwargs) const {
    // Attributes: equal when the same immutable objects come again.
    PyObject* given = kwargs.ptr();
    const Py_ssize_t num_attrs = PyDict_GET_SIZE(given);
    if (num_attrs != static_cast<Py_ssize_t>(cached_attrs_.size())) {
      return false;
    }
    if (num_attrs == 0) return true;
    if (!attrs_cacheable_) return false;
    Py_ssize_t pos = 0, index = 0;
    PyObject *name, *value;
    while (PyDict_Next(given, &pos, &name, &value)) {
      const auto& [cached_name, cached_value] = cached_attrs_[index++];
      if (value != cached_value.ptr()) return false;
      if (name != cached_name.ptr() &&
          PyUnicode_Compare(name, cached_name.ptr()) != 0) {
        return false;
      }
    }
    return true;
  }

  // "like argument 0" is not something XFFI_Signature can say; what it
  // does say (each result's dtype and rank) decides what can be derived:
  //  - a rank-0 result of a fixed dtype is a scalar of that dtype;
  //  - a single other result whose rank is any or argument 0's, and whose
  //    dtype is any or argument 0's, takes argument 0's shape and dtype.
  // Anything else needs result_shape_dtypes.
  std::vector<ResultSpec> DeriveResults(const ArgView* view, size_t n) const {
    const XFFI_Signature& sig = *record_->signature;
    std::vector<const XFFI_Param*> rets;
    for (int64_t i = 0; i < sig.num_params; ++i) {
      const XFFI_Param& p = sig.params[i];
      if (p.kind == XFFI_Param_OPTIONAL_RET ||
          p.kind == XFFI_Param_REMAINING_RETS) {
        ThrowValueError("ffi_call('" + target_ +
                        "'): result_shape_dtypes is required: the handler "
                        "takes optional or remaining results");
      }
      if (p.kind == XFFI_Param_RET) rets.push_back(&p);
    }
    size_t non_scalar = 0;
    for (const XFFI_Param* p : rets) {
      if (!(p->rank == 0 && p->dtype != XLA_FFI_DataType_INVALID)) ++non_scalar;
    }
    std::vector<ResultSpec> out;
    for (size_t r = 0; r < rets.size(); ++r) {
      const XFFI_Param& p = *rets[r];
      ResultSpec spec;
      if (p.rank == 0 && p.dtype != XLA_FFI_DataType_INVALID) {
        spec.dtype = p.dtype;
      } else {
        const std::string why = "ffi_call('" + target_ +
                                "'): result_shape_dtypes is required: result " +
                                std::to_string(r) + " (" +
                                (p.type_name ? p.type_name : "?") + ") ";
        if (non_scalar > 1) {
          ThrowValueError(why +
                          "is one of several array results, whose shapes the "
                          "handler's description does not give");
        }
        if (n == 0) {
          ThrowValueError(why +
                          "could only be derived from argument 0, and "
                          "there are no arguments");
        }
        PyArrayObject* a0 = view[0].array;
        if (a0 == nullptr) {
          ThrowValueError(why +
                          "could only be derived from argument 0, which is a "
                          "token");
        }
        if ((p.rank >= 0 && p.rank != PyArray_NDIM(a0)) ||
            (p.dtype != XLA_FFI_DataType_INVALID && p.dtype != view[0].dtype)) {
          ThrowValueError(
              why + "is not like argument 0 (" +
              ArrayText(view[0].dtype, PyArray_NDIM(a0), PyArray_DIMS(a0)) +
              ")");
        }
        spec.dtype = view[0].dtype;
        spec.dims.assign(PyArray_DIMS(a0), PyArray_DIMS(a0) + PyArray_NDIM(a0));
      }
      PyArray_Descr* descr = DescrOfDtype(spec.dtype);
      if (descr == nullptr) {
        ThrowValueError("ffi_call('" + target_ + "'): result " +
                        std::to_string(r) + " has dtype " +
                        DtypeName(spec.dtype) + ", which has no NumPy dtype");
      }
      spec.descr = nb::steal(reinterpret_cast<PyObject*>(descr));
      out.push_back(std::move(spec));
    }
    return out;
  }

  // JAX checks these when the function is called, as the arguments' count
  // is known only then; its sentence ends each message.
  void CheckLayoutCounts(size_t n) const {
    if (num_input_layouts_ >= 0 &&
        static_cast<size_t>(num_input_layouts_) != n) {
      ThrowValueError("ffi_call('" + target_ + "'): input_layouts has " +
                      std::to_string(num_input_layouts_) + " layouts for " +
                      CountOf(n, "argument") +
                      ". The number of input arguments (" + std::to_string(n) +
                      ") must equal the number of input layouts (" +
                      std::to_string(num_input_layouts_) + ").");
    }
    if (num_output_layouts_ >= 0 &&
        static_cast<size_t>(num_output_layouts_) != results_.size()) {
      ThrowValueError("ffi_call('" + target_ + "'): output_layouts has " +
                      std::to_string(num_output_layouts_) + " layouts for " +
                      CountOf(results_.size(), "result") +
                      ". The number of outputs (" +
                      std::to_string(results_.size()) +
                      ") must equal the number of output layouts (" +
                      std::to_string(num_output_layouts_) + ").");
    }
  }

  void Rebuild(const ArgView* view, size_t n, nb::handle kwargs) {
    cache_valid_ = false;
    key_.clear();
    for (size_t i = 0; i < n; ++i) {
      PyArrayObject* a = view[i].array;
      key_.push_back(view[i].dtype);
      if (a == nullptr) {  // a token
        key_.push_back(0);
        continue;
      }
      key_.push_back(PyArray_NDIM(a));
      for (int d = 0; d < PyArray_NDIM(a); ++d) {
        key_.push_back(PyArray_DIMS(a)[d]);
      }
    }
    if (!given_results_) results_ = DeriveResults(view, n);
    CheckLayoutCounts(n);
    for (auto [in, o] : aliases_) {
      if (in < 0 || static_cast<size_t>(in) >= n || o < 0 ||
          static_cast<size_t>(o) >= results_.size()) {
        ThrowValueError("ffi_call('" + target_ +
                        "'): input_output_aliases maps argument " +
                        std::to_string(in) + " to result " + std::to_string(o) +
                        ", but there " + (n == 1 ? "is " : "are ") +
                        CountOf(n, "argument") + " and " +
                        CountOf(results_.size(), "result"));
      }
      PyArrayObject* a = view[in].array;
      const ResultSpec& spec = results_[o];
      std::vector<int64_t> dims;
      if (a != nullptr)
        dims.assign(PyArray_DIMS(a), PyArray_DIMS(a) + PyArray_NDIM(a));
      if (dims != spec.dims || view[in].dtype != spec.dtype) {
        ThrowValueError("ffi_call('" + target_ + "'): argument " +
                        std::to_string(in) + " (" + DtypeName(view[in].dtype) +
                        ShapeText(dims) + ") cannot alias result " +
                        std::to_string(o) + " (" + DtypeName(spec.dtype) +
                        ShapeText(spec.dims) +
                        "): shapes and dtypes must match");
      }
    }

    if (record_ != nullptr) {
      if (!signatures_known_) {
        signatures_ = StageSignatures(target_, record_->bundle);
        signatures_known_ = true;
      }
      AttributeMap attrs =
          ConvertAttributes(kwargs, signatures_, target_, "ffi_call", strict_);
      CallFrameBuilder builder;
      for (size_t i = 0; i < n; ++i) {
        PyArrayObject* a = view[i].array;
        if (a == nullptr) {
          builder.TokenArg();
          continue;
        }
        builder.Arg(PyArray_DATA(a), view[i].dtype,
                    std::vector<int64_t>(PyArray_DIMS(a),
                                         PyArray_DIMS(a) + PyArray_NDIM(a)));
      }
      for (const ResultSpec& spec : results_) {
        if (spec.dtype == XLA_FFI_DataType_TOKEN) {
          builder.TokenRet();
        } else {
          builder.Ret(nullptr, spec.dtype, spec.dims);
        }
      }
      builder.Attrs(attrs);
      // A new call site for XLA (other shapes or attributes): state anew.
      // Calls still running on the old one keep it until they return.
      auto site = std::make_shared<CallSite>();
      site->builder = std::move(builder);
      site->results = results_;
      site->hot.emplace(site->builder.Build());
      // A site whose hot frame a call still uses lives until it is free.
      retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                    [](const std::shared_ptr<CallSite>& old) {
                                      return !old->hot_busy.load(
                                          std::memory_order_acquire);
                                    }),
                     retired_.end());
      if (site_ != nullptr && !site_->abandoned &&
          site_->hot_busy.load(std::memory_order_acquire))
        retired_.push_back(std::move(site_));
      site_ = std::move(site);
    } else {
      if (PyDict_GET_SIZE(kwargs.ptr()) != 0) {
        ThrowValueError("ffi_call('" + target_ +
                        "'): a legacy custom call (custom_call_api_version " +
                        std::to_string(api_version_) +
                        ") takes no attributes; pass legacy_backend_config. "
                        "The use of ffi_call attributes requires a custom "
                        "call API version of at least 4; got api_version=" +
                        std::to_string(api_version_) + ".");
      }
      std::vector<LegacyShape> operands;
      for (size_t i = 0; i < n; ++i)
        operands.push_back(view[i].array == nullptr ? LegacyShape::Token()
                                                    : LegacyShape::Array());
      std::vector<LegacyShape> leaves;
      for (const ResultSpec& spec : results_)
        leaves.push_back(spec.dtype == XLA_FFI_DataType_TOKEN
                             ? LegacyShape::Token()
                             : LegacyShape::Array());
      LegacyShape result =
          leaves.size() == 1 ? leaves[0] : LegacyShape::Tuple(leaves);
      legacy_frame_.emplace(
          LegacyCallFrame::Create(legacy_->platform, operands, result));
      legacy_frame_->set_opaque(backend_config_);
    }

    num_args_ = n;
    cached_attrs_.clear();
    attrs_cacheable_ = true;
    for (auto [name, value] : nb::borrow<nb::dict>(kwargs)) {
      if (!ImmutableValue(value.ptr())) attrs_cacheable_ = false;
      cached_attrs_.emplace_back(nb::borrow(name), nb::borrow(value));
    }
    cache_valid_ = true;
  }

  // Without the GIL: only the frame, the state and the handler are used.
  // A stage that times out hands its pending future to `abandoned`.
  Status RunStage(XLA_FFI_Handler* handler, XLA_FFI_ExecutionStage stage,
                  ExecutionContext* context, CallSite& site, CallFrame& frame,
                  std::shared_ptr<AsyncValue>& abandoned) {
    CallOptions options;
    options.stage = stage;
    options.context = context;
    options.state = &site.state;
    options.handler_api_minor = record_->api_minor;
    options.target_name = record_->name;
    CallResult result = CallHandler(handler, frame.get(), options);
    if (result.future == nullptr) {
      if (result.status.ok()) return Status();
      return InCall(result.status, stage);
    }
    const std::chrono::nanoseconds timeout(
        timeout_ns_ >= 0 ? timeout_ns_
                         : default_timeout_ns.load(std::memory_order_relaxed));
    if (timeout.count() == 0) return InCall(result.future->Wait(), stage);
    std::optional<Status> done = result.future->WaitFor(timeout);
    if (done.has_value()) return InCall(*done, stage);
    abandoned = std::move(result.future);
    std::string when = stage == XLA_FFI_ExecutionStage_EXECUTE
                           ? ""
                           : " in stage " + ExecutionStageName(stage);
    return Status(XLA_FFI_Error_Code_DEADLINE_EXCEEDED,
                  "ffi_call('" + target_ + "')" + when +
                      " did not complete within the custom-call timeout (" +
                      SecondsText(timeout) +
                      " s); the call was abandoned (its arguments, results "
                      "and state are kept until the handler completes)");
  }

  // With the GIL: a frame back to its site's pool, unless the site is no
  // longer current (then it goes with the site).
  void GiveBack(const std::shared_ptr<CallSite>& site, CallFrame frame) {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      nb::gil_scoped_release release;
      lock.lock();
    }
    if (site == site_ && site->idle.size() < kMaxIdleFrames)
      site->idle.push_back(std::move(frame));
  }

  // After a timeout (with the GIL): hands everything the pending handler
  // may touch to AbandonedCalls (its frame, its site with the state, the
  // arrays), and starts a new call site for the next calls (new frames and
  // state: instantiate runs again), so they never share them with the late
  // handler.
  // `owner` is null for a call on the site's hot frame: the site is then
  // found as the current one or among the retired.
  void Abandon(std::shared_ptr<AsyncValue> future, CallSite* site,
               std::shared_ptr<CallSite> owner, const CallFrame& frame,
               PyObject* const* argv, size_t n, PyObject* const* out,
               size_t num_results) {
    AbandonedCall call;
    call.future = std::move(future);
    call.frame = frame.keep_alive();
    call.objects.reserve(n + num_results + 1);
    for (size_t i = 0; i < n; ++i) call.objects.push_back(nb::borrow(argv[i]));
    for (size_t r = 0; r < num_results; ++r)
      call.objects.push_back(nb::borrow(out[r]));
    if (current_context_object != nullptr)
      call.objects.push_back(nb::borrow(current_context_object));
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      nb::gil_scoped_release release;
      lock.lock();
    }
    if (owner == nullptr) {
      // Its hot frame stays busy for good: the site goes with the call.
      site->abandoned = true;
      if (site_.get() == site) {
        owner = site_;
      } else {
        auto retired =
            std::find_if(retired_.begin(), retired_.end(),
                         [site](const std::shared_ptr<CallSite>& old) {
                           return old.get() == site;
                         });
        if (retired != retired_.end()) {  // always: it was busy
          owner = std::move(*retired);
          retired_.erase(retired);
        }
      }
    }
    if (site_.get() == site) cache_valid_ = false;
    call.site = std::move(owner);
    AbandonedCalls().push_back(std::move(call));
  }

  // The handler's error, saying which call it came from (a message from a
  // decoder names only the parameter: "result 0: expected ...").
  Status InCall(
      const Status& status,
      XLA_FFI_ExecutionStage stage = XLA_FFI_ExecutionStage_EXECUTE) const {
    if (status.ok()) return status;
    std::string where = "ffi_call('" + target_ + "')";
    if (stage != XLA_FFI_ExecutionStage_EXECUTE) {
      where += " in stage " + ExecutionStageName(stage);
    }
    return Status(status.code(), where + ": " + status.message());
  }

  Status RunTyped(ExecutionContext* context, CallSite& site, CallFrame& frame,
                  std::shared_ptr<AsyncValue>& abandoned) {
    const XLA_FFI_Handler_Bundle& bundle = record_->bundle;
    if (!site.instantiated.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(site.instantiate_mutex);
      if (!site.instantiated.load(std::memory_order_relaxed)) {
        if (site.instantiate_abandoned) {
          return Status(XLA_FFI_Error_Code_DEADLINE_EXCEEDED,
                        "ffi_call('" + target_ +
                            "'): a concurrent call's stage instantiate did "
                            "not complete within the custom-call timeout");
        }
        if (bundle.instantiate != nullptr) {
          Status status =
              RunStage(bundle.instantiate, XLA_FFI_ExecutionStage_INSTANTIATE,
                       context, site, frame, abandoned);
          if (abandoned != nullptr) site.instantiate_abandoned = true;
          if (!status.ok()) return status;
        }
        site.instantiated.store(true, std::memory_order_release);
      }
    }
    if (bundle.prepare != nullptr) {
      Status status = RunStage(bundle.prepare, XLA_FFI_ExecutionStage_PREPARE,
                               context, site, frame, abandoned);
      if (!status.ok()) return status;
    }
    if (bundle.initialize != nullptr) {
      Status status =
          RunStage(bundle.initialize, XLA_FFI_ExecutionStage_INITIALIZE,
                   context, site, frame, abandoned);
      if (!status.ok()) return status;
    }
    if (bundle.execute == nullptr) return Status();
    return RunStage(bundle.execute, XLA_FFI_ExecutionStage_EXECUTE, context,
                    site, frame, abandoned);
  }

  std::string target_;
  std::string platform_;
  bool single_result_;
  bool tuple_result_;
  int api_version_;
  std::vector<std::pair<int, int>> aliases_;
  bool donate_;
  bool strict_;            // attributes as jax.ffi.ffi_call takes them, no more
  int num_input_layouts_;  // -1: no input_layouts given
  int num_output_layouts_;     // -1: no output_layouts given
  std::vector<bool> donated_;  // by result: an argument given to it
  nb::object fallback_;
  nb::object token_type_;  // the class of xffi's token objects
  const HandlerRecord* record_ = nullptr;
  const LegacyTargetRecord* legacy_ = nullptr;
  std::string backend_config_;
  bool given_results_ = false;
  bool signatures_known_ = false;
  std::vector<const XFFI_Signature*> signatures_;
  std::vector<ResultSpec> results_;

  // The frame of the last call, and what it was built for.
  bool cache_valid_ = false;
  size_t num_args_ = 0;
  std::vector<int64_t> key_;
  std::vector<std::pair<nb::object, nb::object>> cached_attrs_;
  bool attrs_cacheable_ = true;
  std::shared_ptr<CallSite> site_;  // typed handlers: the current site
  // Earlier sites whose hot frame a call was using when they were replaced.
  std::vector<std::shared_ptr<CallSite>> retired_;
  std::optional<LegacyCallFrame> legacy_frame_;
  // Nanoseconds to wait for a handler's future; -1: default_timeout_ns.
  int64_t timeout_ns_ = -1;
  std::mutex mutex_;  // see Call
};

PyObject* CallerTpCall(PyObject* self, PyObject* args, PyObject* kwargs) {
  try {
    return nb::inst_ptr<Caller>(self)
        ->Call(self, &PyTuple_GET_ITEM(args, 0),
               static_cast<size_t>(PyTuple_GET_SIZE(args)), kwargs)
        .release()
        .ptr();
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

// Python's fast calling convention: the arguments arrive as an array, so no
// tuple is made for a call without attributes.
PyObject* CallerVectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                           PyObject* kwnames) {
  try {
    const size_t n = static_cast<size_t>(PyVectorcall_NARGS(nargsf));
    nb::object kwargs;
    if (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) > 0) {
      kwargs = nb::steal(PyDict_New());
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); ++i) {
        if (PyDict_SetItem(kwargs.ptr(), PyTuple_GET_ITEM(kwnames, i),
                           args[n + static_cast<size_t>(i)]) != 0) {
          throw nb::python_error();
        }
      }
    }
    return nb::inst_ptr<Caller>(self)
        ->Call(self, args, n, kwargs)
        .release()
        .ptr();
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

// Turns vectorcall on for _Caller instances. nanobind keeps a Caller inside
// its Python object at an offset fixed per type, and a Caller starts with
// its VectorcallEntry, so that offset is where Python must look. It is
// measured on an instance nanobind allocates (and never constructs).
void EnableVectorcall(nb::handle type) {
  nb::object probe = nb::inst_alloc(type);
  const Py_ssize_t offset =
      reinterpret_cast<char*>(
          static_cast<VectorcallEntry*>(nb::inst_ptr<Caller>(probe))) -
      reinterpret_cast<char*>(probe.ptr());
  auto* tp = reinterpret_cast<PyTypeObject*>(type.ptr());
  tp->tp_vectorcall_offset = offset;
  tp->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
  PyType_Modified(tp);
}

// A call frame over given arrays, for bench/python_dispatch.py's floor: a
// handler called through ctypes on it does the handler's own work only.
struct FrameOverArrays {
  std::optional<CallFrame> frame;
  nb::list arrays;  // keeps the buffers alive
};

// Python's view of an ExecutionContext: user data for eager calls.
struct PyExecutionContext {
  ExecutionContext context{Platform::kHost};
};

}  // namespace

void BindCall(nb::module_& m) {
  // The call slot itself, not a __call__ method: Python then calls it
  // straight, without looking __call__ up, binding a method or building a
  // keyword dictionary, and nanobind's overload dispatch is skipped.
  static PyType_Slot caller_slots[] = {
      {Py_tp_call, reinterpret_cast<void*>(CallerTpCall)}, {0, nullptr}};
  auto caller =
      nb::class_<Caller>(m, "_Caller", nb::dynamic_attr(),
                         nb::type_slots(caller_slots))
          .def(nb::init<std::string, std::string, nb::object, bool, bool, int,
                        std::string, std::vector<std::pair<int, int>>, bool,
                        nb::object, bool, int, int, nb::object, double>(),
               nb::arg("target"), nb::arg("platform"),
               nb::arg("results").none(), nb::arg("single_result"),
               nb::arg("tuple_result"), nb::arg("api_version"),
               nb::arg("backend_config"), nb::arg("aliases"), nb::arg("donate"),
               nb::arg("fallback"), nb::arg("strict") = false,
               nb::arg("num_input_layouts") = -1,
               nb::arg("num_output_layouts") = -1,
               nb::arg("token_type").none() = nb::none(),
               nb::arg("timeout") = -1.0)

          .def("results_for", &Caller::ResultsFor)
          .def_prop_ro("target", &Caller::target)
          .def_prop_ro("single_result", &Caller::single_result)
          .def_prop_ro("tuple_result", &Caller::tuple_result)
          .def_prop_ro("custom_call_timeout", &Caller::timeout);
  EnableVectorcall(caller);

  nb::class_<FrameOverArrays>(m, "_FrameOverArrays")
      .def_prop_ro("address", [](FrameOverArrays& f) {
        return reinterpret_cast<uintptr_t>(f.frame->get());
      });
  m.def(
      "_array_from_dlpack",
      [](nb::handle value) -> nb::object {
        nb::object array = ArrayFromDlpackExtendedDtype(value);
        return array.is_valid() ? array : nb::none();
      },
      nb::arg("value"),
      "A NumPy array over a CPU DLPack tensor of a dtype numpy.from_dlpack "
      "refuses (bfloat16), without a copy; None for anything else.");
  m.def(
      "_frame_over_arrays",
      [](nb::list args, nb::list rets) {
        auto out = std::make_unique<FrameOverArrays>();
        CallFrameBuilder builder;
        for (size_t k = 0; k < 2; ++k) {
          for (nb::handle a : k == 0 ? args : rets) {
            if (!PyArray_Check(a.ptr())) {
              ThrowTypeError("_frame_over_arrays: NumPy arrays only");
            }
            auto* array = reinterpret_cast<PyArrayObject*>(a.ptr());
            std::vector<int64_t> dims(
                PyArray_DIMS(array), PyArray_DIMS(array) + PyArray_NDIM(array));
            XLA_FFI_DataType dtype = DtypeOfTypeNum(PyArray_TYPE(array));
            if (k == 0) {
              builder.Arg(PyArray_DATA(array), dtype, std::move(dims));
            } else {
              builder.Ret(PyArray_DATA(array), dtype, std::move(dims));
            }
            out->arrays.append(a);
          }
        }
        out->frame.emplace(builder.Build());
        return out;
      },
      nb::arg("args"), nb::arg("rets"));

  nb::class_<PyExecutionContext>(m, "ExecutionContext",
                                 "User data and settings eager calls see "
                                 "(use with xffi.execution_context).")
      .def(nb::init<>())
      .def(
          "insert_user_data",
          [](PyExecutionContext& self, int64_t type_id, uintptr_t address,
             bool take_ownership) {
            XLA_FFI_TypeId id{type_id};
            void* data = reinterpret_cast<void*>(address);
            ThrowIfError(take_ownership
                             ? self.context.AdoptUserData(id, data)
                             : self.context.InsertUserData(id, data));
          },
          nb::arg("type_id"), nb::arg("address"),
          nb::arg("take_ownership") = false,
          "Makes `address` the user data of type `type_id` (an id from "
          "register_ffi_type or a library's registration). With "
          "take_ownership, the context deletes it with the type's "
          "registered deleter.")
      .def(
          "user_data",
          [](const PyExecutionContext& self, int64_t type_id) {
            StatusOr<void*> data = self.context.LookupUserData({type_id});
            if (!data.ok()) ThrowStatus(data.status());
            return reinterpret_cast<uintptr_t>(*data);
          },
          nb::arg("type_id"))
      .def_prop_rw(
          "run_id",
          [](const PyExecutionContext& self) { return self.context.run_id(); },
          [](PyExecutionContext& self, int64_t id) {
            self.context.set_run_id(id);
          })
      .def_prop_rw(
          "device_ordinal",
          [](const PyExecutionContext& self) {
            return self.context.device_ordinal();
          },
          [](PyExecutionContext& self, int32_t ordinal) {
            self.context.set_device_ordinal(ordinal);
          });

  m.def(
      "_set_current_context",
      [](nb::handle context) -> nb::object {
        ExecutionContext* previous = current_context;
        (void)previous;
        if (!context.is_none())
          any_current_context.store(true, std::memory_order_relaxed);
        current_context =
            context.is_none()
                ? nullptr
                : &nb::inst_ptr<PyExecutionContext>(context)->context;
        // xffi.execution_context holds a reference while it is current.
        current_context_object = context.is_none() ? nullptr : context.ptr();
        return nb::none();
      },
      nb::arg("context").none());

  m.def(
      "set_custom_call_timeout",
      [](double seconds) {
        default_timeout_ns.store(
            TimeoutNanoseconds(seconds, "set_custom_call_timeout"),
            std::memory_order_relaxed);
      },
      nb::arg("seconds"),
      "How long an eager call (an ffi_call made without custom_call_timeout) "
      "and a Program compiled without one wait for a handler that returned a "
      "future before failing with TimeoutError naming the target; seconds, "
      "0 (the default) for as long as it takes. Process-wide.");
  m.def(
      "custom_call_timeout",
      [] {
        return std::chrono::duration<double>(
                   std::chrono::nanoseconds(
                       default_timeout_ns.load(std::memory_order_relaxed)))
            .count();
      },
      "The process-wide timeout set_custom_call_timeout set (seconds; 0: "
      "none).");
  m.def(
      "_abandoned_calls",
      [] {
        ReleaseCompletedAbandonedCalls();
        return AbandonedCalls().size();
      },
      "How many eager calls that timed out are still pending (their "
      "arguments, results, frames and states are kept until they "
      "complete).");
}

}  // namespace xffi::python
