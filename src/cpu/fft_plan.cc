#include "cpu/fft_plan.h"

#include <cmath>
#include <numbers>
#include <utility>

namespace xffi::cpu::fft {
namespace {

// exp(-2 pi i index / n), from the index reduced modulo n so the angle is
// exact before the one rounding of cos and sin.
template <typename T>
std::complex<T> UnitRoot(int64_t index, int64_t n) {
  index %= n;
  double angle = -2.0 * std::numbers::pi * static_cast<double>(index) /
                 static_cast<double>(n);
  return {static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle))};
}

template <typename T, int L>
inline Pack<T, L> Add(const Pack<T, L>& a, const Pack<T, L>& b) {
  return {a.re + b.re, a.im + b.im};
}
template <typename T, int L>
inline Pack<T, L> Sub(const Pack<T, L>& a, const Pack<T, L>& b) {
  return {a.re - b.re, a.im - b.im};
}
// a * -i
template <typename T, int L>
inline Pack<T, L> MulMinusI(const Pack<T, L>& a) {
  return {a.im, -a.re};
}
template <typename T, int L>
inline Pack<T, L> Scale(const Pack<T, L>& a, T f) {
  return {a.re * f, a.im * f};
}
template <typename T, int L>
inline Pack<T, L> Mul(const Pack<T, L>& a, std::complex<T> w) {
  const T wr = w.real(), wi = w.imag();
  return {a.re * wr - a.im * wi, a.re * wi + a.im * wr};
}
template <typename T, int L>
inline Pack<T, L> Conj(const Pack<T, L>& a) {
  return {a.re, -a.im};
}

// One Stockham pass of radix R over L sequences: x holds `m * R` blocks of
// `s` elements, y receives them transformed and reordered.
template <typename T, int L, int R>
void FixedPass(const Pack<T, L>* x, Pack<T, L>* y, int64_t m, int64_t s,
               const std::complex<T>* twiddles) {
  using P = Pack<T, L>;
  for (int64_t p = 0; p < m; ++p) {
    const std::complex<T>* w = twiddles + p * (R - 1);
    for (int64_t q = 0; q < s; ++q) {
      const P* in = x + q + s * p;
      P* out = y + q + s * R * p;
      P b[R];
      if constexpr (R == 2) {
        P a0 = in[0], a1 = in[s * m];
        b[0] = Add(a0, a1);
        b[1] = Sub(a0, a1);
      } else if constexpr (R == 3) {
        constexpr T kHalfSqrt3 = static_cast<T>(0.86602540378443864676);
        P a0 = in[0], a1 = in[s * m], a2 = in[2 * s * m];
        P t = Add(a1, a2);
        b[0] = Add(a0, t);
        P mid = Sub(a0, Scale(t, T(0.5)));
        P d = Scale(MulMinusI(Sub(a1, a2)), kHalfSqrt3);
        b[1] = Add(mid, d);
        b[2] = Sub(mid, d);
      } else if constexpr (R == 4) {
        P a0 = in[0], a1 = in[s * m], a2 = in[2 * s * m], a3 = in[3 * s * m];
        P t0 = Add(a0, a2), t1 = Sub(a0, a2);
        P t2 = Add(a1, a3), t3 = MulMinusI(Sub(a1, a3));
        b[0] = Add(t0, t2);
        b[1] = Add(t1, t3);
        b[2] = Sub(t0, t2);
        b[3] = Sub(t1, t3);
      } else {
        static_assert(R == 5);
        constexpr T c1 = static_cast<T>(0.30901699437494742410);
        constexpr T c2 = static_cast<T>(-0.80901699437494742410);
        constexpr T s1 = static_cast<T>(0.95105651629515357212);
        constexpr T s2 = static_cast<T>(0.58778525229247312917);
        P a0 = in[0], a1 = in[s * m], a2 = in[2 * s * m], a3 = in[3 * s * m],
          a4 = in[4 * s * m];
        P t1 = Add(a1, a4), t2 = Add(a2, a3);
        P t3 = Sub(a1, a4), t4 = Sub(a2, a3);
        b[0] = Add(a0, Add(t1, t2));
        P m1 = Add(a0, Add(Scale(t1, c1), Scale(t2, c2)));
        P m2 = Add(a0, Add(Scale(t1, c2), Scale(t2, c1)));
        P n1 = MulMinusI(Add(Scale(t3, s1), Scale(t4, s2)));
        P n2 = MulMinusI(Sub(Scale(t3, s2), Scale(t4, s1)));
        b[1] = Add(m1, n1);
        b[4] = Sub(m1, n1);
        b[2] = Add(m2, n2);
        b[3] = Sub(m2, n2);
      }
      out[0] = b[0];
      if (p == 0) {
        for (int k = 1; k < R; ++k) out[s * k] = b[k];
      } else {
        for (int k = 1; k < R; ++k) out[s * k] = Mul(b[k], w[k - 1]);
      }
    }
  }
}

// A pass of any odd prime radix r <= kLargestRadix: the DFT of r points by
// its symmetric and antisymmetric halves, O(r^2 / 2) per butterfly.
template <typename T, int L>
void GenericPass(const Pack<T, L>* x, Pack<T, L>* y, int64_t r, int64_t m,
                 int64_t s, const std::complex<T>* twiddles,
                 const std::complex<T>* rotations) {
  using P = Pack<T, L>;
  const int64_t half = (r - 1) / 2;
  P sums[kLargestRadix], diffs[kLargestRadix];
  for (int64_t p = 0; p < m; ++p) {
    const std::complex<T>* w = twiddles + p * (r - 1);
    for (int64_t q = 0; q < s; ++q) {
      const P* in = x + q + s * p;
      P* out = y + q + s * r * p;
      const P a0 = in[0];
      P total = a0;
      for (int64_t j = 1; j <= half; ++j) {
        const P aj = in[s * m * j], ar = in[s * m * (r - j)];
        sums[j] = Add(aj, ar);
        diffs[j] = Sub(aj, ar);
        total = Add(total, sums[j]);
      }
      out[0] = total;
      for (int64_t k = 1; k <= half; ++k) {
        P mid = a0, odd{};
        for (int64_t j = 1; j <= half; ++j) {
          const std::complex<T> rot = rotations[(j * k) % r];
          mid = Add(mid, Scale(sums[j], rot.real()));
          // rot.imag() is -sin: accumulate -i * sin * diff.
          odd = Add(odd, Scale(diffs[j], -rot.imag()));
        }
        const P n = MulMinusI(odd);
        P plus = Add(mid, n), minus = Sub(mid, n);
        if (p != 0) {
          plus = Mul(plus, w[k - 1]);
          minus = Mul(minus, w[r - k - 1]);
        }
        out[s * k] = plus;
        out[s * (r - k)] = minus;
      }
    }
  }
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
ComplexPlan<T>::ComplexPlan(int64_t n) : n_(n) {
  if (n <= 1) return;
  if (LargestPrimeFactor(n) > kLargestRadix) {
    const int64_t m = NextSmoothLength(2 * n - 1);
    convolution_ = std::make_unique<ComplexPlan>(m);
    chirp_.resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      // exp(-pi i j^2 / n) = exp(-2 pi i (j^2 mod 2n) / 2n)
      const int64_t index = (j % (2 * n)) * (j % (2 * n)) % (2 * n);
      chirp_[static_cast<size_t>(j)] = UnitRoot<T>(index, 2 * n);
    }
    std::vector<Pack<T, 1>> filter(static_cast<size_t>(m)),
        scratch(static_cast<size_t>(convolution_->scratch_size()));
    for (auto& f : filter) f = {T(0), T(0)};
    for (int64_t j = 0; j < n; ++j) {
      std::complex<T> c = std::conj(chirp_[static_cast<size_t>(j)]);
      filter[static_cast<size_t>(j)] = {c.real(), c.imag()};
      if (j > 0) filter[static_cast<size_t>(m - j)] = {c.real(), c.imag()};
    }
    Pack<T, 1>* transformed =
        convolution_->template Forward<1>(filter.data(), scratch.data());
    filter_.resize(static_cast<size_t>(m));
    const T inverse_m = T(1) / static_cast<T>(m);
    for (int64_t k = 0; k < m; ++k)
      filter_[static_cast<size_t>(k)] = {transformed[k].re * inverse_m,
                                         transformed[k].im * inverse_m};
    return;
  }
  std::vector<int64_t> radices;
  int64_t rest = n;
  while (rest % 4 == 0) {
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
    Stage stage;
    stage.radix = radix;
    stage.m = length / radix;
    stage.stride = stride;
    stage.twiddle_offset = static_cast<int64_t>(twiddles_.size());
    for (int64_t p = 0; p < stage.m; ++p)
      for (int64_t k = 1; k < radix; ++k)
        twiddles_.push_back(UnitRoot<T>(p * k, length));
    if (radix != 2 && radix != 3 && radix != 4 && radix != 5) {
      stage.rotation_offset = static_cast<int64_t>(rotations_.size());
      for (int64_t k = 0; k < radix; ++k)
        rotations_.push_back(UnitRoot<T>(k, radix));
    }
    stages_.push_back(stage);
    length = stage.m;
    stride *= radix;
  }
}

template <typename T>
ComplexPlan<T>::~ComplexPlan() = default;

template <typename T>
int64_t ComplexPlan<T>::scratch_size() const {
  if (convolution_) return 2 * convolution_->size();
  return n_;
}

template <typename T>
template <int L>
Pack<T, L>* ComplexPlan<T>::Forward(Pack<T, L>* data,
                                    Pack<T, L>* scratch) const {
  if (convolution_) {
    Bluestein<L>(data, scratch);
    return data;
  }
  return Stockham<L>(data, scratch);
}

template <typename T>
template <int L>
Pack<T, L>* ComplexPlan<T>::Stockham(Pack<T, L>* data,
                                     Pack<T, L>* scratch) const {
  Pack<T, L>*x = data, *y = scratch;
  for (const Stage& stage : stages_) {
    const std::complex<T>* w = twiddles_.data() + stage.twiddle_offset;
    switch (stage.radix) {
      case 2:
        FixedPass<T, L, 2>(x, y, stage.m, stage.stride, w);
        break;
      case 3:
        FixedPass<T, L, 3>(x, y, stage.m, stage.stride, w);
        break;
      case 4:
        FixedPass<T, L, 4>(x, y, stage.m, stage.stride, w);
        break;
      case 5:
        FixedPass<T, L, 5>(x, y, stage.m, stage.stride, w);
        break;
      default:
        GenericPass<T, L>(x, y, stage.radix, stage.m, stage.stride, w,
                          rotations_.data() + stage.rotation_offset);
    }
    std::swap(x, y);
  }
  return x;
}

template <typename T>
template <int L>
void ComplexPlan<T>::Bluestein(Pack<T, L>* data, Pack<T, L>* scratch) const {
  // X[k] = c[k] * sum_j (x[j] c[j]) conj(c[k - j]) with c the chirp: a
  // cyclic convolution of length m, done as forward transforms (the inverse
  // one by conjugation).
  const int64_t m = convolution_->size();
  Pack<T, L>*a = scratch, *other = scratch + m;
  for (int64_t j = 0; j < n_; ++j) a[j] = Mul(data[j], chirp_[j]);
  for (int64_t j = n_; j < m; ++j) a[j] = Pack<T, L>{};
  Pack<T, L>* spectrum = convolution_->template Forward<L>(a, other);
  Pack<T, L>* free = spectrum == a ? other : a;
  for (int64_t k = 0; k < m; ++k)
    spectrum[k] = Conj(Mul(spectrum[k], filter_[k]));
  Pack<T, L>* convolved = convolution_->template Forward<L>(spectrum, free);
  for (int64_t k = 0; k < n_; ++k) data[k] = Mul(Conj(convolved[k]), chirp_[k]);
}

template class ComplexPlan<float>;
template class ComplexPlan<double>;
template Pack<float, 1>* ComplexPlan<float>::Forward<1>(Pack<float, 1>*,
                                                        Pack<float, 1>*) const;
template Pack<float, kLanes<float>>* ComplexPlan<float>::Forward<kLanes<float>>(
    Pack<float, kLanes<float>>*, Pack<float, kLanes<float>>*) const;
template Pack<double, 1>* ComplexPlan<double>::Forward<1>(
    Pack<double, 1>*, Pack<double, 1>*) const;
template Pack<double, kLanes<double>>*
ComplexPlan<double>::Forward<kLanes<double>>(
    Pack<double, kLanes<double>>*, Pack<double, kLanes<double>>*) const;

}  // namespace xffi::cpu::fft
