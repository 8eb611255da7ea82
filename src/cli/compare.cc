#include "cli/compare.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <sstream>

#include "ir/float_types.h"

namespace xffi {
namespace {

double FloatAt(const Literal& literal, ElementType type, size_t i) {
  const void* data = literal.data();
  switch (type) {
    case ElementType::kF32:
      return static_cast<const float*>(data)[i];
    case ElementType::kF64:
      return static_cast<const double*>(data)[i];
    case ElementType::kF16:
      return HalfToFloat(static_cast<const uint16_t*>(data)[i]);
    case ElementType::kBF16:
      return BFloat16ToFloat(static_cast<const uint16_t*>(data)[i]);
    default:
      return NarrowFloatToDouble(type, static_cast<const uint8_t*>(data)[i]);
  }
}

std::complex<double> ComplexAt(const Literal& literal, ElementType type,
                               size_t i) {
  if (type == ElementType::kC64) return literal.data<std::complex<float>>()[i];
  return literal.data<std::complex<double>>()[i];
}

// Updates max_error with finite differences.
bool Close(double got, double want, double tolerance, double* max_error) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  double error = std::fabs(got - want);
  if (std::isnan(error)) return false;
  if (error > *max_error) *max_error = error;
  return error <= tolerance * (1 + std::fabs(want));
}

std::string Text(double value) {
  std::ostringstream out;
  out.precision(9);
  out << value;
  return out.str();
}

}  // namespace

double DefaultTolerance(ElementType type) {
  switch (type) {
    case ElementType::kF16:
      return 2e-3;
    case ElementType::kBF16:
      return 1.6e-2;
    case ElementType::kF64:
    case ElementType::kC128:
      return 1e-12;
    case ElementType::kF32:
    case ElementType::kC64:
      return 1e-5;
    default:  // 8- and 4-bit floats: two ulp at 1.0 of the coarsest
      return 0.25;
  }
}

Comparison CompareLiterals(const Literal& got, const Literal& want,
                           std::optional<double> tolerance) {
  Comparison result;
  if (!got.shape().IsArray() || !want.shape().IsArray() ||
      !got.shape().Compatible(want.shape().WithoutLayout())) {
    result.ok = false;
    result.detail = "shape " + got.shape().ToString(false) + ", expected " +
                    want.shape().ToString(false);
    return result;
  }
  const ElementType type = want.shape().element_type();
  const double tol = tolerance.value_or(DefaultTolerance(type));
  const size_t count = static_cast<size_t>(want.shape().num_elements());
  std::ostringstream examples;
  auto mismatch = [&](size_t i, const std::string& g, const std::string& w) {
    if (result.mismatches++ < 5) {
      examples << " [" << i << "] " << g << " vs " << w << ";";
    }
  };
  if (IsComplexType(type)) {
    for (size_t i = 0; i < count; ++i) {
      std::complex<double> g = ComplexAt(got, type, i);
      std::complex<double> w = ComplexAt(want, type, i);
      bool real = Close(g.real(), w.real(), tol, &result.max_error);
      bool imag = Close(g.imag(), w.imag(), tol, &result.max_error);
      if (!real || !imag) {
        mismatch(i, "(" + Text(g.real()) + "," + Text(g.imag()) + ")",
                 "(" + Text(w.real()) + "," + Text(w.imag()) + ")");
      }
    }
  } else if (IsFloatingType(type)) {
    for (size_t i = 0; i < count; ++i) {
      double g = FloatAt(got, type, i), w = FloatAt(want, type, i);
      if (!Close(g, w, tol, &result.max_error)) mismatch(i, Text(g), Text(w));
    }
  } else {
    const size_t size = ElementByteSize(type);
    const auto* g = static_cast<const unsigned char*>(got.data());
    const auto* w = static_cast<const unsigned char*>(want.data());
    for (size_t i = 0; i < count; ++i) {
      if (std::memcmp(g + i * size, w + i * size, size) == 0) continue;
      Shape scalar = Shape::Scalar(type);
      mismatch(i,
               Literal::FromBytes(scalar, g + i * size, size).ValueToString(),
               Literal::FromBytes(scalar, w + i * size, size).ValueToString());
    }
  }
  if (result.mismatches > 0) {
    result.ok = false;
    result.detail = std::to_string(result.mismatches) + " of " +
                    std::to_string(count) +
                    " elements differ:" + examples.str();
  }
  return result;
}

}  // namespace xffi
