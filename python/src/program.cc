// Programs from Python: shapes, the builder (include/xffi/program/builder.h
// with Python names), modules, and compiled executables called on NumPy
// arrays. An executable's __call__ hands the arrays' own memory to
// ExecuteRaw: only Python values that are not arrays of the parameter's
// dtype are converted.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attributes.h"
#include "bindings.h"
#include "common.h"
#include "dlpack.h"
#include "xffi/program/builder.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/runtime/registry.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::python {
namespace {

ElementType ElementTypeOfDtype(nb::handle dtype_like) {
  PyArray_Descr* descr = nullptr;
  if (!PyArray_DescrConverter(dtype_like.ptr(), &descr)) {
    throw nb::python_error();
  }
  XLA_FFI_DataType dtype = DtypeOfTypeNum(descr->type_num);
  std::string name =
      nb::cast<std::string>(nb::str(reinterpret_cast<PyObject*>(descr)));
  Py_DECREF(descr);
  if (dtype == XLA_FFI_DataType_INVALID) {
    ThrowTypeError("dtype " + name + " has no XLA element type");
  }
  return static_cast<ElementType>(dtype);
}

nb::object DtypeOfElementType(ElementType type) {
  PyArray_Descr* descr = DescrOfDtype(ToFfiDataType(type));
  if (descr == nullptr) {
    ThrowTypeError("element type " + std::string(ElementTypeName(type)) +
                   " has no NumPy dtype here");
  }
  return nb::steal(reinterpret_cast<PyObject*>(descr));
}

// An op handle with a copy of its shape: the shape stays readable after
// the builder has handed its instructions to a module.
struct PyOp {
  Op op;
  Shape shape;
};

// What a sub-builder finished: a region for reduce, while, conditional...
struct PyComputation {
  Computation* computation;
};

struct PyModule {
  Module module;
};

class PyBuilder {
 public:
  explicit PyBuilder(std::string name)
      : owned_(std::make_unique<Builder>(std::move(name))),
        builder_(owned_.get()) {}
  PyBuilder(std::unique_ptr<Builder> sub) : owned_(std::move(sub)) {
    builder_ = owned_.get();
  }

  Builder& b() { return *builder_; }

  // Raises the builder's first error when `op` is invalid: Python sees the
  // failing op's message where it was built, not at build().
  PyOp Wrap(Op op) {
    if (!op.valid()) {
      Status status = builder_->status();
      if (status.ok()) status = Internal("builder returned an invalid op");
      ThrowStatus(status);
    }
    return PyOp{op, op.shape()};
  }

  std::vector<Op> Ops(const std::vector<PyOp*>& ops) {
    std::vector<Op> out;
    out.reserve(ops.size());
    for (const PyOp* op : ops) out.push_back(op->op);
    return out;
  }

 private:
  std::unique_ptr<Builder> owned_;
  Builder* builder_;
};

Literal LiteralOf(nb::handle value, nb::handle dtype) {
  PyArray_Descr* descr = nullptr;
  if (!dtype.is_none() && !PyArray_DescrConverter(dtype.ptr(), &descr)) {
    throw nb::python_error();
  }
  // Steals descr.
  PyObject* array =
      PyArray_FromAny(value.ptr(), descr, 0, 0,
                      NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, nullptr);
  if (array == nullptr) throw nb::python_error();
  nb::object owner = nb::steal(array);
  auto* a = reinterpret_cast<PyArrayObject*>(array);
  XLA_FFI_DataType type = DtypeOfTypeNum(PyArray_TYPE(a));
  if (type == XLA_FFI_DataType_INVALID) {
    ThrowTypeError("constant: dtype " +
                   nb::cast<std::string>(
                       nb::str(reinterpret_cast<PyObject*>(PyArray_DESCR(a)))) +
                   " has no XLA element type");
  }
  Shape shape = Shape::Array(
      static_cast<ElementType>(type),
      std::vector<int64_t>(PyArray_DIMS(a), PyArray_DIMS(a) + PyArray_NDIM(a)));
  return Literal::FromBytes(shape, PyArray_DATA(a),
                            static_cast<size_t>(PyArray_NBYTES(a)));
}

std::vector<Computation*> Regions(const std::vector<PyComputation*>& regions) {
  std::vector<Computation*> out;
  for (const PyComputation* r : regions) out.push_back(r->computation);
  return out;
}

// A compiled program. Calls from several Python threads run concurrently:
// the GIL is released around ExecuteRaw, which is safe to call concurrently
// on one executable (cpu/executor.h); only the argument conversion and the
// result arrays' creation hold it.
class PyExecutable {
 public:
  explicit PyExecutable(std::unique_ptr<Executable> executable)
      : executable_(std::move(executable)) {
    for (const Shape& shape : executable_->parameter_shapes()) {
      for (const Shape* leaf : shape.Leaves()) {
        parameter_leaves_.push_back(Leaf(*leaf));
      }
    }
    for (const Shape* leaf : executable_->result_shape().Leaves()) {
      result_leaves_.push_back(Leaf(*leaf));
    }
  }

  Executable& executable() { return *executable_; }

  nb::object Call(nb::args args) {
    const std::vector<Shape>& params = executable_->parameter_shapes();
    if (args.size() != params.size()) {
      ThrowTypeError("the program takes " + CountOf(params.size(), "argument") +
                     " (" + ParameterList() + "), got " +
                     std::to_string(args.size()));
    }
    std::vector<nb::object> keep;  // conversions live until the run ends
    std::vector<const void*> arguments;
    arguments.reserve(parameter_leaves_.size());
    size_t leaf = 0;
    for (size_t i = 0; i < params.size(); ++i) {
      TakeArgument(args[i], params[i], "argument " + std::to_string(i), leaf,
                   arguments, keep);
    }
    std::vector<nb::object> outputs;
    std::vector<void*> results;
    outputs.reserve(result_leaves_.size());
    for (const LeafSpec& spec : result_leaves_) {
      if (spec.token) {
        outputs.push_back(nb::none());
        results.push_back(nullptr);
        continue;
      }
      Py_INCREF(spec.descr.ptr());
      PyObject* array = PyArray_Empty(
          static_cast<int>(spec.dims.size()),
          reinterpret_cast<npy_intp*>(const_cast<int64_t*>(spec.dims.data())),
          reinterpret_cast<PyArray_Descr*>(spec.descr.ptr()), 0);
      if (array == nullptr) throw nb::python_error();
      outputs.push_back(nb::steal(array));
      results.push_back(PyArray_DATA(reinterpret_cast<PyArrayObject*>(array)));
    }
    Status status;
    {
      nb::gil_scoped_release release;
      status = executable_->ExecuteRaw(
          ffi::Span<const void* const>(arguments.data(), arguments.size()),
          ffi::Span<void* const>(results.data(), results.size()));
    }
    if (status.code() == XLA_FFI_Error_Code_DEADLINE_EXCEEDED) {
      // A custom call that timed out may still read the arguments and
      // write the results: they live as long as the program.
      abandoned_.push_back(nb::borrow<nb::object>(args));
      for (nb::object& object : keep) abandoned_.push_back(std::move(object));
      for (nb::object& object : outputs)
        abandoned_.push_back(std::move(object));
    }
    ThrowIfError(status);
    size_t next = 0;
    return Assemble(executable_->result_shape(), outputs, next);
  }

  std::string ParameterList() const {
    std::string s;
    const std::vector<Shape>& params = executable_->parameter_shapes();
    for (size_t i = 0; i < params.size(); ++i) {
      s += (i ? ", " : "") + params[i].ToString(false);
    }
    return s;
  }

 private:
  struct LeafSpec {
    bool token = false;
    ElementType type = ElementType::kInvalid;
    std::vector<int64_t> dims;
    nb::object descr;
  };

  static LeafSpec Leaf(const Shape& shape) {
    LeafSpec spec;
    if (shape.IsToken()) {
      spec.token = true;
      return spec;
    }
    spec.type = shape.element_type();
    spec.dims = shape.dims();
    spec.descr = DtypeOfElementType(spec.type);
    return spec;
  }

  // Arrays of the parameter's dtype are taken as they are (C-contiguous ones
  // without a copy; DLPack producers through numpy.from_dlpack, which wraps
  // their memory); Python scalars and lists are converted to that dtype.
  void TakeArgument(nb::handle value, const Shape& shape,
                    const std::string& where, size_t& leaf,
                    std::vector<const void*>& arguments,
                    std::vector<nb::object>& keep) {
    if (shape.IsTuple()) {
      if (!PyTuple_Check(value.ptr()) && !PyList_Check(value.ptr())) {
        ThrowTypeError(where + " must be a tuple for parameter shape " +
                       shape.ToString(false) + ", got " +
                       PythonTypeName(value));
      }
      nb::sequence seq = nb::borrow<nb::sequence>(value);
      if (nb::len(seq) != static_cast<size_t>(shape.tuple_size())) {
        ThrowValueError(where + " must have " +
                        std::to_string(shape.tuple_size()) + " elements for " +
                        shape.ToString(false) + ", got " +
                        std::to_string(nb::len(seq)));
      }
      for (int64_t i = 0; i < shape.tuple_size(); ++i) {
        TakeArgument(seq[static_cast<size_t>(i)], shape.tuple_shape(i),
                     where + "[" + std::to_string(i) + "]", leaf, arguments,
                     keep);
      }
      return;
    }
    const LeafSpec& spec = parameter_leaves_[leaf++];
    if (spec.token) {
      arguments.push_back(nullptr);
      return;
    }
    nb::handle array_like = value;
    bool is_array = PyArray_Check(value.ptr());
    if (!is_array && !PyArray_IsScalar(value.ptr(), Generic) &&
        PyObject_HasAttrString(value.ptr(), "__dlpack__")) {
      nb::object imported;
      try {
        imported = FromDlpack()(value);
      } catch (nb::python_error&) {
        // bfloat16 tensors, say: NumPy's importer has no dtype for them.
        imported = ArrayFromDlpackExtendedDtype(value);
        if (!imported.is_valid()) throw;
      }
      keep.push_back(std::move(imported));
      array_like = keep.back();
      is_array = true;
    }
    if (is_array) {
      auto* a = reinterpret_cast<PyArrayObject*>(array_like.ptr());
      XLA_FFI_DataType type = DtypeOfTypeNum(PyArray_TYPE(a));
      if (type != ToFfiDataType(spec.type)) {
        ThrowTypeError(where + " has dtype " + DtypeName(type) +
                       ", the parameter is " + shape.ToString(false));
      }
    }
    Py_INCREF(spec.descr.ptr());
    PyObject* converted = PyArray_FromAny(
        array_like.ptr(), reinterpret_cast<PyArray_Descr*>(spec.descr.ptr()), 0,
        0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, nullptr);
    if (converted == nullptr) throw nb::python_error();
    keep.push_back(nb::steal(converted));
    auto* a = reinterpret_cast<PyArrayObject*>(converted);
    std::vector<int64_t> dims(PyArray_DIMS(a),
                              PyArray_DIMS(a) + PyArray_NDIM(a));
    if (dims != spec.dims) {
      ThrowValueError(where + " has shape " +
                      Shape::Array(spec.type, dims).ToString(false) +
                      ", the parameter is " + shape.ToString(false));
    }
    arguments.push_back(PyArray_DATA(a));
  }

  static nb::object& FromDlpack() {
    static nb::object* from_dlpack =
        new nb::object(nb::module_::import_("numpy").attr("from_dlpack"));
    return *from_dlpack;
  }

  static nb::object Assemble(const Shape& shape,
                             std::vector<nb::object>& outputs, size_t& next) {
    if (!shape.IsTuple()) return std::move(outputs[next++]);
    PyObject* tuple = PyTuple_New(shape.tuple_size());
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      PyTuple_SET_ITEM(
          tuple, i,
          Assemble(shape.tuple_shape(i), outputs, next).release().ptr());
    }
    return nb::steal(tuple);
  }

  std::unique_ptr<Executable> executable_;
  std::vector<LeafSpec> parameter_leaves_, result_leaves_;
  std::vector<nb::object> abandoned_;  // see Call; touched with the GIL
};

std::unique_ptr<PyExecutable> CompileModule(Module module, int threads,
                                            bool eliminate_dead_code,
                                            int64_t memory_limit,
                                            double custom_call_timeout) {
  CompileOptions options;
  options.intra_op_threads = threads;
  options.eliminate_dead_code = eliminate_dead_code;
  options.memory_limit_bytes = memory_limit;
  if (!(custom_call_timeout >= 0)) {
    ThrowValueError("custom_call_timeout must be >= 0 seconds, got " +
                    std::to_string(custom_call_timeout));
  }
  options.custom_call_timeout =
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::duration<double>(custom_call_timeout));
  StatusOr<std::unique_ptr<Executable>> executable =
      Compile(std::move(module), options);
  if (!executable.ok()) ThrowStatus(executable.status());
  return std::make_unique<PyExecutable>(std::move(*executable));
}

std::vector<int64_t> Ints(nb::handle sequence) {
  std::vector<int64_t> out;
  for (nb::handle v : sequence) out.push_back(nb::cast<int64_t>(v));
  return out;
}

Opcode OpcodeNamed(const std::string& name, bool binary) {
  std::optional<Opcode> opcode = OpcodeFromName(name);
  if (!opcode) opcode = OpcodeFromStableHloName("stablehlo." + name);
  if (!opcode ||
      (binary ? !IsElementwiseBinary(*opcode) : !IsElementwiseUnary(*opcode))) {
    ThrowValueError(std::string(binary ? "binary" : "unary") + ": '" + name +
                    "' is not an elementwise " + (binary ? "binary" : "unary") +
                    " op (HLO names such as " +
                    (binary ? "'add', 'multiply', 'power'"
                            : "'exponential', 'sqrt', 'negate'") +
                    ")");
  }
  return *opcode;
}

void BindShape(nb::module_& m) {
  nb::class_<Shape>(m, "Shape",
                    "An array (dtype, dimensions, optional minor-to-major "
                    "layout), token or tuple shape, as XLA's.")
      .def_static(
          "array_shape",
          [](nb::handle dtype, nb::handle dims, nb::handle minor_to_major) {
            std::vector<int64_t> layout;
            if (!minor_to_major.is_none()) layout = Ints(minor_to_major);
            return Shape::Array(ElementTypeOfDtype(dtype), Ints(dims),
                                std::move(layout));
          },
          nb::arg("dtype"), nb::arg("dims"),
          nb::arg("minor_to_major").none() = nb::none())
      .def_static(
          "scalar_shape",
          [](nb::handle dtype) {
            return Shape::Scalar(ElementTypeOfDtype(dtype));
          },
          nb::arg("dtype"))
      .def_static("tuple_shape", &Shape::Tuple, nb::arg("shapes"))
      .def_static("token_shape", &Shape::Token)
      .def("is_array", &Shape::IsArray)
      .def("is_tuple", &Shape::IsTuple)
      .def("is_token", &Shape::IsToken)
      .def("dimensions",
           [](const Shape& s) {
             nb::list dims;
             for (int64_t d : s.dims()) dims.append(d);
             return nb::tuple(dims);
           })
      .def("minor_to_major",
           [](const Shape& s) {
             nb::list dims;
             for (int64_t d : s.minor_to_major()) dims.append(d);
             return nb::tuple(dims);
           })
      .def("tuple_shapes", [](const Shape& s) { return s.tuple_shapes(); })
      .def("numpy_dtype",
           [](const Shape& s) { return DtypeOfElementType(s.element_type()); })
      .def_prop_ro("element_type",
                   [](const Shape& s) {
                     return std::string(ElementTypeName(s.element_type()));
                   })
      .def("__eq__", [](const Shape& a, const Shape& b) { return a == b; })
      .def(
          "__hash__",
          [](const Shape& s) { return std::hash<std::string>()(s.ToString()); })
      .def("__str__", [](const Shape& s) { return s.ToString(); })
      .def("__repr__",
           [](const Shape& s) { return "Shape(" + s.ToString() + ")"; });
}

void BindBuilder(nb::module_& m) {
  nb::class_<PyOp>(m, "Op", "A value being built (a Builder's handle).")
      .def_prop_ro("shape", [](const PyOp& op) { return op.shape; })
      .def("__repr__", [](const PyOp& op) {
        return "<xffi.Op " + op.op.instruction()->name() + ": " +
               op.shape.ToString() + ">";
      });
  nb::class_<PyComputation>(m, "Computation",
                            "A region a sub-builder finished (a reducer, a "
                            "loop body, a branch).")
      .def_prop_ro(
          "name", [](const PyComputation& c) { return c.computation->name(); });

  // Every method returning an Op keeps the builder alive as long as the Op.
  using KA = nb::keep_alive<0, 1>;
  nb::class_<PyBuilder>(m, "Builder",
                        "Builds a program op by op (XlaBuilder's model): "
                        "result shapes are inferred, an impossible op raises "
                        "at once naming it.")
      .def(nb::init<std::string>(), nb::arg("name"))
      .def(
          "create_sub_builder",
          [](PyBuilder& self, std::string name) {
            return std::make_unique<PyBuilder>(
                self.b().CreateSubBuilder(std::move(name)));
          },
          nb::arg("name"), KA())
      .def(
          "build_subcomputation",
          [](PyBuilder& self, PyOp& root) {
            Computation* c = self.b().BuildSubcomputation(root.op);
            if (c == nullptr) ThrowStatus(self.b().status());
            return PyComputation{c};
          },
          nb::arg("root"), KA())
      .def(
          "build",
          [](PyBuilder& self, PyOp& root) {
            StatusOr<Module> module = self.b().Build(root.op);
            if (!module.ok()) ThrowStatus(module.status());
            return PyModule{std::move(*module)};
          },
          nb::arg("root"))
      .def(
          "parameter",
          [](PyBuilder& self, int64_t number, const Shape& shape,
             std::string name) {
            return self.Wrap(
                self.b().Parameter(number, shape, std::move(name)));
          },
          nb::arg("number"), nb::arg("shape"), nb::arg("name") = "", KA())
      .def(
          "constant",
          [](PyBuilder& self, nb::handle value, nb::handle dtype) {
            return self.Wrap(self.b().Constant(LiteralOf(value, dtype)));
          },
          nb::arg("value"), nb::arg("dtype").none() = nb::none(), KA(),
          "A constant from a NumPy array or anything numpy.asarray takes "
          "(converted to `dtype` when given).")
      .def(
          "tuple",
          [](PyBuilder& self, const std::vector<PyOp*>& elements) {
            return self.Wrap(self.b().Tuple(self.Ops(elements)));
          },
          nb::arg("elements"), KA())
      .def(
          "get_tuple_element",
          [](PyBuilder& self, PyOp& tuple, int64_t index) {
            return self.Wrap(self.b().GetTupleElement(tuple.op, index));
          },
          nb::arg("tuple"), nb::arg("index"), KA())
      .def(
          "unary",
          [](PyBuilder& self, const std::string& opcode, PyOp& operand) {
            return self.Wrap(
                self.b().Unary(OpcodeNamed(opcode, false), operand.op));
          },
          nb::arg("opcode"), nb::arg("operand"), KA(),
          "An elementwise unary op by HLO name: 'exponential', 'sqrt', ...")
      .def(
          "binary",
          [](PyBuilder& self, const std::string& opcode, PyOp& lhs, PyOp& rhs) {
            return self.Wrap(
                self.b().Binary(OpcodeNamed(opcode, true), lhs.op, rhs.op));
          },
          nb::arg("opcode"), nb::arg("lhs"), nb::arg("rhs"), KA(),
          "An elementwise binary op by HLO name: 'add', 'power', ...")
      .def(
          "compare",
          [](PyBuilder& self, PyOp& lhs, PyOp& rhs,
             const std::string& direction) {
            std::optional<ComparisonDirection> d =
                ComparisonDirectionFromName(direction);
            if (!d) {
              ThrowValueError("compare: direction '" + direction +
                              "' is not one of EQ, NE, GE, GT, LE, LT");
            }
            return self.Wrap(self.b().Compare(lhs.op, rhs.op, *d));
          },
          nb::arg("lhs"), nb::arg("rhs"), nb::arg("direction"), KA())
      .def(
          "select",
          [](PyBuilder& self, PyOp& pred, PyOp& on_true, PyOp& on_false) {
            return self.Wrap(self.b().Select(pred.op, on_true.op, on_false.op));
          },
          nb::arg("pred"), nb::arg("on_true"), nb::arg("on_false"), KA())
      .def(
          "convert",
          [](PyBuilder& self, PyOp& operand, nb::handle dtype) {
            return self.Wrap(
                self.b().Convert(operand.op, ElementTypeOfDtype(dtype)));
          },
          nb::arg("operand"), nb::arg("dtype"), KA())
      .def(
          "iota",
          [](PyBuilder& self, const Shape& shape, int64_t dimension) {
            return self.Wrap(self.b().Iota(shape, dimension));
          },
          nb::arg("shape"), nb::arg("dimension"), KA())
      .def(
          "broadcast_in_dim",
          [](PyBuilder& self, PyOp& operand, std::vector<int64_t> result_dims,
             std::vector<int64_t> broadcast_dimensions) {
            return self.Wrap(
                self.b().BroadcastInDim(operand.op, std::move(result_dims),
                                        std::move(broadcast_dimensions)));
          },
          nb::arg("operand"), nb::arg("result_dims"),
          nb::arg("broadcast_dimensions"), KA())
      .def(
          "reshape",
          [](PyBuilder& self, PyOp& operand, std::vector<int64_t> dims) {
            return self.Wrap(self.b().Reshape(operand.op, std::move(dims)));
          },
          nb::arg("operand"), nb::arg("dims"), KA())
      .def(
          "transpose",
          [](PyBuilder& self, PyOp& operand, std::vector<int64_t> permutation) {
            return self.Wrap(
                self.b().Transpose(operand.op, std::move(permutation)));
          },
          nb::arg("operand"), nb::arg("permutation"), KA())
      .def(
          "slice",
          [](PyBuilder& self, PyOp& operand, std::vector<int64_t> starts,
             std::vector<int64_t> limits,
             std::optional<std::vector<int64_t>> strides) {
            std::vector<int64_t> s =
                strides ? *strides : std::vector<int64_t>(starts.size(), 1);
            return self.Wrap(self.b().Slice(operand.op, std::move(starts),
                                            std::move(limits), std::move(s)));
          },
          nb::arg("operand"), nb::arg("starts"), nb::arg("limits"),
          nb::arg("strides").none() = nb::none(), KA())
      .def(
          "concatenate",
          [](PyBuilder& self, const std::vector<PyOp*>& operands,
             int64_t dimension) {
            return self.Wrap(
                self.b().Concatenate(self.Ops(operands), dimension));
          },
          nb::arg("operands"), nb::arg("dimension"), KA())
      .def(
          "dot",
          [](PyBuilder& self, PyOp& lhs, PyOp& rhs) {
            return self.Wrap(self.b().Dot(lhs.op, rhs.op));
          },
          nb::arg("lhs"), nb::arg("rhs"), KA())
      .def(
          "reduce",
          [](PyBuilder& self, const std::vector<PyOp*>& operands,
             const std::vector<PyOp*>& inits, PyComputation& reducer,
             std::vector<int64_t> dimensions) {
            return self.Wrap(
                self.b().Reduce(self.Ops(operands), self.Ops(inits),
                                reducer.computation, std::move(dimensions)));
          },
          nb::arg("operands"), nb::arg("inits"), nb::arg("reducer"),
          nb::arg("dimensions"), KA())
      .def(
          "while_loop",
          [](PyBuilder& self, PyComputation& condition, PyComputation& body,
             PyOp& init) {
            return self.Wrap(self.b().While(condition.computation,
                                            body.computation, init.op));
          },
          nb::arg("condition"), nb::arg("body"), nb::arg("init"), KA())
      .def(
          "conditional",
          [](PyBuilder& self, PyOp& index,
             const std::vector<PyComputation*>& branches,
             const std::vector<PyOp*>& branch_operands) {
            return self.Wrap(self.b().Conditional(index.op, Regions(branches),
                                                  self.Ops(branch_operands)));
          },
          nb::arg("index"), nb::arg("branches"), nb::arg("branch_operands"),
          KA())
      .def(
          "call",
          [](PyBuilder& self, PyComputation& computation,
             const std::vector<PyOp*>& operands) {
            return self.Wrap(
                self.b().Call(computation.computation, self.Ops(operands)));
          },
          nb::arg("computation"), nb::arg("operands"), KA())
      .def(
          "custom_call",
          [](PyBuilder& self, std::string target,
             const std::vector<PyOp*>& operands, const Shape& shape,
             nb::handle opaque, bool has_side_effect,
             std::vector<std::pair<int64_t, int64_t>> output_operand_aliases,
             int api_version, nb::handle attributes,
             std::optional<std::vector<Shape>> operand_shapes_with_layout) {
            if (api_version < 1 || api_version > 4) {
              ThrowValueError("custom_call('" + target +
                              "'): api_version must be 1, 2, 3 (legacy) or "
                              "4 (typed FFI), got " +
                              std::to_string(api_version));
            }
            FfiAttributes attrs;
            if (!attributes.is_none() && nb::len(attributes) > 0) {
              if (api_version != 4) {
                ThrowValueError("custom_call('" + target +
                                "'): attributes are for typed FFI calls "
                                "(api_version=4); legacy calls take opaque");
              }
              // Checked and narrowed against the handler's description when
              // it is registered already, as eager calls are.
              std::vector<const XFFI_Signature*> signatures;
              StatusOr<const HandlerRecord*> record =
                  FindHandler(target, "cpu");
              if (record.ok()) {
                signatures = StageSignatures(target, (*record)->bundle);
              }
              attrs = ConvertAttributes(attributes, signatures, target,
                                        "custom_call");
            }
            std::string opaque_bytes;
            if (PyBytes_Check(opaque.ptr())) {
              opaque_bytes.assign(
                  PyBytes_AS_STRING(opaque.ptr()),
                  static_cast<size_t>(PyBytes_GET_SIZE(opaque.ptr())));
            } else if (!opaque.is_none()) {
              opaque_bytes = nb::cast<std::string>(opaque);
            }
            std::vector<OutputOperandAlias> aliases;
            for (auto [output, operand] : output_operand_aliases) {
              OutputOperandAlias alias;
              if (shape.IsTuple()) alias.output_index = {output};
              alias.operand = operand;
              aliases.push_back(alias);
            }
            const auto version = static_cast<CustomCallApiVersion>(api_version);
            if (operand_shapes_with_layout) {
              Op op = self.b().CustomCallWithLayout(
                  std::move(target), self.Ops(operands), shape,
                  *operand_shapes_with_layout, std::move(opaque_bytes),
                  has_side_effect, version, std::move(attrs));
              if (op.valid() && !aliases.empty()) {
                op.instruction()->custom_call.output_operand_aliases = aliases;
              }
              return self.Wrap(op);
            }
            return self.Wrap(self.b().CustomCall(
                std::move(target), self.Ops(operands), shape,
                std::move(opaque_bytes), has_side_effect, std::move(aliases),
                nullptr, CustomCallSchedule::kNone, version, std::move(attrs)));
          },
          nb::arg("target"), nb::arg("operands"), nb::arg("shape"),
          nb::arg("opaque").none() = nb::none(),
          nb::arg("has_side_effect") = false,
          nb::arg("output_operand_aliases") =
              std::vector<std::pair<int64_t, int64_t>>{},
          nb::arg("api_version") = 1, nb::arg("attributes").none() = nb::none(),
          nb::arg("operand_shapes_with_layout").none() = nb::none(), KA(),
          "XLA's CustomCall. api_version 1-3 calls a legacy target with "
          "`opaque` as its backend_config; 4 a typed FFI handler with "
          "`attributes` (a dict, checked against the handler's description "
          "when it is registered). output_operand_aliases: (result index, "
          "operand) pairs.");
}

}  // namespace

void BindProgram(nb::module_& m) {
  BindShape(m);
  BindBuilder(m);

  nb::class_<PyModule>(m, "Module",
                       "A program: what a Builder built or a "
                       "text parsed.")
      .def_prop_ro("name", [](const PyModule& p) { return p.module.name(); })
      .def("hlo_text", [](const PyModule& p) { return PrintHlo(p.module); })
      .def("__str__", [](const PyModule& p) { return PrintHlo(p.module); })
      .def(
          "compile",
          [](const PyModule& p, int intra_op_threads, bool eliminate_dead_code,
             int64_t memory_limit, double custom_call_timeout) {
            return CompileModule(p.module.Clone(), intra_op_threads,
                                 eliminate_dead_code, memory_limit,
                                 custom_call_timeout);
          },
          nb::arg("intra_op_threads") = 0,
          nb::arg("eliminate_dead_code") = true, nb::arg("memory_limit") = 0,
          nb::arg("custom_call_timeout") = 0.0);

  m.def(
      "_parse_program",
      [](const std::string& text, const std::string& source_name) {
        StatusOr<Module> module = ParseProgram(text, source_name);
        if (!module.ok()) ThrowStatus(module.status());
        return PyModule{std::move(*module)};
      },
      nb::arg("text"), nb::arg("source_name") = "<input>");
  m.def(
      "_detect_program_format",
      [](const std::string& text) {
        return DetectProgramFormat(text) == ProgramFormat::kHlo ? "hlo"
                                                                : "stablehlo";
      },
      nb::arg("text"));

  nb::class_<PyExecutable>(m, "_Executable")
      .def("__call__", &PyExecutable::Call)
      .def_prop_ro(
          "parameter_shapes",
          [](PyExecutable& e) { return e.executable().parameter_shapes(); })
      .def_prop_ro(
          "result_shape",
          [](PyExecutable& e) { return e.executable().result_shape(); })
      .def_prop_ro("intra_op_threads",
                   [](PyExecutable& e) {
                     ThreadPool* pool = e.executable().context().thread_pool();
                     return pool == nullptr ? 0 : pool->num_threads();
                   })
      .def("hlo_text",
           [](PyExecutable& e) { return PrintHlo(e.executable().module()); });
}

}  // namespace xffi::python
