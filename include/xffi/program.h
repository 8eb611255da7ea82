// xffi: programs. The IR and its builder, text formats, and the compiler and
// executor. Links against libxffi_program.
#ifndef XFFI_PROGRAM_H_
#define XFFI_PROGRAM_H_

#include "xffi/program/builder.h"
#include "xffi/program/executable.h"
#include "xffi/program/ir.h"
#include "xffi/program/literal.h"
#include "xffi/program/shape.h"
#include "xffi/program/text.h"

#endif  // XFFI_PROGRAM_H_
