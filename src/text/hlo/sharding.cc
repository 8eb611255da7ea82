#include "text/hlo/sharding.h"

#include <algorithm>
#include <numeric>

#include "runtime/status_macros.h"
#include "text/hlo/scanner.h"

namespace xffi::hlo {

namespace {

constexpr int64_t kMaxDevices = 1 << 16;

}  // namespace

Status ParseDelimitedInts(Scanner& s, std::vector<int64_t>& out, char open,
                          char close) {
  XFFI_RETURN_IF_ERROR(s.Expect(open));
  if (s.TryConsume(close)) return Status::Ok();
  while (true) {
    int64_t v;
    XFFI_RETURN_IF_ERROR(s.Int(v, "an integer"));
    out.push_back(v);
    if (s.TryConsume(close)) return Status::Ok();
    XFFI_RETURN_IF_ERROR(s.Expect(','));
  }
}

namespace {

// The product of `dims`, or -1 when one is negative or it exceeds the cap.
int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || d > kMaxDevices || n * d > kMaxDevices) return -1;
    n *= d;
  }
  return n;
}

}  // namespace

std::vector<int64_t> ExpandIotaDevices(
    const std::vector<int64_t>& reshape,
    const std::vector<int64_t>& permutation) {
  std::vector<int64_t> order = permutation;
  if (order.empty()) {
    order.resize(reshape.size());
    std::iota(order.begin(), order.end(), 0);
  }
  std::vector<int64_t> strides(reshape.size(), 1);
  for (size_t i = reshape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * reshape[i];
  int64_t count = Product(reshape);
  std::vector<int64_t> ids;
  std::vector<int64_t> index(order.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t id = 0;
    for (size_t k = 0; k < order.size(); ++k)
      id += index[k] * strides[static_cast<size_t>(order[k])];
    ids.push_back(id);
    for (size_t k = order.size(); k-- > 0;) {
      if (++index[k] < reshape[static_cast<size_t>(order[k])]) break;
      index[k] = 0;
    }
  }
  return ids;
}

namespace {

// A form XLA writes that xffi does not read: UNIMPLEMENTED, which callers
// that can do without the sharding take as "none".
Status NotRead(const Scanner& s, TextPos at, const std::string& what) {
  return Unimplemented(s.Where(at) + ": " + what + " are not supported");
}

// Skips one `{...}` (its strings may hold braces): metadata, or an
// element xffi does not read.
Status SkipBraced(Scanner& s) {
  XFFI_RETURN_IF_ERROR(s.Expect('{'));
  int depth = 1;
  while (depth > 0) {
    if (s.AtEnd()) return s.Expected("'}' closing the sharding");
    if (s.Peek() == '"') {
      XFFI_RETURN_IF_ERROR(s.SkipQuoted());
      continue;
    }
    if (s.Peek() == '{') ++depth;
    if (s.Peek() == '}') --depth;
    s.Advance();
  }
  return Status::Ok();
}

// Skips `metadata={...}`, the scanner after `metadata`.
Status SkipMetadata(Scanner& s) {
  XFFI_RETURN_IF_ERROR(s.Expect('='));
  return SkipBraced(s);
}

// One sharding, `{` to its `}`.
StatusOr<HloSharding> ParseOne(Scanner& s) {
  HloSharding sharding;
  TextPos start = s.pos();
  XFFI_RETURN_IF_ERROR(s.Expect('{'));
  s.SkipSpace();
  TextPos at = s.pos();
  if (s.Peek() == '{' || s.Peek() == '}')
    return NotRead(s, start, "tuple shardings here");
  std::string_view word = s.Name();
  if (word == "replicated") {
    sharding.kind = HloSharding::Kind::kReplicated;
  } else if (word == "manual") {
    sharding.kind = HloSharding::Kind::kManual;
  } else if (word == "unknown" || word == "unreduced") {
    return NotRead(s, at, "'" + std::string(word) + "' shardings");
  } else if (word == "maximal") {
    sharding.kind = HloSharding::Kind::kMaximal;
    XFFI_RETURN_IF_ERROR(s.Expect("device="));
    int64_t device;
    XFFI_RETURN_IF_ERROR(s.Int(device, "a device id"));
    sharding.devices = {device};
  } else if (word == "devices") {
    sharding.kind = HloSharding::Kind::kTiled;
    XFFI_RETURN_IF_ERROR(s.Expect('='));
    XFFI_RETURN_IF_ERROR(ParseDelimitedInts(s, sharding.tile_dims, '[', ']'));
    int64_t count = Product(sharding.tile_dims);
    if (count < 0) return s.ErrorAt(at, "too many tiles");
    if (s.TryConsume("<=")) {
      std::vector<int64_t> reshape, permutation;
      XFFI_RETURN_IF_ERROR(ParseDelimitedInts(s, reshape, '[', ']'));
      if (s.TryConsume('T'))
        XFFI_RETURN_IF_ERROR(ParseDelimitedInts(s, permutation, '(', ')'));
      std::vector<int64_t> sorted = permutation;
      std::sort(sorted.begin(), sorted.end());
      bool ok = Product(reshape) == count &&
                (permutation.empty() || sorted.size() == reshape.size());
      for (size_t i = 0; ok && i < sorted.size(); ++i)
        ok = sorted[i] == static_cast<int64_t>(i);
      if (!ok)
        return s.ErrorAt(at,
                         "expected devices=[tiles]<=[dims] with as many ids "
                         "as tiles and T(...) a permutation of the dims");
      sharding.devices = ExpandIotaDevices(reshape, permutation);
    } else {
      // An explicit list: one device id per tile.
      for (int64_t i = 0; i < count; ++i) {
        if (i > 0) XFFI_RETURN_IF_ERROR(s.Expect(','));
        int64_t device;
        XFFI_RETURN_IF_ERROR(s.Int(device, "a device id"));
        sharding.devices.push_back(device);
      }
    }
    std::vector<int64_t> sorted = sharding.devices;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] != static_cast<int64_t>(i))
        return s.ErrorAt(at, "the tile assignment must name each device 0 to " +
                                 std::to_string(sorted.size() - 1) + " once");
  } else {
    return s.Expected("replicated, manual, maximal or devices=", at);
  }
  while (true) {
    s.SkipSpace();
    if (s.Peek() == '}') break;
    TextPos option = s.pos();
    std::string_view flag = s.Name();
    if (flag == "last_tile_dim_replicate" &&
        sharding.kind == HloSharding::Kind::kTiled) {
      sharding.replicated_last = true;
    } else if (flag == "metadata") {
      XFFI_RETURN_IF_ERROR(SkipMetadata(s));
    } else if (flag == "shard_as" || flag == "shard_like") {
      // A hint to XLA's propagation that groups values; where this value
      // lives is the rest.
      int64_t group;
      XFFI_RETURN_IF_ERROR(s.Int(group, "a shard group id"));
    } else if (flag == "last_tile_dims") {
      return NotRead(s, option, "partially manual shardings (last_tile_dims)");
    } else {
      return s.ErrorAt(
          option,
          flag.empty()
              ? "expected a sharding option or '}', got " + s.Describe(option)
              : "unknown sharding option '" + std::string(flag) + "'");
    }
  }
  XFFI_RETURN_IF_ERROR(s.Expect('}'));
  return sharding;
}

Status ExpectEnd(Scanner& s) {
  s.SkipSpace();
  if (!s.AtEnd()) return s.Expected("the end of the sharding");
  return Status::Ok();
}

}  // namespace

StatusOr<HloSharding> ParseHloSharding(std::string_view text,
                                       const std::string& where) {
  Scanner s(text, where);
  XFFI_ASSIGN_OR_RETURN(HloSharding sharding, ParseOne(s));
  XFFI_RETURN_IF_ERROR(ExpectEnd(s));
  return sharding;
}

StatusOr<std::optional<HloSharding>> ParseValueSharding(
    std::string_view text, const std::string& where) {
  StatusOr<HloSharding> sharding = ParseHloSharding(text, where);
  if (sharding.ok()) return std::optional<HloSharding>(std::move(*sharding));
  if (sharding.status().code() == XLA_FFI_Error_Code_UNIMPLEMENTED)
    return std::optional<HloSharding>();
  return sharding.status();
}

namespace {

// One element of a list at the scanner, appended to `out`: the sharding,
// or nullopt for a form xffi does not read (a nested tuple among them),
// which is skipped.
Status ReadElement(Scanner& s, std::vector<std::optional<HloSharding>>& out) {
  s.SkipSpace();
  TextPos element = s.pos();
  StatusOr<HloSharding> one = ParseOne(s);
  if (one.ok()) {
    out.push_back(std::move(*one));
    return Status::Ok();
  }
  if (one.status().code() != XLA_FFI_Error_Code_UNIMPLEMENTED)
    return one.status();
  s.Reset(element);
  XFFI_RETURN_IF_ERROR(SkipBraced(s));
  out.push_back(std::nullopt);
  return Status::Ok();
}

}  // namespace

StatusOr<ShardingList> ParseHloShardingList(std::string_view text,
                                            const std::string& where) {
  Scanner s(text, where);
  ShardingList list;
  s.SkipSpace();
  TextPos start = s.pos();
  XFFI_RETURN_IF_ERROR(s.Expect('{'));
  s.SkipSpace();
  list.tuple = s.Peek() == '{' || s.Peek() == '}';
  s.Reset(start);
  if (!list.tuple) {
    XFFI_RETURN_IF_ERROR(ReadElement(s, list.elements));
  } else {
    s.Advance();  // the tuple's '{'
    if (!s.TryConsume('}')) {
      while (true) {
        s.SkipSpace();
        if (s.Peek() != '{') return s.Expected("'{' and an element's sharding");
        XFFI_RETURN_IF_ERROR(ReadElement(s, list.elements));
        if (s.TryConsume(',')) continue;
        XFFI_RETURN_IF_ERROR(s.Expect('}'));
        break;
      }
    }
  }
  XFFI_RETURN_IF_ERROR(ExpectEnd(s));
  return list;
}

}  // namespace xffi::hlo
