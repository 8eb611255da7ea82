// HLO's batch-norm-training, batch-norm-inference and batch-norm-grad, with
// the formulas XLA's BatchNormExpander uses (biased variance; the gradient
// of the normalised input through the batch mean and variance). The operand
// is viewed as [outer, features, inner] around feature_index; every type is
// computed in f64, which holds what f16/bf16/f32 statistics need.
#include <cmath>
#include <vector>

#include "cpu/compute_cast.h"
#include "cpu/index_util.h"
#include "cpu/structural_kernels.h"

namespace xffi::cpu {
namespace {

struct BatchNormPlan {
  Opcode opcode;
  ElementType type;
  int64_t outer = 1, features = 1, inner = 1;
  double epsilon = 0;
};

// Per-feature accessor over an operand laid out [outer, features, inner].
class FeatureView {
 public:
  FeatureView(const BatchNormPlan& plan, const void* data)
      : plan_(plan),
        data_(static_cast<const char*>(data)),
        size_(static_cast<int64_t>(ElementByteSize(plan.type))) {}
  template <typename Fn>
  void ForEach(int64_t feature, Fn&& fn) const {
    for (int64_t o = 0; o < plan_.outer; ++o) {
      const int64_t base = (o * plan_.features + feature) * plan_.inner;
      for (int64_t i = 0; i < plan_.inner; ++i) fn(base + i, Load(base + i));
    }
  }
  double Load(int64_t i) const {
    return LoadAs<double>(plan_.type, data_ + i * size_);
  }

 private:
  const BatchNormPlan& plan_;
  const char* data_;
  int64_t size_;
};

double LoadVector(const BatchNormPlan& plan, const ArrayView& view, int64_t i) {
  return LoadAs<double>(
      plan.type, static_cast<const char*>(view.data) +
                     i * static_cast<int64_t>(ElementByteSize(plan.type)));
}

void Store(const BatchNormPlan& plan, const ArrayView& view, int64_t i,
           double value) {
  StoreFrom<double>(plan.type, value,
                    static_cast<char*>(view.data) +
                        i * static_cast<int64_t>(ElementByteSize(plan.type)));
}

Status RunBatchNorm(const BatchNormPlan& p, const KernelArgs& args) {
  const FeatureView x(p, args.operands[0].data);
  const double count = static_cast<double>(p.outer * p.inner);
  for (int64_t f = 0; f < p.features; ++f) {
    const double scale = LoadVector(p, args.operands[1], f);
    double mean = 0, variance = 0;
    if (p.opcode == Opcode::kBatchNormTraining) {
      x.ForEach(f, [&](int64_t, double v) { mean += v; });
      mean = count > 0 ? mean / count : 0;
      x.ForEach(
          f, [&](int64_t, double v) { variance += (v - mean) * (v - mean); });
      variance = count > 0 ? variance / count : 0;
    } else {
      const int mean_operand = p.opcode == Opcode::kBatchNormGrad ? 2 : 3;
      mean = LoadVector(p, args.operands[mean_operand], f);
      variance = LoadVector(p, args.operands[mean_operand + 1], f);
    }
    const double rstd = 1.0 / std::sqrt(variance + p.epsilon);
    if (p.opcode != Opcode::kBatchNormGrad) {
      const double offset = LoadVector(p, args.operands[2], f);
      x.ForEach(f, [&](int64_t i, double v) {
        Store(p, args.results[0], i, (v - mean) * rstd * scale + offset);
      });
      if (p.opcode == Opcode::kBatchNormTraining) {
        Store(p, args.results[1], f, mean);
        Store(p, args.results[2], f, variance);
      }
      continue;
    }
    const FeatureView dy(p, args.operands[4].data);
    double sum_dy = 0, sum_dy_xhat = 0;
    x.ForEach(f, [&](int64_t i, double v) {
      const double g = dy.Load(i);
      sum_dy += g;
      sum_dy_xhat += g * (v - mean) * rstd;
    });
    const double factor = count > 0 ? scale * rstd / count : 0;
    x.ForEach(f, [&](int64_t i, double v) {
      const double xhat = (v - mean) * rstd;
      Store(p, args.results[0], i,
            factor * (count * dy.Load(i) - sum_dy - xhat * sum_dy_xhat));
    });
    Store(p, args.results[1], f, sum_dy_xhat);
    Store(p, args.results[2], f, sum_dy);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<Kernel> MakeBatchNormKernel(const Instruction& inst) {
  const Shape& operand = inst.operand(0)->shape();
  BatchNormPlan plan;
  plan.opcode = inst.opcode();
  plan.type = operand.element_type();
  plan.epsilon = static_cast<double>(inst.epsilon);
  const int64_t axis = inst.feature_index;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (d < axis) plan.outer *= operand.dim(d);
    if (d > axis) plan.inner *= operand.dim(d);
  }
  plan.features = operand.dim(axis);
  return Kernel(
      [plan](const KernelArgs& args) { return RunBatchNorm(plan, args); });
}

}  // namespace xffi::cpu
