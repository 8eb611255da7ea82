#include "cpu/fft_plan.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "cpu/fft_kernels.h"

namespace xffi::cpu::fft {
namespace {

// Appends exp(-2 pi i index / n) to `out` as (re, im), from the index
// reduced modulo n so the angle is exact before the one rounding of cos and
// sin.
template <typename T>
void AppendUnitRoot(int64_t index, int64_t n, std::vector<T>& out) {
  index %= n;
  double angle = -2.0 * std::numbers::pi * static_cast<double>(index) /
                 static_cast<double>(n);
  out.push_back(static_cast<T>(std::cos(angle)));
  out.push_back(static_cast<T>(std::sin(angle)));
}

int64_t LargestPrimeFactor(int64_t n) {
  int64_t largest = 1;
  for (int64_t f = 2; f * f <= n; ++f)
    while (n % f == 0) {
      largest = f;
      n /= f;
    }
  return n > 1 ? std::max(largest, n) : largest;
}

}  // namespace

int64_t NextSmoothLength(int64_t n) {
  for (int64_t candidate = std::max<int64_t>(n, 1);; ++candidate) {
    int64_t rest = candidate;
    for (int64_t f : {2, 3, 5})
      while (rest % f == 0) rest /= f;
    if (rest == 1) return candidate;
  }
}

template <typename T>
ComplexPlan<T>::ComplexPlan(int64_t n) {
  view_.n = n;
  if (n <= 1) return;
  if (LargestPrimeFactor(n) > kLargestRadix) {
    const int64_t m = NextSmoothLength(2 * n - 1);
    convolution_ = std::make_unique<ComplexPlan>(m);
    for (int64_t j = 0; j < n; ++j) {
      // exp(-pi i j^2 / n) = exp(-2 pi i (j^2 mod 2n) / 2n)
      const int64_t index = (j % (2 * n)) * (j % (2 * n)) % (2 * n);
      AppendUnitRoot<T>(index, 2 * n, chirp_);
    }
    // The filter conj(c[j]) placed cyclically (j and m - j), transformed.
    filter_.assign(static_cast<size_t>(2 * m), T(0));
    for (int64_t j = 0; j < n; ++j) {
      const T re = chirp_[static_cast<size_t>(2 * j)];
      const T im = -chirp_[static_cast<size_t>(2 * j + 1)];
      for (int64_t at : {j, (m - j) % m}) {
        filter_[static_cast<size_t>(2 * at)] = re;
        filter_[static_cast<size_t>(2 * at + 1)] = im;
      }
    }
    ForwardOne<T>(convolution_->view(), filter_.data());
    const T inverse_m = T(1) / static_cast<T>(m);
    for (T& v : filter_) v *= inverse_m;
    view_.convolution = &convolution_->view();
    view_.chirp = chirp_.data();
    view_.filter = filter_.data();
    return;
  }
  // Radix 8 first: each pass streams the whole sequence through memory,
  // and a radix-8 pass does the work of 1.5 radix-4 ones.
  std::vector<int64_t> radices;
  int64_t rest = n;
  while (rest % 8 == 0) {
    radices.push_back(8);
    rest /= 8;
  }
  if (rest % 4 == 0) {
    radices.push_back(4);
    rest /= 4;
  }
  for (int64_t f = 2; f <= rest; ++f)
    while (rest % f == 0) {
      radices.push_back(f);
      rest /= f;
    }
  int64_t length = n, stride = 1;
  for (int64_t radix : radices) {
    PlanStage stage;
    stage.radix = radix;
    stage.m = length / radix;
    stage.stride = stride;
    stage.twiddle_offset = static_cast<int64_t>(twiddles_.size()) / 2;
    for (int64_t p = 0; p < stage.m; ++p)
      for (int64_t k = 1; k < radix; ++k)
        AppendUnitRoot<T>(p * k, length, twiddles_);
    if (radix != 2 && radix != 3 && radix != 4 && radix != 5 && radix != 8) {
      stage.rotation_offset = static_cast<int64_t>(rotations_.size()) / 2;
      for (int64_t k = 0; k < radix; ++k)
        AppendUnitRoot<T>(k, radix, rotations_);
    }
    stages_.push_back(stage);
    length = stage.m;
    stride *= radix;
  }
  view_.stages = stages_.data();
  view_.stage_count = static_cast<int64_t>(stages_.size());
  view_.twiddles = twiddles_.data();
  view_.rotations = rotations_.data();
}

template <typename T>
ComplexPlan<T>::~ComplexPlan() = default;

template class ComplexPlan<float>;
template class ComplexPlan<double>;

template <typename T>
RealPlan<T>::RealPlan(int64_t n) : half_(n / 2) {
  for (int64_t k = 0; k <= n / 2; ++k) AppendUnitRoot<T>(k, n, twiddles_);
  view_.n = n;
  view_.half = &half_.view();
  view_.twiddles = twiddles_.data();
}

template class RealPlan<float>;
template class RealPlan<double>;

}  // namespace xffi::cpu::fft
