// The scalar special functions behind chlo.zeta and chlo.polygamma against
// JAX, including negative and huge-magnitude q, where a direct summation
// would loop for ~|q| terms, and the special values XLA's lowering selects.
#include "cpu/math_functions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace xffi::cpu {
namespace {

template <typename T>
struct Sample {
  T first, second, expected;
};

// Produced with JAX 0.10.2 on CPU (jax_enable_x64 on), printing repr() of
//   jax.lax.zeta(jnp.asarray(x, dtype), jnp.asarray(q, dtype))
//   jax.lax.polygamma(jnp.asarray(n, dtype), jnp.asarray(x, dtype))
// for dtype float64 and float32.
const std::vector<Sample<double>> kZetaF64 = {
    {3.0, -3.5, 0.03077841066051322},
    {3.0, -999.5, 4.999998750000729e-07},
    {3.0, -999999999.5, 4.999999999999999e-19},
    {2.0, -0.5, 8.934802200544677},
    {4.0, -3.5, 32.46464325991042},
    {1.5, 0.5, 4.776537947554833},
    {2.0, 1.0, 1.6449340668482264},
    {3.0, 1.0, 1.2020569031595942},
    {2.5, 3.7, 0.11475814214741724},
    {10.0, 0.25, 1048576.1076831147},
    {7.0, 12.0, 7.111595356135794e-08},
    {2.0, 1000000.0, 1.000000500000167e-06},
    {50.0, 2.0, 8.881784210930816e-16},
};

const std::vector<Sample<float>> kZetaF32 = {
    {3.0f, -3.5f, 0.03077806532382965f},
    {3.0f, -999.5f, 4.999998282073648e-07f},
    {2.0f, -0.5f, 8.934802055358887f},
    {4.0f, -3.5f, 32.46464538574219f},
    {1.5f, 0.5f, 4.776538372039795f},
    {2.0f, 1.0f, 1.644934058189392f},
    {3.0f, 1.0f, 1.2020570039749146f},
    {2.5f, 3.7f, 0.11475814878940582f},
    {10.0f, 0.25f, 1048576.125f},
    {7.0f, 12.0f, 7.111596289632871e-08f},
    {2.0f, 1000000.0f, 1.0000004522225936e-06f},
    {50.0f, 2.0f, 8.881784197001252e-16f},
};

const std::vector<Sample<double>> kPolygammaF64 = {
    {1.0, 0.5, 4.93480220054468},     {2.0, -3.5, -0.06155682132102636},
    {3.0, 2.25, 0.32454400918839627}, {4.0, 10.0, -0.0007299311682352871},
    {1.0, -2.5, 9.539246644989124},   {5.0, 0.1, 120000069.307511},
};

const std::vector<Sample<float>> kPolygammaF32 = {
    {1.0f, 0.5f, 4.934802055358887f},   {2.0f, -3.5f, -0.061556145548820496f},
    {3.0f, 2.25f, 0.3245442807674408f}, {4.0f, 10.0f, -0.0007299318094737828f},
    {1.0f, -2.5f, 9.539246559143066f},  {5.0f, 0.1f, 120000184.0f},
};

// XLA's pow, exp and lgamma are not libm's, so a few ulps of difference
// remain (more where the terms of a negative q cancel).
template <typename T>
void ExpectClose(T actual, T expected, double relative, const char* what,
                 T first, T second) {
  EXPECT_NEAR(actual, expected, relative * std::fabs(expected))
      << what << "(" << first << ", " << second << ")";
}

TEST(ZetaTest, MatchesJaxInDouble) {
  for (const auto& s : kZetaF64)
    ExpectClose(Zeta(s.first, s.second), s.expected, 1e-14, "zeta", s.first,
                s.second);
}

TEST(ZetaTest, MatchesJaxInFloat) {
  for (const auto& s : kZetaF32)
    ExpectClose(Zeta(s.first, s.second), s.expected, 2e-6, "zeta", s.first,
                s.second);
}

TEST(ZetaTest, SpecialValuesFollowXla) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  // x == 1 is the harmonic series, whatever q is.
  EXPECT_EQ(Zeta(1.0, 2.5), kInf);
  EXPECT_EQ(Zeta(1.0, kNaN), kInf);
  EXPECT_EQ(Zeta(1.0, -3.0), kInf);
  // Poles at q = 0, -1, ...: +inf for an even integer x, NaN otherwise.
  EXPECT_EQ(Zeta(2.0, 0.0), kInf);
  EXPECT_EQ(Zeta(4.0, -3.0), kInf);
  EXPECT_TRUE(std::isnan(Zeta(3.0, -2.0)));
  EXPECT_TRUE(std::isnan(Zeta(2.5, -2.0)));
  // Outside the domain.
  EXPECT_TRUE(std::isnan(Zeta(0.5, 2.0)));
  EXPECT_TRUE(std::isnan(Zeta(2.5, -0.5)));
  EXPECT_TRUE(std::isnan(Zeta(kNaN, 2.0)));
  EXPECT_TRUE(std::isnan(Zeta(2.0, kNaN)));
  EXPECT_TRUE(std::isnan(Zeta(kInf, 2.0)));
  // -inf counts as a pole; at +inf the tail term is 0 * inf.
  EXPECT_EQ(Zeta(2.0, -kInf), kInf);
  EXPECT_TRUE(std::isnan(Zeta(2.0, kInf)));
  // A float q of -1e9 + 0.5 rounds to the pole -1e9 (x = 3 is odd).
  EXPECT_TRUE(std::isnan(Zeta(3.0f, -999999999.5f)));
  EXPECT_EQ(Zeta(2.0f, 0.0f), std::numeric_limits<float>::infinity());
}

TEST(PolygammaTest, MatchesJax) {
  for (const auto& s : kPolygammaF64)
    ExpectClose(Polygamma(s.first, s.second), s.expected, 1e-13, "polygamma",
                s.first, s.second);
  for (const auto& s : kPolygammaF32)
    ExpectClose(Polygamma(s.first, s.second), s.expected, 1e-5, "polygamma",
                s.first, s.second);
}

TEST(PolygammaTest, OrderMustBeANaturalNumber) {
  EXPECT_TRUE(std::isnan(Polygamma(1.5, 2.0)));
  EXPECT_TRUE(std::isnan(Polygamma(-1.0, 2.0)));
  EXPECT_TRUE(std::isnan(Polygamma(std::nan(""), 2.0)));
  EXPECT_TRUE(std::isnan(Polygamma(0.5f, 2.0f)));
  EXPECT_EQ(Polygamma(0.0, 3.25), Digamma(3.25));
  EXPECT_EQ(Polygamma(0.0f, 3.25f), Digamma(3.25f));
}

}  // namespace
}  // namespace xffi::cpu
