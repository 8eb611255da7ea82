// xffi: the program IR.
//
// HLO's model: a Module holds Computations; a Computation holds Instructions
// in an order where every operand comes before its users, parameters
// numbered from 0 and one root. An op with several results (a variadic
// reduce or sort, a while loop, a custom call returning several values) has a
// tuple shape, and its users read the elements through get-tuple-element.
// Regions (reduce bodies, comparators, loop bodies, branches) are
// computations the op names in called_computations; they take every value
// they use as a parameter (StableHLO's implicit captures become explicit
// operands in the parser).
//
// Op-specific fields live in plain members grouped by the ops that use them;
// a field an op does not use stays at its default. The verifier
// (VerifyModule) checks every op's operands, fields and result shape.
#ifndef XFFI_PROGRAM_IR_H_
#define XFFI_PROGRAM_IR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xffi/program/literal.h"
#include "xffi/program/shape.h"
#include "xffi/program/sharding.h"
#include "xffi/runtime/attributes.h"
#include "xffi/runtime/status.h"

namespace xffi {

// X(enumerator, HLO spelling, StableHLO spelling or "" when it has none)
#define XFFI_OPCODES(X)                                                       \
  /* structure */                                                             \
  X(kParameter, "parameter", "")                                              \
  X(kConstant, "constant", "stablehlo.constant")                              \
  X(kTuple, "tuple", "stablehlo.tuple")                                       \
  X(kGetTupleElement, "get-tuple-element", "stablehlo.get_tuple_element")     \
  X(kCall, "call", "func.call")                                               \
  X(kFusion, "fusion", "")                                                    \
  X(kWhile, "while", "stablehlo.while")                                       \
  X(kConditional, "conditional", "stablehlo.case")                            \
  X(kCustomCall, "custom-call", "stablehlo.custom_call")                      \
  X(kOptimizationBarrier, "opt-barrier", "stablehlo.optimization_barrier")    \
  X(kAfterAll, "after-all", "stablehlo.after_all")                            \
  X(kCopy, "copy", "")                                                        \
  /* elementwise unary */                                                     \
  X(kAbs, "abs", "stablehlo.abs")                                             \
  X(kNegate, "negate", "stablehlo.negate")                                    \
  X(kSign, "sign", "stablehlo.sign")                                          \
  X(kNot, "not", "stablehlo.not")                                             \
  X(kFloor, "floor", "stablehlo.floor")                                       \
  X(kCeil, "ceil", "stablehlo.ceil")                                          \
  X(kRoundNearestAfz, "round-nearest-afz", "stablehlo.round_nearest_afz")     \
  X(kRoundNearestEven, "round-nearest-even", "stablehlo.round_nearest_even")  \
  X(kExp, "exponential", "stablehlo.exponential")                             \
  X(kExpm1, "exponential-minus-one", "stablehlo.exponential_minus_one")       \
  X(kLog, "log", "stablehlo.log")                                             \
  X(kLog1p, "log-plus-one", "stablehlo.log_plus_one")                         \
  X(kLogistic, "logistic", "stablehlo.logistic")                              \
  X(kSqrt, "sqrt", "stablehlo.sqrt")                                          \
  X(kRsqrt, "rsqrt", "stablehlo.rsqrt")                                       \
  X(kCbrt, "cbrt", "stablehlo.cbrt")                                          \
  X(kTanh, "tanh", "stablehlo.tanh")                                          \
  X(kSin, "sine", "stablehlo.sine")                                           \
  X(kCos, "cosine", "stablehlo.cosine")                                       \
  X(kTan, "tan", "stablehlo.tan")                                             \
  X(kIsFinite, "is-finite", "stablehlo.is_finite")                            \
  X(kPopulationCount, "popcnt", "stablehlo.popcnt")                           \
  X(kClz, "count-leading-zeros", "stablehlo.count_leading_zeros")             \
  X(kReal, "real", "stablehlo.real")                                          \
  X(kImag, "imag", "stablehlo.imag")                                          \
  X(kErf, "erf", "chlo.erf")                                                  \
  X(kErfInv, "erf-inv", "chlo.erf_inv")                                       \
  X(kLgamma, "lgamma", "chlo.lgamma")                                         \
  X(kDigamma, "digamma", "chlo.digamma")                                      \
  /* chlo functions (HLO spells their decompositions; */                      \
  /* these HLO names are xffi's own) */                                       \
  X(kErfc, "erfc", "chlo.erfc")                                               \
  X(kAsin, "asin", "chlo.asin")                                               \
  X(kAcos, "acos", "chlo.acos")                                               \
  X(kAtan, "atan", "chlo.atan")                                               \
  X(kAsinh, "asinh", "chlo.asinh")                                            \
  X(kAcosh, "acosh", "chlo.acosh")                                            \
  X(kAtanh, "atanh", "chlo.atanh")                                            \
  X(kSinh, "sinh", "chlo.sinh")                                               \
  X(kCosh, "cosh", "chlo.cosh")                                               \
  X(kBesselI1e, "bessel-i1e", "chlo.bessel_i1e")                              \
  X(kIsInf, "is-inf", "chlo.is_inf")                                          \
  X(kIsPosInf, "is-pos-inf", "chlo.is_pos_inf")                               \
  X(kIsNegInf, "is-neg-inf", "chlo.is_neg_inf")                               \
  X(kConj, "conj", "chlo.conj")                                               \
  X(kReducePrecision, "reduce-precision", "stablehlo.reduce_precision")       \
  /* elementwise binary */                                                    \
  X(kAdd, "add", "stablehlo.add")                                             \
  X(kSubtract, "subtract", "stablehlo.subtract")                              \
  X(kMultiply, "multiply", "stablehlo.multiply")                              \
  X(kDivide, "divide", "stablehlo.divide")                                    \
  X(kRemainder, "remainder", "stablehlo.remainder")                           \
  X(kPower, "power", "stablehlo.power")                                       \
  X(kMaximum, "maximum", "stablehlo.maximum")                                 \
  X(kMinimum, "minimum", "stablehlo.minimum")                                 \
  X(kAnd, "and", "stablehlo.and")                                             \
  X(kOr, "or", "stablehlo.or")                                                \
  X(kXor, "xor", "stablehlo.xor")                                             \
  X(kShiftLeft, "shift-left", "stablehlo.shift_left")                         \
  X(kShiftRightArithmetic, "shift-right-arithmetic",                          \
    "stablehlo.shift_right_arithmetic")                                       \
  X(kShiftRightLogical, "shift-right-logical",                                \
    "stablehlo.shift_right_logical")                                          \
  X(kAtan2, "atan2", "stablehlo.atan2")                                       \
  X(kComplex, "complex", "stablehlo.complex")                                 \
  X(kNextAfter, "next-after", "chlo.next_after")                              \
  X(kPolygamma, "polygamma", "chlo.polygamma")                                \
  X(kZeta, "zeta", "chlo.zeta")                                               \
  X(kMulhi, "mulhi", "chlo.mulhi")                                            \
  X(kCompare, "compare", "stablehlo.compare")                                 \
  /* elementwise, other */                                                    \
  X(kSelect, "select", "stablehlo.select")                                    \
  X(kClamp, "clamp", "stablehlo.clamp")                                       \
  X(kConvert, "convert", "stablehlo.convert")                                 \
  X(kBitcastConvert, "bitcast-convert", "stablehlo.bitcast_convert")          \
  X(kIota, "iota", "stablehlo.iota")                                          \
  /* data movement */                                                         \
  X(kBroadcast, "broadcast", "stablehlo.broadcast_in_dim")                    \
  X(kReshape, "reshape", "stablehlo.reshape")                                 \
  X(kTranspose, "transpose", "stablehlo.transpose")                           \
  X(kSlice, "slice", "stablehlo.slice")                                       \
  X(kDynamicSlice, "dynamic-slice", "stablehlo.dynamic_slice")                \
  X(kDynamicUpdateSlice, "dynamic-update-slice",                              \
    "stablehlo.dynamic_update_slice")                                         \
  X(kConcatenate, "concatenate", "stablehlo.concatenate")                     \
  X(kPad, "pad", "stablehlo.pad")                                             \
  X(kReverse, "reverse", "stablehlo.reverse")                                 \
  X(kGather, "gather", "stablehlo.gather")                                    \
  X(kScatter, "scatter", "stablehlo.scatter")                                 \
  /* computation */                                                           \
  X(kDot, "dot", "stablehlo.dot_general")                                     \
  X(kReduce, "reduce", "stablehlo.reduce")                                    \
  X(kReduceWindow, "reduce-window", "stablehlo.reduce_window")                \
  X(kSort, "sort", "stablehlo.sort")                                          \
  X(kConvolution, "convolution", "stablehlo.convolution")                     \
  X(kSelectAndScatter, "select-and-scatter", "stablehlo.select_and_scatter")  \
  X(kBatchNormTraining, "batch-norm-training",                                \
    "stablehlo.batch_norm_training")                                          \
  X(kBatchNormInference, "batch-norm-inference",                              \
    "stablehlo.batch_norm_inference")                                         \
  X(kBatchNormGrad, "batch-norm-grad", "stablehlo.batch_norm_grad")           \
  X(kTopK, "topk", "chlo.top_k")                                              \
  X(kMap, "map", "stablehlo.map")                                             \
  X(kFft, "fft", "stablehlo.fft")                                             \
  X(kRngBitGenerator, "rng-bit-generator", "stablehlo.rng_bit_generator")     \
  X(kRng, "rng", "stablehlo.rng")                                             \
  X(kCholesky, "cholesky", "stablehlo.cholesky")                              \
  X(kTriangularSolve, "triangular-solve", "stablehlo.triangular_solve")       \
  /* across devices (see the spmd-emulation pass) */                          \
  X(kAllReduce, "all-reduce", "stablehlo.all_reduce")                         \
  X(kAllGather, "all-gather", "stablehlo.all_gather")                         \
  X(kReduceScatter, "reduce-scatter", "stablehlo.reduce_scatter")             \
  X(kAllToAll, "all-to-all", "stablehlo.all_to_all")                          \
  X(kCollectivePermute, "collective-permute", "stablehlo.collective_permute") \
  X(kPartitionId, "partition-id", "stablehlo.partition_id")                   \
  X(kReplicaId, "replica-id", "stablehlo.replica_id")                         \
  X(kManualComputation, "manual-computation", "sdy.manual_computation")

enum class Opcode {
#define XFFI_OPCODE_ENUM(e, hlo, shlo) e,
  XFFI_OPCODES(XFFI_OPCODE_ENUM)
#undef XFFI_OPCODE_ENUM
};

std::string_view OpcodeName(Opcode opcode);           // HLO spelling
std::string_view StableHloOpcodeName(Opcode opcode);  // "" when none
std::optional<Opcode> OpcodeFromName(std::string_view hlo_name);
std::optional<Opcode> OpcodeFromStableHloName(std::string_view name);
bool IsElementwiseUnary(Opcode opcode);
bool IsElementwiseBinary(Opcode opcode);  // compare included
// all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute,
// partition-id and replica-id: ops whose value depends on the device.
bool IsCollective(Opcode opcode);

// How messages spell ops: as the text a module was read from did (a module
// built in C++ uses HLO's names).
enum class OpSpelling { kHlo, kStableHlo };
// The StableHLO name when asked for one and the op has one, else HLO's.
std::string_view OpcodeName(Opcode opcode, OpSpelling spelling);

// What a fusion computes (see the fusion field of Instruction). kLoop: every
// leaf of the fused computation's root is computed elementwise or by an
// index map over its own output index space. kInput: the root (or each
// element of a tuple root) is a reduce whose inputs may be fused producers,
// or a loop value over the reduces' common input shape.
enum class FusionKind { kLoop, kInput };
std::string_view FusionKindName(FusionKind kind);  // "kLoop", as HLO writes it
std::optional<FusionKind> FusionKindFromName(std::string_view name);

enum class ComparisonDirection { kEq, kNe, kGe, kGt, kLe, kLt };
// kDefault: FLOAT for floating types, SIGNED/UNSIGNED for integers, as HLO
// derives it when the text does not say.
enum class ComparisonType { kDefault, kFloat, kTotalOrder, kSigned, kUnsigned };
std::string_view ComparisonDirectionName(ComparisonDirection d);  // "EQ"
std::optional<ComparisonDirection> ComparisonDirectionFromName(
    std::string_view name);
std::string_view ComparisonTypeName(ComparisonType t);  // "FLOAT", "TOTALORDER"
std::optional<ComparisonType> ComparisonTypeFromName(std::string_view name);

enum class FftType { kFft, kIfft, kRfft, kIrfft };
std::string_view FftTypeName(FftType type);  // "FFT", "IRFFT"
std::optional<FftType> FftTypeFromName(std::string_view name);

// rng-bit-generator's algorithms; XLA:CPU runs DEFAULT as PHILOX.
enum class RngAlgorithm { kDefault, kThreeFry, kPhilox };
std::string_view RngAlgorithmName(RngAlgorithm a);  // "DEFAULT", "THREE_FRY"
std::optional<RngAlgorithm> RngAlgorithmFromName(std::string_view name);

enum class RngDistribution { kUniform, kNormal };
std::string_view RngDistributionName(RngDistribution d);  // "UNIFORM"
std::optional<RngDistribution> RngDistributionFromName(std::string_view name);

// triangular-solve's op(a): a, its transpose, or its conjugate transpose.
enum class TriangularTranspose { kNoTranspose, kTranspose, kAdjoint };
std::string_view TriangularTransposeName(TriangularTranspose t);
std::optional<TriangularTranspose> TriangularTransposeFromName(
    std::string_view name);  // "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"

struct PadDimension {
  int64_t low = 0, high = 0, interior = 0;  // low/high may be negative
  // Spelled out: defaulted comparisons are C++20 and this header is C++17.
  bool operator==(const PadDimension& o) const {
    return low == o.low && high == o.high && interior == o.interior;
  }
  bool operator!=(const PadDimension& o) const { return !(*this == o); }
};

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batch, rhs_batch;
  std::vector<int64_t> lhs_contracting, rhs_contracting;
  bool operator==(const DotDimensionNumbers& o) const {
    return lhs_batch == o.lhs_batch && rhs_batch == o.rhs_batch &&
           lhs_contracting == o.lhs_contracting &&
           rhs_contracting == o.rhs_contracting;
  }
  bool operator!=(const DotDimensionNumbers& o) const { return !(*this == o); }
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  bool operator==(const GatherDimensionNumbers& o) const {
    return offset_dims == o.offset_dims &&
           collapsed_slice_dims == o.collapsed_slice_dims &&
           operand_batching_dims == o.operand_batching_dims &&
           start_indices_batching_dims == o.start_indices_batching_dims &&
           start_index_map == o.start_index_map &&
           index_vector_dim == o.index_vector_dim;
  }
  bool operator!=(const GatherDimensionNumbers& o) const {
    return !(*this == o);
  }
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const ScatterDimensionNumbers& o) const {
    return update_window_dims == o.update_window_dims &&
           inserted_window_dims == o.inserted_window_dims &&
           input_batching_dims == o.input_batching_dims &&
           scatter_indices_batching_dims == o.scatter_indices_batching_dims &&
           scatter_dims_to_operand_dims == o.scatter_dims_to_operand_dims &&
           index_vector_dim == o.index_vector_dim;
  }
  bool operator!=(const ScatterDimensionNumbers& o) const {
    return !(*this == o);
  }
};

// One spatial dimension of a window (reduce-window, select-and-scatter,
// convolution). base_dilation is HLO's lhs_dilate, window_dilation its
// rhs_dilate; window_reversal (convolution only) flips the kernel.
struct WindowDimension {
  int64_t size = 1, stride = 1;
  int64_t padding_low = 0, padding_high = 0;
  int64_t window_dilation = 1, base_dilation = 1;
  bool window_reversal = false;
  bool operator==(const WindowDimension& o) const {
    return size == o.size && stride == o.stride &&
           padding_low == o.padding_low && padding_high == o.padding_high &&
           window_dilation == o.window_dilation &&
           base_dilation == o.base_dilation &&
           window_reversal == o.window_reversal;
  }
  bool operator!=(const WindowDimension& o) const { return !(*this == o); }
};

// Which dimension of each convolution operand and of its result plays which
// part: batch and feature of the input (lhs) and the output, input and
// output feature of the kernel (rhs), and the spatial dimensions of each in
// the window's order.
struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0, input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0,
          kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0, output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;
  bool operator==(const ConvolutionDimensionNumbers& o) const {
    return input_batch_dimension == o.input_batch_dimension &&
           input_feature_dimension == o.input_feature_dimension &&
           input_spatial_dimensions == o.input_spatial_dimensions &&
           kernel_input_feature_dimension == o.kernel_input_feature_dimension &&
           kernel_output_feature_dimension ==
               o.kernel_output_feature_dimension &&
           kernel_spatial_dimensions == o.kernel_spatial_dimensions &&
           output_batch_dimension == o.output_batch_dimension &&
           output_feature_dimension == o.output_feature_dimension &&
           output_spatial_dimensions == o.output_spatial_dimensions;
  }
  bool operator!=(const ConvolutionDimensionNumbers& o) const {
    return !(*this == o);
  }
};

// XLA's CustomCallApiVersion numbers.
enum class CustomCallApiVersion : int {
  kUnspecified = 0,
  kOriginal = 1,
  kStatusReturning = 2,
  kStatusReturningUnified = 3,
  kTypedFfi = 4,
};
enum class CustomCallSchedule { kNone, kLatest, kEarliest };

// Result element `output_index` (a tuple index path; {} for an untupled
// result) reuses operand `operand`'s buffer (at `operand_index` within it).
struct OutputOperandAlias {
  std::vector<int64_t> output_index;
  int64_t operand = 0;
  std::vector<int64_t> operand_index;
  bool operator==(const OutputOperandAlias& o) const {
    return output_index == o.output_index && operand == o.operand &&
           operand_index == o.operand_index;
  }
  bool operator!=(const OutputOperandAlias& o) const { return !(*this == o); }
};

// Attributes of a typed FFI call: the runtime's attribute map, which a call
// frame lays out as XLA does.
using FfiAttributes = AttributeMap;

struct CustomCallConfig {
  std::string target;
  CustomCallApiVersion api_version = CustomCallApiVersion::kOriginal;
  // Legacy calls: the opaque string handed to the target.
  std::string opaque;
  // Typed FFI calls: the attribute dictionary (StableHLO's
  // mhlo.backend_config, or backend_config parsed as a dictionary).
  FfiAttributes attributes;
  bool has_side_effect = false;
  std::vector<OutputOperandAlias> output_operand_aliases;
  // Layouts the target requires (shapes with minor_to_major set); empty:
  // the default layouts. When present there is one per operand and one per
  // result leaf.
  std::vector<Shape> operand_layouts;
  std::vector<Shape> result_layouts;
  CustomCallSchedule schedule = CustomCallSchedule::kNone;
  std::optional<Literal> literal;
};

// Which devices a collective combines, as StableHLO and HLO write it: groups
// of device ids (empty: one group of all), which are replica ids unless
// there is a channel (channel_id > 0); then they are partition ids with
// use_global_device_ids and for all-to-all and collective-permute, and name
// the replicas whose partitions all take part otherwise (the StableHLO
// spec's process groups).
struct CollectiveDevices {
  std::vector<std::vector<int64_t>> replica_groups;
  int64_t channel_id = 0;
  bool use_global_device_ids = false;
  bool operator==(const CollectiveDevices& o) const {
    return replica_groups == o.replica_groups && channel_id == o.channel_id &&
           use_global_device_ids == o.use_global_device_ids;
  }
  bool operator!=(const CollectiveDevices& o) const { return !(*this == o); }
};

// A manual computation (a shard_map): its body runs on every device of
// `mesh`, on each device's block of the operands, split along
// `manual_axes` as `in_shardings` say; the results are the blocks put back
// together as `out_shardings` say. Operands and results are global values.
struct ManualComputationConfig {
  Mesh mesh;
  std::vector<TensorSharding> in_shardings, out_shardings;
  std::vector<std::string> manual_axes;
  bool operator==(const ManualComputationConfig& o) const {
    return mesh == o.mesh && in_shardings == o.in_shardings &&
           out_shardings == o.out_shardings && manual_axes == o.manual_axes;
  }
  bool operator!=(const ManualComputationConfig& o) const {
    return !(*this == o);
  }
};

// Where an op came from: "file.mlir:12:3", or a name from the text's loc().
struct Location {
  std::string file;
  int line = 0, column = 0;
  std::string name;  // a loc("name") label, e.g. JAX's op path
  bool known() const { return line > 0 || !name.empty(); }
  std::string ToString() const;  // "file:12:3", "line 12:3" or the name
};

class Computation;

class Instruction {
 public:
  Instruction(Opcode opcode, Shape shape) : opcode_(opcode), shape_(shape) {}

  Opcode opcode() const { return opcode_; }
  const Shape& shape() const { return shape_; }
  void set_shape(Shape shape) { shape_ = std::move(shape); }

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  const std::vector<Instruction*>& operands() const { return operands_; }
  Instruction* operand(int64_t i) const {
    return operands_[static_cast<size_t>(i)];
  }
  int64_t operand_count() const {
    return static_cast<int64_t>(operands_.size());
  }
  void AppendOperand(Instruction* operand) { operands_.push_back(operand); }
  void ReplaceOperand(int64_t i, Instruction* operand) {
    operands_[static_cast<size_t>(i)] = operand;
  }

  const std::vector<Computation*>& called_computations() const {
    return called_;
  }
  void AppendCalledComputation(Computation* c) { called_.push_back(c); }
  void ReplaceCalledComputation(size_t i, Computation* c) { called_[i] = c; }

  Computation* parent() const { return parent_; }
  const Location& location() const { return location_; }
  void set_location(Location location) { location_ = std::move(location); }

  // "%name = f32[2] add(...)" without operands' shapes; for messages:
  // "'add.3' (add) at file:4:7".
  std::string Describe() const;

  // --- op-specific fields (see each comment for the ops that use them) ---

  // parameter
  int64_t parameter_number = 0;
  // get-tuple-element
  int64_t tuple_index = 0;
  // constant
  Literal literal;
  // broadcast: result dimension of each operand dimension (broadcast_in_dim);
  // transpose: the permutation; reduce, reverse: the dimensions;
  // concatenate, iota, sort: dimensions[0]; all-gather: dimensions[0] is
  // the gathered dimension, reduce-scatter: the scattered one.
  std::vector<int64_t> dimensions;
  // compare
  ComparisonDirection comparison_direction = ComparisonDirection::kEq;
  ComparisonType comparison_type = ComparisonType::kDefault;
  // slice
  std::vector<int64_t> slice_starts, slice_limits, slice_strides;
  // dynamic-slice
  std::vector<int64_t> dynamic_slice_sizes;
  // pad
  std::vector<PadDimension> padding;
  // dot
  DotDimensionNumbers dot_dimension_numbers;
  // gather
  GatherDimensionNumbers gather_dimension_numbers;
  std::vector<int64_t> gather_slice_sizes;
  // scatter
  ScatterDimensionNumbers scatter_dimension_numbers;
  // gather, scatter
  bool indices_are_sorted = false;
  bool unique_indices = false;
  // reduce-window, select-and-scatter, convolution (one per spatial
  // dimension for convolution, one per operand dimension otherwise)
  std::vector<WindowDimension> window;
  // convolution (the result's element type is its preferred_element_type;
  // precision_config is not kept: the CPU computes every float type at
  // full precision, which every precision asks for at most)
  ConvolutionDimensionNumbers convolution_dimension_numbers;
  int64_t feature_group_count = 1, batch_group_count = 1;
  // batch-norm-training, batch-norm-inference, batch-norm-grad
  float epsilon = 0;
  int64_t feature_index = 0;
  // sort
  bool is_stable = false;
  // topk: the k largest (or smallest) along the last dimension, sorted
  int64_t top_k = 0;
  bool top_k_largest = true;
  // fft: the transform and the lengths of the last fft_length.size()
  // dimensions (of the real side for RFFT and IRFFT)
  FftType fft_type = FftType::kFft;
  std::vector<int64_t> fft_length;
  // rng-bit-generator
  RngAlgorithm rng_algorithm = RngAlgorithm::kDefault;
  // rng
  RngDistribution rng_distribution = RngDistribution::kUniform;
  // reduce-precision
  int64_t exponent_bits = 0, mantissa_bits = 0;
  // cholesky, triangular-solve: which triangle of a holds the matrix
  bool lower = false;
  // triangular-solve: op(a) x = b (left_side) or x op(a) = b
  bool left_side = false;
  bool unit_diagonal = false;
  TriangularTranspose transpose_a = TriangularTranspose::kNoTranspose;
  // custom-call
  CustomCallConfig custom_call;
  // all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute
  // (all-reduce and reduce-scatter call their reduction: one computation
  // of two scalars)
  CollectiveDevices collective_devices;
  // all-to-all: each operand splits into split_count blocks along
  // split_dimension, one per device of the group, and the blocks it
  // receives concatenate along concat_dimension; split_count 0: the size of
  // the group (HLO does not write it).
  int64_t split_dimension = 0, concat_dimension = 0, split_count = 0;
  // collective-permute: (source, target) device ids
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  // manual-computation (called_computations()[0] is its body)
  ManualComputationConfig manual_computation;
  // fusion: called_computations()[0] is the fused computation, whose
  // parameters are the fusion's operands in order and whose root is its
  // result (a tuple of arrays when it has several); src/ir/fusion.h says
  // which ops it may hold.
  FusionKind fusion_kind = FusionKind::kLoop;
  // any op: GSPMD's sharding annotation, where the text gave one xffi reads
  // (the Sharding / SPMDFullToShardShape / SPMDShardToFullShape markers of a
  // shard_map always have one)
  std::optional<HloSharding> sharding;
  // any op: the frontend attributes the text gave it (StableHLO's
  // mhlo.frontend_attributes, HLO's frontend_attributes), string to string
  // and ordered by key as XLA prints them. They do not change what the op
  // computes; some are read by passes (a batch-partitionable custom call's
  // num_batch_dims).
  std::map<std::string, std::string> frontend_attributes;
  // any op: a side-effecting op is never removed or reordered (custom calls
  // set custom_call.has_side_effect instead).
  bool HasSideEffect() const;

 private:
  friend class Computation;
  Opcode opcode_;
  Shape shape_;
  std::string name_;
  std::vector<Instruction*> operands_;
  std::vector<Computation*> called_;
  Computation* parent_ = nullptr;
  Location location_;
};

class Module;

class Computation {
 public:
  explicit Computation(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  Module* parent() const { return parent_; }

  // Appends; the caller keeps operands before users. Parameters are also
  // indexed by parameter_number. Returns the added instruction.
  Instruction* AddInstruction(std::unique_ptr<Instruction> instruction);
  // Shorthand that creates the instruction.
  Instruction* AddInstruction(Opcode opcode, Shape shape,
                              std::vector<Instruction*> operands = {},
                              std::string name = "");
  // Inserts right before `before`, an instruction of this computation (a
  // pass placing a new op where its operands exist and its users do not
  // yet). Returns the inserted instruction.
  Instruction* InsertInstructionBefore(std::unique_ptr<Instruction> instruction,
                                       const Instruction* before);

  const std::vector<std::unique_ptr<Instruction>>& instructions() const {
    return instructions_;
  }
  int64_t instruction_count() const {
    return static_cast<int64_t>(instructions_.size());
  }
  // Sorted by parameter_number.
  std::vector<Instruction*> parameters() const;
  int64_t num_parameters() const;
  Instruction* parameter(int64_t number) const;  // null when absent

  Instruction* root() const { return root_; }
  void set_root(Instruction* root) { root_ = root; }

  // Where each result lives across devices, as the text declares it
  // (jax.jit's out_shardings: StableHLO's result mhlo.sharding or
  // sdy.sharding, HLO's ROOT sharding): one entry per result (the root
  // tuple's elements, else the root), nullopt for a result without one
  // xffi reads; empty when the text gives none. Kept like a parameter's
  // `sharding`: it says where the caller finds each result, not what the
  // program computes (results stay whole arrays here), so passes that
  // rebuild a computation may drop it.
  const std::vector<std::optional<HloSharding>>& result_shardings() const {
    return result_shardings_;
  }
  void set_result_shardings(std::vector<std::optional<HloSharding>> s) {
    result_shardings_ = std::move(s);
  }
  // How many results result_shardings() describes: the root's tuple
  // elements, or 1 (0 without a root).
  int64_t result_count() const;
  // What the caller calls each result (jax.jit's jax.result_info:
  // "result[0]['out']"), one per result as result_shardings(), "" for a
  // result without one; empty when the text names none. Kept like the
  // shardings: it describes the results, not what the program computes.
  // An entry parameter's name is its Location::name.
  const std::vector<std::string>& result_names() const { return result_names_; }
  void set_result_names(std::vector<std::string> names) {
    result_names_ = std::move(names);
  }

  // Removes instructions for which `dead` is true; the caller guarantees no
  // remaining instruction uses them.
  template <typename Pred>
  void RemoveInstructionsIf(Pred dead);

 private:
  friend class Module;
  std::string name_;
  Module* parent_ = nullptr;
  std::vector<std::unique_ptr<Instruction>> instructions_;
  Instruction* root_ = nullptr;
  std::vector<std::optional<HloSharding>> result_shardings_;
  std::vector<std::string> result_names_;
};

class Module {
 public:
  explicit Module(std::string name = "module") : name_(std::move(name)) {}
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  Computation* AddComputation(std::unique_ptr<Computation> computation);
  const std::vector<std::unique_ptr<Computation>>& computations() const {
    return computations_;
  }
  Computation* FindComputation(std::string_view name) const;

  Computation* entry() const { return entry_; }
  void set_entry(Computation* entry) { entry_ = entry; }

  // How messages name this module's ops.
  OpSpelling op_spelling() const { return op_spelling_; }
  void set_op_spelling(OpSpelling spelling) { op_spelling_ = spelling; }

  // How many devices (partitions) the program was written for; 0: not
  // said. A GSPMD shard_map whose shardings are all replicated runs on
  // that many.
  int64_t num_partitions() const { return num_partitions_; }
  void set_num_partitions(int64_t n) { num_partitions_ = n; }

  // Hands every computation to the caller (a pass that rebuilds the
  // module), leaving none and no entry.
  std::vector<std::unique_ptr<Computation>> ReleaseComputations();

  // A deep copy (instruction and computation pointers remapped).
  Module Clone() const;

 private:
  std::string name_;
  OpSpelling op_spelling_ = OpSpelling::kHlo;
  int64_t num_partitions_ = 0;
  std::vector<std::unique_ptr<Computation>> computations_;
  Computation* entry_ = nullptr;
};

template <typename Pred>
void Computation::RemoveInstructionsIf(Pred dead) {
  std::vector<std::unique_ptr<Instruction>> kept;
  kept.reserve(instructions_.size());
  for (auto& instruction : instructions_)
    if (!dead(instruction.get())) kept.push_back(std::move(instruction));
  instructions_ = std::move(kept);
}

// Checks every computation: operand counts and shapes, op fields, result
// shapes (against the ones ShapeInference computes), parameter numbering,
// called computations' signatures, the entry. The first problem is
// INVALID_ARGUMENT naming the op, its computation and location.
Status VerifyModule(const Module& module);

}  // namespace xffi

#endif  // XFFI_PROGRAM_IR_H_
