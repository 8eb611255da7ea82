// xffi: the batched FFT at one lane count, compiled once per vector width.
//
// Included only by fft_kernels_128/256/512.cc, each compiled for its own
// instruction set. Everything here has internal linkage and touches only
// its own types, plain pointers and builtins: an inline function of a
// shared type (std::complex, say) instantiated here would be a weak symbol
// the linker may pick for every translation unit, AVX instructions and all.
//
// Element j of L sequences is one Pack, whose lanes are GCC vector lanes
// (the approach DUCC, which XLA:CPU calls, takes for batches). A real
// transform of even length n is a complex one of n / 2 (the row's even- and
// odd-indexed values as real and imaginary parts) and a pass that separates
// the halves' spectra by their symmetry; one of odd length puts two real
// rows into the real and imaginary parts of one complex sequence. Either
// way half the work of a complex transform of n per row.
#ifndef XFFI_SRC_CPU_FFT_LANES_H_
#define XFFI_SRC_CPU_FFT_LANES_H_

#include <cstdint>
#include <cstring>
#include <utility>

#include "cpu/fft_kernels.h"

namespace xffi::cpu::fft {
namespace {

// L lanes of T as one vector value (L = 1: T itself).
template <typename T, int L>
struct LaneVector {
  typedef T type __attribute__((vector_size(sizeof(T) * L)));
};
template <typename T>
struct LaneVector<T, 1> {
  using type = T;
};

// One complex element of L sequences, real and imaginary parts split.
template <typename T, int L>
struct Pack {
  using V = typename LaneVector<T, L>::type;
  V re, im;
};
template <typename T, int L>
using Vec = typename Pack<T, L>::V;

template <typename T>
struct ComplexOf {
  T re, im;
};

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
// a * w, w one interleaved complex value (broadcast to every lane).
template <typename T, int L>
inline Pack<T, L> Mul(const Pack<T, L>& a, const T* w) {
  const T wr = w[0], wi = w[1];
  return {a.re * wr - a.im * wi, a.re * wi + a.im * wr};
}
// a * conj(w), w as for Mul.
template <typename T, int L>
inline Pack<T, L> MulConj(const Pack<T, L>& a, const T* w) {
  const T wr = w[0], wi = w[1];
  return {a.re * wr + a.im * wi, a.im * wr - a.re * wi};
}
template <typename T, int L>
inline Pack<T, L> Conj(const Pack<T, L>& a) {
  return {a.re, -a.im};
}

// One Stockham pass of radix R over L sequences: x holds `m * R` blocks of
// `s` elements, y receives them transformed and reordered.
template <typename T, int L, int R>
void FixedPass(const Pack<T, L>* x, Pack<T, L>* y, int64_t m, int64_t s,
               const T* twiddles) {
  using P = Pack<T, L>;
  for (int64_t p = 0; p < m; ++p) {
    const T* w = twiddles + 2 * p * (R - 1);
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
      } else if constexpr (R == 8) {
        // Two 4-point DFTs (even and odd inputs) joined by W8^k.
        constexpr T kHalfSqrt2 = static_cast<T>(0.70710678118654752440);
        const P a0 = in[0], a1 = in[s * m], a2 = in[2 * s * m],
                a3 = in[3 * s * m], a4 = in[4 * s * m], a5 = in[5 * s * m],
                a6 = in[6 * s * m], a7 = in[7 * s * m];
        const P t0 = Add(a0, a4), t1 = Sub(a0, a4);
        const P t2 = Add(a2, a6), t3 = MulMinusI(Sub(a2, a6));
        const P e0 = Add(t0, t2), e2 = Sub(t0, t2);
        const P e1 = Add(t1, t3), e3 = Sub(t1, t3);
        const P u0 = Add(a1, a5), u1 = Sub(a1, a5);
        const P u2 = Add(a3, a7), u3 = MulMinusI(Sub(a3, a7));
        const P o0 = Add(u0, u2), o2 = MulMinusI(Sub(u0, u2));
        const P v1 = Add(u1, u3), v3 = Sub(u1, u3);
        // o1 = W8 v1 = (1 - i) v1 / sqrt 2, o3 = W8^3 v3 = -(1 + i) v3 / sqrt 2
        const P o1 = Scale(P{v1.re + v1.im, v1.im - v1.re}, kHalfSqrt2);
        const P o3 = Scale(P{v3.im - v3.re, -(v3.re + v3.im)}, kHalfSqrt2);
        b[0] = Add(e0, o0);
        b[4] = Sub(e0, o0);
        b[1] = Add(e1, o1);
        b[5] = Sub(e1, o1);
        b[2] = Add(e2, o2);
        b[6] = Sub(e2, o2);
        b[3] = Add(e3, o3);
        b[7] = Sub(e3, o3);
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
#pragma GCC unroll 8
        for (int k = 1; k < R; ++k) out[s * k] = b[k];
      } else {
#pragma GCC unroll 8
        for (int k = 1; k < R; ++k) out[s * k] = Mul(b[k], w + 2 * (k - 1));
      }
    }
  }
}

// A pass of any odd prime radix r <= kLargestRadix: the DFT of r points by
// its symmetric and antisymmetric halves, O(r^2 / 2) per butterfly.
template <typename T, int L>
void GenericPass(const Pack<T, L>* x, Pack<T, L>* y, int64_t r, int64_t m,
                 int64_t s, const T* twiddles, const T* rotations) {
  using P = Pack<T, L>;
  const int64_t half = (r - 1) / 2;
  P sums[kLargestRadix], diffs[kLargestRadix];
  for (int64_t p = 0; p < m; ++p) {
    const T* w = twiddles + 2 * p * (r - 1);
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
          const T* rot = rotations + 2 * ((j * k) % r);
          mid = Add(mid, Scale(sums[j], rot[0]));
          // rot[1] is -sin: accumulate -i * sin * diff.
          odd = Add(odd, Scale(diffs[j], -rot[1]));
        }
        const P n = MulMinusI(odd);
        P plus = Add(mid, n), minus = Sub(mid, n);
        if (p != 0) {
          plus = Mul(plus, w + 2 * (k - 1));
          minus = Mul(minus, w + 2 * (r - k - 1));
        }
        out[s * k] = plus;
        out[s * (r - k)] = minus;
      }
    }
  }
}

template <typename T, int L>
Pack<T, L>* Stockham(const PlanView<T>& plan, Pack<T, L>* data,
                     Pack<T, L>* scratch) {
  Pack<T, L>*x = data, *y = scratch;
  for (int64_t i = 0; i < plan.stage_count; ++i) {
    const PlanStage& stage = plan.stages[i];
    const T* w = plan.twiddles + 2 * stage.twiddle_offset;
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
      case 8:
        FixedPass<T, L, 8>(x, y, stage.m, stage.stride, w);
        break;
      default:
        GenericPass<T, L>(x, y, stage.radix, stage.m, stage.stride, w,
                          plan.rotations + 2 * stage.rotation_offset);
    }
    std::swap(x, y);
  }
  return x;
}

// The forward DFT of `data` (n packs), using `scratch` (scratch_size()
// packs); the result is in the buffer returned, `data` or `scratch`.
template <typename T, int L>
Pack<T, L>* Forward(const PlanView<T>& plan, Pack<T, L>* data,
                    Pack<T, L>* scratch) {
  if (plan.convolution == nullptr) return Stockham<T, L>(plan, data, scratch);
  // Bluestein: X[k] = c[k] * sum_j (x[j] c[j]) conj(c[k - j]) with c the
  // chirp: a cyclic convolution of length m, done as forward transforms (the
  // inverse one by conjugation).
  const PlanView<T>& convolution = *plan.convolution;
  const int64_t m = convolution.n, n = plan.n;
  Pack<T, L>*a = scratch, *other = scratch + m;
  for (int64_t j = 0; j < n; ++j) a[j] = Mul(data[j], plan.chirp + 2 * j);
  for (int64_t j = n; j < m; ++j) a[j] = Pack<T, L>{};
  Pack<T, L>* spectrum = Forward<T, L>(convolution, a, other);
  Pack<T, L>* free = spectrum == a ? other : a;
  for (int64_t k = 0; k < m; ++k)
    spectrum[k] = Conj(Mul(spectrum[k], plan.filter + 2 * k));
  Pack<T, L>* convolved = Forward<T, L>(convolution, spectrum, free);
  for (int64_t k = 0; k < n; ++k)
    data[k] = Mul(Conj(convolved[k]), plan.chirp + 2 * k);
  return data;
}

// Sequences along an outer axis move in tiles of this many groups of L,
// 128 bytes of each row (see ComplexSequences).
template <typename T, int L>
inline constexpr int kTileGroupsOf = L > 1
                                         ? static_cast<int>(128 /
                                                            (2 * sizeof(T) * L))
                                         : 1;

// A call's packs, carved from the workspace its caller keeps: n for the
// data, the plan's scratch, and with tiles kTileGroupsOf<T, L> * n more. Left
// uninitialised (every transform writes before it reads): zeroing them was
// a pass over up to 512 KB per chunk of work.
template <typename T, int L>
struct Workspace {
  Pack<T, L>*data, *scratch, *tile;
  Workspace(const PlanView<T>& plan, void* memory)
      : data(static_cast<Pack<T, L>*>(memory)),
        scratch(data + plan.n),
        tile(scratch + plan.scratch_size()) {}

  static int64_t Bytes(const PlanView<T>& plan, bool tiles) {
    const int64_t packs = plan.n + plan.scratch_size() +
                          (tiles && L > 1 ? kTileGroupsOf<T, L> * plan.n : 0);
    return packs * static_cast<int64_t>(sizeof(Pack<T, L>));
  }
};
static_assert(alignof(Pack<double, 8>) <= kWorkspaceAlignment);

template <typename T, int L, typename V>
inline T GetLane(const V& v, int lane) {
  if constexpr (L == 1) {
    (void)lane;
    return v;
  } else {
    return v[lane];
  }
}

// Moving data between memory and packs whole vectors at a time. Setting one
// lane at a time in memory and then loading the pack as a vector stalls
// store forwarding per pack; that gather was as costly as the butterflies.
template <typename V>
inline V LoadVector(const void* src) {
  V v;
  std::memcpy(&v, src, sizeof v);
  return v;
}
template <typename V>
inline void StoreVector(void* dst, const V& v) {
  std::memcpy(dst, &v, sizeof v);
}

// L complex numbers stored one after another (2L values of T), as one pack.
template <typename T, int L, size_t... I>
inline Pack<T, L> LoadInterleaved(const T* p, std::index_sequence<I...>) {
  const Vec<T, L> a = LoadVector<Vec<T, L>>(p);
  const Vec<T, L> b = LoadVector<Vec<T, L>>(p + L);
  return {__builtin_shufflevector(a, b, (2 * I)...),
          __builtin_shufflevector(a, b, (2 * I + 1)...)};
}
template <typename T, int L>
inline Pack<T, L> LoadInterleaved(const T* p) {
  return LoadInterleaved<T, L>(p, std::make_index_sequence<L>{});
}

// A pack into L complex numbers stored one after another.
template <typename T, int L, size_t... I>
inline void StoreInterleaved(const Pack<T, L>& v, T* p,
                             std::index_sequence<I...>) {
  // Element e of the interleaved run is re[e / 2] or im[e / 2].
  StoreVector(
      p, __builtin_shufflevector(v.re, v.im, (I % 2 ? L + I / 2 : I / 2)...));
  StoreVector(
      p + L, __builtin_shufflevector(
                 v.re, v.im, ((I + L) % 2 ? L + (I + L) / 2 : (I + L) / 2)...));
}
template <typename T, int L>
inline void StoreInterleaved(const Pack<T, L>& v, T* p) {
  StoreInterleaved<T, L>(v, p, std::make_index_sequence<L>{});
}

// Lane j of one half of a transpose stage: blocks of s lanes of a and b
// alternate (low half: the even blocks of each; high: the odd ones).
constexpr int TransposeLane(int lanes, int s, bool high, int j) {
  const int base = j / (2 * s) * 2 * s, r = j % (2 * s);
  if (!high) return r < s ? base + r : lanes + base + r - s;
  return r < s ? base + s + r : lanes + base + r;
}
template <int L, int S, bool High, typename V, size_t... I>
inline V TransposeHalf(const V& a, const V& b, std::index_sequence<I...>) {
  return __builtin_shufflevector(
      a, b, TransposeLane(L, S, High, static_cast<int>(I))...);
}
// Transposes an L x L block of lanes held as L vectors: log2(L) stages, the
// one of block size S swapping S x S blocks between vectors S apart.
template <int L, int S = 1, typename V>
inline void TransposeBlock(V (&v)[L]) {
  static_assert((L & (L - 1)) == 0, "lane counts are powers of two");
  // Unrolled whole, the block stays in registers (a loop kept it in memory
  // at -O2).
#pragma GCC unroll 16
  for (int i = 0; i < L; ++i)
    if ((i & S) == 0) {
      const V a = TransposeHalf<L, S, false>(v[i], v[i + S],
                                             std::make_index_sequence<L>{});
      const V b = TransposeHalf<L, S, true>(v[i], v[i + S],
                                            std::make_index_sequence<L>{});
      v[i] = a;
      v[i + S] = b;
    }
  if constexpr (2 * S < L) TransposeBlock<L, 2 * S>(v);
}

// Walking many rows side by side in blocks defeats the hardware's stream
// detection (and power-of-two row lengths put the rows in the same cache
// sets), so the block kPrefetchBytes ahead in each row is asked for while
// one is moved: the loads of rows read from memory were half the time of
// an RFFT before.
inline constexpr int64_t kPrefetchBytes = 512;
template <typename T>
inline constexpr int64_t kPrefetchAhead = kPrefetchBytes / sizeof(T);

// Asks for the line `kPrefetchBytes` after `p` (Write: to be written).
template <bool Write, typename T>
inline void PrefetchAhead(const T* p) {
  __builtin_prefetch(p + kPrefetchAhead<T>, Write ? 1 : 0);
}

// Elements [j0, j0 + L) of L complex sequences that are rows `row` complex
// values apart into block[0, L), through L x L transposes. The 2L values
// of each row move as two plain vectors: transposed, vector t of each half
// holds value t of every row, alternately real and imaginary parts, so no
// shuffle separates them (that was as costly as the transposes).
template <typename T, int L>
inline void LoadRowBlock(const T* rows, int64_t row, int64_t j0,
                         Pack<T, L>* block) {
  static_assert(L % 2 == 0);
  Vec<T, L> low[L], high[L];
#pragma GCC unroll 16
  for (int l = 0; l < L; ++l) {
    const T* p = rows + 2 * (l * row + j0);
    PrefetchAhead<false>(p);
    low[l] = LoadVector<Vec<T, L>>(p);
    high[l] = LoadVector<Vec<T, L>>(p + L);
  }
  TransposeBlock<L>(low);
  TransposeBlock<L>(high);
#pragma GCC unroll 16
  for (int i = 0; i < L / 2; ++i) {
    block[i] = {low[2 * i], low[2 * i + 1]};
    block[L / 2 + i] = {high[2 * i], high[2 * i + 1]};
  }
}
template <typename T, int L>
inline void StoreRowBlock(const Pack<T, L>* block, int64_t j0, int64_t row,
                          T* rows) {
  static_assert(L % 2 == 0);
  Vec<T, L> low[L], high[L];
#pragma GCC unroll 16
  for (int i = 0; i < L / 2; ++i) {
    low[2 * i] = block[i].re;
    low[2 * i + 1] = block[i].im;
    high[2 * i] = block[L / 2 + i].re;
    high[2 * i + 1] = block[L / 2 + i].im;
  }
  TransposeBlock<L>(low);
  TransposeBlock<L>(high);
#pragma GCC unroll 16
  for (int l = 0; l < L; ++l) {
    T* p = rows + 2 * (l * row + j0);
    PrefetchAhead<true>(p);
    StoreVector(p, low[l]);
    StoreVector(p + L, high[l]);
  }
}

// Element j of `lanes` <= L sequences that may lie anywhere, lane by lane.
template <typename T, int L>
inline Pack<T, L> GatherLanes(const T* data, const int64_t* starts,
                              int64_t offset, int lanes) {
  if constexpr (L == 1) {
    (void)lanes;
    const T* c = data + 2 * (starts[0] + offset);
    return {c[0], c[1]};
  } else {
    T re[L] = {}, im[L] = {};
    for (int l = 0; l < lanes; ++l) {
      const T* c = data + 2 * (starts[l] + offset);
      re[l] = c[0];
      im[l] = c[1];
    }
    return {LoadVector<Vec<T, L>>(re), LoadVector<Vec<T, L>>(im)};
  }
}

// How the L sequences of one group lie in memory.
enum class GroupLayout {
  kScattered,  // anywhere: lane by lane
  kAdjacent,   // element j of the L sequences is L consecutive numbers
  kRows,       // L consecutive rows (the axis is the last, contiguous one)
};

inline GroupLayout LayoutOf(const Axis& axis, const int64_t* starts, int lanes,
                            int lane_count) {
  if (lane_count == 1 || lanes != lane_count) return GroupLayout::kScattered;
  if (axis.inner == 1)
    return axis.n % lane_count == 0 ? GroupLayout::kRows
                                    : GroupLayout::kScattered;
  return starts[lane_count - 1] == starts[0] + lane_count - 1
             ? GroupLayout::kAdjacent
             : GroupLayout::kScattered;
}

template <typename T, int L>
void ComplexSequences(const T* src, T* dst, const Axis& axis,
                      const PlanView<T>& plan, int64_t begin, int64_t end,
                      bool inverse, T scale, void* memory) {
  Workspace<T, L> work(plan, memory);
  const T sign = inverse ? T(-1) : T(1);
  Pack<T, L>* packs = work.data;
  // The transform of packs[0, n) in place, conjugated and scaled as asked.
  auto transform = [&](Pack<T, L>* in) -> Pack<T, L>* {
    if (inverse)
      for (int64_t j = 0; j < axis.n; ++j) in[j].im = -in[j].im;
    Pack<T, L>* out = Forward<T, L>(plan, in, work.scratch);
    const T im_scale = sign * scale;
    for (int64_t j = 0; j < axis.n; ++j) {
      out[j].re = out[j].re * scale;
      out[j].im = out[j].im * im_scale;
    }
    return out;
  };
  // Sequences along an outer axis sit side by side, and element j of each
  // is a whole row of the array away from element j - 1: moving one group
  // of L at a time would touch every cache line of the columns once per
  // group (and power-of-two row lengths map them all to the same cache
  // sets). Tiles of kTileGroups groups, 128 bytes of each row, use whole
  // cache lines instead.
  constexpr int kTileGroups = kTileGroupsOf<T, L>;
  static_assert(kTileGroups >= 1);
  constexpr int64_t kTile = int64_t{kTileGroups} * L;
  Pack<T, L>* tile = work.tile;
  for (int64_t s0 = begin; s0 < end;) {
    if constexpr (L > 1) {
      if (axis.inner > 1 && s0 + kTile <= end &&
          axis.Start(s0 + kTile - 1) == axis.Start(s0) + kTile - 1) {
        const int64_t n = axis.n;
        const T* from = src + 2 * axis.Start(s0);
        T* to = dst + 2 * axis.Start(s0);
        // Rows kAheadRows on are asked for: the stride is a whole row.
        constexpr int64_t kAheadRows = 8;
        for (int64_t j = 0; j < n; ++j) {
          if (j + kAheadRows < n)
            __builtin_prefetch(from + 2 * (j + kAheadRows) * axis.inner);
          for (int g = 0; g < kTileGroups; ++g)
            tile[g * n + j] =
                LoadInterleaved<T, L>(from + 2 * (j * axis.inner + g * L));
        }
        // Each group's result, in the tile or (the last group's only: the
        // next transform would overwrite it) in the scratch.
        const Pack<T, L>* results[kTileGroups];
        for (int g = 0; g < kTileGroups; ++g) {
          Pack<T, L>* group = tile + g * n;
          const Pack<T, L>* out = transform(group);
          if (out != group && g + 1 < kTileGroups) {
            for (int64_t j = 0; j < n; ++j) group[j] = out[j];
            out = group;
          }
          results[g] = out;
        }
        for (int64_t j = 0; j < n; ++j) {
          if (j + kAheadRows < n)
            __builtin_prefetch(to + 2 * (j + kAheadRows) * axis.inner, 1);
          for (int g = 0; g < kTileGroups; ++g)
            StoreInterleaved<T, L>(results[g][j],
                                   to + 2 * (j * axis.inner + g * L));
        }
        s0 += kTile;
        continue;
      }
    }
    const int lanes = static_cast<int>(end - s0 < L ? end - s0 : L);
    int64_t starts[L];
    for (int l = 0; l < lanes; ++l) starts[l] = axis.Start(s0 + l);
    const GroupLayout layout = LayoutOf(axis, starts, lanes, L);
    if constexpr (L > 1) {
      if (layout == GroupLayout::kRows) {
        for (int64_t j = 0; j < axis.n; j += L)
          LoadRowBlock<T, L>(src + 2 * starts[0], axis.n, j, packs + j);
      } else if (layout == GroupLayout::kAdjacent) {
        for (int64_t j = 0; j < axis.n; ++j)
          packs[j] =
              LoadInterleaved<T, L>(src + 2 * (starts[0] + j * axis.inner));
      }
    }
    if (layout == GroupLayout::kScattered)
      for (int64_t j = 0; j < axis.n; ++j)
        packs[j] = GatherLanes<T, L>(src, starts, j * axis.inner, lanes);
    Pack<T, L>* out = transform(packs);
    s0 += L;
    if constexpr (L > 1) {
      if (layout == GroupLayout::kRows) {
        for (int64_t j = 0; j < axis.n; j += L)
          StoreRowBlock<T, L>(out + j, j, axis.n, dst + 2 * starts[0]);
        continue;
      }
      if (layout == GroupLayout::kAdjacent) {
        for (int64_t j = 0; j < axis.n; ++j)
          StoreInterleaved<T, L>(out[j],
                                 dst + 2 * (starts[0] + j * axis.inner));
        continue;
      }
    }
    for (int64_t j = 0; j < axis.n; ++j)
      for (int l = 0; l < lanes; ++l) {
        T* c = dst + 2 * (starts[l] + j * axis.inner);
        c[0] = GetLane<T, L>(out[j].re, l);
        c[1] = GetLane<T, L>(out[j].im, l);
      }
  }
}

// RFFT of rows [begin, end): rows r and r + L share one complex sequence.
template <typename T, int L>
void RealForwardRows(const T* in, T* out, int64_t n, int64_t rows,
                     const PlanView<T>& plan, int64_t begin, int64_t end,
                     void* memory) {
  Workspace<T, L> work(plan, memory);
  const int64_t h = n / 2 + 1;
  Pack<T, L>* packs = work.data;
  for (int64_t r0 = begin; r0 < end; r0 += 2 * L) {
    const bool full = r0 + 2 * L <= rows;
    // Whole groups of rows whose length is a multiple of L move as L x L
    // blocks (see LoadRowBlock).
    const bool blocks = L > 1 && full && n % L == 0;
    if constexpr (L > 1) {
      if (blocks)
        for (int64_t j0 = 0; j0 < n; j0 += L) {
          Vec<T, L> re[L], im[L];
          for (int l = 0; l < L; ++l) {
            PrefetchAhead<false>(in + (r0 + l) * n + j0);
            PrefetchAhead<false>(in + (r0 + L + l) * n + j0);
            re[l] = LoadVector<Vec<T, L>>(in + (r0 + l) * n + j0);
            im[l] = LoadVector<Vec<T, L>>(in + (r0 + L + l) * n + j0);
          }
          TransposeBlock<L>(re);
          TransposeBlock<L>(im);
          for (int i = 0; i < L; ++i) packs[j0 + i] = {re[i], im[i]};
        }
    }
    if (!blocks)
      for (int64_t j = 0; j < n; ++j) {
        T re[L] = {}, im[L] = {};
        for (int l = 0; l < L; ++l) {
          if (r0 + l < rows) re[l] = in[(r0 + l) * n + j];
          if (r0 + L + l < rows) im[l] = in[(r0 + L + l) * n + j];
        }
        packs[j] = {LoadVector<Vec<T, L>>(re), LoadVector<Vec<T, L>>(im)};
      }
    const Pack<T, L>* z = Forward<T, L>(plan, packs, work.scratch);
    // The spectra of the rows in the real and in the imaginary parts.
    auto spectra = [&](int64_t k, Pack<T, L>& first, Pack<T, L>& second) {
      const Pack<T, L>& a = z[k];
      const Pack<T, L>& b = z[(n - k) % n];
      first = {(a.re + b.re) * T(0.5), (a.im - b.im) * T(0.5)};
      second = {(a.im + b.im) * T(0.5), (b.re - a.re) * T(0.5)};
    };
    int64_t k = 0;
    if constexpr (L > 1) {
      if (full)
        for (; k + L <= h; k += L) {
          Vec<T, L> re1[L], im1[L], re2[L], im2[L];
          for (int i = 0; i < L; ++i) {
            Pack<T, L> first, second;
            spectra(k + i, first, second);
            re1[i] = first.re;
            im1[i] = first.im;
            re2[i] = second.re;
            im2[i] = second.im;
          }
          TransposeBlock<L>(re1);
          TransposeBlock<L>(im1);
          TransposeBlock<L>(re2);
          TransposeBlock<L>(im2);
          for (int l = 0; l < L; ++l) {
            PrefetchAhead<true>(out + 2 * ((r0 + l) * h + k));
            PrefetchAhead<true>(out + 2 * ((r0 + L + l) * h + k));
            StoreInterleaved<T, L>({re1[l], im1[l]},
                                   out + 2 * ((r0 + l) * h + k));
            StoreInterleaved<T, L>({re2[l], im2[l]},
                                   out + 2 * ((r0 + L + l) * h + k));
          }
        }
    }
    for (; k < h; ++k) {
      Pack<T, L> first, second;
      spectra(k, first, second);
      for (int l = 0; l < L; ++l) {
        if (full || r0 + l < rows) {
          T* c = out + 2 * ((r0 + l) * h + k);
          c[0] = GetLane<T, L>(first.re, l);
          c[1] = GetLane<T, L>(first.im, l);
        }
        if (full || r0 + L + l < rows) {
          T* c = out + 2 * ((r0 + L + l) * h + k);
          c[0] = GetLane<T, L>(second.re, l);
          c[1] = GetLane<T, L>(second.im, l);
        }
      }
    }
  }
}

// IRFFT of rows of n / 2 + 1 into real rows of n, scaled: the Hermitian
// spectra of rows r and r + L make one complex sequence whose inverse has
// them as its real and imaginary parts.
template <typename T, int L>
void RealInverseRows(const T* in, T* out, int64_t n, int64_t rows,
                     const PlanView<T>& plan, T scale, int64_t begin,
                     int64_t end, void* memory) {
  Workspace<T, L> work(plan, memory);
  const int64_t h = n / 2 + 1;
  auto spectrum = [&](int64_t row, int64_t k) -> ComplexOf<T> {
    if (row >= rows) return {T(0), T(0)};
    if (k < h) {
      const T* c = in + 2 * (row * h + k);
      // Only a Hermitian spectrum's real parts exist at 0 and n / 2.
      if (k == 0 || 2 * k == n) return {c[0], T(0)};
      return {c[0], c[1]};
    }
    const T* c = in + 2 * (row * h + (n - k));
    return {c[0], -c[1]};
  };
  Pack<T, L>* packs = work.data;
  // conj(a + i b) of the spectra a (rows r0 + l) and b (rows r0 + L + l):
  // the input of a forward transform that inverts.
  auto combine = [](const Pack<T, L>& a, const Pack<T, L>& b) -> Pack<T, L> {
    return {a.re - b.im, -(a.im + b.re)};
  };
  for (int64_t r0 = begin; r0 < end; r0 += 2 * L) {
    const bool full = r0 + 2 * L <= rows;
    const bool blocks = L > 1 && full && n % L == 0;
    // Frequencies [stored_end, h) and [mirrored_end, n) are left to the
    // lane-by-lane loop.
    int64_t stored_end = 0, mirrored_end = h;
    if constexpr (L > 1) {
      if (blocks) {
        // Stored frequencies [first, first + L) of the 2L rows, lanes =
        // rows (see LoadRowBlock).
        auto load = [&](int64_t first, Pack<T, L>* a, Pack<T, L>* b) {
          LoadRowBlock<T, L>(in + 2 * r0 * h, h, first, a);
          LoadRowBlock<T, L>(in + 2 * (r0 + L) * h, h, first, b);
        };
        Pack<T, L> a[L], b[L];
        int64_t& k = stored_end;
        for (; k + L <= h; k += L) {
          load(k, a, b);
          for (int i = 0; i < L; ++i) {
            // Only a Hermitian spectrum's real parts exist at 0 and n / 2.
            if (k + i == 0 || 2 * (k + i) == n) a[i].im = b[i].im = Vec<T, L>{};
            packs[k + i] = combine(a[i], b[i]);
          }
        }
        // The rest are conjugates of stored ones: m + L - 1 - i mirrors the
        // stored frequency n - m - L + 1 + i.
        for (int64_t& m = mirrored_end; m + L <= n; m += L) {
          load(n - m - L + 1, a, b);
          for (int i = 0; i < L; ++i)
            packs[m + L - 1 - i] =
                combine({a[i].re, -a[i].im}, {b[i].re, -b[i].im});
        }
      }
    }
    const int64_t ranges[2][2] = {{stored_end, h}, {mirrored_end, n}};
    for (const auto& range : ranges)
      for (int64_t k = range[0]; k < range[1]; ++k) {
        T re[L] = {}, im[L] = {};
        for (int l = 0; l < L; ++l) {
          const ComplexOf<T> a = spectrum(r0 + l, k);
          const ComplexOf<T> b = spectrum(r0 + L + l, k);
          re[l] = a.re - b.im;
          im[l] = -(a.im + b.re);
        }
        packs[k] = {LoadVector<Vec<T, L>>(re), LoadVector<Vec<T, L>>(im)};
      }
    const Pack<T, L>* z = Forward<T, L>(plan, packs, work.scratch);
    int64_t j = 0;
    if constexpr (L > 1) {
      if (blocks)
        for (; j < n; j += L) {
          Vec<T, L> re[L], im[L];
          for (int i = 0; i < L; ++i) {
            re[i] = z[j + i].re * scale;
            im[i] = z[j + i].im * -scale;
          }
          TransposeBlock<L>(re);
          TransposeBlock<L>(im);
          for (int l = 0; l < L; ++l) {
            PrefetchAhead<true>(out + (r0 + l) * n + j);
            PrefetchAhead<true>(out + (r0 + L + l) * n + j);
            StoreVector(out + (r0 + l) * n + j, re[l]);
            StoreVector(out + (r0 + L + l) * n + j, im[l]);
          }
        }
    }
    for (; j < n; ++j)
      for (int l = 0; l < L; ++l) {
        if (r0 + l < rows)
          out[(r0 + l) * n + j] = GetLane<T, L>(z[j].re, l) * scale;
        if (r0 + L + l < rows)
          out[(r0 + L + l) * n + j] = -GetLane<T, L>(z[j].im, l) * scale;
      }
  }
}

// The real transforms of even length n = 2m by one complex transform of m
// per row (RealPlanView). A row x read as z[j] = x[2j] + i x[2j+1] has the
// spectrum Z = E + i O, E and O those of the even- and odd-indexed values;
// both are Hermitian, so E[k] = (Z[k] + conj Z[m-k]) / 2 and
// O[k] = -i (Z[k] - conj Z[m-k]) / 2, and X[k] = E[k] + W^k O[k] with
// W = exp(-2 pi i / n), indices of Z modulo m, k in [0, m].
template <typename T, int L>
inline Pack<T, L> JoinHalves(const Pack<T, L>* z, int64_t m, int64_t k,
                             const T* twiddles) {
  const Pack<T, L>& a = z[k < m ? k : 0];
  const Pack<T, L>& b = z[k > 0 ? m - k : 0];
  const Pack<T, L> even = {(a.re + b.re) * T(0.5), (a.im - b.im) * T(0.5)};
  const Pack<T, L> odd = {(a.im + b.im) * T(0.5), (b.re - a.re) * T(0.5)};
  return Add(even, Mul(odd, twiddles + 2 * k));
}

// The inverse: for k in [0, m), E'[k] = X[k] + conj X[m-k] and
// O'[k] = (X[k] - conj X[m-k]) conj(W^k) are the spectra of n times the
// even- and odd-indexed values, so the inverse transform of E' + i O' is
// n z. Returned conjugated: the input of a forward transform that inverts.
template <typename T, int L>
inline Pack<T, L> SplitHalves(const Pack<T, L>& a, const Pack<T, L>& mirror,
                              const T* twiddle) {
  const Pack<T, L> even = {a.re + mirror.re, a.im - mirror.im};
  const Pack<T, L> odd =
      MulConj(Pack<T, L>{a.re - mirror.re, a.im + mirror.im}, twiddle);
  return {even.re - odd.im, -(even.im + odd.re)};
}

// Element j of `lanes` <= L rows from `first`, `row` complex values apart,
// lane by lane.
template <typename T, int L>
inline Pack<T, L> RowLanes(const T* first, int64_t row, int64_t j, int lanes) {
  int64_t starts[L];
  for (int l = 0; l < lanes; ++l) starts[l] = l * row;
  return GatherLanes<T, L>(first, starts, j, lanes);
}

// RFFT of real rows [begin, end) of n = 2m into complex rows of m + 1.
template <typename T, int L>
void RealForwardHalf(const T* in, T* out, const RealPlanView<T>& real,
                     int64_t begin, int64_t end, void* memory) {
  const PlanView<T>& plan = *real.half;
  const int64_t m = plan.n, n = real.n, h = m + 1;
  Workspace<T, L> work(plan, memory);
  Pack<T, L>* packs = work.data;
  for (int64_t r0 = begin; r0 < end; r0 += L) {
    const int lanes = static_cast<int>(end - r0 < L ? end - r0 : L);
    const bool blocks = L > 1 && lanes == L;
    // Row r0 + l is m complex values from first + l * n.
    const T* first = in + r0 * n;
    int64_t j = 0;
    if constexpr (L > 1) {
      if (blocks)
        for (; j + L <= m; j += L) LoadRowBlock<T, L>(first, m, j, packs + j);
    }
    for (; j < m; ++j) packs[j] = RowLanes<T, L>(first, m, j, lanes);
    const Pack<T, L>* z = Forward<T, L>(plan, packs, work.scratch);
    T* to = out + 2 * r0 * h;
    int64_t k = 0;
    if constexpr (L > 1) {
      if (blocks)
        for (; k + L <= h; k += L) {
          Pack<T, L> block[L];
#pragma GCC unroll 16
          for (int i = 0; i < L; ++i)
            block[i] = JoinHalves<T, L>(z, m, k + i, real.twiddles);
          StoreRowBlock<T, L>(block, k, h, to);
        }
    }
    for (; k < h; ++k) {
      const Pack<T, L> x = JoinHalves<T, L>(z, m, k, real.twiddles);
      for (int l = 0; l < lanes; ++l) {
        to[2 * (l * h + k)] = GetLane<T, L>(x.re, l);
        to[2 * (l * h + k) + 1] = GetLane<T, L>(x.im, l);
      }
    }
  }
}

// IRFFT of complex rows [begin, end) of m + 1 into real rows of n = 2m,
// scaled; with `nyquist`, rows of m complex values (in place: see
// BatchKernels::real_inverse_half) and frequency m apart.
template <typename T, int L>
void RealInverseHalf(const T* in, const T* nyquist, T* out,
                     const RealPlanView<T>& real, T scale, int64_t begin,
                     int64_t end, void* memory) {
  const PlanView<T>& plan = *real.half;
  const int64_t m = plan.n, n = real.n;
  const int64_t in_row = nyquist != nullptr ? m : m + 1;
  Workspace<T, L> work(plan, memory);
  Pack<T, L>* packs = work.data;
  const T* w = real.twiddles;
  for (int64_t r0 = begin; r0 < end; r0 += L) {
    const int lanes = static_cast<int>(end - r0 < L ? end - r0 : L);
    const bool blocks = L > 1 && lanes == L;
    const T* first = in + 2 * r0 * in_row;
    // Frequency 0 with m: only a Hermitian spectrum's real parts exist
    // there.
    {
      Pack<T, L> zero = RowLanes<T, L>(first, in_row, 0, lanes);
      Pack<T, L> top = nyquist != nullptr
                           ? RowLanes<T, L>(nyquist + 2 * r0, 1, 0, lanes)
                           : RowLanes<T, L>(first, in_row, m, lanes);
      zero.im = top.im = Vec<T, L>{};
      packs[0] = SplitHalves<T, L>(zero, top, w);
    }
    int64_t k = 1;
    if constexpr (L > 1) {
      if (blocks)
        for (; k + L <= m; k += L) {
          // X[k + i] and, reversed, X[m - k - L + 1 + i]: frequencies
          // m - k - i (all below m).
          Pack<T, L> a[L], b[L];
          LoadRowBlock<T, L>(first, in_row, k, a);
          LoadRowBlock<T, L>(first, in_row, m - k - L + 1, b);
#pragma GCC unroll 16
          for (int i = 0; i < L; ++i)
            packs[k + i] =
                SplitHalves<T, L>(a[i], b[L - 1 - i], w + 2 * (k + i));
        }
    }
    for (; k < m; ++k)
      packs[k] = SplitHalves<T, L>(RowLanes<T, L>(first, in_row, k, lanes),
                                   RowLanes<T, L>(first, in_row, m - k, lanes),
                                   w + 2 * k);
    const Pack<T, L>* z = Forward<T, L>(plan, packs, work.scratch);
    // Row r0 + l is m complex values from to + l * n: n z conjugated.
    T* to = out + r0 * n;
    int64_t j = 0;
    if constexpr (L > 1) {
      if (blocks)
        for (; j + L <= m; j += L) {
          Pack<T, L> block[L];
#pragma GCC unroll 16
          for (int i = 0; i < L; ++i)
            block[i] = {z[j + i].re * scale, z[j + i].im * -scale};
          StoreRowBlock<T, L>(block, j, m, to);
        }
    }
    for (; j < m; ++j)
      for (int l = 0; l < lanes; ++l) {
        to[l * n + 2 * j] = GetLane<T, L>(z[j].re, l) * scale;
        to[l * n + 2 * j + 1] = -GetLane<T, L>(z[j].im, l) * scale;
      }
  }
}

template <typename T, int L>
BatchKernels<T> KernelsOfLanes() {
  BatchKernels<T> k;
  k.lanes = L;
  k.workspace_bytes = &Workspace<T, L>::Bytes;
  k.complex_sequences = &ComplexSequences<T, L>;
  k.real_forward_rows = &RealForwardRows<T, L>;
  k.real_inverse_rows = &RealInverseRows<T, L>;
  k.real_forward_half = &RealForwardHalf<T, L>;
  k.real_inverse_half = &RealInverseHalf<T, L>;
  return k;
}

// The kernels of one vector width of `bytes` bytes.
template <int Bytes>
KernelSet KernelSetOfWidth() {
  KernelSet set;
  set.f32 = KernelsOfLanes<float, Bytes / static_cast<int>(sizeof(float))>();
  set.f64 = KernelsOfLanes<double, Bytes / static_cast<int>(sizeof(double))>();
  return set;
}

}  // namespace
}  // namespace xffi::cpu::fft

#endif  // XFFI_SRC_CPU_FFT_LANES_H_
