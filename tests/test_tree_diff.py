#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/tree_diff.py on canned clone3_abi_probe outputs of two
trees: one difference on every row is one line of the table, a
difference on one row names that row, no difference says so, a row that
did not boot is named and exits 2 while the others are still compared,
and bad names exit 2.

usage: tests/test_tree_diff.py
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taprunner  # noqa: E402
# The canned probe lines and their KTAP nesting, as abi_diff's tests
# have them.
from test_abi_diff import CHILD, SCRIPTS, doc  # noqa: E402
import tree_diff  # noqa: E402

TREE_DIFF = os.path.join(SCRIPTS, 'tree_diff.py')
THREAD = 'flags=CLONE_VM|CLONE_SIGHAND|CLONE_PIDFD|CLONE_THREAD ' \
    'exit_signal=0 size=88'
OLD = [
    'probe=setup ok tab=same blocked=same pending=same',
    'flags=0 size=88 ' + CHILD,
    THREAD + ' EINVAL caller=same',
    'flags=CLONE_NNP size=88 EINVAL caller=same',
    'probe=end ok inputs=3',
]
NEW = list(OLD)
NEW[2] = THREAD + ' ' + CHILD.replace('tgid=own', 'tgid=caller') + \
    ' pidfd=child,thread'
ROWS = ['x86_64', 'x86_64-ia32', 'arm64']


class TreeDiffTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix='tree-diff-test.')
        self.tmp = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def put(self, tree, row, lines):
        d = os.path.join(self.tmp, tree, 'patched')
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, row + '.ktap'), 'w',
                  encoding='utf-8') as f:
            f.write(doc(lines, ktap=True))

    def run_diff(self, rows, *extra):
        return subprocess.run(
            [sys.executable, TREE_DIFF, '--from', '6.1', '--to', '6.12',
             '--from-results', os.path.join(self.tmp, 'a'),
             '--to-results', os.path.join(self.tmp, 'b'),
             '--rows', ' '.join(rows)] + list(extra),
            capture_output=True, text=True, check=False)

    def table(self, out):
        return [line for line in out.splitlines()
                if line.startswith('| ') and 'what changed' not in line
                and not line.startswith('| inputs')]

    def test_same_difference_on_every_row_is_one_line(self):
        for row in ROWS:
            self.put('a', row, OLD)
            self.put('b', row, NEW)
        r = self.run_diff(ROWS, '--out', os.path.join(self.tmp, 'd.md'))
        self.assertEqual(r.returncode, 0, r.stderr)
        first = r.stdout.split('\n## ')[0]
        lines = self.table(first)
        self.assertEqual(len(lines), 1, first)
        self.assertIn('6.1 EINVAL -> 6.12 ok', lines[0])
        self.assertIn('pidfd=child,thread', lines[0])
        self.assertIn('every row (3)', lines[0])
        self.assertTrue(r.stdout.rstrip().endswith(
            'tree-diff: 6.1 -> 6.12: 1 difference(s) on 3 of 3 rows '
            'compared'), r.stdout)
        with open(os.path.join(self.tmp, 'd.json'), encoding='utf-8') as f:
            record = json.load(f)
        self.assertEqual(record['changes'][0]['rows'], ROWS)

    def test_difference_on_one_row_names_it(self):
        for row in ROWS:
            self.put('a', row, OLD)
            self.put('b', row, NEW if row == 'arm64' else OLD)
        r = self.run_diff(ROWS)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = self.table(r.stdout.split('\n## ')[0])
        self.assertEqual(len(lines), 1)
        self.assertTrue(lines[0].endswith('| arm64 |'), lines[0])

    def test_no_difference(self):
        for row in ROWS:
            self.put('a', row, OLD)
            self.put('b', row, OLD)
        r = self.run_diff(ROWS)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('no difference on any row compared', r.stdout)

    def test_row_without_probe_is_named_others_compared(self):
        for row in ROWS:
            self.put('a', row, OLD)
            if row != 'arm64':
                self.put('b', row, NEW)
        r = self.run_diff(ROWS)
        self.assertEqual(r.returncode, 2)
        self.assertIn('on 2 of 2 rows compared; not compared: arm64',
                      r.stdout)
        self.assertRegex(r.stderr, r'tree_diff: error: arm64: ')

    def test_bad_input_exit_2_one_line(self):
        self.put('a', 'x86_64', OLD)
        self.put('b', 'x86_64', OLD)
        for rows, extra in ((['x86/64'], []),
                            (['x86_64'], ['--variant', 'a/b'])):
            r = self.run_diff(rows, *extra)
            self.assertEqual(r.returncode, 2)
            self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        r = subprocess.run(
            [sys.executable, TREE_DIFF, '--from', '6.1', '--to', '6.12',
             '--from-results', os.path.join(self.tmp, 'nowhere'),
             '--to-results', self.tmp, '--rows', 'x86_64'],
            capture_output=True, text=True, check=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn('no results directory', r.stderr)

    def test_rows_cell(self):
        self.assertEqual(tree_diff.rows_cell(['a', 'b'], ['b', 'a']),
                         'every row (2)')
        self.assertEqual(tree_diff.rows_cell(['a'], ['a']), 'a')
        self.assertEqual(tree_diff.rows_cell(['a'], ['a', 'b']), 'a')


if __name__ == '__main__':
    taprunner.main()
