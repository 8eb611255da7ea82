"""Worker processes that run cases one at a time, so a case that hangs or
crashes xffi costs that case only: the parent kills a worker that passes
the timeout, records the stage it was in, and starts another."""

import collections
import json
import os
import pathlib
import select
import signal
import subprocess
import sys
import tempfile
import time

from . import report

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def build_python_dir() -> pathlib.Path:
    """BUILD/python, where the build keeps the xffi package (BUILD is
    $XFFI_BUILD_DIR, by default build/release), as tests/python does."""
    build = pathlib.Path(os.environ.get("XFFI_BUILD_DIR",
                                        ROOT / "build" / "release"))
    if not build.is_absolute():
        build = ROOT / build
    return build / "python"


def use_built_xffi():
    path = build_python_dir()
    if any((path / "xffi").glob("_core*.so")) and str(path) not in sys.path:
        sys.path.insert(0, str(path))


class _Worker:
    def __init__(self, log_dir):
        self.log = tempfile.NamedTemporaryFile(
            mode="w+b", dir=log_dir, prefix="worker-", suffix=".log",
            delete=False)
        env = dict(os.environ)
        env.setdefault("JAX_PLATFORMS", "cpu")
        self.process = subprocess.Popen(
            [sys.executable, "-u", str(HERE / "worker.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            env=env, cwd=str(ROOT))
        self.buffer = b""
        self.ready = False
        self.case = None
        self.stage = None
        self.deadline = None

    def send(self, case_id, timeout):
        self.case, self.stage = case_id, "start"
        self.deadline = time.monotonic() + timeout
        self.process.stdin.write((case_id + "\n").encode())
        self.process.stdin.flush()

    def messages(self):
        chunk = os.read(self.process.stdout.fileno(), 1 << 20)
        if not chunk:
            return None
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        return [json.loads(line) for line in lines if line.strip()]

    def log_tail(self, limit=1200) -> str:
        self.log.flush()
        data = pathlib.Path(self.log.name).read_bytes()
        marker = data.rfind(b"\n=== case ")
        if marker >= 0:
            data = data[data.find(b"\n", marker + 1) + 1:]
        text = data.decode(errors="replace").strip()
        return text[-limit:]

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.log.close()
        os.unlink(self.log.name)


def _lost(case_id, stage, status, detail) -> dict:
    """The result of a case whose worker never answered."""
    form, _, step = stage.partition(":")
    where = f"{form} {step}" if step else f"{stage} (JAX)"
    cause = f"{status} in {where}"
    result = {"id": case_id, "function": report.function_of(case_id),
              "status": status,
              "cause": cause, "detail": detail, "forms": {}, "seconds": None}
    if step:
        result["forms"][form] = {"status": status, "cause": cause,
                                 "detail": detail}
    return result


def run_cases(case_ids, jobs=1, timeout=120.0, on_result=None):
    """Runs the cases in `jobs` worker processes; returns their results in
    the order of case_ids. on_result(result, done, total) is called as each
    finishes."""
    pending = collections.deque(case_ids)
    results = {}
    workers = []
    with tempfile.TemporaryDirectory(prefix="xffi-sweep-") as log_dir:
        try:
            while pending or any(w.case for w in workers):
                while len(workers) < min(jobs, len(pending) +
                                         sum(1 for w in workers if w.case)):
                    workers.append(_Worker(log_dir))
                for worker in workers:
                    if worker.ready and worker.case is None and pending:
                        worker.send(pending.popleft(), timeout)
                streams = {w.process.stdout.fileno(): w for w in workers}
                readable, _, _ = select.select(list(streams), [], [], 0.5)
                for fd in readable:
                    worker = streams[fd]
                    messages = worker.messages()
                    for message in messages or ():
                        if "ready" in message:
                            worker.ready = True
                        elif "stage" in message:
                            worker.stage = message["stage"]
                        elif "result" in message:
                            _record(results, message["result"], on_result,
                                    len(case_ids))
                            worker.case = None
                for worker in list(workers):
                    lost = None
                    code = worker.process.poll()
                    if code is not None:
                        signame = (signal.Signals(-code).name if code < 0
                                   else f"exit {code}")
                        if worker.case is None and not worker.ready:
                            raise RuntimeError(
                                "sweep worker failed to start:\n" +
                                worker.log_tail(4000))
                        lost = ("crash", f"{signame}: {worker.log_tail()}")
                    elif worker.case and time.monotonic() > worker.deadline:
                        lost = ("timeout", f"no answer after {timeout:g} s")
                    if lost is None:
                        continue
                    if worker.case:
                        _record(results, _lost(worker.case, worker.stage,
                                               *lost),
                                on_result, len(case_ids))
                    worker.stop()
                    workers.remove(worker)
        finally:
            for worker in workers:
                worker.stop()
    return [results[i] for i in case_ids]


def _record(results, result, on_result, total):
    results[result["id"]] = result
    if on_result is not None:
        on_result(result, len(results), total)
