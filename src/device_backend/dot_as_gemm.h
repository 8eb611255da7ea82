// xffi: a dot as one batched strided GEMM (device/gemm.h), which CudaDevice
// runs through cuBLAS and SimDevice on the host.
//
// dot's result is row-major [batch..., lhs free..., rhs free...], so it is
// always C = [B, M, N]. An operand is a matrix view when each of its groups
// of dimensions (batch, free, contracting) is contiguous in order, and its
// free or contracting group is innermost: then it is read in place,
// transposed or not, with a leading dimension and batch stride. Otherwise
// it is first copied into scratch in [batch, free, contracting] order
// (lhs) or [batch, contracting, free] (rhs). Element types cuBLAS lacks
// (integers, pred, mixed operand types) keep the contraction functor.
#ifndef XFFI_SRC_DEVICE_BACKEND_DOT_AS_GEMM_H_
#define XFFI_SRC_DEVICE_BACKEND_DOT_AS_GEMM_H_

#include <optional>
#include <string>
#include <vector>

#include "device/gemm.h"
#include "device_backend/device_kernels.h"
#include "device_backend/op_kernels.h"

namespace xffi::device_backend {

struct DotGemmPlan {
  device::Gemm gemm;  // data pointers null: bound at run time
  // The operand's copy into scratch in its matrix order, when it is no
  // matrix view in place (src and dst null until run time).
  std::optional<StridedCopyKernel> lhs_copy, rhs_copy;
};

// The GEMM type of an element type cuBLAS multiplies; nullopt for others.
std::optional<device::GemmType> GemmTypeOf(ElementType type);

// nullopt (with `why_not` set, for tests) for a dot the GEMM cannot run:
// its element types.
std::optional<DotGemmPlan> PlanDotAsGemm(const Instruction& dot,
                                         std::string* why_not = nullptr);

// The dot's launcher through Stream::MatrixMultiply, or nullopt when
// PlanDotAsGemm has none or an operand needs a copy and `scratch` is empty.
std::optional<Launcher> MakeGemmDotLauncher(
    const Instruction& dot, const std::vector<compiler::BufferId>& operands,
    compiler::BufferId result, const ReserveScratch& scratch);

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_DOT_AS_GEMM_H_
