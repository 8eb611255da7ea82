#include "ir/conv_net_shape_inference.h"

#include <string>
#include <vector>

#include "ir/inference_failure.h"
#include "runtime/status_macros.h"

namespace xffi {
namespace {

using inference::Fail;

std::string Text(const Shape& shape) { return shape.ToString(false); }

bool IsNumeric(ElementType type) {
  return type != ElementType::kPred &&
         (IsIntegralType(type) || IsFloatingType(type) || IsComplexType(type));
}

Status ExpectArrayOperands(const Instruction& in, int64_t n) {
  if (in.operand_count() != n)
    return Fail("takes ", n, " operands, got ", in.operand_count());
  for (int64_t i = 0; i < n; ++i)
    if (!in.operand(i)->shape().IsArray())
      return Fail("operand ", i, " must be an array, got ",
                  in.operand(i)->shape().ToString());
  return Status::Ok();
}

// `dims` (one role's dimensions of a rank-`rank` operand or result) name
// every dimension once.
Status CheckPermutation(const std::vector<int64_t>& dims, int64_t rank,
                        const char* what) {
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return Fail(what, " dimension ", d, " is out of range for rank ", rank);
    if (seen[static_cast<size_t>(d)])
      return Fail(what, " dimension ", d, " is named twice");
    seen[static_cast<size_t>(d)] = true;
  }
  return Status::Ok();
}

std::vector<int64_t> Roles(int64_t first, const std::vector<int64_t>& spatial,
                           int64_t last) {
  std::vector<int64_t> all = {first};
  all.insert(all.end(), spatial.begin(), spatial.end());
  all.push_back(last);
  return all;
}

// The number of window positions along one spatial dimension (the StableHLO
// specification's num_windows).
Status WindowCount(int64_t input, int64_t kernel, const WindowDimension& w,
                   int64_t spatial, int64_t* count) {
  if (w.stride <= 0 || w.base_dilation <= 0 || w.window_dilation <= 0)
    return Fail("window dimension ", spatial, " has stride ", w.stride,
                ", lhs_dilate ", w.base_dilation, ", rhs_dilate ",
                w.window_dilation, "; each must be positive");
  int64_t dilated_input = input == 0 ? 0 : (input - 1) * w.base_dilation + 1;
  int64_t padded = w.padding_low + dilated_input + w.padding_high;
  if (padded < 0)
    return Fail("padding ", w.padding_low, "_", w.padding_high,
                " leaves spatial dimension ", spatial, " with negative size");
  int64_t dilated_kernel =
      kernel == 0 ? 0 : (kernel - 1) * w.window_dilation + 1;
  *count = padded == 0 || dilated_kernel > padded
               ? 0
               : (padded - dilated_kernel) / w.stride + 1;
  return Status::Ok();
}

Status InferConvolution(const Instruction& in, Shape* out) {
  XFFI_RETURN_IF_ERROR(ExpectArrayOperands(in, 2));
  const Shape& lhs = in.operand(0)->shape();
  const Shape& rhs = in.operand(1)->shape();
  if (!IsNumeric(lhs.element_type()) || !IsNumeric(rhs.element_type()))
    return Fail("operands must be numeric, got ", Text(lhs), " and ",
                Text(rhs));
  if (lhs.rank() != rhs.rank())
    return Fail("lhs ", Text(lhs), " and rhs ", Text(rhs),
                " must have the same rank");
  const int64_t rank = lhs.rank();
  if (rank < 2)
    return Fail("operands need a batch and a feature dimension, got rank ",
                rank);
  const ConvolutionDimensionNumbers& dn = in.convolution_dimension_numbers;
  const size_t spatial = static_cast<size_t>(rank - 2);
  if (dn.input_spatial_dimensions.size() != spatial ||
      dn.kernel_spatial_dimensions.size() != spatial ||
      dn.output_spatial_dimensions.size() != spatial)
    return Fail("rank ", rank, " operands have ", spatial,
                " spatial dimensions; the dimension numbers name ",
                dn.input_spatial_dimensions.size(), " (input), ",
                dn.kernel_spatial_dimensions.size(), " (kernel) and ",
                dn.output_spatial_dimensions.size(), " (output)");
  XFFI_RETURN_IF_ERROR(CheckPermutation(
      Roles(dn.input_batch_dimension, dn.input_spatial_dimensions,
            dn.input_feature_dimension),
      rank, "input"));
  std::vector<int64_t> kernel_dims = dn.kernel_spatial_dimensions;
  kernel_dims.push_back(dn.kernel_input_feature_dimension);
  kernel_dims.push_back(dn.kernel_output_feature_dimension);
  XFFI_RETURN_IF_ERROR(CheckPermutation(kernel_dims, rank, "kernel"));
  XFFI_RETURN_IF_ERROR(CheckPermutation(
      Roles(dn.output_batch_dimension, dn.output_spatial_dimensions,
            dn.output_feature_dimension),
      rank, "output"));
  if (in.window.size() != spatial)
    return Fail("window has ", in.window.size(), " dimensions, the operands ",
                spatial, " spatial dimensions");

  const int64_t groups = in.feature_group_count;
  const int64_t batch_groups = in.batch_group_count;
  if (groups <= 0 || batch_groups <= 0)
    return Fail("feature_group_count ", groups, " and batch_group_count ",
                batch_groups, " must be positive");
  if (groups > 1 && batch_groups > 1)
    return Fail("feature_group_count ", groups, " and batch_group_count ",
                batch_groups, " cannot both be above 1");
  const int64_t batch = lhs.dim(dn.input_batch_dimension);
  const int64_t features = lhs.dim(dn.input_feature_dimension);
  const int64_t kernel_in = rhs.dim(dn.kernel_input_feature_dimension);
  const int64_t kernel_out = rhs.dim(dn.kernel_output_feature_dimension);
  if (batch % batch_groups != 0)
    return Fail("input batch size ", batch,
                " is not a multiple of batch_group_count ", batch_groups);
  if (features % groups != 0)
    return Fail("input feature size ", features,
                " is not a multiple of feature_group_count ", groups);
  if (kernel_in != features / groups)
    return Fail("kernel input feature size ", kernel_in,
                " must be the input feature size ", features,
                " / feature_group_count ", groups);
  if (kernel_out % groups != 0 || kernel_out % batch_groups != 0)
    return Fail("kernel output feature size ", kernel_out,
                " is not a multiple of feature_group_count ", groups,
                " and batch_group_count ", batch_groups);

  std::vector<int64_t> dims(static_cast<size_t>(rank), 0);
  dims[static_cast<size_t>(dn.output_batch_dimension)] = batch / batch_groups;
  dims[static_cast<size_t>(dn.output_feature_dimension)] = kernel_out;
  for (size_t s = 0; s < spatial; ++s) {
    const WindowDimension& w = in.window[s];
    const int64_t kernel = rhs.dim(dn.kernel_spatial_dimensions[s]);
    if (w.size != kernel)
      return Fail("window dimension ", s, " has size ", w.size,
                  ", the kernel's spatial dimension ",
                  dn.kernel_spatial_dimensions[s], " has size ", kernel);
    int64_t count = 0;
    XFFI_RETURN_IF_ERROR(WindowCount(lhs.dim(dn.input_spatial_dimensions[s]),
                                     kernel, w, static_cast<int64_t>(s),
                                     &count));
    dims[static_cast<size_t>(dn.output_spatial_dimensions[s])] = count;
  }
  ElementType type =
      in.shape().valid() ? in.shape().element_type() : lhs.element_type();
  if (!IsNumeric(type))
    return Fail("the result element type must be numeric, got ",
                in.shape().ToString());
  *out = Shape::Array(type, std::move(dims));
  return Status::Ok();
}

// Batch norm: operand 0 is the input (or its gradient's operand), the rest
// are per-feature vectors or arrays of the operand's shape, all of one
// floating-point type.
Status InferBatchNorm(const Instruction& in, Shape* out) {
  const bool grad = in.opcode() == Opcode::kBatchNormGrad;
  const bool inference = in.opcode() == Opcode::kBatchNormInference;
  XFFI_RETURN_IF_ERROR(ExpectArrayOperands(in, inference || grad ? 5 : 3));
  const Shape& operand = in.operand(0)->shape();
  if (!IsFloatingType(operand.element_type()))
    return Fail("operand must be floating-point, got ", Text(operand));
  if (in.feature_index < 0 || in.feature_index >= operand.rank())
    return Fail("feature_index ", in.feature_index,
                " is out of range for operand ", Text(operand));
  const Shape features =
      Shape::Array(operand.element_type(), {operand.dim(in.feature_index)});
  for (int64_t i = 1; i < in.operand_count(); ++i) {
    const Shape& shape = in.operand(i)->shape();
    // grad's last operand is the gradient of the output.
    const Shape& expected = grad && i == 4 ? operand : features;
    if (shape.element_type() != expected.element_type() ||
        shape.dims() != expected.dims())
      return Fail("operand ", i, " must be ", Text(expected), ", got ",
                  Text(shape));
  }
  if (inference) {
    *out = operand.WithoutLayout();
  } else {
    *out = Shape::Tuple({operand.WithoutLayout(), features, features});
  }
  return Status::Ok();
}

}  // namespace

Status InferConvNetShape(const Instruction& instruction, Shape* out) {
  if (instruction.opcode() == Opcode::kConvolution)
    return InferConvolution(instruction, out);
  return InferBatchNorm(instruction, out);
}

}  // namespace xffi
