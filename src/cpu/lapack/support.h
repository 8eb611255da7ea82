// xffi: what the built-in LAPACK targets share: the attribute enums of
// jaxlib's lowering, buffers read as batches of column-major matrices, the
// checks that keep shapes LAPACK would reject (or overrun) away from it, and
// workspaces.
//
// Every handler checks its operands and results against each other before it
// calls LAPACK: the program that calls a target is only known to be
// well-typed, not to agree with the routine, and reference LAPACK's answer to
// a bad argument (XERBLA) stops the process. A mismatch is INVALID_ARGUMENT
// naming the target and the argument; what LAPACK itself reports about the
// data (a singular matrix, no convergence) goes to the info result, as in
// jaxlib.
#ifndef XFFI_SRC_CPU_LAPACK_SUPPORT_H_
#define XFFI_SRC_CPU_LAPACK_SUPPORT_H_

#include <algorithm>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "cpu/lapack/routines.h"
#include "xffi/ffi.h"

namespace xffi::cpu::lapack {

namespace ffi = ::xffi::ffi;

// Attributes, with jaxlib's character codes (the u8 attributes of the text
// JAX prints: 76 is 'L', 85 'U', 78 'N', ...).
enum class Side : uint8_t { kLeft = 'L', kRight = 'R' };
enum class UpLo : uint8_t { kLower = 'L', kUpper = 'U' };
enum class Diag : uint8_t { kNonUnit = 'N', kUnit = 'U' };
enum class Transpose : uint8_t {
  kNone = 'N',
  kTranspose = 'T',
  kAdjoint = 'C'
};
// gesdd's jobz and gesvd's jobu/jobvt, the attribute 'mode'.
enum class SvdJob : uint8_t {
  kAll = 'A',
  kReduced = 'S',
  kOverwrite = 'O',
  kNone = 'N'
};
// Whether to compute vectors: geev's compute_left/compute_right, syevd's
// and gees' mode.
enum class Vectors : uint8_t { kNone = 'N', kCompute = 'V' };
enum class EigenvalueSort : uint8_t { kNone = 'N', kSort = 'S' };

}  // namespace xffi::cpu::lapack

XFFI_REGISTER_ENUM_ATTR_DECODING(xffi::cpu::lapack::Side);
XFFI_REGISTER_ENUM_ATTR_DECODING(xffi::cpu::lapack::UpLo);
XFFI_REGISTER_ENUM_ATTR_DECODING(xffi::cpu::lapack::Diag);
XFFI_REGISTER_ENUM_ATTR_DECODING(xffi::cpu::lapack::Transpose);
XFFI_REGISTER_ENUM_ATTR_DECODING(xffi::cpu::lapack::SvdJob);
XFFI_REGISTER_ENUM_ATTR_DECODING(xffi::cpu::lapack::Vectors);
XFFI_REGISTER_ENUM_ATTR_DECODING(xffi::cpu::lapack::EigenvalueSort);

namespace xffi::cpu::lapack {

// The name of the running target, for messages; formatted only on failure.
class Target {
 public:
  // jaxlib's LAPACK name: Target(F32, "getrf") is lapack_sgetrf_ffi.
  constexpr Target(ffi::DataType dtype, const char* routine)
      : dtype_(dtype), name_(routine) {}
  // A target whose name does not depend on the dtype.
  static constexpr Target Named(const char* name) {
    return Target(ffi::DataType::INVALID, name);
  }

  std::string name() const;
  // INVALID_ARGUMENT "<name>: <what>".
  ffi::Error Invalid(std::string_view what) const;

 private:
  ffi::DataType dtype_;
  const char* name_;
};

// A buffer [batch..., rows, cols] as `batch` matrices, each column-major
// (the layout jaxlib's lowering asks for).
struct Matrices {
  ffi::Span<const int64_t> batch_dims;
  int64_t batch = 1;  // the product of batch_dims
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t size() const { return rows * cols; }
};

// The checks a handler runs before it calls LAPACK. The first failure is
// kept and later checks do nothing (their inputs may come from a failed
// one), so a handler runs them all and then asks ok() once.
class Checker {
 public:
  explicit Checker(Target target) : target_(target) {}

  // Reads `dims` of the buffer `what` ("argument 0 (x)") as matrices: its
  // rank must be at least 2 and each matrix dimension fit LAPACK's INTEGER.
  Matrices ReadMatrices(std::string_view what, ffi::Span<const int64_t> dims);
  // `dims` must be `batch_dims` followed by `tail`.
  void Shape(std::string_view what, ffi::Span<const int64_t> dims,
             ffi::Span<const int64_t> batch_dims,
             std::initializer_list<int64_t> tail);
  // An enum attribute must hold one of `allowed` (decoding only checked its
  // type, not its value).
  template <typename E>
  void OneOf(std::string_view attribute, E value,
             std::initializer_list<E> allowed) {
    std::string codes;
    for (E e : allowed) codes += static_cast<char>(e);
    Code(attribute, static_cast<uint8_t>(value), codes);
  }
  // Fails with "<target>: <what>".
  void Fail(std::string_view what);

  bool ok() const { return error_.success(); }
  ffi::Error error() && { return std::move(error_); }
  const Target& target() const { return target_; }

 private:
  void Code(std::string_view attribute, uint8_t value,
            std::string_view allowed);

  Target target_;
  ffi::Error error_;
};

// A dimension already known to fit (ReadMatrices checked it).
inline Int AsInt(int64_t value) { return static_cast<Int>(value); }

// LAPACK's leading dimension of a matrix with `rows` rows: at least 1, even
// for an empty matrix.
inline Int LeadingDim(int64_t rows) {
  return static_cast<Int>(std::max<int64_t>(rows, 1));
}

// The size a workspace query answered (in WORK(1), as a T), rounded up and
// at least `minimum`; an error when it does not fit LAPACK's INTEGER.
template <typename T>
ffi::ErrorOr<Int> QueriedSize(const Target& target, T answer,
                              int64_t minimum = 1) {
  // Single precision cannot hold every integer: a size just above 2^24
  // comes back rounded, possibly down, so round up by a few ulp.
  using Real = decltype(std::real(answer));
  long double size = static_cast<long double>(std::real(answer));
  size *=
      1 + 4 * static_cast<long double>(std::numeric_limits<Real>::epsilon());
  if (!(size <= static_cast<long double>(std::numeric_limits<Int>::max()))) {
    return target.Invalid(
        "LAPACK asks for a workspace of more than 2^31-1 "
        "elements");
  }
  int64_t rounded = static_cast<int64_t>(size);
  if (static_cast<long double>(rounded) < size) ++rounded;
  return static_cast<Int>(std::max<int64_t>(rounded, minimum));
}

// Scratch memory for one call, left uninitialised, never empty.
template <typename T>
std::unique_ptr<T[]> Scratch(int64_t count) {
  return std::make_unique_for_overwrite<T[]>(
      static_cast<size_t>(std::max<int64_t>(count, 1)));
}

// Copies an operand into its result unless they share a buffer (the
// lowering aliases them; the executor may still give separate buffers).
template <typename T>
void CopyIfDifferent(const T* from, T* to, size_t count) {
  if (from != to) std::copy_n(from, count, to);
}

template <typename T>
inline constexpr bool kIsComplex =
    std::is_same_v<T, C64> || std::is_same_v<T, C128>;

// An INTERNAL error for an info < 0 that the checks above should have
// prevented: LAPACK refused argument -info.
ffi::Error IllegalArgument(const Target& target, const char* routine, Int info);

// A workspace of the size LAPACK asked for.
template <typename T>
struct Workspace {
  std::unique_ptr<T[]> data;
  Int size = 0;
};

// Runs `query(answer, lwork, status)`, the routine with LWORK = -1 (LAPACK's
// workspace query; the routine reads only dimensions then), and allocates
// what it answered, at least `minimum` elements.
template <typename T, typename Query>
ffi::ErrorOr<Workspace<T>> QueryWorkspace(const Target& target,
                                          const char* routine, int64_t minimum,
                                          Query&& query) {
  T answer{};
  Int status = 0;
  const Int ask = -1;
  query(&answer, &ask, &status);
  if (status < 0) return IllegalArgument(target, routine, status);
  ffi::ErrorOr<Int> size = QueriedSize(target, answer, minimum);
  if (size.has_error()) return size.error();
  return Workspace<T>{Scratch<T>(*size), *size};
}

// Runs a routine that takes a workspace on every matrix of a batch:
// `call(i, work, lwork, status)` runs it on matrix i (i = 0 with lwork = -1
// sizes the workspace, at least `minimum_work` elements, first). Each status
// lands in info[i] when the target has an info result; without one
// (info null) a negative status is an error.
template <typename T, typename Call>
ffi::Error RunBatch(const Target& target, const char* routine, int64_t batch,
                    int64_t minimum_work, int32_t* info, Call&& call) {
  ffi::ErrorOr<Workspace<T>> work =
      QueryWorkspace<T>(target, routine, minimum_work,
                        [&](T* answer, const Int* lwork, Int* status) {
                          call(0, answer, lwork, status);
                        });
  if (work.has_error()) return work.error();
  for (int64_t i = 0; i < batch; ++i) {
    Int status = 0;
    call(i, work->data.get(), &work->size, &status);
    if (info != nullptr) {
      info[i] = status;
    } else if (status < 0) {
      return IllegalArgument(target, routine, status);
    }
  }
  return ffi::Error::Success();
}

// What a handler returns when its batch or its matrices are empty: nothing
// to factor, every info 0.
inline ffi::Error NothingToCompute(int32_t* info, int64_t batch) {
  std::fill_n(info, batch, 0);
  return ffi::Error::Success();
}

}  // namespace xffi::cpu::lapack

#endif  // XFFI_SRC_CPU_LAPACK_SUPPORT_H_
