// xffi: integer matrix products of 8-bit operands (s8/u8 x s8/u8, as
// jnp.matmul(int8, int8, preferred_element_type=int32) lowers).
//
// Both operands are widened to int16 and laid out with the contracting
// dimension innermost (a as [m, k], b as [n, k], k padded with zeros to a
// multiple of 16), so that every result element is a dot product of two
// contiguous int16 rows: the x86 multiply-add (pmaddwd) computes sixteen
// products and eight pairwise sums per instruction, exactly (8-bit products
// and their pairwise sums fit in int32). Sums accumulate in 32 bits and
// wrap, as XLA's integer dot does in a 32-bit result type.
#ifndef XFFI_SRC_CPU_INT8_DOT_H_
#define XFFI_SRC_CPU_INT8_DOT_H_

#include <cstdint>

namespace xffi {
class ThreadPool;
}

namespace xffi::cpu {

// The padded length of the contracting dimension.
int64_t Int8DotPaddedDepth(int64_t k);

// c[i, j] = sum_p a[i, p] * bt[j, p] (mod 2^32) for i in [0, m), j in
// [0, n); a is [m, kp], bt is [n, kp] (kp = Int8DotPaddedDepth(k), padding
// zero), c is [m, n]. Splits rows across `pool` (may be null).
void Int16RowDots(const int16_t* a, const int16_t* bt, int64_t m, int64_t n,
                  int64_t kp, uint32_t* c, ThreadPool* pool);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_INT8_DOT_H_
