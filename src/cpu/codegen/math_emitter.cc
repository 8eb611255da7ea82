// Vectorisable transcendental functions (see math_emitter.h).
#include "cpu/codegen/math_emitter.h"

#include <cmath>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

namespace xffi::cpu::codegen {

bool LegacyMath() {
  const char* text = std::getenv("XFFI_MATH_LEGACY");
  return text != nullptr && std::string_view(text) == "1";
}

llvm::Value* MulAdd(llvm::IRBuilder<>& b, llvm::Module& module, llvm::Value* a,
                    llvm::Value* x, llvm::Value* c) {
  if (LegacyMath()) return b.CreateFAdd(b.CreateFMul(a, x), c);
  llvm::Function* f = llvm::Intrinsic::getDeclaration(
      &module, llvm::Intrinsic::fmuladd, {a->getType()});
  return b.CreateCall(f, {a, x, c});
}

namespace {

// The type `scalar` takes in the shape of `like` (vector or not).
llvm::Type* Like(llvm::Type* scalar, const llvm::Value* like) {
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(like->getType()))
    return llvm::VectorType::get(scalar, vector->getElementCount());
  return scalar;
}

llvm::Value* Call(llvm::IRBuilder<>& b, llvm::Module& module,
                  llvm::Intrinsic::ID id, llvm::Value* x) {
  llvm::Function* f =
      llvm::Intrinsic::getDeclaration(&module, id, {x->getType()});
  return b.CreateCall(f, {x});
}

llvm::Value* Fp(llvm::Type* type, double v) {
  return llvm::ConstantFP::get(type, v);
}

// Horner's rule: c[0] x^(n-1) + ... + c[n-1].
llvm::Value* Polynomial(llvm::IRBuilder<>& b, llvm::Value* x,
                        const std::vector<double>& c) {
  llvm::Type* t = x->getType();
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Value* p = Fp(t, c[0]);
  for (size_t i = 1; i < c.size(); ++i)
    p = MulAdd(b, module, p, x, Fp(t, c[i]));
  return p;
}

// 2 atanh(s) / s = 2 (1 + s^2/3 + s^4/5 + ...), `terms` terms, highest
// first, as a polynomial in z = s^2.
std::vector<double> AtanhSeries(int terms) {
  std::vector<double> c;
  for (int k = terms; k-- > 0;) c.push_back(2.0 / (2 * k + 1));
  return c;
}

// log of a positive normal double (the caller handles the rest): x = m 2^e
// with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh((m - 1) / (m + 1)), whose
// series in s = (m-1)/(m+1), |s| <= 0.172, converges fast. ln 2 split so
// e * hi is exact.
llvm::Value* LogCore(llvm::IRBuilder<>& b, llvm::Value* x, int terms) {
  llvm::Type* t = x->getType();
  llvm::Type* i64 = Like(b.getInt64Ty(), x);
  auto i = [&](int64_t v) {
    return llvm::ConstantInt::get(i64, static_cast<uint64_t>(v), true);
  };
  llvm::Value* bits = b.CreateBitCast(x, i64);
  llvm::Value* e = b.CreateSub(b.CreateLShr(bits, 52), i(1023));
  llvm::Value* mantissa = b.CreateOr(b.CreateAnd(bits, i(0x000fffffffffffffLL)),
                                     i(0x3ff0000000000000LL));
  // Above sqrt(2): halve (one less in the exponent field).
  llvm::Value* high = b.CreateICmpUGT(mantissa, i(0x3ff6a09e667f3bcdLL));
  mantissa = b.CreateSelect(high, b.CreateSub(mantissa, i(int64_t{1} << 52)),
                            mantissa);
  e = b.CreateSelect(high, b.CreateAdd(e, i(1)), e);
  llvm::Value* m = b.CreateBitCast(mantissa, t);
  llvm::Value* s =
      b.CreateFDiv(b.CreateFSub(m, Fp(t, 1)), b.CreateFAdd(m, Fp(t, 1)));
  llvm::Value* z = b.CreateFMul(s, s);
  llvm::Value* log_m = b.CreateFMul(s, Polynomial(b, z, AtanhSeries(terms)));
  llvm::Value* ef = b.CreateSIToFP(e, t);
  const double kLn2Hi = 0x1.62e42fefa2000p-1, kLn2Lo = 0x1.9ef35793c7673p-41;
  return b.CreateFAdd(b.CreateFMul(ef, Fp(t, kLn2Hi)),
                      b.CreateFAdd(log_m, b.CreateFMul(ef, Fp(t, kLn2Lo))));
}

// log with libm's answers at the domain's edges: NaN below zero (and for
// NaN), -inf at zero, inf at inf. `x` already has subnormals flushed.
llvm::Value* LogWithEdges(llvm::IRBuilder<>& b, llvm::Value* x, int terms) {
  llvm::Type* t = x->getType();
  llvm::Value* positive_finite = b.CreateAnd(
      b.CreateFCmpOGT(x, Fp(t, 0)), b.CreateFCmpOLT(x, Fp(t, INFINITY)));
  llvm::Value* core =
      LogCore(b, b.CreateSelect(positive_finite, x, Fp(t, 1)), terms);
  llvm::Value* edge =
      b.CreateSelect(b.CreateFCmpOEQ(x, Fp(t, 0)), Fp(t, -INFINITY),
                     b.CreateSelect(b.CreateFCmpOEQ(x, Fp(t, INFINITY)), x,
                                    Fp(t, std::nan(""))));
  return b.CreateSelect(positive_finite, core, edge);
}

llvm::Value* LibmCall(llvm::IRBuilder<>& b, llvm::Module& module,
                      const char* name, llvm::Value* x) {
  return CallPure(b, module, name, x->getType(), {x});
}

}  // namespace

llvm::Value* CallPure(llvm::IRBuilder<>& b, llvm::Module& module,
                      const std::string& name, llvm::Type* result,
                      std::vector<llvm::Value*> args) {
  std::vector<llvm::Type*> params;
  for (llvm::Value* arg : args) params.push_back(arg->getType());
  llvm::FunctionCallee callee = module.getOrInsertFunction(
      name, llvm::FunctionType::get(result, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    f->setDoesNotAccessMemory();
    f->setWillReturn();
  }
  return b.CreateCall(callee, args);
}

llvm::Value* TimesPowerOfTwo(llvm::IRBuilder<>& b, llvm::Value* y,
                             llvm::Value* k) {
  llvm::Type* t = y->getType();
  const bool is_double = t->getScalarType()->isDoubleTy();
  llvm::Type* integer = k->getType();
  const int64_t bias = is_double ? 1023 : 127;
  const uint64_t mantissa_bits = is_double ? 52 : 23;
  auto power = [&](llvm::Value* e) {
    return b.CreateBitCast(
        b.CreateShl(b.CreateAdd(e, llvm::ConstantInt::get(integer, bias)),
                    mantissa_bits),
        t);
  };
  llvm::Value* half = b.CreateAShr(k, 1);
  return b.CreateFMul(b.CreateFMul(y, power(half)),
                      power(b.CreateSub(k, half)));
}

llvm::Value* EmitLogF32(llvm::IRBuilder<>& b, llvm::Module& /*module*/,
                        llvm::Value* x) {
  // Adding zero flushes a subnormal under DAZ, as the template kernel's
  // libm call sees it (log of a subnormal is -inf under XLA:CPU).
  llvm::Value* flushed = b.CreateFAdd(x, Fp(x->getType(), 0));
  llvm::Value* wide = b.CreateFPExt(flushed, Like(b.getDoubleTy(), x));
  return b.CreateFPTrunc(LogWithEdges(b, wide, 8), x->getType());
}

llvm::Value* EmitLog1pF32(llvm::IRBuilder<>& b, llvm::Module& module,
                          llvm::Value* x) {
  llvm::Type* d = Like(b.getDoubleTy(), x);
  llvm::Value* xd = b.CreateFPExt(x, d);
  llvm::Value* u = b.CreateFAdd(xd, Fp(d, 1));
  llvm::Value* log_u = LogWithEdges(b, u, 8);
  if (!LegacyMath()) {
    // u = 1 + x is exact in double for a float x of magnitude in
    // [2^-29, 2^29] (the sum spans at most 53 bits), so log(u) is the
    // answer there; above, u's rounding (2^-53 relative) moves a log of 20
    // or more by 2^-53 absolute, nothing in float. Below 2^-29, log1p(x)
    // = x - x^2/2 + ..., which rounds to x in float (-0 included).
    llvm::Value* tiny = b.CreateFCmpOLT(
        Call(b, module, llvm::Intrinsic::fabs, x), Fp(x->getType(), 0x1p-29));
    return b.CreateSelect(tiny, x, b.CreateFPTrunc(log_u, x->getType()));
  }
  // log1p(x) = log(u) x / (u - 1) with u = 1 + x rounded: the quotient
  // cancels u's rounding error (Goldberg). u == 1 only for |x| < 2^-53,
  // where log1p(x) is x (-0 included).
  llvm::Value* ratio =
      b.CreateFDiv(b.CreateFMul(log_u, xd), b.CreateFSub(u, Fp(d, 1)));
  llvm::Value* finite_u = b.CreateAnd(b.CreateFCmpOGT(u, Fp(d, 0)),
                                      b.CreateFCmpOLT(u, Fp(d, INFINITY)));
  // At u = 0 (x = -1), below, at inf and for NaN, log(u) is the answer.
  llvm::Value* result = b.CreateSelect(finite_u, ratio, log_u);
  result = b.CreateSelect(b.CreateFCmpOEQ(u, Fp(d, 1)), xd, result);
  return b.CreateFPTrunc(result, x->getType());
}

namespace {

// x mod pi/2 for a float x of magnitude above 2^20 (finite), as
// r = x - n pi/2 in double and the quadrant n (an i32, only its two low
// bits mean anything), in integer arithmetic that vectorises (Payne and
// Hanek's reduction): |x| = m 2^(e-23) with m the 24-bit significand, and
// |x| 2/pi mod 4 needs only the bits of 2/pi from 2^-(e-24) on, the
// earlier ones giving multiples of 4. A window of 128 of them, m times
// it in 32-bit pieces (64-bit products, carries kept), is |x| 2/pi mod 4
// to 2^-94, far below what the closest float to a multiple of pi/2
// cancels.
llvm::Value* ReduceLargeF32(llvm::IRBuilder<>& b, llvm::Value* x,
                            llvm::Value** quadrant) {
  llvm::Type* i32 = Like(b.getInt32Ty(), x);
  llvm::Type* i64 = Like(b.getInt64Ty(), x);
  auto c32 = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  auto c64 = [&](uint64_t v) { return llvm::ConstantInt::get(i64, v); };
  // 2^252 / pi: the bits of 2/pi after five zero bits (so that e = 20
  // starts its window at bit 0), in 32-bit words, most significant first.
  constexpr uint32_t kTwoOverPi[8] = {0x0517cc1b, 0x727220a9, 0x4fe13abe,
                                      0x8fa9a6ee, 0x06db14ac, 0xc9e21c82,
                                      0x0ff28b1d, 0x5ef5de2b};
  llvm::Value* bits = b.CreateBitCast(x, i32);
  llvm::Value* exponent =
      b.CreateAnd(b.CreateLShr(bits, 23), c32(0xff));  // e + 127
  // Lanes below the range (computed, then not selected) read window 0.
  exponent =
      b.CreateSelect(b.CreateICmpULT(exponent, c32(147)), c32(147), exponent);
  llvm::Value* start = b.CreateSub(exponent, c32(147));  // e - 20: 0..107
  llvm::Value* word = b.CreateLShr(start, 5);
  llvm::Value* shift = b.CreateZExt(b.CreateAnd(start, c32(31)), i64);
  llvm::Value* m = b.CreateZExt(
      b.CreateOr(b.CreateAnd(bits, c32(0x7fffff)), c32(0x800000)), i64);
  // Words word..word+4 of the table, picked by compares (word is 0..3).
  std::vector<llvm::Value*> table;
  for (int k = 0; k < 5; ++k) {
    llvm::Value* v = c32(kTwoOverPi[k + 3]);
    for (int w = 2; w >= 0; --w)
      v = b.CreateSelect(b.CreateICmpEQ(word, c32(static_cast<uint32_t>(w))),
                         c32(kTwoOverPi[k + w]), v);
    table.push_back(b.CreateZExt(v, i64));
  }
  // Window word k: table bits [32k + shift, 32k + shift + 32).
  auto window = [&](int k) {
    llvm::Value* pair = b.CreateOr(b.CreateShl(table[k], 32), table[k + 1]);
    return b.CreateLShr(b.CreateShl(pair, shift), 32);
  };
  llvm::Value* low = b.CreateMul(m, window(3));
  llvm::Value* middle =
      b.CreateAdd(b.CreateMul(m, window(2)), b.CreateLShr(low, 32));
  // |x| 2/pi mod 4 in units of 2^-62, and the next 32 bits below it.
  llvm::Value* v =
      b.CreateAdd(b.CreateAdd(b.CreateShl(b.CreateMul(m, window(0)), 32),
                              b.CreateMul(m, window(1))),
                  b.CreateLShr(middle, 32));
  llvm::Value* below = b.CreateAnd(middle, c64(0xffffffff));
  // Nearest n (mod 4) and the signed remainder, |f| <= 2^61.
  llvm::Value* n = b.CreateLShr(b.CreateAdd(v, c64(uint64_t{1} << 61)), 62);
  llvm::Value* f = b.CreateSub(v, b.CreateShl(n, 62));
  llvm::Type* d = Like(b.getDoubleTy(), x);
  llvm::Value* fraction =
      b.CreateFAdd(b.CreateSIToFP(f, d),
                   b.CreateFMul(b.CreateUIToFP(below, d), Fp(d, 0x1p-32)));
  *quadrant = b.CreateTrunc(n, i32);
  // Units of 2^-62 quarter turns to radians: pi/2 2^-62.
  return b.CreateFMul(fraction, Fp(d, 0x1.921fb54442d18p-62));
}

}  // namespace

llvm::Value* EmitSinCos(llvm::IRBuilder<>& b, llvm::Module& module,
                        llvm::Value* x, bool cosine, bool may_branch,
                        bool in_range, llvm::Value** special) {
  const bool is_double = x->getType()->isDoubleTy();
  const bool legacy = LegacyMath();
  const char* libm =
      is_double ? (cosine ? "cos" : "sin") : (cosine ? "cosf" : "sinf");
  if (!may_branch) return LibmCall(b, module, libm, x);
  // The large arguments' call goes by a name LLVM does not take for libm's
  // (runtime_symbols.cc): a pure "sinf" would become llvm.sin, which the
  // vectoriser then runs on every lane, guarded or not.
  const char* large_call = legacy ? libm
                           : is_double
                               ? (cosine ? "xffi_cos_f64" : "xffi_sin_f64")
                               : (cosine ? "xffi_cos_f32" : "xffi_sin_f32");
  llvm::Type* d = Like(b.getDoubleTy(), x);
  llvm::Type* i32 = Like(b.getInt32Ty(), x);
  llvm::Value* magnitude = Call(b, module, llvm::Intrinsic::fabs, x);
  // Not below the bound: large, infinite or NaN.
  llvm::Value* large = b.CreateFCmpUGT(magnitude, Fp(x->getType(), 0x1p20));
  llvm::Value* xd =
      b.CreateSelect(large, Fp(d, 0), is_double ? x : b.CreateFPExt(x, d));
  // x = n pi/2 + r, |r| <= pi/4: pi/2 in three parts, the first two of 30
  // bits so n times them is exact for n < 2^23; r is then good to far
  // beyond float precision, and within a rounding of double's.
  llvm::Value* n = Call(b, module, llvm::Intrinsic::roundeven,
                        b.CreateFMul(xd, Fp(d, 0x1.45f306dc9c883p-1)));
  llvm::Value* minus_n = b.CreateFNeg(n);
  llvm::Value* r = MulAdd(b, module, minus_n, Fp(d, 0x1.921fb54p+0), xd);
  r = MulAdd(b, module, minus_n, Fp(d, 0x1.10b46118p-30), r);
  r = MulAdd(b, module, minus_n, Fp(d, 0x1.313198a2e0370p-61), r);
  llvm::Value* quadrant = b.CreateFPToSI(n, i32);
  // Where nothing recomputes the large elements (a reduction's loop, rows
  // split at a concatenate), f32 reduces them in vector integer arithmetic
  // rather than call libm from a branch, which LLVM does not vectorise.
  const bool reduce_large =
      !is_double && !legacy && !in_range && special == nullptr;
  llvm::Value* not_finite = nullptr;
  if (reduce_large) {
    llvm::Value* large_quadrant = nullptr;
    llvm::Value* large_r = ReduceLargeF32(b, magnitude, &large_quadrant);
    // sin(-x) = -sin(x), cos(-x) = cos(x): x - n pi/2 with n and r negated.
    llvm::Value* negative = b.CreateICmpSLT(b.CreateBitCast(x, i32),
                                            llvm::ConstantInt::get(i32, 0));
    large_r = b.CreateSelect(negative, b.CreateFNeg(large_r), large_r);
    large_quadrant =
        b.CreateSelect(negative, b.CreateNeg(large_quadrant), large_quadrant);
    r = b.CreateSelect(large, large_r, r);
    quadrant = b.CreateSelect(large, large_quadrant, quadrant);
    not_finite = b.CreateFCmpUEQ(magnitude, Fp(x->getType(), INFINITY));
  }
  // Taylor series in double on |r| <= pi/4, to r^9 and r^10 for float:
  // the first terms left out, r^11/11! and r^12/12!, are below 2^-28
  // relative (1/30 of float's unit in the last place); to r^19 and r^20
  // for double (the rest below 2^-72 relative).
  const int last_term = legacy ? (is_double ? 26 : 16) : (is_double ? 20 : 10);
  llvm::Value* z = b.CreateFMul(r, r);
  std::vector<double> sine, cos_series;
  double factorial = 1;
  for (int k = 1; k <= last_term; ++k) {
    factorial *= k;
    if (k % 2 == 1)
      sine.insert(sine.begin(), ((k / 2) % 2 == 0 ? 1 : -1) / factorial);
    else
      cos_series.insert(cos_series.begin(),
                        ((k / 2) % 2 == 0 ? 1 : -1) / factorial);
  }
  cos_series.push_back(1.0);
  llvm::Value* sin_r = b.CreateFMul(r, Polynomial(b, z, sine));
  llvm::Value* cos_r = Polynomial(b, z, cos_series);
  if (cosine) quadrant = b.CreateAdd(quadrant, llvm::ConstantInt::get(i32, 1));
  auto bit = [&](int v) {
    return b.CreateICmpNE(b.CreateAnd(quadrant, llvm::ConstantInt::get(i32, v)),
                          llvm::ConstantInt::get(i32, 0));
  };
  llvm::Value* value = b.CreateSelect(bit(1), cos_r, sin_r);
  value = b.CreateSelect(bit(2), b.CreateFNeg(value), value);
  llvm::Value* fast = is_double ? value : b.CreateFPTrunc(value, x->getType());
  if (!cosine) {
    // sin x rounds to x below 2^-12 (float) or 2^-27 (double), and so
    // keeps -0.
    fast = b.CreateSelect(
        b.CreateFCmpOLT(magnitude,
                        Fp(x->getType(), is_double ? 0x1p-27 : 0x1p-12)),
        x, fast);
  }
  if (in_range) return fast;
  if (reduce_large)
    return b.CreateSelect(not_finite, Fp(x->getType(), std::nan("")), fast);
  if (special != nullptr && !legacy) {
    // The caller computes the large elements again, with the call.
    *special = *special == nullptr ? large : b.CreateOr(*special, large);
    return fast;
  }
  // The large elements call libm in a block of their own, which the loop
  // vectoriser predicates per lane (a vector compare and, usually, no call).
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::Function* function = before->getParent();
  llvm::LLVMContext& context = b.getContext();
  auto* slow = llvm::BasicBlock::Create(context, "libm_large", function);
  auto* join = llvm::BasicBlock::Create(context, "libm_join", function);
  b.CreateCondBr(large, slow, join);
  b.SetInsertPoint(slow);
  llvm::Value* called = LibmCall(b, module, large_call, x);
  b.CreateBr(join);
  b.SetInsertPoint(join);
  llvm::PHINode* result = b.CreatePHI(x->getType(), 2);
  result->addIncoming(fast, before);
  result->addIncoming(called, slow);
  return result;
}

llvm::Value* EmitErfInvF32(llvm::IRBuilder<>& b, llvm::Module& module,
                           llvm::Value* y) {
  // special::ErfInv<float>: Giles' single-precision polynomials in
  // w = -log1p(-y^2) with y^2 rounded to float, both evaluated and one
  // selected. 1 - y^2 of that float square is exact in double (or within
  // 2^-53 of exact when y^2 < 2^-29, far below what the polynomials
  // resolve: the central one reads w - 2.5), so log of it in double,
  // rounded to float, serves for log1p without log1p's quotient (one
  // division less per element).
  llvm::Type* t = y->getType();
  llvm::Type* d = Like(b.getDoubleTy(), y);
  llvm::Value* square = b.CreateFPExt(b.CreateFMul(y, y), d);
  llvm::Value* u = b.CreateFSub(Fp(d, 1), square);
  llvm::Value* w = b.CreateFPTrunc(b.CreateFNeg(LogWithEdges(b, u, 8)), t);
  llvm::Value* central =
      Polynomial(b, b.CreateFSub(w, Fp(t, 2.5)),
                 {2.81022636e-08f, 3.43273939e-07f, -3.5233877e-06f,
                  -4.39150654e-06f, 0.00021858087f, -0.00125372503f,
                  -0.00417768164f, 0.246640727f, 1.50140941f});
  llvm::Value* tail = Polynomial(
      b, b.CreateFSub(Call(b, module, llvm::Intrinsic::sqrt, w), Fp(t, 3)),
      {-0.000200214257f, 0.000100950558f, 0.00134934322f, -0.00367342844f,
       0.00573950773f, -0.0076224613f, 0.00943887047f, 1.00167406f,
       2.83297682f});
  llvm::Value* result = b.CreateFMul(
      b.CreateSelect(b.CreateFCmpOLT(w, Fp(t, 5)), central, tail), y);
  llvm::Value* magnitude = Call(b, module, llvm::Intrinsic::fabs, y);
  result = b.CreateSelect(b.CreateFCmpOEQ(magnitude, Fp(t, 1)),
                          b.CreateFMul(y, Fp(t, INFINITY)), result);
  return b.CreateSelect(b.CreateFCmpOLE(magnitude, Fp(t, 1)), result,
                        Fp(t, std::nan("")));
}

llvm::Value* EmitExpF64(llvm::IRBuilder<>& b, llvm::Module& module,
                        llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Type* i64 = Like(b.getInt64Ty(), x);
  // Beyond these e^x is inf or 0 all the same; NaN computes as 0 and is put
  // back at the end.
  llvm::Value* nan = b.CreateFCmpUNO(x, x);
  llvm::Value* clamped = b.CreateSelect(nan, Fp(t, 0), x);
  clamped = b.CreateSelect(b.CreateFCmpOGT(clamped, Fp(t, 1000)), Fp(t, 1000),
                           clamped);
  clamped = b.CreateSelect(b.CreateFCmpOLT(clamped, Fp(t, -1100)), Fp(t, -1100),
                           clamped);
  // x = n ln2 + r, |r| <= ln2 / 2, ln 2 split so n * hi is exact.
  llvm::Value* n = Call(b, module, llvm::Intrinsic::roundeven,
                        b.CreateFMul(clamped, Fp(t, 0x1.71547652b82fep+0)));
  llvm::Value* r =
      b.CreateFSub(clamped, b.CreateFMul(n, Fp(t, 0x1.62e42fefa2000p-1)));
  r = b.CreateFSub(r, b.CreateFMul(n, Fp(t, 0x1.9ef35793c7673p-41)));
  // Taylor series of e^r to r^13: the rest is below 2^-56 relative.
  std::vector<double> series;
  double factorial = 1;
  series.push_back(1.0);
  for (int k = 1; k <= 13; ++k) {
    factorial *= k;
    series.insert(series.begin(), 1 / factorial);
  }
  llvm::Value* y = Polynomial(b, r, series);
  llvm::Value* result = TimesPowerOfTwo(b, y, b.CreateFPToSI(n, i64));
  return b.CreateSelect(nan, x, result);
}

llvm::Value* EmitLogF64(llvm::IRBuilder<>& b, llvm::Module& /*module*/,
                        llvm::Value* x) {
  llvm::Value* flushed = b.CreateFAdd(x, Fp(x->getType(), 0));
  return LogWithEdges(b, flushed, 12);
}

llvm::Value* EmitExpm1F64(llvm::IRBuilder<>& b, llvm::Module& module,
                          llvm::Value* x) {
  llvm::Type* t = x->getType();
  // Below 1/2 in magnitude the Taylor series (to x^17, the rest under
  // 2^-70 relative) keeps the digits e^x - 1 would cancel; above, e^x - 1
  // loses at most a factor 2.5 of exp's error.
  std::vector<double> series;
  double factorial = 1;
  for (int k = 1; k <= 17; ++k) {
    factorial *= k;
    series.insert(series.begin(), 1 / factorial);
  }
  llvm::Value* small =
      b.CreateFCmpOLT(Call(b, module, llvm::Intrinsic::fabs, x), Fp(t, 0.5));
  llvm::Value* safe = b.CreateSelect(small, x, Fp(t, 0));
  llvm::Value* near_zero = b.CreateFMul(safe, Polynomial(b, safe, series));
  llvm::Value* far = b.CreateFSub(EmitExpF64(b, module, x), Fp(t, 1));
  return b.CreateSelect(small, near_zero, far);
}

llvm::Value* EmitLog1pF64(llvm::IRBuilder<>& b, llvm::Module& /*module*/,
                          llvm::Value* x) {
  llvm::Type* t = x->getType();
  // log1p(x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded: the
  // second term puts back what rounding u lost (first order is enough:
  // it is below u's half unit).
  llvm::Value* u = b.CreateFAdd(x, Fp(t, 1));
  llvm::Value* log_u = LogWithEdges(b, u, 12);
  llvm::Value* lost = b.CreateFSub(x, b.CreateFSub(u, Fp(t, 1)));
  llvm::Value* corrected = b.CreateFAdd(log_u, b.CreateFDiv(lost, u));
  llvm::Value* finite_u = b.CreateAnd(b.CreateFCmpOGT(u, Fp(t, 0)),
                                      b.CreateFCmpOLT(u, Fp(t, INFINITY)));
  llvm::Value* result = b.CreateSelect(finite_u, corrected, log_u);
  // Where u rounds to 1, log1p(x) is x (-0 included).
  return b.CreateSelect(b.CreateFCmpOEQ(u, Fp(t, 1)), x, result);
}

llvm::Value* EmitTanhF64(llvm::IRBuilder<>& b, llvm::Module& module,
                         llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Function* copysign =
      llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::copysign, {t});
  llvm::Value* magnitude = Call(b, module, llvm::Intrinsic::fabs, x);
  if (LegacyMath()) {
    // tanh|x| = e / (e + 2) with e = expm1(2|x|); beyond 40 it is 1 in
    // double (and e would overflow); the sign comes back last (-0 too).
    llvm::Value* clamped = b.CreateSelect(b.CreateFCmpOGT(magnitude, Fp(t, 40)),
                                          Fp(t, 40), magnitude);
    llvm::Value* e = EmitExpm1F64(b, module, b.CreateFMul(clamped, Fp(t, 2)));
    llvm::Value* value = b.CreateFDiv(e, b.CreateFAdd(e, Fp(t, 2)));
    return b.CreateCall(copysign, {value, x});
  }
  // tanh|x| = e / (e + 2) with e = expm1(y), y = 2|x| (at most 40: beyond
  // 20 tanh is 1 in double). One path, where expm1 has two (the series
  // near 0, exp - 1 beyond, both computed for every element): y = n ln2 +
  // r, |r| <= ln2 / 2, and e = 2^n expm1(r) + (2^n - 1), which for n = 0 is
  // expm1(r) itself (no cancellation near 0) and for n >= 1 cancels at
  // most a factor 2.4. NaN computes as 0 and is put back; the sign comes
  // back last (-0 too).
  llvm::Value* nan = b.CreateFCmpUNO(x, x);
  llvm::Value* a = b.CreateSelect(nan, Fp(t, 0), magnitude);
  a = b.CreateSelect(b.CreateFCmpOGT(a, Fp(t, 20)), Fp(t, 20), a);
  llvm::Value* y = b.CreateFMul(a, Fp(t, 2));
  llvm::Value* n = Call(b, module, llvm::Intrinsic::roundeven,
                        b.CreateFMul(y, Fp(t, 0x1.71547652b82fep+0)));
  llvm::Value* minus_n = b.CreateFNeg(n);
  llvm::Value* r = MulAdd(b, module, minus_n, Fp(t, 0x1.62e42fefa2000p-1), y);
  r = MulAdd(b, module, minus_n, Fp(t, 0x1.9ef35793c7673p-41), r);
  // expm1(r) to r^14: the rest is below 2^-56 relative.
  std::vector<double> series;
  double factorial = 1;
  for (int k = 1; k <= 14; ++k) {
    factorial *= k;
    series.insert(series.begin(), 1 / factorial);
  }
  llvm::Value* p = b.CreateFMul(r, Polynomial(b, r, series));
  llvm::Type* i64 = Like(b.getInt64Ty(), x);
  // 2^n for n in [0, 58].
  llvm::Value* scale = b.CreateBitCast(
      b.CreateShl(b.CreateAdd(b.CreateFPToSI(n, i64),
                              llvm::ConstantInt::get(i64, 1023)),
                  52),
      t);
  llvm::Value* e = MulAdd(b, module, scale, p, b.CreateFSub(scale, Fp(t, 1)));
  llvm::Value* value = b.CreateFDiv(e, b.CreateFAdd(e, Fp(t, 2)));
  return b.CreateSelect(nan, x, b.CreateCall(copysign, {value, x}));
}

}  // namespace xffi::cpu::codegen
