// The type registry and the Type_Register entry point.
#include "xffi/runtime/types.h"

#include <map>
#include <mutex>
#include <string>

#include "runtime/api_internal.h"

namespace xffi {
namespace {

struct TypeEntry {
  std::string name;
  TypeDeleter deleter = nullptr;
};

struct TypeRegistry {
  std::mutex mutex;
  std::map<std::string, int64_t, std::less<>> id_by_name;
  std::map<int64_t, TypeEntry> by_id;
  int64_t next_id = 1;
};

TypeRegistry& Registry() {
  static auto* registry = new TypeRegistry;  // never destroyed: used at exit
  return *registry;
}

}  // namespace

StatusOr<XLA_FFI_TypeId> RegisterType(std::string_view name,
                                      XLA_FFI_TypeId requested,
                                      const XLA_FFI_TypeInfo* info) {
  if (name.empty()) return InvalidArgument("a type needs a non-empty name");
  if (requested.type_id < 0) {
    return InvalidArgument("type '" + std::string(name) + "': requested id " +
                           std::to_string(requested.type_id) +
                           " is negative; ask for 0 to get an assigned id");
  }
  TypeDeleter deleter = info ? info->deleter : nullptr;
  TypeRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (auto it = registry.id_by_name.find(name);
      it != registry.id_by_name.end()) {
    if (requested.type_id != 0 && requested.type_id != it->second) {
      return AlreadyExists("type '" + std::string(name) +
                           "' is registered with id " +
                           std::to_string(it->second) + ", not the requested " +
                           std::to_string(requested.type_id));
    }
    TypeEntry& entry = registry.by_id[it->second];
    if (entry.deleter == nullptr) entry.deleter = deleter;
    return XLA_FFI_TypeId{it->second};
  }
  int64_t id = requested.type_id;
  if (id != 0) {
    if (auto taken = registry.by_id.find(id); taken != registry.by_id.end()) {
      return AlreadyExists("type id " + std::to_string(id) +
                           " requested for type '" + std::string(name) +
                           "' already belongs to type '" + taken->second.name +
                           "'");
    }
  } else {
    while (registry.by_id.count(registry.next_id)) ++registry.next_id;
    id = registry.next_id++;
  }
  registry.id_by_name.emplace(std::string(name), id);
  registry.by_id.emplace(id, TypeEntry{std::string(name), deleter});
  return XLA_FFI_TypeId{id};
}

std::string_view TypeName(XLA_FFI_TypeId id) {
  TypeRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.by_id.find(id.type_id);
  // Entries are never erased, so the name outlives the lock.
  return it == registry.by_id.end() ? std::string_view() : it->second.name;
}

TypeDeleter TypeDeleterOf(XLA_FFI_TypeId id) {
  TypeRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.by_id.find(id.type_id);
  return it == registry.by_id.end() ? nullptr : it->second.deleter;
}

std::string DescribeType(XLA_FFI_TypeId id) {
  std::string_view name = TypeName(id);
  if (name.empty()) {
    return "id " + std::to_string(id.type_id) + " (unregistered)";
  }
  return "'" + std::string(name) + "' (id " + std::to_string(id.type_id) + ")";
}

namespace internal {

// XLA's size for these args stops at type_id; type_info lies just past it
// and callers since 0.2 fill it in. A null type_info means no deleter.
XLA_FFI_Error* TypeRegister(XLA_FFI_Type_Register_Args* args) {
  if (Status s =
          CheckArgs("XLA_FFI_Type_Register", "XLA_FFI_Type_Register_Args", args,
                    XLA_FFI_Type_Register_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  if (args->type_id == nullptr) {
    return MakeError(
        InvalidArgument("XLA_FFI_Type_Register: type_id is null (type '" +
                        std::string(args->name.ptr ? args->name.ptr : "",
                                    args->name.ptr ? args->name.len : 0) +
                        "')"));
  }
  if (args->name.ptr == nullptr && args->name.len != 0) {
    return MakeError(InvalidArgument(
        "XLA_FFI_Type_Register: name.ptr is null but name.len is " +
        std::to_string(args->name.len)));
  }
  const XLA_FFI_TypeInfo* info = args->type_info;
  if (info != nullptr && info->struct_size < XLA_FFI_TypeInfo_STRUCT_SIZE) {
    return MakeError(InvalidArgument(
        "XLA_FFI_Type_Register: XLA_FFI_TypeInfo.struct_size is " +
        std::to_string(info->struct_size) + " but must be at least " +
        std::to_string(XLA_FFI_TypeInfo_STRUCT_SIZE)));
  }
  std::string_view name(args->name.ptr ? args->name.ptr : "", args->name.len);
  StatusOr<XLA_FFI_TypeId> id = RegisterType(name, *args->type_id, info);
  if (!id.ok()) {
    return MakeError(Status(id.status().code(),
                            "XLA_FFI_Type_Register: " + id.status().message()));
  }
  *args->type_id = *id;
  return nullptr;
}

}  // namespace internal
}  // namespace xffi
