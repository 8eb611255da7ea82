// Buffer matching: checking a buffer's dtype, rank and dimensions inside a
// handler, with XLA's names, semantics and messages:
//
//   int64_t rows, cols;
//   auto pattern = match::Buffer<F32>().WithDims(&rows, &cols);
//   if (Error e = Verify("x", x, pattern); e.failure()) return e;
//   ErrorOr<Buffer<F32, 2>> typed =
//       Match("y", any, match::Buffer<F32, 2>().WithDim<0>(rows));
//
// A pattern's allowed dtypes and ranks are part of its type (DTypeSet,
// RankSet), so Match can turn an AnyBuffer into the one Buffer<dtype, rank>
// a pattern pins down; shape constraints (fixed, free or captured
// dimensions, or the shape of another buffer) are run-time values. A failed
// match is INVALID_ARGUMENT: "Buffer 'x' failed to match <pattern>:
// <first failed constraint>". Captures are written only when every
// constraint holds.
#ifndef XFFI_FFI_MATCH_H_
#define XFFI_FFI_MATCH_H_

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "xffi/ffi/buffer.h"
#include "xffi/ffi/error.h"
#include "xffi/ffi/types.h"

namespace xffi::ffi {

// True when any of the ranks is kDynamicRank.
template <size_t rank, size_t... ranks>
constexpr bool IsDynamicRank() {
  return rank == kDynamicRank || ((ranks == kDynamicRank) || ...);
}

namespace internal {

// A compile-time list of values of type T (enums included, which
// std::integer_sequence does not take).
template <typename T, T... values>
struct ValueSequence {
  using ValueType = T;
  static constexpr size_t size() { return sizeof...(values); }
};

// Streams one constraint value into a message. A header with an enum that
// has no symbolic operator<< specialises it.
template <typename T>
struct ValuePrinter {
  friend std::ostream& operator<<(std::ostream& os, ValuePrinter printer) {
    return os << printer.value;
  }
  T value;
};

template <typename... Pieces>
std::string Streamed(const Pieces&... pieces) {
  std::ostringstream out;
  (out << ... << pieces);
  return out.str();
}

// "[a, b, c]"
template <typename T, size_t n>
std::string ListOf(const std::array<T, n>& values) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < n; ++i) {
    out << (i == 0 ? "" : ", ") << ValuePrinter<T>{values[i]};
  }
  out << "]";
  return out.str();
}

}  // namespace internal

namespace match {

// The dtypes a pattern allows (none listed: any). DType is the header's
// dtype enum, DataType here.
template <typename DType, DType... dtypes>
using DTypeSet = internal::ValueSequence<DType, dtypes...>;

// The ranks a pattern allows (none listed: any).
template <size_t... ranks>
using RankSet = internal::ValueSequence<size_t, ranks...>;

}  // namespace match

namespace internal {

inline constexpr char kDType[] = "dtype";
inline constexpr char kRank[] = "rank";

// Checks a value against a compile-time set, naming the constraint (`name`)
// in messages.
template <const char* name, typename Values>
class ValueSet;

template <const char* name, typename T, T... values>
class ValueSet<name, ValueSequence<T, values...>> {
  static constexpr std::array<T, sizeof...(values)> kValues = {values...};

 public:
  static constexpr bool empty() { return sizeof...(values) == 0; }

  // nullopt when `value` is allowed.
  static std::optional<std::string> Match(T value) {
    if (XFFI_LIKELY(empty() || ((value == values) || ...))) {
      return std::nullopt;
    }
    if constexpr (sizeof...(values) == 1) {
      return Streamed("expected ", name, " ", ValuePrinter<T>{kValues[0]},
                      " but got ", ValuePrinter<T>{value});
    } else {
      return Streamed("expected ", name, " to be one of ", ListOf(kValues),
                      " but got ", ValuePrinter<T>{value});
    }
  }

  // "" (no constraint), "dtype F32", or "dtype in [F32, F64]".
  static std::string Describe() {
    if constexpr (sizeof...(values) == 0) {
      return std::string();
    } else if constexpr (sizeof...(values) == 1) {
      return Streamed(name, " ", ValuePrinter<T>{kValues[0]});
    } else {
      return Streamed(name, " in ", ListOf(kValues));
    }
  }
};

template <typename Values>
using DTypeValues = ValueSet<kDType, Values>;
template <typename Values>
using RankValues = ValueSet<kRank, Values>;

template <typename DTypes, typename Ranks>
class BufferPatternBase;

}  // namespace internal

namespace match {

// One dimension of a pattern: free (matches any extent), fixed (an integer)
// or captured (an int64_t* that receives the extent; several positions
// capturing into one variable must agree).
class DimPattern {
 public:
  DimPattern() = default;

  template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
  DimPattern(T value)  // NOLINT: patterns are written as plain numbers
      : value_(static_cast<int64_t>(value)) {
    static_assert(sizeof(T) <= sizeof(int64_t),
                  "Integral dimension value must fit in 64-bit integer.");
  }

  DimPattern(int64_t* capture)  // NOLINT: and captures as &variable
      : value_(capture) {
    assert(capture != nullptr && "dimension capture must be non-null");
  }

  // nullopt when `extent`, at position `index`, fits this pattern.
  std::optional<std::string> Match(int64_t extent, size_t index) const {
    const int64_t* fixed = std::get_if<int64_t>(&value_);
    if (XFFI_LIKELY(fixed == nullptr || *fixed == extent)) return std::nullopt;
    return internal::Streamed("expected dimension ", index, " to be ", *fixed,
                              " but got ", extent);
  }

  void Capture(int64_t extent) const {
    if (int64_t* target = capture(); XFFI_UNLIKELY(target != nullptr)) {
      *target = extent;
    }
  }

  std::string Describe() const {
    if (const int64_t* fixed = std::get_if<int64_t>(&value_)) {
      return std::to_string(*fixed);
    }
    return capture() != nullptr ? "any dimension (captured)" : "any dimension";
  }

 private:
  template <typename, typename>
  friend class internal::BufferPatternBase;

  int64_t* capture() const {
    int64_t* const* target = std::get_if<int64_t*>(&value_);
    return target == nullptr ? nullptr : *target;
  }

  std::variant<std::monostate, int64_t, int64_t*> value_;
};

inline DimPattern Dim() { return DimPattern(); }
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
inline DimPattern Dim(T extent) {
  return DimPattern(extent);
}
inline DimPattern Dim(int64_t* capture) { return DimPattern(capture); }

}  // namespace match

namespace internal {

// An immutable pattern over a buffer's metadata. Every With* returns a new
// pattern. A dtype (or rank) constraint is either type-level (DTypes,
// Ranks) or a run-time value copied from another buffer (Like,
// WithShapeOf), never both: setting one clears the other.
template <typename DTypes, typename Ranks>
class BufferPatternBase {
  using DType = typename DTypes::ValueType;

 public:
  BufferPatternBase() = default;

  template <size_t rank, size_t... ranks>
  auto WithRank() const {
    static_assert(!IsDynamicRank<rank, ranks...>(),
                  "dynamic rank is represented by an empty rank set");
    return BufferPatternBase<DTypes, match::RankSet<rank, ranks...>>(*this);
  }

  template <DType dtype, DType... dtypes>
  auto WithDType() const {
    return BufferPatternBase<match::DTypeSet<DType, dtype, dtypes...>, Ranks>(
        *this);
  }

  // The rank and every dimension of `buffer`.
  template <typename BufferType>
  auto WithShapeOf(BufferType buffer) const {
    BufferPatternBase<DTypes, match::RankSet<>> pattern(*this);
    Span<const int64_t> dims = buffer.dimensions();
    pattern.rank_ = dims.size();
    pattern.dimensions_.assign(dims.begin(), dims.end());
    return pattern;
  }

  // The dtype, rank and every dimension of `buffer`.
  template <typename BufferType>
  auto Like(BufferType buffer) const {
    BufferPatternBase<match::DTypeSet<DType>, match::RankSet<>> pattern(
        WithShapeOf(buffer));
    pattern.dtype_ = buffer.element_type();
    return pattern;
  }

  // Every dimension, in order; the rank is their number.
  template <typename... Dims,
            typename = std::enable_if_t<
                (std::is_convertible_v<Dims, match::DimPattern> && ...)>>
  XFFI_ALWAYS_INLINE auto WithDims(Dims&&... dims) const {
    BufferPatternBase<DTypes, match::RankSet<sizeof...(Dims)>> pattern(*this);
    pattern.dimensions_ = {match::DimPattern(std::forward<Dims>(dims))...};
    return pattern;
  }

  // One dimension; the others and the rank stay as they were.
  BufferPatternBase WithDim(size_t index, match::DimPattern dim) const {
    BufferPatternBase pattern(*this);
    if (pattern.dimensions_.size() <= index) {
      pattern.dimensions_.resize(index + 1);
    }
    pattern.dimensions_[index] = std::move(dim);
    return pattern;
  }

  template <size_t index>
  BufferPatternBase WithDim(match::DimPattern dim) const {
    return WithDim(index, std::move(dim));
  }

  // nullopt when `buffer` matches; otherwise the first failed constraint,
  // checked in the order dtype, rank, dimensions.
  template <typename BufferType>
  XFFI_ALWAYS_INLINE std::optional<std::string> Match(BufferType buffer) const {
    DType dtype = buffer.element_type();
    if (auto error = DTypeValues<DTypes>::Match(dtype);
        XFFI_UNLIKELY(error.has_value())) {
      return error;
    }
    if (XFFI_UNLIKELY(dtype_.has_value() && dtype != *dtype_)) {
      return Streamed("expected dtype ", ValuePrinter<DType>{*dtype_},
                      " but got ", ValuePrinter<DType>{dtype});
    }
    Span<const int64_t> dims = buffer.dimensions();
    if (auto error = RankValues<Ranks>::Match(dims.size());
        XFFI_UNLIKELY(error.has_value())) {
      return error;
    }
    if (XFFI_UNLIKELY(rank_.has_value() && dims.size() != *rank_)) {
      return Streamed("expected rank ", *rank_, " but got ", dims.size());
    }
    if (XFFI_UNLIKELY(dimensions_.size() > dims.size())) {
      return Streamed("expected dimension ", dimensions_.size() - 1,
                      " but buffer rank is ", dims.size());
    }
    for (size_t i = 0; i < dimensions_.size(); ++i) {
      if (auto error = dimensions_[i].Match(dims[i], i);
          XFFI_UNLIKELY(error.has_value())) {
        return error;
      }
      if (XFFI_UNLIKELY(dimensions_[i].capture() != nullptr)) {
        if (auto error = CheckSameCapture(dims, i)) return error;
      }
    }
    return std::nullopt;
  }

  // Writes the captured extents; call only after Match succeeded.
  template <typename BufferType>
  void Capture(BufferType buffer) const {
    Span<const int64_t> dims = buffer.dimensions();
    size_t n = std::min(dimensions_.size(), dims.size());
    for (size_t i = 0; i < n; ++i) dimensions_[i].Capture(dims[i]);
  }

  // "a buffer with dtype F32 with rank 2 with dimensions [4, any dimension]"
  std::string Describe() const {
    std::ostringstream out;
    out << "a buffer";
    if (!DTypeValues<DTypes>::empty()) {
      out << " with " << DTypeValues<DTypes>::Describe();
    }
    if (dtype_.has_value()) {
      out << " with dtype " << ValuePrinter<DType>{*dtype_};
    }
    if (!RankValues<Ranks>::empty()) {
      out << " with " << RankValues<Ranks>::Describe();
    }
    if (rank_.has_value()) out << " with rank " << *rank_;
    if (!dimensions_.empty()) {
      out << " with dimensions [";
      for (size_t i = 0; i < dimensions_.size(); ++i) {
        out << (i == 0 ? "" : ", ") << dimensions_[i].Describe();
      }
      out << "]";
    }
    return out.str();
  }

 private:
  template <typename, typename>
  friend class BufferPatternBase;

  template <typename OtherDTypes, typename OtherRanks>
  explicit BufferPatternBase(
      const BufferPatternBase<OtherDTypes, OtherRanks>& other)
      : dtype_(other.dtype_),
        rank_(other.rank_),
        dimensions_(other.dimensions_) {
    if constexpr (DTypes::size() != 0) dtype_.reset();
    if constexpr (Ranks::size() != 0) rank_.reset();
  }

  // A capture already used at an earlier position must see the same extent.
  std::optional<std::string> CheckSameCapture(Span<const int64_t> dims,
                                              size_t i) const {
    int64_t* target = dimensions_[i].capture();
    for (size_t j = 0; j < i; ++j) {
      if (dimensions_[j].capture() != target) continue;
      if (dims[j] == dims[i]) return std::nullopt;
      return Streamed("expected dimension ", i, " to be ", dims[j], " but got ",
                      dims[i]);
    }
    return std::nullopt;
  }

  std::optional<DType> dtype_;
  std::optional<size_t> rank_;
  // Positions WithDim skipped over hold free dimensions.
  std::vector<match::DimPattern> dimensions_;
};

// nullopt and the captures written, or the message a failed match reports.
template <typename BufferType, typename Pattern>
XFFI_ALWAYS_INLINE std::optional<std::string> TryMatchBuffer(
    std::string_view name, BufferType buffer, const Pattern& pattern) {
  std::optional<std::string> error = pattern.Match(buffer);
  if (XFFI_UNLIKELY(error.has_value())) {
    return Streamed("Buffer '", name, "' failed to match ", pattern.Describe(),
                    ": ", *error);
  }
  pattern.Capture(buffer);
  return std::nullopt;
}

// The same through an error policy (ErrorPolicy here; XLA's internal FFI has
// its own).
template <typename Policy, typename BufferType, typename Pattern>
XFFI_ALWAYS_INLINE typename Policy::Status VerifyBuffer(
    std::string_view name, BufferType buffer, const Pattern& pattern) {
  if (auto error = TryMatchBuffer(name, buffer, pattern);
      XFFI_UNLIKELY(error.has_value())) {
    return Policy::FromErrorCode(XLA_FFI_Error_Code_INVALID_ARGUMENT, *error);
  }
  return Policy::Ok();
}

template <typename Policy, typename T, typename BufferType, typename Pattern,
          typename OnMatch>
XFFI_ALWAYS_INLINE typename Policy::template StatusOr<T> MatchBuffer(
    std::string_view name, BufferType buffer, const Pattern& pattern,
    OnMatch&& on_match) {
  using StatusOr = typename Policy::template StatusOr<T>;
  if (auto error = TryMatchBuffer(name, buffer, pattern);
      XFFI_UNLIKELY(error.has_value())) {
    return StatusOr(
        Policy::FromErrorCode(XLA_FFI_Error_Code_INVALID_ARGUMENT, *error));
  }
  return StatusOr(std::forward<OnMatch>(on_match)(buffer));
}

}  // namespace internal

namespace match {

template <typename DTypes = DTypeSet<DataType>, typename Ranks = RankSet<>>
using BufferPattern = internal::BufferPatternBase<DTypes, Ranks>;

// A pattern for Buffer<dtype, rank>: that dtype, and that rank unless
// dynamic.
template <DataType dtype, size_t rank = kDynamicRank>
auto Buffer() {
  if constexpr (rank == kDynamicRank) {
    return BufferPattern<DTypeSet<DataType, dtype>>();
  } else {
    return BufferPattern<DTypeSet<DataType, dtype>, RankSet<rank>>();
  }
}

// A pattern with no constraint yet.
inline BufferPattern<> Buffer() { return {}; }

}  // namespace match

// Success, or INVALID_ARGUMENT naming `name` and the failed constraint.
template <typename BufferType, typename DTypes, typename Ranks>
Error Verify(std::string_view name, BufferType buffer,
             const match::BufferPattern<DTypes, Ranks>& pattern) {
  return internal::VerifyBuffer<internal::ErrorPolicy>(name, buffer, pattern);
}

// An AnyBuffer as the Buffer<dtype, rank> a pattern of exactly one dtype and
// one rank stands for.
template <DataType dtype, size_t rank>
ErrorOr<Buffer<dtype, rank>> Match(
    std::string_view name, AnyBuffer buffer,
    const match::BufferPattern<match::DTypeSet<DataType, dtype>,
                               match::RankSet<rank>>& pattern) {
  return internal::MatchBuffer<internal::ErrorPolicy, Buffer<dtype, rank>>(
      name, buffer, pattern, [](AnyBuffer matched) {
        return Buffer<dtype, rank>(matched.c_buffer());
      });
}

// A typed buffer checked against any pattern, returned as it is.
template <DataType dtype, size_t rank, typename DTypes, typename Ranks>
ErrorOr<Buffer<dtype, rank>> Match(
    std::string_view name, Buffer<dtype, rank> buffer,
    const match::BufferPattern<DTypes, Ranks>& pattern) {
  return internal::MatchBuffer<internal::ErrorPolicy, Buffer<dtype, rank>>(
      name, buffer, pattern,
      [](Buffer<dtype, rank> matched) { return matched; });
}

namespace internal {

template <typename BufferType>
ErrorOr<Result<BufferType>> WrapResult(ErrorOr<BufferType> buffer) {
  if (buffer.has_error()) return std::move(buffer).error();
  return Result<BufferType>(std::move(buffer).value());
}

}  // namespace internal

// A result buffer, matched as the buffer it wraps.
template <typename BufferType, typename DTypes, typename Ranks>
auto Match(std::string_view name, Result<BufferType> buffer,
           const match::BufferPattern<DTypes, Ranks>& pattern) {
  return internal::WrapResult(Match(name, *buffer, pattern));
}

}  // namespace xffi::ffi

#endif  // XFFI_FFI_MATCH_H_
