#include "cpu/lapack/support.h"

#include <string>

namespace xffi::cpu::lapack {
namespace {

char DtypeLetter(ffi::DataType dtype) {
  switch (dtype) {
    case ffi::DataType::F32:
      return 's';
    case ffi::DataType::F64:
      return 'd';
    case ffi::DataType::C64:
      return 'c';
    case ffi::DataType::C128:
      return 'z';
    default:
      return '?';
  }
}

std::string ShapeText(ffi::Span<const int64_t> dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

}  // namespace

std::string Target::name() const {
  if (dtype_ == ffi::DataType::INVALID) return name_;
  return std::string("lapack_") + DtypeLetter(dtype_) + name_ + "_ffi";
}

ffi::Error Target::Invalid(std::string_view what) const {
  return ffi::Error::InvalidArgument(name() + ": " + std::string(what));
}

Matrices Checker::ReadMatrices(std::string_view what,
                               ffi::Span<const int64_t> dims) {
  Matrices m;
  if (!ok()) return m;
  if (dims.size() < 2) {
    Fail(std::string(what) +
         " must be a matrix or a batch of matrices (rank >= 2), got shape " +
         ShapeText(dims));
    return m;
  }
  m.batch_dims = ffi::Span<const int64_t>(dims.data(), dims.size() - 2);
  for (int64_t d : m.batch_dims) m.batch *= d;
  m.rows = dims[dims.size() - 2];
  m.cols = dims[dims.size() - 1];
  constexpr int64_t kMax = std::numeric_limits<Int>::max();
  if (m.rows > kMax || m.cols > kMax) {
    Fail(std::string(what) + " has shape " + ShapeText(dims) +
         "; LAPACK's 32-bit integers hold matrix dimensions up to "
         "2147483647");
  }
  return m;
}

void Checker::Shape(std::string_view what, ffi::Span<const int64_t> dims,
                    ffi::Span<const int64_t> batch_dims,
                    std::initializer_list<int64_t> tail) {
  if (!ok()) return;
  bool same = dims.size() == batch_dims.size() + tail.size();
  for (size_t i = 0; same && i < batch_dims.size(); ++i)
    same = dims[i] == batch_dims[i];
  size_t i = batch_dims.size();
  for (int64_t d : tail) {
    if (!same) break;
    same = dims[i++] == d;
  }
  if (same) return;
  std::string expected = "[";
  for (int64_t d : batch_dims) expected += std::to_string(d) + ",";
  for (int64_t d : tail) expected += std::to_string(d) + ",";
  if (expected.size() > 1) expected.pop_back();
  expected += "]";
  Fail(std::string(what) + " has shape " + ShapeText(dims) + "; expected " +
       expected);
}

void Checker::Code(std::string_view attribute, uint8_t value,
                   std::string_view allowed) {
  if (!ok()) return;
  if (value != 0 &&
      allowed.find(static_cast<char>(value)) != std::string_view::npos) {
    return;
  }
  std::string choices;
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (i > 0) choices += i + 1 == allowed.size() ? " or " : ", ";
    choices += "'" + std::string(1, allowed[i]) + "' (" +
               std::to_string(static_cast<uint8_t>(allowed[i])) + ")";
  }
  Fail("attribute '" + std::string(attribute) + "' is " +
       std::to_string(value) + "; expected " + choices);
}

void Checker::Fail(std::string_view what) {
  if (ok()) error_ = target_.Invalid(what);
}

ffi::Error IllegalArgument(const Target& target, const char* routine,
                           Int info) {
  return ffi::Error::Internal(target.name() + ": LAPACK's " + routine +
                              " refused its argument " + std::to_string(-info) +
                              " (a bug in xffi's checks)");
}

}  // namespace xffi::cpu::lapack
