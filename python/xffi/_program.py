"""Programs: StableHLO or HLO text, or what a Builder built, compiled by
xffi's compiler and run on its CPU executor.

    program = xffi.Program.from_text(jax.jit(f).lower(x).as_text())
    y = program(x)

    b = xffi.Builder("axpy")
    x = b.parameter(0, xffi.Shape.array_shape(np.float32, (3,)), "x")
    y = b.custom_call("python_test.scale", [x], x.shape, api_version=4,
                      attributes={"factor": 2.0, "offset": 1})
    program = xffi.Program(b.build(y))
"""

import threading
from typing import Any, Optional, Sequence

import numpy as np

from . import _core

Shape = _core.Shape
Builder = _core.Builder
Module = _core.Module
Op = _core.Op
Computation = _core.Computation
DeviceArray = _core.DeviceArray


class Program:
    """A compiled program. Calling it with one value per parameter (NumPy
    arrays, DLPack producers, Python scalars or lists; tuples for tuple
    parameters) runs it and returns one array, or a tuple of arrays when the
    program returns a tuple. Arrays of the parameter's dtype cross without
    copies; other values are converted to it.

    Threads may call one Program at once: the GIL is released while the
    compiled program runs (argument conversion and result allocation hold
    it), and concurrent runs each use their own buffers, so they proceed in
    parallel. Handlers the program calls run concurrently too.

    `memory_limit` (bytes; 0: the machine's physical memory, negative: none)
    refuses, with MemoryError giving both figures, a program whose buffers
    need more. `custom_call_timeout` (seconds; 0: none; None: the
    process-wide xffi.set_custom_call_timeout() setting when compiled) fails
    a call with TimeoutError naming the target when an asynchronous custom
    call has not completed by then; the program keeps that run's arrays
    alive, since the handler may still use them, and lets them go at its
    next call after the handler has completed.

    `platform` chooses where it runs: "host" (or "cpu", the default), "cuda"
    (or "gpu": GPU 0, with the handlers registered for CUDA; without a GPU,
    RuntimeError "no CUDA device: ..."), or "sim": the CUDA platform on
    xffi's simulated GPU, where kernels run by their host code. Host
    arguments and results cross to the device and back on each call.

    On a device platform, arguments that are DLPack producers on the
    program's device (CuPy or JAX arrays on GPU 0 for "cuda"; for "sim",
    arrays whose __dlpack_device__ is (12, 0), kDLExtDev: xffi's own
    DeviceArray results) are taken without a trip through the host: they
    must be row-major and of the parameter's dtype and shape. Producers are
    handed the stream the run will use (`__dlpack__(stream=...)`: the
    cudaStream_t as an int for CUDA, as the DLPack Python spec defines; the
    simulated GPU's stream likewise for "sim") and order their pending work
    before it, so the host waits for nothing; a producer whose __dlpack__
    takes no stream is asked without one (CUDA's legacy default stream) and
    the device is synchronised before the run. A device array on another
    device is copied through the host;
    a kDLCUDA one where no CUDA device exists raises RuntimeError "... no
    CUDA device: ...". `device_results=True` leaves the results on the
    device as xffi.DeviceArray (see there), which the next call of any
    program on that device takes as they are."""

    def __init__(self, module: Module, *, intra_op_threads: int = 0,
                 eliminate_dead_code: bool = True, memory_limit: int = 0,
                 custom_call_timeout: Optional[float] = None,
                 platform: str = "host", device_results: bool = False):
        self.module = module
        if custom_call_timeout is None:
            custom_call_timeout = _core.custom_call_timeout()
        self._executable = module.compile(
            intra_op_threads=intra_op_threads,
            eliminate_dead_code=eliminate_dead_code,
            memory_limit=memory_limit,
            custom_call_timeout=custom_call_timeout,
            platform=platform)
        if device_results:
            self._executable.device_results = True

    @classmethod
    def from_text(cls, text: str, *, source_name: str = "<input>",
                  argument_shapes: Optional[Sequence[Any]] = None,
                  **options) -> "Program":
        """Parses StableHLO (as jax.jit(f).lower(...).as_text() prints it)
        or HLO text (it starts with HloModule) and compiles it. Syntax
        errors raise ValueError with SOURCE:LINE:COLUMN; a custom call whose
        target is not registered raises LookupError naming it.

        A shape-polymorphic module (`?` dimensions, as jax.export writes
        symbolic shapes) is refined to concrete shapes before it compiles:
        with `argument_shapes` (xffi.Shape or objects with .shape and
        .dtype, one per argument) it is compiled now for those; without,
        the result is a PolymorphicProgram that compiles once per distinct
        argument-shape signature it is called with."""
        if isinstance(text, bytes):
            text = text.decode()
        shapes = (None if argument_shapes is None else
                  [_as_shape(s) for s in argument_shapes])
        module = _core._parse_program(text, source_name, shapes)
        if module.is_shape_polymorphic:
            program = PolymorphicProgram(text, source_name, module, **options)
        else:
            program = cls(module, **options)
        program.format = _core._detect_program_format(text)
        return program

    @classmethod
    def from_exported(cls, exported, **options) -> "Program":
        """Compiles a jax.export.Exported, or its serialized bytes
        (deserialised with jax.export.deserialize), for xffi's CPU executor;
        the result is called as exported.call is. See xffi._exported."""
        from ._exported import from_exported
        return from_exported(exported, **options)

    format = "builder"

    @property
    def parameter_shapes(self):
        return self._executable.parameter_shapes

    @property
    def result_shape(self):
        return self._executable.result_shape

    @property
    def intra_op_threads(self) -> int:
        """Threads the kernels split their work across (the calling thread
        included), and that handlers reach through ThreadPool."""
        return self._executable.intra_op_threads

    def hlo_text(self) -> str:
        """The program as compiled (after dead-code elimination), as HLO."""
        return self._executable.hlo_text()

    def __call__(self, *args):
        return self._executable(*args)

    def __repr__(self) -> str:
        params = ", ".join(str(s) for s in self.parameter_shapes)
        return f"<xffi.Program ({params}) -> {self.result_shape}>"


def _argument_shape(value: Any) -> tuple:
    shape = getattr(value, "shape", None)
    return tuple(shape) if shape is not None else tuple(np.shape(value))


class _Specializations:
    """The compiled forms of one shape-polymorphic program text, one per
    distinct concrete argument-shape signature, made on first use (under a
    lock: threads calling with a new signature at once compile it once)."""

    def __init__(self, text: str, source_name: str, module: Module,
                 options: dict):
        self._text = text
        self._source_name = source_name
        self._parameters = list(module.parameter_shapes)
        self._options = options
        self._programs: dict = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._programs)

    def get(self, shapes: Sequence[tuple]) -> Program:
        key = tuple(tuple(int(d) for d in s) for s in shapes)
        program = self._programs.get(key)
        if program is not None:
            return program
        if len(key) != len(self._parameters):
            raise TypeError(
                f"the program takes {len(self._parameters)} argument(s), "
                f"got {len(key)}")
        with self._lock:
            program = self._programs.get(key)
            if program is None:
                shapes = [Shape.array_shape(p.numpy_dtype(), dims)
                          for p, dims in zip(self._parameters, key)]
                module = _core._parse_program(self._text, self._source_name,
                                              shapes)
                program = Program(module, **self._options)
                self._programs[key] = program
        return program


class PolymorphicProgram(Program):
    """A shape-polymorphic program (its text has `?` dimensions): each
    call is run by the program refined to its arguments' shapes, compiled
    the first time that signature is seen and kept. A shape the program's
    own checks refuse (JAX's shape assertions) raises ValueError with the
    program's message."""

    def __init__(self, text: str, source_name: str, module: Module,
                 **options):
        self.module = module
        self._specializations = _Specializations(text, source_name, module,
                                                 options)

    @property
    def parameter_shapes(self):
        """The declared shapes; a dynamic dimension is -1."""
        return self.module.parameter_shapes

    @property
    def result_shape(self):
        raise AttributeError("a shape-polymorphic program's result shape "
                             "depends on its arguments; see "
                             "specialize(*shapes).result_shape")

    @property
    def intra_op_threads(self) -> int:
        return self._specializations._options.get("intra_op_threads", 0)

    @property
    def specializations(self) -> int:
        """How many argument-shape signatures have been compiled."""
        return len(self._specializations)

    def specialize(self, *shapes) -> Program:
        """The program compiled for these argument shapes (tuples of
        ints), as a call with arrays of those shapes runs it."""
        return self._specializations.get(shapes)

    def hlo_text(self) -> str:
        return self.module.hlo_text()

    def __call__(self, *args):
        program = self._specializations.get(
            [_argument_shape(a) for a in args])
        return program(*args)

    def __repr__(self) -> str:
        params = ", ".join(str(s) for s in self.parameter_shapes)
        return f"<xffi.PolymorphicProgram ({params})>"


def _as_shape(shape: Any) -> Shape:
    if isinstance(shape, Shape):
        return shape
    if hasattr(shape, "shape") and hasattr(shape, "dtype"):
        return Shape.array_shape(shape.dtype, tuple(shape.shape))
    raise TypeError(f"expected an xffi.Shape or an object with .shape and "
                    f".dtype, got {type(shape).__name__}")


class ComputationBuilder:
    """xla_client's old ComputationBuilder, as the blog-era custom-call code
    used it, over xffi's Builder::

        c = xffi.ComputationBuilder("comp_builder")
        c.CustomCall(b"test_subtract_f32",
                     operands=(c.ConstantF32Scalar(1.25),
                               c.ConstantF32Scalar(0.5)),
                     shape_with_layout=xffi.Shape.array_shape(
                         np.dtype(np.float32), (), ()),
                     operand_shapes_with_layout=(...))
        result = xffi.execute_with_python_values(c.Build().Compile(), ())

    The last op built is the program's result (as with xla_client).
    """

    def __init__(self, name: str):
        self._builder = Builder(name)
        self._last = None
        self._parameters = 0

    def _keep(self, op: Op) -> Op:
        self._last = op
        return op

    def ParameterWithShape(self, shape, name: str = "") -> Op:
        number = self._parameters
        self._parameters += 1
        return self._keep(self._builder.parameter(number, _as_shape(shape),
                                                  name))

    def Constant(self, value) -> Op:
        return self._keep(self._builder.constant(value))

    def ConstantF32Scalar(self, value: float) -> Op:
        return self._keep(self._builder.constant(value, np.float32))

    def ConstantF64Scalar(self, value: float) -> Op:
        return self._keep(self._builder.constant(value, np.float64))

    def ConstantS32Scalar(self, value: int) -> Op:
        return self._keep(self._builder.constant(value, np.int32))

    def Tuple(self, *elements: Op) -> Op:
        return self._keep(self._builder.tuple(list(elements)))

    def GetTupleElement(self, tuple_op: Op, index: int) -> Op:
        return self._keep(self._builder.get_tuple_element(tuple_op, index))

    def Add(self, lhs: Op, rhs: Op) -> Op:
        return self._keep(self._builder.binary("add", lhs, rhs))

    def Mul(self, lhs: Op, rhs: Op) -> Op:
        return self._keep(self._builder.binary("multiply", lhs, rhs))

    def CustomCall(self, call_target_name, operands: Sequence[Op],
                   shape_with_layout, operand_shapes_with_layout=None,
                   opaque=None, has_side_effect: bool = False,
                   api_version: int = 1) -> Op:
        target = call_target_name.decode() if isinstance(
            call_target_name, bytes) else str(call_target_name)
        layouts = None
        if operand_shapes_with_layout is not None:
            layouts = [_as_shape(s) for s in operand_shapes_with_layout]
        return self._keep(self._builder.custom_call(
            target, list(operands), _as_shape(shape_with_layout),
            opaque=opaque, has_side_effect=has_side_effect,
            api_version=api_version, operand_shapes_with_layout=layouts))

    def Build(self, root: Op = None) -> "BuiltComputation":
        root = root if root is not None else self._last
        if root is None:
            raise ValueError("ComputationBuilder.Build: nothing was built")
        return BuiltComputation(self._builder.build(root))


class BuiltComputation:
    """What ComputationBuilder.Build returns: Compile() makes a Program."""

    def __init__(self, module: Module):
        self.module = module

    def Compile(self, **options) -> Program:
        return Program(self.module, **options)

    def GetHloText(self) -> str:
        return self.module.hlo_text()


def execute_with_python_values(program: Program, arguments=()) -> Any:
    """Runs `program` on Python values (numbers, lists, arrays): xla_client's
    helper of the same name."""
    return program(*arguments)
