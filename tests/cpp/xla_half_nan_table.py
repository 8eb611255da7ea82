"""Writes xla_half_nan_table.h: what XLA:CPU gives, bit for bit, for NaNs
(and a few finite values) going through every conversion that touches f16 or
bf16 and through the f16/bf16 elementwise ops and reductions that produce
NaNs, probed with jax.jit on the CPU backend.

Run from the repository root: .venv/bin/python tests/cpp/xla_half_nan_table.py
(needs clang-format on the PATH). tests/cpp/test_half_nans.cc reads the
header and runs each case through every path xffi computes it on.

Every probe runs twice, on the values alone and on them repeated to more
than 4096 elements (XLA's vectorised loops), and the script checks that both
give the same bits before it writes.
"""

import pathlib
import subprocess

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

jax.config.update("jax_enable_x64", True)

F16, BF16 = np.float16, ml_dtypes.bfloat16
FLOATS = {
    "f16": (np.dtype(F16), np.uint16),
    "bf16": (np.dtype(BF16), np.uint16),
    "f32": (np.dtype(np.float32), np.uint32),
    "f64": (np.dtype(np.float64), np.uint64),
}
# The byte floats whose conversions XLA:CPU routes through f16 (its float
# normalisation widens them there), with the bits they occupy.
BYTE_FLOATS = {
    "f8e5m2": (ml_dtypes.float8_e5m2, 8),
    "f8e4m3fn": (ml_dtypes.float8_e4m3fn, 8),
    "f8e4m3b11fnuz": (ml_dtypes.float8_e4m3b11fnuz, 8),
    "f8e5m2fnuz": (ml_dtypes.float8_e5m2fnuz, 8),
    "f8e4m3fnuz": (ml_dtypes.float8_e4m3fnuz, 8),
    "f8e4m3": (ml_dtypes.float8_e4m3, 8),
    "f8e3m4": (ml_dtypes.float8_e3m4, 8),
    "f8e8m0fnu": (ml_dtypes.float8_e8m0fnu, 8),
    "f4e2m1fn": (ml_dtypes.float4_e2m1fn, 4),
}


def both_signs(patterns, sign):
    return [b for p in patterns for b in (p, p | sign)]


# NaNs of each source type: quiet, signalling, payloads in the bits a
# narrowing keeps and in the bits it drops, all ones; each of both signs.
# Then finite values and infinities (overflow, rounding, an f16 subnormal;
# bf16's smallest normal: its subnormals are f32's, which XLA's max, min,
# clamp and sign flush to zero, a difference outside this table).
VALUES = {
    "f32": both_signs([0x7FC00000, 0x7F800001, 0x7FC12345, 0x7FA00000,
                       0x7F800100, 0x7FFFFFFF], 1 << 31) +
           [0x3F800000, 0x80000000, 0x7F800000, 0xFF800000, 0x477FF000,
            0x3F808001],
    "f64": both_signs([0x7FF8000000000000, 0x7FF0000000000001,
                       0x7FF8123456789ABC, 0x7FF4000000000000,
                       0x7FF0000010000000, 0x7FFFFFFFFFFFFFFF], 1 << 63) +
           [0x3FF0000000000000, 0x8000000000000000, 0x7FF0000000000000,
            0xFFF0000000000000, 0x40EFFE0000000000, 0x3FF0100000010000],
    "f16": both_signs([0x7E00, 0x7C01, 0x7E09, 0x7D00, 0x7FFF, 0x7C3F],
                      1 << 15) +
           [0x3C00, 0x8000, 0x7C00, 0xFC00, 0x0001, 0x7BFF],
    "bf16": both_signs([0x7FC0, 0x7F81, 0x7FC1, 0x7FA0, 0x7FFF, 0x7F8F],
                       1 << 15) +
            [0x3F80, 0x8000, 0x7F80, 0xFF80, 0x0080, 0x7F7F],
}

REPEAT = 256  # 18 values x 256 > 4096


def as_type(bits, name):
    dt, u = FLOATS[name]
    return np.array(bits, u).view(dt)


def run(fn, *arrays, both=False):
    """fn's bits on the arrays, checked against its bits on them repeated.
    both: where the repeated run gives another value too (XLA's vectorised
    add and multiply of two NaNs of opposite signs return either operand's
    NaN, depending on the element's place), also return that value."""
    short = np.asarray(jax.jit(fn)(*arrays))
    long = np.asarray(jax.jit(fn)(*[np.tile(a, REPEAT) for a in arrays]))
    u = np.dtype(f"uint{short.dtype.itemsize * 8}")
    short, long = short.view(u), long.view(u).reshape(REPEAT, -1)
    if not both:
        assert (long == short).all(), (fn, short, long)
        return short
    other = short.copy()
    for i in range(len(short)):
        seen = set(long[:, i].tolist()) - {int(short[i])}
        assert len(seen) <= 1, (fn, i, seen)
        if seen:
            other[i] = seen.pop()
    return short, other


def conversions():
    """(from, to, inputs, outputs) for every pair."""
    cases = []
    pairs = [("f32", "f16"), ("f32", "bf16"), ("f64", "f16"), ("f64", "bf16"),
             ("f16", "f32"), ("f16", "f64"), ("bf16", "f32"),
             ("bf16", "f64"), ("f16", "bf16"), ("bf16", "f16")]
    for src, dst in pairs:
        x = as_type(VALUES[src], src)
        out = run(lambda v: jax.lax.convert_element_type(
            v, FLOATS[dst][0]), x)
        cases.append((src, dst, VALUES[src], out.tolist()))
    for name, (dt, bits) in BYTE_FLOATS.items():
        # Every pattern of the byte float to f16 and bf16 ...
        patterns = list(range(1 << bits))
        x = np.array(patterns, np.uint8).view(dt)
        for dst in ("f16", "bf16"):
            out = run(lambda v: jax.lax.convert_element_type(
                v, FLOATS[dst][0]), x)
            cases.append((name, dst, patterns, out.tolist()))
        # ... and the f16 and bf16 values to it.
        for src in ("f16", "bf16"):
            x = as_type(VALUES[src], src)
            out = run(lambda v: jax.lax.convert_element_type(v, dt), x)
            cases.append((src, name, VALUES[src], out.tolist()))
    return cases


def unary_ops():
    ops = {
        "negate": jax.lax.neg,
        "abs": jax.lax.abs,
        "sign": jax.lax.sign,
        "clamp": lambda x: jax.lax.clamp(jnp.asarray(-1, x.dtype), x,
                                         jnp.asarray(1, x.dtype)),
    }
    cases = []
    for t in ("f16", "bf16"):
        x = as_type(VALUES[t], t)
        for name, fn in ops.items():
            out = run(fn, x).tolist()
            cases.append((t, name, VALUES[t], out, out))
    return cases


def binary_ops():
    ops = {
        "maximum": jax.lax.max,
        "minimum": jax.lax.min,
        "add": jax.lax.add,
        "multiply": jax.lax.mul,
    }
    cases = []
    for t in ("f16", "bf16"):
        values = VALUES[t]
        n = len(values)
        a = as_type(np.repeat(values, n).tolist(), t)
        b = as_type(np.tile(values, n).tolist(), t)
        for name, fn in ops.items():
            out, other = run(fn, a, b, both=True)
            cases.append((t, name, values, out.tolist(), other.tolist()))
        # Reductions of [a, b] over rows and over columns: one answer each.
        for name, red in (("reduce-maximum", jnp.max),
                          ("reduce-minimum", jnp.min)):
            rows = np.asarray(jax.jit(lambda x: red(x, axis=1))(
                np.stack([a, b], 1))).view(np.uint16)
            columns = np.asarray(jax.jit(lambda x: red(x, axis=0))(
                np.stack([a, b], 0))).view(np.uint16)
            assert (rows == columns).all(), (t, name)
            cases.append((t, name, values, rows.tolist(), rows.tolist()))
        # Windows of [a, b] (max pooling), from the same init.
        for name, op, init in (("window-maximum", jax.lax.max, -np.inf),
                               ("window-minimum", jax.lax.min, np.inf)):
            out = np.asarray(jax.jit(lambda x: jax.lax.reduce_window(
                x, np.array(init, x.dtype), op, (1, 2), (1, 1), "VALID"))(
                    np.stack([a, b], 1))).view(np.uint16)
            flat = out.reshape(-1).tolist()
            cases.append((t, name, values, flat, flat))
    return cases


def hex_list(values, width):
    return ", ".join(f"0x{int(v):0{width}x}" for v in values)


def main():
    lines = [
        "// Generated by tests/cpp/xla_half_nan_table.py (do not edit): what",
        "// XLA:CPU gives for NaNs (and a few finite values) through the",
        "// conversions that touch f16 and bf16 and the f16/bf16 elementwise",
        f"// ops, probed with jax.jit on jax {jax.__version__}'s CPU backend.",
        "// Bits are the types' storage, zero-extended to 64.",
        "#ifndef XFFI_TESTS_CPP_XLA_HALF_NAN_TABLE_H_",
        "#define XFFI_TESTS_CPP_XLA_HALF_NAN_TABLE_H_",
        "",
        "#include <cstddef>",
        "#include <cstdint>",
        "",
        "namespace xffi::test {",
        "",
        "// convert(from -> to): out[i] is the conversion of in[i].",
        "struct XlaConvertCase {",
        "  const char* from;  // HLO type names",
        "  const char* to;",
        "  size_t count;",
        "  const uint64_t* in;",
        "  const uint64_t* out;",
        "};",
        "",
        "// An op on f16 or bf16. Unary: out[i] = op(values[i]). Binary (and",
        "// the reductions and windows of [a, b] rows): out[i * count + j] =",
        "// op(values[i], values[j]).",
        "struct XlaHalfOpCase {",
        "  const char* type;",
        "  // HLO opcode, or reduce-/window- maximum/minimum (reduce and",
        "  // reduce-window of [a, b] rows from -inf / +inf)",
        "  const char* op;",
        "  bool binary;",
        "  size_t count;",
        "  const uint64_t* values;",
        "  const uint64_t* out;",
        "  // What XLA gives at other places of a longer array, where that",
        "  // differs: its vectorised add and multiply of two NaNs of",
        "  // opposite signs return either one (out otherwise).",
        "  const uint64_t* other;",
        "};",
        "",
    ]
    entries = []
    for k, (src, dst, ins, outs) in enumerate(conversions()):
        lines.append(f"inline constexpr uint64_t kXlaConvertIn{k}[] = "
                     f"{{{hex_list(ins, 4)}}};")
        lines.append(f"inline constexpr uint64_t kXlaConvertOut{k}[] = "
                     f"{{{hex_list(outs, 4)}}};")
        entries.append(f'    {{"{src}", "{dst}", {len(ins)}, kXlaConvertIn{k}, '
                       f"kXlaConvertOut{k}}},")
    lines.append("inline constexpr XlaConvertCase kXlaConverts[] = {")
    lines += entries
    lines += ["};", ""]
    entries = []
    values_written = set()
    for k, (t, op, values, outs, others) in enumerate(unary_ops() +
                                                     binary_ops()):
        if t not in values_written:
            lines.append(f"inline constexpr uint64_t kXla{t.upper()}Values[] = "
                         f"{{{hex_list(values, 4)}}};")
            values_written.add(t)
        lines.append(f"inline constexpr uint64_t kXlaHalfOpOut{k}[] = "
                     f"{{{hex_list(outs, 4)}}};")
        other = f"kXlaHalfOpOut{k}"
        if others != outs:
            other = f"kXlaHalfOpOther{k}"
            lines.append(f"inline constexpr uint64_t {other}[] = "
                         f"{{{hex_list(others, 4)}}};")
        binary = "true" if len(outs) != len(values) else "false"
        entries.append(f'    {{"{t}", "{op}", {binary}, {len(values)}, '
                       f"kXla{t.upper()}Values, kXlaHalfOpOut{k}, {other}}},")
    lines.append("inline constexpr XlaHalfOpCase kXlaHalfOps[] = {")
    lines += entries
    lines += ["};", "", "}  // namespace xffi::test", "",
              "#endif  // XFFI_TESTS_CPP_XLA_HALF_NAN_TABLE_H_", ""]
    path = pathlib.Path(__file__).with_name("xla_half_nan_table.h")
    path.write_text("\n".join(lines))
    subprocess.run(["clang-format", "-i", str(path)], check=True)


if __name__ == "__main__":
    main()
