// rng-bit-generator: the bits XLA:CPU draws, bit for bit, and the state it
// leaves. The state is u64[n]: state[0] is the key, the rest a counter.
//
// THREE_FRY (Threefry-2x32, 20 rounds) encrypts counter + i: a block's two
// words are one 64-bit value, or two 32-bit values side by side along one
// dimension (see ThreeFry below); results narrower than 32 bits are the
// 32-bit values truncated. The counter advances by the blocks drawn.
//
// PHILOX (Philox-4x32, 10 rounds; also DEFAULT, as XLA:CPU runs it) reads
// a 128-bit counter (state[1], state[2]; with a 2-value state, state[1]
// and the key as the high half) and encrypts counter + i, the four words
// of block i giving elements 4i..4i+3 (or two 64-bit values 2i, 2i+1).
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu/parallel.h"
#include "cpu/structural_kernels.h"

namespace xffi::cpu {
namespace {

uint32_t Low(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t High(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
uint64_t Join(uint32_t low, uint32_t high) {
  return uint64_t{low} | (uint64_t{high} << 32);
}
uint32_t RotateLeft(uint32_t v, int bits) {
  return (v << bits) | (v >> (32 - bits));
}

std::array<uint32_t, 2> ThreeFry2x32(uint64_t key, uint64_t counter) {
  constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t ks[3] = {Low(key), High(key),
                          Low(key) ^ High(key) ^ 0x1BD11BDAu};
  uint32_t x0 = Low(counter) + ks[0], x1 = High(counter) + ks[1];
  for (int group = 0; group < 5; ++group) {
    for (int r : kRotations[group % 2]) {
      x0 += x1;
      x1 = RotateLeft(x1, r) ^ x0;
    }
    x0 += ks[(group + 1) % 3];
    x1 += ks[(group + 2) % 3] + static_cast<uint32_t>(group + 1);
  }
  return {x0, x1};
}

std::array<uint32_t, 4> Philox4x32(uint64_t key, uint64_t low, uint64_t high) {
  uint32_t k0 = Low(key), k1 = High(key);
  uint32_t x[4] = {Low(low), High(low), Low(high), High(high)};
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * x[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * x[2];
    const uint32_t next[4] = {High(p1) ^ x[1] ^ k0, Low(p1),
                              High(p0) ^ x[3] ^ k1, Low(p0)};
    std::memcpy(x, next, sizeof(x));
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {x[0], x[1], x[2], x[3]};
}

// The values drawn, as u64 (narrower results keep the low bits), and the
// number of counter steps taken.
struct Drawn {
  std::vector<uint64_t> values;
  uint64_t steps = 0;
};

// 32-bit values: XLA halves one dimension (the one that leaves the fewest
// blocks: an even one if there is one, else the longest; the first on a
// tie), and the two words of a block are neighbours along it.
Drawn ThreeFry(uint64_t key, uint64_t counter, const std::vector<int64_t>& dims,
               int64_t n, bool wide) {
  Drawn out;
  out.values.resize(static_cast<size_t>(n));
  if (n == 0) return out;
  if (wide) {
    for (int64_t i = 0; i < n; ++i) {
      auto w = ThreeFry2x32(key, counter + static_cast<uint64_t>(i));
      out.values[static_cast<size_t>(i)] = Join(w[0], w[1]);
    }
    out.steps = static_cast<uint64_t>(n);
    return out;
  }
  size_t split = 0;
  int64_t fewest = -1;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t blocks = n / dims[d] * ((dims[d] + 1) / 2);
    if (fewest < 0 || blocks < fewest) {
      fewest = blocks;
      split = d;
    }
  }
  int64_t outer = 1, inner = 1, length = 1;
  if (!dims.empty()) {
    for (size_t d = 0; d < split; ++d) outer *= dims[d];
    for (size_t d = split + 1; d < dims.size(); ++d) inner *= dims[d];
    length = dims[split];
  }
  const int64_t half = (length + 1) / 2;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < half; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t block = (o * half + j) * inner + i;
        auto w = ThreeFry2x32(key, counter + static_cast<uint64_t>(block));
        for (int64_t word = 0; word < 2 && 2 * j + word < length; ++word)
          out.values[static_cast<size_t>((o * length + 2 * j + word) * inner +
                                         i)] = w[word];
      }
  out.steps = static_cast<uint64_t>(outer * half * inner);
  return out;
}

// Philox blocks straight into the result (T: the result's element type),
// split across the pool: every block is independent of the others.
template <typename T>
uint64_t Philox(uint64_t key, uint64_t low, uint64_t high, int64_t n, bool wide,
                T* out, ThreadPool* pool) {
  const int64_t per_block = wide ? 2 : 4;
  const int64_t blocks = (n + per_block - 1) / per_block;
  constexpr double kBlockNanos = 15;
  ParallelFor(pool, blocks, kBlockNanos, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const uint64_t l = low + static_cast<uint64_t>(b);
      const uint64_t h = high + (l < low ? 1 : 0);
      auto w = Philox4x32(key, l, h);
      for (int64_t j = 0; j < per_block && b * per_block + j < n; ++j)
        out[b * per_block + j] =
            static_cast<T>(wide ? Join(w[2 * j], w[2 * j + 1]) : w[j]);
    }
  });
  return static_cast<uint64_t>(blocks);
}

template <typename T>
void Store(const std::vector<uint64_t>& values, void* data) {
  T* out = static_cast<T*>(data);
  for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
}

}  // namespace

StatusOr<Kernel> MakeRngBitGeneratorKernel(const Instruction& instruction) {
  const Shape& bits = instruction.shape().tuple_shapes()[1];
  const int width = ElementBitWidth(bits.element_type());
  const int64_t state_size = instruction.operand(0)->shape().dims()[0];
  const bool philox = instruction.rng_algorithm != RngAlgorithm::kThreeFry;
  const int64_t n = bits.num_elements();
  const std::vector<int64_t> dims = bits.dims();
  return Kernel([=](const KernelArgs& args) -> Status {
    const uint64_t* state = static_cast<const uint64_t*>(args.operands[0].data);
    std::vector<uint64_t> next(state, state + state_size);
    Drawn drawn;
    if (philox) {
      const uint64_t low = state[1];
      const uint64_t high = state_size >= 3 ? state[2] : state[0];
      void* out = args.results[1].data;
      const bool wide = width == 64;
      uint64_t steps = 0;
      switch (width) {
        case 8:
          steps = Philox(state[0], low, high, n, wide,
                         static_cast<uint8_t*>(out), args.pool);
          break;
        case 16:
          steps = Philox(state[0], low, high, n, wide,
                         static_cast<uint16_t*>(out), args.pool);
          break;
        case 32:
          steps = Philox(state[0], low, high, n, wide,
                         static_cast<uint32_t*>(out), args.pool);
          break;
        default:
          steps = Philox(state[0], low, high, n, wide,
                         static_cast<uint64_t*>(out), args.pool);
      }
      const uint64_t new_low = low + steps;
      next[1] = new_low;
      if (state_size >= 3) next[2] = high + (new_low < low ? 1 : 0);
      std::memcpy(args.results[0].data, next.data(),
                  next.size() * sizeof(uint64_t));
      return Status::Ok();
    } else {
      drawn = ThreeFry(state[0], state[1], dims, n, width == 64);
      next[1] = state[1] + drawn.steps;
    }
    std::memcpy(args.results[0].data, next.data(),
                next.size() * sizeof(uint64_t));
    switch (width) {
      case 8:
        Store<uint8_t>(drawn.values, args.results[1].data);
        break;
      case 16:
        Store<uint16_t>(drawn.values, args.results[1].data);
        break;
      case 32:
        Store<uint32_t>(drawn.values, args.results[1].data);
        break;
      default:
        Store<uint64_t>(drawn.values, args.results[1].data);
    }
    return Status::Ok();
  });
}

}  // namespace xffi::cpu
