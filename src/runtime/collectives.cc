// HostCollectives and the host implementation of the Collectives extension.
#include "xffi/runtime/collectives.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/api_internal.h"
#include "xffi/runtime/context.h"

namespace xffi {

struct HostCollectives::Impl {
  // A clique: the devices that communicate, and the id that tells apart
  // cliques of the same devices.
  using Key = std::pair<int64_t, std::vector<int64_t>>;

  struct Communicator {
    std::vector<int64_t> devices;
    XFFI_HostCommunicator handle;
    // Stable addresses: handlers keep the window pointers.
    std::vector<std::unique_ptr<XFFI_HostWindow>> windows;
  };

  int64_t num_replicas;
  int64_t num_partitions;
  mutable std::mutex mutex;
  std::map<Key, std::unique_ptr<Communicator>> communicators;
};

namespace {

using Call = HostCollectives::CallExtension;

Status Error(XLA_FFI_Error_Code code, const char* function,
             const std::string& message) {
  return Status(code, std::string("XLA_FFI_Collectives_Extension.") + function +
                          ": " + message);
}

std::string DeviceList(const std::vector<int64_t>& devices) {
  std::string out = "[";
  for (size_t i = 0; i < devices.size(); ++i) {
    out += (i == 0 ? "" : ", ") + std::to_string(devices[i]);
  }
  return out + "]";
}

const char* ModeName(int mode) {
  switch (mode) {
    case XLA_FFI_GROUP_CROSS_REPLICA:
      return "CROSS_REPLICA";
    case XLA_FFI_GROUP_CROSS_PARTITION:
      return "CROSS_PARTITION";
    case XLA_FFI_GROUP_CROSS_REPLICA_AND_PARTITION:
      return "CROSS_REPLICA_AND_PARTITION";
    case XLA_FFI_GROUP_FLATTENED_ID:
      return "FLATTENED_ID";
  }
  return nullptr;
}

// The devices of the group holding `device`, sorted: replica groups read as
// XLA reads them for `mode` (an empty list of groups means every replica,
// or every partition, in one group; FLATTENED_ID needs explicit groups).
StatusOr<std::vector<int64_t>> GroupOf(const char* fn, int mode,
                                       const XLA_FFI_ReplicaGroup* groups,
                                       size_t num_groups, int64_t replicas,
                                       int64_t partitions, int64_t device) {
  const char* mode_name = ModeName(mode);
  if (mode_name == nullptr) {
    return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, fn,
                 "unknown group mode " + std::to_string(mode));
  }
  if (num_groups > 0 && groups == nullptr) {
    return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, fn,
                 std::to_string(num_groups) +
                     " replica groups but the group array is null");
  }
  int64_t replica = device / partitions;
  int64_t partition = device % partitions;
  // What the ids of a group number, and which of them is this device's.
  int64_t id_limit = mode == XLA_FFI_GROUP_CROSS_PARTITION ? partitions
                     : mode == XLA_FFI_GROUP_FLATTENED_ID
                         ? replicas * partitions
                         : replicas;
  int64_t own_id = mode == XLA_FFI_GROUP_CROSS_PARTITION ? partition
                   : mode == XLA_FFI_GROUP_FLATTENED_ID  ? device
                                                         : replica;
  std::vector<int64_t> members;
  if (num_groups == 0) {
    if (mode == XLA_FFI_GROUP_FLATTENED_ID) {
      return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, fn,
                   "group mode FLATTENED_ID needs explicit replica groups");
    }
    for (int64_t id = 0; id < id_limit; ++id) members.push_back(id);
  } else {
    bool found = false;
    for (size_t g = 0; g < num_groups; ++g) {
      const XLA_FFI_ReplicaGroup& group = groups[g];
      if (group.size > 0 && group.ids == nullptr) {
        return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, fn,
                     "replica group " + std::to_string(g) + " has " +
                         std::to_string(group.size) + " ids but a null array");
      }
      for (size_t i = 0; i < group.size; ++i) {
        if (group.ids[i] < 0 || group.ids[i] >= id_limit) {
          return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, fn,
                       "replica group " + std::to_string(g) + " names id " +
                           std::to_string(group.ids[i]) + ", outside [0, " +
                           std::to_string(id_limit) + ") for " + mode_name);
        }
      }
      const int64_t* end = group.ids + group.size;
      if (!found && std::find(group.ids, end, own_id) != end) {
        members.assign(group.ids, end);
        found = true;
      }
    }
    if (!found) {
      return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, fn,
                   "device " + std::to_string(device) + " (replica " +
                       std::to_string(replica) + ", partition " +
                       std::to_string(partition) + ") is in none of the " +
                       std::to_string(num_groups) + " replica groups");
    }
  }
  std::vector<int64_t> devices;
  for (int64_t id : members) {
    switch (mode) {
      case XLA_FFI_GROUP_CROSS_REPLICA:
        devices.push_back(id * partitions + partition);
        break;
      case XLA_FFI_GROUP_CROSS_PARTITION:
        devices.push_back(replica * partitions + id);
        break;
      case XLA_FFI_GROUP_CROSS_REPLICA_AND_PARTITION:
        for (int64_t p = 0; p < partitions; ++p) {
          devices.push_back(id * partitions + p);
        }
        break;
      default:
        devices.push_back(id);
        break;
    }
  }
  std::sort(devices.begin(), devices.end());
  if (std::adjacent_find(devices.begin(), devices.end()) != devices.end()) {
    return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, fn,
                 "the replica group holding device " + std::to_string(device) +
                     " names a device twice: " + DeviceList(devices));
  }
  return devices;
}

// Checks what every entry point shares (the call, the struct, the stage)
// and finds the clique the arguments name for the call's device.
template <typename Args>
StatusOr<HostCollectives::Impl::Key> CliqueOf(
    const char* fn, const XLA_FFI_Collectives_Extension* self, const Args* args,
    size_t required, bool prepare) {
  if (self == nullptr || self->state == nullptr) {
    return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, fn,
                 "the extension is null or not xffi's");
  }
  if (args == nullptr || args->struct_size < required) {
    return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, fn,
                 "the argument struct is null or smaller (" +
                     std::to_string(args ? args->struct_size : 0) +
                     " bytes) than the " + std::to_string(required) +
                     " this runtime needs");
  }
  const Call& call = *reinterpret_cast<const Call*>(self->state);
  bool stage_ok = prepare ? call.stage == XLA_FFI_ExecutionStage_PREPARE
                          : call.stage == XLA_FFI_ExecutionStage_INITIALIZE ||
                                call.stage == XLA_FFI_ExecutionStage_EXECUTE;
  if (!stage_ok) {
    return Error(
        XLA_FFI_Error_Code_FAILED_PRECONDITION, fn,
        std::string("available in the ") +
            (prepare ? "PREPARE stage" : "INITIALIZE and EXECUTE stages") +
            " only, called in " + ExecutionStageName(call.stage));
  }
  if (args->communication_id < 0) {
    return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, fn,
                 "communication_id must not be negative, got " +
                     std::to_string(args->communication_id));
  }
  const HostCollectives::Impl& impl = *call.impl;
  int64_t num_devices = impl.num_replicas * impl.num_partitions;
  if (call.device_id < 0 || call.device_id >= num_devices) {
    return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, fn,
                 "the call's device " + std::to_string(call.device_id) +
                     " is outside the device set of " +
                     std::to_string(impl.num_replicas) + " replicas x " +
                     std::to_string(impl.num_partitions) + " partitions");
  }
  // Read as the integer it is: a value outside the enum is reported, and
  // loading it through the enum type would be undefined behaviour.
  int32_t mode;
  static_assert(sizeof(mode) == sizeof(args->group_mode));
  std::memcpy(&mode, &args->group_mode, sizeof(mode));
  StatusOr<std::vector<int64_t>> devices =
      GroupOf(fn, mode, args->groups, args->num_groups, impl.num_replicas,
              impl.num_partitions, call.device_id);
  if (!devices.ok()) return devices.status();
  if (devices->size() > 1) {
    return Error(XLA_FFI_Error_Code_UNIMPLEMENTED, fn,
                 "the clique of devices " + DeviceList(*devices) +
                     " needs a multi-device runtime: xffi runs each custom "
                     "call on one device at a time and has communicators for "
                     "cliques of one device only");
  }
  return HostCollectives::Impl::Key(args->communication_id,
                                    std::move(*devices));
}

// The call's communicator for `key`, or FAILED_PRECONDITION when PREPARE
// did not request it.
StatusOr<HostCollectives::Impl::Communicator*> Requested(
    const char* fn, HostCollectives::Impl& impl,
    const HostCollectives::Impl::Key& key) {
  auto it = impl.communicators.find(key);
  if (it == impl.communicators.end()) {
    return Error(XLA_FFI_Error_Code_FAILED_PRECONDITION, fn,
                 "no communicator for the clique of devices " +
                     DeviceList(key.second) + " (communication id " +
                     std::to_string(key.first) +
                     ") was requested in the PREPARE stage");
  }
  return it->second.get();
}

HostCollectives::Impl& ImplOf(const XLA_FFI_Collectives_Extension* self) {
  return *reinterpret_cast<const Call*>(self->state)->impl;
}

XLA_FFI_Error* RequestCommunicator(const XLA_FFI_Collectives_Extension* self,
                                   XLA_FFI_Communicator_Request_Args* args) {
  constexpr const char* kFn = "request_communicator";
  StatusOr<HostCollectives::Impl::Key> key =
      CliqueOf(kFn, self, args, XLA_FFI_Communicator_Request_Args_STRUCT_SIZE,
               /*prepare=*/true);
  if (!key.ok()) return internal::MakeError(key.status());
  HostCollectives::Impl& impl = ImplOf(self);
  std::lock_guard<std::mutex> lock(impl.mutex);
  std::unique_ptr<HostCollectives::Impl::Communicator>& slot =
      impl.communicators[*key];
  if (slot == nullptr) {
    slot = std::make_unique<HostCollectives::Impl::Communicator>();
    slot->devices = key->second;
    slot->handle = XFFI_HostCommunicator{XFFI_HostCommunicator_STRUCT_SIZE, 0,
                                         1, slot->devices.data()};
  }
  return nullptr;
}

// Runs `use(communicator, devices)` under the lock, for the clique `args`
// names, which PREPARE must have requested.
template <typename Args, typename Use>
XLA_FFI_Error* WithCommunicator(const char* fn,
                                const XLA_FFI_Collectives_Extension* self,
                                Args* args, size_t required, bool prepare,
                                Use use) {
  StatusOr<HostCollectives::Impl::Key> key =
      CliqueOf(fn, self, args, required, prepare);
  if (!key.ok()) return internal::MakeError(key.status());
  HostCollectives::Impl& impl = ImplOf(self);
  std::lock_guard<std::mutex> lock(impl.mutex);
  StatusOr<HostCollectives::Impl::Communicator*> communicator =
      Requested(fn, impl, *key);
  if (!communicator.ok()) return internal::MakeError(communicator.status());
  return internal::MakeError(use(**communicator, key->second));
}

XLA_FFI_Error* GetCommunicator(const XLA_FFI_Collectives_Extension* self,
                               XLA_FFI_Communicator_Get_Args* args) {
  return WithCommunicator(
      "get_communicator", self, args, XLA_FFI_Communicator_Get_Args_STRUCT_SIZE,
      /*prepare=*/false,
      [&](HostCollectives::Impl::Communicator& communicator,
          const std::vector<int64_t>&) {
        args->communicator =
            reinterpret_cast<XLA_FFI_Communicator*>(&communicator.handle);
        return Status::Ok();
      });
}

XLA_FFI_Error* RequestWindow(const XLA_FFI_Collectives_Extension* self,
                             XLA_FFI_Window_Request_Args* args) {
  constexpr const char* kFn = "request_window";
  return WithCommunicator(
      kFn, self, args, XLA_FFI_Window_Request_Args_STRUCT_SIZE,
      /*prepare=*/true,
      [&](HostCollectives::Impl::Communicator& communicator,
          const std::vector<int64_t>&) {
        if (args->num_regions > 0 && args->regions == nullptr) {
          return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, kFn,
                       std::to_string(args->num_regions) +
                           " regions but the region array is null");
        }
        for (size_t r = 0; r < args->num_regions; ++r) {
          if (args->regions[r].buffer == nullptr) {
            return Error(XLA_FFI_Error_Code_INVALID_ARGUMENT, kFn,
                         "region " + std::to_string(r) + " has a null buffer");
          }
        }
        auto& windows = communicator.windows;
        for (size_t r = 0; r < args->num_regions; ++r) {
          const XLA_FFI_CollectiveMemoryRegion& region = args->regions[r];
          bool known =
              std::any_of(windows.begin(), windows.end(), [&](auto& window) {
                return window->base == region.buffer &&
                       window->byte_size == region.byte_size &&
                       window->flags == region.flags;
              });
          if (!known) {
            windows.push_back(std::make_unique<XFFI_HostWindow>(
                XFFI_HostWindow{XFFI_HostWindow_STRUCT_SIZE, region.buffer,
                                region.byte_size, region.flags}));
          }
        }
        return Status::Ok();
      });
}

XLA_FFI_Error* GetWindow(const XLA_FFI_Collectives_Extension* self,
                         XLA_FFI_Window_Get_Args* args) {
  constexpr const char* kFn = "get_window";
  return WithCommunicator(
      kFn, self, args, XLA_FFI_Window_Get_Args_STRUCT_SIZE, /*prepare=*/false,
      [&](HostCollectives::Impl::Communicator& communicator,
          const std::vector<int64_t>& devices) {
        auto address = reinterpret_cast<uintptr_t>(args->buffer);
        for (const auto& window : communicator.windows) {
          auto base = reinterpret_cast<uintptr_t>(window->base);
          // An empty region still holds its own start.
          if (address >= base &&
              (address - base < window->byte_size || address == base)) {
            args->window = reinterpret_cast<XLA_FFI_Window*>(window.get());
            args->window_offset = address - base;
            return Status::Ok();
          }
        }
        char text[32];
        std::snprintf(text, sizeof(text), "%p", args->buffer);
        return Error(XLA_FFI_Error_Code_NOT_FOUND, kFn,
                     "no window of the clique of devices " +
                         DeviceList(devices) + " holds buffer " + text +
                         "; request one for its region in the PREPARE stage");
      });
}

}  // namespace

HostCollectives::HostCollectives(int64_t num_replicas, int64_t num_partitions)
    : impl_(std::make_unique<Impl>()) {
  impl_->num_replicas = num_replicas > 0 ? num_replicas : 1;
  impl_->num_partitions = num_partitions > 0 ? num_partitions : 1;
}

HostCollectives::~HostCollectives() = default;

int64_t HostCollectives::num_replicas() const { return impl_->num_replicas; }
int64_t HostCollectives::num_partitions() const {
  return impl_->num_partitions;
}

size_t HostCollectives::num_communicators() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->communicators.size();
}

size_t HostCollectives::num_windows() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  size_t n = 0;
  for (const auto& [key, communicator] : impl_->communicators) {
    n += communicator->windows.size();
  }
  return n;
}

const XLA_FFI_Extension* HostCollectives::Bind(XLA_FFI_ExecutionStage stage,
                                               int64_t device_id,
                                               CallExtension& storage) {
  storage.extension.extension_base = XLA_FFI_Extension{
      sizeof(XLA_FFI_Collectives_Extension),
      XLA_FFI_ExtensionId{XLA_FFI_Extension_Collectives,
                          XLA_FFI_Extension_Collectives_MajorVersion,
                          XLA_FFI_Extension_Collectives_MinorVersion},
      nullptr};
  storage.extension.state =
      reinterpret_cast<XLA_FFI_CollectivesState*>(&storage);
  storage.extension.request_communicator = RequestCommunicator;
  storage.extension.get_communicator = GetCommunicator;
  storage.extension.request_window = RequestWindow;
  storage.extension.get_window = GetWindow;
  storage.impl = impl_.get();
  storage.stage = stage;
  storage.device_id = device_id;
  return &storage.extension.extension_base;
}

}  // namespace xffi
