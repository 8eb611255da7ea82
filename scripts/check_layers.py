#!/usr/bin/env python3
"""Checks that xffi's #include edges point down the layer order.

    c_api <- ffi <- runtime <- ir <- text <- passes <- compiler <- device
          <- backends (cpu, cuda) <- backend list <- front ends (cli, python)

Every `#include "..."` in include/, src/ and python/src is resolved to a file
of the tree and both ends are mapped to a layer (LAYERS below). An edge is
allowed when both ends are in the same component (src/runtime and
include/xffi/runtime are one), or the included file's layer is lower.
Components that share a layer are peers and must not include each other
(the CPU backend never includes the CUDA one). Production code never
includes xffi/testing.h; only the harness's own implementation does.

A file or folder the map does not know, and a quoted include that resolves
to nothing, are errors too: a new folder gets its place in LAYERS when it is
created, not when it first breaks the order.

    scripts/check_layers.py [--root DIR]

Exits 0 when every edge is allowed, 1 after listing the ones that are not.
"""

import argparse
import os
import re
import sys
from typing import Dict, List, NamedTuple, Optional

# Lowest first. Each layer lists its components; a component lists path
# patterns relative to the root: a path ending in "/" is a folder (and all
# below it), anything else one file.
LAYERS = [
    ("c_api", {
        "c_api": ["include/xffi/c_api.h", "include/xffi/custom_call_status.h",
                  "include/xffi/record_c_api.h",
                  "include/xffi/collectives_c_api.h",
                  # The forwarding set for XLA's spellings (xla/ffi/api).
                  "include/xla/ffi/api/c_api.h",
                  "include/xla/ffi/api/record_c_api.h",
                  "include/xla/ffi/api/collectives_c_api.h"],
    }),
    ("ffi", {
        "ffi": ["include/xffi/ffi.h", "include/xffi/ffi/",
                "include/xffi/custom_call_target.h",
                "include/xla/ffi/api/api.h", "include/xla/ffi/api/ffi.h",
                "include/xla/ffi/api/record_api.h",
                "include/xla/ffi/api/collectives_api.h"],
    }),
    ("runtime", {
        "runtime": ["include/xffi/runtime.h", "include/xffi/runtime/",
                    "src/runtime/"],
    }),
    ("ir", {
        "ir": ["include/xffi/program/ir.h", "include/xffi/program/shape.h",
               "include/xffi/program/literal.h",
               "include/xffi/program/builder.h",
               "include/xffi/program/sharding.h", "src/ir/"],
    }),
    ("text", {
        "text": ["include/xffi/program/text.h", "src/text/"],
    }),
    ("passes", {
        "passes": ["include/xffi/program/passes.h", "src/passes/"],
    }),
    ("compiler", {
        "compiler": ["include/xffi/program/executable.h",
                     "include/xffi/program/trace.h",
                     "include/xffi/program.h", "src/compiler/"],
    }),
    ("device", {
        "device": ["src/device/", "include/xffi/device/"],
    }),
    ("backend", {
        # builtin_targets.h: the CPU backend's public face (its built-in
        # custom-call targets), for the front ends.
        "cpu": ["src/cpu/", "include/xffi/program/builtin_targets.h"],
        "cuda": ["src/cuda/"],
        # The CUDA platform's program executor, over the Device seam.
        "device_backend": ["src/device_backend/"],
    }),
    ("backend list", {
        "backends": ["src/backends/"],
    }),
    ("front end", {
        "cli": ["src/cli/"],
        "python": ["python/src/"],
    }),
]

# Scanned for includes; everything under them must be in the map.
SCANNED = ["include", "src", "python/src"]
SOURCE_SUFFIXES = (".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".inc")

TESTING_HEADER = "include/xffi/testing.h"
# The harness's implementation: the one production file that includes it.
TESTING_IMPLEMENTATION = "src/runtime/testing.cc"
# Where a quoted include is looked up after the including file's folder.
INCLUDE_ROOTS = ["include", "src"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


class Place(NamedTuple):
    rank: int
    layer: str
    component: str


def place_of(path: str) -> Optional[Place]:
    """The layer of a root-relative path, or None when the map lacks it."""
    best = None
    for rank, (layer, components) in enumerate(LAYERS):
        for component, patterns in components.items():
            for pattern in patterns:
                if pattern.endswith("/"):
                    matched = path.startswith(pattern)
                else:
                    matched = path == pattern
                # The longest pattern wins: a file listed on its own beats
                # the folder that holds it.
                if matched and (best is None or len(pattern) > best[0]):
                    best = (len(pattern), Place(rank, layer, component))
    return best[1] if best else None


def source_files(root: str) -> List[str]:
    files = []
    for top in SCANNED:
        base = os.path.join(root, top)
        for folder, _, names in os.walk(base):
            for name in names:
                if name.endswith(SOURCE_SUFFIXES):
                    full = os.path.join(folder, name)
                    files.append(os.path.relpath(full, root).replace(
                        os.sep, "/"))
    return sorted(set(files))


def resolve(root: str, including: str, target: str) -> Optional[str]:
    candidates = [os.path.join(os.path.dirname(including), target)]
    candidates += [os.path.join(top, target) for top in INCLUDE_ROOTS]
    for candidate in candidates:
        normal = os.path.normpath(candidate).replace(os.sep, "/")
        if os.path.isfile(os.path.join(root, normal)):
            return normal
    return None


def describe(place: Place) -> str:
    if place.layer == place.component:
        return place.layer
    return f"{place.component} ({place.layer})"


def find_violations(root: str) -> List[str]:
    """One message per disallowed edge or unmapped file, in file order."""
    problems = []
    places: Dict[str, Optional[Place]] = {}

    def place(path: str) -> Optional[Place]:
        if path not in places:
            places[path] = place_of(path)
        return places[path]

    for path in source_files(root):
        if path == TESTING_HEADER:
            continue  # built on the runtime; what may include it is below
        here = place(path)
        if here is None:
            problems.append(f"{path}: not in the layer map (add its folder "
                            "to LAYERS in scripts/check_layers.py)")
            continue
        with open(os.path.join(root, path), encoding="utf-8",
                  errors="replace") as source:
            lines = source.readlines()
        for number, line in enumerate(lines, start=1):
            match = INCLUDE.match(line)
            if not match:
                continue
            where = f"{path}:{number}"
            target = resolve(root, path, match.group(1))
            if target is None:
                problems.append(f'{where}: "{match.group(1)}" is not a file '
                                "of the tree")
                continue
            if target == TESTING_HEADER:
                if path != TESTING_IMPLEMENTATION:
                    problems.append(f"{where}: production code includes "
                                    "xffi/testing.h (use "
                                    "xffi/runtime/call_frame.h)")
                continue
            there = place(target)
            if there is None:
                problems.append(f"{where}: {target} is not in the layer map")
                continue
            if there.component == here.component or there.rank < here.rank:
                continue
            relation = ("a peer" if there.rank == here.rank else
                        "a higher layer")
            problems.append(f"{where}: {describe(here)} includes {target}, "
                            f"{relation}: {describe(there)}")
    return problems


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."),
        help="the checkout to check (default: this script's)")
    args = parser.parse_args(argv)
    problems = find_violations(os.path.abspath(args.root))
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} include(s) break the layer order",
              file=sys.stderr)
        return 1
    print(f"layer order holds ({len(source_files(args.root))} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
