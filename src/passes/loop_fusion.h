// xffi: producer-consumer loop fusion (the pass "fusion").
//
// Groups chains of elementwise and index-mapping ops into kLoop fusions
// (Opcode::kFusion calling a fused computation that keeps the contract of
// src/ir/fusion.h), so a backend can compute a chain in one pass over its
// output instead of writing and re-reading every intermediate array.
//
// The rules, per computation (consumers are visited before producers):
//   - A fusion grows from a root (a fusible op) by taking a producer when
//     every user of the producer is already in the fusion: a value also
//     needed outside every fusion is never recomputed, so it stays the
//     output of its own op (or fusion) and comes in as an operand.
//   - A producer whose users are all in fusions, but in several, joins each
//     of them (at most kMaxRecomputations) when it is cheap to compute
//     again (fusion_rules::CheapToRecompute: integer, bitwise, compare,
//     select, convert and data-movement ops, not division or transcendental
//     functions), as XLA's instruction fusion duplicates such producers:
//     reading two arrays of state in two fusions costs less than writing
//     every shared intermediate array and reading it back (threefry's
//     rounds share everything between its two outputs).
//   - Fusible: every elementwise unary and binary op, compare, select,
//     clamp, convert, bitcast-convert (same bit width), iota, broadcast,
//     reshape, transpose, slice, reverse, pad, concatenate, dynamic-slice,
//     constants of at most kMaxFusedConstantElements elements; array
//     results only. Never fused: parameters, side-effecting ops, custom
//     calls, control flow, dot, gather, scatter, sort, reduce, reduce-window,
//     collectives, and values a custom call aliases (its output takes the
//     value's buffer).
//   - A producer read by a broadcast that adds elements joins the fusion only
//     when it is a small constant or an iota: anything else would be
//     recomputed once per broadcast element.
//   - Cheap generators (small constants, iota, and broadcast) read by a
//     fusion but also needed elsewhere are copied into the fusion instead of
//     coming in as operands; the original stays for its other users. A
//     group of generators only is not made a fusion of its own (its readers
//     copy it in), and a generator inside a fusion of several ops is not
//     copied out of it.
//   - Bounds: at most kMaxFusedInstructions ops that compute (cheap
//     generators, which cost nothing per element, are not counted) and
//     kMaxFusionOperands operands per fusion; a fusion of one op (generators
//     aside) or of a scalar result (loop counters, predicates) is not made.
//   - Where: the entry computation and computations reached only through
//     call, while, conditional and manual-computation (loop bodies and
//     branches hold most loop work). Never in computations a custom call,
//     a reduce, sort, scatter, reduce-window, collective or fusion calls
//     (their regions run per element or belong to the custom call).
#ifndef XFFI_SRC_PASSES_LOOP_FUSION_H_
#define XFFI_SRC_PASSES_LOOP_FUSION_H_

#include <cstdint>

#include "passes/pass_manager.h"
#include "xffi/program/ir.h"

namespace xffi::passes {

inline constexpr int64_t kMaxFusedInstructions = 64;
inline constexpr int64_t kMaxFusionOperands = 16;
// A producer cheap to compute again joins at most this many fusions.
inline constexpr int64_t kMaxRecomputations = 4;

// Runs the rules above over `module`; returns how many fusions it made.
int64_t FuseLoops(Module& module);

class LoopFusion : public Pass {
 public:
  std::string_view name() const override { return "fusion"; }
  StatusOr<bool> Run(Module& module) override { return FuseLoops(module) > 0; }
};

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_LOOP_FUSION_H_
