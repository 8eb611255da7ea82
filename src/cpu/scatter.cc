// scatter: results start as copies of the operands; for every update
// position (the update dims that are not window dims, which walk the scatter
// indices) the start index vector picks where the update window goes. A
// window that does not fit inside the operand is skipped whole, as XLA does.
// The window is combined with a typed op (add, mul, max, min, and, or), a
// byte copy (a region returning its second parameter) or the region.
#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "cpu/index_util.h"
#include "cpu/parallel.h"
#include "cpu/region_util.h"
#include "cpu/structural_kernels.h"

namespace xffi::cpu {
namespace {

struct ScatterPlan {
  size_t n = 1;  // operands (and updates)
  std::vector<ElementType> types;
  std::vector<size_t> sizes;
  std::vector<size_t> operand_bytes;
  ElementType index_type;
  std::vector<int64_t> positions;         // sizes of the update positions
  std::vector<int64_t> position_updates;  // update strides (elements)
  std::vector<int64_t> position_indices;  // index strides (bytes)
  int64_t index_vector_stride = 0;        // bytes
  std::vector<int64_t> start_strides, start_max;  // per index vector entry
  std::vector<int64_t> batching_position, batching_strides;
  DualLoops window;  // a: the update, b: the operand (elements)
  bool single_element_window = false;
  CombineOp op = CombineOp::kNone;
  const Computation* region = nullptr;
  std::optional<ScalarProgram> program;  // the region, when it compiles
  // A set whose windows are contiguous runs of whole slots of this many
  // elements (every start lands on a slot boundary): 0 when not.
  int64_t set_slot_elements = 0;
};

// Calls apply(update_offset, operand_offset) for each update window that
// fits (offsets in elements).
template <typename Apply>
void ForEachWindow(const ScatterPlan& plan, const char* indices,
                   Apply&& apply) {
  const size_t rank = plan.positions.size();
  for (int64_t d : plan.positions)
    if (d == 0) return;
  std::vector<int64_t> position(rank, 0);
  int64_t update_off = 0, index_off = 0;
  while (true) {
    int64_t dst = 0;
    bool fits = true;
    for (size_t k = 0; k < plan.start_strides.size(); ++k) {
      int64_t start =
          ReadIndex(indices + index_off +
                        static_cast<int64_t>(k) * plan.index_vector_stride,
                    plan.index_type);
      if (start < 0 || start > plan.start_max[k]) {
        fits = false;
        break;
      }
      dst += start * plan.start_strides[k];
    }
    if (fits) {
      for (size_t j = 0; j < plan.batching_position.size(); ++j)
        dst += position[static_cast<size_t>(plan.batching_position[j])] *
               plan.batching_strides[j];
      apply(update_off, dst);
    }
    size_t d = rank;
    while (true) {
      if (d == 0) return;
      --d;
      update_off += plan.position_updates[d];
      index_off += plan.position_indices[d];
      if (++position[d] < plan.positions[d]) break;
      update_off -= plan.position_updates[d] * plan.positions[d];
      index_off -= plan.position_indices[d] * plan.positions[d];
      position[d] = 0;
    }
  }
}

// .at[idx].op(values) with idx a vector of I: one position dim, one start
// index, one-element windows, no batching dims. A typed loop, in order.
template <typename T, typename I, typename Op>
void ScatterPoints(const ScatterPlan& plan, const char* indices,
                   const T* updates, T* out, Op op) {
  const int64_t count = plan.positions[0];
  const int64_t index_step =
      plan.position_indices[0] / static_cast<int64_t>(sizeof(I));
  const int64_t update_step = plan.position_updates[0];
  const int64_t stride = plan.start_strides[0], max = plan.start_max[0];
  const I* idx = reinterpret_cast<const I*>(indices);
  for (int64_t j = 0; j < count; ++j) {
    const int64_t i = static_cast<int64_t>(idx[j * index_step]);
    if (i < 0 || i > max) continue;  // out of bounds: dropped, as XLA does
    T& o = out[i * stride];
    o = op(o, updates[j * update_step]);
  }
}

template <typename T, typename Op>
Kernel FastScatter(ScatterPlan plan, Op op) {
  return [plan = std::move(plan), op](const KernelArgs& args) {
    if (args.results[0].data != args.operands[0].data)
      std::memcpy(args.results[0].data, args.operands[0].data,
                  plan.operand_bytes[0]);
    T* out = static_cast<T*>(args.results[0].data);
    const T* updates = static_cast<const T*>(args.operands[2].data);
    const int64_t ua = plan.window.a_strides.back();
    const int64_t ob = plan.window.b_strides.back();
    const char* indices = static_cast<const char*>(args.operands[1].data);
    const bool points =
        plan.single_element_window && plan.positions.size() == 1 &&
        plan.start_strides.size() == 1 && plan.batching_position.empty();
    if (points && plan.index_type == ElementType::kS32) {
      ScatterPoints<T, int32_t>(plan, indices, updates, out, op);
      return Status::Ok();
    }
    if (points && plan.index_type == ElementType::kS64) {
      ScatterPoints<T, int64_t>(plan, indices, updates, out, op);
      return Status::Ok();
    }
    if (plan.single_element_window) {  // .at[i].add and the like
      ForEachWindow(plan, indices, [&](int64_t update_off, int64_t dst_off) {
        out[dst_off] = op(out[dst_off], updates[update_off]);
      });
      return Status::Ok();
    }
    ForEachWindow(plan, indices, [&](int64_t update_off, int64_t dst_off) {
      ForEachRun(plan.window, [&](int64_t a, int64_t b, int64_t n) {
        const T* u = updates + update_off + a;
        T* o = out + dst_off + b;
        for (int64_t i = 0; i < n; ++i) o[i * ob] = op(o[i * ob], u[i * ua]);
      });
    });
    return Status::Ok();
  };
}

// The result of a set whose windows are runs of whole slots, when no slot
// is written twice: each slot of the result is then copied once, from the
// update that owns it or else from the operand, so the result is the serial
// one whatever the split. A map of slot owners (O(slots + windows)) proves
// the windows disjoint; unique_indices=true is not trusted for it. The rows
// an update overwrites are never copied from the operand first, which saves
// that copy's memory traffic (half of it for scatter_set_rows). Returns
// false, having written nothing, when some slot is written twice: the serial
// loop then keeps the last writer, as before (XLA leaves the order of
// colliding sets unspecified).
bool SetDisjointSlots(const ScatterPlan& plan, const KernelArgs& args) {
  const int64_t g = plan.set_slot_elements;
  const int64_t e = static_cast<int64_t>(plan.sizes[0]);
  const int64_t slots = static_cast<int64_t>(plan.operand_bytes[0]) / (g * e);
  const int64_t window_slots = plan.window.dims[0] / g;
  std::vector<int64_t> owner(static_cast<size_t>(slots), -1);
  const char* indices = static_cast<const char*>(args.operands[1].data);
  bool disjoint = true;
  ForEachWindow(plan, indices, [&](int64_t update_off, int64_t dst_off) {
    if (!disjoint) return;
    const int64_t first = dst_off / g;
    for (int64_t k = 0; k < window_slots; ++k) {
      int64_t& o = owner[static_cast<size_t>(first + k)];
      if (o >= 0) {
        disjoint = false;
        return;
      }
      o = update_off + k * g;
    }
  });
  if (!disjoint) return false;
  const char* operand = static_cast<const char*>(args.operands[0].data);
  const char* updates = static_cast<const char*>(args.operands[2].data);
  char* out = static_cast<char*>(args.results[0].data);
  const bool in_place = out == operand;
  const size_t slot_bytes = static_cast<size_t>(g * e);
  // A slot costs about its bytes copied at a few tens of GB/s.
  const double slot_nanos = static_cast<double>(slot_bytes) / 16.0;
  ParallelFor(args.pool, slots, slot_nanos, [&](int64_t lo, int64_t hi) {
    int64_t s = lo;
    while (s < hi) {
      const int64_t from = owner[static_cast<size_t>(s)];
      if (from >= 0) {
        std::memcpy(out + s * g * e, updates + from * e, slot_bytes);
        ++s;
        continue;
      }
      int64_t end = s + 1;  // a run of slots no update owns: one copy
      while (end < hi && owner[static_cast<size_t>(end)] < 0) ++end;
      if (!in_place)
        std::memcpy(out + s * g * e, operand + s * g * e,
                    static_cast<size_t>(end - s) * slot_bytes);
      s = end;
    }
  });
  return true;
}

Status RunScatter(const ScatterPlan& plan, const KernelArgs& args,
                  const std::string& name) {
  if (plan.set_slot_elements > 0 && SetDisjointSlots(plan, args))
    return Status::Ok();
  const size_t n = plan.n;
  std::vector<char*> out(n);
  std::vector<const char*> updates(n);
  for (size_t i = 0; i < n; ++i) {
    if (args.results[i].data != args.operands[i].data)
      std::memcpy(args.results[i].data, args.operands[i].data,
                  plan.operand_bytes[i]);
    out[i] = static_cast<char*>(args.results[i].data);
    updates[i] = static_cast<const char*>(args.operands[n + 1 + i].data);
  }
  const char* indices = static_cast<const char*>(args.operands[n].data);
  const int64_t ua = plan.window.a_strides.back();
  const int64_t ob = plan.window.b_strides.back();
  if (plan.op == CombineOp::kSet) {
    ForEachWindow(plan, indices, [&](int64_t update_off, int64_t dst_off) {
      ForEachRun(plan.window, [&](int64_t a, int64_t b, int64_t count) {
        for (size_t i = 0; i < n; ++i) {
          const int64_t e = static_cast<int64_t>(plan.sizes[i]);
          char* o = out[i] + (dst_off + b) * e;
          const char* u = updates[i] + (update_off + a) * e;
          if (ua == 1 && ob == 1) {
            std::memcpy(o, u, static_cast<size_t>(count * e));
          } else {
            for (int64_t j = 0; j < count; ++j)
              std::memcpy(o + j * ob * e, u + j * ua * e, plan.sizes[i]);
          }
        }
      });
    });
    return Status::Ok();
  }
  if (!plan.program && args.regions == nullptr)
    return Internal("op '" + name + "' (scatter): no region runner");
  ScalarCombiner combiner(plan.region, plan.types,
                          plan.program ? &*plan.program : nullptr);
  std::vector<void*> acc(n);
  std::vector<const void*> values(n);
  Status status;
  ForEachWindow(plan, indices, [&](int64_t update_off, int64_t dst_off) {
    ForEachRun(plan.window, [&](int64_t a, int64_t b, int64_t count) {
      for (int64_t j = 0; j < count && status.ok(); ++j) {
        for (size_t i = 0; i < n; ++i) {
          const int64_t e = static_cast<int64_t>(plan.sizes[i]);
          acc[i] = out[i] + (dst_off + b + j * ob) * e;
          values[i] = updates[i] + (update_off + a + j * ua) * e;
        }
        status = combiner.Combine(args.regions, acc.data(), values.data());
      }
    });
  });
  return status;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The slot size (elements) SetDisjointSlots works in for a set, or 0: the
// largest run dividing every start stride and the window, when the window
// is one contiguous run of the operand and of the updates, and a slot is
// large enough for its owner entry to be cheap next to its copy.
int64_t SetSlotElements(const ScatterPlan& plan) {
  if (plan.n != 1 || plan.window.dims.size() != 1 ||
      plan.window.a_strides[0] != 1 || plan.window.b_strides[0] != 1)
    return 0;
  int64_t g = plan.window.dims[0];
  for (int64_t stride : plan.start_strides) g = std::gcd(g, stride);
  for (int64_t stride : plan.batching_strides) g = std::gcd(g, stride);
  constexpr int64_t kMinSlotBytes = 64;
  if (g * static_cast<int64_t>(plan.sizes[0]) < kMinSlotBytes) return 0;
  return g;
}

}  // namespace

StatusOr<Kernel> MakeScatterKernel(const Instruction& inst) {
  auto fail = [&](const std::string& what) -> Status {
    return InvalidArgument("op " + inst.Describe() + ": " + what);
  };
  if (inst.operand_count() < 3 || inst.operand_count() % 2 != 1)
    return fail("expects operands, indices and as many updates");
  ScatterPlan plan;
  plan.n = static_cast<size_t>(inst.operand_count() / 2);
  const size_t n = plan.n;
  if (inst.called_computations().size() != 1) return fail("expects one region");
  plan.region = inst.called_computations()[0];
  const Shape& operand = inst.operand(0)->shape();
  const Shape& indices = inst.operand(static_cast<int64_t>(n))->shape();
  const Shape& update = inst.operand(static_cast<int64_t>(n + 1))->shape();
  if (!operand.IsArray() || !indices.IsArray() || !update.IsArray())
    return fail("operands must be arrays");
  if (!IsIntegralType(indices.element_type()))
    return fail("scatter indices must be integers");
  std::vector<const Shape*> results;
  if (inst.shape().IsTuple())
    for (const Shape& s : inst.shape().tuple_shapes()) results.push_back(&s);
  else
    results.push_back(&inst.shape());
  if (results.size() != n) return fail("result count differs from operands");
  for (size_t i = 0; i < n; ++i) {
    const Shape& o = inst.operand(static_cast<int64_t>(i))->shape();
    const Shape& u = inst.operand(static_cast<int64_t>(n + 1 + i))->shape();
    if (!o.IsArray() || o.dims() != operand.dims() || !u.IsArray() ||
        u.dims() != update.dims() || u.element_type() != o.element_type() ||
        !results[i]->IsArray() || results[i]->dims() != operand.dims() ||
        results[i]->element_type() != o.element_type())
      return fail("operand/update/result " + std::to_string(i) +
                  " shapes do not agree");
    plan.types.push_back(o.element_type());
    plan.sizes.push_back(ElementByteSize(o.element_type()));
    plan.operand_bytes.push_back(o.byte_size());
  }
  std::vector<ElementType> params = plan.types;
  params.insert(params.end(), plan.types.begin(), plan.types.end());
  if (Status s = CheckScalarRegion(inst, plan.region, params, plan.types);
      !s.ok())
    return s;

  const ScatterDimensionNumbers& dn = inst.scatter_dimension_numbers;
  const int64_t ivd = dn.index_vector_dim;
  if (ivd < 0 || ivd > indices.rank()) return fail("bad index_vector_dim");
  const int64_t vector_size = ivd == indices.rank() ? 1 : indices.dim(ivd);
  if (static_cast<int64_t>(dn.scatter_dims_to_operand_dims.size()) !=
      vector_size)
    return fail("scatter_dims_to_operand_dims has " +
                std::to_string(dn.scatter_dims_to_operand_dims.size()) +
                " entries for index vectors of " + std::to_string(vector_size));
  if (dn.input_batching_dims.size() != dn.scatter_indices_batching_dims.size())
    return fail("input and scatter indices batching dims differ in count");

  plan.index_type = indices.element_type();
  const int64_t isize = static_cast<int64_t>(ElementByteSize(plan.index_type));
  const std::vector<int64_t> operand_strides = RowMajorStrides(operand.dims());
  const std::vector<int64_t> index_strides = RowMajorStrides(indices.dims());
  const std::vector<int64_t> update_strides = RowMajorStrides(update.dims());
  plan.index_vector_stride =
      ivd < indices.rank() ? index_strides[static_cast<size_t>(ivd)] * isize
                           : 0;

  // Window: operand dims neither inserted nor batching, matched in order
  // with update_window_dims.
  std::vector<int64_t> window_size(static_cast<size_t>(operand.rank()), 1);
  std::vector<int64_t> wdims, wa, wb;
  size_t next_window = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (Contains(dn.inserted_window_dims, d) ||
        Contains(dn.input_batching_dims, d))
      continue;
    if (next_window >= dn.update_window_dims.size())
      return fail("update_window_dims has too few entries");
    int64_t ud = dn.update_window_dims[next_window++];
    if (ud < 0 || ud >= update.rank() || update.dim(ud) > operand.dim(d))
      return fail("update window dim " + std::to_string(ud) +
                  " does not fit operand dim " + std::to_string(d));
    window_size[static_cast<size_t>(d)] = update.dim(ud);
    wdims.push_back(update.dim(ud));
    wa.push_back(update_strides[static_cast<size_t>(ud)]);
    wb.push_back(operand_strides[static_cast<size_t>(d)]);
  }
  if (next_window != dn.update_window_dims.size())
    return fail("update_window_dims has too many entries");
  plan.window = MakeDualLoops(wdims, wa, wb);
  plan.single_element_window = Product(wdims) == 1;

  for (int64_t d : dn.scatter_dims_to_operand_dims) {
    if (d < 0 || d >= operand.rank())
      return fail("bad scatter_dims_to_operand_dims entry");
    plan.start_strides.push_back(operand_strides[static_cast<size_t>(d)]);
    plan.start_max.push_back(operand.dim(d) -
                             window_size[static_cast<size_t>(d)]);
  }
  std::vector<int64_t> index_position_dims;
  for (int64_t d = 0; d < indices.rank(); ++d)
    if (d != ivd) index_position_dims.push_back(d);
  size_t next = 0;
  for (int64_t d = 0; d < update.rank(); ++d) {
    if (Contains(dn.update_window_dims, d)) continue;
    if (next >= index_position_dims.size() ||
        indices.dim(index_position_dims[next]) != update.dim(d))
      return fail("update scatter dims do not match the scatter indices");
    plan.positions.push_back(update.dim(d));
    plan.position_updates.push_back(update_strides[static_cast<size_t>(d)]);
    plan.position_indices.push_back(
        index_strides[static_cast<size_t>(index_position_dims[next])] * isize);
    ++next;
  }
  if (next != index_position_dims.size())
    return fail("update scatter dims do not match the scatter indices");
  for (size_t j = 0; j < dn.input_batching_dims.size(); ++j) {
    int64_t od = dn.input_batching_dims[j];
    int64_t id = dn.scatter_indices_batching_dims[j];
    if (od < 0 || od >= operand.rank() || id < 0 || id >= indices.rank() ||
        id == ivd || operand.dim(od) != indices.dim(id))
      return fail("bad batching dims (operand dim " + std::to_string(od) +
                  ", indices dim " + std::to_string(id) + ")");
    plan.batching_position.push_back(id < ivd ? id : id - 1);
    plan.batching_strides.push_back(operand_strides[static_cast<size_t>(od)]);
  }

  plan.op = MatchCombineRegion(plan.region);
  if (n == 1 && plan.op != CombineOp::kSet &&
      FastOpSupported(plan.op, plan.types[0])) {
    std::optional<Kernel> kernel;
    DispatchFastType(plan.types[0], [&](auto zero) {
      using T = decltype(zero);
      DispatchCombine<T>(plan.op,
                         [&](auto fn) { kernel = FastScatter<T>(plan, fn); });
    });
    if (kernel) return std::move(*kernel);
  }
  // A set for n > 1 needs every region result to be its update parameter.
  if (n > 1) plan.op = CombineOp::kNone;
  if (plan.op != CombineOp::kSet) plan.op = CombineOp::kNone;
  if (plan.op == CombineOp::kNone)
    plan.program = ScalarProgram::Compile(*plan.region);
  if (plan.op == CombineOp::kSet)
    plan.set_slot_elements = SetSlotElements(plan);
  return Kernel(
      [plan = std::move(plan), name = inst.name()](const KernelArgs& args) {
        return RunScatter(plan, args, name);
      });
}

}  // namespace xffi::cpu
