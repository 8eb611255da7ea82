// fft: FFT, IFFT, RFFT and IRFFT over the last 1 to 3 dimensions, as XLA
// defines them: unnormalised forward transforms, inverses divided by the
// product of the lengths, RFFT keeping the n / 2 + 1 non-negative
// frequencies of the last dimension and IRFFT reading only those (the
// imaginary parts of the zero and Nyquist frequencies ignored, as DUCC and
// numpy do).
//
// A multi-dimensional transform is one-dimensional ones along each axis in
// turn (RFFT: the real axis first; IRFFT: the real axis last). Sequences
// along an axis are gathered kLanes at a time into the lanes of a Pack, so
// the butterflies of fft_plan.h run on vectors; the real transforms put two
// real sequences into the real and imaginary parts of one complex sequence
// and separate the spectra by their symmetry, half the work of a complex
// transform each.
#include <algorithm>
#include <complex>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpu/elementwise_loops.h"
#include "cpu/fft_plan.h"
#include "cpu/structural_kernels.h"

namespace xffi::cpu {
namespace {

using fft::ComplexPlan;
using fft::kLanes;
using fft::Pack;

template <typename T>
using PlanMap = std::map<int64_t, std::shared_ptr<const ComplexPlan<T>>>;

// The sequences along one axis of a row-major array: `outer * inner` of
// them, n elements `inner` apart each.
struct Axis {
  int64_t n = 1, outer = 1, inner = 1;
  int64_t count() const { return outer * inner; }
  int64_t Start(int64_t s) const { return (s / inner) * n * inner + s % inner; }
};

Axis AxisOf(const std::vector<int64_t>& dims, size_t d) {
  Axis axis;
  axis.n = dims[d];
  for (size_t i = 0; i < d; ++i) axis.outer *= dims[i];
  for (size_t i = d + 1; i < dims.size(); ++i) axis.inner *= dims[i];
  return axis;
}

template <typename T, int L, typename V>
inline T GetLane(const V& v, int lane) {
  if constexpr (L == 1) {
    (void)lane;
    return v;
  } else {
    return v[lane];
  }
}

template <typename T, int L>
struct Workspace {
  std::vector<Pack<T, L>> data, scratch;
  explicit Workspace(const ComplexPlan<T>& plan)
      : data(static_cast<size_t>(plan.size())),
        scratch(static_cast<size_t>(plan.scratch_size())) {}
};

// Moving data between memory and packs whole vectors at a time. Setting one
// lane at a time in memory and then loading the pack as a vector stalls
// store forwarding per pack; that gather was as costly as the butterflies.
template <typename T, int L>
using Vec = typename Pack<T, L>::V;

template <typename V>
V LoadVector(const void* src) {
  V v;
  std::memcpy(&v, src, sizeof v);
  return v;
}
template <typename V>
void StoreVector(void* dst, const V& v) {
  std::memcpy(dst, &v, sizeof v);
}

// L complex numbers stored one after another, as one pack.
template <typename T, int L, size_t... I>
Pack<T, L> LoadInterleaved(const std::complex<T>* src,
                           std::index_sequence<I...>) {
  const T* p = reinterpret_cast<const T*>(src);
  const Vec<T, L> a = LoadVector<Vec<T, L>>(p);
  const Vec<T, L> b = LoadVector<Vec<T, L>>(p + L);
  return {__builtin_shufflevector(a, b, (2 * I)...),
          __builtin_shufflevector(a, b, (2 * I + 1)...)};
}
template <typename T, int L>
Pack<T, L> LoadInterleaved(const std::complex<T>* src) {
  return LoadInterleaved<T, L>(src, std::make_index_sequence<L>{});
}

// A pack into L complex numbers stored one after another.
template <typename T, int L, size_t... I>
void StoreInterleaved(const Pack<T, L>& v, std::complex<T>* dst,
                      std::index_sequence<I...>) {
  T* p = reinterpret_cast<T*>(dst);
  // Element e of the interleaved run is re[e / 2] or im[e / 2].
  StoreVector(
      p, __builtin_shufflevector(v.re, v.im, (I % 2 ? L + I / 2 : I / 2)...));
  StoreVector(
      p + L, __builtin_shufflevector(
                 v.re, v.im, ((I + L) % 2 ? L + (I + L) / 2 : (I + L) / 2)...));
}
template <typename T, int L>
void StoreInterleaved(const Pack<T, L>& v, std::complex<T>* dst) {
  StoreInterleaved<T, L>(v, dst, std::make_index_sequence<L>{});
}

// Transposes an L x L block of lanes held as L vectors, for L = 2 and 4 (the
// lane counts of kLanes).
template <int L, typename V>
void TransposeBlock(V (&v)[L]) {
  static_assert(L == 2 || L == 4, "kLanes is 2 or 4");
  if constexpr (L == 2) {
    const V a = __builtin_shufflevector(v[0], v[1], 0, 2);
    const V b = __builtin_shufflevector(v[0], v[1], 1, 3);
    v[0] = a;
    v[1] = b;
  } else {
    const V t0 = __builtin_shufflevector(v[0], v[1], 0, 4, 1, 5);
    const V t1 = __builtin_shufflevector(v[2], v[3], 0, 4, 1, 5);
    const V t2 = __builtin_shufflevector(v[0], v[1], 2, 6, 3, 7);
    const V t3 = __builtin_shufflevector(v[2], v[3], 2, 6, 3, 7);
    v[0] = __builtin_shufflevector(t0, t1, 0, 1, 4, 5);
    v[1] = __builtin_shufflevector(t0, t1, 2, 3, 6, 7);
    v[2] = __builtin_shufflevector(t2, t3, 0, 1, 4, 5);
    v[3] = __builtin_shufflevector(t2, t3, 2, 3, 6, 7);
  }
}

// Elements [j0, j0 + L) of L sequences that are rows `row` elements apart
// (element j of lane l at rows[l * row + j]) into block[0, L), through
// L x L transposes.
template <typename T, int L>
void LoadRowBlock(const std::complex<T>* rows, int64_t row, int64_t j0,
                  Pack<T, L>* block) {
  Vec<T, L> re[L], im[L];
  for (int l = 0; l < L; ++l) {
    const Pack<T, L> p = LoadInterleaved<T, L>(rows + l * row + j0);
    re[l] = p.re;
    im[l] = p.im;
  }
  TransposeBlock<L>(re);
  TransposeBlock<L>(im);
  for (int i = 0; i < L; ++i) block[i] = {re[i], im[i]};
}
template <typename T, int L>
void StoreRowBlock(const Pack<T, L>* block, int64_t j0, int64_t row,
                   std::complex<T>* rows) {
  Vec<T, L> re[L], im[L];
  for (int i = 0; i < L; ++i) {
    re[i] = block[i].re;
    im[i] = block[i].im;
  }
  TransposeBlock<L>(re);
  TransposeBlock<L>(im);
  for (int l = 0; l < L; ++l)
    StoreInterleaved<T, L>({re[l], im[l]}, rows + l * row + j0);
}

// Element j of L sequences that may lie anywhere, lane by lane.
template <typename T, int L, size_t... I>
Pack<T, L> GatherLanes(const std::complex<T>* data, const int64_t* starts,
                       int64_t offset, int lanes, std::index_sequence<I...>) {
  std::complex<T> c[L] = {};
  for (int l = 0; l < lanes; ++l) c[l] = data[starts[l] + offset];
  if constexpr (L == 1)
    return {c[0].real(), c[0].imag()};
  else
    return {Vec<T, L>{c[I].real()...}, Vec<T, L>{c[I].imag()...}};
}

// How the L sequences of one group lie in memory.
enum class GroupLayout {
  kScattered,  // anywhere: lane by lane
  kAdjacent,   // element j of the L sequences is L consecutive numbers
  kRows,       // L consecutive rows (the axis is the last, contiguous one)
};

GroupLayout LayoutOf(const Axis& axis, const int64_t* starts, int lanes,
                     int lane_count) {
  if (lane_count == 1 || lanes != lane_count) return GroupLayout::kScattered;
  if (axis.inner == 1)
    return axis.n % lane_count == 0 ? GroupLayout::kRows
                                    : GroupLayout::kScattered;
  return starts[lane_count - 1] == starts[0] + lane_count - 1
             ? GroupLayout::kAdjacent
             : GroupLayout::kScattered;
}

// The complex transform of sequences [begin, end) of `axis` in place, L at a
// time; `inverse` conjugates on the way in and out.
template <typename T, int L>
void ComplexSequences(std::complex<T>* data, const Axis& axis,
                      const ComplexPlan<T>& plan, int64_t begin, int64_t end,
                      bool inverse, T scale) {
  Workspace<T, L> work(plan);
  const T sign = inverse ? T(-1) : T(1);
  Pack<T, L>* packs = work.data.data();
  // The transform of packs[0, n) in place, conjugated and scaled as asked.
  auto transform = [&](Pack<T, L>* in) -> Pack<T, L>* {
    if (inverse)
      for (int64_t j = 0; j < axis.n; ++j) in[j].im = -in[j].im;
    Pack<T, L>* out = plan.template Forward<L>(in, work.scratch.data());
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
  // sets). kTileGroups groups at a time use whole cache lines instead.
  constexpr int kTileGroups = L > 1 ? 4 : 1;
  constexpr int64_t kTile = int64_t{kTileGroups} * L;
  std::vector<Pack<T, L>> tile;
  for (int64_t s0 = begin; s0 < end;) {
    if constexpr (L > 1) {
      if (axis.inner > 1 && s0 + kTile <= end &&
          axis.Start(s0 + kTile - 1) == axis.Start(s0) + kTile - 1) {
        const int64_t n = axis.n;
        tile.resize(static_cast<size_t>(kTileGroups * n));
        std::complex<T>* base = data + axis.Start(s0);
        for (int64_t j = 0; j < n; ++j)
          for (int g = 0; g < kTileGroups; ++g)
            tile[static_cast<size_t>(g * n + j)] =
                LoadInterleaved<T, L>(base + j * axis.inner + g * L);
        for (int g = 0; g < kTileGroups; ++g) {
          Pack<T, L>* group = tile.data() + g * n;
          const Pack<T, L>* out = transform(group);
          if (out != group) std::copy(out, out + n, group);
        }
        for (int64_t j = 0; j < n; ++j)
          for (int g = 0; g < kTileGroups; ++g)
            StoreInterleaved<T, L>(tile[static_cast<size_t>(g * n + j)],
                                   base + j * axis.inner + g * L);
        s0 += kTile;
        continue;
      }
    }
    const int lanes = static_cast<int>(std::min<int64_t>(L, end - s0));
    int64_t starts[L];
    for (int l = 0; l < lanes; ++l) starts[l] = axis.Start(s0 + l);
    const GroupLayout layout = LayoutOf(axis, starts, lanes, L);
    if constexpr (L > 1) {
      if (layout == GroupLayout::kRows) {
        for (int64_t j = 0; j < axis.n; j += L)
          LoadRowBlock<T, L>(data + starts[0], axis.n, j, packs + j);
      } else if (layout == GroupLayout::kAdjacent) {
        for (int64_t j = 0; j < axis.n; ++j)
          packs[j] = LoadInterleaved<T, L>(data + starts[0] + j * axis.inner);
      }
    }
    if (layout == GroupLayout::kScattered)
      for (int64_t j = 0; j < axis.n; ++j)
        packs[j] = GatherLanes<T, L>(data, starts, j * axis.inner, lanes,
                                     std::make_index_sequence<L>{});
    Pack<T, L>* out = transform(packs);
    s0 += L;
    if constexpr (L > 1) {
      if (layout == GroupLayout::kRows) {
        for (int64_t j = 0; j < axis.n; j += L)
          StoreRowBlock<T, L>(out + j, j, axis.n, data + starts[0]);
        continue;
      }
      if (layout == GroupLayout::kAdjacent) {
        for (int64_t j = 0; j < axis.n; ++j)
          StoreInterleaved<T, L>(out[j], data + starts[0] + j * axis.inner);
        continue;
      }
    }
    for (int64_t j = 0; j < axis.n; ++j)
      for (int l = 0; l < lanes; ++l)
        data[starts[l] + j * axis.inner] = {GetLane<T, L>(out[j].re, l),
                                            GetLane<T, L>(out[j].im, l)};
  }
}

template <typename T>
void ComplexAxis(std::complex<T>* data, const Axis& axis,
                 const ComplexPlan<T>& plan, bool inverse, T scale,
                 ThreadPool* pool) {
  constexpr int64_t L = kLanes<T>;
  const int64_t count = axis.count();
  const int64_t groups = count / L;
  // Whole groups in parallel; the few sequences left one lane at a time.
  ParallelFor(pool, groups * axis.n, [&](int64_t begin, int64_t end) {
    const int64_t first = (begin + axis.n - 1) / axis.n;
    const int64_t last = (end + axis.n - 1) / axis.n;
    if (first < last)
      ComplexSequences<T, L>(data, axis, plan, first * L, last * L, inverse,
                             scale);
  });
  if (groups * L < count)
    ComplexSequences<T, 1>(data, axis, plan, groups * L, count, inverse, scale);
}

// RFFT of rows [begin, end) of `rows` real rows of n into rows of n / 2 + 1:
// rows r and r + L share one complex sequence.
template <typename T, int L>
void RealForwardRows(const T* in, std::complex<T>* out, int64_t n, int64_t rows,
                     const ComplexPlan<T>& plan, int64_t begin, int64_t end) {
  Workspace<T, L> work(plan);
  const int64_t h = n / 2 + 1;
  Pack<T, L>* packs = work.data.data();
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
    const Pack<T, L>* z = plan.template Forward<L>(packs, work.scratch.data());
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
            StoreInterleaved<T, L>({re1[l], im1[l]}, out + (r0 + l) * h + k);
            StoreInterleaved<T, L>({re2[l], im2[l]},
                                   out + (r0 + L + l) * h + k);
          }
        }
    }
    for (; k < h; ++k) {
      Pack<T, L> first, second;
      spectra(k, first, second);
      for (int l = 0; l < L; ++l) {
        if (full || r0 + l < rows)
          out[(r0 + l) * h + k] = {GetLane<T, L>(first.re, l),
                                   GetLane<T, L>(first.im, l)};
        if (full || r0 + L + l < rows)
          out[(r0 + L + l) * h + k] = {GetLane<T, L>(second.re, l),
                                       GetLane<T, L>(second.im, l)};
      }
    }
  }
}

// IRFFT of rows of n / 2 + 1 into real rows of n, scaled: the Hermitian
// spectra of rows r and r + L make one complex sequence whose inverse has
// them as its real and imaginary parts.
template <typename T, int L>
void RealInverseRows(const std::complex<T>* in, T* out, int64_t n, int64_t rows,
                     const ComplexPlan<T>& plan, T scale, int64_t begin,
                     int64_t end) {
  Workspace<T, L> work(plan);
  const int64_t h = n / 2 + 1;
  auto spectrum = [&](int64_t row, int64_t k) -> std::complex<T> {
    if (row >= rows) return {};
    if (k < h) {
      std::complex<T> c = in[row * h + k];
      // Only a Hermitian spectrum's real parts exist at 0 and n / 2.
      if (k == 0 || 2 * k == n) c.imag(0);
      return c;
    }
    return std::conj(in[row * h + (n - k)]);
  };
  Pack<T, L>* packs = work.data.data();
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
          LoadRowBlock<T, L>(in + r0 * h, h, first, a);
          LoadRowBlock<T, L>(in + (r0 + L) * h, h, first, b);
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
    for (auto [k0, k1] : {std::pair{stored_end, h}, std::pair{mirrored_end, n}})
      for (int64_t k = k0; k < k1; ++k) {
        T re[L] = {}, im[L] = {};
        for (int l = 0; l < L; ++l) {
          const std::complex<T> a = spectrum(r0 + l, k);
          const std::complex<T> b = spectrum(r0 + L + l, k);
          re[l] = a.real() - b.imag();
          im[l] = -(a.imag() + b.real());
        }
        packs[k] = {LoadVector<Vec<T, L>>(re), LoadVector<Vec<T, L>>(im)};
      }
    const Pack<T, L>* z = plan.template Forward<L>(packs, work.scratch.data());
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

// Runs Rows<L> over groups of 2L rows in parallel and the rest with L = 1.
template <typename T, typename Rows>
void ForRowPairs(int64_t rows, int64_t n, ThreadPool* pool, const Rows& run) {
  constexpr int64_t L = kLanes<T>;
  const int64_t groups = rows / (2 * L);
  const int64_t cost = std::max<int64_t>(n, 1);
  ParallelFor(pool, groups * cost, [&](int64_t begin, int64_t end) {
    const int64_t first = (begin + cost - 1) / cost;
    const int64_t last = (end + cost - 1) / cost;
    if (first < last)
      run(std::integral_constant<int, L>{}, first * 2 * L, last * 2 * L);
  });
  if (groups * 2 * L < rows)
    run(std::integral_constant<int, 1>{}, groups * 2 * L, rows);
}

template <typename T>
Kernel MakeTypedFftKernel(const Instruction& in) {
  const FftType type = in.fft_type;
  const Shape& operand = in.operand(0)->shape();
  // The complex side's dimensions: the operand's, or the result's for RFFT.
  const std::vector<int64_t> complex_dims =
      type == FftType::kRfft ? in.shape().dims() : operand.dims();
  const size_t rank = complex_dims.size();
  const size_t k = in.fft_length.size();
  PlanMap<T> plans;
  int64_t total = 1;
  for (int64_t length : in.fft_length) {
    total *= length;
    if (!plans.count(length))
      plans[length] = std::make_shared<const ComplexPlan<T>>(length);
  }
  const int64_t n_last = in.fft_length.back();
  const T scale = total > 0 ? T(1) / static_cast<T>(total) : T(1);
  int64_t complex_elements = 1;
  for (int64_t d : complex_dims) complex_elements *= d;
  return [=](const KernelArgs& args) -> Status {
    using C = std::complex<T>;
    if (complex_elements == 0) return Status::Ok();
    // The axes the complex transforms run along: all but the real one for
    // RFFT and IRFFT.
    const size_t complex_axes =
        type == FftType::kFft || type == FftType::kIfft ? k : k - 1;
    const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
    if (type == FftType::kFft || type == FftType::kIfft) {
      C* data = static_cast<C*>(args.results[0].data);
      const C* src = static_cast<const C*>(args.operands[0].data);
      if (data != src) std::copy(src, src + complex_elements, data);
      for (size_t i = 0; i < complex_axes; ++i) {
        const size_t d = rank - k + i;
        const bool last = i + 1 == complex_axes;
        ComplexAxis<T>(data, AxisOf(complex_dims, d),
                       *plans.at(complex_dims[d]), inverse,
                       inverse && last ? scale : T(1), args.pool);
      }
      return Status::Ok();
    }
    const int64_t rows = complex_elements / complex_dims.back();
    if (type == FftType::kRfft) {
      const T* src = static_cast<const T*>(args.operands[0].data);
      C* data = static_cast<C*>(args.results[0].data);
      if (n_last == 0) {
        std::fill(data, data + complex_elements, C{});
      } else {
        const ComplexPlan<T>& plan = *plans.at(n_last);
        ForRowPairs<T>(rows, n_last, args.pool,
                       [&](auto lanes, int64_t b, int64_t e) {
                         RealForwardRows<T, decltype(lanes)::value>(
                             src, data, n_last, rows, plan, b, e);
                       });
      }
      for (size_t i = 0; i < complex_axes; ++i) {
        const size_t d = rank - k + i;
        ComplexAxis<T>(data, AxisOf(complex_dims, d),
                       *plans.at(complex_dims[d]), false, T(1), args.pool);
      }
      return Status::Ok();
    }
    // IRFFT: the complex axes on a copy of the operand, then the real one.
    const C* src = static_cast<const C*>(args.operands[0].data);
    T* out = static_cast<T*>(args.results[0].data);
    if (n_last == 0) return Status::Ok();
    std::vector<C> work(src, src + complex_elements);
    for (size_t i = 0; i < complex_axes; ++i) {
      const size_t d = rank - k + i;
      ComplexAxis<T>(work.data(), AxisOf(complex_dims, d),
                     *plans.at(complex_dims[d]), true, T(1), args.pool);
    }
    const ComplexPlan<T>& plan = *plans.at(n_last);
    ForRowPairs<T>(rows, n_last, args.pool,
                   [&](auto lanes, int64_t b, int64_t e) {
                     RealInverseRows<T, decltype(lanes)::value>(
                         work.data(), out, n_last, rows, plan, scale, b, e);
                   });
    return Status::Ok();
  };
}

}  // namespace

StatusOr<Kernel> MakeFftKernel(const Instruction& instruction) {
  const ElementType t = instruction.operand(0)->shape().element_type();
  if (t == ElementType::kF32 || t == ElementType::kC64)
    return MakeTypedFftKernel<float>(instruction);
  if (t == ElementType::kF64 || t == ElementType::kC128)
    return MakeTypedFftKernel<double>(instruction);
  return Unimplemented("op " + instruction.Describe() + ": fft of " +
                       std::string(ElementTypeName(t)) +
                       " is not supported on CPU");
}

}  // namespace xffi::cpu
