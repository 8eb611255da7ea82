// xffi: NumPy .npy files as literals (the CLI's inputs and results).
//
// Reads format versions 1.0, 2.0 and 3.0, little- and big-endian, C and
// Fortran order (a Fortran-order array is transposed into row-major bytes).
// Writes version 1.0 (2.0 when the header needs it), little-endian, C order.
//
// NumPy has no names for the ml_dtypes types: np.save writes bfloat16 as
// '<V2', most float8 types and int2/int4 as '<V1' and float8_e5m2 as '<f1'
// (which np.load itself refuses). Such a raw descr takes the element type
// the reader expects (the program's parameter type) when the byte sizes
// agree; without one, '<V2' reads as bf16 and '<f1' as f8e5m2, and any
// other raw descr is an error. xffi writes those types the way np.save does
// ('<V2', '<V1'), so `np.load(f).view(ml_dtypes.bfloat16)` reads them back.
#ifndef XFFI_CLI_NPY_H_
#define XFFI_CLI_NPY_H_

#include <optional>
#include <string>
#include <string_view>

#include "xffi/program/literal.h"

namespace xffi {

// `bytes` is a whole .npy file; `source` names it in errors.
StatusOr<Literal> DecodeNpy(std::string_view bytes, std::string_view source,
                            std::optional<ElementType> expected = std::nullopt);
StatusOr<Literal> ReadNpyFile(
    const std::string& path,
    std::optional<ElementType> expected = std::nullopt);

// An array literal as .npy bytes. Tuples and tokens are refused.
StatusOr<std::string> EncodeNpy(const Literal& literal);
Status WriteNpyFile(const std::string& path, const Literal& literal);

// The descr xffi writes for `type`: "<f4", "|b1", "<V2" (bf16); "" for
// tuple, token and invalid.
std::string NpyDescr(ElementType type);

}  // namespace xffi

#endif  // XFFI_CLI_NPY_H_
