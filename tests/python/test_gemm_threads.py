"""Products through the GEMM libraries give the same bits on any number of
threads (cpu/gemm_blocking.h): dot_general, and the convolutions that run
as im2col times a GEMM (lhs dilation: a transposed convolution's), whose
pool once merged row blocks into one library call per chunk, so four
threads summed some rows differently from one."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
from jax import lax  # noqa: E402


def results_on_threads(f, args, threads):
    text = jax.jit(f).lower(*args).as_text()
    return {
        t: np.asarray(xffi.Program.from_text(text, intra_op_threads=t)(*args))
        for t in threads
    }


def assert_same_bits_and_close(f, args):
    got = results_on_threads(f, args, (1, 2, 3, 4))
    want = np.asarray(jax.jit(f)(*args))
    np.testing.assert_allclose(got[1], want, rtol=1e-4, atol=1e-4)
    for threads in (2, 3, 4):
        assert np.array_equal(got[threads].view(np.uint32),
                              got[1].view(np.uint32)), threads


def test_im2col_convolution_is_the_same_on_any_number_of_threads():
    rng = np.random.default_rng(0)
    # 31 x 31 output positions: 961 rows of im2col, which four threads
    # used to take as 64-row calls and one thread as one call.
    x = rng.standard_normal((1, 16, 16, 64)).astype(np.float32)
    w = rng.standard_normal((3, 3, 64, 128)).astype(np.float32)

    def conv(x, w):
        return lax.conv_general_dilated(
            x, w, (1, 1), ((1, 1), (1, 1)), lhs_dilation=(2, 2),
            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    assert_same_bits_and_close(conv, (x, w))


@pytest.mark.parametrize("m,k,n", [(512, 1024, 768), (96, 300, 2000),
                                   (1000, 64, 130)])
def test_dot_is_the_same_on_any_number_of_threads(m, k, n):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    assert_same_bits_and_close(lambda a, b: a @ b, (a, b))
