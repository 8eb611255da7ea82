// DiagnosticEngine: where a decoder says why it failed, with XLA's spelling,
// so that a decoder written for XLA (`ArgDecoding`, `RetDecoding`,
// `AttrDecoding`, `CtxDecoding` specialisations taking a DiagnosticEngine&)
// compiles unchanged against xffi:
//
//   return diagnostic.Emit("Wrong attribute type: expected ")
//          << XLA_FFI_AttrType_SCALAR << " but got " << type;
//
// xffi's own decoders are templates over the sink (internal::NoDiagnostic on
// the hot path, internal::Diagnostic when explaining a failure) and accept a
// DiagnosticEngine as a sink too; internal::CallDecode runs a decoder of
// either kind with whichever sink the caller has.
#ifndef XFFI_FFI_DIAGNOSTIC_H_
#define XFFI_FFI_DIAGNOSTIC_H_

#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "xffi/ffi/c_operators.h"
#include "xffi/ffi/error.h"
#include "xffi/ffi/signature.h"

namespace xffi::ffi {

class DiagnosticEngine;

// A message being composed with <<; it reaches its engine when destroyed,
// at the end of the statement that emitted it. Converts to an empty
// std::optional<T>, so `return diagnostic.Emit(...) << ...;` fails a decoder.
class InFlightDiagnostic {
 public:
  explicit InFlightDiagnostic(DiagnosticEngine* engine, std::string s)
      : engine_(engine) {
    stream_ << s;
  }
  InFlightDiagnostic(const InFlightDiagnostic&) = delete;
  InFlightDiagnostic& operator=(const InFlightDiagnostic&) = delete;
  ~InFlightDiagnostic();

  template <typename Arg>
  InFlightDiagnostic& operator<<(Arg&& arg) {
    stream_ << std::forward<Arg>(arg);
    return *this;
  }

  template <typename T>
  operator std::optional<T>() const {  // NOLINT: XLA's decoders rely on it
    return std::nullopt;
  }

 private:
  DiagnosticEngine* engine_;
  std::ostringstream stream_;
};

// Collects the messages of one decoding, in the order they were emitted.
class DiagnosticEngine {
 public:
  // Lets xffi's own decoders, which are templates over their sink, report
  // into an engine (see internal::Diagnostic for the protocol).
  static constexpr bool kExplain = true;

  DiagnosticEngine() = default;
  DiagnosticEngine(const DiagnosticEngine&) = delete;
  DiagnosticEngine& operator=(const DiagnosticEngine&) = delete;

  InFlightDiagnostic Emit(std::string message) {
    return InFlightDiagnostic(this, std::move(message));
  }

  std::string Result() const& { return acc_; }
  std::string Result() && { return std::exchange(acc_, {}); }

  template <typename... Ts>
  void Fail(const Ts&... pieces) {
    (internal::AppendPiece(acc_, pieces), ...);
  }

 private:
  friend class InFlightDiagnostic;
  void Append(const std::string& s) { acc_ += s; }

  std::string acc_;
};

inline InFlightDiagnostic::~InFlightDiagnostic() {
  engine_->Append(stream_.str());
}

namespace internal {

// Whether Decoding::Decode accepts `D&` as its diagnostic after `Args`.
template <typename Void, typename Decoding, typename D, typename... Args>
struct AcceptsSink : std::false_type {};
template <typename Decoding, typename D, typename... Args>
struct AcceptsSink<std::void_t<decltype(Decoding::Decode(
                       std::declval<Args>()..., std::declval<D&>()))>,
                   Decoding, D, Args...> : std::true_type {};

// Runs Decoding::Decode(args..., sink). A decoder that takes only XLA's
// DiagnosticEngine gets one of its own, whose text is handed on to `diag`
// when the caller is explaining a failure.
template <typename Decoding, typename D, typename... Args>
XFFI_ALWAYS_INLINE auto CallDecode(D& diag, Args... args) {
  if constexpr (AcceptsSink<void, Decoding, D, Args...>::value) {
    return Decoding::Decode(args..., diag);
  } else {
    DiagnosticEngine engine;
    auto decoded = Decoding::Decode(args..., engine);
    if constexpr (D::kExplain) {
      if (!decoded.has_value()) diag.Fail(std::move(engine).Result());
    }
    return decoded;
  }
}

// Decoding::Isa(args...) when the decoder has one (XLA's decoders mostly
// do), else whether it decodes, quietly.
template <typename Void, typename Decoding, typename... Args>
struct HasIsa : std::false_type {};
template <typename Decoding, typename... Args>
struct HasIsa<std::void_t<decltype(Decoding::Isa(std::declval<Args>()...))>,
              Decoding, Args...> : std::true_type {};

template <typename Decoding, typename... Args>
XFFI_ALWAYS_INLINE bool CallIsa(Args... args) {
  if constexpr (HasIsa<void, Decoding, Args...>::value) {
    return Decoding::Isa(args...);
  } else {
    NoDiagnostic quiet;
    return CallDecode<Decoding>(quiet, args...).has_value();
  }
}

// Decoding::TypeName() when present: decoders written for XLA have none.
template <typename Decoding, typename T, typename = void>
struct DecodingTypeName {
  static std::string Get() { return std::string(CppTypeName<T>()); }
};
template <typename Decoding, typename T>
struct DecodingTypeName<Decoding, T,
                        std::void_t<decltype(Decoding::TypeName())>> {
  static std::string Get() { return Decoding::TypeName(); }
};

}  // namespace internal
}  // namespace xffi::ffi

#endif  // XFFI_FFI_DIAGNOSTIC_H_
