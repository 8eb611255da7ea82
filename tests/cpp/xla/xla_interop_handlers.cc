// Handlers written against jaxlib's official xla/ffi/api/ffi.h, compiled
// once per official header (FFI 0.3 and 0.5). CMake gives each build its own
// symbol prefix (XFFI_XLA_PREFIX, e.g. XlaV03_) so both can live in one test
// binary. The driver (test_xla_interop.cc) declares the same symbols with
// xffi's c_api.h types and runs them through xffi's runtime: this TU must
// see nothing of xffi.
#include <atomic>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#ifndef XFFI_XLA_PREFIX
#error "CMake must define XFFI_XLA_PREFIX"
#endif
#define XFFI_CONCAT_(a, b) a##b
#define XFFI_CONCAT(a, b) XFFI_CONCAT_(a, b)
#define XFFI_SYM(name) XFFI_CONCAT(XFFI_XLA_PREFIX, name)

// Both official builds link into one binary. Their inline functions and
// templates would share mangled names but not bodies (0.3 and 0.5 differ,
// e.g. GetMessage vs GetDetails), and the linker would silently keep one.
// Renaming the namespaces per build keeps the two headers apart.
#define xla XFFI_CONCAT(XFFI_XLA_PREFIX, xla)
#define interop XFFI_CONCAT(XFFI_XLA_PREFIX, interop)

#include "xla/ffi/api/c_api.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace interop {

// ---- buffers ---------------------------------------------------------------

// out = x + y, where y arrives untyped and is checked by hand.
ffi::Error AddBuffers(ffi::Buffer<ffi::F32, 1> x, ffi::AnyBuffer y,
                      ffi::Result<ffi::Buffer<ffi::F32, 1>> out) {
  if (y.element_type() != ffi::F32 || y.element_count() != x.element_count()) {
    return ffi::Error(ffi::ErrorCode::kInvalidArgument,
                      "y must be F32 with as many elements as x");
  }
  const float* yv = y.typed_data<float>();
  for (size_t i = 0; i < x.element_count(); ++i) {
    out->typed_data()[i] = x.typed_data()[i] + yv[i];
  }
  return ffi::Error::Success();
}

// out = sum of a rank-2 S32 matrix; exercises rank checks and BufferR0.
ffi::Error SumMatrix(ffi::Buffer<ffi::S32, 2> m,
                     ffi::Result<ffi::BufferR0<ffi::S64>> out) {
  int64_t sum = 0;
  for (size_t i = 0; i < m.element_count(); ++i) sum += m.typed_data()[i];
  auto dims = m.dimensions();
  *out->typed_data() = sum * 1000 + dims[0] * 10 + dims[1];
  return ffi::Error::Success();
}

// ---- scalar attributes -----------------------------------------------------

ffi::Error EchoScalars(bool b, int8_t i8, int16_t i16, int32_t i32, int64_t i64,
                       uint8_t u8, uint16_t u16, uint32_t u32, uint64_t u64,
                       float f32, double f64, std::string_view str,
                       std::complex<float> c64, std::complex<double> c128,
                       ffi::Result<ffi::Buffer<ffi::F64, 1>> out) {
  if (out->element_count() != 16) {
    return ffi::Error::InvalidArgument("out must have 16 elements");
  }
  double* o = out->typed_data();
  o[0] = b;
  o[1] = i8;
  o[2] = i16;
  o[3] = i32;
  o[4] = static_cast<double>(i64);
  o[5] = u8;
  o[6] = u16;
  o[7] = u32;
  o[8] = static_cast<double>(u64);
  o[9] = f32;
  o[10] = f64;
  o[11] = static_cast<double>(str == "hello" ? str.size() : 0);
  o[12] = c64.real();
  o[13] = c64.imag();
  o[14] = c128.real();
  o[15] = c128.imag();
  return ffi::Error::Success();
}

// ---- array attributes ------------------------------------------------------

template <typename T>
double Sum(ffi::Span<const T> span) {
  double sum = 0;
  for (T v : span) sum += static_cast<double>(v);
  return sum;
}

// out[k] = 100 * size + sum of the k-th array.
ffi::Error SumArrays(ffi::Span<const int8_t> a_i8,
                     ffi::Span<const int32_t> a_i32,
                     ffi::Span<const int64_t> a_i64,
                     ffi::Span<const uint16_t> a_u16,
                     ffi::Span<const float> a_f32,
                     ffi::Span<const double> a_f64,
                     ffi::Result<ffi::Buffer<ffi::F64, 1>> out) {
  double* o = out->typed_data();
  o[0] = 100.0 * a_i8.size() + Sum(a_i8);
  o[1] = 100.0 * a_i32.size() + Sum(a_i32);
  o[2] = 100.0 * a_i64.size() + Sum(a_i64);
  o[3] = 100.0 * a_u16.size() + Sum(a_u16);
  o[4] = 100.0 * a_f32.size() + Sum(a_f32);
  o[5] = 100.0 * a_f64.size() + Sum(a_f64);
  return ffi::Error::Success();
}

// ---- dictionaries, enums, structs, variants --------------------------------

// Reads {scale: i32, name: str, inner: {offset: i64}}; a missing or
// mistyped entry surfaces as the dictionary's own error.
ffi::Error ReadDictionary(ffi::Dictionary dict,
                          ffi::Result<ffi::BufferR0<ffi::F64>> out) {
  ffi::ErrorOr<int32_t> scale = dict.get<int32_t>("scale");
  if (scale.has_error()) return scale.error();
  ffi::ErrorOr<std::string_view> name = dict.get<std::string_view>("name");
  if (name.has_error()) return name.error();
  ffi::ErrorOr<ffi::Dictionary> inner = dict.get<ffi::Dictionary>("inner");
  if (inner.has_error()) return inner.error();
  ffi::ErrorOr<int64_t> offset = inner->get<int64_t>("offset");
  if (offset.has_error()) return offset.error();
  *out->typed_data() =
      static_cast<double>(*scale) * static_cast<double>(name->size()) +
      static_cast<double>(*offset) + (dict.size() == 3 ? 0.5 : 0.0);
  return ffi::Error::Success();
}

// The whole attribute dictionary of the frame, through Attrs().
ffi::Error CountAttrs(ffi::Dictionary attrs,
                      ffi::Result<ffi::BufferR0<ffi::S64>> out) {
  int64_t total = static_cast<int64_t>(attrs.size()) * 100;
  if (attrs.contains("weight")) {
    ffi::ErrorOr<int64_t> weight = attrs.get<int64_t>("weight");
    if (weight.has_error()) return weight.error();
    total += *weight;
  }
  *out->typed_data() = total;
  return ffi::Error::Success();
}

enum class Mode : int32_t { kFast = 1, kExact = 7 };
enum class Level : uint8_t { kLow = 0, kHigh = 200 };

struct Range {
  int64_t lo;
  int64_t hi;
};

struct Window {
  int32_t x;
  int32_t y;
  float scale;
};

}  // namespace interop

XLA_FFI_REGISTER_ENUM_ATTR_DECODING(interop::Mode);
XLA_FFI_REGISTER_ENUM_ATTR_DECODING(interop::Level);
XLA_FFI_REGISTER_STRUCT_ATTR_DECODING(interop::Range,
                                      ::xla::ffi::StructMember<int64_t>("lo"),
                                      ::xla::ffi::StructMember<int64_t>("hi"));
XLA_FFI_REGISTER_STRUCT_ATTR_DECODING(interop::Window,
                                      ::xla::ffi::StructMember<int32_t>("x"),
                                      ::xla::ffi::StructMember<int32_t>("y"),
                                      ::xla::ffi::StructMember<float>("scale"));

namespace interop {

// out = [mode, level, range.hi - range.lo, variant code, variant value]
ffi::Error EnumsStructsVariants(
    Mode mode, Level level, Range range,
    std::variant<int32_t, float, std::string_view> choice,
    ffi::Result<ffi::Buffer<ffi::F64, 1>> out) {
  double* o = out->typed_data();
  o[0] = static_cast<double>(mode);
  o[1] = static_cast<double>(level);
  o[2] = static_cast<double>(range.hi - range.lo);
  o[3] = static_cast<double>(choice.index());
  if (auto* i = std::get_if<int32_t>(&choice)) o[4] = *i;
  if (auto* f = std::get_if<float>(&choice)) o[4] = *f;
  if (auto* s = std::get_if<std::string_view>(&choice)) {
    o[4] = static_cast<double>(s->size());
  }
  return ffi::Error::Success();
}

// The frame's whole attribute dictionary decoded as a struct (Attrs<T>).
ffi::Error WindowArea(Window window, ffi::Result<ffi::BufferR0<ffi::F32>> out) {
  *out->typed_data() = static_cast<float>(window.x * window.y) * window.scale;
  return ffi::Error::Success();
}

// ---- remaining args and rets -----------------------------------------------

// Copies arg i into ret i (same byte size) after one leading typed arg
// holding a scale, and multiplies F32 payloads by it.
ffi::Error ScaleAll(ffi::BufferR0<ffi::F32> scale, ffi::RemainingArgs args,
                    ffi::RemainingRets rets) {
  if (args.size() != rets.size()) {
    return ffi::Error::InvalidArgument("need as many results as arguments");
  }
  for (size_t i = 0; i < args.size(); ++i) {
    ffi::ErrorOr<ffi::AnyBuffer> arg = args.get<ffi::AnyBuffer>(i);
    if (arg.has_error()) return arg.error();
    ffi::ErrorOr<ffi::Result<ffi::Buffer<ffi::F32>>> ret =
        rets.get<ffi::Buffer<ffi::F32>>(i);
    if (ret.has_error()) return ret.error();
    if (arg->element_type() != ffi::F32) {
      return ffi::Error::InvalidArgument("remaining arg " + std::to_string(i) +
                                         " is not F32");
    }
    const float* in = arg->typed_data<float>();
    float* o = (*ret)->typed_data();
    for (size_t k = 0; k < arg->element_count(); ++k) {
      o[k] = in[k] * *scale.typed_data();
    }
  }
  return ffi::Error::Success();
}

// ---- state and user data ---------------------------------------------------

struct Counter {
  static ffi::TypeId id;
  explicit Counter(int64_t start) : value(start) {}
  int64_t value;
};
ffi::TypeId Counter::id = {};

struct Config {
  static ffi::TypeId id;
  int64_t scale;
};
ffi::TypeId Config::id = {};

ffi::ErrorOr<std::unique_ptr<Counter>> MakeCounter(int64_t start) {
  if (start < 0)
    return ffi::Unexpected(ffi::Error::InvalidArgument("start < 0"));
  return std::make_unique<Counter>(start);
}

ffi::Error BumpCounter(Counter* counter,
                       ffi::Result<ffi::BufferR0<ffi::S64>> out) {
  *out->typed_data() = ++counter->value;
  return ffi::Error::Success();
}

ffi::Error ReadConfig(Config* config,
                      ffi::Result<ffi::BufferR0<ffi::S64>> out) {
  *out->typed_data() = config->scale * 2;
  return ffi::Error::Success();
}

// ---- errors ----------------------------------------------------------------

ffi::Error Fail(std::string_view why) {
  return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                    "official-header handler failed: " + std::string(why));
}

// ---- context: run id, device ordinal, thread pool, futures -----------------

ffi::Error RunInfo(ffi::RunId run_id, int32_t device_ordinal,
                   ffi::Result<ffi::Buffer<ffi::S64, 1>> out) {
  out->typed_data()[0] = run_id.run_id;
  out->typed_data()[1] = device_ordinal;
  return ffi::Error::Success();
}

// Fills out[i] = i * i on the pool and completes a future when all tasks
// ran; fails the future instead when asked to.
ffi::Future FillOnPool(ffi::ThreadPool pool, bool fail,
                       ffi::Result<ffi::Buffer<ffi::S64, 1>> out) {
  const int64_t n = static_cast<int64_t>(out->element_count());
  int64_t* data = out->typed_data();
  ffi::Promise promise;
  ffi::Future future(promise);
  auto remaining = std::make_shared<std::atomic<int64_t>>(n);
  const int64_t threads = pool.num_threads();
  for (int64_t i = 0; i < n; ++i) {
    pool.Schedule([=]() mutable {
      data[i] = i * i + (i == 0 ? threads * 1000 : 0);
      if (remaining->fetch_sub(1) == 1) {
        if (fail) {
          promise.SetError(ffi::Error(ffi::ErrorCode::kAborted,
                                      "async failure from the pool"));
        } else {
          promise.SetAvailable();
        }
      }
    });
  }
  return future;
}

}  // namespace interop

// ---- exported handlers -----------------------------------------------------

// The library is built with hidden visibility (so XLA's inline functions
// stay private to it); what follows is its interface.
#pragma GCC visibility push(default)

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(AddBuffers), interop::AddBuffers,
                              (ffi::Ffi::Bind()
                                   .Arg<ffi::Buffer<ffi::F32, 1>>()
                                   .Arg<ffi::AnyBuffer>()
                                   .Ret<ffi::Buffer<ffi::F32, 1>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(SumMatrix), interop::SumMatrix,
                              (ffi::Ffi::Bind()
                                   .Arg<ffi::Buffer<ffi::S32, 2>>()
                                   .Ret<ffi::BufferR0<ffi::S64>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(EchoScalars), interop::EchoScalars,
                              (ffi::Ffi::Bind()
                                   .Attr<bool>("b")
                                   .Attr<int8_t>("i8")
                                   .Attr<int16_t>("i16")
                                   .Attr<int32_t>("i32")
                                   .Attr<int64_t>("i64")
                                   .Attr<uint8_t>("u8")
                                   .Attr<uint16_t>("u16")
                                   .Attr<uint32_t>("u32")
                                   .Attr<uint64_t>("u64")
                                   .Attr<float>("f32")
                                   .Attr<double>("f64")
                                   .Attr<std::string_view>("str")
                                   .Attr<std::complex<float>>("c64")
                                   .Attr<std::complex<double>>("c128")
                                   .Ret<ffi::Buffer<ffi::F64, 1>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(SumArrays), interop::SumArrays,
                              (ffi::Ffi::Bind()
                                   .Attr<ffi::Span<const int8_t>>("a_i8")
                                   .Attr<ffi::Span<const int32_t>>("a_i32")
                                   .Attr<ffi::Span<const int64_t>>("a_i64")
                                   .Attr<ffi::Span<const uint16_t>>("a_u16")
                                   .Attr<ffi::Span<const float>>("a_f32")
                                   .Attr<ffi::Span<const double>>("a_f64")
                                   .Ret<ffi::Buffer<ffi::F64, 1>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(ReadDictionary), interop::ReadDictionary,
                              (ffi::Ffi::Bind()
                                   .Attr<ffi::Dictionary>("dict")
                                   .Ret<ffi::BufferR0<ffi::F64>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    XFFI_SYM(CountAttrs), interop::CountAttrs,
    (ffi::Ffi::Bind().Attrs().Ret<ffi::BufferR0<ffi::S64>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    XFFI_SYM(EnumsStructsVariants), interop::EnumsStructsVariants,
    (ffi::Ffi::Bind()
         .Attr<interop::Mode>("mode")
         .Attr<interop::Level>("level")
         .Attr<interop::Range>("range")
         .Attr<std::variant<int32_t, float, std::string_view>>("choice")
         .Ret<ffi::Buffer<ffi::F64, 1>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    XFFI_SYM(WindowArea), interop::WindowArea,
    (ffi::Ffi::Bind().Attrs<interop::Window>().Ret<ffi::BufferR0<ffi::F32>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(ScaleAll), interop::ScaleAll,
                              (ffi::Ffi::Bind()
                                   .Arg<ffi::BufferR0<ffi::F32>>()
                                   .RemainingArgs()
                                   .RemainingRets()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    XFFI_SYM(CounterInstantiate), interop::MakeCounter,
    (ffi::Ffi::BindInstantiate().Attr<int64_t>("start")));

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(CounterExecute), interop::BumpCounter,
                              (ffi::Ffi::Bind()
                                   .Ctx<ffi::State<interop::Counter>>()
                                   .Ret<ffi::BufferR0<ffi::S64>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(ReadConfig), interop::ReadConfig,
                              (ffi::Ffi::Bind()
                                   .Ctx<ffi::UserData<interop::Config>>()
                                   .Ret<ffi::BufferR0<ffi::S64>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(Fail), interop::Fail,
                              (ffi::Ffi::Bind().Attr<std::string_view>("why")));

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(RunInfo), interop::RunInfo,
                              (ffi::Ffi::Bind()
                                   .Ctx<ffi::RunId>()
                                   .Ctx<ffi::DeviceOrdinal>()
                                   .Ret<ffi::Buffer<ffi::S64, 1>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(FillOnPool), interop::FillOnPool,
                              (ffi::Ffi::Bind()
                                   .Ctx<ffi::ThreadPool>()
                                   .Attr<bool>("fail")
                                   .Ret<ffi::Buffer<ffi::S64, 1>>()));

// ---- FFI 0.4/0.5 only: custom options, backend extensions, record stage ---

#if XLA_FFI_API_MINOR >= 5
namespace interop {

// The C side of a backend extension the test attaches to the context.
struct TestExtensionC {
  XLA_FFI_Extension extension;
  int64_t payload;
};

struct TestExtension {
  using CExtension = TestExtensionC;
  using Type = int64_t;
  static constexpr auto kName = "TestExtension";
  static constexpr int64_t kExtensionType = 0x7866666954455354;
  static constexpr int32_t kMajorVersion = 1;
  static constexpr int32_t kMinorVersion = 2;
  static Type Create(const XLA_FFI_Api*, const CExtension* ext) {
    return ext->payload;
  }
};

// out = options["scale"] * 10 + number of options.
ffi::Error ReadCustomOptions(ffi::Dictionary options,
                             ffi::Result<ffi::BufferR0<ffi::S64>> out) {
  ffi::ErrorOr<int64_t> scale = options.get<int64_t>("scale");
  if (scale.has_error()) return scale.error();
  *out->typed_data() = *scale * 10 + static_cast<int64_t>(options.size());
  return ffi::Error::Success();
}

ffi::Error ReadExtension(int64_t payload,
                         ffi::Result<ffi::BufferR0<ffi::S64>> out) {
  *out->typed_data() = payload;
  return ffi::Error::Success();
}

ffi::Error Record(ffi::Result<ffi::BufferR0<ffi::S64>> out) {
  *out->typed_data() = XLA_FFI_ExecutionStage_RECORD;
  return ffi::Error::Success();
}

}  // namespace interop

XLA_FFI_DEFINE_HANDLER_SYMBOL(XFFI_SYM(ReadCustomOptions),
                              interop::ReadCustomOptions,
                              (ffi::Ffi::Bind()
                                   .Ctx<ffi::CustomOptions>()
                                   .Ret<ffi::BufferR0<ffi::S64>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    XFFI_SYM(ReadExtension), interop::ReadExtension,
    (ffi::Ffi::Bind()
         .Ctx<ffi::Extension<interop::TestExtension>>()
         .Ret<ffi::BufferR0<ffi::S64>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    XFFI_SYM(Record), interop::Record,
    (ffi::Ffi::BindRecord().Ret<ffi::BufferR0<ffi::S64>>()));
#endif  // XLA_FFI_API_MINOR >= 5

// ---- registration through a runtime's API table, as XLA's header does it --

// Registers this TU's user types (state and user data) with `api`.
extern "C" XLA_FFI_Error* XFFI_SYM(RegisterTypes)(const XLA_FFI_Api* api) {
  const std::string prefix = XLA_FFI_API_MINOR >= 4 ? "xla_v05." : "xla_v03.";
  if (XLA_FFI_Error* error = ffi::Ffi::RegisterTypeId(
          api, prefix + "Counter", &interop::Counter::id,
          ffi::MakeTypeInfo<interop::Counter>())) {
    return error;
  }
  return ffi::Ffi::RegisterTypeId(api, prefix + "Config", &interop::Config::id,
                                  ffi::MakeTypeInfo<interop::Config>());
}

extern "C" int64_t XFFI_SYM(CounterTypeId)() {
  return interop::Counter::id.type_id;
}
extern "C" int64_t XFFI_SYM(ConfigTypeId)() {
  return interop::Config::id.type_id;
}
extern "C" void* XFFI_SYM(NewConfig)(int64_t scale) {
  return new interop::Config{scale};
}
extern "C" void XFFI_SYM(DeleteConfig)(void* config) {
  delete static_cast<interop::Config*>(config);
}

// Registers the stateful handler bundle (instantiate + execute) and a plain
// handler with traits through the header's own RegisterStaticHandler, which
// passes this header version's Handler_Register_Args layout.
extern "C" XLA_FFI_Error* XFFI_SYM(RegisterHandlers)(const XLA_FFI_Api* api,
                                                     const char* prefix) {
  XLA_FFI_Handler_Bundle bundle = {};
  bundle.instantiate = XFFI_SYM(CounterInstantiate);
  bundle.execute = XFFI_SYM(CounterExecute);
  const std::string p = prefix;
  if (XLA_FFI_Error* error = ffi::Ffi::RegisterStaticHandler(
          api, p + ".counter", "Host", bundle)) {
    return error;
  }
  return ffi::Ffi::RegisterStaticHandler(
      api, p + ".add_buffers", "cpu", XFFI_SYM(AddBuffers),
      XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
}

// Registered at load time by XLA's own macro, into whatever runtime exports
// XLA_FFI_GetApi: in the test binaries, libxffi.
XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(),
                         XLA_FFI_API_MINOR >= 4 ? "xla_v05.static_add"
                                                : "xla_v03.static_add",
                         "Host", XFFI_SYM(AddBuffers));

// The version this TU's header declares, for the driver's sanity checks.
extern "C" int XFFI_SYM(HeaderMinor)() { return XLA_FFI_API_MINOR; }

#pragma GCC visibility pop
