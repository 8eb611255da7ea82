"""The memory of xffi.Program's result arrays: large results come from a
pool that takes them back when the arrays die and hands the same memory to
the next call's results (python/src/result_memory_pool.h). Results must
still never share memory while alive, stay valid after their Program is
gone, and behave as arrays that own their data."""

import gc
import threading

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
_core = xffi._core

ROWS, COLS = 512, 1024  # 2 MB of f32: above the pool's 1 MB floor


def three_results_program(rows=ROWS, cols=COLS):
    t = f"tensor<{rows}x{cols}xf32>"
    return xffi.Program.from_text(
        f"func.func @main(%x: {t}) -> ({t}, {t}, {t}) {{\n"
        f"  %0 = stablehlo.add %x, %x : {t}\n"
        f"  %1 = stablehlo.multiply %x, %x : {t}\n"
        f"  %2 = stablehlo.negate %x : {t}\n"
        f"  return %0, %1, %2 : {t}, {t}, {t}\n}}\n")


def expected(x):
    return x + x, x * x, -x


def check(results, x):
    for got, want in zip(results, expected(x)):
        np.testing.assert_array_equal(got, want)


def address(array):
    return array.__array_interface__["data"][0]


@pytest.fixture
def pool_limit():
    """Runs the test with room for a few calls' results, and puts the
    module's limit back after it."""
    previous = _core._set_result_memory_limit(64 << 20)
    gc.collect()
    yield
    _core._set_result_memory_limit(previous)


def test_results_of_a_dead_call_are_reused_by_the_next(pool_limit):
    program = three_results_program()
    x = np.random.default_rng(0).standard_normal((ROWS, COLS), np.float32)
    first = program(x)
    check(first, x)
    addresses = {address(a) for a in first}
    del first
    before = _core._result_memory_stats()
    assert before["cached_blocks"] >= 3
    second = program(x + 1)
    after = _core._result_memory_stats()
    assert after["reused"] == before["reused"] + 3
    assert after["allocated"] == before["allocated"]
    assert {address(a) for a in second} == addresses
    check(second, x + 1)


def test_live_results_never_share_memory(pool_limit):
    program = three_results_program()
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal((ROWS, COLS), np.float32) for _ in range(4)]
    kept = [program(x) for x in inputs]
    assert len({address(a) for results in kept for a in results}) == 12
    for results, x in zip(kept, inputs):
        check(results, x)
    # Dropping some and calling again reuses only what was dropped.
    dropped = {address(a) for a in kept[1]}
    del kept[1]
    del inputs[1]
    again = program(inputs[0] * 3)
    assert {address(a) for a in again} == dropped
    for results, x in zip(kept, inputs):
        check(results, x)
    check(again, inputs[0] * 3)


def test_results_outlive_their_program(pool_limit):
    x = np.arange(ROWS * COLS, dtype=np.float32).reshape(ROWS, COLS)
    program = three_results_program()
    results = program(x)
    del program
    gc.collect()
    # Another program of the same sizes must not get the live memory.
    other = three_results_program()(x * 2)
    check(results, x)
    check(other, x * 2)
    assert not {address(a) for a in results} & {address(a) for a in other}


def test_threads_calling_at_once_get_their_own_results(pool_limit):
    program = three_results_program()
    rng = np.random.default_rng(2)
    inputs = [rng.standard_normal((ROWS, COLS), np.float32) for _ in range(4)]
    failures = []
    held = [[] for _ in inputs]

    def work(k):
        try:
            for round_ in range(6):
                results = program(inputs[k] + round_)
                check(results, inputs[k] + round_)
                if round_ % 2 == 0:
                    held[k].append((round_, results))  # some stay alive
        except Exception as error:  # pylint: disable=broad-except
            failures.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in
               range(len(inputs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    live = [address(a) for kept in held for _, results in kept
            for a in results]
    assert len(live) == len(set(live)) == 4 * 3 * 3
    for k, kept in enumerate(held):
        for round_, results in kept:
            check(results, inputs[k] + round_)


def test_with_no_cache_every_result_is_freed(pool_limit):
    _core._set_result_memory_limit(0)
    assert _core._result_memory_stats()["cached_blocks"] == 0
    program = three_results_program()
    x = np.ones((ROWS, COLS), np.float32)
    for _ in range(3):
        check(program(x), x)
    stats = _core._result_memory_stats()
    assert stats["cached_blocks"] == 0 and stats["cached_bytes"] == 0


def test_pooled_results_own_their_data_and_can_be_resized(pool_limit):
    program = three_results_program()
    x = np.full((ROWS, COLS), 2, np.float32)
    doubled = program(x)[0]
    assert doubled.flags.owndata and doubled.flags.writeable
    assert doubled.base is None
    doubled.resize((2 * ROWS, COLS), refcheck=False)  # NumPy reallocates
    np.testing.assert_array_equal(doubled[:ROWS], 4)
    np.testing.assert_array_equal(doubled[ROWS:], 0)
    doubled.resize((8,), refcheck=False)
    np.testing.assert_array_equal(doubled, 4)


def test_small_results_do_not_use_the_pool(pool_limit):
    program = three_results_program(4, 8)
    before = _core._result_memory_stats()
    x = np.ones((4, 8), np.float32)
    check(program(x), x)
    after = _core._result_memory_stats()
    assert (after["reused"], after["allocated"]) == (before["reused"],
                                                     before["allocated"])
