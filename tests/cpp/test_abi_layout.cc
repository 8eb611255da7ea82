// Pins every layout fact of include/xffi/c_api.h: each struct's size and
// alignment, each field's offset and size, each STRUCT_SIZE constant and
// each enum value, for the FFI 0.5 layouts, the 0.3 compatibility spellings
// and xffi's own extension structs. The values are the ABI: they were
// checked against jaxlib's official headers (tests/cpp/xla/test_abi_compare)
// and must never change. Each fact is asserted at compile time and reported
// again at run time, so a failing build and a test report name the same
// fact.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include <gtest/gtest.h>

#include "xffi/c_api.h"

namespace {

// clang-format off
#define XFFI_LAYOUT_PINS(PIN) \
  PIN(sizeof(XLA_FFI_Api_Version), 24) \
  PIN(alignof(XLA_FFI_Api_Version), 8) \
  PIN(offsetof(XLA_FFI_Api_Version, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Api_Version>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Api_Version, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Api_Version>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Api_Version, major_version), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Api_Version>().major_version), 4) \
  PIN(offsetof(XLA_FFI_Api_Version, minor_version), 20) \
  PIN(sizeof(std::declval<XLA_FFI_Api_Version>().minor_version), 4) \
  PIN(XLA_FFI_Api_Version_STRUCT_SIZE, 24) \
  PIN(sizeof(XLA_FFI_Error_Create_Args), 32) \
  PIN(alignof(XLA_FFI_Error_Create_Args), 8) \
  PIN(offsetof(XLA_FFI_Error_Create_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Error_Create_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Error_Create_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Error_Create_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Error_Create_Args, message), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Error_Create_Args>().message), 8) \
  PIN(offsetof(XLA_FFI_Error_Create_Args, errc), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Error_Create_Args>().errc), 4) \
  PIN(XLA_FFI_Error_Create_Args_STRUCT_SIZE, 28) \
  PIN(sizeof(XLA_FFI_Error_Destroy_Args), 24) \
  PIN(alignof(XLA_FFI_Error_Destroy_Args), 8) \
  PIN(offsetof(XLA_FFI_Error_Destroy_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Error_Destroy_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Error_Destroy_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Error_Destroy_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Error_Destroy_Args, error), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Error_Destroy_Args>().error), 8) \
  PIN(XLA_FFI_Error_Destroy_Args_STRUCT_SIZE, 24) \
  PIN(sizeof(XLA_FFI_Buffer), 48) \
  PIN(alignof(XLA_FFI_Buffer), 8) \
  PIN(offsetof(XLA_FFI_Buffer, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Buffer>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Buffer, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Buffer>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Buffer, dtype), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Buffer>().dtype), 4) \
  PIN(offsetof(XLA_FFI_Buffer, data), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Buffer>().data), 8) \
  PIN(offsetof(XLA_FFI_Buffer, rank), 32) \
  PIN(sizeof(std::declval<XLA_FFI_Buffer>().rank), 8) \
  PIN(offsetof(XLA_FFI_Buffer, dims), 40) \
  PIN(sizeof(std::declval<XLA_FFI_Buffer>().dims), 8) \
  PIN(XLA_FFI_Buffer_STRUCT_SIZE, 48) \
  PIN(sizeof(XLA_FFI_ByteSpan), 16) \
  PIN(alignof(XLA_FFI_ByteSpan), 8) \
  PIN(offsetof(XLA_FFI_ByteSpan, ptr), 0) \
  PIN(sizeof(std::declval<XLA_FFI_ByteSpan>().ptr), 8) \
  PIN(offsetof(XLA_FFI_ByteSpan, len), 8) \
  PIN(sizeof(std::declval<XLA_FFI_ByteSpan>().len), 8) \
  PIN(sizeof(XLA_FFI_Scalar), 16) \
  PIN(alignof(XLA_FFI_Scalar), 8) \
  PIN(offsetof(XLA_FFI_Scalar, dtype), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Scalar>().dtype), 4) \
  PIN(offsetof(XLA_FFI_Scalar, value), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Scalar>().value), 8) \
  PIN(sizeof(XLA_FFI_Array), 24) \
  PIN(alignof(XLA_FFI_Array), 8) \
  PIN(offsetof(XLA_FFI_Array, dtype), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Array>().dtype), 4) \
  PIN(offsetof(XLA_FFI_Array, size), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Array>().size), 8) \
  PIN(offsetof(XLA_FFI_Array, data), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Array>().data), 8) \
  PIN(sizeof(XLA_FFI_TypeId), 8) \
  PIN(alignof(XLA_FFI_TypeId), 8) \
  PIN(offsetof(XLA_FFI_TypeId, type_id), 0) \
  PIN(sizeof(std::declval<XLA_FFI_TypeId>().type_id), 8) \
  PIN(sizeof(XLA_FFI_TypeInfo), 24) \
  PIN(alignof(XLA_FFI_TypeInfo), 8) \
  PIN(offsetof(XLA_FFI_TypeInfo, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_TypeInfo>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_TypeInfo, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_TypeInfo>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_TypeInfo, deleter), 16) \
  PIN(sizeof(std::declval<XLA_FFI_TypeInfo>().deleter), 8) \
  PIN(XLA_FFI_TypeInfo_STRUCT_SIZE, 24) \
  PIN(sizeof(XLA_FFI_Future_Create_Args), 24) \
  PIN(alignof(XLA_FFI_Future_Create_Args), 8) \
  PIN(offsetof(XLA_FFI_Future_Create_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Future_Create_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Future_Create_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Future_Create_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Future_Create_Args, future), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Future_Create_Args>().future), 8) \
  PIN(XLA_FFI_Future_Create_Args_STRUCT_SIZE, 16) \
  PIN(sizeof(XLA_FFI_Future_SetAvailable_Args), 24) \
  PIN(alignof(XLA_FFI_Future_SetAvailable_Args), 8) \
  PIN(offsetof(XLA_FFI_Future_SetAvailable_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Future_SetAvailable_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Future_SetAvailable_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Future_SetAvailable_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Future_SetAvailable_Args, future), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Future_SetAvailable_Args>().future), 8) \
  PIN(XLA_FFI_Future_SetAvailable_Args_STRUCT_SIZE, 24) \
  PIN(sizeof(XLA_FFI_Future_SetError_Args), 32) \
  PIN(alignof(XLA_FFI_Future_SetError_Args), 8) \
  PIN(offsetof(XLA_FFI_Future_SetError_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Future_SetError_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Future_SetError_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Future_SetError_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Future_SetError_Args, future), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Future_SetError_Args>().future), 8) \
  PIN(offsetof(XLA_FFI_Future_SetError_Args, error), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Future_SetError_Args>().error), 8) \
  PIN(XLA_FFI_Future_SetError_Args_STRUCT_SIZE, 32) \
  PIN(sizeof(XLA_FFI_Args), 40) \
  PIN(alignof(XLA_FFI_Args), 8) \
  PIN(offsetof(XLA_FFI_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Args, size), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Args>().size), 8) \
  PIN(offsetof(XLA_FFI_Args, types), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Args>().types), 8) \
  PIN(offsetof(XLA_FFI_Args, args), 32) \
  PIN(sizeof(std::declval<XLA_FFI_Args>().args), 8) \
  PIN(XLA_FFI_Args_STRUCT_SIZE, 40) \
  PIN(sizeof(XLA_FFI_Rets), 40) \
  PIN(alignof(XLA_FFI_Rets), 8) \
  PIN(offsetof(XLA_FFI_Rets, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Rets>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Rets, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Rets>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Rets, size), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Rets>().size), 8) \
  PIN(offsetof(XLA_FFI_Rets, types), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Rets>().types), 8) \
  PIN(offsetof(XLA_FFI_Rets, rets), 32) \
  PIN(sizeof(std::declval<XLA_FFI_Rets>().rets), 8) \
  PIN(XLA_FFI_Rets_STRUCT_SIZE, 40) \
  PIN(sizeof(XLA_FFI_Attrs), 48) \
  PIN(alignof(XLA_FFI_Attrs), 8) \
  PIN(offsetof(XLA_FFI_Attrs, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Attrs>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Attrs, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Attrs>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Attrs, size), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Attrs>().size), 8) \
  PIN(offsetof(XLA_FFI_Attrs, types), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Attrs>().types), 8) \
  PIN(offsetof(XLA_FFI_Attrs, names), 32) \
  PIN(sizeof(std::declval<XLA_FFI_Attrs>().names), 8) \
  PIN(offsetof(XLA_FFI_Attrs, attrs), 40) \
  PIN(sizeof(std::declval<XLA_FFI_Attrs>().attrs), 8) \
  PIN(XLA_FFI_Attrs_STRUCT_SIZE, 48) \
  PIN(sizeof(XLA_FFI_CallFrame), 176) \
  PIN(alignof(XLA_FFI_CallFrame), 8) \
  PIN(offsetof(XLA_FFI_CallFrame, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_CallFrame>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_CallFrame, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_CallFrame>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_CallFrame, api), 16) \
  PIN(sizeof(std::declval<XLA_FFI_CallFrame>().api), 8) \
  PIN(offsetof(XLA_FFI_CallFrame, ctx), 24) \
  PIN(sizeof(std::declval<XLA_FFI_CallFrame>().ctx), 8) \
  PIN(offsetof(XLA_FFI_CallFrame, stage), 32) \
  PIN(sizeof(std::declval<XLA_FFI_CallFrame>().stage), 4) \
  PIN(offsetof(XLA_FFI_CallFrame, args), 40) \
  PIN(sizeof(std::declval<XLA_FFI_CallFrame>().args), 40) \
  PIN(offsetof(XLA_FFI_CallFrame, rets), 80) \
  PIN(sizeof(std::declval<XLA_FFI_CallFrame>().rets), 40) \
  PIN(offsetof(XLA_FFI_CallFrame, attrs), 120) \
  PIN(sizeof(std::declval<XLA_FFI_CallFrame>().attrs), 48) \
  PIN(offsetof(XLA_FFI_CallFrame, future), 168) \
  PIN(sizeof(std::declval<XLA_FFI_CallFrame>().future), 8) \
  PIN(XLA_FFI_CallFrame_STRUCT_SIZE, 168) \
  PIN(sizeof(XLA_FFI_Handler_Bundle), 40) \
  PIN(alignof(XLA_FFI_Handler_Bundle), 8) \
  PIN(offsetof(XLA_FFI_Handler_Bundle, instantiate), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Handler_Bundle>().instantiate), 8) \
  PIN(offsetof(XLA_FFI_Handler_Bundle, prepare), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Handler_Bundle>().prepare), 8) \
  PIN(offsetof(XLA_FFI_Handler_Bundle, initialize), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Handler_Bundle>().initialize), 8) \
  PIN(offsetof(XLA_FFI_Handler_Bundle, execute), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Handler_Bundle>().execute), 8) \
  PIN(sizeof(XLA_FFI_Handler_Register_Args), 96) \
  PIN(alignof(XLA_FFI_Handler_Register_Args), 8) \
  PIN(offsetof(XLA_FFI_Handler_Register_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Handler_Register_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Handler_Register_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Handler_Register_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Handler_Register_Args, name), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Handler_Register_Args>().name), 16) \
  PIN(offsetof(XLA_FFI_Handler_Register_Args, platform), 32) \
  PIN(sizeof(std::declval<XLA_FFI_Handler_Register_Args>().platform), 16) \
  PIN(offsetof(XLA_FFI_Handler_Register_Args, bundle), 48) \
  PIN(sizeof(std::declval<XLA_FFI_Handler_Register_Args>().bundle), 40) \
  PIN(offsetof(XLA_FFI_Handler_Register_Args, traits), 88) \
  PIN(sizeof(std::declval<XLA_FFI_Handler_Register_Args>().traits), 4) \
  PIN(XLA_FFI_Handler_Register_Args_STRUCT_SIZE, 92) \
  PIN(sizeof(XLA_FFI_Type_Register_Args), 48) \
  PIN(alignof(XLA_FFI_Type_Register_Args), 8) \
  PIN(offsetof(XLA_FFI_Type_Register_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Type_Register_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Type_Register_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Type_Register_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Type_Register_Args, name), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Type_Register_Args>().name), 16) \
  PIN(offsetof(XLA_FFI_Type_Register_Args, type_id), 32) \
  PIN(sizeof(std::declval<XLA_FFI_Type_Register_Args>().type_id), 8) \
  PIN(offsetof(XLA_FFI_Type_Register_Args, type_info), 40) \
  PIN(sizeof(std::declval<XLA_FFI_Type_Register_Args>().type_info), 8) \
  PIN(XLA_FFI_Type_Register_Args_STRUCT_SIZE, 40) \
  PIN(sizeof(XLA_FFI_State_Set_Args), 48) \
  PIN(alignof(XLA_FFI_State_Set_Args), 8) \
  PIN(offsetof(XLA_FFI_State_Set_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_State_Set_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_State_Set_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_State_Set_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_State_Set_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_State_Set_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_State_Set_Args, stage), 24) \
  PIN(sizeof(std::declval<XLA_FFI_State_Set_Args>().stage), 4) \
  PIN(offsetof(XLA_FFI_State_Set_Args, type_id), 32) \
  PIN(sizeof(std::declval<XLA_FFI_State_Set_Args>().type_id), 8) \
  PIN(offsetof(XLA_FFI_State_Set_Args, state), 40) \
  PIN(sizeof(std::declval<XLA_FFI_State_Set_Args>().state), 8) \
  PIN(XLA_FFI_State_Set_Args_STRUCT_SIZE, 48) \
  PIN(sizeof(XLA_FFI_State_Get_Args), 48) \
  PIN(alignof(XLA_FFI_State_Get_Args), 8) \
  PIN(offsetof(XLA_FFI_State_Get_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_State_Get_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_State_Get_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_State_Get_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_State_Get_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_State_Get_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_State_Get_Args, stage), 24) \
  PIN(sizeof(std::declval<XLA_FFI_State_Get_Args>().stage), 4) \
  PIN(offsetof(XLA_FFI_State_Get_Args, type_id), 32) \
  PIN(sizeof(std::declval<XLA_FFI_State_Get_Args>().type_id), 8) \
  PIN(offsetof(XLA_FFI_State_Get_Args, state), 40) \
  PIN(sizeof(std::declval<XLA_FFI_State_Get_Args>().state), 8) \
  PIN(XLA_FFI_State_Get_Args_STRUCT_SIZE, 48) \
  PIN(sizeof(XLA_FFI_Stream_Get_Args), 32) \
  PIN(alignof(XLA_FFI_Stream_Get_Args), 8) \
  PIN(offsetof(XLA_FFI_Stream_Get_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Stream_Get_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Stream_Get_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Stream_Get_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Stream_Get_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Stream_Get_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_Stream_Get_Args, stream), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Stream_Get_Args>().stream), 8) \
  PIN(XLA_FFI_Stream_Get_Args_STRUCT_SIZE, 32) \
  PIN(sizeof(XLA_FFI_DeviceMemory_Allocate_Args), 48) \
  PIN(alignof(XLA_FFI_DeviceMemory_Allocate_Args), 8) \
  PIN(offsetof(XLA_FFI_DeviceMemory_Allocate_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceMemory_Allocate_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_DeviceMemory_Allocate_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceMemory_Allocate_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_DeviceMemory_Allocate_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceMemory_Allocate_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_DeviceMemory_Allocate_Args, size), 24) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceMemory_Allocate_Args>().size), 8) \
  PIN(offsetof(XLA_FFI_DeviceMemory_Allocate_Args, alignment), 32) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceMemory_Allocate_Args>().alignment), 8) \
  PIN(offsetof(XLA_FFI_DeviceMemory_Allocate_Args, data), 40) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceMemory_Allocate_Args>().data), 8) \
  PIN(XLA_FFI_DeviceMemory_Allocate_Args_STRUCT_SIZE, 48) \
  PIN(sizeof(XLA_FFI_DeviceMemory_Free_Args), 40) \
  PIN(alignof(XLA_FFI_DeviceMemory_Free_Args), 8) \
  PIN(offsetof(XLA_FFI_DeviceMemory_Free_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceMemory_Free_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_DeviceMemory_Free_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceMemory_Free_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_DeviceMemory_Free_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceMemory_Free_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_DeviceMemory_Free_Args, size), 24) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceMemory_Free_Args>().size), 8) \
  PIN(offsetof(XLA_FFI_DeviceMemory_Free_Args, data), 32) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceMemory_Free_Args>().data), 8) \
  PIN(XLA_FFI_DeviceMemory_Free_Args_STRUCT_SIZE, 40) \
  PIN(sizeof(XLA_FFI_ThreadPool_Schedule_Args), 40) \
  PIN(alignof(XLA_FFI_ThreadPool_Schedule_Args), 8) \
  PIN(offsetof(XLA_FFI_ThreadPool_Schedule_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_ThreadPool_Schedule_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_ThreadPool_Schedule_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_ThreadPool_Schedule_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_ThreadPool_Schedule_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_ThreadPool_Schedule_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_ThreadPool_Schedule_Args, task), 24) \
  PIN(sizeof(std::declval<XLA_FFI_ThreadPool_Schedule_Args>().task), 8) \
  PIN(offsetof(XLA_FFI_ThreadPool_Schedule_Args, data), 32) \
  PIN(sizeof(std::declval<XLA_FFI_ThreadPool_Schedule_Args>().data), 8) \
  PIN(XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE, 40) \
  PIN(sizeof(XLA_FFI_ThreadPool_NumThreads_Args), 32) \
  PIN(alignof(XLA_FFI_ThreadPool_NumThreads_Args), 8) \
  PIN(offsetof(XLA_FFI_ThreadPool_NumThreads_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_ThreadPool_NumThreads_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_ThreadPool_NumThreads_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_ThreadPool_NumThreads_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_ThreadPool_NumThreads_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_ThreadPool_NumThreads_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_ThreadPool_NumThreads_Args, num_threads), 24) \
  PIN(sizeof(std::declval<XLA_FFI_ThreadPool_NumThreads_Args>().num_threads), 8) \
  PIN(XLA_FFI_ThreadPool_NumThreads_Args_STRUCT_SIZE, 32) \
  PIN(sizeof(XLA_FFI_RunId_Get_Args), 32) \
  PIN(alignof(XLA_FFI_RunId_Get_Args), 8) \
  PIN(offsetof(XLA_FFI_RunId_Get_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_RunId_Get_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_RunId_Get_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_RunId_Get_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_RunId_Get_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_RunId_Get_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_RunId_Get_Args, run_id), 24) \
  PIN(sizeof(std::declval<XLA_FFI_RunId_Get_Args>().run_id), 8) \
  PIN(XLA_FFI_RunId_Get_Args_STRUCT_SIZE, 32) \
  PIN(sizeof(XLA_FFI_DeviceOrdinal_Get_Args), 32) \
  PIN(alignof(XLA_FFI_DeviceOrdinal_Get_Args), 8) \
  PIN(offsetof(XLA_FFI_DeviceOrdinal_Get_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceOrdinal_Get_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_DeviceOrdinal_Get_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceOrdinal_Get_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_DeviceOrdinal_Get_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceOrdinal_Get_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_DeviceOrdinal_Get_Args, device_ordinal), 24) \
  PIN(sizeof(std::declval<XLA_FFI_DeviceOrdinal_Get_Args>().device_ordinal), 4) \
  PIN(XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE, 28) \
  PIN(sizeof(XLA_FFI_Metadata), 48) \
  PIN(alignof(XLA_FFI_Metadata), 8) \
  PIN(offsetof(XLA_FFI_Metadata, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Metadata>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Metadata, api_version), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Metadata>().api_version), 24) \
  PIN(offsetof(XLA_FFI_Metadata, traits), 32) \
  PIN(sizeof(std::declval<XLA_FFI_Metadata>().traits), 4) \
  PIN(offsetof(XLA_FFI_Metadata, state_type_id), 40) \
  PIN(sizeof(std::declval<XLA_FFI_Metadata>().state_type_id), 8) \
  PIN(XLA_FFI_Metadata_STRUCT_SIZE, 36) \
  PIN(sizeof(XLA_FFI_Metadata_Extension), 32) \
  PIN(alignof(XLA_FFI_Metadata_Extension), 8) \
  PIN(offsetof(XLA_FFI_Metadata_Extension, extension_base), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Metadata_Extension>().extension_base), 24) \
  PIN(offsetof(XLA_FFI_Metadata_Extension, metadata), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Metadata_Extension>().metadata), 8) \
  PIN(XLA_FFI_Metadata_Extension_STRUCT_SIZE, 32) \
  PIN(sizeof(XLA_FFI_Api), 208) \
  PIN(alignof(XLA_FFI_Api), 8) \
  PIN(offsetof(XLA_FFI_Api, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Api, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Api, api_version), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().api_version), 24) \
  PIN(offsetof(XLA_FFI_Api, internal_api), 40) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().internal_api), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_Error_Create), 48) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_Error_Create), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_Error_Destroy), 64) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_Error_Destroy), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_Handler_Register), 72) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_Handler_Register), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_Stream_Get), 80) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_Stream_Get), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_Type_Register), 88) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_Type_Register), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_State_Set), 104) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_State_Set), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_State_Get), 112) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_State_Get), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_DeviceMemory_Allocate), 120) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_DeviceMemory_Allocate), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_DeviceMemory_Free), 128) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_DeviceMemory_Free), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_ThreadPool_Schedule), 136) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_ThreadPool_Schedule), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_ThreadPool_NumThreads), 144) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_ThreadPool_NumThreads), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_Future_Create), 152) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_Future_Create), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_Future_SetAvailable), 160) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_Future_SetAvailable), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_Future_SetError), 168) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_Future_SetError), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_RunId_Get), 176) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_RunId_Get), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_DeviceOrdinal_Get), 184) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_DeviceOrdinal_Get), 8) \
  PIN(XLA_FFI_Api_STRUCT_SIZE, 208) \
  PIN(XLA_FFI_Extension_Metadata, 1) \
  PIN(XLA_FFI_Error_Code_OK, 0) \
  PIN(XLA_FFI_Error_Code_CANCELLED, 1) \
  PIN(XLA_FFI_Error_Code_UNKNOWN, 2) \
  PIN(XLA_FFI_Error_Code_INVALID_ARGUMENT, 3) \
  PIN(XLA_FFI_Error_Code_DEADLINE_EXCEEDED, 4) \
  PIN(XLA_FFI_Error_Code_NOT_FOUND, 5) \
  PIN(XLA_FFI_Error_Code_ALREADY_EXISTS, 6) \
  PIN(XLA_FFI_Error_Code_PERMISSION_DENIED, 7) \
  PIN(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, 8) \
  PIN(XLA_FFI_Error_Code_FAILED_PRECONDITION, 9) \
  PIN(XLA_FFI_Error_Code_ABORTED, 10) \
  PIN(XLA_FFI_Error_Code_OUT_OF_RANGE, 11) \
  PIN(XLA_FFI_Error_Code_UNIMPLEMENTED, 12) \
  PIN(XLA_FFI_Error_Code_INTERNAL, 13) \
  PIN(XLA_FFI_Error_Code_UNAVAILABLE, 14) \
  PIN(XLA_FFI_Error_Code_DATA_LOSS, 15) \
  PIN(XLA_FFI_Error_Code_UNAUTHENTICATED, 16) \
  PIN(XLA_FFI_DataType_INVALID, 0) \
  PIN(XLA_FFI_DataType_PRED, 1) \
  PIN(XLA_FFI_DataType_S1, 30) \
  PIN(XLA_FFI_DataType_S2, 26) \
  PIN(XLA_FFI_DataType_S4, 21) \
  PIN(XLA_FFI_DataType_S8, 2) \
  PIN(XLA_FFI_DataType_S16, 3) \
  PIN(XLA_FFI_DataType_S32, 4) \
  PIN(XLA_FFI_DataType_S64, 5) \
  PIN(XLA_FFI_DataType_U1, 31) \
  PIN(XLA_FFI_DataType_U2, 27) \
  PIN(XLA_FFI_DataType_U4, 22) \
  PIN(XLA_FFI_DataType_U8, 6) \
  PIN(XLA_FFI_DataType_U16, 7) \
  PIN(XLA_FFI_DataType_U32, 8) \
  PIN(XLA_FFI_DataType_U64, 9) \
  PIN(XLA_FFI_DataType_F16, 10) \
  PIN(XLA_FFI_DataType_F32, 11) \
  PIN(XLA_FFI_DataType_F64, 12) \
  PIN(XLA_FFI_DataType_BF16, 16) \
  PIN(XLA_FFI_DataType_C64, 15) \
  PIN(XLA_FFI_DataType_C128, 18) \
  PIN(XLA_FFI_DataType_TOKEN, 17) \
  PIN(XLA_FFI_DataType_F8E5M2, 19) \
  PIN(XLA_FFI_DataType_F8E3M4, 29) \
  PIN(XLA_FFI_DataType_F8E4M3, 28) \
  PIN(XLA_FFI_DataType_F8E4M3FN, 20) \
  PIN(XLA_FFI_DataType_F8E4M3B11FNUZ, 23) \
  PIN(XLA_FFI_DataType_F8E5M2FNUZ, 24) \
  PIN(XLA_FFI_DataType_F8E4M3FNUZ, 25) \
  PIN(XLA_FFI_DataType_F4E2M1FN, 32) \
  PIN(XLA_FFI_DataType_F8E8M0FNU, 33) \
  PIN(XLA_FFI_ArgType_BUFFER, 1) \
  PIN(XLA_FFI_RetType_BUFFER, 1) \
  PIN(XLA_FFI_AttrType_ARRAY, 1) \
  PIN(XLA_FFI_AttrType_DICTIONARY, 2) \
  PIN(XLA_FFI_AttrType_SCALAR, 3) \
  PIN(XLA_FFI_AttrType_STRING, 4) \
  PIN(XLA_FFI_ExecutionStage_INSTANTIATE, 0) \
  PIN(XLA_FFI_ExecutionStage_PREPARE, 1) \
  PIN(XLA_FFI_ExecutionStage_INITIALIZE, 2) \
  PIN(XLA_FFI_ExecutionStage_EXECUTE, 3) \
  PIN(XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE, 1) \
  PIN(sizeof(XLA_FFI_InternalExtension), 24) \
  PIN(alignof(XLA_FFI_InternalExtension), 8) \
  PIN(offsetof(XLA_FFI_InternalExtension, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_InternalExtension>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_InternalExtension, type), 8) \
  PIN(sizeof(std::declval<XLA_FFI_InternalExtension>().type), 4) \
  PIN(offsetof(XLA_FFI_InternalExtension, next), 16) \
  PIN(sizeof(std::declval<XLA_FFI_InternalExtension>().next), 8) \
  PIN(XLA_FFI_InternalExtension_STRUCT_SIZE, 24) \
  PIN(sizeof(XLA_FFI_ExtensionId), 16) \
  PIN(alignof(XLA_FFI_ExtensionId), 8) \
  PIN(offsetof(XLA_FFI_ExtensionId, extension_type), 0) \
  PIN(sizeof(std::declval<XLA_FFI_ExtensionId>().extension_type), 8) \
  PIN(offsetof(XLA_FFI_ExtensionId, major_version), 8) \
  PIN(sizeof(std::declval<XLA_FFI_ExtensionId>().major_version), 4) \
  PIN(offsetof(XLA_FFI_ExtensionId, minor_version), 12) \
  PIN(sizeof(std::declval<XLA_FFI_ExtensionId>().minor_version), 4) \
  PIN(XLA_FFI_ExtensionId_STRUCT_SIZE, 16) \
  PIN(sizeof(XLA_FFI_Extension), 32) \
  PIN(alignof(XLA_FFI_Extension), 8) \
  PIN(offsetof(XLA_FFI_Extension, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Extension>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Extension, id), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Extension>().id), 16) \
  PIN(offsetof(XLA_FFI_Extension, next), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Extension>().next), 8) \
  PIN(XLA_FFI_Extension_STRUCT_SIZE, 32) \
  PIN(sizeof(XLA_FFI_Error_GetDetails_Args), 40) \
  PIN(alignof(XLA_FFI_Error_GetDetails_Args), 8) \
  PIN(offsetof(XLA_FFI_Error_GetDetails_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Error_GetDetails_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Error_GetDetails_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Error_GetDetails_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Error_GetDetails_Args, error), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Error_GetDetails_Args>().error), 8) \
  PIN(offsetof(XLA_FFI_Error_GetDetails_Args, message), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Error_GetDetails_Args>().message), 8) \
  PIN(offsetof(XLA_FFI_Error_GetDetails_Args, errc), 32) \
  PIN(sizeof(std::declval<XLA_FFI_Error_GetDetails_Args>().errc), 4) \
  PIN(XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE, 36) \
  PIN(offsetof(XLA_FFI_Handler_Bundle, record), 32) \
  PIN(sizeof(std::declval<XLA_FFI_Handler_Bundle>().record), 8) \
  PIN(sizeof(XLA_FFI_InvokeContext_FindExtension_Args), 40) \
  PIN(alignof(XLA_FFI_InvokeContext_FindExtension_Args), 8) \
  PIN(offsetof(XLA_FFI_InvokeContext_FindExtension_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_InvokeContext_FindExtension_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_InvokeContext_FindExtension_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_InvokeContext_FindExtension_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_InvokeContext_FindExtension_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_InvokeContext_FindExtension_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_InvokeContext_FindExtension_Args, extension_type), 24) \
  PIN(sizeof(std::declval<XLA_FFI_InvokeContext_FindExtension_Args>().extension_type), 8) \
  PIN(offsetof(XLA_FFI_InvokeContext_FindExtension_Args, extension), 32) \
  PIN(sizeof(std::declval<XLA_FFI_InvokeContext_FindExtension_Args>().extension), 8) \
  PIN(XLA_FFI_InvokeContext_FindExtension_Args_STRUCT_SIZE, 40) \
  PIN(sizeof(XLA_FFI_InvokeContext_Get_Args), 40) \
  PIN(alignof(XLA_FFI_InvokeContext_Get_Args), 8) \
  PIN(offsetof(XLA_FFI_InvokeContext_Get_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_InvokeContext_Get_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_InvokeContext_Get_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_InvokeContext_Get_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_InvokeContext_Get_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_InvokeContext_Get_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_InvokeContext_Get_Args, type_id), 24) \
  PIN(sizeof(std::declval<XLA_FFI_InvokeContext_Get_Args>().type_id), 8) \
  PIN(offsetof(XLA_FFI_InvokeContext_Get_Args, data), 32) \
  PIN(sizeof(std::declval<XLA_FFI_InvokeContext_Get_Args>().data), 8) \
  PIN(XLA_FFI_InvokeContext_Get_Args_STRUCT_SIZE, 40) \
  PIN(sizeof(XLA_FFI_CustomOptions_Get_Args), 32) \
  PIN(alignof(XLA_FFI_CustomOptions_Get_Args), 8) \
  PIN(offsetof(XLA_FFI_CustomOptions_Get_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_CustomOptions_Get_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_CustomOptions_Get_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_CustomOptions_Get_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_CustomOptions_Get_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_CustomOptions_Get_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_CustomOptions_Get_Args, attrs), 24) \
  PIN(sizeof(std::declval<XLA_FFI_CustomOptions_Get_Args>().attrs), 8) \
  PIN(XLA_FFI_CustomOptions_Get_Args_STRUCT_SIZE, 32) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_Error_GetDetails), 56) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_Error_GetDetails), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_InvokeContext_Get), 96) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_InvokeContext_Get), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_InvokeContext_FindExtension), 192) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_InvokeContext_FindExtension), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_CustomOptions_Get), 200) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_CustomOptions_Get), 8) \
  PIN(XLA_FFI_ExecutionStage_RECORD, 4) \
  PIN(sizeof(XLA_FFI_Extension_Base), 24) \
  PIN(alignof(XLA_FFI_Extension_Base), 8) \
  PIN(offsetof(XLA_FFI_Extension_Base, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Extension_Base>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Extension_Base, type), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Extension_Base>().type), 4) \
  PIN(offsetof(XLA_FFI_Extension_Base, next), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Extension_Base>().next), 8) \
  PIN(XLA_FFI_Extension_Base_STRUCT_SIZE, 24) \
  PIN(sizeof(XLA_FFI_Error_GetMessage_Args), 32) \
  PIN(alignof(XLA_FFI_Error_GetMessage_Args), 8) \
  PIN(offsetof(XLA_FFI_Error_GetMessage_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_Error_GetMessage_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_Error_GetMessage_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_Error_GetMessage_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_Error_GetMessage_Args, error), 16) \
  PIN(sizeof(std::declval<XLA_FFI_Error_GetMessage_Args>().error), 8) \
  PIN(offsetof(XLA_FFI_Error_GetMessage_Args, message), 24) \
  PIN(sizeof(std::declval<XLA_FFI_Error_GetMessage_Args>().message), 8) \
  PIN(XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE, 32) \
  PIN(sizeof(XLA_FFI_ExecutionContext_Get_Args), 40) \
  PIN(alignof(XLA_FFI_ExecutionContext_Get_Args), 8) \
  PIN(offsetof(XLA_FFI_ExecutionContext_Get_Args, struct_size), 0) \
  PIN(sizeof(std::declval<XLA_FFI_ExecutionContext_Get_Args>().struct_size), 8) \
  PIN(offsetof(XLA_FFI_ExecutionContext_Get_Args, extension_start), 8) \
  PIN(sizeof(std::declval<XLA_FFI_ExecutionContext_Get_Args>().extension_start), 8) \
  PIN(offsetof(XLA_FFI_ExecutionContext_Get_Args, ctx), 16) \
  PIN(sizeof(std::declval<XLA_FFI_ExecutionContext_Get_Args>().ctx), 8) \
  PIN(offsetof(XLA_FFI_ExecutionContext_Get_Args, type_id), 24) \
  PIN(sizeof(std::declval<XLA_FFI_ExecutionContext_Get_Args>().type_id), 8) \
  PIN(offsetof(XLA_FFI_ExecutionContext_Get_Args, data), 32) \
  PIN(sizeof(std::declval<XLA_FFI_ExecutionContext_Get_Args>().data), 8) \
  PIN(XLA_FFI_ExecutionContext_Get_Args_STRUCT_SIZE, 40) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_Error_GetMessage), 56) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_Error_GetMessage), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_ExecutionContext_Get), 96) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_ExecutionContext_Get), 8) \
  PIN(sizeof(XFFI_Param), 40) \
  PIN(alignof(XFFI_Param), 8) \
  PIN(offsetof(XFFI_Param, kind), 0) \
  PIN(sizeof(std::declval<XFFI_Param>().kind), 4) \
  PIN(offsetof(XFFI_Param, dtype), 4) \
  PIN(sizeof(std::declval<XFFI_Param>().dtype), 4) \
  PIN(offsetof(XFFI_Param, rank), 8) \
  PIN(sizeof(std::declval<XFFI_Param>().rank), 8) \
  PIN(offsetof(XFFI_Param, attr_type), 16) \
  PIN(sizeof(std::declval<XFFI_Param>().attr_type), 4) \
  PIN(offsetof(XFFI_Param, name), 24) \
  PIN(sizeof(std::declval<XFFI_Param>().name), 8) \
  PIN(offsetof(XFFI_Param, type_name), 32) \
  PIN(sizeof(std::declval<XFFI_Param>().type_name), 8) \
  PIN(sizeof(XFFI_Signature), 32) \
  PIN(alignof(XFFI_Signature), 8) \
  PIN(offsetof(XFFI_Signature, struct_size), 0) \
  PIN(sizeof(std::declval<XFFI_Signature>().struct_size), 8) \
  PIN(offsetof(XFFI_Signature, stage), 8) \
  PIN(sizeof(std::declval<XFFI_Signature>().stage), 4) \
  PIN(offsetof(XFFI_Signature, num_params), 16) \
  PIN(sizeof(std::declval<XFFI_Signature>().num_params), 8) \
  PIN(offsetof(XFFI_Signature, params), 24) \
  PIN(sizeof(std::declval<XFFI_Signature>().params), 8) \
  PIN(XFFI_Signature_STRUCT_SIZE, 32) \
  PIN(sizeof(XFFI_Signature_Extension), 32) \
  PIN(alignof(XFFI_Signature_Extension), 8) \
  PIN(offsetof(XFFI_Signature_Extension, extension_base), 0) \
  PIN(sizeof(std::declval<XFFI_Signature_Extension>().extension_base), 24) \
  PIN(offsetof(XFFI_Signature_Extension, signature), 24) \
  PIN(sizeof(std::declval<XFFI_Signature_Extension>().signature), 8) \
  PIN(XFFI_Signature_Extension_STRUCT_SIZE, 32) \
  PIN(XFFI_Param_ARG, 1) \
  PIN(XFFI_Param_RET, 2) \
  PIN(XFFI_Param_OPTIONAL_ARG, 3) \
  PIN(XFFI_Param_OPTIONAL_RET, 4) \
  PIN(XFFI_Param_REMAINING_ARGS, 5) \
  PIN(XFFI_Param_REMAINING_RETS, 6) \
  PIN(XFFI_Param_ATTR, 7) \
  PIN(XFFI_Param_ATTRS, 8) \
  PIN(XFFI_Param_CTX, 9) \
  PIN(XFFI_EXTENSION_SIGNATURE, 2019976809) \
  PIN(XFFI_Extension_Signature, 2019976809) \
  PIN(XFFI_API_MINOR_OLDEST, 1) \
  PIN(sizeof(XLA_FFI_TypeId_Register_Args), 48) \
  PIN(alignof(XLA_FFI_TypeId_Register_Args), 8) \
  PIN(offsetof(XLA_FFI_Api, XLA_FFI_TypeId_Register), 88) \
  PIN(sizeof(std::declval<XLA_FFI_Api>().XLA_FFI_TypeId_Register), 8) \
  PIN(sizeof(XLA_FFI_Extension_Type), 4) \
  PIN(sizeof(XLA_FFI_Handler_Traits), 4)

// clang-format on

#define XFFI_STATIC_PIN(fact, value)                   \
  static_assert(static_cast<int64_t>(fact) == (value), \
                #fact " must be " #value);
XFFI_LAYOUT_PINS(XFFI_STATIC_PIN)

struct Pin {
  const char* fact;
  int64_t actual;
  int64_t expected;
};

#define XFFI_TABLE_PIN(fact, value) {#fact, static_cast<int64_t>(fact), value},
const Pin kPins[] = {XFFI_LAYOUT_PINS(XFFI_TABLE_PIN)};

TEST(AbiLayout, EveryPinnedFactHolds) {
  for (const Pin& pin : kPins) {
    EXPECT_EQ(pin.actual, pin.expected) << pin.fact;
  }
}

TEST(AbiLayout, PinsCoverEveryStructOfTheHeader) {
  // 38 XLA structs (0.5 spellings), 3 spelled only in 0.3, 3 of xffi's own,
  // the TypeId_Register_Args alias, and the two enum-typed sizes
  // (XLA_FFI_Extension_Type, XLA_FFI_Handler_Traits).
  int structs = 0;
  for (const Pin& pin : kPins) {
    if (std::string_view(pin.fact).rfind("sizeof(XLA_FFI_", 0) == 0 ||
        std::string_view(pin.fact).rfind("sizeof(XFFI_", 0) == 0) {
      ++structs;
    }
  }
  EXPECT_EQ(structs, 47);
}

// Sizes the runtime relies on to tell versions apart (c_api.h explains
// each); spelled out separately so a reader finds them without the list.
TEST(AbiLayout, VersionDistinguishingSizes) {
  EXPECT_EQ(XLA_FFI_Handler_Register_Args_STRUCT_SIZE, 92);  // 0.3: 84
  EXPECT_EQ(offsetof(XLA_FFI_Handler_Register_Args, traits), 88u);
  EXPECT_EQ(sizeof(XLA_FFI_Handler_Bundle), 40u);  // 0.3: 32
  EXPECT_EQ(XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE, 36);
  EXPECT_EQ(XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE, 32);
  EXPECT_EQ(XLA_FFI_State_Set_Args_STRUCT_SIZE, 48);  // 0.1: 40
  EXPECT_EQ(XLA_FFI_State_Get_Args_STRUCT_SIZE, 48);
  EXPECT_EQ(XLA_FFI_Type_Register_Args_STRUCT_SIZE, 40);
  EXPECT_EQ(offsetof(XLA_FFI_Type_Register_Args, type_info), 40u);
  EXPECT_EQ(XLA_FFI_Api_STRUCT_SIZE, 208);        // 0.3: 192, 0.4: 200
  EXPECT_EQ(XLA_FFI_CallFrame_STRUCT_SIZE, 168);  // future lies outside
  EXPECT_EQ(offsetof(XLA_FFI_CallFrame, future), 168u);
  EXPECT_EQ(XLA_FFI_Metadata_STRUCT_SIZE, 36);  // state_type_id outside
  EXPECT_EQ(offsetof(XLA_FFI_Metadata, state_type_id), 40u);
}

TEST(AbiLayout, ApiHasMacroFollowsStructSize) {
  XLA_FFI_Api api{};
  api.struct_size = 192;  // a 0.3 table
  EXPECT_TRUE(XFFI_API_HAS(&api, XLA_FFI_DeviceOrdinal_Get));
  EXPECT_FALSE(XFFI_API_HAS(&api, XLA_FFI_InvokeContext_FindExtension));
  EXPECT_FALSE(XFFI_API_HAS(&api, XLA_FFI_CustomOptions_Get));
  api.struct_size = 200;  // 0.4
  EXPECT_TRUE(XFFI_API_HAS(&api, XLA_FFI_InvokeContext_FindExtension));
  EXPECT_FALSE(XFFI_API_HAS(&api, XLA_FFI_CustomOptions_Get));
  api.struct_size = XLA_FFI_Api_STRUCT_SIZE;
  EXPECT_TRUE(XFFI_API_HAS(&api, XLA_FFI_CustomOptions_Get));
}

TEST(AbiLayout, CompatibilitySpellingsAliasTheSameSlots) {
  XLA_FFI_Api api{};
  EXPECT_EQ(static_cast<void*>(&api.XLA_FFI_Error_GetDetails),
            static_cast<void*>(&api.XLA_FFI_Error_GetMessage));
  EXPECT_EQ(static_cast<void*>(&api.XLA_FFI_Type_Register),
            static_cast<void*>(&api.XLA_FFI_TypeId_Register));
  EXPECT_EQ(static_cast<void*>(&api.XLA_FFI_InvokeContext_Get),
            static_cast<void*>(&api.XLA_FFI_ExecutionContext_Get));
  EXPECT_STREQ(XFFI_EXPORT_MARKER_PREFIX, "xffi_export_");
}

}  // namespace
