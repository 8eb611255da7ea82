#include "xffi/program/sharding.h"

#include <algorithm>
#include <set>

namespace xffi {
namespace {

std::string Quoted(const std::string& axis) { return "\"" + axis + "\""; }

std::string IntList(const std::vector<int64_t>& values,
                    std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += separator;
    out += std::to_string(values[i]);
  }
  return out;
}

}  // namespace

int64_t Mesh::device_count() const {
  int64_t count = 1;
  for (int64_t size : axis_sizes) count *= size;
  return count;
}

int64_t Mesh::AxisIndex(std::string_view axis) const {
  for (size_t i = 0; i < axis_names.size(); ++i)
    if (axis_names[i] == axis) return static_cast<int64_t>(i);
  return -1;
}

int64_t Mesh::DeviceId(int64_t position) const {
  return device_ids.empty() ? position
                            : device_ids[static_cast<size_t>(position)];
}

int64_t Mesh::Coordinate(int64_t position, size_t axis) const {
  int64_t stride = 1;
  for (size_t a = axis + 1; a < axis_sizes.size(); ++a) stride *= axis_sizes[a];
  return position / stride % axis_sizes[axis];
}

bool Mesh::SameDevices(const Mesh& other) const {
  return axis_names == other.axis_names && axis_sizes == other.axis_sizes &&
         device_ids == other.device_ids;
}

std::string Mesh::ToString() const {
  std::string out = "<[";
  for (size_t i = 0; i < axis_names.size(); ++i) {
    if (i > 0) out += ", ";
    out += Quoted(axis_names[i]) + "=" +
           std::to_string(i < axis_sizes.size() ? axis_sizes[i] : 0);
  }
  out += "]";
  if (!device_ids.empty())
    out += ", device_ids=[" + IntList(device_ids, ", ") + "]";
  return out + ">";
}

std::string AxisSetToString(const std::vector<std::string>& axes) {
  std::string out = "{";
  for (size_t i = 0; i < axes.size(); ++i)
    out += (i > 0 ? ", " : "") + Quoted(axes[i]);
  return out + "}";
}

std::string TensorSharding::ToString(const Mesh& mesh) const {
  std::string out =
      mesh.name.empty() ? "<mesh" + mesh.ToString() : "<@" + mesh.name;
  out += ", [";
  for (size_t d = 0; d < dims.size(); ++d)
    out += (d > 0 ? ", " : "") + AxisSetToString(dims[d]);
  return out + "]>";
}

StatusOr<std::vector<int64_t>> ManualBlockCounts(
    const Mesh& mesh, const TensorSharding& sharding,
    const std::vector<std::string>& manual_axes, int64_t rank,
    const std::string& value) {
  if (static_cast<int64_t>(sharding.dims.size()) != rank)
    return InvalidArgument("the sharding of " + value + " names " +
                           std::to_string(sharding.dims.size()) +
                           " dimension(s), the value has " +
                           std::to_string(rank));
  std::vector<int64_t> blocks(static_cast<size_t>(rank), 1);
  std::set<std::string> used;
  for (size_t d = 0; d < blocks.size(); ++d) {
    for (const std::string& axis : sharding.dims[d]) {
      int64_t a = mesh.AxisIndex(axis);
      if (a < 0)
        return InvalidArgument("the sharding of " + value + " names axis " +
                               Quoted(axis) + ", which the mesh does not have");
      if (!used.insert(axis).second)
        return InvalidArgument("the sharding of " + value + " uses axis " +
                               Quoted(axis) + " twice");
      if (std::count(manual_axes.begin(), manual_axes.end(), axis) != 0)
        blocks[d] *= mesh.axis_sizes[static_cast<size_t>(a)];
    }
  }
  return blocks;
}

std::string HloSharding::ToString() const {
  switch (kind) {
    case Kind::kReplicated:
      return "{replicated}";
    case Kind::kManual:
      return "{manual}";
    case Kind::kMaximal:
      return "{maximal device=" +
             std::to_string(devices.empty() ? 0 : devices[0]) + "}";
    case Kind::kTiled:
      break;
  }
  std::string out =
      "{devices=[" + IntList(tile_dims, ",") + "]" + IntList(devices, ",");
  if (replicated_last) out += " last_tile_dim_replicate";
  return out + "}";
}

bool IsGspmdMarker(std::string_view custom_call_target) {
  return custom_call_target == "Sharding" ||
         custom_call_target == "SPMDFullToShardShape" ||
         custom_call_target == "SPMDShardToFullShape";
}

}  // namespace xffi
