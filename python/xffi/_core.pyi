"""xffi's runtime: registries, plugins and eager calls"""

from collections.abc import Sequence
from typing import Annotated

import numpy
from numpy.typing import NDArray


def _register_dtype(dtype: object, xla_dtype: int, name: str, size: int) -> None: ...

def canonical_platform(platform: str) -> str:
    """
    The canonical name of a platform ('Host' or 'CUDA'); raises ValueError listing the valid names for an unknown one.
    """

def _register_ffi_target(name: str, fn: object, platform: str, traits: int, origin: str, replace: bool = False) -> None: ...

def builtin_targets() -> list[str]:
    """
    The names of the custom-call targets xffi's CPU backend has built in (jaxlib's LAPACK family), sorted.
    """

def restore_builtin_targets() -> None:
    """
    Puts every built-in target back under its name, replacing what register_ffi_target(..., replace=True) or xffi.jax.register_jaxlib_targets put there; programs compiled before keep the handlers they resolved.
    """

def _builtin_target_active(name: str) -> bool: ...

def _register_batch_partitionable(name: str) -> None: ...

def _register_legacy_target(name: str, fn: object, platform: str, legacy_api_version: int, origin: str) -> None: ...

def custom_call_targets(platform: str = 'cpu') -> dict:
    """
    Every target registered for `platform`: a legacy target as a capsule named 'xla._CUSTOM_CALL_TARGET', an FFI handler as a dict of stage capsules.
    """

def _register_ffi_type(name: str, type_id: object, type_info: object | None) -> int: ...

def type_name(type_id: int) -> str:
    """The registered name of a type id ('' if unknown)."""

def _type_deleter(type_id: int) -> int: ...

def _capsule(address: int, legacy_name: bool = False) -> object: ...

def _capsule_address(capsule: object) -> int: ...

def describe_targets(platform: str = 'cpu') -> list:
    """
    Every target of `platform`, described: name, kind, api_version, traits, stages, signature, origin and a one-line text.
    """

def _handler_info(name: str, platform: str) -> object: ...

def _describe_handler(name: str, execute: int) -> dict: ...

def _check_attributes(target: str, stages: dict, kwargs: dict) -> None: ...

def _legacy_target_info(name: str, platform: str) -> object: ...

class _Library:
    @property
    def path(self) -> str: ...

    @property
    def origin(self) -> str: ...

    def exported_handlers(self) -> dict: ...

    def registered_handlers(self) -> list: ...

    def registered_legacy_targets(self) -> list: ...

    def find_function(self, symbol: str) -> int: ...

    def find_handler(self, symbol: str) -> int: ...

    def describe_exported(self) -> dict: ...

def _load_library(path: str) -> _Library: ...

class _Caller:
    def __call__(self, /, *args, **kwargs):
        """Call self as a function."""

    def __init__(self, target: str, platform: str, results: object | None, single_result: bool, tuple_result: bool, api_version: int, backend_config: str, aliases: Sequence[tuple[int, int]], donate: bool, fallback: object, strict: bool = False, num_input_layouts: int = -1, num_output_layouts: int = -1, token_type: object | None = None, timeout: float = -1.0) -> None: ...

    def results_for(self, *args) -> list: ...

    @property
    def target(self) -> str: ...

    @property
    def single_result(self) -> bool: ...

    @property
    def tuple_result(self) -> bool: ...

    @property
    def custom_call_timeout(self) -> object: ...

class _FrameOverArrays:
    @property
    def address(self) -> int: ...

def _array_from_dlpack(value: object) -> object:
    """
    A NumPy array over a CPU DLPack tensor of a dtype numpy.from_dlpack refuses (bfloat16), without a copy; None for anything else.
    """

def _frame_over_arrays(args: list, rets: list) -> _FrameOverArrays: ...

class ExecutionContext:
    """
    User data and settings eager calls see (use with xffi.execution_context).
    """

    def __init__(self) -> None: ...

    def insert_user_data(self, type_id: int, address: int, take_ownership: bool = False) -> None:
        """
        Makes `address` the user data of type `type_id` (an id from register_ffi_type or a library's registration). With take_ownership, the context deletes it with the type's registered deleter.
        """

    def user_data(self, type_id: int) -> int: ...

    @property
    def run_id(self) -> int: ...

    @run_id.setter
    def run_id(self, arg: int, /) -> None: ...

    @property
    def device_ordinal(self) -> int: ...

    @device_ordinal.setter
    def device_ordinal(self, arg: int, /) -> None: ...

def _set_current_context(context: object | None) -> object: ...

def set_custom_call_timeout(seconds: float) -> None:
    """
    How long an eager call (an ffi_call made without custom_call_timeout) and a Program compiled without one wait for a handler that returned a future before failing with TimeoutError naming the target; seconds, 0 (the default) for as long as it takes. Process-wide.
    """

def custom_call_timeout() -> float:
    """
    The process-wide timeout set_custom_call_timeout set (seconds; 0: none).
    """

def _abandoned_calls() -> int:
    """
    How many eager calls that timed out are still pending (their arguments, results, frames and states are kept until they complete).
    """

def _sim_device_synchronizations() -> dict:
    """
    How often the host has waited for the simulated GPU of platform 'sim' programs, by call ('stream', 'event', 'device'): tests check that runs wait only where they must.
    """

class _SimPendingProducer:
    """
    For tests: a DLPack producer on the simulated GPU (kDLExtDev 0) whose float32 values are still being copied in on its own stream; given a consumer's stream it orders the copy before it (unless honours_stream=False); accepts_stream=False refuses the stream keyword. `calls` lists each __dlpack__ call's keywords.
    """

    def __init__(self, values: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu', writable=False)], *, accepts_stream: bool = True, honours_stream: bool = True) -> None: ...

    def __dlpack_device__(self) -> tuple[int, int]: ...

    def __dlpack__(self, **kwargs) -> object: ...

    @property
    def calls(self) -> list: ...

def _host_copy_of_device_array(value: object, where: str) -> object:
    """
    A NumPy copy of a DLPack producer on a device (None for one on the CPU); errors begin with `where`.
    """

class DeviceArray:
    """
    A program's result left on its device (Program(..., device_results=True)). It keeps its device memory alive, and DLPack consumers (CuPy, JAX on a GPU; xffi programs on the same device) take it without a copy; np.asarray and copy_to_host() copy it to the host.
    """

    @property
    def shape(self) -> tuple: ...

    @property
    def dtype(self) -> object: ...

    @property
    def nbytes(self) -> int: ...

    def copy_to_host(self) -> object:
        """A NumPy array with the array's values (waits for the device)."""

    def __array__(self, dtype: object | None = None, *, copy: object | None = None) -> object: ...

    def __dlpack_device__(self) -> tuple[int, int]: ...

    def __dlpack__(self, **kwargs) -> object: ...

    def __repr__(self) -> str: ...

class Shape:
    """
    An array (dtype, dimensions, optional minor-to-major layout), token or tuple shape, as XLA's.
    """

    @staticmethod
    def array_shape(dtype: object, dims: object, minor_to_major: object | None = None) -> Shape: ...

    @staticmethod
    def scalar_shape(dtype: object) -> Shape: ...

    @staticmethod
    def tuple_shape(shapes: Sequence[Shape]) -> Shape: ...

    @staticmethod
    def token_shape() -> Shape: ...

    def is_array(self) -> bool: ...

    def is_tuple(self) -> bool: ...

    def is_token(self) -> bool: ...

    def dimensions(self) -> tuple: ...

    def minor_to_major(self) -> tuple: ...

    def tuple_shapes(self) -> list[Shape]: ...

    def numpy_dtype(self) -> object: ...

    @property
    def element_type(self) -> str: ...

    def __eq__(self, arg: Shape, /) -> bool: ...

    def __hash__(self) -> int: ...

    def __str__(self) -> str: ...

    def __repr__(self) -> str: ...

class Op:
    """A value being built (a Builder's handle)."""

    @property
    def shape(self) -> Shape: ...

    def __repr__(self) -> str: ...

class Computation:
    """A region a sub-builder finished (a reducer, a loop body, a branch)."""

    @property
    def name(self) -> str: ...

class Builder:
    """
    Builds a program op by op (XlaBuilder's model): result shapes are inferred, an impossible op raises at once naming it.
    """

    def __init__(self, name: str) -> None: ...

    def create_sub_builder(self, name: str) -> Builder: ...

    def build_subcomputation(self, root: Op) -> Computation: ...

    def build(self, root: Op) -> Module: ...

    def parameter(self, number: int, shape: Shape, name: str = '') -> Op: ...

    def constant(self, value: object, dtype: object | None = None) -> Op:
        """
        A constant from a NumPy array or anything numpy.asarray takes (converted to `dtype` when given).
        """

    def tuple(self, elements: Sequence[Op]) -> Op: ...

    def get_tuple_element(self, tuple: Op, index: int) -> Op: ...

    def unary(self, opcode: str, operand: Op) -> Op:
        """An elementwise unary op by HLO name: 'exponential', 'sqrt', ..."""

    def binary(self, opcode: str, lhs: Op, rhs: Op) -> Op:
        """An elementwise binary op by HLO name: 'add', 'power', ..."""

    def compare(self, lhs: Op, rhs: Op, direction: str, type: str | None = None) -> Op:
        """
        type: HLO's comparison type (TOTALORDER orders -0 before +0 and NaNs by sign); default FLOAT, SIGNED or UNSIGNED by element type.
        """

    def select(self, pred: Op, on_true: Op, on_false: Op) -> Op: ...

    def convert(self, operand: Op, dtype: object) -> Op: ...

    def iota(self, shape: Shape, dimension: int) -> Op: ...

    def broadcast_in_dim(self, operand: Op, result_dims: Sequence[int], broadcast_dimensions: Sequence[int]) -> Op: ...

    def reshape(self, operand: Op, dims: Sequence[int]) -> Op: ...

    def transpose(self, operand: Op, permutation: Sequence[int]) -> Op: ...

    def slice(self, operand: Op, starts: Sequence[int], limits: Sequence[int], strides: Sequence[int] | None = None) -> Op: ...

    def concatenate(self, operands: Sequence[Op], dimension: int) -> Op: ...

    def dot(self, lhs: Op, rhs: Op) -> Op: ...

    def reduce(self, operands: Sequence[Op], inits: Sequence[Op], reducer: Computation, dimensions: Sequence[int]) -> Op: ...

    def while_loop(self, condition: Computation, body: Computation, init: Op) -> Op: ...

    def conditional(self, index: Op, branches: Sequence[Computation], branch_operands: Sequence[Op]) -> Op: ...

    def call(self, computation: Computation, operands: Sequence[Op]) -> Op: ...

    def clamp(self, min: Op, operand: Op, max: Op) -> Op: ...

    def bitcast_convert(self, operand: Op, dtype: object) -> Op: ...

    def dynamic_slice(self, operand: Op, start_indices: Sequence[Op], sizes: Sequence[int]) -> Op: ...

    def dynamic_update_slice(self, operand: Op, update: Op, start_indices: Sequence[Op]) -> Op: ...

    def pad(self, operand: Op, padding_value: Op, padding: Sequence[tuple[int, int, int]]) -> Op:
        """padding: one (low, high, interior) per dimension."""

    def reverse(self, operand: Op, dimensions: Sequence[int]) -> Op: ...

    def dot_general(self, lhs: Op, rhs: Op, lhs_contracting: Sequence[int], rhs_contracting: Sequence[int], lhs_batch: Sequence[int] = [], rhs_batch: Sequence[int] = [], preferred_element_type: object | None = None) -> Op: ...

    def sort(self, operands: Sequence[Op], comparator: Computation, dimension: int, is_stable: bool = False) -> Op:
        """comparator: two scalar parameters per operand -> pred."""

    def fft(self, operand: Op, fft_type: str, fft_length: Sequence[int]) -> Op:
        """The transform over the last len(fft_length) dimensions."""

    def top_k(self, operand: Op, k: int, largest: bool = True) -> Op:
        """A tuple (values, s32 indices) along the last dimension, sorted."""

    def rng_bit_generator(self, state: Op, bits_shape: Shape, algorithm: str = 'DEFAULT') -> Op:
        """A tuple (new u64 state, random bits of bits_shape)."""

    def rng(self, a: Op, b: Op, dims: Sequence[int], distribution: str = 'UNIFORM') -> Op:
        """UNIFORM in [a, b), or NORMAL with mean a and standard deviation b."""

    def reduce_precision(self, operand: Op, exponent_bits: int, mantissa_bits: int) -> Op: ...

    def cholesky(self, a: Op, lower: bool = True) -> Op: ...

    def triangular_solve(self, a: Op, b: Op, left_side: bool, lower: bool, unit_diagonal: bool = False, transpose_a: str = 'NO_TRANSPOSE') -> Op:
        """x with op(a) x = b (left_side) or x op(a) = b."""

    def map(self, operands: Sequence[Op], computation: Computation) -> Op:
        """computation (one scalar parameter per operand) at every index."""

    def batch_norm_training(self, operand: Op, scale: Op, offset: Op, epsilon: float, feature_index: int) -> Op:
        """A tuple (normalized, batch mean, batch variance)."""

    def batch_norm_inference(self, operand: Op, scale: Op, offset: Op, mean: Op, variance: Op, epsilon: float, feature_index: int) -> Op: ...

    def batch_norm_grad(self, operand: Op, scale: Op, mean: Op, variance: Op, grad_output: Op, epsilon: float, feature_index: int) -> Op:
        """A tuple (grad operand, grad scale, grad offset)."""

    def optimization_barrier(self, operand: Op) -> Op: ...

    def reduce_window(self, operands: Sequence[Op], inits: Sequence[Op], reducer: Computation, window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None, padding: Sequence[tuple[int, int]] | None = None, base_dilations: Sequence[int] | None = None, window_dilations: Sequence[int] | None = None) -> Op:
        """lax.reduce_window's window: padding is (low, high) per dimension."""

    def select_and_scatter(self, operand: Op, select: Computation, window_dimensions: Sequence[int], window_strides: Sequence[int] | None, padding: Sequence[tuple[int, int]] | None, source: Op, init: Op, scatter: Computation) -> Op:
        """select: (T, T) -> pred; scatter: (T, T) -> T."""

    def convolution(self, lhs: Op, rhs: Op, window_strides: Sequence[int], padding: Sequence[tuple[int, int]], lhs_dilation: Sequence[int] | None = None, rhs_dilation: Sequence[int] | None = None, dimension_numbers: tuple[Sequence[int], Sequence[int], Sequence[int]] | None = None, feature_group_count: int = 1, batch_group_count: int = 1, preferred_element_type: object | None = None) -> Op:
        """
        lax.conv_general_dilated's arguments; dimension_numbers as lax.ConvDimensionNumbers (lhs_spec, rhs_spec, out_spec), default NC..., OI..., NC....
        """

    def gather(self, operand: Op, start_indices: Op, offset_dims: Sequence[int], collapsed_slice_dims: Sequence[int], start_index_map: Sequence[int], index_vector_dim: int, slice_sizes: Sequence[int], operand_batching_dims: Sequence[int] = [], start_indices_batching_dims: Sequence[int] = [], indices_are_sorted: bool = False) -> Op: ...

    def scatter(self, operands: Sequence[Op], scatter_indices: Op, updates: Sequence[Op], update_computation: Computation, update_window_dims: Sequence[int], inserted_window_dims: Sequence[int], scatter_dims_to_operand_dims: Sequence[int], index_vector_dim: int, input_batching_dims: Sequence[int] = [], scatter_indices_batching_dims: Sequence[int] = [], indices_are_sorted: bool = False, unique_indices: bool = False) -> Op: ...

    def after_all(self, tokens: Sequence[Op]) -> Op: ...

    def partition_id(self) -> Op: ...

    def replica_id(self) -> Op: ...

    def fusion(self, kind: str, operands: Sequence[Op], fused_computation: Computation) -> Op:
        """
        fused_computation: one parameter per operand, keeping the fusion contract (the first op that breaks it raises).
        """

    def manual_computation(self, operands: Sequence[Op], body: Computation, mesh_axes: Sequence[tuple[str, int]], in_shardings: Sequence[Sequence[Sequence[str]]], out_shardings: Sequence[Sequence[Sequence[str]]], manual_axes: Sequence[str] | None = None, mesh_name: str = 'mesh', device_ids: Sequence[int] = []) -> Op:
        """
        A shard_map: `body` (one parameter per operand, its block's shape) runs on every device of the mesh (mesh_axes: (name, size) pairs). A sharding names the mesh axes splitting each dimension: [['x'], []] splits dimension 0 along x. manual_axes: default all.
        """

    def all_reduce(self, operands: Sequence[Op], reduction: Computation, replica_groups: Sequence[Sequence[int]] = [], channel_id: int = 0, use_global_device_ids: bool = False) -> Op: ...

    def all_gather(self, operands: Sequence[Op], dimension: int, shard_count: int, replica_groups: Sequence[Sequence[int]] = [], channel_id: int = 0, use_global_device_ids: bool = False) -> Op: ...

    def reduce_scatter(self, operands: Sequence[Op], reduction: Computation, dimension: int, shard_count: int, replica_groups: Sequence[Sequence[int]] = [], channel_id: int = 0, use_global_device_ids: bool = False) -> Op: ...

    def all_to_all(self, operands: Sequence[Op], split_dimension: int, concat_dimension: int, split_count: int, replica_groups: Sequence[Sequence[int]] = [], channel_id: int = 0, use_global_device_ids: bool = False) -> Op: ...

    def collective_permute(self, operand: Op, source_target_pairs: Sequence[tuple[int, int]], channel_id: int = 0) -> Op: ...

    def custom_call(self, target: str, operands: Sequence[Op], shape: Shape, opaque: object | None = None, has_side_effect: bool = False, output_operand_aliases: Sequence[tuple[int, int]] = [], api_version: int = 1, attributes: object | None = None, operand_shapes_with_layout: Sequence[Shape] | None = None) -> Op:
        """
        XLA's CustomCall. api_version 1-3 calls a legacy target with `opaque` as its backend_config; 4 a typed FFI handler with `attributes` (a dict, checked against the handler's description when it is registered). output_operand_aliases: (result index, operand) pairs.
        """

class Module:
    """A program: what a Builder built or a text parsed."""

    @property
    def name(self) -> str: ...

    def hlo_text(self) -> str: ...

    @property
    def is_shape_polymorphic(self) -> bool:
        """
        Some value has a dynamic (?) dimension: the program compiles once refined to argument shapes.
        """

    @property
    def parameter_shapes(self) -> list[Shape]:
        """The entry's parameter shapes (a dynamic dimension is -1)."""

    def __str__(self) -> str: ...

    def compile(self, intra_op_threads: int = 0, eliminate_dead_code: bool = True, memory_limit: int = 0, custom_call_timeout: float = 0.0, platform: str = 'host') -> _Executable: ...

def _parse_program(text: str, source_name: str = '<input>', argument_shapes: Sequence[Shape] | None = None) -> Module: ...

def _detect_program_format(text: str) -> str: ...

class _Executable:
    def __call__(self, *args) -> object: ...

    @property
    def device_results(self) -> bool:
        """
        Results stay on the device as xffi.DeviceArray (device platforms only).
        """

    @device_results.setter
    def device_results(self, arg: bool, /) -> None: ...

    def _abandoned_runs(self) -> int: ...

    @property
    def parameter_shapes(self) -> list[Shape]: ...

    @property
    def result_shape(self) -> Shape: ...

    @property
    def intra_op_threads(self) -> int: ...

    def hlo_text(self) -> str: ...

def _result_memory_stats() -> dict:
    """
    What the pool behind large Program results holds: its limit, the bytes and blocks cached, and how many allocations it served from the cache and from malloc.
    """

def _set_result_memory_limit(bytes: int) -> int:
    """
    Sets how many bytes of freed Program results the pool keeps for reuse (0: none; cached blocks above the limit are freed at once) and returns the previous limit.
    """
