#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/verdict/ in-process: the saved consoles of tests/data
read into the result tree, judged by its rules, written by its writers,
and read back from the records.

usage: tests/test_verdict.py
"""

import json
import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import taprunner  # noqa: E402

sys.path.insert(0, taprunner.SCRIPTS)
from verdict import junit, records, rules, table  # noqa: E402
from verdict.console import Console  # noqa: E402
from verdict.model import Result, Row, Run, Status  # noqa: E402
from verdict.results import directory_run, load_result  # noqa: E402

DATA = os.path.join(HERE, 'data')
SUITE = os.path.join(os.path.dirname(HERE), 'tools-testing-selftests-clone3')

# console, the status of its native row, words of its reason
EXPECTED = {name: (Status(status), words) for name, status, words in (
    line.split(None, 2) for line in """
good.log                  pass  4 programs: 3 passed, 1 skipped
interleaved.log           pass  4 programs: 3 passed, 1 skipped
fail.log                  fail  failed: clone3_clear_sighand_abi
cut.log                   error no CLONE3-GATE-END marker
mismatch.log              error plan 1..3 does not match
noboot.log                error no CLONE3-GATE-BEGIN marker
panic.log                 error kernel panic at log line 6
qemu-x86_64-exit.log      error kernel panic
qemu-x86_64.log           fail  failed: fake_fail
qemu-x86_64-base.log      fail  failed: clone3_clear_sighand
qemu-x86_64-patched.log   pass  6 programs
qemu-arm64-patched.log    pass  6 programs
qemu-riscv64-patched.log  pass  6 programs
""".strip().splitlines())}


def read(name, variant='patched', abi=None, timed_out=False):
    with open(os.path.join(DATA, name), 'rb') as f:
        console = Console.from_bytes(f.read())
    return rules.read_row(console, variant, 'x86_64', abi, '6.1', SUITE,
                          last_row=True, timed_out=timed_out)


def round_trip(row):
    """The row as ktap-report.py writes it and summarize.py reads it."""
    data = json.loads(records.dumps(records.row_record(row, 'x.log')))
    return Row.from_json(row.variant, row.name, data)


class TreeTest(unittest.TestCase):
    def test_every_saved_console_has_its_status(self):
        self.assertEqual(sorted(EXPECTED), sorted(
            f for f in os.listdir(DATA) if f.endswith('.log')))
        for name, (status, words) in EXPECTED.items():
            row = read(name)
            self.assertEqual(row.status, status, name)
            self.assertIn(words, row.reason, name)

    def test_tree_shape(self):
        row = read('qemu-x86_64-patched.log')
        self.assertEqual(row.document.begin.programs, len(row.programs))
        prog = row.programs['clone3_clear_sighand_abi']
        self.assertEqual(prog.suite, 'ours')
        self.assertEqual(prog.result, Status.PASS)
        self.assertTrue(prog.subtests)
        self.assertTrue(all(isinstance(s, Status)
                            for s in prog.subtests.values()))
        self.assertEqual(row.programs['clone3'].suite, 'upstream')

    def test_a_missing_compat_document_is_an_error_of_its_row(self):
        row = read('good.log', abi='ia32')
        self.assertEqual(row.status, Status.ERROR)
        self.assertEqual(row.name, 'x86_64-ia32')
        self.assertEqual(row.label, 'x86_64/ia32')
        self.assertIn('init did not run /clone3-compat', row.reason)

    def test_a_timeout_after_the_end_is_an_error(self):
        row = read('good.log', timed_out=True)
        self.assertEqual(row.status, Status.ERROR)
        self.assertIn('did not power off', row.reason)

    def test_records_read_back_to_the_same_tree(self):
        for name in EXPECTED:
            row = read(name)
            back = round_trip(row)
            self.assertEqual(back.status, row.status, name)
            self.assertEqual(back.reason, row.reason, name)
            self.assertEqual(back.counts, row.counts, name)
            self.assertEqual(
                {k: (p.suite, p.result, p.subtests)
                 for k, p in back.programs.items()},
                {k: (p.suite, p.result, p.subtests)
                 for k, p in row.programs.items()}, name)


def run_of(rows):
    """A Run over rows in memory: (variant, row name) -> Row."""
    def lookup(variant, name):
        row = rows.get((variant, name))
        res = Result(variant, name, '/nowhere/%s/%s.json' % (
            variant, name), row=row)
        if row is None:
            res.why = 'no result'
        return res
    return Run('6.1', lookup)


class RulesTest(unittest.TestCase):
    def setUp(self):
        self.base = round_trip(read('qemu-x86_64-base.log', 'base'))
        self.patched = round_trip(read('qemu-x86_64-patched.log'))

    def test_base_and_patched_of_a_real_gate(self):
        self.assertIsNone(rules.expect_base(self.base))
        self.assertIsNone(rules.expect_patched(self.patched))
        self.assertIn('expected fail', rules.expect_base(self.patched))
        self.assertTrue(rules.expect_patched(self.base).startswith('fail'))

    def test_base_fails_only_where_the_flag_is_needed(self):
        subs, _ = rules.failed_items(self.base, 'ours')
        self.assertTrue(subs)
        self.assertTrue(all(rules.needs_flag(s.split(':', 1)[1])
                            for s in subs))

    def test_needs_flag(self):
        for name in ('flag_abi.alone_accepted', 'spawn.flag.resets',
                     'flag_child.fork.resets_every_handler'):
            self.assertTrue(rules.needs_flag(name), name)
        for name in ('spawn.classic.x', 'global.flagged', 'flags.x'):
            self.assertFalse(rules.needs_flag(name), name)

    def test_gate_cells_and_writers(self):
        run = run_of({('base', 'x86_64'): self.base,
                      ('patched', 'x86_64'): self.patched})
        cells = rules.gate_cells(run, ['base', 'patched'],
                                 ['x86_64', 'arm64'])
        self.assertEqual([c.ok for c in cells], [True, False, True, False])
        text = table.gate_text(cells, ['base', 'patched'],
                               ['x86_64', 'arm64'], '6.1', [])
        self.assertEqual(text.splitlines()[-1], '2 passed, 2 failed')
        self.assertIn('| base | as expected | UNEXPECTED: no result |',
                      text)
        rec = records.gate_record(cells, ['base', 'patched'],
                                  ['x86_64', 'arm64'], '6.1', [],
                                  table.closing([c.ok for c in cells]))
        self.assertEqual([c['as_expected'] for c in rec['cells']],
                         [True, False, True, False])

    def test_another_change_holds_patched_to_base(self):
        run = run_of({('base', 'x86_64'): self.patched,
                      ('patched', 'x86_64'): self.base})
        cells = rules.gate_cells(run, ['base', 'patched'], ['x86_64'],
                                 'other')
        self.assertTrue(cells[0].ok)
        self.assertIn('passed on base, not here', cells[1].why)

    def test_mutant_cells(self):
        killed = rules.mutant_cell(self.base)
        self.assertTrue(killed.killed)
        self.assertFalse(killed.glibc_killed)
        survived = rules.mutant_cell(self.patched)
        self.assertFalse(survived.killed)
        self.assertEqual(table.ours_text(survived), 'SURVIVED')
        rules.hold(survived, must_kill=False)
        self.assertTrue(survived.ok)
        self.assertEqual(table.held_text(survived), 'survives, as expected')
        # what failed on base too proves nothing for another change
        again = rules.mutant_cell(self.base, rules.failed_on(self.base))
        self.assertFalse(again.killed)


class JunitTest(unittest.TestCase):
    def test_counts_of_a_row(self):
        for name in ('qemu-x86_64.log', 'cut.log', 'good.log'):
            row = read(name)
            root = ET.fromstring(junit.junit(row))
            suites = root.findall('testsuite')
            for key in ('tests', 'failures', 'errors', 'skipped'):
                self.assertEqual(int(root.get(key)), sum(
                    int(s.get(key)) for s in suites), (name, key))
            self.assertEqual(int(root.get('errors')) > 0,
                             row.status == Status.ERROR or any(
                                 p.result == Status.TIMEOUT
                                 for p in row.programs.values()), name)


class ResultsTest(unittest.TestCase):
    def test_records_missing_unreadable_malformed(self):
        texts = {
            'x86_64': records.dumps(records.row_record(read('good.log'),
                                                       'x86_64.log')),
            'arm64': '{',
            'i386': json.dumps({'status': 'pass', 'programs': {
                'p': {'result': 'maybe'}}}),
        }
        with tempfile.TemporaryDirectory(prefix='verdict-test.') as tmp:
            os.makedirs(os.path.join(tmp, 'patched'))
            for name, text in texts.items():
                with open(os.path.join(tmp, 'patched', name + '.json'),
                          'w', encoding='utf-8') as f:
                    f.write(text)
            run = directory_run(tmp, '6.1')
            self.assertEqual(run.row('patched', 'x86_64').status,
                             Status.PASS)
            why = {name: load_result(tmp, 'patched', name).why
                   for name in ('arm64', 'i386', 'riscv64')}
        self.assertIn('unreadable result', why['arm64'])
        self.assertIn('malformed result', why['i386'])
        self.assertIn('missing', why['riscv64'])


if __name__ == '__main__':
    taprunner.main()
