// xffi: legacy (untyped) custom-call targets, API versions 1 to 3.
//
// Before the typed FFI, a custom-call target was a bare C function called
// with raw buffer pointers. XLA still runs such targets, and so does xffi:
// a registry keyed by (name, canonical platform) like the FFI registry, and a
// call layer that lays buffers out exactly as XLA does for each platform and
// API version, so a target written for XLA runs here unchanged.
//
// Calling conventions (XLA's CustomCallApiVersion numbers):
//   Host v1  void(void* out, const void** in)
//   Host v2  void(void* out, const void** in, XlaCustomCallStatus* status)
//   Host v3  void(void* out, const void** in, const char* opaque,
//                 size_t opaque_len, XlaCustomCallStatus* status)
//   CUDA v1  void(void* stream, void** buffers, const char* opaque,
//                 size_t opaque_len)
//   CUDA v2, v3  as v1, plus XlaCustomCallStatus* status
#ifndef XFFI_RUNTIME_LEGACY_H_
#define XFFI_RUNTIME_LEGACY_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "xffi/runtime/platform.h"
#include "xffi/runtime/status.h"

namespace xffi {

// The api_version of a custom call, as XLA numbers it.
enum class LegacyApiVersion : int {
  kUnspecified = 0,  // in a registration: the call site decides
  kOriginal = 1,
  kStatusReturning = 2,
  kStatusReturningUnified = 3,
};

// "ORIGINAL", "STATUS_RETURNING", "STATUS_RETURNING_UNIFIED", "UNSPECIFIED".
std::string_view LegacyApiVersionName(LegacyApiVersion version);

// The C declaration a target of `version` has on `platform`, for messages
// and listings: "void(void* out, const void** in)". Empty for kUnspecified.
std::string_view LegacyCallingConvention(Platform platform,
                                         LegacyApiVersion version);

// The version implied by a target function's parameter count: the
// conventions differ in arity on each platform (CUDA v2 and v3 share one, and
// report kStatusReturning). 0 parameters means "not known" (kUnspecified).
// Any other count is an error that lists the valid ones.
StatusOr<LegacyApiVersion> LegacyApiVersionFromArity(Platform platform,
                                                     int num_params);

// Whether a target registered as `registered` may be called by a call site
// of `call`: equal conventions, or either unspecified.
bool LegacyVersionsCompatible(Platform platform, LegacyApiVersion registered,
                              LegacyApiVersion call);

struct LegacyTargetRecord {
  std::string name;
  Platform platform = Platform::kHost;
  void* function = nullptr;
  LegacyApiVersion api_version = LegacyApiVersion::kUnspecified;
  std::string origin;  // "" when registered outside any plugin load
};

// Registering the same function again under the same key is a no-op (a
// registration that names the version refines one that did not); another
// function, or another calling convention, is ALREADY_EXISTS naming both.
Status RegisterLegacyTarget(
    std::string_view name, void* function, std::string_view platform,
    LegacyApiVersion api_version = LegacyApiVersion::kUnspecified);

// NOT_FOUND names the target and platform, and the platforms it does have.
StatusOr<const LegacyTargetRecord*> FindLegacyTarget(std::string_view name,
                                                     std::string_view platform);

// Sorted by name. Records live as long as the process.
std::vector<const LegacyTargetRecord*> ListLegacyTargets(Platform platform);

// The shape of one operand or result as the calling conventions see it: an
// array (one buffer), a token (no buffer) or a tuple.
class LegacyShape {
 public:
  static LegacyShape Array() { return LegacyShape(Kind::kArray, {}); }
  static LegacyShape Token() { return LegacyShape(Kind::kToken, {}); }
  static LegacyShape Tuple(std::vector<LegacyShape> elements) {
    return LegacyShape(Kind::kTuple, std::move(elements));
  }

  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_token() const { return kind_ == Kind::kToken; }
  bool is_tuple() const { return kind_ == Kind::kTuple; }
  const std::vector<LegacyShape>& elements() const { return elements_; }

  // Arrays and tokens, depth first: the order of CUDA's `buffers`.
  size_t num_leaves() const;

 private:
  enum class Kind { kArray, kToken, kTuple };
  LegacyShape(Kind kind, std::vector<LegacyShape> elements)
      : kind_(kind), elements_(std::move(elements)) {}

  Kind kind_;
  std::vector<LegacyShape> elements_;
};

// The pointer tables of one call site, laid out once for its shapes; only
// leaf addresses change between executions.
//
// Host: `in` holds one pointer per operand; a tuple operand's pointer is the
// address of a table of its elements' pointers (recursively). `out` is the
// result's buffer or, for a tuple, the address of its element table.
// CUDA: `buffers` holds every operand leaf then every result leaf.
// Tokens are null on CUDA (XLA's GPU slices for them are empty); on Host
// they share one non-null address, as XLA:CPU gives every token the address
// of its zero-byte buffer. Either way a target must not read it.
class LegacyCallFrame {
 public:
  // Leaves are numbered depth first, operands' before results'.
  static LegacyCallFrame Create(Platform platform,
                                const std::vector<LegacyShape>& operands,
                                const LegacyShape& result);

  LegacyCallFrame(LegacyCallFrame&&) = default;
  LegacyCallFrame& operator=(LegacyCallFrame&&) = default;
  LegacyCallFrame(const LegacyCallFrame&) = delete;
  LegacyCallFrame& operator=(const LegacyCallFrame&) = delete;

  Platform platform() const { return platform_; }
  size_t num_operand_leaves() const { return num_operand_leaves_; }
  size_t num_result_leaves() const {
    return leaves_.size() - num_operand_leaves_;
  }

  // OUT_OF_RANGE for a bad index; INVALID_ARGUMENT for a non-null address
  // given to a token.
  Status SetOperandLeaf(size_t leaf, const void* data);
  Status SetResultLeaf(size_t leaf, void* data);

  void set_opaque(std::string opaque) { opaque_ = std::move(opaque); }
  const std::string& opaque() const { return opaque_; }
  void set_stream(void* stream) { stream_ = stream; }  // CUDA only
  void* stream() const { return stream_; }

  // What the target receives.
  void* host_out() const;
  const void** host_in() const;
  void** cuda_buffers() const;

 private:
  struct Leaf {
    bool is_token;
    ptrdiff_t slot;  // index into slots_, or -1 for Host's untupled `out`
  };
  LegacyCallFrame() = default;

  Status SetLeaf(size_t leaf, void* data, std::string_view which);

  Platform platform_ = Platform::kHost;
  std::vector<void*> slots_;  // never resized after Create: tables point in
  std::vector<Leaf> leaves_;
  size_t num_operand_leaves_ = 0;
  ptrdiff_t host_out_table_ = -1;  // slot of a tuple result's table
  void* host_out_leaf_ = nullptr;  // an untupled result's buffer
  std::string opaque_;
  void* stream_ = nullptr;
};

// Calls `target` with the calling convention of `call_version` (the call
// site's api_version; kUnspecified: the registered one). A mismatch with the
// registered convention is FAILED_PRECONDITION naming both; a failure the
// target reports is INTERNAL carrying its message and naming the target.
Status CallLegacyTarget(const LegacyTargetRecord& target,
                        LegacyApiVersion call_version, LegacyCallFrame& frame);

// Looks the target up on the frame's platform, then calls it.
Status CallLegacyTarget(std::string_view name, LegacyApiVersion call_version,
                        LegacyCallFrame& frame);

}  // namespace xffi

#endif  // XFFI_RUNTIME_LEGACY_H_
