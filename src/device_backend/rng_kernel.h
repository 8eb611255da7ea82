// xffi: rng-bit-generator as a `__host__ __device__` functor: the bits the
// CPU backend (and XLA:CPU) draws, bit for bit (cpu/rng_bit_generator.cc
// describes the layouts). Thread i draws element i, recomputing its
// counter block (2 or 4 elements share one); thread 0 also writes the next
// state, into a buffer other than the one every thread reads the state from.
#ifndef XFFI_SRC_DEVICE_BACKEND_RNG_KERNEL_H_
#define XFFI_SRC_DEVICE_BACKEND_RNG_KERNEL_H_

#include "device_backend/device_kernels.h"

namespace xffi::device_backend {

struct RngBitGeneratorKernel {
  static constexpr const char* kName = "xffi.device.rng_bit_generator";
  const uint8_t* state = nullptr;  // u64[state_size]
  uint8_t* next_state = nullptr;
  uint8_t* out = nullptr;
  bool philox = true;
  bool wide = false;  // 64-bit elements
  int32_t element_size = 4;
  int64_t state_size = 2;
  int64_t elements = 0;
  int64_t n = 1;  // threads: at least one, which writes the next state
  // THREE_FRY with narrow elements: the split dimension as [outer, length,
  // inner]; two neighbours along it share a block.
  int64_t outer = 1, length = 1, inner = 1;

  XFFI_HOST_DEVICE static uint32_t Low(uint64_t v) {
    return static_cast<uint32_t>(v);
  }
  XFFI_HOST_DEVICE static uint32_t High(uint64_t v) {
    return static_cast<uint32_t>(v >> 32);
  }
  XFFI_HOST_DEVICE static uint64_t Join(uint32_t low, uint32_t high) {
    return uint64_t{low} | (uint64_t{high} << 32);
  }

  // Threefry-2x32, 20 rounds: words 0 and 1 of the block at `counter`.
  XFFI_HOST_DEVICE static void ThreeFry(uint64_t key, uint64_t counter,
                                        uint32_t* words) {
    const int rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
    const uint32_t ks[3] = {Low(key), High(key),
                            Low(key) ^ High(key) ^ 0x1BD11BDAu};
    uint32_t x0 = Low(counter) + ks[0], x1 = High(counter) + ks[1];
    for (int group = 0; group < 5; ++group) {
      for (int r = 0; r < 4; ++r) {
        const int bits = rotations[group % 2][r];
        x0 += x1;
        x1 = ((x1 << bits) | (x1 >> (32 - bits))) ^ x0;
      }
      x0 += ks[(group + 1) % 3];
      x1 += ks[(group + 2) % 3] + static_cast<uint32_t>(group + 1);
    }
    words[0] = x0;
    words[1] = x1;
  }

  // Philox-4x32, 10 rounds, of the 128-bit counter (low, high).
  XFFI_HOST_DEVICE static void Philox(uint64_t key, uint64_t low, uint64_t high,
                                      uint32_t* x) {
    uint32_t k0 = Low(key), k1 = High(key);
    x[0] = Low(low);
    x[1] = High(low);
    x[2] = Low(high);
    x[3] = High(high);
    for (int round = 0; round < 10; ++round) {
      const uint64_t p0 = uint64_t{0xD2511F53u} * x[0];
      const uint64_t p1 = uint64_t{0xCD9E8D57u} * x[2];
      const uint32_t next[4] = {High(p1) ^ x[1] ^ k0, Low(p1),
                                High(p0) ^ x[3] ^ k1, Low(p0)};
      for (int w = 0; w < 4; ++w) x[w] = next[w];
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
  }

  XFFI_HOST_DEVICE uint64_t StateWord(int64_t k) const {
    uint64_t v;
    memcpy(&v, state + k * 8, sizeof(v));
    return v;
  }

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    const uint64_t key = StateWord(0), counter = StateWord(1);
    const uint64_t high = state_size >= 3 ? StateWord(2) : key;
    const int64_t per_block = wide ? 2 : 4;
    const int64_t half = (length + 1) / 2;
    if (i < elements) {
      uint64_t value;
      if (philox) {
        const int64_t block = i / per_block, word = i % per_block;
        const uint64_t low = counter + static_cast<uint64_t>(block);
        uint32_t x[4];
        Philox(key, low, high + (low < counter ? 1 : 0), x);
        value = wide ? Join(x[2 * word], x[2 * word + 1]) : x[word];
      } else if (wide) {
        uint32_t w[2];
        ThreeFry(key, counter + static_cast<uint64_t>(i), w);
        value = Join(w[0], w[1]);
      } else {
        const int64_t p = i % inner, along = (i / inner) % length;
        const int64_t o = i / (inner * length);
        const int64_t block = (o * half + along / 2) * inner + p;
        uint32_t w[2];
        ThreeFry(key, counter + static_cast<uint64_t>(block), w);
        value = w[along % 2];
      }
      // Little-endian: the low bytes are the narrower value.
      memcpy(out + i * element_size, &value, element_size);
    }
    if (i != 0) return;
    for (int64_t k = 0; k < state_size; ++k) {
      uint64_t word = StateWord(k);
      if (philox) {
        const uint64_t steps =
            static_cast<uint64_t>((elements + per_block - 1) / per_block);
        if (k == 1) word = counter + steps;
        if (k == 2) word = high + (counter + steps < counter ? 1 : 0);
      } else if (k == 1) {
        word = counter +
               static_cast<uint64_t>(wide ? elements : outer * half * inner);
      }
      memcpy(next_state + k * 8, &word, sizeof(word));
    }
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(state);
    visit(next_state);
    visit(out);
  }
};

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_RNG_KERNEL_H_
