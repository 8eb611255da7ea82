"""Byte-float arithmetic bit for bit against XLA:CPU: every pattern of each
byte-float type as a, against a sample of patterns (every 9th, plus those
next to zero, the largest finite values, infinity and NaN) as b, through
add, sub, mul, div, max, min, clamp, the six compares, neg, abs and exp,
in one program per type run by jax.jit and by xffi from its StableHLO and
HLO text (tests/programs/byte_float_parity.py, whose full grid also takes
the transcendental ops)."""

import pathlib
import sys

import pytest

pytest.importorskip("jax")
pytest.importorskip("xffi")
pytest.importorskip("ml_dtypes")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] /
                       "programs"))
import byte_float_parity  # noqa: E402

OPS, UNARY = byte_float_parity.operation_table()


@pytest.fixture(scope="module")
def report():
    return byte_float_parity.compare_types(list(byte_float_parity.TYPES), OPS,
                                           UNARY, b_stride=9)


@pytest.mark.parametrize("type_name", list(byte_float_parity.TYPES))
def test_results_have_xlas_bytes(type_name, report):
    outcome, refused = report[type_name]
    assert len(outcome) + len(refused) == len(OPS)
    assert len(outcome) >= len(OPS) - 2, refused  # neg/abs, if any
    wrong = {(op, form): (count, examples)
             for op, forms in outcome.items()
             for form, (count, total, examples) in forms.items() if count}
    assert not wrong, wrong


def test_the_comparison_counts_a_wrong_byte_and_a_nan_with_other_bits():
    import numpy as np

    a, b = byte_float_parity.pairs("float8_e5m2", b_stride=9)
    n_b = len(byte_float_parity.sample("float8_e5m2", 9))
    assert len(a) == len(b) == 256 * n_b
    want = a.copy()
    have = want.copy()
    # Flipping the low bit also turns NaN 0x7f into 0x7e, a wrong NaN.
    planted = [3, 5 * n_b, 0x7f * n_b]
    have.view(np.uint8)[planted] ^= 1
    count, total, examples = byte_float_parity.differences(a, b, want, have)
    assert (count, total) == (3, len(a))
    assert examples[0] == (0, int(b.view(np.uint8)[3]), 0, 1)
    assert examples[2] == (0x7f, 0, 0x7f, 0x7e)
    # A unary op reads a only: its results for the first b, one per a.
    count, total, examples = byte_float_parity.differences(
        a, b, want, have, unary=True)
    assert (count, total) == (2, 256)
    assert [e[0] for e in examples] == [5, 0x7f]


# Rows XLA:CPU folds in windows of 32 zero, one and two levels deep.
SAMPLE_LENGTHS = [5, 33, 65, 1025]


@pytest.fixture(scope="module")
def reductions():
    return byte_float_parity.compare_reductions(
        list(byte_float_parity.TYPES), lengths=SAMPLE_LENGTHS, columns=[40])


@pytest.mark.parametrize("type_name", list(byte_float_parity.TYPES))
def test_reductions_have_xlas_bytes(type_name, reductions):
    outcome = reductions[type_name]
    assert set(outcome) == set(byte_float_parity.REDUCE_OPS)
    # Known: a NaN's sign (byte_float_parity.md); every other byte matches.
    wrong = {(op, form): (count, examples)
             for op, forms in outcome.items()
             for form, (count, total, examples, nan_signs) in forms.items()
             if count > (nan_signs if (type_name, op) in
                         byte_float_parity.KNOWN_REDUCTIONS else 0)}
    assert not wrong, wrong
    # Every row and column, in both forms.
    rows = 8 * (len(SAMPLE_LENGTHS) + 1)
    assert all(total == rows for forms in outcome.values()
               for _, total, _, _ in forms.values())


# Products and scans: one contraction past 32, and a sum and a minimum
# scanned in XLA's blocks of 16 one and two levels deep.
@pytest.fixture(scope="module")
def windows():
    return byte_float_parity.compare_windows(
        list(byte_float_parity.TYPES), product_lengths=[33],
        scan_lengths=[17, 300], scan_ops=("cumsum", "cummin"))


@pytest.mark.parametrize("type_name", list(byte_float_parity.TYPES))
def test_products_and_scans_have_xlas_bytes(type_name, windows):
    outcome = windows[type_name]
    assert "dot k=33" in outcome and "cumsum n=300" in outcome
    known = {op for (name, op) in byte_float_parity.KNOWN_WINDOWS
             if name == type_name}
    # Known: a NaN's sign (byte_float_parity.md); every other byte matches.
    wrong = {(label, form): (count, examples)
             for label, forms in outcome.items()
             for form, (count, total, examples, nan_signs) in forms.items()
             if count > (nan_signs if label.split()[0] in known else 0)}
    assert not wrong, wrong
