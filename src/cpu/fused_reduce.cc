// The evaluator of reduction fusions (see fused_reduce.h).
#include "cpu/fused_reduce.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/arg_reduce.h"
#include "cpu/elementwise_loops.h"
#include "cpu/fused_loop.h"
#include "cpu/index_util.h"
#include "cpu/reduce_loops.h"
#include "cpu/region_util.h"
#include "passes/reduction_tree.h"

namespace xffi::cpu {
namespace {

constexpr int64_t kTileElements = 4096;
// Columns per block of a column reduction. A reduction of at most one
// block's columns is one block whose rows lie back to back, so its tiles
// span whole rows: a tile of one short row (batch norm's 64 channels)
// would cost more in kernel calls than in arithmetic.
constexpr int64_t kColumnBlock = 1024;
// Below this many columns a column reduction's rows are cut into pieces
// (see Make); XFFI_FUSED_REDUCE_FEW_COLUMNS=0 refuses it instead, as this
// evaluator did before its tiles spanned rows (the fused computation then
// runs as a call): for A/B measurements.
constexpr int64_t kFewColumns = 256;

bool FewColumnsRefused() {
  const char* text = std::getenv("XFFI_FUSED_REDUCE_FEW_COLUMNS");
  return text != nullptr && std::string(text) == "0";
}

// The offset of the result element the input element at `linear` feeds.
int64_t ResultOffset(const DualLoops& loops, int64_t linear) {
  int64_t offset = 0;
  for (size_t d = loops.dims.size(); d-- > 0;) {
    offset += (linear % loops.dims[d]) * loops.b_strides[d];
    linear /= loops.dims[d];
  }
  return offset;
}

// One reduce's fold on one thread. A range of the input's linear index
// space (a whole number of runs: stretches of the innermost loop dimension)
// arrives tile by tile.
class Accumulator {
 public:
  virtual ~Accumulator() = default;
  // The range starts at `at`; its runs have `run` elements and fold into
  // the results at `out` (one array per result of the reduce).
  virtual void Begin(int64_t at, int64_t run, unsigned char* const* out) = 0;
  // values[i]: the tile of the reduce's input i.
  virtual void Feed(unsigned char* const* values, int64_t count) = 0;
};

// Runs along a reduced dimension: each folds into one result element the
// way ReduceRuns (reduce.cc) folds a contiguous run: eight lanes started by
// the first eight values and combined into the result in lane order, then
// the last values in order (runs shorter than 16, and every run of a small
// float reduction, as ReduceRuns: in order).
template <typename T, typename Op>
class RowAccumulator final : public Accumulator {
 public:
  RowAccumulator(const DualLoops& loops, Op op)
      : loops_(loops),
        op_(op),
        lane_run_(std::is_floating_point_v<T> &&
                          Product(loops.dims) <
                              passes::kXlaOrderedReduceElements
                      ? std::numeric_limits<int64_t>::max()
                      : 16) {}

  void Begin(int64_t at, int64_t run, unsigned char* const* out) override {
    next_ = at;
    run_ = run;
    pos_ = run;  // no run open
    out_ = reinterpret_cast<T*>(out[0]);
  }

  void Feed(unsigned char* const* inputs, int64_t count) override {
    const T* values = reinterpret_cast<const T*>(inputs[0]);
    while (count > 0) {
      if (pos_ == run_) Open();
      int64_t used = Fold(values, count);
      values += used;
      count -= used;
    }
  }

 private:
  void Open() {
    dst_ = out_ + ResultOffset(loops_, next_);
    next_ += run_;
    pos_ = 0;
    folded_ = false;
    if (run_ < lane_run_) acc_ = *dst_;
  }

  // Folds up to `count` values of the open run; returns how many.
  int64_t Fold(const T* v, int64_t count) {
    const int64_t n = run_;
    int64_t i = 0;
    if (n < lane_run_) {
      const int64_t take = std::min(count, n - pos_);
      T acc = acc_;
      for (; i < take; ++i) acc = op_(acc, v[i]);
      acc_ = acc;
      pos_ += take;
      if (pos_ == n) *dst_ = acc;
      return take;
    }
    const int64_t lanes_end = n & ~int64_t{7};
    while (pos_ < 8 && i < count) part_[pos_++] = v[i++];
    if (pos_ < lanes_end) {
      while (pos_ < lanes_end && (pos_ & 7) != 0 && i < count) {
        part_[pos_ & 7] = op_(part_[pos_ & 7], v[i]);
        ++pos_;
        ++i;
      }
      if ((pos_ & 7) == 0) {
        const int64_t blocks =
            std::min((lanes_end - pos_) / 8, (count - i) / 8);
        T lanes[8];
        for (int j = 0; j < 8; ++j) lanes[j] = part_[j];
        for (int64_t b = 0; b < blocks; ++b, i += 8)
          for (int j = 0; j < 8; ++j) lanes[j] = op_(lanes[j], v[i + j]);
        for (int j = 0; j < 8; ++j) part_[j] = lanes[j];
        pos_ += blocks * 8;
      }
      while (pos_ < lanes_end && i < count) {
        part_[pos_ & 7] = op_(part_[pos_ & 7], v[i]);
        ++pos_;
        ++i;
      }
    }
    if (pos_ == lanes_end && !folded_) {
      T acc = *dst_;
      for (int j = 0; j < 8; ++j) acc = op_(acc, part_[j]);
      acc_ = acc;
      folded_ = true;
    }
    if (folded_) {
      T acc = acc_;
      for (; pos_ < n && i < count; ++pos_, ++i) acc = op_(acc, v[i]);
      acc_ = acc;
      if (pos_ == n) *dst_ = acc;
    }
    return i;
  }

  const DualLoops& loops_;
  Op op_;
  // Runs at least this long fold in eight lanes.
  const int64_t lane_run_;
  T* out_ = nullptr;
  T* dst_ = nullptr;
  int64_t next_ = 0, run_ = 0, pos_ = 0;
  bool folded_ = false;
  T part_[8] = {};
  T acc_ = T();
};

// Runs along a kept dimension: value i of a run folds into result i of the
// run's results, in the order the runs come (down a column).
template <typename T, typename Op>
class ColumnAccumulator final : public Accumulator {
 public:
  ColumnAccumulator(const DualLoops& loops, Op op) : loops_(loops), op_(op) {}

  void Begin(int64_t at, int64_t run, unsigned char* const* out) override {
    next_ = at;
    run_ = run;
    pos_ = run;
    out_ = reinterpret_cast<T*>(out[0]);
  }

  void Feed(unsigned char* const* inputs, int64_t count) override {
    const T* v = reinterpret_cast<const T*>(inputs[0]);
    while (count > 0) {
      if (pos_ == run_) {
        dst_ = out_ + ResultOffset(loops_, next_);
        next_ += run_;
        pos_ = 0;
      }
      const int64_t take = std::min(count, run_ - pos_);
      T* dst = dst_ + pos_;
      for (int64_t i = 0; i < take; ++i) dst[i] = op_(dst[i], v[i]);
      pos_ += take;
      v += take;
      count -= take;
    }
  }

 private:
  const DualLoops& loops_;
  Op op_;
  T* out_ = nullptr;
  T* dst_ = nullptr;
  int64_t next_ = 0, run_ = 0, pos_ = 0;
};

// argmax/argmin (arg_reduce.h): every input element steps the pair of
// results it feeds, in input order, as the unfused kernel does.
template <typename T, typename I, bool kGreater, bool kAccFirst>
class ArgAccumulator final : public Accumulator {
 public:
  ArgAccumulator(const DualLoops& loops, bool inner_reduced, bool nan_wins)
      : loops_(loops), inner_reduced_(inner_reduced), nan_wins_(nan_wins) {}

  void Begin(int64_t at, int64_t run, unsigned char* const* out) override {
    next_ = at;
    run_ = run;
    pos_ = run;
    values_ = reinterpret_cast<T*>(out[0]);
    indices_ = reinterpret_cast<I*>(out[1]);
  }

  void Feed(unsigned char* const* inputs, int64_t count) override {
    const T* v = reinterpret_cast<const T*>(inputs[0]);
    const I* i = reinterpret_cast<const I*>(inputs[1]);
    while (count > 0) {
      if (pos_ == run_) {
        base_ = ResultOffset(loops_, next_);
        next_ += run_;
        pos_ = 0;
      }
      const int64_t take = std::min(count, run_ - pos_);
      for (int64_t j = 0; j < take; ++j) {
        const int64_t at = inner_reduced_ ? base_ : base_ + pos_ + j;
        ArgReduceStep<T, I, kGreater, kAccFirst>(values_[at], indices_[at],
                                                 v[j], i[j], nan_wins_);
      }
      pos_ += take;
      v += take;
      i += take;
      count -= take;
    }
  }

 private:
  const DualLoops& loops_;
  bool inner_reduced_, nan_wins_;
  T* values_ = nullptr;
  I* indices_ = nullptr;
  int64_t next_ = 0, run_ = 0, pos_ = 0, base_ = 0;
};

// What the fold of one reduce needs that depends on its element type and
// reducer.
class ReduceOps {
 public:
  virtual ~ReduceOps() = default;
  virtual std::unique_ptr<Accumulator> NewAccumulator(
      const DualLoops& loops, bool inner_reduced) const = 0;
  // Whether init values (one per result) may start every partial result.
  virtual bool IsIdentity(const void* init) const = 0;
  // out[c] = partials[c] combined with each later piece's partial c in
  // order, for the `columns` results of each of `count` pieces.
  virtual void FoldPartials(const unsigned char* partials, int64_t count,
                            int64_t columns, unsigned char* out) const = 0;
};

template <typename T, typename Op>
class TypedReduceOps final : public ReduceOps {
 public:
  TypedReduceOps(CombineOp combine, Op op) : combine_(combine), op_(op) {}

  std::unique_ptr<Accumulator> NewAccumulator(
      const DualLoops& loops, bool inner_reduced) const override {
    if (inner_reduced)
      return std::make_unique<RowAccumulator<T, Op>>(loops, op_);
    return std::make_unique<ColumnAccumulator<T, Op>>(loops, op_);
  }
  bool IsIdentity(const void* init) const override {
    return cpu::IsIdentity(combine_, *static_cast<const T*>(init));
  }
  void FoldPartials(const unsigned char* partials, int64_t count,
                    int64_t columns, unsigned char* out) const override {
    const T* part = reinterpret_cast<const T*>(partials);
    T* dst = reinterpret_cast<T*>(out);
    for (int64_t c = 0; c < columns; ++c) dst[c] = part[c];
    for (int64_t p = 1; p < count; ++p)
      for (int64_t c = 0; c < columns; ++c)
        dst[c] = op_(dst[c], part[p * columns + c]);
  }

 private:
  CombineOp combine_;
  Op op_;
};

template <typename T, typename I, bool kGreater, bool kAccFirst>
class ArgReduceOps final : public ReduceOps {
 public:
  explicit ArgReduceOps(bool nan_wins) : nan_wins_(nan_wins) {}
  std::unique_ptr<Accumulator> NewAccumulator(
      const DualLoops& loops, bool inner_reduced) const override {
    return std::make_unique<ArgAccumulator<T, I, kGreater, kAccFirst>>(
        loops, inner_reduced, nan_wins_);
  }
  // The unfused kernel never splits one result's inputs: neither do we.
  bool IsIdentity(const void*) const override { return false; }
  void FoldPartials(const unsigned char*, int64_t, int64_t,
                    unsigned char*) const override {}

 private:
  bool nan_wins_;
};

template <typename T, typename I>
std::unique_ptr<ReduceOps> ArgOps(const ArgReduceRegion& p) {
  if (p.greater && p.accumulator_first)
    return std::make_unique<ArgReduceOps<T, I, true, true>>(p.nan_wins);
  if (p.greater)
    return std::make_unique<ArgReduceOps<T, I, true, false>>(p.nan_wins);
  if (p.accumulator_first)
    return std::make_unique<ArgReduceOps<T, I, false, true>>(p.nan_wins);
  return std::make_unique<ArgReduceOps<T, I, false, false>>(p.nan_wins);
}

// Where a reduce's init value is: a fusion operand, or a constant's bytes.
struct Init {
  int parameter = -1;
  const void* constant = nullptr;
};

// One value the fusion returns: a reduce (its results are one or two of
// the fusion's results) or a loop value (one).
struct Output {
  bool reduce = false;
  int first_value = 0;                // its first value among the tiles' values
  int first_result = 0;               // its first result among the fusion's
  std::vector<size_t> element_bytes;  // per result
  std::unique_ptr<ReduceOps> ops;     // reduce
  std::vector<Init> inits;            // reduce: per result
};

// How the input index space is cut into ranges (see fused_reduce.h).
enum class Layout { kRows, kColumns, kOneResult };

class FusedReduce {
 public:
  static StatusOr<std::shared_ptr<FusedReduce>> Make(const Instruction& fusion);
  Status Run(const KernelArgs& args);

 private:
  // Folds the ranges of work items [begin, end) into `targets` (a result or
  // a partial per output), on one thread.
  Status RunItems(int64_t begin, int64_t end,
                  const std::vector<unsigned char*>& targets,
                  unsigned char* const* results);
  // The linear ranges of work item `item`, in order: body(at, count).
  template <typename Body>
  void ForEachRange(int64_t item, const Body& body) const;

  std::vector<Output> outputs_;
  int result_count_ = 0;
  std::unique_ptr<FusedTiles> tiles_;
  DualLoops loops_;
  bool inner_reduced_ = false;
  Layout layout_ = Layout::kRows;
  int64_t n_ = 0;            // input elements
  int64_t out_count_ = 0;    // elements of each reduce's result
  int64_t outer_ = 1;        // kRows, kColumns: reduced extent outside
  int64_t extent_ = 0;       // kRows: the split dimension; kColumns: columns
  int64_t inner_ = 0;        // kRows: elements per index of the split dim
  int64_t group_ = 1;        // kRows: split-dim indices per range
  int64_t items_ = 0;        // work items
  int64_t run_ = 0;          // kRows, kColumns: elements per run
  bool whole_rows_ = false;  // kColumns: one range over every row
  int64_t piece_ = 0;        // whole_rows_: input elements per piece
};

template <typename Body>
void FusedReduce::ForEachRange(int64_t item, const Body& body) const {
  switch (layout_) {
    case Layout::kRows: {
      // Item: `group_` indices of the split dimension, for every index of
      // the reduced dimensions outside it.
      const int64_t first = item * group_;
      const int64_t count = std::min(group_, extent_ - first) * inner_;
      for (int64_t o = 0; o < outer_; ++o)
        body((o * extent_ + first) * inner_, count);
      break;
    }
    case Layout::kColumns: {
      // One block of every column: the rows are one range, in order, or
      // fixed pieces of whole rows.
      if (whole_rows_) {
        if (items_ == 1)
          body(0, n_);
        else
          body(item * piece_, std::min(piece_, n_ - item * piece_));
        break;
      }
      // Item: a block of columns, down every row.
      const int64_t first = item * kColumnBlock;
      const int64_t count = std::min(kColumnBlock, extent_ - first);
      for (int64_t o = 0; o < outer_; ++o) body(o * extent_ + first, count);
      break;
    }
    case Layout::kOneResult: {
      // Item: a fixed piece (all of it when there is one item).
      const int64_t piece = items_ == 1 ? n_ : kPartialElements;
      body(item * piece, std::min(piece, n_ - item * piece));
      break;
    }
  }
}

StatusOr<std::shared_ptr<FusedReduce>> FusedReduce::Make(
    const Instruction& fusion) {
  auto made = std::make_shared<FusedReduce>();
  FusedReduce& self = *made;
  const Computation& fused = *fusion.called_computations()[0];
  const Instruction* root = fused.root();
  std::vector<const Instruction*> returned;
  if (root->opcode() == Opcode::kTuple)
    returned.assign(root->operands().begin(), root->operands().end());
  else
    returned.push_back(root);
  const Instruction* first_reduce = nullptr;
  std::vector<const Instruction*> values;
  int results = 0;
  for (const Instruction* value : returned) {
    Output output;
    output.first_value = static_cast<int>(values.size());
    output.first_result = results;
    if (value->opcode() != Opcode::kReduce) {
      if (!value->shape().IsArray()) return NotFound("a non-array output");
      output.element_bytes = {ElementByteSize(value->shape().element_type())};
      values.push_back(value);
      ++results;
      self.outputs_.push_back(std::move(output));
      continue;
    }
    if (first_reduce == nullptr) first_reduce = value;
    const int64_t inputs = value->operand_count() / 2;
    const Computation* region = value->called_computations()[0];
    const ElementType type = value->operand(0)->shape().element_type();
    if (inputs == 1) {
      const CombineOp combine = MatchCombineRegion(region);
      if (combine == CombineOp::kSet || !FastOpSupported(combine, type))
        return NotFound("a reducer without a typed fold");
      DispatchFastType(type, [&](auto zero) {
        using T = decltype(zero);
        DispatchCombine<T>(combine, [&](auto fn) {
          output.ops =
              std::make_unique<TypedReduceOps<T, decltype(fn)>>(combine, fn);
        });
      });
    } else if (inputs == 2) {
      const std::optional<ArgReduceRegion> pattern =
          MatchArgReduceRegion(region);
      const ElementType index = value->operand(1)->shape().element_type();
      if (pattern && type != ElementType::kPred &&
          (index == ElementType::kS32 || index == ElementType::kS64))
        DispatchFastType(type, [&](auto zero) {
          using T = decltype(zero);
          output.ops = index == ElementType::kS32
                           ? ArgOps<T, int32_t>(*pattern)
                           : ArgOps<T, int64_t>(*pattern);
        });
    }
    if (output.ops == nullptr) return NotFound("a reduce without a typed fold");
    for (int64_t i = 0; i < inputs; ++i) {
      const Instruction* init = value->operand(inputs + i);
      Init where;
      if (init->opcode() == Opcode::kParameter)
        where.parameter = static_cast<int>(init->parameter_number);
      else if (init->opcode() == Opcode::kConstant)
        where.constant = init->literal.data();
      else
        return NotFound("an init value computed in the fusion");
      output.inits.push_back(where);
      output.element_bytes.push_back(
          ElementByteSize(value->operand(i)->shape().element_type()));
      values.push_back(value->operand(i));
    }
    output.reduce = true;
    results += static_cast<int>(inputs);
    self.outputs_.push_back(std::move(output));
  }
  self.result_count_ = results;
  if (first_reduce == nullptr) return NotFound("no reduce");

  const Shape& input = first_reduce->operand(0)->shape();
  self.n_ = input.num_elements();
  if (self.n_ == 0) return NotFound("an empty input");
  std::vector<bool> reduced(static_cast<size_t>(input.rank()), false);
  for (int64_t d : first_reduce->dimensions)
    reduced[static_cast<size_t>(d)] = true;
  self.loops_ = MakeReduceLoops(input.dims(), reduced);
  // A variadic reduce's shape is a tuple: count its first result.
  const Shape& result = first_reduce->shape().IsTuple()
                            ? first_reduce->shape().tuple_shapes()[0]
                            : first_reduce->shape();
  self.out_count_ = result.num_elements();
  self.inner_reduced_ = self.loops_.b_strides.back() == 0;
  const std::vector<int64_t>& dims = self.loops_.dims;
  const int dim = KeptSplitDim(self.loops_);
  const size_t last = dims.size() - 1;
  int64_t tile = 0;
  std::vector<int64_t> partial;
  if (dim < 0) {
    self.layout_ = Layout::kOneResult;
    // Pieces as the unfused kernel cuts them; one item when it would not.
    self.items_ = (self.n_ + kPartialElements - 1) / kPartialElements;
    tile = std::min(kTileElements, self.n_);
    partial = {self.n_ % tile, kPartialElements % tile};
  } else if (static_cast<size_t>(dim) < last) {
    self.layout_ = Layout::kRows;
    const auto split = static_cast<size_t>(dim);
    for (size_t d = 0; d < split; ++d) self.outer_ *= dims[d];
    self.extent_ = dims[split];
    self.inner_ = 1;
    for (size_t d = split + 1; d < dims.size(); ++d) self.inner_ *= dims[d];
    self.group_ =
        std::clamp<int64_t>(kTileElements / self.inner_, 1, self.extent_);
    self.items_ = (self.extent_ + self.group_ - 1) / self.group_;
    self.run_ = dims[last];
    const int64_t range = self.group_ * self.inner_;
    tile = std::min(kTileElements, range);
    partial = {range % tile, (self.extent_ % self.group_) * self.inner_ % tile};
  } else {
    self.layout_ = Layout::kColumns;
    for (size_t d = 0; d < last; ++d) self.outer_ *= dims[d];
    self.extent_ = dims[last];
    if (self.extent_ < kFewColumns && FewColumnsRefused())
      return NotFound("a column reduction of few columns");
    self.run_ = self.extent_;
    if (self.extent_ <= kColumnBlock) {
      // Fewer columns than kFewColumns are too few to split across the
      // pool: their rows are, in fixed pieces of whole rows, each folding
      // into partial results combined in order (as a reduction to one
      // element is), so the result does not depend on the thread count.
      // Wider blocks fold each column down its rows in order (the unfused
      // kernel's order) as one item, as the generated column loop does.
      self.whole_rows_ = true;
      const int64_t piece_rows =
          self.extent_ < kFewColumns
              ? std::max<int64_t>(1, kPartialElements / self.extent_)
              : self.outer_;
      self.items_ = (self.outer_ + piece_rows - 1) / piece_rows;
      self.piece_ = std::min(piece_rows, self.outer_) * self.extent_;
      tile = std::clamp<int64_t>(kTileElements / self.extent_, 1,
                                 std::min(piece_rows, self.outer_)) *
             self.extent_;
      partial = {self.n_ % tile, self.piece_ % tile,
                 (self.n_ % self.piece_) % tile};
    } else {
      self.items_ = (self.extent_ + kColumnBlock - 1) / kColumnBlock;
      tile = kColumnBlock;
      partial = {self.extent_ % tile};
    }
  }
  StatusOr<std::unique_ptr<FusedTiles>> tiles =
      FusedTiles::Make(fusion, values, tile, partial);
  if (!tiles.ok()) return tiles.status();
  self.tiles_ = std::move(*tiles);
  return made;
}

Status FusedReduce::RunItems(int64_t begin, int64_t end,
                             const std::vector<unsigned char*>& targets,
                             unsigned char* const* results) {
  std::shared_ptr<FusedTiles::Buffers> buffers = tiles_->NewBuffers();
  std::vector<std::unique_ptr<Accumulator>> folds(outputs_.size());
  for (size_t k = 0; k < outputs_.size(); ++k)
    if (outputs_[k].reduce)
      folds[k] = outputs_[k].ops->NewAccumulator(loops_, inner_reduced_);
  const TileSink sink = [&](int64_t at, int64_t count,
                            unsigned char* const* values) {
    for (size_t k = 0; k < outputs_.size(); ++k) {
      const Output& output = outputs_[k];
      unsigned char* const* own = values + output.first_value;
      if (folds[k] != nullptr) {
        folds[k]->Feed(own, count);
      } else {
        // Computed into its result already, unless read in place.
        const size_t bytes = output.element_bytes[0];
        unsigned char* to =
            results[output.first_result] + static_cast<size_t>(at) * bytes;
        if (own[0] != to)
          std::memcpy(to, own[0], static_cast<size_t>(count) * bytes);
      }
    }
  };
  // Loop values are computed straight into their results.
  std::vector<unsigned char*> direct(static_cast<size_t>(tiles_->ValueCount()),
                                     nullptr);
  for (const Output& output : outputs_)
    if (!output.reduce)
      direct[static_cast<size_t>(output.first_value)] =
          results[output.first_result];
  Status status;
  std::vector<unsigned char*> item_targets;
  for (int64_t item = begin; item < end && status.ok(); ++item) {
    item_targets = targets;
    // A piece of a reduction to one element, or of a few columns' rows,
    // folds into its partials.
    if ((layout_ == Layout::kOneResult || whole_rows_) && items_ > 1)
      for (const Output& output : outputs_)
        for (size_t r = 0; r < output.inits.size(); ++r)
          item_targets[static_cast<size_t>(output.first_result) + r] +=
              static_cast<size_t>(item * out_count_) * output.element_bytes[r];
    ForEachRange(item, [&](int64_t at, int64_t count) {
      if (!status.ok()) return;
      // A range is one run but in kRows and whole-row columns.
      const int64_t run =
          layout_ == Layout::kRows || whole_rows_ ? run_ : count;
      for (size_t k = 0; k < outputs_.size(); ++k)
        if (folds[k] != nullptr)
          folds[k]->Begin(at, run,
                          item_targets.data() + outputs_[k].first_result);
      status = tiles_->Run(at, at + count, *buffers, sink, direct.data());
    });
  }
  return status;
}

Status FusedReduce::Run(const KernelArgs& args) {
  if (Status status = tiles_->Prepare(args); !status.ok()) return status;
  const auto results_count = static_cast<size_t>(result_count_);
  std::vector<unsigned char*> results(results_count);
  for (size_t r = 0; r < results_count; ++r)
    results[r] = static_cast<unsigned char*>(args.results[r].data);
  // Per result of a reduce: its init value.
  std::vector<const void*> inits(results_count, nullptr);
  bool split_one_result =
      (layout_ == Layout::kOneResult || whole_rows_) && items_ > 1;
  for (const Output& output : outputs_) {
    for (size_t r = 0; r < output.inits.size(); ++r) {
      const Init& init = output.inits[r];
      inits[static_cast<size_t>(output.first_result) + r] =
          init.parameter >= 0
              ? args.operands[static_cast<size_t>(init.parameter)].data
              : init.constant;
    }
    if (output.reduce && !output.ops->IsIdentity(
                             inits[static_cast<size_t>(output.first_result)]))
      split_one_result = false;
  }
  // A reduction to one element (or of few columns) whose init value could
  // not start every piece runs as one piece, as the unfused kernel does.
  const int64_t saved_items = items_;
  if ((layout_ == Layout::kOneResult || whole_rows_) && !split_one_result)
    items_ = 1;
  std::vector<std::vector<unsigned char>> partials(results_count);
  std::vector<unsigned char*> targets = results;
  for (const Output& output : outputs_) {
    for (size_t r = 0; r < output.inits.size(); ++r) {
      const size_t result = static_cast<size_t>(output.first_result) + r;
      const size_t bytes = output.element_bytes[r];
      if (split_one_result) {
        partials[result].resize(static_cast<size_t>(items_ * out_count_) *
                                bytes);
        targets[result] = partials[result].data();
        FillElements(targets[result], items_ * out_count_, inits[result],
                     bytes);
      } else {
        FillElements(targets[result], out_count_, inits[result], bytes);
      }
    }
  }
  const double item_nanos =
      kElementNanos * static_cast<double>(tiles_->StepCount() + 1) *
      static_cast<double>(n_) / static_cast<double>(items_);
  Status failure;
  std::mutex failure_mutex;
  auto body = [&](int64_t begin, int64_t end) {
    Status status = RunItems(begin, end, targets, results.data());
    if (status.ok()) return;
    std::lock_guard<std::mutex> lock(failure_mutex);
    if (failure.ok()) failure = status;
  };
  if (split_one_result && args.pool != nullptr)
    args.pool->ParallelFor(items_, 1, body);  // one piece per chunk
  else
    ParallelFor(args.pool, items_, item_nanos, body);
  const int64_t pieces = items_;
  items_ = saved_items;
  if (!failure.ok()) return failure;
  if (split_one_result)
    for (const Output& output : outputs_)
      if (output.reduce)
        output.ops->FoldPartials(
            partials[static_cast<size_t>(output.first_result)].data(), pieces,
            out_count_, results[static_cast<size_t>(output.first_result)]);
  return Status::Ok();
}

}  // namespace

StatusOr<Kernel> MakeFusedReduceKernel(const Instruction& fusion) {
  if (fusion.opcode() != Opcode::kFusion ||
      fusion.fusion_kind != FusionKind::kInput ||
      fusion.called_computations().size() != 1)
    return NotFound(fusion.Describe() + " is not a reduction fusion");
  StatusOr<std::shared_ptr<FusedReduce>> made = FusedReduce::Make(fusion);
  if (!made.ok()) return made.status();
  std::shared_ptr<FusedReduce> reduce = std::move(*made);
  return Kernel(
      [reduce](const KernelArgs& args) -> Status { return reduce->Run(args); });
}

}  // namespace xffi::cpu
