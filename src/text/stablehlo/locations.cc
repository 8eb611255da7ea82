// MLIR locations: loc("file":line:col), loc("name"(...)), callsite, fused
// and #alias = loc(...) definitions. An op keeps its text position; a loc
// name (JAX's op path) goes to Location::name.
#include "text/stablehlo/parser.h"

#include <cstdlib>

#include "runtime/status_macros.h"

namespace xffi::text::stablehlo {

StatusOr<LocNode> Parser::ParseLoc() {
  XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword("loc"));
  XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'(' after 'loc'"));
  XFFI_ASSIGN_OR_RETURN(LocNode node, ParseLocInner(0));
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kRParen, "')' to close loc(...)"));
  return node;
}

StatusOr<LocNode> Parser::ParseLocInner(int depth) {
  if (depth > kMaxNesting)
    return lex_.Expected("a less deeply nested location");
  LocNode node;
  if (lex_.At(TokenKind::kHashId)) {
    node.kind = LocNode::Kind::kAlias;
    node.text = lex_.Next().value;
    return node;
  }
  if (lex_.AtKeyword("unknown")) {
    lex_.Next();
    return node;
  }
  if (lex_.AtKeyword("callsite")) {
    lex_.Next();
    node.kind = LocNode::Kind::kCallSite;
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kLParen, "'(' after 'callsite'"));
    XFFI_ASSIGN_OR_RETURN(LocNode callee, ParseLocInner(depth + 1));
    XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword("at"));
    XFFI_ASSIGN_OR_RETURN(LocNode caller, ParseLocInner(depth + 1));
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kRParen, "')' to close callsite(...)"));
    node.children.push_back(std::move(callee));
    node.children.push_back(std::move(caller));
    return node;
  }
  if (lex_.AtKeyword("fused")) {
    lex_.Next();
    node.kind = LocNode::Kind::kFused;
    if (attrs_.Consume(TokenKind::kLess)) {
      XFFI_ASSIGN_OR_RETURN(MlirAttr metadata, attrs_.ParseAttribute());
      (void)metadata;
      XFFI_RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kGreater, "'>' after fused metadata"));
    }
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kLSquare, "'[' after 'fused'"));
    if (!attrs_.Consume(TokenKind::kRSquare)) {
      while (true) {
        XFFI_ASSIGN_OR_RETURN(LocNode child, ParseLocInner(depth + 1));
        node.children.push_back(std::move(child));
        if (attrs_.Consume(TokenKind::kComma)) continue;
        XFFI_RETURN_IF_ERROR(
            attrs_.Expect(TokenKind::kRSquare, "',' or ']' in fused[...]"));
        break;
      }
    }
    return node;
  }
  if (!lex_.At(TokenKind::kString)) return lex_.Expected("a location");
  node.text = lex_.Next().value;
  if (attrs_.Consume(TokenKind::kColon)) {
    node.kind = LocNode::Kind::kFile;
    auto read_int = [&](int* out) -> Status {
      if (!lex_.At(TokenKind::kInteger))
        return lex_.Expected("a line or column number");
      std::string digits = lex_.Next().value;
      *out = digits.size() > 9 ? 0 : std::atoi(digits.c_str());
      return Status::Ok();
    };
    XFFI_RETURN_IF_ERROR(read_int(&node.line));
    XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and a column"));
    XFFI_RETURN_IF_ERROR(read_int(&node.column));
    if (lex_.AtKeyword("to")) {
      lex_.Next();
      int ignored = 0;
      if (lex_.At(TokenKind::kInteger))
        XFFI_RETURN_IF_ERROR(read_int(&ignored));
      XFFI_RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kColon, "':' and a column"));
      XFFI_RETURN_IF_ERROR(read_int(&ignored));
    }
    return node;
  }
  node.kind = LocNode::Kind::kName;
  if (attrs_.Consume(TokenKind::kLParen)) {
    XFFI_ASSIGN_OR_RETURN(LocNode child, ParseLocInner(depth + 1));
    node.children.push_back(std::move(child));
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kRParen, "')' after the location"));
  }
  return node;
}

std::string Parser::LocName(const LocNode& node, int depth) const {
  if (depth > kMaxNesting) return "";
  switch (node.kind) {
    case LocNode::Kind::kName:
      return node.text;
    case LocNode::Kind::kAlias: {
      auto it = loc_aliases_.find(node.text);
      return it == loc_aliases_.end() ? "" : LocName(it->second, depth + 1);
    }
    case LocNode::Kind::kCallSite:
      return LocName(node.children[0], depth + 1);
    case LocNode::Kind::kFused:
      for (const LocNode& child : node.children) {
        std::string name = LocName(child, depth + 1);
        if (!name.empty()) return name;
      }
      return "";
    default:
      return "";
  }
}

Status Parser::ParseLocAliasDefinition() {
  Token alias = lex_.Next();
  XFFI_RETURN_IF_ERROR(attrs_.Expect(
      TokenKind::kEqual, "'=' after " + MlirLexer::Describe(alias)));
  if (!lex_.AtKeyword("loc"))
    return lex_.ErrorAt(alias.pos,
                        "only location aliases (#name = loc(...)) "
                        "are supported at the top level");
  XFFI_ASSIGN_OR_RETURN(LocNode node, ParseLoc());
  loc_aliases_[alias.value] = std::move(node);
  return Status::Ok();
}

Status Parser::SkipOptionalLoc() {
  if (!lex_.AtKeyword("loc")) return Status::Ok();
  XFFI_ASSIGN_OR_RETURN(LocNode node, ParseLoc());
  (void)node;
  return Status::Ok();
}

}  // namespace xffi::text::stablehlo
