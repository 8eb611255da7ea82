// rng-bit-generator against the published known-answer vectors of
// Threefry-2x32-20 and Philox-4x32-10 (Random123's kat_vectors), the way
// XLA lays the blocks' words out, and the state it returns. Bit-exactness
// with XLA:CPU itself is checked by the rbg_random corpus program.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernel_test_util.h"

namespace xffi::cpu {
namespace {

using testing_util::OpUnderTest;
using testing_util::RunKernel;

struct Drawn {
  std::vector<uint64_t> state;
  Literal bits;
};

Drawn Draw(RngAlgorithm algorithm, std::vector<uint64_t> state,
           ElementType type, std::vector<int64_t> dims) {
  OpUnderTest t;
  Shape state_shape =
      Shape::Array(ElementType::kU64, {static_cast<int64_t>(state.size())});
  Shape bits_shape = Shape::Array(type, dims);
  Instruction* op =
      t.Op(Opcode::kRngBitGenerator, Shape::Tuple({state_shape, bits_shape}),
           {t.Param(state_shape)});
  op->rng_algorithm = algorithm;
  StatusOr<Kernel> kernel = MakeStructuralKernel(*op);
  EXPECT_TRUE(kernel.ok()) << kernel.status().ToString();
  Literal in = Literal::FromVector<uint64_t>(
      {static_cast<int64_t>(state.size())}, state);
  Drawn out{{}, Literal(bits_shape)};
  Literal new_state(state_shape);
  if (kernel.ok()) {
    Status s = RunKernel(*kernel, {&in}, {&new_state, &out.bits});
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  out.state = new_state.ToVector<uint64_t>();
  return out;
}

uint64_t Join(uint32_t low, uint32_t high) {
  return uint64_t{low} | (uint64_t{high} << 32);
}

TEST(RngBitGenerator, ThreeFryKnownAnswers) {
  // (key, counter) -> the two words, as Random123 lists them.
  struct Case {
    uint32_t key[2], counter[2], words[2];
  } cases[] = {
      {{0, 0}, {0, 0}, {0x6b200159u, 0x99ba4efeu}},
      {{0xffffffffu, 0xffffffffu},
       {0xffffffffu, 0xffffffffu},
       {0x1cb996fcu, 0xbb002be7u}},
      {{0x13198a2eu, 0x03707344u},
       {0x243f6a88u, 0x85a308d3u},
       {0xc4923a9cu, 0x483df7a0u}},
  };
  for (const Case& c : cases) {
    Drawn d = Draw(RngAlgorithm::kThreeFry,
                   {Join(c.key[0], c.key[1]), Join(c.counter[0], c.counter[1])},
                   ElementType::kU32, {2});
    EXPECT_EQ(d.bits.ToVector<uint32_t>(),
              (std::vector<uint32_t>{c.words[0], c.words[1]}));
    // One block drawn: the counter moves by one, the key stays.
    EXPECT_EQ(d.state[0], Join(c.key[0], c.key[1]));
    EXPECT_EQ(d.state[1], Join(c.counter[0], c.counter[1]) + 1);
  }
}

TEST(RngBitGenerator, PhiloxKnownAnswers) {
  struct Case {
    uint32_t key[2], counter[4], words[4];
  } cases[] = {
      {{0, 0},
       {0, 0, 0, 0},
       {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
      {{0xffffffffu, 0xffffffffu},
       {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
       {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
      {{0xa4093822u, 0x299f31d0u},
       {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
       {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
  };
  for (const Case& c : cases) {
    const uint64_t low = Join(c.counter[0], c.counter[1]);
    const uint64_t high = Join(c.counter[2], c.counter[3]);
    for (RngAlgorithm a : {RngAlgorithm::kPhilox, RngAlgorithm::kDefault}) {
      Drawn d = Draw(a, {Join(c.key[0], c.key[1]), low, high},
                     ElementType::kU32, {4});
      EXPECT_EQ(
          d.bits.ToVector<uint32_t>(),
          (std::vector<uint32_t>(std::begin(c.words), std::end(c.words))));
      // The 128-bit counter moves by one block, carrying into its top half.
      EXPECT_EQ(d.state[1], low + 1);
      EXPECT_EQ(d.state[2], high + (low + 1 == 0 ? 1 : 0));
    }
  }
}

TEST(RngBitGenerator, WordsPerElementByWidth) {
  const std::vector<uint64_t> state = {0x9abcdef012345678u,
                                       0x876543210fedcba9u};
  // Philox: four 32-bit values a block, two 64-bit ones, and narrow values
  // are the 32-bit ones truncated.
  Drawn words = Draw(RngAlgorithm::kPhilox, state, ElementType::kU32, {9});
  Drawn wide = Draw(RngAlgorithm::kPhilox, state, ElementType::kU64, {5});
  Drawn narrow = Draw(RngAlgorithm::kPhilox, state, ElementType::kU8, {9});
  std::vector<uint32_t> w = words.bits.ToVector<uint32_t>();
  std::vector<uint64_t> v = wide.bits.ToVector<uint64_t>();
  std::vector<uint8_t> b = narrow.bits.ToVector<uint8_t>();
  EXPECT_EQ(v[0], Join(w[0], w[1]));
  EXPECT_EQ(v[1], Join(w[2], w[3]));
  EXPECT_EQ(v[2], Join(w[4], w[5]));
  for (size_t i = 0; i < 9; ++i) EXPECT_EQ(b[i], static_cast<uint8_t>(w[i]));
  EXPECT_EQ(words.state[1], state[1] + 3);  // ceil(9 / 4) blocks
  EXPECT_EQ(wide.state[1], state[1] + 3);   // ceil(5 / 2)
  // ThreeFry: one 64-bit value a block, or two 32-bit ones neighbouring
  // along the dimension halved: the first of equals (3x3: rows 2i, 2i + 1),
  // an even one (3x4: columns), else the longest (5x3 halves the rows).
  Drawn tf_wide = Draw(RngAlgorithm::kThreeFry, state, ElementType::kU64, {4});
  std::vector<uint64_t> tw = tf_wide.bits.ToVector<uint64_t>();
  EXPECT_EQ(tf_wide.state[1], state[1] + 4);
  Drawn rows = Draw(RngAlgorithm::kThreeFry, state, ElementType::kU32, {3, 3});
  std::vector<uint32_t> r = rows.bits.ToVector<uint32_t>();
  EXPECT_EQ(rows.state[1], state[1] + 6);  // blocks of a 2x3 half
  for (int i = 0; i < 3; ++i) EXPECT_EQ(tw[i], Join(r[i], r[3 + i])) << i;
  Drawn columns =
      Draw(RngAlgorithm::kThreeFry, state, ElementType::kU32, {3, 4});
  std::vector<uint32_t> c = columns.bits.ToVector<uint32_t>();
  EXPECT_EQ(columns.state[1], state[1] + 6);  // 3x2
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(tw[i], Join(c[2 * i], c[2 * i + 1])) << i;
  Drawn odd = Draw(RngAlgorithm::kThreeFry, state, ElementType::kU32, {5, 3});
  std::vector<uint32_t> o = odd.bits.ToVector<uint32_t>();
  EXPECT_EQ(odd.state[1], state[1] + 9);  // 3x3
  for (int i = 0; i < 3; ++i) EXPECT_EQ(tw[i], Join(o[i], o[3 + i])) << i;
  EXPECT_EQ(static_cast<uint32_t>(tw[3]), o[6]);
}

}  // namespace
}  // namespace xffi::cpu
