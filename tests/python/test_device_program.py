"""xffi.Program(platform=...): the CUDA platform on xffi's simulated GPU
("sim") gives the Host executor's results; "cuda" without a GPU fails with
one clear error; what the device backend cannot run is refused at compile
time naming the op and its place."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")

SOFTMAX = """HloModule softmax
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,8] parameter(0)
  w = f32[8,8] parameter(1)
  y = f32[4,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  low = f32[] constant(-inf)
  m = f32[4] reduce(y, low), dimensions={1}, to_apply=max_f32
  mb = f32[4,8] broadcast(m), dimensions={0}
  d = f32[4,8] subtract(y, mb)
  e = f32[4,8] exponential(d)
  zero = f32[] constant(0)
  s = f32[4] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[4,8] broadcast(s), dimensions={0}
  ROOT p = f32[4,8] divide(e, sb)
}
"""


def test_sim_platform_matches_host_and_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    w = rng.standard_normal((8, 8)).astype(np.float32)
    on_sim = xffi.Program.from_text(SOFTMAX, platform="sim")(x, w)
    on_host = xffi.Program.from_text(SOFTMAX)(x, w)
    y = x.astype(np.float64) @ w.astype(np.float64)
    e = np.exp(y - y.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(on_sim, on_host, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(on_sim, want, rtol=1e-5, atol=1e-6)


def test_cuda_without_a_gpu_is_one_clear_error():
    try:
        xffi.Program.from_text(SOFTMAX, platform="cuda")
    except RuntimeError as error:
        assert "no CUDA device: " in str(error)
    else:
        pytest.skip("this machine has a CUDA device")


def test_unknown_platform_is_a_value_error():
    with pytest.raises(ValueError, match="'tpu'"):
        xffi.Program.from_text(SOFTMAX, platform="tpu")


def test_unsupported_op_is_refused_naming_op_and_place():
    text = """HloModule chol
ENTRY main {
  x = f32[4,4] parameter(0)
  ROOT s = f32[4,4] cholesky(x), lower=true
}
"""
    with pytest.raises(NotImplementedError,
                       match=r"cannot run op 's' \(cholesky\) in computation "
                             r"'main' at prog.hlo:4:8"):
        xffi.Program.from_text(text, source_name="prog.hlo", platform="sim")


def test_sort_of_f16_keys_with_values_on_sim_matches_numpy():
    # jnp.sort's TOTALORDER comparator over f16 keys carrying f32 values:
    # a stable sort, NaN last.
    text = """HloModule sort
lt {
  a = f16[] parameter(0)
  b = f16[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT l = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY main {
  k = f16[3,50] parameter(0)
  v = f32[3,50] parameter(1)
  ROOT s = (f16[3,50], f32[3,50]) sort(k, v), dimensions={1}, is_stable=true, to_apply=lt
}
"""
    rng = np.random.default_rng(1)
    keys = rng.integers(-5, 5, (3, 50)).astype(np.float16)
    keys[1, 7] = np.nan
    values = rng.standard_normal((3, 50)).astype(np.float32)
    got_keys, got_values = xffi.Program.from_text(text, platform="sim")(
        keys, values)
    order = np.argsort(keys, axis=1, kind="stable")
    np.testing.assert_array_equal(got_keys, np.take_along_axis(keys, order, 1))
    np.testing.assert_array_equal(got_values,
                                  np.take_along_axis(values, order, 1))


@pytest.mark.parametrize("kind,dtype,in_shape,lengths", [
    ("FFT", np.complex64, (2, 4096), (4096,)),
    ("IFFT", np.complex128, (3, 4099), (4099,)),  # prime: Bluestein
    ("RFFT", np.float64, (2, 4099), (4099,)),
    ("IRFFT", np.complex64, (2, 2050), (4098,)),
    ("FFT", np.complex128, (2, 8, 12, 10), (8, 12, 10)),
    ("IRFFT", np.complex128, (7, 12, 9), (7, 12, 16)),
])
def test_long_and_3d_ffts_on_sim_match_numpy(kind, dtype, in_shape, lengths):
    # The device functor's O(L log L) transforms (radix 2, Bluestein for
    # other lengths) against numpy's pocketfft, in double.
    rng = np.random.default_rng(2)
    x = rng.standard_normal(in_shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(in_shape)
    x = x.astype(dtype)
    axes = tuple(range(-len(lengths), 0))
    x64 = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    want = {"FFT": lambda: np.fft.fftn(x64, axes=axes),
            "IFFT": lambda: np.fft.ifftn(x64, axes=axes),
            "RFFT": lambda: np.fft.rfftn(x64, axes=axes),
            "IRFFT": lambda: np.fft.irfftn(x64, s=lengths, axes=axes)}[kind]()
    wide = dtype in (np.complex128, np.float64)
    out_type = {("RFFT", True): "c128", ("RFFT", False): "c64",
                ("IRFFT", True): "f64", ("IRFFT", False): "f32"}.get(
                    (kind, wide), "c128" if wide else "c64")
    in_type = {np.complex64: "c64", np.complex128: "c128",
               np.float32: "f32", np.float64: "f64"}[dtype]
    dims = lambda shape: ",".join(str(d) for d in shape)
    text = f"""HloModule f
ENTRY main {{
  x = {in_type}[{dims(in_shape)}] parameter(0)
  ROOT f = {out_type}[{dims(want.shape)}] fft(x), fft_type={kind}, fft_length={{{dims(lengths)}}}
}}
"""
    got = xffi.Program.from_text(text, platform="sim")(x)
    scale = np.abs(want).max()
    tolerance = 1e-12 if wide else 1e-6
    np.testing.assert_allclose(got, want, rtol=0, atol=tolerance * scale)
