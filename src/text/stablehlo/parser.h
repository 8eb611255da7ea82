// The StableHLO reader: MLIR text as `jax.jit(f).lower(...).as_text()`
// prints it, in the pretty and the generic op forms, into the IR of ir.h.
//
// The parser walks the text once. Each function becomes a computation; each
// region (reduce bodies, comparators, loop condition and body, branches,
// a manual computation's body) becomes a computation of its own. A value a
// region uses from an enclosing scope (MLIR's implicit capture) is made
// explicit:
//   - while: appended to the loop-carried tuple, passed through unchanged by
//     the body and dropped from the op's results;
//   - case/if: gathered into the branch's single tuple parameter, with the
//     tuple built before the op as that branch's operand;
//   - reduce, reduce_window, sort, scatter, the collectives' reductions:
//     constants are cloned into the region; anything else is an error (HLO
//     gives those regions no extra parameters).
// func.call becomes a kCall of the callee's computation (not inlined), so a
// function called twice exists once.
//
// An op with one result gets that shape; an op with several results (and
// every while loop, whose state is always a tuple) gets a tuple shape, and
// each use of `%x#i` reads element i through a get-tuple-element built in
// the computation where it is used. Called computations: while
// {condition, body}; conditional: the branches in order (`stablehlo.if`:
// {true, false}). Every op records its line:column and its loc() name.
//
// The parser is one class whose parts live by concern:
//   parser.cc       module structure, functions, regions, values
//   locations.cc    loc(...) and its aliases
//   syntax.cc       an op's pretty and generic forms, read into an OpSpec
//   types.cc        type specs and the result shapes they give
//   attributes.cc   attributes read into the IR's op fields
//   ops.cc          ops built from their OpSpec
//   custom_call.cc  stablehlo.custom_call
//   shardy.cc       meshes, manual computations, sharding annotations and
//                   the collectives
//   refine.cc       shape refinement of a shape-polymorphic program
//
// Shape refinement (ParseOptions::argument_shapes on a program with `?`
// dimensions) reads the text twice. The first reading is the ordinary one:
// it checks the syntax and records where each function starts. The second
// starts at @main with the given argument shapes and reads each function
// again for every distinct signature it is called with (operand shapes and
// the values of small integer constants passed in, JAX's dimension
// variables), so every value gets a static shape as it is read: the result
// of an op whose type has `?` is inferred from its refined operands, the
// integer arithmetic on dimension sizes is folded to constants, dynamic ops
// whose shape operands became constants are built as their static forms,
// and JAX's shape assertions are checked and dropped.
#ifndef XFFI_SRC_TEXT_STABLEHLO_PARSER_H_
#define XFFI_SRC_TEXT_STABLEHLO_PARSER_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "text/mlir/attribute.h"
#include "text/mlir/lexer.h"
#include "xffi/program/ir.h"

namespace xffi::text::stablehlo {

inline constexpr int kMaxNesting = 64;
inline constexpr int64_t kMaxResults = 1 << 16;

struct Definition {
  Instruction* inst = nullptr;
  int64_t count = 1;   // results this name stands for
  bool tuple = false;  // results are elements of inst's tuple
  int64_t offset = 0;  // element of the first result
};

enum class RegionKind { kFunction, kScalarArgs, kLoopState, kBranch };

struct Scope {
  Scope* parent = nullptr;
  Computation* computation = nullptr;
  RegionKind kind = RegionKind::kFunction;
  std::string owner;  // "stablehlo.reduce at 4:7", for messages
  std::unordered_map<std::string, Definition> defs;
  std::map<std::pair<Instruction*, int64_t>, Instruction*> elements;
  std::unordered_map<Instruction*, Instruction*> captured;  // outer -> local
  // kLoopState, kBranch: the tuple parameter, how many of its elements the
  // text declares, and the outer values carried after them.
  Instruction* state = nullptr;
  int64_t declared = 0;
  std::vector<Instruction*>* captures = nullptr;
};

struct LocNode {
  enum class Kind { kUnknown, kAlias, kName, kFile, kCallSite, kFused };
  Kind kind = Kind::kUnknown;
  std::string text;  // alias name, loc name or file name
  int line = 0, column = 0;
  std::vector<LocNode> children;
};

struct BlockArg {
  std::string name;
  MlirType type;
  SourcePos pos;
  int64_t parameter = -1;  // -1: its position
  // A function argument's mhlo.sharding or sdy.sharding, where it has one
  // xffi reads.
  std::optional<HloSharding> sharding;
  // A function argument's name in the caller's terms: JAX writes it as
  // its location (`loc("params['w']")`; older JAX as jax.arg_info). It
  // becomes the parameter's Location::name, where XLA keeps it too (HLO's
  // metadata={op_name=...} of the parameter).
  std::string jax_name;
  std::optional<LocNode> loc;
};

struct Region {
  Computation* computation = nullptr;
  std::unique_ptr<Scope> scope;
  std::vector<Instruction*> returns;
  SourcePos return_pos;
  std::vector<BlockArg> args;
};

struct TypeSpec {
  bool functional = false;
  std::vector<MlirType> inputs, outputs;  // functional
  std::vector<MlirType> list;             // `: T` or `: T, U`
  SourcePos pos;
};

// An op as the text gives it, before it is built.
struct OpSpec {
  std::string name;
  SourcePos pos;
  std::vector<Instruction*> operands;
  std::map<std::string, MlirAttr> attrs;
  std::vector<Region> regions;
  std::vector<std::vector<Instruction*>> region_captures;
  TypeSpec types;
};

struct Outcome {
  Instruction* inst = nullptr;
  int64_t count = 1;
  bool tuple = false;
  bool is_return = false;
  std::vector<Instruction*> returns;
};

struct FuncInfo {
  Computation* computation = nullptr;
  bool defined = false;
  SourcePos first_use;
  int64_t num_parameters = 0;
  std::vector<Shape> results;
};

// A function as the first reading found it (refinement reads it again).
struct FunctionStart {
  MlirLexer::State state;  // at `func.func`
  bool generic = false;
};

// What a specialised function's arguments are: their shapes and, for small
// integer constants the caller passes, their values.
struct Signature {
  std::vector<Shape> shapes;
  std::vector<std::optional<Literal>> constants;
};

struct PendingCall {
  Instruction* inst;
  std::string callee;
  SourcePos pos;
  std::vector<Shape> result_shapes;
};

bool IsReturnOp(std::string_view name);
// A value's shape against the type the text declares for it: equal, except
// that a declared `?` dimension matches any size.
bool MatchesDeclared(const Shape& actual, const Shape& declared);
// A static module given argument shapes: they must be its entry's.
StatusOr<Module> CheckArgumentShapes(Module module,
                                     const std::vector<Shape>& shapes,
                                     std::string_view source_name);
// Ops with shape operands, which only refinement builds (refine.cc).
bool IsShapeDynamicOp(std::string_view name);
// Why an op that sets or reads a bounded dimension's size at run time is
// refused: xffi reads a bounded dimension as its bound (mlir/attribute.cc).
std::string BoundedSizeRefusal(std::string_view op);
// Sharding annotations: the value passes through unchanged.
bool IsShardingAnnotation(std::string_view name);
// chlo ops with no opcode of their own, built from others.
bool IsDecomposedChloOp(std::string_view name);
bool IsSupportedOpName(std::string_view name);
// fft, rng_bit_generator, rng, top_k, map, cholesky, triangular_solve: built
// by BuildNumericOp (numeric_ops.cc).
bool IsNumericOp(Opcode opcode);
std::string PosString(SourcePos pos);
// A shape as StableHLO writes its type: "tensor<2x3xf32>".
std::string TypeString(const Shape& shape);
std::vector<Shape> Shapes(const std::vector<MlirType>& types);

class Parser {
 public:
  Parser(std::string_view text, std::string_view source_name)
      : lex_(text, source_name), attrs_(lex_), source_(source_name) {}

  StatusOr<Module> Run();
  // The second reading of a shape-polymorphic program: @main with these
  // argument shapes, functions from `first`'s reading (see the top).
  StatusOr<Module> RunRefined(const Parser& first,
                              const std::vector<Shape>& argument_shapes);

 private:
  // --- module structure (parser.cc)
  Status ParseModule();
  Status ParseGenericModule();
  Status ParseModuleItems();  // until '}'
  Status ParseFunction();
  Status ParseGenericFunction();
  // A generic func.func's arg_attrs or res_attrs: each value's `key`
  // string, "" where it has none; empty when no value has one.
  StatusOr<std::vector<std::string>> GenericValueNames(const MlirAttr& props,
                                                       std::string_view list,
                                                       std::string_view key,
                                                       size_t count) const;
  Status ParseFunctionBody(FuncInfo* info, const std::string& name,
                           std::vector<BlockArg> args,
                           const std::vector<Shape>& results, SourcePos pos);
  FuncInfo* GetFunction(const std::string& name, SourcePos pos);
  // The module from the computations read, `entry` last.
  StatusOr<Module> Assemble(Computation* entry);

  // --- shape refinement (refine.cc)
  // @name read again for `signature`, once per distinct signature.
  StatusOr<FuncInfo*> Specialize(const std::string& name,
                                 const Signature& signature, SourcePos pos);
  StatusOr<FuncInfo*> SpecializeCall(const std::string& name,
                                     const std::vector<Instruction*>& operands,
                                     SourcePos pos);
  // Ops refinement builds differently: dynamic ops, get_dimension_size,
  // shape assertions, custom calls with shape operands. Sets *handled.
  StatusOr<Outcome> RefineOp(Scope* scope, OpSpec& spec, bool* handled);
  StatusOr<Outcome> RefineDynamicReduceWindow(const OpSpec& spec,
                                              Computation* computation);
  // @stablehlo.dynamic_rng_bit_generator and @stablehlo.dynamic_top_k.
  StatusOr<Outcome> RefineDynamicNumericOp(Scope* scope, OpSpec& spec,
                                           const std::string& target);
  // After an op is built: results with `?` inferred, integer arithmetic on
  // constants folded.
  Status RefineResult(const OpSpec& spec, Outcome* outcome);
  // A shape operand's values, or an error naming the op when they depend
  // on data.
  StatusOr<std::vector<int64_t>> ShapeValues(const OpSpec& spec, size_t index,
                                             std::string_view what);
  // Outside refinement: a dynamic op kept as a placeholder, so the module
  // can be inspected and the verifier refuses it.
  StatusOr<Outcome> BuildUnrefinedDynamicOp(Scope* scope, OpSpec& spec);
  // Refuses the ops that change or read a bounded dimension's size at run
  // time (ops.cc).
  Status CheckBoundedSizes(const OpSpec& spec) const;
  // get_dimension_size's dimension has a size the text gives.
  bool IsStaticDimension(const OpSpec& spec) const;

  // --- locations (locations.cc)
  Status ParseLocAliasDefinition();
  StatusOr<LocNode> ParseLoc();
  StatusOr<LocNode> ParseLocInner(int depth);
  std::string LocName(const LocNode& node, int depth) const;
  Status SkipOptionalLoc();

  // --- bodies (parser.cc)
  Status ParseBlock(Scope* scope, Region* region);
  Status ParseBlockArgs(std::vector<BlockArg>* args);
  Status ParseTypedArgs(std::vector<BlockArg>* args, const std::string& what);
  // `initial`: a generic-form loop's operands, whose shapes its block
  // arguments take under refinement.
  StatusOr<Region> ParseRegion(
      Scope* parent, RegionKind kind, const std::string& owner,
      const std::string& name, std::vector<BlockArg> args,
      std::vector<Instruction*>* captures,
      const std::vector<Instruction*>* initial = nullptr);

  // --- op forms (syntax.cc)
  Status ParseOperation(Scope* scope, Region* region, bool* was_return);
  Status ParseOperandList(Scope* scope, std::vector<Instruction*>* operands,
                          TokenKind close);
  StatusOr<Outcome> ParsePrettyOp(Scope* scope, const std::string& name,
                                  SourcePos pos);
  StatusOr<Outcome> ParseGenericOp(Scope* scope, const std::string& name,
                                   SourcePos pos);
  StatusOr<Outcome> ParsePrettyCommon(Scope* scope, OpSpec spec);
  StatusOr<Outcome> ParsePrettyReduce(Scope* scope, SourcePos pos);
  StatusOr<Outcome> ParsePrettyWhile(Scope* scope, SourcePos pos);
  StatusOr<Outcome> ParseCall(Scope* scope, SourcePos pos);
  StatusOr<Outcome> ParseReturn(Scope* scope, bool generic);

  // --- Shardy and the collectives (shardy.cc)
  Status ParseSdyMeshDefinition();
  StatusOr<Outcome> ParseManualComputation(Scope* scope, SourcePos pos);
  StatusOr<Outcome> ParseShardingAnnotation(Scope* scope);
  StatusOr<Outcome> BuildCollective(Scope* scope, OpSpec& spec, Opcode opcode);

  // --- values (parser.cc)
  StatusOr<Instruction*> Use(Scope* scope, const Token& token);
  StatusOr<Instruction*> Resolve(Scope* scope, const std::string& base,
                                 int64_t index, bool explicit_index,
                                 SourcePos pos);
  StatusOr<Instruction*> Capture(Scope* scope, Instruction* outer,
                                 const std::string& name, SourcePos pos);
  Instruction* Element(Scope* scope, Instruction* tuple, int64_t index);
  Instruction* Add(Computation* computation, Opcode opcode, Shape shape,
                   std::vector<Instruction*> operands = {});
  Instruction* AddParameter(Computation* computation, int64_t number,
                            Shape shape, const std::string& name);
  Computation* NewComputation(const std::string& base);
  std::string ComputationName(const std::string& base);  // unique
  std::string InstructionName(Opcode opcode);            // "add.12"
  Status Define(Scope* scope,
                const std::vector<std::pair<std::string, int64_t>>& names,
                const Outcome& outcome, SourcePos pos);

  // --- types (types.cc)
  Status ParseTypeSpec(TypeSpec* spec);
  StatusOr<std::vector<Shape>> ResultShapes(const OpSpec& spec, Opcode opcode);
  // A functional type's inputs against the operands.
  Status CheckOperandTypes(const OpSpec& spec);

  // --- attributes (attributes.cc)
  // An attribute dictionary xffi has no use for, when there is one.
  Status SkipOptionalDictionary();
  // A function argument's or result's attribute dictionary, if any: its
  // mhlo.sharding or sdy.sharding into *sharding, JAX's name for it
  // (jax.arg_info, jax.result_info) into *jax_name, the rest skipped.
  // `what` ("argument 0", "result 1") names the value in errors.
  Status ParseValueAttributes(std::optional<HloSharding>* sharding,
                              std::string* jax_name, const std::string& what);
  const MlirAttr* Attr(const OpSpec& spec, std::string_view name) const;
  StatusOr<std::vector<int64_t>> Ints(const OpSpec& spec, std::string_view name,
                                      bool required);
  // The entries of a dialect attribute (#stablehlo.gather<...>) as the
  // attributes of a spec named like `spec`, so Attr and Ints read them.
  OpSpec Unpacked(const OpSpec& spec, const MlirAttr& dialect) const;
  Status ReadComparison(const OpSpec& spec, Instruction* inst);
  StatusOr<DotDimensionNumbers> ReadDotDimensions(const OpSpec& spec);
  Status CheckDotAlgorithm(const OpSpec& spec, const MlirAttr& algorithm,
                           const std::vector<Instruction*>& operands) const;
  StatusOr<GatherDimensionNumbers> ReadGatherDimensions(const OpSpec& spec);
  StatusOr<ScatterDimensionNumbers> ReadScatterDimensions(const OpSpec& spec);
  StatusOr<std::vector<WindowDimension>> ReadWindow(const OpSpec& spec);
  StatusOr<std::vector<PadDimension>> ReadPadding(const OpSpec& spec);
  // A convolution's window, dimension numbers and group counts (the
  // window's sizes are the kernel's, which the text does not repeat).
  Status ReadConvolution(const OpSpec& spec, Instruction* inst);
  // A batch norm op's epsilon and feature_index.
  Status ReadBatchNorm(const OpSpec& spec, Instruction* inst);
  // A flag attribute (`is_stable = true`) into *out when present.
  Status ReadFlag(const OpSpec& spec, std::string_view name, bool* out);

  // --- building ops (ops.cc, custom_call.cc)
  // Builds the op, then gives it the spec's mhlo.frontend_attributes.
  StatusOr<Outcome> Build(Scope* scope, OpSpec& spec);
  StatusOr<Outcome> BuildOp(Scope* scope, OpSpec& spec);
  // mhlo.frontend_attributes: a dictionary of strings, or an error at the
  // offending entry.
  StatusOr<std::map<std::string, std::string>> FrontendAttributes(
      const OpSpec& spec) const;
  StatusOr<Outcome> BuildCustomCall(Scope* scope, OpSpec& spec,
                                    const std::vector<Shape>& results);
  StatusOr<Outcome> BuildDecomposedChlo(Scope* scope, OpSpec& spec);
  StatusOr<Outcome> BuildNumericOp(Scope* scope, OpSpec& spec, Opcode opcode,
                                   const std::vector<Shape>& results);
  // An enum attribute's value, by its pretty or its generic name; nullopt
  // when absent.
  StatusOr<std::optional<std::string>> EnumAttr(const OpSpec& spec,
                                                std::string_view pretty,
                                                std::string_view generic) const;
  Status ReadReducePrecision(const OpSpec& spec, Instruction* inst);
  StatusOr<Outcome> BuildWhile(Scope* scope, OpSpec& spec,
                               std::vector<Instruction*>& captures);
  StatusOr<Outcome> BuildConditional(Scope* scope, OpSpec& spec,
                                     const std::vector<Shape>& results);
  Status SetRegionRoot(Region& region, const OpSpec& spec);
  Computation* ApplyComputation(Opcode opcode, const Shape& scalar,
                                SourcePos pos);
  Status OpError(const OpSpec& spec, std::string_view message) const {
    return lex_.ErrorAt(spec.pos, spec.name + ": " + std::string(message));
  }

  MlirLexer lex_;
  MlirAttributeParser attrs_;
  std::string source_;
  std::string module_name_ = "module";
  bool have_module_ = false;
  int depth_ = 0;
  // Where the op being read starts (its first result name, or the op).
  SourcePos op_start_;
  std::vector<std::unique_ptr<Computation>> computations_;
  std::map<std::string, FuncInfo> functions_;
  std::map<std::string, LocNode> loc_aliases_;
  std::vector<std::pair<Instruction*, LocNode>> pending_locs_;
  std::vector<PendingCall> pending_calls_;
  std::map<std::string, Mesh> meshes_;
  int64_t num_partitions_ = 0;  // 0: not given
  std::set<std::string> used_names_;
  int64_t next_id_ = 0;
  // Shape refinement (refine.cc). The first reading fills function_starts_;
  // the second sets refining_, reads functions through Specialize and
  // keeps one FuncInfo per specialisation.
  std::map<std::string, FunctionStart> function_starts_;
  bool refining_ = false;
  const Signature* signature_ = nullptr;  // for the function being entered
  FuncInfo* specialization_ = nullptr;    // its FuncInfo
  std::map<std::string, std::unique_ptr<FuncInfo>> specializations_;
  std::set<std::string> specializing_;  // being read (recursion)
};

}  // namespace xffi::text::stablehlo

#endif  // XFFI_SRC_TEXT_STABLEHLO_PARSER_H_
