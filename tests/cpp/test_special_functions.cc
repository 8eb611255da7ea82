// The special functions both backends compute (device/special_functions.h)
// as the host compiles them, which is what the CPU's kernels and SimDevice
// run: zeta and polygamma against JAX, including negative and huge q, where
// a direct summation would loop for ~|q| terms, and the special values
// XLA's lowering selects; bessel_i1e against 40-digit values and libstdc++;
// and every function at its poles, negative integers, the ends of its
// domain, large arguments, NaN and inf, in float and double.
#include "device/special_functions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace xffi::special {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNaNF = std::numeric_limits<float>::quiet_NaN();

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
  // x == 1 is the harmonic series, whatever q is.
  EXPECT_EQ(Zeta(1.0, 2.5), kInf);
  EXPECT_EQ(Zeta(1.0, kNaN), kInf);
  EXPECT_EQ(Zeta(1.0, -3.0), kInf);
  // Poles at q = 0, -1, ...: +inf for an even integer x, NaN otherwise.
  EXPECT_EQ(Zeta(2.0, 0.0), kInf);
  EXPECT_EQ(Zeta(2.0, -0.0), kInf);
  EXPECT_EQ(Zeta(4.0, -3.0), kInf);
  EXPECT_TRUE(std::isnan(Zeta(3.0, -2.0)));
  EXPECT_TRUE(std::isnan(Zeta(2.5, -2.0)));
  // Outside the domain.
  EXPECT_TRUE(std::isnan(Zeta(0.5, 2.0)));
  EXPECT_TRUE(std::isnan(Zeta(-2.0, 2.0)));
  EXPECT_TRUE(std::isnan(Zeta(2.5, -0.5)));
  EXPECT_TRUE(std::isnan(Zeta(kNaN, 2.0)));
  EXPECT_TRUE(std::isnan(Zeta(2.0, kNaN)));
  EXPECT_TRUE(std::isnan(Zeta(kInf, 2.0)));
  // -inf counts as a pole; at +inf the tail term is 0 * inf.
  EXPECT_EQ(Zeta(2.0, -kInf), kInf);
  EXPECT_TRUE(std::isnan(Zeta(2.0, kInf)));
  // A float q of -1e9 + 0.5 rounds to the pole -1e9 (x = 3 is odd).
  EXPECT_TRUE(std::isnan(Zeta(3.0f, -999999999.5f)));
  EXPECT_EQ(Zeta(2.0f, 0.0f), kInfF);
  EXPECT_EQ(Zeta(1.0f, 7.0f), kInfF);
  EXPECT_TRUE(std::isnan(Zeta(0.5f, 2.0f)));
  EXPECT_TRUE(std::isnan(Zeta(2.0f, kNaNF)));
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
  EXPECT_TRUE(std::isnan(Polygamma(kNaN, 2.0)));
  EXPECT_TRUE(std::isnan(Polygamma(kInf, 2.0)));
  EXPECT_TRUE(std::isnan(Polygamma(0.5f, 2.0f)));
  EXPECT_EQ(Polygamma(0.0, 3.25), Digamma(3.25));
  EXPECT_EQ(Polygamma(0.0f, 3.25f), Digamma(3.25f));
}

TEST(PolygammaTest, PolesAndInfinities) {
  // At the non-positive integers: zeta(n + 1, x)'s poles, +inf for an odd
  // n (an even n + 1) and NaN for an even one, as XLA's lowering gives.
  EXPECT_EQ(Polygamma(1.0, 0.0), kInf);
  EXPECT_EQ(Polygamma(3.0, -2.0), kInf);
  EXPECT_TRUE(std::isnan(Polygamma(2.0, -1.0)));
  EXPECT_TRUE(std::isnan(Polygamma(0.0, -1.0)));  // digamma's pole
  EXPECT_EQ(Polygamma(1.0f, 0.0f), kInfF);
}

// 40-digit values of exp(-x) I1(x) (mpmath 1.3: besseli(1, x) * exp(-x)).
const std::vector<std::pair<double, double>> kBesselI1e = {
    {0.001, 0.0004995003123542213}, {0.5, 0.1564208031848717},
    {1, 0.20791041534970844},       {2.5, 0.20658464953126657},
    {5, 0.16397226694454237},       {10, 0.12126268138445552},
    {21.99, 0.08360183559310583},   {22, 0.08358351227442368},
    {22.01, 0.08356520097222246},   {30, 0.07191633059864755},
    {100, 0.03974415302513025},     {700, 0.015070519444716848},
    {10000, 0.003989273195983662},
};

// |a - b| in units of b's last place.
template <typename T>
double Ulps(T a, T b) {
  return std::fabs(static_cast<double>(a) - static_cast<double>(b)) /
         static_cast<double>(std::nextafter(std::fabs(b), T(kInf)) -
                             std::fabs(b));
}

TEST(BesselI1eTest, WithinAFewUlpsOfFortyDigitValues) {
  for (const auto& [x, expected] : kBesselI1e) {
    // XLA's double fit is good to about 2e-15 (9 ulp) by Cephes' account.
    EXPECT_LE(Ulps(BesselI1e(x), expected), 7) << "bessel_i1e(" << x << ")";
    EXPECT_EQ(BesselI1e(-x), -BesselI1e(x)) << "odd at " << x;
    // float: the double value rounded, so within one float ulp.
    const float xf = static_cast<float>(x);
    if (xf == x) {
      EXPECT_LE(Ulps(BesselI1e(xf), static_cast<float>(expected)), 1)
          << "bessel_i1e(" << x << "f)";
    }
  }
}

TEST(BesselI1eTest, AgreesWithLibstdcxxAcrossBothMethods) {
  // std::cyl_bessel_i is what the CPU backend called before; it is host
  // only, and overflows for x above ~700 where exp(-x) I1(x) does not.
  for (double x = -40; x <= 40; x += 0.0625) {
    const double want = std::cyl_bessel_i(1.0, std::fabs(x)) *
                        std::exp(-std::fabs(x)) * (x < 0 ? -1 : 1);
    EXPECT_NEAR(BesselI1e(x), want, 1e-14 * std::fabs(want)) << x;
    EXPECT_EQ(BesselI1e(static_cast<float>(x)),
              static_cast<float>(BesselI1e(x)))
        << x;
  }
}

TEST(BesselI1eTest, SpecialPoints) {
  EXPECT_EQ(BesselI1e(0.0), 0.0);
  EXPECT_FALSE(std::signbit(BesselI1e(0.0)));
  EXPECT_FALSE(std::signbit(BesselI1e(-0.0)));
  EXPECT_EQ(BesselI1e(kInf), 0.0);
  EXPECT_EQ(BesselI1e(-kInf), 0.0);
  EXPECT_TRUE(std::signbit(BesselI1e(-kInf)));
  EXPECT_TRUE(std::isnan(BesselI1e(kNaN)));
  EXPECT_TRUE(std::isnan(BesselI1e(kNaNF)));
  EXPECT_EQ(BesselI1e(kInfF), 0.0f);
  // Small x: x/2 (1 - x + ...); large x: (2 pi x)^-1/2 (1 - 3/(8x) ...).
  EXPECT_DOUBLE_EQ(BesselI1e(1e-300), 0.5e-300);
  EXPECT_DOUBLE_EQ(BesselI1e(1e30), 1 / std::sqrt(2 * M_PI * 1e30));
  EXPECT_DOUBLE_EQ(BesselI1e(-1e300), -1 / std::sqrt(2 * M_PI * 1e300));
  // The two methods meet at 22 without a step.
  const double below = std::nextafter(22.0, 0.0);
  EXPECT_LE(Ulps(BesselI1e(below), BesselI1e(22.0)), 4);
  const double above = std::nextafter(22.0, 30.0);
  EXPECT_LE(Ulps(BesselI1e(above), BesselI1e(22.0)), 4);
}

TEST(LgammaTest, PolesNegativeIntegersAndLargeArguments) {
  for (double pole : {0.0, -0.0, -1.0, -2.0, -3.0, -1e5, -1e300})
    EXPECT_EQ(Lgamma(pole), kInf) << pole;
  for (float pole : {0.0f, -1.0f, -7.0f, -1e20f})
    EXPECT_EQ(Lgamma(pole), kInfF) << pole;
  EXPECT_EQ(Lgamma(1.0), 0.0);
  EXPECT_EQ(Lgamma(2.0f), 0.0f);
  EXPECT_EQ(Lgamma(kInf), kInf);
  EXPECT_EQ(Lgamma(-kInf), kInf);
  EXPECT_TRUE(std::isnan(Lgamma(kNaN)));
  EXPECT_TRUE(std::isnan(Lgamma(kNaNF)));
  // log|Gamma(-2.5)| = log(8 sqrt(pi) / 15); Stirling at 1e30.
  EXPECT_NEAR(Lgamma(-2.5), std::log(8 * std::sqrt(M_PI) / 15), 1e-15);
  EXPECT_NEAR(Lgamma(1e30), 1e30 * (std::log(1e30) - 1), 1e-15 * 6.8e31);
  EXPECT_EQ(Lgamma(3.5f), std::lgamma(3.5f));
}

TEST(DigammaTest, PolesNegativeIntegersAndLargeArguments) {
  for (double pole : {0.0, -0.0, -1.0, -3.0, -1e5, -kInf, kNaN})
    EXPECT_TRUE(std::isnan(Digamma(pole))) << pole;
  for (float pole : {0.0f, -2.0f, -1e20f, -kInfF})
    EXPECT_TRUE(std::isnan(Digamma(pole))) << pole;
  EXPECT_EQ(Digamma(kInf), kInf);
  EXPECT_EQ(Digamma(kInfF), kInfF);
  // psi(1) = -gamma, psi(1/2) = -gamma - 2 log 2, reflection at -0.5.
  const double euler = 0.5772156649015329;
  EXPECT_NEAR(Digamma(1.0), -euler, 1e-15);
  EXPECT_NEAR(Digamma(0.5), -euler - 2 * std::log(2.0), 1e-15);
  // Reflection: psi(-1/2) = psi(3/2) - pi cot(-pi/2) = 2 - gamma - 2 log 2.
  EXPECT_NEAR(Digamma(-0.5), 2 - euler - 2 * std::log(2.0), 1e-15);
  EXPECT_NEAR(Digamma(1e30), std::log(1e30), 1e-13);
  // float is the double value rounded.
  for (float x : {-7.75f, -0.5f, 1e-3f, 0.25f, 3.25f, 1e30f})
    EXPECT_EQ(Digamma(x), static_cast<float>(Digamma(static_cast<double>(x))))
        << x;
}

TEST(ErfInvTest, EndsOfTheDomainAndBeyond) {
  EXPECT_EQ(ErfInv(1.0), kInf);
  EXPECT_EQ(ErfInv(-1.0), -kInf);
  EXPECT_EQ(ErfInv(1.0f), kInfF);
  EXPECT_EQ(ErfInv(-1.0f), -kInfF);
  for (double out : {1.5, -1.0000001, kInf, -kInf, kNaN})
    EXPECT_TRUE(std::isnan(ErfInv(out))) << out;
  for (float out : {1.5f, -1.0001f, kInfF, kNaNF})
    EXPECT_TRUE(std::isnan(ErfInv(out))) << out;
  EXPECT_TRUE(std::signbit(ErfInv(-0.0)));
  EXPECT_TRUE(std::signbit(ErfInv(-0.0f)));
  // double is refined to erf's inverse; float is XLA's polynomial.
  // (Near 1 through erfc, where 1 - y is exact and erf's rounding is not.)
  for (double y : {1e-10, 0.3, 0.5})
    EXPECT_NEAR(std::erf(ErfInv(y)), y, 2e-16) << y;
  for (double y : {0.9, 0.999999, 1 - 1e-9, 1 - 1e-12, 1 - 1e-15, 1 - 0x1p-53})
    EXPECT_NEAR(std::erfc(ErfInv(y)), 1 - y, 1e-14 * (1 - y)) << y;
  // 40-digit values (mpmath 1.3's erfinv) far in the tail, where the
  // estimate alone is poor: within an ulp.
  EXPECT_LE(Ulps(ErfInv(1 - 1e-12), 5.042031898572696), 1);
  EXPECT_LE(Ulps(ErfInv(-(1 - 1e-15)), -5.675915739744713), 1);
  EXPECT_LE(Ulps(ErfInv(1 - 0x1p-53), 5.8635847487551676), 1);
  for (float y : {0.3f, 0.9f, 0.9999f})
    EXPECT_NEAR(std::erf(static_cast<double>(ErfInv(y))), y, 1e-6) << y;
}

}  // namespace
}  // namespace xffi::special
