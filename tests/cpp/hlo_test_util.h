// Helpers for the HLO text tests: reading the committed samples and comparing
// two modules field by field.
#ifndef XFFI_TESTS_CPP_HLO_TEST_UTIL_H_
#define XFFI_TESTS_CPP_HLO_TEST_UTIL_H_

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <variant>

#include "xffi/program/ir.h"

namespace xffi::hlo_test {

inline std::string SamplePath(const std::string& name) {
  return std::string(XFFI_SOURCE_DIR) + "/tests/cpp/data/hlo/" + name;
}

inline std::string ReadSample(const std::string& name) {
  std::ifstream in(SamplePath(name));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline const char* const kSamples[] = {
    "loop.hlo",
    "loop.compiled.hlo",
    "cond.hlo",
    "cond.compiled.hlo",
    "sort.hlo",
    "sort.compiled.hlo",
    "reduce.hlo",
    "reduce.compiled.hlo",
    "gather_scatter.hlo",
    "misc.hlo",
    "ffi.hlo",
    "ffi_loop.hlo",
    "lu.hlo",
    "lu.compiled.hlo",
    "numeric.hlo",
};

inline std::string Join(const std::vector<int64_t>& v) {
  std::string out = "{";
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? "," : "") + std::to_string(v[i]);
  return out + "}";
}

std::string DiffAttributes(const FfiAttributes& a, const FfiAttributes& b);

inline std::string DiffAttrValue(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return "attribute types differ";
  return std::visit(
      [&](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, AttributeMap>) {
          return DiffAttributes(x, y);
        } else if constexpr (std::is_arithmetic_v<T>) {
          return std::memcmp(&x, &y, sizeof(T)) == 0 ? "" : "values differ";
        } else {
          return x == y ? "" : "values differ";
        }
      },
      a);
}

inline std::string DiffAttributes(const FfiAttributes& a,
                                  const FfiAttributes& b) {
  if (a.names() != b.names()) return "attribute names differ";
  for (size_t i = 0; i < a.size(); ++i) {
    std::string d = DiffAttrValue(a.values()[i], b.values()[i]);
    if (!d.empty()) return "attribute '" + a.names()[i] + "': " + d;
  }
  return "";
}

inline std::string LocationText(const Location& l) {
  return l.file + ":" + std::to_string(l.line) + ":" +
         std::to_string(l.column) + " (" + l.name + ")";
}

// The first difference between two instructions, "" when equal.
inline std::string DiffInstruction(
    const Instruction& a, const Instruction& b,
    const std::unordered_map<const Instruction*, size_t>& index_a,
    const std::unordered_map<const Instruction*, size_t>& index_b,
    const std::unordered_map<const Computation*, size_t>& comp_a,
    const std::unordered_map<const Computation*, size_t>& comp_b,
    bool compare_locations) {
  auto differ = [&](const std::string& what, const std::string& x,
                    const std::string& y) {
    return "'" + a.name() + "': " + what + " " + x + " vs " + y;
  };
  if (a.opcode() != b.opcode())
    return differ("opcode", std::string(OpcodeName(a.opcode())),
                  std::string(OpcodeName(b.opcode())));
  if (a.name() != b.name()) return differ("name", a.name(), b.name());
  if (a.shape() != b.shape() || a.shape().ToString() != b.shape().ToString())
    return differ("shape", a.shape().ToString(), b.shape().ToString());
  if (a.operand_count() != b.operand_count())
    return differ("operand count", "", "");
  for (int64_t i = 0; i < a.operand_count(); ++i)
    if (index_a.at(a.operand(i)) != index_b.at(b.operand(i)))
      return differ("operand " + std::to_string(i), a.operand(i)->name(),
                    b.operand(i)->name());
  if (a.called_computations().size() != b.called_computations().size())
    return differ("called computation count", "", "");
  for (size_t i = 0; i < a.called_computations().size(); ++i)
    if (comp_a.at(a.called_computations()[i]) !=
        comp_b.at(b.called_computations()[i]))
      return differ("called computation " + std::to_string(i),
                    a.called_computations()[i]->name(),
                    b.called_computations()[i]->name());
  if (compare_locations &&
      LocationText(a.location()) != LocationText(b.location()))
    return differ("location", LocationText(a.location()),
                  LocationText(b.location()));
  if (a.parameter_number != b.parameter_number)
    return differ("parameter_number", "", "");
  if (a.tuple_index != b.tuple_index) return differ("tuple_index", "", "");
  if (a.literal != b.literal)
    return differ("literal", a.literal.ToString(), b.literal.ToString());
  if (a.dimensions != b.dimensions)
    return differ("dimensions", Join(a.dimensions), Join(b.dimensions));
  if (a.comparison_direction != b.comparison_direction ||
      a.comparison_type != b.comparison_type)
    return differ("comparison", "", "");
  if (a.slice_starts != b.slice_starts || a.slice_limits != b.slice_limits ||
      a.slice_strides != b.slice_strides)
    return differ("slice", "", "");
  if (a.dynamic_slice_sizes != b.dynamic_slice_sizes)
    return differ("dynamic_slice_sizes", "", "");
  if (a.padding != b.padding) return differ("padding", "", "");
  if (a.dot_dimension_numbers != b.dot_dimension_numbers)
    return differ("dot dimension numbers", "", "");
  if (a.gather_dimension_numbers != b.gather_dimension_numbers ||
      a.gather_slice_sizes != b.gather_slice_sizes)
    return differ("gather", "", "");
  if (a.scatter_dimension_numbers != b.scatter_dimension_numbers)
    return differ("scatter", "", "");
  if (a.indices_are_sorted != b.indices_are_sorted ||
      a.unique_indices != b.unique_indices)
    return differ("indices flags", "", "");
  if (a.window != b.window) return differ("window", "", "");
  if (a.convolution_dimension_numbers != b.convolution_dimension_numbers ||
      a.feature_group_count != b.feature_group_count ||
      a.batch_group_count != b.batch_group_count)
    return differ("convolution", "", "");
  if (a.epsilon != b.epsilon || a.feature_index != b.feature_index)
    return differ("batch norm", "", "");
  if (a.is_stable != b.is_stable) return differ("is_stable", "", "");
  if (a.fft_type != b.fft_type || a.fft_length != b.fft_length)
    return differ("fft", Join(a.fft_length), Join(b.fft_length));
  if (a.top_k != b.top_k || a.top_k_largest != b.top_k_largest)
    return differ("topk", "", "");
  if (a.rng_algorithm != b.rng_algorithm ||
      a.rng_distribution != b.rng_distribution)
    return differ("rng", "", "");
  if (a.exponent_bits != b.exponent_bits || a.mantissa_bits != b.mantissa_bits)
    return differ("reduce-precision bits", "", "");
  if (a.lower != b.lower || a.left_side != b.left_side ||
      a.unit_diagonal != b.unit_diagonal || a.transpose_a != b.transpose_a)
    return differ("triangular options", "", "");
  if (a.fusion_kind != b.fusion_kind) return differ("fusion kind", "", "");
  const CustomCallConfig& x = a.custom_call;
  const CustomCallConfig& y = b.custom_call;
  if (x.target != y.target) return differ("target", x.target, y.target);
  if (x.api_version != y.api_version) return differ("api_version", "", "");
  if (x.opaque != y.opaque) return differ("opaque", x.opaque, y.opaque);
  if (std::string d = DiffAttributes(x.attributes, y.attributes); !d.empty())
    return differ("attributes", d, "");
  if (x.has_side_effect != y.has_side_effect)
    return differ("has_side_effect", "", "");
  if (x.output_operand_aliases != y.output_operand_aliases)
    return differ("output_operand_aliases", "", "");
  auto layouts = [](const std::vector<Shape>& shapes) {
    std::string out;
    for (const Shape& s : shapes) out += s.ToString() + ";";
    return out;
  };
  if (layouts(x.operand_layouts) != layouts(y.operand_layouts))
    return differ("operand_layouts", layouts(x.operand_layouts),
                  layouts(y.operand_layouts));
  if (layouts(x.result_layouts) != layouts(y.result_layouts))
    return differ("result_layouts", layouts(x.result_layouts),
                  layouts(y.result_layouts));
  if (x.schedule != y.schedule) return differ("schedule", "", "");
  if (x.literal.has_value() != y.literal.has_value() ||
      (x.literal && *x.literal != *y.literal))
    return differ("custom call literal", "", "");
  if (a.collective_devices != b.collective_devices)
    return differ("collective devices", "", "");
  if (a.split_dimension != b.split_dimension ||
      a.concat_dimension != b.concat_dimension ||
      a.split_count != b.split_count)
    return differ("all-to-all dimensions", "", "");
  if (a.source_target_pairs != b.source_target_pairs)
    return differ("source_target_pairs", "", "");
  const ManualComputationConfig& m = a.manual_computation;
  const ManualComputationConfig& n = b.manual_computation;
  if (m.mesh != n.mesh)
    return differ("mesh", m.mesh.name + m.mesh.ToString(),
                  n.mesh.name + n.mesh.ToString());
  if (m.in_shardings != n.in_shardings || m.out_shardings != n.out_shardings)
    return differ("shardings", "", "");
  if (m.manual_axes != n.manual_axes) return differ("manual axes", "", "");
  if (a.sharding != b.sharding)
    return differ("sharding", a.sharding ? a.sharding->ToString() : "none",
                  b.sharding ? b.sharding->ToString() : "none");
  if (a.frontend_attributes != b.frontend_attributes)
    return differ("frontend_attributes", "", "");
  return "";
}

// The first difference between two modules, "" when they are the same
// program: computations and instructions in the same order with the same
// names, fields, shapes (layouts included) and constants (bit for bit).
inline std::string DiffModules(const Module& a, const Module& b,
                               bool compare_locations = true) {
  if (a.name() != b.name())
    return "module names " + a.name() + " vs " + b.name();
  if (a.num_partitions() != b.num_partitions())
    return "num_partitions " + std::to_string(a.num_partitions()) + " vs " +
           std::to_string(b.num_partitions());
  if (a.computations().size() != b.computations().size())
    return "computation counts differ";
  std::unordered_map<const Computation*, size_t> comp_a, comp_b;
  for (size_t i = 0; i < a.computations().size(); ++i) {
    comp_a[a.computations()[i].get()] = i;
    comp_b[b.computations()[i].get()] = i;
  }
  if (a.entry() == nullptr || b.entry() == nullptr ||
      comp_a.at(a.entry()) != comp_b.at(b.entry()))
    return "entries differ";
  for (size_t c = 0; c < a.computations().size(); ++c) {
    const Computation& ca = *a.computations()[c];
    const Computation& cb = *b.computations()[c];
    if (ca.name() != cb.name())
      return "computation names " + ca.name() + " vs " + cb.name();
    if (ca.instruction_count() != cb.instruction_count())
      return "'" + ca.name() + "': instruction counts differ";
    std::unordered_map<const Instruction*, size_t> index_a, index_b;
    for (size_t i = 0; i < ca.instructions().size(); ++i) {
      index_a[ca.instructions()[i].get()] = i;
      index_b[cb.instructions()[i].get()] = i;
    }
    if ((ca.root() == nullptr) != (cb.root() == nullptr) ||
        (ca.root() && index_a.at(ca.root()) != index_b.at(cb.root())))
      return "'" + ca.name() + "': roots differ";
    auto result_shardings = [](const Computation& c) {
      std::string out;
      for (const auto& s : c.result_shardings())
        out += (s ? s->ToString() : "none") + ";";
      return out;
    };
    if (result_shardings(ca) != result_shardings(cb))
      return "'" + ca.name() + "': result shardings " + result_shardings(ca) +
             " vs " + result_shardings(cb);
    for (size_t i = 0; i < ca.instructions().size(); ++i) {
      std::string d =
          DiffInstruction(*ca.instructions()[i], *cb.instructions()[i], index_a,
                          index_b, comp_a, comp_b, compare_locations);
      if (!d.empty()) return "in '" + ca.name() + "': " + d;
    }
  }
  return "";
}

}  // namespace xffi::hlo_test

#endif  // XFFI_TESTS_CPP_HLO_TEST_UTIL_H_
