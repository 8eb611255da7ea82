"""Tests of scripts/check_layers.py: it passes the real tree, and fails on
a copy of it with one edge injected against the order, naming the file,
line and both layers. Plain unittest, so any python3 runs it."""

import os
import shutil
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import check_layers  # noqa: E402


class CopyOfTheTree(unittest.TestCase):
    """Each test gets a fresh copy of include/, src/ and python/src."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="xffi_layers_")
        self.addCleanup(shutil.rmtree, self.root)
        for top in check_layers.SCANNED:
            shutil.copytree(os.path.join(ROOT, top),
                            os.path.join(self.root, top))

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as out:
            out.write(text)

    def inject(self, path, include):
        """Adds `#include "include"` as the file's first line."""
        full = os.path.join(self.root, path)
        with open(full) as source:
            text = source.read()
        with open(full, "w") as out:
            out.write(f'#include "{include}"\n' + text)

    def violations(self):
        return check_layers.find_violations(self.root)

    def test_the_tree_as_it_is_passes(self):
        self.assertEqual(self.violations(), [])

    def test_an_upward_include_fails_naming_both_layers(self):
        self.inject("src/compiler/compile.cc", "cpu/executor.h")
        self.assertEqual(self.violations(), [
            "src/compiler/compile.cc:1: compiler includes src/cpu/executor.h,"
            " a higher layer: cpu (backend)"])

    def test_the_binding_library_never_includes_the_runtime(self):
        self.inject("include/xffi/ffi/api.h", "xffi/runtime/status.h")
        self.assertEqual(self.violations(), [
            "include/xffi/ffi/api.h:1: ffi includes "
            "include/xffi/runtime/status.h, a higher layer: runtime"])

    def test_public_headers_keep_their_layer(self):
        # The IR's public header may not reach up to the compiler's.
        self.inject("include/xffi/program/ir.h", "xffi/program/executable.h")
        self.assertEqual(len(self.violations()), 1)
        self.assertIn("ir includes include/xffi/program/executable.h",
                      self.violations()[0])

    def test_production_code_never_includes_the_harness(self):
        self.inject("src/cpu/kernel.cc", "xffi/testing.h")
        self.assertEqual(self.violations(), [
            "src/cpu/kernel.cc:1: production code includes xffi/testing.h "
            "(use xffi/runtime/call_frame.h)"])

    def test_peers_do_not_include_each_other(self):
        self.write("src/cuda/cuda_backend.cc",
                   '#include "compiler/backend.h"\n'
                   '#include "device/device.h"\n'
                   '#include "cpu/kernel.h"\n')
        self.write("src/device/device.h", '#include "xffi/runtime/status.h"\n')
        self.assertEqual(self.violations(), [
            "src/cuda/cuda_backend.cc:3: cuda (backend) includes "
            "src/cpu/kernel.h, a peer: cpu (backend)"])

    def test_passes_sit_between_text_and_compiler(self):
        self.write("src/passes/pass_manager.h",
                   '#include "text/hlo_printer.h"\n'
                   '#include "xffi/program/ir.h"\n')
        self.write("src/text/hlo_printer.h", "")
        self.assertEqual(self.violations(), [])
        self.inject("src/passes/pass_manager.h", "compiler/compiler.h")
        self.inject("src/ir/ir.cc", "passes/pass_manager.h")
        self.assertEqual(self.violations(), [
            "src/ir/ir.cc:1: ir includes src/passes/pass_manager.h, a higher"
            " layer: passes",
            "src/passes/pass_manager.h:1: passes includes "
            "src/compiler/compiler.h, a higher layer: compiler"])

    def test_an_unmapped_folder_and_an_unknown_include_fail(self):
        self.write("src/scratch/notes.cc", "")
        self.inject("src/ir/ir.cc", "ir/missing.h")
        self.assertEqual(self.violations(), [
            'src/ir/ir.cc:1: "ir/missing.h" is not a file of the tree',
            "src/scratch/notes.cc: not in the layer map (add its folder to "
            "LAYERS in scripts/check_layers.py)"])

    def test_the_command_exits_one_on_a_violation(self):
        self.assertEqual(check_layers.main(["--root", self.root]), 0)
        self.inject("src/runtime/api.cc", "xffi/program/ir.h")
        self.assertEqual(check_layers.main(["--root", self.root]), 1)


if __name__ == "__main__":
    unittest.main()
