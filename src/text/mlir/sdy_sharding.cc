#include "text/mlir/sdy_sharding.h"

#include <utility>

#include "runtime/status_macros.h"

namespace xffi::text {

namespace {

constexpr int64_t kMaxMeshDevices = 1 << 16;

StatusOr<int64_t> ParseCount(MlirAttributeParser& attrs, const char* what) {
  MlirLexer& lex = attrs.lexer();
  SourcePos pos = lex.peek().pos;
  StatusOr<MlirAttr> value = attrs.ParseIntegerLiteral();
  if (!value.ok()) return value.status();
  if (value->negative || value->magnitude > uint64_t{kMaxMeshDevices})
    return lex.ErrorAt(pos, std::string(what) + " out of range");
  return static_cast<int64_t>(value->magnitude);
}

}  // namespace

StatusOr<Mesh> ParseSdyMesh(MlirAttributeParser& attrs) {
  MlirLexer& lex = attrs.lexer();
  Mesh mesh;
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kLess, "'<' and the mesh axes"));
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kLSquare, "'[' and the axes"));
  if (!attrs.Consume(TokenKind::kRSquare)) {
    while (true) {
      if (!lex.At(TokenKind::kString))
        return lex.Expected("a quoted axis name");
      Token name = lex.Next();
      if (mesh.AxisIndex(name.value) >= 0)
        return lex.ErrorAt(name.pos,
                           "axis \"" + name.value + "\" appears twice");
      XFFI_RETURN_IF_ERROR(
          attrs.Expect(TokenKind::kEqual, "'=' and the axis size"));
      StatusOr<int64_t> size = ParseCount(attrs, "axis size");
      if (!size.ok()) return size.status();
      if (*size < 1) return lex.ErrorAt(name.pos, "an axis has size 0");
      mesh.axis_names.push_back(name.value);
      mesh.axis_sizes.push_back(*size);
      if (mesh.device_count() > kMaxMeshDevices)
        return lex.ErrorAt(name.pos, "the mesh has too many devices");
      if (attrs.Consume(TokenKind::kComma)) continue;
      XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kRSquare, "',' or ']'"));
      break;
    }
  }
  if (attrs.Consume(TokenKind::kComma)) {
    SourcePos pos = lex.peek().pos;
    XFFI_RETURN_IF_ERROR(attrs.ExpectKeyword("device_ids"));
    XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kEqual, "'='"));
    StatusOr<MlirAttr> ids = attrs.ParseIntegerList();
    if (!ids.ok()) return ids.status();
    std::vector<bool> seen(static_cast<size_t>(mesh.device_count()), false);
    for (const MlirAttr& id : ids->elements) {
      if (id.negative || id.magnitude >= seen.size() || seen[id.magnitude])
        return lex.ErrorAt(id.pos, "device_ids must be a permutation of 0.." +
                                       std::to_string(mesh.device_count() - 1));
      seen[id.magnitude] = true;
      mesh.device_ids.push_back(static_cast<int64_t>(id.magnitude));
    }
    if (static_cast<int64_t>(mesh.device_ids.size()) != mesh.device_count())
      return lex.ErrorAt(pos, "the mesh has " +
                                  std::to_string(mesh.device_count()) +
                                  " devices, device_ids lists " +
                                  std::to_string(mesh.device_ids.size()));
  }
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kGreater, "'>' after the mesh"));
  return mesh;
}

namespace {

// `{"x", "y"}` or `{}`; with `open_allowed` also `{?}` and `{"x", ?}` (a
// dimension others may still shard further).
Status ParseAxisNames(MlirAttributeParser& attrs, bool open_allowed,
                      std::vector<std::string>* axes) {
  MlirLexer& lex = attrs.lexer();
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kLBrace, "'{' and the axes"));
  while (!attrs.Consume(TokenKind::kRBrace)) {
    if (open_allowed && attrs.Consume(TokenKind::kQuestion))
      return attrs.Expect(TokenKind::kRBrace, "'}' after '?'");
    if (!lex.At(TokenKind::kString)) return lex.Expected("a quoted axis name");
    axes->push_back(lex.Next().value);
    if (lex.At(TokenKind::kColon))
      return lex.ErrorAt(
          lex.peek().pos,
          "sub-axis shardings (\"axis\":(k)n) are not supported");
    if (attrs.Consume(TokenKind::kComma)) continue;
    return attrs.Expect(TokenKind::kRBrace, "',' or '}'");
  }
  return Status::Ok();
}

// A dimension's axes, maybe open, maybe with a priority `p1`.
StatusOr<std::vector<std::string>> ParseDimSharding(
    MlirAttributeParser& attrs) {
  MlirLexer& lex = attrs.lexer();
  std::vector<std::string> axes;
  XFFI_RETURN_IF_ERROR(ParseAxisNames(attrs, /*open_allowed=*/true, &axes));
  // A priority: a bare word p<digits> right after the brace.
  if (lex.At(TokenKind::kBareId) && lex.peek().value.size() > 1 &&
      lex.peek().value[0] == 'p' &&
      lex.peek().value.find_first_not_of("0123456789", 1) == std::string::npos)
    lex.Next();
  return axes;
}

}  // namespace

StatusOr<std::vector<std::string>> ParseSdyAxisSet(MlirAttributeParser& attrs) {
  std::vector<std::string> axes;
  XFFI_RETURN_IF_ERROR(ParseAxisNames(attrs, /*open_allowed=*/false, &axes));
  return axes;
}

StatusOr<SdyShardingRef> ParseSdyTensorSharding(MlirAttributeParser& attrs) {
  MlirLexer& lex = attrs.lexer();
  SdyShardingRef sharding;
  sharding.pos = lex.peek().pos;
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kLess, "'<' and a sharding"));
  if (lex.At(TokenKind::kAtId)) {
    sharding.mesh_name = lex.Next().value;
  } else if (lex.AtKeyword("mesh")) {
    lex.Next();
    StatusOr<Mesh> mesh = ParseSdyMesh(attrs);
    if (!mesh.ok()) return mesh.status();
    sharding.mesh = std::move(*mesh);
  } else {
    return lex.Expected("a mesh (@name or mesh<...>)");
  }
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kComma, "',' after the mesh"));
  XFFI_RETURN_IF_ERROR(
      attrs.Expect(TokenKind::kLSquare, "'[' and the dimension shardings"));
  if (!attrs.Consume(TokenKind::kRSquare)) {
    while (true) {
      StatusOr<std::vector<std::string>> dim = ParseDimSharding(attrs);
      if (!dim.ok()) return dim.status();
      sharding.sharding.dims.push_back(std::move(*dim));
      if (attrs.Consume(TokenKind::kComma)) continue;
      XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kRSquare, "',' or ']'"));
      break;
    }
  }
  // replicated={...}, unreduced={...}: axes the value is not split over.
  while (attrs.Consume(TokenKind::kComma)) {
    if (!lex.AtKeyword("replicated") && !lex.AtKeyword("unreduced"))
      return lex.Expected("'replicated' or 'unreduced'");
    lex.Next();
    XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kEqual, "'='"));
    StatusOr<std::vector<std::string>> ignored = ParseSdyAxisSet(attrs);
    if (!ignored.ok()) return ignored.status();
  }
  XFFI_RETURN_IF_ERROR(
      attrs.Expect(TokenKind::kGreater, "'>' after the sharding"));
  return sharding;
}

StatusOr<std::vector<SdyShardingRef>> ParseSdyShardingList(
    MlirAttributeParser& attrs) {
  std::vector<SdyShardingRef> list;
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kLSquare, "'[' and shardings"));
  if (attrs.Consume(TokenKind::kRSquare)) return list;
  while (true) {
    StatusOr<SdyShardingRef> sharding = ParseSdyTensorSharding(attrs);
    if (!sharding.ok()) return sharding.status();
    list.push_back(std::move(*sharding));
    if (attrs.Consume(TokenKind::kComma)) continue;
    XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kRSquare, "',' or ']'"));
    return list;
  }
}

std::string CommonMesh(const std::vector<SdyShardingRef>& in_shardings,
                       const std::vector<SdyShardingRef>& out_shardings,
                       const std::map<std::string, Mesh>& meshes, Mesh* mesh,
                       const SdyShardingRef** culprit) {
  bool found = false;
  for (const auto* list : {&in_shardings, &out_shardings}) {
    for (const SdyShardingRef& sharding : *list) {
      *culprit = &sharding;
      const Mesh* named = nullptr;
      if (sharding.mesh) {
        named = &*sharding.mesh;
      } else {
        auto it = meshes.find(sharding.mesh_name);
        if (it == meshes.end())
          return "sharding names mesh @" + sharding.mesh_name +
                 ", which is not defined";
        named = &it->second;
      }
      if (!found) {
        *mesh = *named;
        mesh->name = sharding.mesh ? "" : sharding.mesh_name;
        found = true;
      } else if (!named->SameDevices(*mesh)) {
        return "the shardings of one manual computation must name the same "
               "mesh";
      }
    }
  }
  *culprit = nullptr;
  if (!found)
    return "a manual computation with no operands and no results names no "
           "mesh to run on";
  return "";
}

std::vector<TensorSharding> Shardings(const std::vector<SdyShardingRef>& refs) {
  std::vector<TensorSharding> out;
  for (const SdyShardingRef& ref : refs) out.push_back(ref.sharding);
  return out;
}

}  // namespace xffi::text

namespace xffi::text {

std::optional<HloSharding> ToHloSharding(const Mesh& mesh,
                                         const TensorSharding& sharding) {
  const size_t rank = sharding.dims.size();
  // The dimension each mesh axis splits (rank: none).
  std::vector<size_t> dim_of(mesh.axis_names.size(), rank);
  std::vector<int64_t> tiles(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    for (const std::string& axis : sharding.dims[d]) {
      int64_t a = mesh.AxisIndex(axis);
      if (a < 0 || dim_of[static_cast<size_t>(a)] != rank) return std::nullopt;
      dim_of[static_cast<size_t>(a)] = d;
      tiles[d] *= mesh.axis_sizes[static_cast<size_t>(a)];
    }
  }
  HloSharding out;
  int64_t replicas = mesh.device_count();
  for (int64_t t : tiles) replicas /= t;
  if (replicas == mesh.device_count()) return out;  // replicated
  out.kind = HloSharding::Kind::kTiled;
  out.tile_dims = tiles;
  if (replicas > 1) {
    out.tile_dims.push_back(replicas);
    out.replicated_last = true;
  }
  out.devices.assign(static_cast<size_t>(mesh.device_count()), 0);
  for (int64_t p = 0; p < mesh.device_count(); ++p) {
    // The tile this mesh position holds, row-major over tile_dims; the
    // axes of one dimension count major to minor, as do unused axes.
    int64_t flat = 0;
    for (size_t d = 0; d < rank; ++d) {
      int64_t index = 0;
      for (const std::string& axis : sharding.dims[d]) {
        size_t a = static_cast<size_t>(mesh.AxisIndex(axis));
        index = index * mesh.axis_sizes[a] + mesh.Coordinate(p, a);
      }
      flat = flat * tiles[d] + index;
    }
    int64_t replica = 0;
    for (size_t a = 0; a < dim_of.size(); ++a)
      if (dim_of[a] == rank)
        replica = replica * mesh.axis_sizes[a] + mesh.Coordinate(p, a);
    if (out.replicated_last) flat = flat * replicas + replica;
    out.devices[static_cast<size_t>(flat)] = mesh.DeviceId(p);
  }
  return out;
}

}  // namespace xffi::text
