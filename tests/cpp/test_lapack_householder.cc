// lapack_?orgqr/ungqr_ffi and lapack_?ormqr/unmqr_ffi
// (src/cpu/lapack/householder.cc): ormqr's op(Q) c and c op(Q), for both
// sides and both transposes, against Q built by orgqr; the conditions
// LAPACK would stop the process on are errors instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

template <typename T>
std::string ProductName() {
  return TargetName<T>(kIsComplex<T> ? "ungqr" : "orgqr");
}
template <typename T>
std::string MultiplyName() {
  return TargetName<T>(kIsComplex<T> ? "unmqr" : "ormqr");
}

template <typename T>
class HouseholderTest : public ::testing::Test {};
TYPED_TEST_SUITE(HouseholderTest, ElementTypes);

TYPED_TEST(HouseholderTest, MultiplyMatchesTheExplicitQ) {
  using T = TypeParam;
  const int64_t order = 4, k = 3, batch = 2;
  // Reflectors of a batch of QR factorisations of order x k matrices.
  std::vector<Matrix<T>> as = {Random<T>(order, k, 1), Random<T>(order, k, 2)};
  std::vector<T> x = Stack(as), factors(x.size()), tau(batch * k);
  auto qr = testing::CallFrameBuilder()
                .Arg(x.data(), {batch, order, k})
                .Ret(factors.data(), {batch, order, k})
                .Ret(tau.data(), {batch, k})
                .Build();
  ASSERT_TRUE(CallTarget(TargetName<T>("geqrf"), qr).ok());
  // The full Q: the reflectors padded to order x order.
  std::vector<T> padded(batch * order * order, T(0)), q(padded.size());
  for (int64_t i = 0; i < batch; ++i)
    std::copy_n(factors.data() + i * order * k, order * k,
                padded.data() + i * order * order);
  auto build = testing::CallFrameBuilder()
                   .Arg(padded.data(), {batch, order, order})
                   .Arg(tau.data(), {batch, k})
                   .Ret(q.data(), {batch, order, order})
                   .Build();
  auto built = CallTarget(ProductName<T>(), build);
  ASSERT_TRUE(built.ok()) << built.message();

  for (bool left : {true, false}) {
    for (bool transpose : {false, true}) {
      SCOPED_TRACE(std::string(left ? "left" : "right") +
                   (transpose ? " transposed" : ""));
      const int64_t rows = left ? order : 2, cols = left ? 2 : order;
      std::vector<Matrix<T>> cs = {Random<T>(rows, cols, 5),
                                   Random<T>(rows, cols, 6)};
      std::vector<T> c = Stack(cs), out(c.size());
      auto frame = testing::CallFrameBuilder()
                       .Arg(factors.data(), {batch, order, k})
                       .Arg(tau.data(), {batch, k})
                       .Arg(c.data(), {batch, rows, cols})
                       .Ret(out.data(), {batch, rows, cols})
                       .Attr("left", left)
                       .Attr("transpose", transpose)
                       .Build();
      auto result = CallTarget(MultiplyName<T>(), frame);
      ASSERT_TRUE(result.ok()) << result.message();
      for (int64_t i = 0; i < batch; ++i) {
        Matrix<T> qi =
            Matrix<T>::From(q.data() + i * order * order, order, order);
        Matrix<T> op = transpose ? Adjoint(qi) : qi;
        Matrix<T> want = left ? Multiply(op, cs[i]) : Multiply(cs[i], op);
        Matrix<T> got =
            Matrix<T>::From(out.data() + i * rows * cols, rows, cols);
        EXPECT_LT(RelativeError(got, want), Tolerance<T>()) << i;
      }
    }
  }
}

TEST(HouseholderErrors, ProductNeedsRowsAtLeastColumnsAtLeastReflectors) {
  std::vector<float> x(12, 1.0f), tau(4, 0.5f), out(12);
  auto wide = testing::CallFrameBuilder()
                  .Arg(x.data(), {3, 4})
                  .Arg(tau.data(), {3})
                  .Ret(out.data(), {3, 4})
                  .Build();
  auto result = CallTarget("lapack_sorgqr_ffi", wide);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(),
              HasSubstr("lapack_sorgqr_ffi: needs rows >= columns >= "
                        "reflectors; x is 3x4 with 3 reflectors"));

  auto many = testing::CallFrameBuilder()
                  .Arg(x.data(), {4, 3})
                  .Arg(tau.data(), {4})
                  .Ret(out.data(), {4, 3})
                  .Build();
  EXPECT_THAT(CallTarget("lapack_sorgqr_ffi", many).message(),
              HasSubstr("x is 4x3 with 4 reflectors"));

  auto scalar_tau = testing::CallFrameBuilder()
                        .Arg(x.data(), {4, 3})
                        .Arg(tau.data(), {})
                        .Ret(out.data(), {4, 3})
                        .Build();
  EXPECT_THAT(CallTarget("lapack_sorgqr_ffi", scalar_tau).message(),
              HasSubstr("argument 1 (tau) must have rank >= 1"));
}

TEST(HouseholderErrors, MultiplyChecksTheReflectorsAgainstC) {
  std::vector<double> a(12, 1.0), tau(3, 0.5), c(8, 1.0), out(8);
  // Left: Q has order 4 = c's rows, but a has 3 rows.
  auto frame = testing::CallFrameBuilder()
                   .Arg(a.data(), {3, 4})
                   .Arg(tau.data(), {3})
                   .Arg(c.data(), {4, 2})
                   .Ret(out.data(), {4, 2})
                   .Attr("left", true)
                   .Attr("transpose", false)
                   .Build();
  auto result = CallTarget("lapack_dormqr_ffi", frame);
  EXPECT_THAT(result.message(),
              HasSubstr("argument 0 (a) has shape [3,4]; expected [4,4]"));
}

}  // namespace
}  // namespace xffi::lapack_test
