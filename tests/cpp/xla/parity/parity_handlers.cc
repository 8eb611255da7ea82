// Handlers that use everything a jaxlib 0.12 handler author can write
// (buffer matching, custom decoders, dictionary iteration, Ffi::Wrapper,
// BindTo's template order, Ffi's helpers, the C struct operators, XLA's
// macros, state, the record and collectives extensions), compiled twice
// from this one source: against jaxlib 0.12's headers and against xffi's.
// The only difference is the prelude CMake picks (XFFI_PARITY_PRELUDE),
// which includes one set of headers and names their namespace PARITY_NS.
// test_xla_parity runs both builds through xffi's runtime and compares.
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include XFFI_PARITY_PRELUDE

#ifndef XFFI_PARITY_PREFIX
#error "CMake must define XFFI_PARITY_PREFIX"
#endif
#define PARITY_CONCAT_(a, b) a##b
#define PARITY_CONCAT(a, b) PARITY_CONCAT_(a, b)
#define PARITY_SYM(name) PARITY_CONCAT(XFFI_PARITY_PREFIX, name)

namespace ffi = PARITY_NS;

#include "xla_style_decoders.h"

namespace user {

// A state object made at instantiation.
struct Accumulator {
  static ffi::TypeId id;
  int64_t total;
};
ffi::TypeId Accumulator::id = {};

}  // namespace user

namespace parity {

// ---- buffer matching -------------------------------------------------------

// out[i][j] = x[i][j] + y[i]: x an F32 matrix, y F32 or F64 of one value per
// row, out shaped like x.
ffi::Error MatchBuffers(ffi::AnyBuffer x, ffi::AnyBuffer y,
                        ffi::Result<ffi::AnyBuffer> out) {
  static_assert(ffi::IsDynamicRank<ffi::kDynamicRank>(), "sentinel");
  static_assert(!ffi::IsDynamicRank<0, 1>(), "sentinel");
  int64_t rows = 0, cols = 0;
  auto matrix = ffi::Match(
      "x", x, ffi::match::Buffer<ffi::F32, 2>().WithDims(&rows, &cols));
  if (matrix.has_error()) return matrix.error();
  ffi::Error y_ok = ffi::Verify("y", y,
                                ffi::match::Buffer()
                                    .WithDType<ffi::F32, ffi::F64>()
                                    .WithRank<1>()
                                    .WithDim<0>(ffi::match::Dim(rows)));
  if (y_ok.failure()) return y_ok;
  ffi::Error same = ffi::Verify("out", *out, ffi::match::Buffer().Like(x));
  if (same.failure()) return same;
  auto typed = ffi::Match("out", out,
                          ffi::match::Buffer<ffi::F32, 2>().WithDim(1, cols));
  if (typed.has_error()) return typed.error();
  ffi::Error shaped =
      ffi::Verify("x", *matrix, ffi::match::Buffer().WithShapeOf(*out));
  if (shaped.failure()) return shaped;
  float* o = (*typed)->typed_data();
  for (int64_t i = 0; i < rows; ++i) {
    double add = y.element_type() == ffi::F32 ? y.typed_data<float>()[i]
                                              : y.typed_data<double>()[i];
    for (int64_t j = 0; j < cols; ++j) {
      o[i * cols + j] =
          matrix->typed_data()[i * cols + j] + static_cast<float>(add);
    }
  }
  return ffi::Error::Success();
}

// ---- dictionary iteration --------------------------------------------------

// out = {entries, sum of S64 entries, bytes of string entries, position of
// "key" in name order}.
ffi::Error WalkDictionary(ffi::Dictionary attrs,
                          ffi::Result<ffi::Buffer<ffi::S64, 1>> out) {
  int64_t entries = 0, sum = 0, bytes = 0, key_at = -1;
  for (auto it = attrs.begin(); it != attrs.end(); ++it) {
    std::string_view name = *it;
    if (name == "key") key_at = entries;
    if (attrs.isa<int64_t>(it)) {
      auto value = attrs.get<int64_t>(it);
      if (value.has_error()) return value.error();
      sum += *value;
    } else if (attrs.isa<std::string_view>(it)) {
      bytes += static_cast<int64_t>(attrs.get<std::string_view>(name)->size());
    }
    ++entries;
  }
  if (!attrs.contains<int64_t>("key")) {
    return ffi::Error::InvalidArgument("no S64 key");
  }
  int64_t* o = out->typed_data();
  o[0] = entries;
  o[1] = sum;
  o[2] = bytes;
  o[3] = key_at;
  return ffi::Error::Success();
}

// ---- custom decoders -------------------------------------------------------

// out = in scaled by the range's width, then offset by the run id.
ffi::Error UseDecoders(user::Matrix in, ffi::Result<user::Matrix> out,
                       user::Range range, user::Where where) {
  if (in.rows != out->rows || in.cols != out->cols) {
    return ffi::Error::InvalidArgument("in and out differ in shape");
  }
  for (int64_t i = 0; i < in.rows * in.cols; ++i) {
    out->data[i] = in.data[i] * static_cast<float>(range.hi - range.lo) +
                   static_cast<float>(where.run_id * 100 + where.device);
  }
  return ffi::Error::Success();
}

// Bound by inference alone: the attribute, the context and the status come
// from AttrBinding, CtxBinding and ResultEncoding specialisations.
user::Status InferredBindings(user::Scale scale, user::Where where,
                              ffi::Result<ffi::BufferR0<ffi::F32>> out) {
  if (scale.value < 0) return user::Status{false, "negative scale"};
  *out->typed_data() = scale.value * static_cast<float>(where.device);
  return user::Status{true, ""};
}

// out = element count of every remaining argument that is a Matrix, -1 for
// the others.
ffi::Error RemainingMatrices(ffi::RemainingArgs args, ffi::RemainingRets rets) {
  auto out = rets.get<ffi::Buffer<ffi::S64, 1>>(0);
  if (out.has_error()) return out.error();
  for (size_t i = 0; i < args.size(); ++i) {
    if (args.isa<user::Matrix>(i)) {
      auto matrix = args.get<user::Matrix>(i);
      (*out)->typed_data()[i] = (*matrix).rows * (*matrix).cols;
    } else {
      (*out)->typed_data()[i] = -1;
    }
  }
  auto forced = args.get<user::Matrix>(args.size() - 1);
  if (forced.has_error()) return forced.error();
  return ffi::Error::Success();
}

// ---- Ffi::Wrapper, BindTo in XLA's order, Ffi's helpers --------------------

ffi::Error Triple(ffi::Buffer<ffi::F32, 1> x,
                  ffi::Result<ffi::Buffer<ffi::F32, 1>> y) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = 3 * x.typed_data()[i];
  }
  return ffi::Error::Success();
}

ffi::Error PrepareCount(ffi::Dictionary attrs) {
  return ffi::Error(ffi::ErrorCode::kAborted,
                    "prepare saw " + std::to_string(attrs.size()));
}

// A handler written by hand against Ffi, with the helpers XLA gives it.
class HandWritten : public ffi::Ffi {
 public:
  XLA_FFI_Error* Call(XLA_FFI_CallFrame* frame) const override {
    if (XLA_FFI_Error* error = CheckStructSize(frame->api, "XLA_FFI_CallFrame",
                                               XLA_FFI_CallFrame_STRUCT_SIZE,
                                               frame->struct_size)) {
      return error;
    }
    if (XLA_FFI_Error* error = StructSizeIsGreaterOrEqual(
            frame->api, "XLA_FFI_Attrs", XLA_FFI_Attrs_STRUCT_SIZE,
            frame->attrs.struct_size)) {
      return error;
    }
    if (frame->args.size == 0) {
      return InvalidArgument(frame->api, "hand-written handler needs args");
    }
    if (frame->args.size > 2) {
      return FailedPrecondition(frame->api, "too many args for now");
    }
    if (frame->rets.size != 0) {
      return MakeError(frame->api, XLA_FFI_Error_Code_OUT_OF_RANGE,
                       "no results, please");
    }
    return Success();
  }
};

// ---- the C structs' operators, enum printing, small type helpers ----------

ffi::Error Spellings() {
  std::ostringstream out;
  out << ffi::F32 << " " << ffi::ToImag(ffi::C128) << " "
      << ffi::ToImag(ffi::S8) << " " << ffi::ToReal(ffi::C64) << " "
      << ffi::ToComplex(ffi::F64) << " " << XLA_FFI_DataType_BF16 << " "
      << XLA_FFI_AttrType_DICTIONARY << " " << XLA_FFI_ExecutionStage_PREPARE
      << " " << XLA_FFI_ExecutionStage_RECORD << ";";
  std::vector<int64_t> values = {1, 2, 3, 4};
  ffi::Span<const int64_t> span(values);
  out << span.first(2).size() << span.first(2).back() << span.last(3).front()
      << (span.last(1) == ffi::Span<const int64_t>(values).last(1)) << ";";
  XLA_FFI_TypeId a{3}, b{3}, c{4};
  XLA_FFI_Api_Version v1{XLA_FFI_Api_Version_STRUCT_SIZE, nullptr, 0, 5};
  XLA_FFI_Api_Version v2{0, nullptr, 0, 5};
  XLA_FFI_Metadata m1{};
  m1.api_version = v1;
  m1.traits = 1;
  m1.state_type_id = a;
  XLA_FFI_Metadata m2 = m1;
  m2.traits = 0;
  XLA_FFI_Handler_Bundle bundle{};
  XLA_FFI_Handler_Bundle other{};
  other.prepare = bundle.execute;  // both null: equal
  out << (a == b) << (a != c) << (v1 == v2) << (m1 == m1) << (m1 != m2)
      << (bundle == other) << ";";
  ffi::DiagnosticEngine diagnostic;
  { diagnostic.Emit("emitted ") << ffi::S4 << " " << 7; }
  out << diagnostic.Result() << ";" << ffi::ByteWidth(ffi::C128)
      << ffi::IsComplexType<ffi::C64>();
  if (XLA_FFI_PREDICT_FALSE(values.empty())) return ffi::Error::Success();
  if (XLA_FFI_PREDICT_TRUE(!values.empty())) {
    return ffi::Error(ffi::ErrorCode::kAborted, out.str());
  }
  return ffi::Error::Success();
}

// ---- handler macros ------------------------------------------------------

XLA_FFI_ATTRIBUTE_ALWAYS_INLINE inline float Doubled(float x) { return 2 * x; }

ffi::Error DoubleAll(ffi::Buffer<ffi::F32, 1> x,
                     ffi::Result<ffi::Buffer<ffi::F32, 1>> y) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = Doubled(x.typed_data()[i]);
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_EXPLICIT(kExplicit, DoubleAll,
                                ffi::Ffi::Bind()
                                    .Arg<ffi::BufferR1<ffi::F32>>()
                                    .Ret<ffi::BufferR1<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_EXPLICIT_WITH_TRAITS(
    kWithTraits, DoubleAll,
    ffi::Ffi::Bind()
        .Arg<ffi::BufferR1<ffi::F32>>()
        .Ret<ffi::BufferR1<ffi::F32>>(),
    {ffi::Traits::kCmdBufferCompatible});
XLA_FFI_DEFINE_HANDLER_AUTO(kAuto, DoubleAll);

// ---- state -----------------------------------------------------------------

ffi::ErrorOr<std::unique_ptr<user::Accumulator>> Start(int64_t start) {
  if (start < 0) return ffi::Error::InvalidArgument("start must be >= 0");
  return std::make_unique<user::Accumulator>(user::Accumulator{start});
}

ffi::Error Accumulate(user::Accumulator* state, int64_t add,
                      ffi::Result<ffi::BufferR0<ffi::S64>> out) {
  state->total += add;
  *out->typed_data() = state->total;
  return ffi::Error::Success();
}

// ---- the record extension -------------------------------------------------

using Recorder = ffi::internal::RecordContextBase<ffi::internal::ErrorPolicy>;
using RecordExt = ffi::internal::RecordExtensionBase<Recorder>;

// Records a copy of the argument into the result and a join after it; on
// later recordings updates the copy to the current buffers.
ffi::Error RecordCopy(Recorder record, ffi::AnyBuffer in,
                      ffi::Result<ffi::AnyBuffer> out) {
  if (record.action() == ffi::RecordAction::kUpdate) {
    return record.UpdateMemcpyD2D(record.commands()[0], out->untyped_data(),
                                  in.untyped_data(), in.size_bytes());
  }
  auto copy = record.CreateMemcpyD2D(out->untyped_data(), in.untyped_data(),
                                     in.size_bytes());
  if (copy.has_error()) return copy.error();
  auto join = record.CreateEmptyCommand({*copy});
  if (join.has_error()) return join.error();
  if (record.commands().size() != 2) {
    return ffi::Error::Internal("the frame lost a command");
  }
  return ffi::Error::Success();
}

ffi::Error RecordKernel(Recorder record) {
  const char ptx[] = ".version 8.0";
  std::vector<ffi::KernelArg> args = {ffi::HostValue{ptx, 4}};
  auto launch = record.CreateLaunch(
      "parity_kernel", ptx, sizeof(ptx), ffi::SourceFormat::kPtx,
      XLA_FFI_LaunchDims{{1, 1, 1}, {32, 1, 1}, {0, 0, 0}}, 0, false, args);
  if (launch.has_error()) return launch.error();
  return ffi::Error::Success();
}

// ---- the collectives extension --------------------------------------------

using Comms =
    ffi::internal::CommunicatorContextBase<ffi::internal::ErrorPolicy>;
using CommsExt = ffi::internal::CollectivesExtensionBase<Comms>;

std::vector<std::vector<int64_t>> Groups(int64_t devices) {
  std::vector<std::vector<int64_t>> groups(1);
  for (int64_t d = 0; d < devices; ++d) groups[0].push_back(d);
  return groups;
}

ffi::Error CollectivesPrepare(Comms comms, int64_t devices,
                              ffi::AnyBuffer region) {
  ffi::Error requested = comms.RequestCommunicator(ffi::GroupMode::kFlattenedId,
                                                   Groups(devices), 1);
  if (requested.failure()) return requested;
  return comms.RequestWindow(ffi::GroupMode::kFlattenedId, Groups(devices), 1,
                             {ffi::CollectiveMemoryRegion{
                                 region.untyped_data(), region.size_bytes()}});
}

// out = {communicator is set, byte offset of region element 2 in its window}.
ffi::Error CollectivesExecute(Comms comms, int64_t devices,
                              ffi::AnyBuffer region,
                              ffi::Result<ffi::Buffer<ffi::S64, 1>> out) {
  auto communicator =
      comms.GetCommunicator(ffi::GroupMode::kFlattenedId, Groups(devices), 1);
  if (communicator.has_error()) return communicator.error();
  auto window =
      comms.GetWindow(ffi::GroupMode::kFlattenedId, Groups(devices), 1,
                      static_cast<char*>(region.untyped_data()) + 8);
  if (window.has_error()) return window.error();
  out->typed_data()[0] = *communicator != nullptr;
  out->typed_data()[1] = static_cast<int64_t>(window->offset);
  return ffi::Error::Success();
}

}  // namespace parity

// ---- the library's interface ----------------------------------------------

// Built with hidden visibility, so the header's inline functions stay private
// to the library; what follows is exported.
#pragma GCC visibility push(default)

XLA_FFI_DEFINE_HANDLER_SYMBOL(PARITY_SYM(MatchBuffers), parity::MatchBuffers,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>());

// XLA's macros split a binding at its template commas: parenthesise it.
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    PARITY_SYM(WalkDictionary), parity::WalkDictionary,
    (ffi::Ffi::Bind().Attrs().Ret<ffi::Buffer<ffi::S64, 1>>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(PARITY_SYM(UseDecoders), parity::UseDecoders,
                              ffi::Ffi::Bind()
                                  .Arg<user::Matrix>()
                                  .Ret<user::Matrix>()
                                  .Attr<user::Range>("range")
                                  .Ctx<user::Where>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(PARITY_SYM(InferredBindings),
                              parity::InferredBindings);

XLA_FFI_DEFINE_HANDLER_SYMBOL(PARITY_SYM(RemainingMatrices),
                              parity::RemainingMatrices,
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets());

extern "C" XLA_FFI_Error* PARITY_SYM(Wrapped)(XLA_FFI_CallFrame* frame) {
  static auto* handler = ffi::Ffi::Bind()
                             .Arg<ffi::Buffer<ffi::F32, 1>>()
                             .Ret<ffi::Buffer<ffi::F32, 1>>()
                             .To(ffi::Ffi::Wrapper<parity::Triple>())
                             .release();
  return handler->Call(frame);
}

extern "C" XLA_FFI_Error* PARITY_SYM(PrepareByBindTo)(
    XLA_FFI_CallFrame* frame) {
  static auto* handler =
      ffi::Ffi::BindTo<decltype(&parity::PrepareCount),
                       ffi::ExecutionStage::kPrepare>(&parity::PrepareCount)
          .release();
  return handler->Call(frame);
}

extern "C" XLA_FFI_Error* PARITY_SYM(HandWritten)(XLA_FFI_CallFrame* frame) {
  static const parity::HandWritten handler;
  return handler.Call(frame);
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(PARITY_SYM(Spellings), parity::Spellings,
                              ffi::Ffi::Bind());

extern "C" XLA_FFI_Error* PARITY_SYM(Explicit)(XLA_FFI_CallFrame* frame) {
  return parity::kExplicit(frame);
}
extern "C" XLA_FFI_Error* PARITY_SYM(WithTraits)(XLA_FFI_CallFrame* frame) {
  return parity::kWithTraits(frame);
}
extern "C" XLA_FFI_Error* PARITY_SYM(Auto)(XLA_FFI_CallFrame* frame) {
  return parity::kAuto(frame);
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    PARITY_SYM(StateInstantiate), parity::Start,
    ffi::Ffi::BindInstantiate().Attr<int64_t>("start"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(PARITY_SYM(StateExecute), parity::Accumulate,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::State<user::Accumulator>>()
                                  .Attr<int64_t>("add")
                                  .Ret<ffi::BufferR0<ffi::S64>>());

XLA_FFI_DECLARE_TYPE_ID_SYMBOL(PARITY_SYM(AccumulatorTypeId));
XLA_FFI_DECLARE_TYPE_INFO_SYMBOL(PARITY_SYM(AccumulatorTypeInfo));
extern "C" XLA_FFI_TypeId* PARITY_SYM(AccumulatorTypeId)() {
  return &user::Accumulator::id;
}
extern "C" const XLA_FFI_TypeInfo* PARITY_SYM(AccumulatorTypeInfo)() {
  static const XLA_FFI_TypeInfo info = ffi::MakeTypeInfo<user::Accumulator>();
  return &info;
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(PARITY_SYM(RecordCopy), parity::RecordCopy,
                              ffi::Ffi::BindRecord()
                                  .Ctx<ffi::Extension<parity::RecordExt>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    PARITY_SYM(RecordKernel), parity::RecordKernel,
    ffi::Ffi::BindRecord().Ctx<ffi::Extension<parity::RecordExt>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(PARITY_SYM(CollectivesPrepare),
                              parity::CollectivesPrepare,
                              ffi::Ffi::BindPrepare()
                                  .Ctx<ffi::Extension<parity::CommsExt>>()
                                  .Attr<int64_t>("devices")
                                  .Arg<ffi::AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(PARITY_SYM(CollectivesExecute),
                              parity::CollectivesExecute,
                              (ffi::Ffi::Bind()
                                   .Ctx<ffi::Extension<parity::CommsExt>>()
                                   .Attr<int64_t>("devices")
                                   .Arg<ffi::AnyBuffer>()
                                   .Ret<ffi::Buffer<ffi::S64, 1>>()));

#pragma GCC visibility pop
