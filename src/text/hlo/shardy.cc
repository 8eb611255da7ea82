#include "text/hlo/shardy.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "runtime/status_macros.h"
#include "text/hlo/sharding.h"
#include "text/mlir/attribute.h"
#include "text/mlir/lexer.h"

namespace xffi::hlo {

using text::MlirAttributeParser;
using text::MlirLexer;
using text::TokenKind;

namespace {

// Limits what a hostile iota form can make.
constexpr int64_t kMaxGroupDevices = 1 << 16;

// Errors of the lexer over an attribute's text read
// "WHERE:LINE:COLUMN: ..." with the line:column inside the attribute.
Status ExpectEnd(MlirLexer& lex) {
  if (!lex.At(TokenKind::kEof)) return lex.Expected("the end of the value");
  return Status::Ok();
}

}  // namespace

StatusOr<std::map<std::string, Mesh>> ParseSdyMeshesAttribute(
    std::string_view text, const std::string& where) {
  MlirLexer lex(text, where);
  MlirAttributeParser attrs(lex);
  std::map<std::string, Mesh> meshes;
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kLBrace, "'{'"));
  if (attrs.Consume(TokenKind::kRBrace)) return meshes;
  while (true) {
    if (!lex.At(TokenKind::kBareId) && !lex.At(TokenKind::kString))
      return lex.Expected("a mesh name");
    text::Token name = lex.Next();
    XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kEqual, "'='"));
    if (!lex.At(TokenKind::kHashId) || lex.peek().value != "sdy.mesh")
      return lex.Expected("#sdy.mesh<...>");
    lex.Next();
    XFFI_ASSIGN_OR_RETURN(Mesh mesh, text::ParseSdyMesh(attrs));
    if (!meshes.emplace(name.value, std::move(mesh)).second)
      return lex.ErrorAt(name.pos, "mesh " + name.value + " is defined twice");
    if (attrs.Consume(TokenKind::kComma)) continue;
    XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kRBrace, "',' or '}'"));
    break;
  }
  XFFI_RETURN_IF_ERROR(ExpectEnd(lex));
  return meshes;
}

StatusOr<std::vector<text::SdyShardingRef>> ParseShardingPerValue(
    std::string_view text, const std::string& where) {
  MlirLexer lex(text, where);
  MlirAttributeParser attrs(lex);
  if (!lex.At(TokenKind::kHashId) ||
      lex.peek().value != "sdy.sharding_per_value")
    return lex.Expected("#sdy.sharding_per_value<[...]>");
  lex.Next();
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kLess, "'<'"));
  XFFI_ASSIGN_OR_RETURN(std::vector<text::SdyShardingRef> list,
                        text::ParseSdyShardingList(attrs));
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kGreater, "'>'"));
  XFFI_RETURN_IF_ERROR(ExpectEnd(lex));
  return list;
}

StatusOr<std::vector<std::string>> ParseManualAxes(std::string_view text,
                                                   const std::string& where) {
  MlirLexer lex(text, where);
  MlirAttributeParser attrs(lex);
  if (!lex.At(TokenKind::kHashId) || lex.peek().value != "sdy")
    return lex.Expected("#sdy<manual_axes{...}>");
  lex.Next();
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kLess, "'<'"));
  XFFI_RETURN_IF_ERROR(attrs.ExpectKeyword("manual_axes"));
  XFFI_ASSIGN_OR_RETURN(std::vector<std::string> axes,
                        text::ParseSdyAxisSet(attrs));
  XFFI_RETURN_IF_ERROR(attrs.Expect(TokenKind::kGreater, "'>'"));
  XFFI_RETURN_IF_ERROR(ExpectEnd(lex));
  return axes;
}

namespace {

Status ParseBracedIntLists(Scanner& s, std::vector<std::vector<int64_t>>& out,
                           std::string_view what) {
  XFFI_RETURN_IF_ERROR(s.Expect('{'));
  if (s.TryConsume('}')) return Status::Ok();
  while (true) {
    XFFI_RETURN_IF_ERROR(s.Expect('{'));
    out.emplace_back();
    if (!s.TryConsume('}')) {
      while (true) {
        int64_t id;
        XFFI_RETURN_IF_ERROR(s.Int(id, what));
        out.back().push_back(id);
        if (s.TryConsume('}')) break;
        XFFI_RETURN_IF_ERROR(s.Expect(','));
      }
    }
    if (s.TryConsume('}')) return Status::Ok();
    XFFI_RETURN_IF_ERROR(s.Expect(','));
  }
}

}  // namespace

Status ParseReplicaGroups(Scanner& s,
                          std::vector<std::vector<int64_t>>& groups) {
  groups.clear();
  s.SkipSpace();
  if (s.Peek() != '[') return ParseBracedIntLists(s, groups, "a device id");
  // [G,S]<=[d0,d1,...] with an optional T(permutation): the ids 0..N-1
  // laid out as d0 x d1 x ..., transposed, read in order as G groups of S.
  TextPos at = s.pos();
  std::vector<int64_t> shape, reshape, permutation;
  XFFI_RETURN_IF_ERROR(ParseDelimitedInts(s, shape, '[', ']'));
  XFFI_RETURN_IF_ERROR(s.Expect("<="));
  XFFI_RETURN_IF_ERROR(ParseDelimitedInts(s, reshape, '[', ']'));
  if (s.TryConsume('T')) {
    XFFI_RETURN_IF_ERROR(ParseDelimitedInts(s, permutation, '(', ')'));
  }
  auto product = [](const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) {
      if (d < 0 || d > kMaxGroupDevices || n * d > kMaxGroupDevices)
        return int64_t{-1};
      n *= d;
    }
    return n;
  };
  int64_t count = product(reshape);
  std::vector<int64_t> sorted = permutation;
  std::sort(sorted.begin(), sorted.end());
  bool is_permutation = sorted.empty() || sorted.size() == reshape.size();
  for (size_t i = 0; is_permutation && i < sorted.size(); ++i)
    is_permutation = sorted[i] == static_cast<int64_t>(i);
  if (shape.size() != 2 || count < 0 || product(shape) != count ||
      !is_permutation)
    return s.ErrorAt(at,
                     "replica_groups: expected [groups,size]<=[dims] with as "
                     "many ids on both sides and T(...) a permutation of the "
                     "dims");
  std::vector<int64_t> ids = ExpandIotaDevices(reshape, permutation);
  for (int64_t g = 0; g < shape[0]; ++g)
    groups.emplace_back(ids.begin() + g * shape[1],
                        ids.begin() + (g + 1) * shape[1]);
  return Status::Ok();
}

Status ParseSourceTargetPairs(Scanner& s,
                              std::vector<std::pair<int64_t, int64_t>>& pairs) {
  TextPos at = s.pos();
  std::vector<std::vector<int64_t>> lists;
  XFFI_RETURN_IF_ERROR(ParseBracedIntLists(s, lists, "a device id"));
  for (const auto& pair : lists) {
    if (pair.size() != 2)
      return s.ErrorAt(at,
                       "source_target_pairs: expected {source,target} "
                       "pairs");
    pairs.emplace_back(pair[0], pair[1]);
  }
  return Status::Ok();
}

}  // namespace xffi::hlo
