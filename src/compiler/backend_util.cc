// Lowering helpers every backend shares.
#include "compiler/backend_util.h"

#include <utility>

namespace xffi::compiler {

std::vector<BufferId> FlattenBuffers(
    const std::vector<std::vector<BufferId>>& lists, size_t first) {
  std::vector<BufferId> flat;
  for (size_t i = first; i < lists.size(); ++i)
    flat.insert(flat.end(), lists[i].begin(), lists[i].end());
  return flat;
}

std::vector<size_t> LeafByteSizes(const Shape& shape) {
  std::vector<size_t> sizes;
  for (const Shape* leaf : shape.Leaves()) sizes.push_back(leaf->byte_size());
  return sizes;
}

bool RunsNothing(Opcode opcode) {
  switch (opcode) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kOptimizationBarrier:
    case Opcode::kAfterAll:
      return true;
    default:
      return false;
  }
}

bool SameTypesAndDims(const Shape& a, const Shape& b) {
  if (a.element_type() != b.element_type()) return false;
  if (!a.IsTuple()) return a.dims() == b.dims();
  if (a.tuple_size() != b.tuple_size()) return false;
  for (int64_t i = 0; i < a.tuple_size(); ++i)
    if (!SameTypesAndDims(a.tuple_shape(i), b.tuple_shape(i))) return false;
  return true;
}

std::string CustomCallSite(const Instruction& op) {
  return "custom call '" + op.custom_call.target + "' at " +
         op.location().ToString();
}

std::vector<std::vector<int64_t>> CustomCallLeafOrders(
    const std::vector<Shape>& layouts) {
  std::vector<std::vector<int64_t>> orders;
  for (const Shape& layout : layouts)
    for (const Shape* leaf : layout.Leaves())
      orders.push_back(leaf->EffectiveMinorToMajor());
  return orders;
}

StatusOr<CustomCallTarget> ResolveCustomCall(const Instruction& op,
                                             Platform platform) {
  const CustomCallConfig& config = op.custom_call;
  const std::string_view platform_name = PlatformName(platform);
  CustomCallTarget target;
  if (config.api_version == CustomCallApiVersion::kTypedFfi ||
      !config.attributes.empty()) {
    StatusOr<const HandlerRecord*> record =
        FindHandler(config.target, platform_name);
    if (!record.ok())
      return Status(record.status().code(),
                    CustomCallSite(op) + ": " + record.status().message());
    target.handler = *record;
    return target;
  }
  const int version = static_cast<int>(config.api_version);
  if (version < 0 || version > 3)
    return InvalidArgument(CustomCallSite(op) + ": api_version " +
                           std::to_string(version) + " is not one of 0-4");
  StatusOr<const LegacyTargetRecord*> legacy =
      FindLegacyTarget(config.target, platform_name);
  if (!legacy.ok())
    return Status(legacy.status().code(),
                  CustomCallSite(op) + ": " + legacy.status().message());
  target.legacy = *legacy;
  target.legacy_version = static_cast<LegacyApiVersion>(version);
  if (!LegacyVersionsCompatible(platform, (*legacy)->api_version,
                                target.legacy_version))
    return FailedPrecondition(
        CustomCallSite(op) + " uses API version " +
        std::string(LegacyApiVersionName(target.legacy_version)) +
        " but the target was registered as " +
        std::string(LegacyApiVersionName((*legacy)->api_version)));
  return target;
}

CallFrame BuildCustomCallFrame(const Instruction& op) {
  CallFrameBuilder builder;
  for (const Instruction* operand : op.operands()) {
    for (const Shape* shape : operand->shape().Leaves()) {
      if (shape->IsArray())
        builder.Arg(static_cast<void*>(nullptr),
                    ToFfiDataType(shape->element_type()), shape->dims());
      else
        builder.TokenArg();
    }
  }
  for (const Shape* shape : op.shape().Leaves()) {
    if (shape->IsArray())
      builder.Ret(static_cast<void*>(nullptr),
                  ToFfiDataType(shape->element_type()), shape->dims());
    else
      builder.TokenRet();
  }
  builder.Attrs(op.custom_call.attributes);
  return builder.Build();
}

namespace {

LegacyShape ToLegacyShape(const Shape& shape) {
  if (shape.IsTuple()) {
    std::vector<LegacyShape> elements;
    for (const Shape& element : shape.tuple_shapes())
      elements.push_back(ToLegacyShape(element));
    return LegacyShape::Tuple(std::move(elements));
  }
  return shape.IsToken() ? LegacyShape::Token() : LegacyShape::Array();
}

}  // namespace

LegacyCallFrame BuildLegacyCallFrame(const Instruction& op, Platform platform) {
  std::vector<LegacyShape> operands;
  for (const Instruction* operand : op.operands())
    operands.push_back(ToLegacyShape(operand->shape()));
  return LegacyCallFrame::Create(platform, operands, ToLegacyShape(op.shape()));
}

}  // namespace xffi::compiler
