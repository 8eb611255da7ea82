#include "ir/collective_shape_inference.h"

#include <set>
#include <string>
#include <vector>

#include "ir/inference_failure.h"
#include "runtime/status_macros.h"

namespace xffi {
namespace {

using inference::Fail;

std::string Text(const Shape& shape) { return shape.ToString(false); }

Shape MaybeTuple(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return std::move(shapes[0]);
  return Shape::Tuple(std::move(shapes));
}

// The op's own result shapes, one per operand: the parts of the result the
// operands do not determine come from them.
StatusOr<std::vector<Shape>> GivenResults(const Instruction& in) {
  const Shape& shape = in.shape();
  std::vector<Shape> results;
  if (in.operand_count() == 1 && shape.IsArray()) {
    results.push_back(shape.WithoutLayout());
  } else if (shape.IsTuple() && shape.tuple_size() == in.operand_count()) {
    for (const Shape& element : shape.tuple_shapes())
      results.push_back(element.WithoutLayout());
  } else {
    return Fail("has ", in.operand_count(), " operand(s) and result ",
                shape.ToString(), "; it needs one array result per operand");
  }
  for (size_t i = 0; i < results.size(); ++i)
    if (!results[i].IsArray())
      return Fail("result ", i, " must be an array, got ", Text(results[i]));
  return results;
}

Status ExpectArrayOperands(const Instruction& in) {
  if (in.operand_count() < 1) return Fail("takes at least 1 operand, got 0");
  for (int64_t i = 0; i < in.operand_count(); ++i)
    if (!in.operand(i)->shape().IsArray())
      return Fail("operand ", i, " must be an array, got ",
                  in.operand(i)->shape().ToString());
  return Status::Ok();
}

Status ExpectCalled(const Instruction& in, size_t n) {
  if (in.called_computations().size() != n)
    return Fail("calls ", n, n == 1 ? " computation" : " computations",
                ", got ", in.called_computations().size());
  return Status::Ok();
}

Status CheckDevices(const Instruction& in) {
  const CollectiveDevices& devices = in.collective_devices;
  if (devices.channel_id < 0)
    return Fail("channel_id ", devices.channel_id, " is negative");
  if (devices.use_global_device_ids && devices.channel_id == 0)
    return Fail("use_global_device_ids needs a channel (channel_id > 0)");
  std::set<int64_t> seen;
  for (size_t g = 0; g < devices.replica_groups.size(); ++g) {
    const std::vector<int64_t>& group = devices.replica_groups[g];
    if (group.empty()) return Fail("replica group ", g, " is empty");
    // -1 pads uneven groups in StableHLO's dense form.
    for (int64_t id : group) {
      if (id < -1) return Fail("replica_groups names device ", id);
      if (id >= 0 && !seen.insert(id).second)
        return Fail("replica_groups names device ", id, " twice");
    }
  }
  return Status::Ok();
}

// all-reduce's and reduce-scatter's reduction: two scalars of one type to
// one of the same type.
Status CheckReduction(const Instruction& in) {
  XFFI_RETURN_IF_ERROR(ExpectCalled(in, 1));
  const Computation* region = in.called_computations()[0];
  if (region->root() == nullptr)
    return Fail("reduction '", region->name(), "' has no root");
  const Instruction* a = region->parameter(0);
  const Instruction* b = region->parameter(1);
  if (region->num_parameters() != 2 || a == nullptr || b == nullptr ||
      !a->shape().IsArray() || a->shape().rank() != 0 ||
      a->shape().WithoutLayout() != b->shape().WithoutLayout() ||
      region->root()->shape().WithoutLayout() != a->shape().WithoutLayout())
    return Fail("reduction '", region->name(),
                "' must take two scalars of one type and return one of the "
                "same type");
  return Status::Ok();
}

Status CheckDimension(const Instruction& in, int64_t dim, const char* what) {
  for (int64_t i = 0; i < in.operand_count(); ++i) {
    int64_t rank = in.operand(i)->shape().rank();
    if (dim < 0 || dim >= rank)
      return Fail(what, " ", dim, " is out of range for operand ", i, " ",
                  Text(in.operand(i)->shape()));
  }
  return Status::Ok();
}

// Result i is operand i with dimension `dim` scaled: `gather` (all-gather)
// a whole multiple of it, or else (reduce-scatter) a whole fraction.
Status CheckScaled(const Instruction& in, const std::vector<Shape>& results,
                   int64_t dim, bool gather) {
  for (size_t i = 0; i < results.size(); ++i) {
    const Shape& operand = in.operand(static_cast<int64_t>(i))->shape();
    const Shape& result = results[i];
    bool same_elsewhere = result.element_type() == operand.element_type() &&
                          result.rank() == operand.rank();
    for (int64_t d = 0; same_elsewhere && d < operand.rank(); ++d)
      same_elsewhere = d == dim || result.dim(d) == operand.dim(d);
    int64_t big = gather ? result.dim(dim) : operand.dim(dim);
    int64_t small = gather ? operand.dim(dim) : result.dim(dim);
    bool whole = small == 0 ? big == 0 : big % small == 0;
    if (!same_elsewhere || !whole)
      return Fail("result ", i, " ", Text(result), " is not operand ", i, " ",
                  Text(operand), " with dimension ", dim,
                  gather ? " multiplied" : " divided",
                  " by a number of devices");
  }
  return Status::Ok();
}

Status InferAllToAll(const Instruction& in, Shape* out) {
  XFFI_RETURN_IF_ERROR(
      CheckDimension(in, in.split_dimension, "split_dimension"));
  XFFI_RETURN_IF_ERROR(
      CheckDimension(in, in.concat_dimension, "concat_dimension"));
  const int64_t count = in.split_count;
  if (count < 0) return Fail("split_count ", count, " is negative");
  if (count > 0)
    for (size_t g = 0; g < in.collective_devices.replica_groups.size(); ++g)
      if (static_cast<int64_t>(
              in.collective_devices.replica_groups[g].size()) != count)
        return Fail("split_count is ", count, ", replica group ", g, " has ",
                    in.collective_devices.replica_groups[g].size(), " devices");
  if (count > 0) {
    std::vector<Shape> results;
    for (int64_t i = 0; i < in.operand_count(); ++i) {
      const Shape& operand = in.operand(i)->shape();
      if (operand.dim(in.split_dimension) % count != 0)
        return Fail("operand ", i, " ", Text(operand), ": split_dimension ",
                    in.split_dimension, " does not split into ", count,
                    " blocks");
      std::vector<int64_t> dims = operand.dims();
      dims[static_cast<size_t>(in.split_dimension)] /= count;
      dims[static_cast<size_t>(in.concat_dimension)] *= count;
      results.push_back(Shape::Array(operand.element_type(), dims));
    }
    *out = MaybeTuple(std::move(results));
    return Status::Ok();
  }
  // Without a count (HLO's, with no replica groups) the op's shape says
  // how the blocks went.
  XFFI_ASSIGN_OR_RETURN(std::vector<Shape> results, GivenResults(in));
  for (size_t i = 0; i < results.size(); ++i) {
    const Shape& operand = in.operand(static_cast<int64_t>(i))->shape();
    const Shape& result = results[i];
    bool same = result.element_type() == operand.element_type() &&
                result.rank() == operand.rank() &&
                result.num_elements() == operand.num_elements();
    for (int64_t d = 0; same && d < operand.rank(); ++d)
      same = d == in.split_dimension || d == in.concat_dimension ||
             result.dim(d) == operand.dim(d);
    if (!same)
      return Fail("result ", i, " ", Text(result),
                  " is not a redistribution of operand ", i, " ", Text(operand),
                  " along split_dimension ", in.split_dimension,
                  " and concat_dimension ", in.concat_dimension);
  }
  *out = MaybeTuple(std::move(results));
  return Status::Ok();
}

Status InferCollectivePermute(const Instruction& in, Shape* out) {
  if (in.operand_count() != 1)
    return Fail("takes 1 operand, got ", in.operand_count());
  XFFI_RETURN_IF_ERROR(ExpectArrayOperands(in));
  std::set<int64_t> sources, targets;
  for (const auto& [source, target] : in.source_target_pairs) {
    if (source < 0 || target < 0)
      return Fail("source_target_pairs names device ",
                  std::min(source, target));
    if (!sources.insert(source).second)
      return Fail("device ", source, " sends twice in source_target_pairs");
    if (!targets.insert(target).second)
      return Fail("device ", target, " receives from two sources");
  }
  *out = in.operand(0)->shape().WithoutLayout();
  return Status::Ok();
}

Status CheckMesh(const Mesh& mesh) {
  if (mesh.axis_names.size() != mesh.axis_sizes.size())
    return Fail("its mesh has ", mesh.axis_names.size(), " axis names and ",
                mesh.axis_sizes.size(), " sizes");
  std::set<std::string> names;
  for (size_t a = 0; a < mesh.axis_names.size(); ++a) {
    if (!names.insert(mesh.axis_names[a]).second)
      return Fail("mesh axis \"", mesh.axis_names[a], "\" appears twice");
    if (mesh.axis_sizes[a] < 1)
      return Fail("mesh axis \"", mesh.axis_names[a], "\" has size ",
                  mesh.axis_sizes[a]);
  }
  if (mesh.device_ids.empty()) return Status::Ok();
  std::vector<bool> seen(static_cast<size_t>(mesh.device_count()), false);
  bool permutation = mesh.device_ids.size() == seen.size();
  for (int64_t id : mesh.device_ids) {
    permutation = permutation && id >= 0 && id < mesh.device_count() &&
                  !seen[static_cast<size_t>(id)];
    if (permutation) seen[static_cast<size_t>(id)] = true;
  }
  if (!permutation)
    return Fail("the mesh's device_ids must be a permutation of 0..",
                mesh.device_count() - 1);
  return Status::Ok();
}

Status InferManualComputation(const Instruction& in, Shape* out) {
  const ManualComputationConfig& config = in.manual_computation;
  const Mesh& mesh = config.mesh;
  XFFI_RETURN_IF_ERROR(ExpectCalled(in, 1));
  XFFI_RETURN_IF_ERROR(CheckMesh(mesh));
  std::set<std::string> manual;
  for (const std::string& axis : config.manual_axes) {
    if (mesh.AxisIndex(axis) < 0)
      return Fail("manual axis \"", axis, "\" is not an axis of the mesh");
    if (!manual.insert(axis).second)
      return Fail("manual axis \"", axis, "\" is listed twice");
  }
  const Computation* body = in.called_computations()[0];
  if (body->root() == nullptr)
    return Fail("body '", body->name(), "' has no root");
  const size_t operands = static_cast<size_t>(in.operand_count());
  if (operands != config.in_shardings.size() ||
      static_cast<int64_t>(operands) != body->num_parameters())
    return Fail(operands, " operand(s), ", config.in_shardings.size(),
                " in_sharding(s) and ", body->num_parameters(),
                " body argument(s); they must agree");
  for (size_t i = 0; i < operands; ++i) {
    const Shape& shape = in.operand(static_cast<int64_t>(i))->shape();
    std::string value = "operand " + std::to_string(i);
    if (!shape.IsArray()) return Fail(value, " is not an array");
    XFFI_ASSIGN_OR_RETURN(
        std::vector<int64_t> blocks,
        ManualBlockCounts(mesh, config.in_shardings[i], config.manual_axes,
                          shape.rank(), value));
    std::vector<int64_t> local = shape.dims();
    for (size_t d = 0; d < local.size(); ++d) {
      if (local[d] % blocks[d] != 0)
        return Fail(value, " (", Text(shape), "): dimension ", d,
                    " does not split into ", blocks[d], " equal blocks");
      local[d] /= blocks[d];
    }
    const Shape& param = body->parameter(static_cast<int64_t>(i))->shape();
    Shape block = Shape::Array(shape.element_type(), local);
    if (param.WithoutLayout() != block)
      return Fail(value, " (", Text(shape), ") splits into blocks of ",
                  Text(block), ", the body takes ", Text(param));
  }
  const Shape& returned = body->root()->shape();
  const size_t results = config.out_shardings.size();
  std::vector<Shape> locals;
  if (results == 1) {
    locals.push_back(returned);
  } else if (returned.IsTuple() &&
             static_cast<size_t>(returned.tuple_size()) == results) {
    locals = returned.tuple_shapes();
  } else {
    return Fail("the body returns ", Text(returned), " for ", results,
                " out_sharding(s)");
  }
  std::vector<Shape> globals;
  for (size_t r = 0; r < results; ++r) {
    std::string value = "result " + std::to_string(r);
    if (!locals[r].IsArray())
      return Fail(value, " is not an array: the body returns ",
                  Text(locals[r]));
    XFFI_ASSIGN_OR_RETURN(
        std::vector<int64_t> blocks,
        ManualBlockCounts(mesh, config.out_shardings[r], config.manual_axes,
                          locals[r].rank(), value));
    std::vector<int64_t> dims = locals[r].dims();
    for (size_t d = 0; d < dims.size(); ++d) dims[d] *= blocks[d];
    globals.push_back(Shape::Array(locals[r].element_type(), dims));
  }
  if (globals.empty()) return Fail("has no results");
  *out = MaybeTuple(std::move(globals));
  return Status::Ok();
}

}  // namespace

Status InferAcrossDevicesShape(const Instruction& in, Shape* out) {
  switch (in.opcode()) {
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
      if (in.operand_count() != 0)
        return Fail("takes 0 operands, got ", in.operand_count());
      *out = Shape::Scalar(ElementType::kU32);
      return Status::Ok();
    case Opcode::kManualComputation:
      return InferManualComputation(in, out);
    case Opcode::kCollectivePermute:
      XFFI_RETURN_IF_ERROR(CheckDevices(in));
      return InferCollectivePermute(in, out);
    default:
      break;
  }
  XFFI_RETURN_IF_ERROR(ExpectArrayOperands(in));
  XFFI_RETURN_IF_ERROR(CheckDevices(in));
  switch (in.opcode()) {
    case Opcode::kAllReduce: {
      XFFI_RETURN_IF_ERROR(CheckReduction(in));
      std::vector<Shape> results;
      for (const Instruction* operand : in.operands())
        results.push_back(operand->shape().WithoutLayout());
      *out = MaybeTuple(std::move(results));
      return Status::Ok();
    }
    case Opcode::kAllGather:
    case Opcode::kReduceScatter: {
      const bool gather = in.opcode() == Opcode::kAllGather;
      if (!gather) XFFI_RETURN_IF_ERROR(CheckReduction(in));
      if (in.dimensions.size() != 1)
        return Fail("needs one dimension, got ", in.dimensions.size());
      const int64_t dim = in.dimensions[0];
      XFFI_RETURN_IF_ERROR(CheckDimension(
          in, dim, gather ? "all_gather_dim" : "scatter_dimension"));
      XFFI_ASSIGN_OR_RETURN(std::vector<Shape> results, GivenResults(in));
      XFFI_RETURN_IF_ERROR(CheckScaled(in, results, dim, gather));
      *out = MaybeTuple(std::move(results));
      return Status::Ok();
    }
    case Opcode::kAllToAll:
      return InferAllToAll(in, out);
    default:
      return Fail("has no shape rule");
  }
}

}  // namespace xffi
