#!/usr/bin/env python3
"""Checks that the ABI fact lists (abi_entries_*.inc) cover an official C header
(c_api.h, or an extension's record_c_api.h / collectives_c_api.h).

test_abi_compare compares only the facts the lists name, so a struct, field,
STRUCT_SIZE constant or enum value the official header has but the lists
miss would escape it. This reads the header's declarations (structs and
their fields, XLA_FFI_DEFINE_STRUCT_TRAITS, enumerators) and fails, naming
each one, when the lists for that version lack it or list one the header
does not have.

usage: check_abi_lists.py C_API_H LIST.inc [LIST.inc...]
"""
import re
import sys


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def header_facts(path):
    src = strip_comments(open(path).read())
    # XLA declares table slots through a helper macro: FIELD(Name) is a
    # pointer member named Name.
    src = re.sub(r"_XLA_FFI_API_STRUCT_FIELD\((\w+)\)", r"void* \1", src)
    macros = re.findall(r"#define\s+(\w+)", src)
    # Macro bodies (XLA_FFI_DEFINE_STRUCT_TRAITS's enum) declare nothing.
    src = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", src, flags=re.M)
    facts = set()
    for match in re.finditer(r"struct\s+(\w+)\s*\{(.*?)\n\}", src, flags=re.S):
        name, body = match.group(1), match.group(2)
        facts.add(("STRUCT", name))
        body = re.sub(r"union\s*\{", "", body).replace("};", "")
        for decl in filter(None, (d.strip() for d in body.split(";"))):
            fn_ptr = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            field = fn_ptr.group(1) if fn_ptr else re.findall(r"\w+", decl)[-1]
            facts.add(("FIELD", name, field))
    for name in re.findall(r"XLA_FFI_DEFINE_STRUCT_TRAITS\((\w+),", src):
        facts.add(("STRUCT_SIZE", name))
    for match in re.finditer(r"enum\s*\w*\s*\{(.*?)\}", src, flags=re.S):
        for enumerator in match.group(1).split(","):
            word = re.match(r"\s*(\w+)", enumerator)
            if word:
                facts.add(("ENUM", word.group(1)))
    for macro in ("XLA_FFI_API_MAJOR", "XLA_FFI_API_MINOR"):
        if macro in macros:
            facts.add(("ENUM", macro))
    # Backend extensions (record_c_api.h, collectives_c_api.h) give their
    # type and version as macros.
    for macro in macros:
        if macro.startswith("XLA_FFI_Extension_"):
            facts.add(("ENUM", macro))
    return facts


def listed_facts(paths):
    facts = set()
    pattern = re.compile(r"XFFI_ABI_(STRUCT_SIZE|STRUCT|FIELD|ENUM)\(([^)]*)\)")
    for path in paths:
        for kind, args in pattern.findall(strip_comments(open(path).read())):
            facts.add((kind,) + tuple(a.strip() for a in args.split(",")))
    return facts


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    header, lists = argv[1], argv[2:]
    in_header, in_lists = header_facts(header), listed_facts(lists)
    missing = sorted(in_header - in_lists)
    extra = sorted(in_lists - in_header)
    for fact in missing:
        print("%s: %s is not in the ABI lists" % (header, " ".join(fact)))
    for fact in extra:
        print("%s: the ABI lists name %s, which the header lacks"
              % (header, " ".join(fact)))
    if missing or extra:
        return 1
    print("%s: all %d facts listed" % (header, len(in_header)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
