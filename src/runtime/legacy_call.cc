// Calling legacy targets with XLA's pointer tables and calling conventions.
#include <string>

#include "runtime/legacy_internal.h"
#include "xffi/runtime/legacy.h"

namespace xffi {
namespace {

using HostV1 = void(void* out, const void** in);
using HostV2 = void(void* out, const void** in, XlaCustomCallStatus* status);
using HostV3 = void(void* out, const void** in, const char* opaque,
                    size_t opaque_len, XlaCustomCallStatus* status);
using CudaV1 = void(void* stream, void** buffers, const char* opaque,
                    size_t opaque_len);
using CudaV23 = void(void* stream, void** buffers, const char* opaque,
                     size_t opaque_len, XlaCustomCallStatus* status);

template <typename Fn>
Fn* As(void* function) {
  return reinterpret_cast<Fn*>(function);
}

// Lays out Host pointer tables: a tuple gets a table of slots_, an array or a
// token a slot (or none, for the untupled result).
struct HostLayout {
  std::vector<void*>& slots;
  std::vector<std::pair<size_t, size_t>>& links;    // slot -> table start
  std::vector<std::pair<bool, ptrdiff_t>>& leaves;  // (is_token, slot)

  // Fills slot `slot` for `shape`.
  void Place(const LegacyShape& shape, size_t slot) {
    if (!shape.is_tuple()) {
      leaves.emplace_back(shape.is_token(), static_cast<ptrdiff_t>(slot));
      return;
    }
    size_t table = Table(shape);
    links.emplace_back(slot, table);
  }

  // Allocates the element table of a tuple and fills it; returns its start.
  size_t Table(const LegacyShape& tuple) {
    size_t table = slots.size();
    slots.resize(slots.size() + tuple.elements().size(), nullptr);
    for (size_t i = 0; i < tuple.elements().size(); ++i) {
      Place(tuple.elements()[i], table + i);
    }
    return table;
  }
};

void CollectLeaves(const LegacyShape& shape, std::vector<bool>& is_token) {
  if (shape.is_tuple()) {
    for (const LegacyShape& element : shape.elements()) {
      CollectLeaves(element, is_token);
    }
  } else {
    is_token.push_back(shape.is_token());
  }
}

void* HostTokenAddress() {
  static char token;
  return &token;
}

std::string TargetText(const LegacyTargetRecord& target,
                       LegacyApiVersion version) {
  return "legacy custom call '" + target.name + "' (" +
         std::string(PlatformName(target.platform)) + ", API version " +
         std::to_string(static_cast<int>(version)) + ")";
}

}  // namespace

size_t LegacyShape::num_leaves() const {
  if (!is_tuple()) return 1;
  size_t count = 0;
  for (const LegacyShape& element : elements_) count += element.num_leaves();
  return count;
}

LegacyCallFrame LegacyCallFrame::Create(
    Platform platform, const std::vector<LegacyShape>& operands,
    const LegacyShape& result) {
  LegacyCallFrame frame;
  frame.platform_ = platform;

  if (platform == Platform::kCuda) {
    std::vector<bool> is_token;
    for (const LegacyShape& operand : operands)
      CollectLeaves(operand, is_token);
    frame.num_operand_leaves_ = is_token.size();
    CollectLeaves(result, is_token);
    frame.slots_.assign(is_token.size(), nullptr);
    for (size_t i = 0; i < is_token.size(); ++i) {
      frame.leaves_.push_back({is_token[i], static_cast<ptrdiff_t>(i)});
    }
    return frame;
  }

  std::vector<std::pair<size_t, size_t>> links;
  std::vector<std::pair<bool, ptrdiff_t>> leaves;
  HostLayout layout{frame.slots_, links, leaves};
  // `in` is the first table, one slot per operand.
  frame.slots_.resize(operands.size(), nullptr);
  for (size_t i = 0; i < operands.size(); ++i) layout.Place(operands[i], i);
  frame.num_operand_leaves_ = leaves.size();
  if (result.is_tuple()) {
    frame.host_out_table_ = static_cast<ptrdiff_t>(layout.Table(result));
  } else {
    leaves.emplace_back(result.is_token(), -1);
  }
  // Tables point into slots_, so they are linked only now that it has its
  // final size (and it never grows again).
  for (auto [slot, table] : links) {
    frame.slots_[slot] = frame.slots_.data() + table;
  }
  for (auto [is_token, slot] : leaves) {
    frame.leaves_.push_back({is_token, slot});
    // XLA:CPU gives a token the address of its zero-byte buffer, one
    // address for every token of a call: never null. A target must not
    // read it; one that tests it for null sees what it sees under XLA.
    if (!is_token) continue;
    if (slot < 0) {
      frame.host_out_leaf_ = HostTokenAddress();
    } else {
      frame.slots_[static_cast<size_t>(slot)] = HostTokenAddress();
    }
  }
  return frame;
}

Status LegacyCallFrame::SetLeaf(size_t leaf, void* data,
                                std::string_view which) {
  const Leaf& entry = leaves_[leaf];
  if (entry.is_token) {
    if (data == nullptr) return Status::Ok();
    return InvalidArgument(std::string(which) + " leaf " +
                           std::to_string(leaf) +
                           " is a token, which has no buffer; pass null "
                           "(the frame holds the address the target sees)");
  }
  if (entry.slot < 0) {
    host_out_leaf_ = data;
  } else {
    slots_[static_cast<size_t>(entry.slot)] = data;
  }
  return Status::Ok();
}

Status LegacyCallFrame::SetOperandLeaf(size_t leaf, const void* data) {
  if (leaf >= num_operand_leaves_) {
    return Status(XLA_FFI_Error_Code_OUT_OF_RANGE,
                  "operand leaf " + std::to_string(leaf) +
                      " does not exist; the operands have " +
                      std::to_string(num_operand_leaves_) + " leaves");
  }
  // Targets receive operands through non-const tables, as in XLA.
  return SetLeaf(leaf, const_cast<void*>(data), "operand");
}

Status LegacyCallFrame::SetResultLeaf(size_t leaf, void* data) {
  if (leaf >= num_result_leaves()) {
    return Status(XLA_FFI_Error_Code_OUT_OF_RANGE,
                  "result leaf " + std::to_string(leaf) +
                      " does not exist; the result has " +
                      std::to_string(num_result_leaves()) + " leaves");
  }
  return SetLeaf(num_operand_leaves_ + leaf, data, "result");
}

void* LegacyCallFrame::host_out() const {
  if (host_out_table_ >= 0) {
    return const_cast<void**>(slots_.data()) + host_out_table_;
  }
  return host_out_leaf_;
}

const void** LegacyCallFrame::host_in() const {
  return const_cast<const void**>(slots_.data());
}

void** LegacyCallFrame::cuda_buffers() const {
  return const_cast<void**>(slots_.data());
}

Status CallLegacyTarget(const LegacyTargetRecord& target,
                        LegacyApiVersion call_version, LegacyCallFrame& frame) {
  if (target.function == nullptr) {
    return InvalidArgument("legacy custom call '" + target.name +
                           "' has a null function");
  }
  if (target.platform != frame.platform()) {
    return InvalidArgument("legacy custom call '" + target.name +
                           "' is registered for " +
                           std::string(PlatformName(target.platform)) +
                           " but the call frame was laid out for " +
                           std::string(PlatformName(frame.platform())));
  }
  if (!LegacyVersionsCompatible(target.platform, target.api_version,
                                call_version)) {
    return FailedPrecondition(
        "legacy custom call '" + target.name + "' (" +
        std::string(PlatformName(target.platform)) +
        ") was registered as API version " +
        std::to_string(static_cast<int>(target.api_version)) + " (" +
        std::string(
            LegacyCallingConvention(target.platform, target.api_version)) +
        ") but the call site uses API version " +
        std::to_string(static_cast<int>(call_version)) + " (" +
        std::string(LegacyCallingConvention(target.platform, call_version)) +
        ")");
  }
  LegacyApiVersion version = call_version != LegacyApiVersion::kUnspecified
                                 ? call_version
                                 : target.api_version;
  if (version == LegacyApiVersion::kUnspecified) {
    return FailedPrecondition(
        "legacy custom call '" + target.name +
        "': neither the registration nor the call site gives an API "
        "version (1, 2 or 3), so the calling convention is unknown");
  }
  if (static_cast<int>(version) < 1 || static_cast<int>(version) > 3) {
    return InvalidArgument("legacy custom call '" + target.name +
                           "': API version " +
                           std::to_string(static_cast<int>(version)) +
                           " is not a legacy version (1 to 3)");
  }

  XlaCustomCallStatus status;
  const char* opaque = frame.opaque().c_str();
  size_t opaque_len = frame.opaque().size();
  if (target.platform == Platform::kHost) {
    switch (version) {
      case LegacyApiVersion::kOriginal:
        As<HostV1>(target.function)(frame.host_out(), frame.host_in());
        break;
      case LegacyApiVersion::kStatusReturning:
        As<HostV2>(target.function)(frame.host_out(), frame.host_in(), &status);
        break;
      default:
        As<HostV3>(target.function)(frame.host_out(), frame.host_in(), opaque,
                                    opaque_len, &status);
        break;
    }
  } else if (version == LegacyApiVersion::kOriginal) {
    As<CudaV1>(target.function)(frame.stream(), frame.cuda_buffers(), opaque,
                                opaque_len);
  } else {
    As<CudaV23>(target.function)(frame.stream(), frame.cuda_buffers(), opaque,
                                 opaque_len, &status);
  }
  if (status.failure.has_value()) {
    return Internal(TargetText(target, version) + " failed: " +
                    (status.failure->empty() ? std::string("(no message)")
                                             : *status.failure));
  }
  return Status::Ok();
}

Status CallLegacyTarget(std::string_view name, LegacyApiVersion call_version,
                        LegacyCallFrame& frame) {
  StatusOr<const LegacyTargetRecord*> target =
      FindLegacyTarget(name, PlatformName(frame.platform()));
  if (!target.ok()) return target.status();
  return CallLegacyTarget(**target, call_version, frame);
}

}  // namespace xffi
