// The Collectives extension for C++ handlers, with XLA's names
// (collectives_api.h): request a clique's communicator (and collective
// memory windows) in PREPARE, get them in INITIALIZE or EXECUTE.
//
//   ffi::Ffi::BindPrepare()
//       .Ctx<ffi::Extension<ffi::CollectivesExtension>>()
//       .To([](ffi::CommunicatorContext comms) {
//         return comms.RequestCommunicator(ffi::GroupMode::kCrossReplica,
//                                          {{0, 1}}, /*communication_id=*/0);
//       });
//
// XLA spells the context internal::CommunicatorContextBase<
// internal::ErrorPolicy> and the extension internal::CollectivesExtensionBase<
// that>; both spellings work here, CommunicatorContext and
// CollectivesExtension are xffi's short names for them.
#ifndef XFFI_FFI_COLLECTIVES_H_
#define XFFI_FFI_COLLECTIVES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "xffi/c_api.h"
#include "xffi/collectives_c_api.h"
#include "xffi/ffi.h"

namespace xffi::ffi {

enum class GroupMode {
  kCrossReplica = XLA_FFI_GROUP_CROSS_REPLICA,
  kCrossPartition = XLA_FFI_GROUP_CROSS_PARTITION,
  kCrossReplicaAndPartition = XLA_FFI_GROUP_CROSS_REPLICA_AND_PARTITION,
  kFlattenedId = XLA_FFI_GROUP_FLATTENED_ID,
};

struct CollectiveMemoryRegion {
  const void* buffer;
  size_t byte_size;
  uint64_t flags = 0;
};

// A window handle and the byte offset of the looked-up buffer within it.
struct WindowLookup {
  XLA_FFI_Window* window;
  size_t offset;
};

namespace internal {

// The extension's functions, reporting errors through ErrorPolicy (Error
// and ErrorOr<T> here). Groups are lists of ids read as `group_mode` says.
template <typename ErrorPolicy>
class CommunicatorContextBase {
 public:
  using Status = typename ErrorPolicy::Status;
  template <typename T>
  using StatusOr = typename ErrorPolicy::template StatusOr<T>;

  CommunicatorContextBase(const XLA_FFI_Api* api,
                          const XLA_FFI_Collectives_Extension* ext)
      : api_(api), ext_(ext) {}

  // PREPARE only.
  Status RequestCommunicator(GroupMode group_mode,
                             const std::vector<std::vector<int64_t>>& groups,
                             int64_t communication_id) {
    std::vector<XLA_FFI_ReplicaGroup> raw = ToRawGroups(groups);
    auto args = CliqueArgs<XLA_FFI_Communicator_Request_Args>(
        XLA_FFI_Communicator_Request_Args_STRUCT_SIZE, group_mode, raw,
        communication_id);
    return Done(ext_->request_communicator(ext_, &args));
  }

  // INITIALIZE or EXECUTE. The handle is the backend's (ncclComm_t on
  // XLA:GPU, XFFI_HostCommunicator* on xffi's host runtime).
  StatusOr<XLA_FFI_Communicator*> GetCommunicator(
      GroupMode group_mode, const std::vector<std::vector<int64_t>>& groups,
      int64_t communication_id) {
    std::vector<XLA_FFI_ReplicaGroup> raw = ToRawGroups(groups);
    auto args = CliqueArgs<XLA_FFI_Communicator_Get_Args>(
        XLA_FFI_Communicator_Get_Args_STRUCT_SIZE, group_mode, raw,
        communication_id);
    if (XLA_FFI_Error* error = ext_->get_communicator(ext_, &args)) {
      return StatusOr<XLA_FFI_Communicator*>(
          ErrorPolicy::TakeError(api_, error));
    }
    return args.communicator;
  }

  // PREPARE only, after RequestCommunicator for the same clique.
  Status RequestWindow(GroupMode group_mode,
                       const std::vector<std::vector<int64_t>>& groups,
                       int64_t communication_id,
                       const std::vector<CollectiveMemoryRegion>& regions) {
    std::vector<XLA_FFI_ReplicaGroup> raw = ToRawGroups(groups);
    std::vector<XLA_FFI_CollectiveMemoryRegion> raw_regions;
    raw_regions.reserve(regions.size());
    for (const CollectiveMemoryRegion& region : regions) {
      raw_regions.push_back(XLA_FFI_CollectiveMemoryRegion{
          region.buffer, region.byte_size, region.flags});
    }
    auto args = CliqueArgs<XLA_FFI_Window_Request_Args>(
        XLA_FFI_Window_Request_Args_STRUCT_SIZE, group_mode, raw,
        communication_id);
    args.regions = raw_regions.data();
    args.num_regions = raw_regions.size();
    return Done(ext_->request_window(ext_, &args));
  }

  // INITIALIZE or EXECUTE: the window over a requested region holding
  // `buffer`.
  StatusOr<WindowLookup> GetWindow(
      GroupMode group_mode, const std::vector<std::vector<int64_t>>& groups,
      int64_t communication_id, const void* buffer) {
    std::vector<XLA_FFI_ReplicaGroup> raw = ToRawGroups(groups);
    auto args = CliqueArgs<XLA_FFI_Window_Get_Args>(
        XLA_FFI_Window_Get_Args_STRUCT_SIZE, group_mode, raw, communication_id);
    args.buffer = buffer;
    if (XLA_FFI_Error* error = ext_->get_window(ext_, &args)) {
      return StatusOr<WindowLookup>(ErrorPolicy::TakeError(api_, error));
    }
    return WindowLookup{args.window, args.window_offset};
  }

 private:
  // The fields every argument struct starts with; the rest are zeroed.
  template <typename Args>
  static Args CliqueArgs(size_t struct_size, GroupMode group_mode,
                         const std::vector<XLA_FFI_ReplicaGroup>& raw,
                         int64_t communication_id) {
    Args args{};
    args.struct_size = struct_size;
    args.extension_start = nullptr;
    args.group_mode = static_cast<XLA_FFI_CollectiveGroupMode>(group_mode);
    args.groups = raw.data();
    args.num_groups = raw.size();
    args.communication_id = communication_id;
    return args;
  }

  // Views of `groups`, which must outlive them.
  static std::vector<XLA_FFI_ReplicaGroup> ToRawGroups(
      const std::vector<std::vector<int64_t>>& groups) {
    std::vector<XLA_FFI_ReplicaGroup> raw;
    raw.reserve(groups.size());
    for (const std::vector<int64_t>& group : groups) {
      raw.push_back(XLA_FFI_ReplicaGroup{group.data(), group.size()});
    }
    return raw;
  }

  Status Done(XLA_FFI_Error* error) {
    if (error != nullptr) return ErrorPolicy::TakeError(api_, error);
    return ErrorPolicy::Ok();
  }

  const XLA_FFI_Api* api_;
  const XLA_FFI_Collectives_Extension* ext_;
};

// Describes the Collectives extension to CtxDecoding<Extension<...>>.
template <typename CommunicatorContextT>
struct CollectivesExtensionBase {
  using Type = CommunicatorContextT;
  using CExtension = XLA_FFI_Collectives_Extension;

  static constexpr auto kName = "CollectivesExtension";
  static constexpr int32_t kExtensionType = XLA_FFI_Extension_Collectives;
  static constexpr int32_t kMajorVersion =
      XLA_FFI_Extension_Collectives_MajorVersion;
  static constexpr int32_t kMinorVersion =
      XLA_FFI_Extension_Collectives_MinorVersion;

  static CommunicatorContextT Create(const XLA_FFI_Api* api,
                                     const CExtension* ext) {
    return CommunicatorContextT(api, ext);
  }
};

}  // namespace internal

using CommunicatorContext =
    internal::CommunicatorContextBase<internal::ErrorPolicy>;
using CollectivesExtension =
    internal::CollectivesExtensionBase<CommunicatorContext>;

}  // namespace xffi::ffi

#endif  // XFFI_FFI_COLLECTIVES_H_
