#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/matrix.py, the owner of the arches, trees and their
defaults: the repository's own data passes and the CI pipelines agree
with it; each kind of bad data file is one line naming the file and the
key, and so is a tree's port or drop that names no patch; a toy arch and
a toy tree, added as directories alone, join every list, the CI
matrices (rewritten) and make check's plan.

usage: tests/test_matrix.py
"""

import io
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import taprunner  # noqa: E402

ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
import matrix  # noqa: E402


def scratch_copy() -> str:
    """The data matrix.py reads, copied into a new directory."""
    d = tempfile.mkdtemp(prefix='clone3-matrix-')
    for sub in ('qemu-images', 'trees', 'patches'):
        shutil.copytree(os.path.join(ROOT, sub), os.path.join(d, sub),
                        ignore=shutil.ignore_patterns('init'))
    os.makedirs(os.path.join(d, '.github', 'workflows'))
    for f in ('.gitlab-ci.yml', '.github/workflows/gate.yml'):
        shutil.copy(os.path.join(ROOT, f), os.path.join(d, f))
    return d


class RepositoryData(unittest.TestCase):
    def test_data_passes(self):
        m = matrix.Matrix(ROOT)
        self.assertIn('x86_64', m.arches)
        self.assertIn(m.default_tree, m.trees)

    def test_ci_pipelines_agree(self):
        err = io.StringIO()
        with redirect_stderr(err):
            rc = matrix.ci(matrix.Matrix(ROOT), write=False)
        self.assertEqual(rc, 0, 'run scripts/matrix.py ci --write: ' +
                         err.getvalue())

    def test_packages_of_every_arch_and_host_tree(self):
        m = matrix.Matrix(ROOT)
        pkgs = m.packages()
        for a in m.arches.values():
            for k in ('CC_PKG', 'LIBC_PKG', 'QEMU_PKG'):
                self.assertIn(a.conf[k], pkgs)
        self.assertEqual(len(pkgs), len(set(pkgs)))
        for t in m.trees.values():
            self.assertEqual(t.conf['PKG'] in pkgs, not t.conf.get('SUITE'))

    def test_plan_covers_every_arch_and_tree_once(self):
        m = matrix.Matrix(ROOT)
        plan = m.check_plan('x86_64')
        placed = [a for arches in plan['gate'].values() for a in arches]
        self.assertEqual(sorted(placed), sorted(m.arches))
        for tree, arches in plan['gate'].items():
            self.assertTrue(arches, f'tree {tree} has no arch')
        default = plan['gate'][m.default_tree]
        for k in ('host', 'mutants', 'survivors'):
            self.assertIn(plan[k], default)
        # The mutant arch sees every row-bound mutant, the survivor is
        # spared by at least one.
        for rows in m.killed_on():
            self.assertIn(plan['mutants'], rows)
        self.assertTrue(any(plan['survivors'] not in rows
                            for rows in m.killed_on()))
        # The survivors step runs exactly the mutants that spare it.
        spared = m.spared(plan['survivors'])
        self.assertTrue(spared)
        for path, rows in m.killed_on_by_mutant().items():
            self.assertEqual(path in spared, plan['survivors'] not in rows)
        with self.assertRaises(matrix.DataError):
            m.spared('pdp11')


class BadData(unittest.TestCase):
    def setUp(self):
        self.d = scratch_copy()

    def tearDown(self):
        shutil.rmtree(self.d)

    def edit(self, path: str, old: str, new: str) -> None:
        p = os.path.join(self.d, path)
        with open(p, encoding='utf-8') as f:
            text = f.read()
        self.assertIn(old, text)
        with open(p, 'w', encoding='utf-8') as f:
            f.write(text.replace(old, new, 1))

    def error(self) -> str:
        with self.assertRaises(matrix.DataError) as e:
            matrix.Matrix(self.d)
        msg = str(e.exception)
        self.assertNotIn('\n', msg)
        return msg

    def test_unknown_key(self):
        self.edit('qemu-images/arm64/qemu.conf', 'MEM=256M', 'MEMORY=256M')
        msg = self.error()
        self.assertIn('qemu-images/arm64/qemu.conf', msg)
        self.assertIn('unknown key MEMORY', msg)

    def test_missing_key(self):
        self.edit('qemu-images/riscv64/qemu.conf', 'CPU=rv64\n', '')
        msg = self.error()
        self.assertIn('qemu-images/riscv64/qemu.conf: missing key CPU', msg)

    def test_bad_value(self):
        self.edit('qemu-images/arm64/qemu.conf', 'MEM=256M', 'MEM=lots')
        self.assertIn("MEM='lots' is not of the form", self.error())

    def test_shell_expansion_refused(self):
        self.edit('qemu-images/arm64/qemu.conf', 'CMDLINE=""',
                  'CMDLINE="$(reboot)"')
        msg = self.error()
        self.assertIn('qemu-images/arm64/qemu.conf', msg)
        self.assertIn('not KEY=value', msg)

    def test_key_twice(self):
        self.edit('qemu-images/arm64/qemu.conf', 'MEM=256M',
                  'MEM=256M\nMEM=512M')
        self.assertIn('key MEM is given twice', self.error())

    def test_compat_of_unknown_arch(self):
        self.edit('qemu-images/x86_64/qemu.conf', 'COMPAT_ARCH=i386',
                  'COMPAT_ARCH=m68k')
        self.assertIn('COMPAT_ARCH=m68k is no arch', self.error())

    def test_compat_half_set(self):
        self.edit('qemu-images/x86_64/qemu.conf', 'COMPAT_ABI=ia32',
                  'COMPAT_ABI=""')
        self.assertIn('both set or both empty', self.error())

    def test_stray_file_in_arch(self):
        with open(os.path.join(self.d, 'qemu-images/arm64/notes.txt'),
                  'w') as f:
            f.write('x\n')
        self.assertIn('qemu-images/arm64/notes.txt: unknown file',
                      self.error())

    def test_stray_file_in_qemu_images(self):
        with open(os.path.join(self.d, 'qemu-images/common-7.3.config'),
                  'w') as f:
            f.write('x\n')
        self.assertIn('qemu-images/common-7.3.config: unknown file',
                      self.error())

    def test_arch_without_fragment(self):
        os.remove(os.path.join(self.d, 'qemu-images/arm64/config'))
        self.assertIn('qemu-images/arm64/config: missing', self.error())

    def test_two_default_trees(self):
        for t in os.listdir(os.path.join(self.d, 'trees')):
            conf = os.path.join(self.d, 'trees', t, 'source.conf')
            if os.path.isfile(conf):
                with open(conf) as f:
                    text = f.read()
                if 'DEFAULT=1' not in text:
                    with open(conf, 'a') as f:
                        f.write('DEFAULT=1\n')
        self.assertIn('exactly one tree must have DEFAULT=1', self.error())

    def test_tree_key_unknown(self):
        conf = os.path.join(self.d, 'trees', '6.12', 'source.conf')
        with open(conf, 'a') as f:
            f.write('MIRROR=http://example.invalid/\n')
        msg = self.error()
        self.assertIn('trees/6.12/source.conf', msg)
        self.assertIn('unknown key MIRROR', msg)

    def test_bad_tree_name(self):
        shutil.copytree(os.path.join(self.d, 'trees', '6.12'),
                        os.path.join(self.d, 'trees', 'next'))
        self.assertIn('trees/next: a tree is named', self.error())

    def port(self, name: str, text: str = '') -> str:
        d = os.path.join(self.d, 'trees', '6.12', 'port')
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), 'w') as f:
            f.write(text)
        return 'trees/6.12/port/' + name

    def test_port_named_like_no_patch(self):
        path = self.port('0009-no-such-patch.patch', 'x\n')
        msg = self.error()
        self.assertIn(path, msg)
        self.assertIn('named like no patch', msg)

    def test_port_stray_file(self):
        path = self.port('notes.txt', 'x\n')
        self.assertIn(path + ': named like no patch', self.error())

    def test_drop_of_no_series_patch(self):
        path = self.port('drop', '0009-no-such-patch.patch  # gone\n')
        msg = self.error()
        self.assertIn(path + ':1', msg)
        self.assertIn('0009-no-such-patch.patch is no patch of patches/series',
                      msg)

    def test_drop_without_reason(self):
        series = matrix.series_entries(
            os.path.join(self.d, 'patches', 'series'))
        path = self.port('drop', series[-1] + '\n')
        self.assertIn(path + ':1: not "NAME  # reason"', self.error())

    def test_port_of_a_dropped_patch(self):
        series = matrix.series_entries(
            os.path.join(self.d, 'patches', 'series'))
        self.port('drop', f'{series[-1]}  # not here\n')
        path = self.port(series[-1], 'x\n')
        self.assertIn(path + ': ' + series[-1] + ' is dropped', self.error())

    def test_mutant_port_keeps_its_lines(self):
        mutants = os.path.join(self.d, 'patches', 'mutants')
        name = sorted(f for f in os.listdir(mutants)
                      if f.endswith('.patch'))[0]
        with open(os.path.join(mutants, name)) as f:
            text = f.read()
        self.assertIn('Breaks:', text)
        path = self.port(name, text.replace('Breaks:', 'Breaks: nothing;'))
        self.assertIn(path + ': its Breaks: and Killed-on: lines differ',
                      self.error())
        self.port(name, text)
        matrix.Matrix(self.d)

    def test_good_ports_pass(self):
        series = matrix.series_entries(
            os.path.join(self.d, 'patches', 'series'))
        self.port(series[0], 'x\n')
        self.port('drop', '# comment\n\n' + series[-1] + '  # reason\n')
        matrix.Matrix(self.d)

    def test_main_exit_2_one_line(self):
        self.edit('qemu-images/arm64/qemu.conf', 'MEM=256M', 'MEMORY=256M')
        old = matrix.ROOT
        matrix.ROOT = self.d
        err, out = io.StringIO(), io.StringIO()
        try:
            with redirect_stderr(err), redirect_stdout(out):
                rc = matrix.main(['arches'])
        finally:
            matrix.ROOT = old
        self.assertEqual(rc, 2)
        self.assertEqual(err.getvalue().count('\n'), 1, err.getvalue())
        self.assertTrue(err.getvalue().startswith('error: '))
        self.assertEqual(out.getvalue(), '')


class ToyArchAndTree(unittest.TestCase):
    """An arch and a tree join by their directories alone."""

    def setUp(self):
        self.d = scratch_copy()
        shutil.copytree(os.path.join(self.d, 'qemu-images', 'riscv64'),
                        os.path.join(self.d, 'qemu-images', 'toy64'))
        t = os.path.join(self.d, 'trees', '9.9')
        shutil.copytree(os.path.join(self.d, 'trees', '6.12'), t)

    def tearDown(self):
        shutil.rmtree(self.d)

    def test_joins_every_list(self):
        m = matrix.Matrix(self.d)
        self.assertIn('toy64', m.arches)
        self.assertEqual(list(m.trees)[-1], '9.9')
        plan = m.check_plan('x86_64')
        placed = [a for arches in plan['gate'].values() for a in arches]
        self.assertEqual(sorted(placed), sorted(m.arches))
        self.assertTrue(plan['gate']['9.9'])

    def test_ci_is_stale_then_written(self):
        m = matrix.Matrix(self.d)
        err = io.StringIO()
        with redirect_stderr(err):
            self.assertEqual(matrix.ci(m, write=False), 1)
        self.assertIn('.gitlab-ci.yml', err.getvalue())
        with redirect_stdout(io.StringIO()):
            self.assertEqual(matrix.ci(m, write=True), 0)
            self.assertEqual(matrix.ci(m, write=False), 0)
        for f in ('.gitlab-ci.yml', '.github/workflows/gate.yml'):
            with open(os.path.join(self.d, f)) as fh:
                text = fh.read()
            self.assertIn('toy64', text)
            self.assertIn('9.9:toy64', text)
            self.assertIn('"9.9"', text)


class Changes(unittest.TestCase):
    """matrix.py change DIR: a change directory, checked."""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix='clone3-change-')
        self.c = os.path.join(self.d, 'pidfd-thread')
        shutil.copytree(os.path.join(ROOT, 'changes', 'pidfd-thread'),
                        self.c)
        self.m = matrix.Matrix(ROOT)

    def tearDown(self):
        shutil.rmtree(self.d)

    def error(self) -> str:
        with self.assertRaises(matrix.DataError) as e:
            matrix.check_change(self.m, self.c)
        msg = str(e.exception)
        self.assertNotIn('\n', msg)
        return msg

    def test_ours_and_the_example_pass(self):
        matrix.check_change(self.m, os.path.join(ROOT, 'patches'))
        matrix.check_change(self.m, self.c)

    def test_no_such_directory(self):
        shutil.rmtree(self.c)
        self.assertIn('no such change directory', self.error())

    def test_no_series(self):
        os.remove(os.path.join(self.c, 'series'))
        self.assertIn('series: missing', self.error())

    def test_series_names_a_missing_patch(self):
        with open(os.path.join(self.c, 'series'), 'a',
                  encoding='utf-8') as f:
            f.write('0002-gone.patch\n')
        self.assertIn('0002-gone.patch is missing', self.error())

    def test_declaration_that_does_not_parse(self):
        with open(os.path.join(self.c, 'abi-change'), 'a',
                  encoding='utf-8') as f:
            f.write('allow CLONE_PIDFD was\n')
        msg = self.error()
        self.assertIn('abi-change:', msg)
        self.assertIn('does not parse', msg)

    def test_base_of_an_unknown_tree(self):
        os.rename(os.path.join(self.c, 'base', '6.12'),
                  os.path.join(self.c, 'base', '9.9'))
        self.assertIn('names no tree', self.error())

    def test_main_exit_2_one_line(self):
        os.remove(os.path.join(self.c, 'series'))
        err = io.StringIO()
        with redirect_stderr(err):
            rc = matrix.main(['change', self.c])
        self.assertEqual(rc, 2)
        self.assertEqual(err.getvalue().count('\n'), 1, err.getvalue())


if __name__ == '__main__':
    taprunner.main()
