// Registering handlers, legacy targets and types from Python, and listing
// what is registered: thin bindings of the runtime's registries
// (xffi/runtime/registry.h, legacy.h, types.h, introspect.h).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "attributes.h"
#include "bindings.h"
#include "common.h"
#include "xffi/program/builtin_targets.h"
#include "xffi/runtime/introspect.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/partitioning.h"
#include "xffi/runtime/platform.h"
#include "xffi/runtime/registry.h"
#include "xffi/runtime/types.h"

namespace xffi::python {
namespace {

// XLA's legacy capsule name; JAX's pycapsule makes unnamed ones. Both (and
// any other name) are accepted, as xla_client accepts them.
constexpr const char* kLegacyCapsuleName = "xla._CUSTOM_CALL_TARGET";

void* CapsulePointer(nb::handle object, const std::string& what) {
  if (!PyCapsule_CheckExact(object.ptr())) {
    ThrowTypeError(what +
                   " must be a PyCapsule (xffi.pycapsule or "
                   "jax.ffi.pycapsule of a ctypes function), got " +
                   PythonTypeName(object));
  }
  void* pointer =
      PyCapsule_GetPointer(object.ptr(), PyCapsule_GetName(object.ptr()));
  if (pointer == nullptr) throw nb::python_error();
  return pointer;
}

Platform ParsePlatformOrThrow(const std::string& platform) {
  StatusOr<Platform> parsed = ParsePlatform(platform);
  if (!parsed.ok()) ThrowStatus(parsed.status());
  return *parsed;
}

XLA_FFI_Handler_Bundle BundleOf(const std::string& name, nb::handle fn) {
  XLA_FFI_Handler_Bundle bundle{};
  if (!nb::isinstance<nb::dict>(fn)) {
    bundle.execute = reinterpret_cast<XLA_FFI_Handler*>(
        CapsulePointer(fn, "register_ffi_target('" + name + "'): fn"));
    return bundle;
  }
  for (auto [key, value] : nb::borrow<nb::dict>(fn)) {
    std::string stage = nb::isinstance<nb::str>(key)
                            ? nb::cast<std::string>(key)
                            : nb::cast<std::string>(nb::repr(key));
    XLA_FFI_Handler** slot =
        stage == "instantiate" ? &bundle.instantiate
        : stage == "prepare"   ? &bundle.prepare
        : stage == "initialize"
            ? &bundle.initialize
            : (stage == "execute" ? &bundle.execute : nullptr);
    if (slot == nullptr) {
      ThrowValueError("register_ffi_target('" + name + "'): unknown stage '" +
                      stage +
                      "'; the stages are instantiate, prepare, initialize "
                      "and execute");
    }
    *slot = reinterpret_cast<XLA_FFI_Handler*>(CapsulePointer(
        value, "register_ffi_target('" + name + "'): stage '" + stage + "'"));
  }
  if (bundle.execute == nullptr) {
    ThrowValueError("register_ffi_target('" + name +
                    "'): the dict has no 'execute' stage, and every handler "
                    "needs one");
  }
  return bundle;
}

nb::object Capsule(void* pointer, const char* name) {
  return nb::steal(PyCapsule_New(pointer, name, nullptr));
}

nb::dict BundleDict(const XLA_FFI_Handler_Bundle& bundle) {
  nb::dict stages;
  if (bundle.instantiate) {
    stages["instantiate"] =
        Capsule(reinterpret_cast<void*>(bundle.instantiate), nullptr);
  }
  if (bundle.prepare) {
    stages["prepare"] =
        Capsule(reinterpret_cast<void*>(bundle.prepare), nullptr);
  }
  if (bundle.initialize) {
    stages["initialize"] =
        Capsule(reinterpret_cast<void*>(bundle.initialize), nullptr);
  }
  if (bundle.execute) {
    stages["execute"] =
        Capsule(reinterpret_cast<void*>(bundle.execute), nullptr);
  }
  return stages;
}

const char* ParamKindName(XFFI_ParamKind kind) {
  switch (kind) {
    case XFFI_Param_ARG:
      return "arg";
    case XFFI_Param_RET:
      return "ret";
    case XFFI_Param_OPTIONAL_ARG:
      return "optional_arg";
    case XFFI_Param_OPTIONAL_RET:
      return "optional_ret";
    case XFFI_Param_REMAINING_ARGS:
      return "remaining_args";
    case XFFI_Param_REMAINING_RETS:
      return "remaining_rets";
    case XFFI_Param_ATTR:
      return "attr";
    case XFFI_Param_ATTRS:
      return "attrs";
    case XFFI_Param_CTX:
      return "ctx";
  }
  return "unknown";
}

nb::object SignatureParams(const XFFI_Signature* signature) {
  if (signature == nullptr) return nb::none();
  nb::list params;
  for (int64_t i = 0; i < signature->num_params; ++i) {
    const XFFI_Param& p = signature->params[i];
    nb::dict param;
    param["kind"] = ParamKindName(p.kind);
    param["dtype"] = static_cast<int>(p.dtype);
    param["rank"] = p.rank;
    param["attr_type"] = static_cast<int>(p.attr_type);
    param["name"] = p.name ? nb::object(nb::str(p.name)) : nb::none();
    param["type_name"] =
        p.type_name ? nb::object(nb::str(p.type_name)) : nb::none();
    params.append(param);
  }
  return params;
}

nb::dict Describe(const TargetDescription& target) {
  nb::dict d;
  d["name"] = target.name;
  d["platform"] = std::string(PlatformName(target.platform));
  d["kind"] = std::string(TargetKindName(target.kind));
  d["api_version"] = target.api_version;
  d["traits"] = static_cast<int>(target.traits);
  d["stages"] = target.stages;
  d["signature"] = target.signature;
  d["origin"] = target.origin;
  d["text"] = FormatTarget(target);
  return d;
}

}  // namespace

void BindRegistration(nb::module_& m) {
  m.def(
      "canonical_platform",
      [](const std::string& platform) {
        return std::string(PlatformName(ParsePlatformOrThrow(platform)));
      },
      nb::arg("platform"),
      "The canonical name of a platform ('Host' or 'CUDA'); raises "
      "ValueError listing the valid names for an unknown one.");

  m.def(
      "_register_ffi_target",
      [](const std::string& name, nb::handle fn, const std::string& platform,
         int traits, const std::string& origin, bool replace) {
        ParsePlatformOrThrow(platform);
        XLA_FFI_Handler_Bundle bundle = BundleOf(name, fn);
        ScopedRegistrationOrigin scope(origin);
        auto register_handler = replace ? ReplaceHandler : RegisterHandler;
        ThrowIfError(
            register_handler(name, platform, bundle,
                             static_cast<XLA_FFI_Handler_Traits>(traits)));
      },
      nb::arg("name"), nb::arg("fn"), nb::arg("platform"), nb::arg("traits"),
      nb::arg("origin"), nb::arg("replace") = false);

  m.def("builtin_targets", &BuiltinCpuTargetNames,
        "The names of the custom-call targets xffi's CPU backend has built "
        "in (jaxlib's LAPACK family), sorted.");
  m.def(
      "restore_builtin_targets",
      [] { ThrowIfError(RestoreBuiltinCpuTargets()); },
      "Puts every built-in target back under its name, replacing what "
      "register_ffi_target(..., replace=True) or "
      "xffi.jax.register_jaxlib_targets put there; programs compiled before "
      "keep the handlers they resolved.");
  m.def("_builtin_target_active", &IsBuiltinCpuTargetActive, nb::arg("name"));
  // xffi.register_custom_call_as_batch_partitionable: the compiler splits
  // such calls per device (passes/batch_partitioning.h).
  m.def(
      "_register_batch_partitionable",
      [](const std::string& name) {
        ThrowIfError(RegisterBatchPartitionable(name));
      },
      nb::arg("name"));

  m.def(
      "_register_legacy_target",
      [](const std::string& name, nb::handle fn, const std::string& platform,
         int legacy_api_version, const std::string& origin) {
        ParsePlatformOrThrow(platform);
        void* function = CapsulePointer(
            fn, "register_custom_call_target('" + name + "'): fn");
        if (legacy_api_version < 0 || legacy_api_version > 3) {
          ThrowValueError("register_custom_call_target('" + name +
                          "'): legacy api_version must be 0 (decided by the "
                          "call site) or 1 to 3, got " +
                          std::to_string(legacy_api_version));
        }
        ScopedRegistrationOrigin scope(origin);
        ThrowIfError(RegisterLegacyTarget(
            name, function, platform,
            static_cast<LegacyApiVersion>(legacy_api_version)));
      },
      nb::arg("name"), nb::arg("fn"), nb::arg("platform"),
      nb::arg("legacy_api_version"), nb::arg("origin"));

  m.def(
      "custom_call_targets",
      [](const std::string& platform) {
        Platform p = ParsePlatformOrThrow(platform);
        nb::dict targets;
        for (const LegacyTargetRecord* record : ListLegacyTargets(p)) {
          targets[nb::str(record->name.c_str())] =
              Capsule(record->function, kLegacyCapsuleName);
        }
        for (const HandlerRecord* record : ListHandlers(p)) {
          targets[nb::str(record->name.c_str())] = BundleDict(record->bundle);
        }
        return targets;
      },
      nb::arg("platform") = "cpu",
      "Every target registered for `platform`: a legacy target as a capsule "
      "named 'xla._CUSTOM_CALL_TARGET', an FFI handler as a dict of stage "
      "capsules.");

  m.def(
      "_register_ffi_type",
      [](const std::string& name, nb::handle type_id, nb::handle type_info) {
        auto* id = static_cast<XLA_FFI_TypeId*>(CapsulePointer(
            type_id, "register_ffi_type('" + name + "'): type_id"));
        const XLA_FFI_TypeInfo* info = nullptr;
        if (!type_info.is_none()) {
          info = static_cast<const XLA_FFI_TypeInfo*>(CapsulePointer(
              type_info, "register_ffi_type('" + name + "'): type_info"));
        }
        StatusOr<XLA_FFI_TypeId> assigned = RegisterType(name, *id, info);
        if (!assigned.ok()) ThrowStatus(assigned.status());
        *id = *assigned;
        return assigned->type_id;
      },
      nb::arg("name"), nb::arg("type_id"), nb::arg("type_info").none());

  m.def(
      "type_name", [](int64_t id) { return std::string(TypeName({id})); },
      nb::arg("type_id"), "The registered name of a type id ('' if unknown).");
  m.def(
      "_type_deleter",
      [](int64_t id) {
        return reinterpret_cast<uintptr_t>(TypeDeleterOf({id}));
      },
      nb::arg("type_id"));

  m.def(
      "_capsule",
      [](uintptr_t address, bool legacy_name) {
        if (address == 0) ThrowValueError("pycapsule: the address is null");
        return Capsule(reinterpret_cast<void*>(address),
                       legacy_name ? kLegacyCapsuleName : nullptr);
      },
      nb::arg("address"), nb::arg("legacy_name") = false);
  m.def(
      "_capsule_address",
      [](nb::handle capsule) {
        return reinterpret_cast<uintptr_t>(CapsulePointer(capsule, "capsule"));
      },
      nb::arg("capsule"));

  m.def(
      "describe_targets",
      [](const std::string& platform) {
        nb::list out;
        for (const TargetDescription& target :
             DescribeTargets(ParsePlatformOrThrow(platform))) {
          out.append(Describe(target));
        }
        return out;
      },
      nb::arg("platform") = "cpu",
      "Every target of `platform`, described: name, kind, api_version, "
      "traits, stages, signature, origin and a one-line text.");

  m.def(
      "_handler_info",
      [](const std::string& name, const std::string& platform) -> nb::object {
        ParsePlatformOrThrow(platform);
        StatusOr<const HandlerRecord*> record = FindHandler(name, platform);
        if (!record.ok()) return nb::none();
        const HandlerRecord& r = **record;
        nb::dict d;
        d["name"] = r.name;
        d["api_version"] =
            std::to_string(r.api_major) + "." + std::to_string(r.api_minor);
        d["traits"] = static_cast<int>(r.traits);
        d["state_type_id"] = r.state_type_id.type_id;
        d["bundle"] = BundleDict(r.bundle);
        d["params"] = SignatureParams(r.signature);
        d["signature"] = r.signature ? RenderSignature(*r.signature) : "";
        d["origin"] = r.origin;
        return d;
      },
      nb::arg("name"), nb::arg("platform"));

  m.def(
      "_describe_handler",
      [](const std::string& name, uintptr_t execute) {
        XLA_FFI_Handler_Bundle bundle{};
        bundle.execute = reinterpret_cast<XLA_FFI_Handler*>(execute);
        StatusOr<HandlerRecord> record = DescribeHandler(name, bundle);
        if (!record.ok()) ThrowStatus(record.status());
        nb::dict d;
        d["api_version"] = std::to_string(record->api_major) + "." +
                           std::to_string(record->api_minor);
        d["traits"] = static_cast<int>(record->traits);
        d["params"] = SignatureParams(record->signature);
        d["signature"] =
            record->signature ? RenderSignature(*record->signature) : "";
        return d;
      },
      nb::arg("name"), nb::arg("execute"));

  // Checks (and would narrow) `kwargs` against the self-description of the
  // handler at `execute`, raising what an eager call would raise; xffi.jax
  // runs it before building a jax.ffi.ffi_call.
  m.def(
      "_check_attributes",
      [](const std::string& target, nb::dict stages, nb::dict kwargs) {
        XLA_FFI_Handler_Bundle bundle{};
        for (auto [key, value] : stages) {
          std::string stage = nb::cast<std::string>(key);
          auto* handler =
              reinterpret_cast<XLA_FFI_Handler*>(nb::cast<uintptr_t>(value));
          if (stage == "instantiate") bundle.instantiate = handler;
          if (stage == "prepare") bundle.prepare = handler;
          if (stage == "initialize") bundle.initialize = handler;
          if (stage == "execute") bundle.execute = handler;
        }
        (void)ConvertAttributes(kwargs, StageSignatures(target, bundle),
                                target);
      },
      nb::arg("target"), nb::arg("stages"), nb::arg("kwargs"));

  m.def(
      "_legacy_target_info",
      [](const std::string& name, const std::string& platform) -> nb::object {
        ParsePlatformOrThrow(platform);
        StatusOr<const LegacyTargetRecord*> record =
            FindLegacyTarget(name, platform);
        if (!record.ok()) return nb::none();
        nb::dict d;
        d["name"] = (*record)->name;
        d["api_version"] = static_cast<int>((*record)->api_version);
        d["origin"] = (*record)->origin;
        return d;
      },
      nb::arg("name"), nb::arg("platform"));
}

}  // namespace xffi::python
