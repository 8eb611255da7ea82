// The extern "C" symbols xla_interop_handlers.cc defines, once per official
// header, with that build's prefix (XlaV03_, XlaV05_). Declared here with
// xffi's c_api.h types, which are layout-identical (test_abi_compare): the
// driver cannot include XLA's headers beside xffi's. Include after
// xffi/c_api.h.
#ifndef XFFI_TESTS_XLA_XLA_INTEROP_SYMBOLS_H_
#define XFFI_TESTS_XLA_XLA_INTEROP_SYMBOLS_H_

#include <cstdint>
#include <ostream>

#define XFFI_INTEROP_HANDLERS(X) \
  X(AddBuffers)                  \
  X(SumMatrix)                   \
  X(EchoScalars)                 \
  X(SumArrays)                   \
  X(ReadDictionary)              \
  X(CountAttrs)                  \
  X(EnumsStructsVariants)        \
  X(WindowArea)                  \
  X(ScaleAll)                    \
  X(CounterInstantiate)          \
  X(CounterExecute)              \
  X(ReadConfig)                  \
  X(Fail)                        \
  X(RunInfo)                     \
  X(FillOnPool)

#define XFFI_DECLARE_INTEROP_SYMBOLS(P)                      \
  extern "C" {                                               \
  XFFI_INTEROP_HANDLERS(XFFI_DECLARE_INTEROP_HANDLER_##P)    \
  XLA_FFI_Error* P##RegisterTypes(const XLA_FFI_Api* api);   \
  XLA_FFI_Error* P##RegisterHandlers(const XLA_FFI_Api* api, \
                                     const char* prefix);    \
  int64_t P##CounterTypeId();                                \
  int64_t P##ConfigTypeId();                                 \
  void* P##NewConfig(int64_t scale);                         \
  void P##DeleteConfig(void* config);                        \
  int P##HeaderMinor();                                      \
  }

#define XFFI_DECLARE_INTEROP_HANDLER_XlaV03_(name) \
  XLA_FFI_Error* XlaV03_##name(XLA_FFI_CallFrame* call_frame);
#define XFFI_DECLARE_INTEROP_HANDLER_XlaV05_(name) \
  XLA_FFI_Error* XlaV05_##name(XLA_FFI_CallFrame* call_frame);

XFFI_DECLARE_INTEROP_SYMBOLS(XlaV03_)
XFFI_DECLARE_INTEROP_SYMBOLS(XlaV05_)

// Only the FFI 0.5 build has these (custom options, extensions, record).
extern "C" {
XLA_FFI_Error* XlaV05_ReadCustomOptions(XLA_FFI_CallFrame* call_frame);
XLA_FFI_Error* XlaV05_ReadExtension(XLA_FFI_CallFrame* call_frame);
XLA_FFI_Error* XlaV05_Record(XLA_FFI_CallFrame* call_frame);
}

// The extension ReadExtension decodes, as the 0.5 TU declares it.
struct XffiTestExtensionC {
  XLA_FFI_Extension extension;
  int64_t payload;
};
inline constexpr int64_t kXffiTestExtensionType = 0x7866666954455354;

// One official header's build of the handlers, as values.
struct XlaInteropHandlers {
  const char* label;  // "v03" or "v05"
  int minor;          // the FFI minor version of the header
#define XFFI_INTEROP_MEMBER(name) XLA_FFI_Handler* name;
  XFFI_INTEROP_HANDLERS(XFFI_INTEROP_MEMBER)
#undef XFFI_INTEROP_MEMBER
  XLA_FFI_Error* (*RegisterTypes)(const XLA_FFI_Api*);
  XLA_FFI_Error* (*RegisterHandlers)(const XLA_FFI_Api*, const char*);
  int64_t (*CounterTypeId)();
  int64_t (*ConfigTypeId)();
  void* (*NewConfig)(int64_t);
  void (*DeleteConfig)(void*);
  int (*HeaderMinor)();
};

// GoogleTest prints parameters in test listings; the label says it all.
inline void PrintTo(const XlaInteropHandlers& handlers, std::ostream* os) {
  *os << handlers.label;
}

#define XFFI_MAKE_INTEROP_HANDLERS(P, label, minor)                           \
  XlaInteropHandlers {                                                        \
    label, minor,                                                             \
        XFFI_INTEROP_HANDLERS(XFFI_INTEROP_INIT_##P) P##RegisterTypes,        \
        P##RegisterHandlers, P##CounterTypeId, P##ConfigTypeId, P##NewConfig, \
        P##DeleteConfig, P##HeaderMinor                                       \
  }
#define XFFI_INTEROP_INIT_XlaV03_(name) XlaV03_##name,
#define XFFI_INTEROP_INIT_XlaV05_(name) XlaV05_##name,

#endif  // XFFI_TESTS_XLA_XLA_INTEROP_SYMBOLS_H_
