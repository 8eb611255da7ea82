#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {

const BuiltinTargets& AllBuiltinTargets() {
  static const BuiltinTargets* targets = [] {
    auto* all = new BuiltinTargets;
    for (void (*add)(BuiltinTargets&) :
         {AddTriangularSolveTargets, AddLuTargets, AddQrTargets,
          AddHouseholderTargets, AddCholeskyTargets, AddSvdTargets,
          AddSymmetricEigenTargets, AddEigenTargets, AddSchurTargets,
          AddHessenbergTargets, AddTridiagonalReductionTargets,
          AddTridiagonalSolveTargets}) {
      add(*all);
    }
    return all;
  }();
  return *targets;
}

}  // namespace xffi::cpu::lapack
