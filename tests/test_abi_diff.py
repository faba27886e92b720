#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/abi_diff.py on small canned clone3_abi_probe outputs:
no difference, the declared change, an undeclared one, a declared one
that did not happen, a change on one row only, bad input, the terse
lines (others=usual); and the
abi-diff killer of summarize.py's mutants mode.

usage: tests/test_abi_diff.py
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import taprunner  # noqa: E402

ROOT = os.path.dirname(HERE)
SCRIPTS = os.path.join(ROOT, 'scripts')
ABI_DIFF = os.path.join(SCRIPTS, 'abi_diff.py')
SUMMARIZE = os.path.join(SCRIPTS, 'summarize.py')
DECLARED = os.path.join(ROOT, 'patches', 'abi-change')
sys.path.insert(0, SCRIPTS)
import abi_diff  # noqa: E402

CHILD = ('ok tab=same blocked=same pending=none altstack=same pdeath=0 '
         'pgrp=same sid=same ppid=caller tgid=own exit=0 exit_sig=17 '
         'caller=same')
VM_CHILD = CHILD.replace('altstack=same', 'altstack=disabled')
CLEARED = CHILD.replace('tab=same', 'tab=cleared')
VM_CLEARED = VM_CHILD.replace('tab=same', 'tab=cleared')
FLAG = 'CLONE_CLEAR_SIGHAND'

BASE = [
    'probe=setup ok tab=same blocked=same pending=same',
    'flags=0 size=88 ' + CHILD,
    'flags=%s size=88 EINVAL caller=same' % FLAG,
    'flags=CLONE_VM size=88 ' + VM_CHILD,
    'flags=CLONE_VM|%s size=88 EINVAL caller=same' % FLAG,
    'flags=CLONE_VM|CLONE_SIGHAND size=88 ' + VM_CHILD,
    'flags=CLONE_VM|CLONE_SIGHAND|%s size=88 EINVAL caller=same' % FLAG,
    'flags=0 size=63 EINVAL caller=same',
    'flags=%s size=63 EINVAL caller=same' % FLAG,
    'flags=bit40 size=88 EINVAL caller=same',
    'flags=%s|bit40 size=88 EINVAL caller=same' % FLAG,
    'probe=end ok inputs=10',
]
PATCHED = list(BASE)
PATCHED[2] = 'flags=%s size=88 %s' % (FLAG, CLEARED)
PATCHED[4] = 'flags=CLONE_VM|%s size=88 %s' % (FLAG, VM_CLEARED)


def doc(lines, ktap=False):
    """A raw probe output, or the probe nested in a KTAP document as the
    gate keeps it."""
    body = ['TAP version 13', '1..1'] + ['# abi: ' + line
                                         for line in lines] + \
        ['ok 1 abi_probe']
    if not ktap:
        return '\n'.join(body) + '\n'
    return '\n'.join(['KTAP version 1', '1..1'] +
                     ['    ' + b for b in body] +
                     ['ok 1 clone3_abi_probe']) + '\n'


def replace(lines, index, line):
    out = list(lines)
    out[index] = line
    return out


class AbiDiffTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='abi-diff-test.')
        self.results = os.path.join(self.tmp, 'results')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, path, text):
        path = os.path.join(self.tmp, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        return path

    def run_diff(self, *args):
        return subprocess.run([sys.executable, ABI_DIFF] + list(args),
                              capture_output=True, text=True, check=False)

    def put_rows(self, variant, rows, lines):
        for row in rows:
            self.write('results/%s/%s.ktap' % (variant, row),
                       doc(lines, ktap=True))

    def declared_run(self, rows, variant='patched'):
        return self.run_diff('--declared', DECLARED, '--results',
                             self.results, '--base', 'base', '--variant',
                             variant, '--rows', ' '.join(rows))

    # -- two files ------------------------------------------------------

    def test_equal_outputs_exit_0(self):
        a = self.write('a.out', doc(BASE))
        b = self.write('b.ktap', doc(BASE, ktap=True))
        proc = self.run_diff(a, b)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn('no difference', proc.stdout)

    def test_plain_diff_groups_the_new_flag(self):
        a = self.write('a.out', doc(BASE))
        b = self.write('b.out', doc(PATCHED))
        proc = self.run_diff(a, b)
        self.assertEqual(proc.returncode, 1)
        self.assertIn('| flags=%s size=88; flags=CLONE_VM\\|%s size=88 |'
                      % (FLAG, FLAG), proc.stdout)
        self.assertIn('A EINVAL -> B ok; the child as without %s, but '
                      'tab=cleared' % FLAG, proc.stdout)

    # -- the declaration ----------------------------------------------------

    def test_declared_change_present_exits_0(self):
        self.put_rows('base', ['x86_64', 'x86_64-ia32'], BASE)
        self.put_rows('patched', ['x86_64', 'x86_64-ia32'], PATCHED)
        proc = self.declared_run(['x86_64', 'x86_64-ia32'])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn('x86_64: as declared', proc.stdout)
        self.assertIn('x86_64-ia32: as declared', proc.stdout)
        with open(os.path.join(self.results, 'abi-diff.json'),
                  encoding='utf-8') as f:
            record = json.load(f)
        self.assertTrue(record['as_declared'])
        self.assertTrue(os.path.isfile(os.path.join(self.results,
                                                    'abi-diff.md')))

    def test_no_change_at_all_is_a_missing_declared_change(self):
        self.put_rows('base', ['x86_64'], BASE)
        self.put_rows('patched', ['x86_64'], BASE)
        proc = self.declared_run(['x86_64'])
        self.assertEqual(proc.returncode, 1)
        self.assertIn('| MISSING | flags=%s size=88; ' % FLAG, proc.stdout)
        with open(os.path.join(self.results, 'abi-diff.json'),
                  encoding='utf-8') as f:
            problems = json.load(f)['rows']['x86_64']['problems']
        self.assertIn('declared but did not happen: base EINVAL -> '
                      'patched ok', problems[0])

    def test_undeclared_change_exits_1_naming_it(self):
        self.put_rows('base', ['x86_64'], BASE)
        bad = replace(PATCHED, 9, 'flags=bit40 size=88 ' + CHILD)
        self.put_rows('patched', ['x86_64'], bad)
        proc = self.declared_run(['x86_64'])
        self.assertEqual(proc.returncode, 1)
        self.assertIn('| UNDECLARED | flags=bit40 size=88 | base EINVAL -> '
                      'patched ok', proc.stdout)

    def test_side_effect_of_the_flag_is_undeclared(self):
        # The flag also drops the alternate stack: the mutant of
        # patches/mutants/23-flag-clears-altstack.patch.
        self.put_rows('base', ['x86_64'], BASE)
        bad = replace(PATCHED, 2, 'flags=%s size=88 %s' % (
            FLAG, CLEARED.replace('altstack=same', 'altstack=disabled')))
        self.put_rows('patched', ['x86_64'], bad)
        proc = self.declared_run(['x86_64'])
        self.assertEqual(proc.returncode, 1)
        self.assertIn('DIFFERENT', proc.stdout)
        self.assertIn('altstack=disabled', proc.stdout)

    def test_exclusion_dropped_is_undeclared(self):
        self.put_rows('base', ['x86_64'], BASE)
        bad = replace(PATCHED, 6, 'flags=CLONE_VM|CLONE_SIGHAND|%s '
                      'size=88 %s' % (FLAG, VM_CHILD))
        self.put_rows('patched', ['x86_64'], bad)
        proc = self.declared_run(['x86_64'])
        self.assertEqual(proc.returncode, 1)
        self.assertIn('UNDECLARED', proc.stdout)

    def test_change_on_one_row_only(self):
        rows = ['x86_64', 'x86_64-ia32']
        self.put_rows('base', rows, BASE)
        self.put_rows('patched', ['x86_64'], PATCHED)
        self.put_rows('patched', ['x86_64-ia32'],
                      replace(PATCHED, 1, 'flags=0 size=88 ' + CLEARED))
        proc = self.declared_run(rows)
        self.assertEqual(proc.returncode, 1)
        self.assertIn('x86_64: as declared', proc.stdout)
        self.assertIn('x86_64-ia32: ', proc.stdout)
        self.assertIn('differs from the declaration on x86_64-ia32',
                      proc.stdout)
        with open(os.path.join(self.results, 'abi-diff.json'),
                  encoding='utf-8') as f:
            record = json.load(f)
        self.assertTrue(record['rows']['x86_64']['as_declared'])
        self.assertFalse(record['rows']['x86_64-ia32']['as_declared'])
        self.assertIn('tab: same -> cleared',
                      ' '.join(record['rows']['x86_64-ia32']['problems']))

    def test_probe_lines_missing_on_the_new_side_differ(self):
        self.put_rows('base', ['x86_64'], BASE)
        self.put_rows('patched', ['x86_64'], PATCHED[:5])
        proc = self.declared_run(['x86_64'])
        self.assertEqual(proc.returncode, 1)
        self.assertIn('gone', proc.stdout)

    def test_bad_input_exits_2(self):
        self.put_rows('base', ['x86_64'], BASE)
        self.put_rows('patched', ['x86_64'], PATCHED)
        bad_decl = self.write('decl', 'flag X\nwhatever 1 2\n')
        no_lines = self.write('empty.out', 'TAP version 13\n')
        cases = [
            ['--declared', DECLARED, '--results', self.results,
             '--rows', 'arm64'],
            ['--declared', bad_decl, '--results', self.results,
             '--rows', 'x86_64'],
            ['--results', os.path.join(self.tmp, 'none'), '--rows', 'x'],
            ['--results', self.results, '--rows', 'a/b'],
            [no_lines, no_lines],
            [os.path.join(self.tmp, 'missing'), no_lines],
            ['--bogus'],
        ]
        for args in cases:
            proc = self.run_diff(*args)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn('error', proc.stderr, args)

    def test_bad_probe_line_is_bad_input(self):
        path = self.write('a.out', '# abi: flags=0 size=88\n')
        with self.assertRaises(abi_diff.BadInput):
            abi_diff.read_probe(path)

    def test_others_usual_puts_back_what_was_left_out(self):
        usual = 'probe=usual ' + CHILD
        terse = [usual] + [
            line.replace(' ' + CHILD, ' ok others=usual')
            .replace(' ' + VM_CHILD, ' ok altstack=disabled others=usual')
            for line in BASE]
        full = abi_diff.parse_probe(doc([usual] + BASE))
        got = abi_diff.parse_probe(doc(terse, ktap=True))
        self.assertNotEqual(terse[2], BASE[1])
        self.assertEqual(got, full)
        for key in full:
            self.assertEqual(list(got[key]), list(full[key]), key)
        a = self.write('a.out', doc([usual] + BASE))
        b = self.write('b.out', doc(terse))
        proc = self.run_diff(a, b)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_others_usual_without_its_line_is_bad_input(self):
        for lines in (['flags=0 size=88 ok tab=cleared others=usual'],
                      ['probe=usual ' + CHILD,
                       'flags=0 size=88 ok others=unusual']):
            with self.assertRaises(abi_diff.BadInput, msg=lines):
                abi_diff.parse_probe(doc(lines))

    def test_counterpart(self):
        self.assertEqual(abi_diff.without_flag(
            'flags=CLONE_VM|%s size=88' % FLAG, FLAG),
            'flags=CLONE_VM size=88')
        self.assertEqual(abi_diff.without_flag('flags=%s size=64' % FLAG,
                                               FLAG), 'flags=0 size=64')

    # -- summarize.py: the abi-diff killer ----------------------------------

    def put_result(self, variant, row, status, lines):
        data = {'status': status, 'reason': '', 'counts': {},
                'programs': {'clone3_abi_probe': {
                    'suite': 'ours', 'result': 'pass', 'detail': '',
                    'subtests': {'abi_probe': 'pass'}}}}
        self.write('results/%s/%s.json' % (variant, row), json.dumps(data))
        self.write('results/%s/%s.ktap' % (variant, row),
                   doc(lines, ktap=True))

    def test_mutants_abi_diff_kills(self):
        mutants = os.path.join(self.tmp, 'mutants')
        os.makedirs(mutants)
        for name in ('01-side-effect', '02-same'):
            self.write('mutants/%s.patch' % name,
                       'From 0 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] '
                       'mutant: %s\n\nBreaks: x\n---\n' % name)
        self.put_result('base', 'x86_64', 'fail', BASE)
        side = replace(PATCHED, 8, 'flags=%s size=63 %s' % (FLAG, CLEARED))
        self.put_result('mutant-01-side-effect', 'x86_64', 'pass', side)
        self.put_result('mutant-02-same', 'x86_64', 'pass', PATCHED)
        proc = subprocess.run(
            [sys.executable, SUMMARIZE, '--results', self.results,
             '--mode', 'mutants', '--rows', 'x86_64', '--mutants-dir',
             mutants, '--abi-declared', DECLARED],
            capture_output=True, text=True, check=False)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn('| mutant-01-side-effect | killed by abi-diff |',
                      proc.stdout)
        self.assertIn('| mutant-02-same | SURVIVED |', proc.stdout)
        self.assertIn('## ABI diff (base -> mutant)', proc.stdout)
        with open(os.path.join(self.results, 'mutants.json'),
                  encoding='utf-8') as f:
            record = json.load(f)
        cell = record['mutant-01-side-effect']['arches']['x86_64']
        self.assertEqual(cell['killers'], ['abi-diff'])
        self.assertTrue(cell['abi_diff'])

    def test_mutants_without_base_hold_the_flag_to_its_twins(self):
        mutants = os.path.join(self.tmp, 'mutants')
        os.makedirs(mutants)
        self.write('mutants/01-altstack.patch',
                   'Subject: [PATCH] mutant: a\n\nBreaks: x\n---\n')
        self.write('mutants/02-same.patch',
                   'Subject: [PATCH] mutant: b\n\nBreaks: x\n---\n')
        side = replace(PATCHED, 2, 'flags=%s size=88 %s' % (
            FLAG, CLEARED.replace('altstack=same', 'altstack=disabled')))
        self.put_result('mutant-01-altstack', 'x86_64', 'pass', side)
        self.put_result('mutant-02-same', 'x86_64', 'pass', PATCHED)
        proc = subprocess.run(
            [sys.executable, SUMMARIZE, '--results', self.results,
             '--mode', 'mutants', '--rows', 'x86_64', '--mutants-dir',
             mutants], capture_output=True, text=True, check=False)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn('| mutant-01-altstack | killed by abi-diff |',
                      proc.stdout)
        self.assertIn('| mutant-02-same | as declared (flag inputs only: '
                      'no base) |', proc.stdout)

    def test_mutants_see_through_a_stale_base(self):
        # base/ from a kernel whose configuration refused bit40, the
        # mutants' accepts it: most mutants agree, so it is base's.
        mutants = os.path.join(self.tmp, 'mutants')
        os.makedirs(mutants)
        newer = replace(PATCHED, 9, 'flags=bit40 size=88 ' + CHILD)
        newer = replace(newer, 10,
                        'flags=%s|bit40 size=88 %s' % (FLAG, CLEARED))
        self.put_result('base', 'x86_64', 'fail', BASE)
        for name in ('01-a', '02-b', '03-c'):
            self.write('mutants/%s.patch' % name, 'Subject: [PATCH] %s\n\n'
                       'Breaks: x\nKilled-on: arm64\n---\n' % name)
            self.put_result('mutant-' + name, 'x86_64', 'pass', newer)
        self.write('mutants/04-d.patch',
                   'Subject: [PATCH] d\n\nBreaks: x\n---\n')
        self.put_result('mutant-04-d', 'x86_64', 'pass', replace(
            newer, 1, 'flags=0 size=88 ' + CLEARED))
        proc = subprocess.run(
            [sys.executable, SUMMARIZE, '--results', self.results,
             '--mode', 'mutants', '--rows', 'x86_64', '--mutants-dir',
             mutants], capture_output=True, text=True, check=False)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn('| mutant-01-a | survives, as expected |', proc.stdout)
        self.assertIn('| mutant-04-d | killed by abi-diff |', proc.stdout)
        self.assertIn('base/x86_64 differs from most of the 4 mutants alike '
                      'on 1 input(s) (flags=bit40 size=88)', proc.stdout)


# -- another change: CLONE_PIDFD with CLONE_THREAD (changes/pidfd-thread) --

PIDFD_DECL = os.path.join(ROOT, 'changes', 'pidfd-thread', 'abi-change')
THREAD = ('ok tab=same blocked=same pending=same altstack=disabled pdeath=0 '
          'pgrp=same sid=same ppid=callers_parent tgid=caller exit=thread '
          'exit_sig=none caller=same')
VMT = 'CLONE_VM|CLONE_SIGHAND'
P_BASE = [
    'probe=setup ok tab=same blocked=same pending=same',
    'flags=CLONE_PIDFD size=88 %s pidfd=child' % CHILD,
    'flags=%s|CLONE_THREAD exit_signal=0 size=88 %s' % (VMT, THREAD),
    'flags=%s|CLONE_PIDFD|CLONE_THREAD exit_signal=0 size=88 EINVAL '
    'caller=same' % VMT,
    'flags=CLONE_PIDFD|CLONE_DETACHED size=88 EINVAL caller=same',
    'flags=0 size=96 tail=nonzero E2BIG caller=same',
    'flags=0 size=88 ' + CHILD,
    'probe=end ok inputs=6',
]
P_PATCHED = replace(P_BASE, 3, 'flags=%s|CLONE_PIDFD|CLONE_THREAD '
                    'exit_signal=0 size=88 %s pidfd=child,thread' %
                    (VMT, THREAD))


def probe(lines):
    return abi_diff.parse_probe(doc(lines))


class DeclarationTest(unittest.TestCase):
    """The declaration language: blocks, each kind, and what it holds."""

    def diff(self, text, base, new, row='x86_64'):
        decl = abi_diff.Declaration.parse(text, 'decl')
        return abi_diff.compare(row, probe(base), probe(new), decl)

    def test_todays_declaration_reads_as_before(self):
        decl = abi_diff.Declaration.read(DECLARED)
        self.assertEqual(decl.flag, FLAG)
        self.assertEqual(decl.blocks[0].refused, [('CLONE_SIGHAND',
                                                   'EINVAL')])
        self.assertEqual(decl.blocks[0].child, {'tab': 'cleared'})

    def test_allow_as_declared(self):
        decl = abi_diff.Declaration.read(PIDFD_DECL)
        d = abi_diff.compare('x86_64', probe(P_BASE), probe(P_PATCHED), decl)
        self.assertTrue(d.ok, d.problems)
        self.assertEqual([g['verdict'] for g in d.groups], ['declared'])

    def test_same_series_without_declaration_names_the_difference(self):
        d = self.diff('', P_BASE, P_PATCHED)
        self.assertFalse(d.ok)
        text = ' '.join(d.problems)
        self.assertIn('UNDECLARED flags=%s|CLONE_PIDFD|CLONE_THREAD' % VMT,
                      text)
        self.assertIn('base EINVAL -> new ok', text)
        self.assertIn('pidfd=child,thread', text)

    def test_wrong_declaration_names_the_key(self):
        d = self.diff('allow CLONE_PIDFD CLONE_THREAD was EINVAL\n'
                      'child pidfd=child\n', P_BASE, P_PATCHED)
        self.assertFalse(d.ok)
        self.assertIn('DIFFERENT', d.problems[0])
        self.assertIn('pidfd=child,thread', d.problems[0])

    def test_declared_but_still_refused_is_missing(self):
        d = self.diff(open(PIDFD_DECL).read(), P_BASE, P_BASE)
        self.assertFalse(d.ok)
        self.assertIn('MISSING flags=%s|CLONE_PIDFD|CLONE_THREAD' % VMT,
                      d.problems[0])
        self.assertIn('declared but did not happen', d.problems[0])

    def test_thread_pidfd_everywhere_is_undeclared(self):
        bad = replace(P_PATCHED, 1, 'flags=CLONE_PIDFD size=88 %s '
                      'pidfd=child,thread' % CHILD)
        d = self.diff(open(PIDFD_DECL).read(), P_BASE, bad)
        self.assertEqual(len(d.problems), 1)
        self.assertIn('UNDECLARED flags=CLONE_PIDFD size=88', d.problems[0])
        self.assertIn('pidfd: child -> child,thread', d.problems[0])

    def test_refuse_block(self):
        new = replace(P_BASE, 1, 'flags=CLONE_PIDFD size=88 EPERM '
                      'caller=same')
        self.assertTrue(self.diff('refuse CLONE_PIDFD with EPERM\n',
                                  P_BASE, new).ok)
        self.assertFalse(self.diff('', P_BASE, new).ok)

    def test_size_block(self):
        new = replace(P_BASE, 5, 'flags=0 size=96 tail=nonzero ' + CHILD)
        decl = 'size 96 tail was E2BIG now ok\n'
        self.assertTrue(self.diff(decl, P_BASE, new).ok)
        wrong = 'size 96 tail was E2BIG now EINVAL\n'
        self.assertIn('DIFFERENT', self.diff(wrong, P_BASE,
                                             new).problems[0])

    def test_flag_block_with_needs(self):
        base = ['flags=0 size=88 ' + CHILD,
                'flags=bit40 size=88 EINVAL caller=same']
        new = replace(base, 1, 'flags=bit40 size=88 ' +
                      CHILD.replace('pdeath=0', 'pdeath=9'))
        decl = 'flag bit40\nneeds CAP_SYS_ADMIN\nchild pdeath=9\n'
        self.assertTrue(self.diff(decl, base, new).ok)
        parsed = abi_diff.Declaration.parse(decl)
        self.assertIn('needs CAP_SYS_ADMIN', parsed.describe()[0])

    def test_except_rows(self):
        decl = ('allow CLONE_PIDFD CLONE_THREAD was EINVAL\n'
                'child pidfd=child,thread\n'
                'except-rows riscv64 because "no such support there"\n')
        self.assertTrue(self.diff(decl, P_BASE, P_BASE, 'riscv64').ok)
        self.assertFalse(self.diff(decl, P_BASE, P_PATCHED, 'riscv64').ok)
        self.assertTrue(self.diff(decl, P_BASE, P_PATCHED, 'x86_64').ok)

    def test_several_blocks(self):
        new = replace(P_PATCHED, 1, 'flags=CLONE_PIDFD size=88 EPERM '
                      'caller=same')
        decl = open(PIDFD_DECL).read() + 'refuse CLONE_PIDFD with EPERM\n'
        self.assertTrue(self.diff(decl, P_BASE, new).ok)

    def test_bad_declarations_name_file_and_line(self):
        for text in ('child tab=cleared\n', 'flag X Y\n',
                     'allow CLONE_PIDFD was\n', 'refuse CLONE_VM with 3\n',
                     'flag CLONE_X\nneeds root\n',
                     'flag CLONE_X\nexcept-rows x86_64\n',
                     'flag CLONE_X\nexcept-rows because "r"\n',
                     'size big was EINVAL now ok\n',
                     'allow CLONE_PIDFD CLONE_THREAD was EINVAL\n'
                     'refused-with CLONE_VM EINVAL\n', 'frobnicate\n'):
            with self.assertRaises(abi_diff.BadInput) as cm:
                abi_diff.Declaration.parse(text, 'decl')
            self.assertRegex(str(cm.exception), r'^decl:[0-9]+: ')


# -- another change: Linux 7.1's four flags (changes/clone3-7.1-flags) --

FLAGS71_DECL = os.path.join(ROOT, 'changes', 'clone3-7.1-flags',
                            'abi-change')
C71 = ('ok tab=same blocked=same pending=none altstack=same pdeath=0 '
       'pgrp=same sid=same ppid=caller tgid=own nnp=0 mntns=same exit=0 '
       'exit_sig=%s caller=same')
AR, NNP, AK = 'CLONE_AUTOREAP', 'CLONE_NNP', 'CLONE_PIDFD_AUTOKILL'
AKD = 'CLONE_PIDFD|%s|%s' % (AR, AK)
F71_INPUTS = [
    ('flags=0 size=88', C71 % 17),
    ('flags=0 exit_signal=0 size=88', C71 % 'none'),
    ('flags=CLONE_PIDFD exit_signal=0 size=88',
     C71 % 'none' + ' pidfd=child'),
    ('flags=%s|CLONE_THREAD exit_signal=0 size=88' % VMT, THREAD),
    ('flags=%s size=88' % AR, None),
    ('flags=%s exit_signal=0 size=88' % AR, None),
    ('flags=%s|CLONE_THREAD|%s exit_signal=0 size=88' % (VMT, AR), None),
    ('flags=%s size=88' % NNP, None),
    ('flags=%s|CLONE_THREAD|%s exit_signal=0 size=88' % (VMT, NNP), None),
    ('flags=CLONE_PIDFD|%s exit_signal=0 size=88' % AR, None),
    ('flags=%s exit_signal=0 size=88' % AKD, None),
    ('flags=%s size=88' % AKD, None),
    ('flags=CLONE_PIDFD|%s exit_signal=0 size=88' % AK, None),
]
F71_BASE = ['probe=setup ok tab=same blocked=same pending=same'] + [
    '%s %s' % (i, o or 'EINVAL caller=same') for i, o in F71_INPUTS] + [
    'probe=end ok inputs=%d' % len(F71_INPUTS)]
F71_NEW = {
    'flags=%s exit_signal=0 size=88' % AR:
    (C71 % 'none').replace('exit=0', 'exit=reaped'),
    'flags=%s size=88' % NNP: (C71 % 17).replace('nnp=0', 'nnp=1'),
    'flags=CLONE_PIDFD|%s exit_signal=0 size=88' % AR:
    (C71 % 'none').replace('exit=0', 'exit=reaped') + ' pidfd=child',
    'flags=%s exit_signal=0 size=88' % AKD:
    (C71 % 'none').replace('exit=0', 'exit=reaped') +
    ' pidfd=child,autokill onclose=killed',
}
F71_PATCHED = [
    '%s %s' % (line.rsplit(' size=88 ', 1)[0] + ' size=88',
               F71_NEW[line.rsplit(' size=88 ', 1)[0] + ' size=88'])
    if line.rsplit(' size=88 ', 1)[0] + ' size=88' in F71_NEW else line
    for line in F71_BASE]


def with_line(lines, key, obs):
    return [key + ' ' + obs if line.startswith(key + ' ') else line
            for line in lines]


class Flags71Test(unittest.TestCase):
    """changes/clone3-7.1-flags/abi-change: several flag blocks, rules
    across blocks (refused-unless), and the child keys of 7.1."""

    def diff(self, base, new, text=None):
        decl = abi_diff.Declaration.read(FLAGS71_DECL) if text is None \
            else abi_diff.Declaration.parse(text, 'decl')
        return abi_diff.compare('x86_64', probe(base), probe(new), decl)

    def test_as_declared(self):
        d = self.diff(F71_BASE, F71_PATCHED)
        self.assertTrue(d.ok, d.problems)

    def test_without_declaration_names_each_flag(self):
        d = self.diff(F71_BASE, F71_PATCHED, '')
        text = ' '.join(d.problems)
        for key in F71_NEW:
            self.assertIn('UNDECLARED', text)
            self.assertIn(key.split()[0], text)

    def test_autoreap_with_thread_accepted_differs(self):
        key = 'flags=%s|CLONE_THREAD|%s exit_signal=0 size=88' % (VMT, AR)
        d = self.diff(F71_BASE, with_line(F71_PATCHED, key, THREAD))
        self.assertEqual(len(d.problems), 1, d.problems)
        self.assertIn('UNDECLARED ' + key, d.problems[0])

    def test_autoreap_with_exit_signal_is_refused_across_blocks(self):
        # CLONE_PIDFD_AUTOKILL's block names the input first; the
        # exit_signal rule is CLONE_AUTOREAP's.
        key = 'flags=%s size=88' % AKD
        bad = with_line(F71_PATCHED, key, (C71 % 17) + ' pidfd=child,'
                        'autokill onclose=killed')
        d = self.diff(F71_BASE, bad)
        self.assertEqual(len(d.problems), 1, d.problems)
        self.assertIn('UNDECLARED ' + key, d.problems[0])

    def test_nnp_unset_is_different_on_its_key(self):
        key = 'flags=%s size=88' % NNP
        d = self.diff(F71_BASE, with_line(F71_PATCHED, key, C71 % 17))
        self.assertIn('DIFFERENT ' + key, d.problems[0])
        self.assertIn('nnp', d.problems[0])

    def test_wrong_child_key_is_named(self):
        text = open(FLAGS71_DECL).read().replace('child nnp=1',
                                                 'child nnp=0')
        d = self.diff(F71_BASE, F71_PATCHED, text)
        self.assertEqual(len(d.problems), 1, d.problems)
        self.assertIn('DIFFERENT flags=%s size=88' % NNP, d.problems[0])
        self.assertIn('(against the declaration: nnp: 0 -> 1)',
                      d.problems[0])

    def test_autokill_child_that_lives_differs(self):
        key = 'flags=%s exit_signal=0 size=88' % AKD
        obs = F71_NEW[key].replace('onclose=killed', 'onclose=lives')
        d = self.diff(F71_BASE, with_line(F71_PATCHED, key, obs))
        self.assertIn('DIFFERENT ' + key, d.problems[0])
        self.assertIn('onclose', d.problems[0])

    def test_autokill_without_autoreap_accepted_differs(self):
        key = 'flags=CLONE_PIDFD|%s exit_signal=0 size=88' % AK
        obs = (C71 % 'none') + ' pidfd=child,autokill onclose=killed'
        d = self.diff(F71_BASE, with_line(F71_PATCHED, key, obs))
        self.assertIn('UNDECLARED ' + key, d.problems[0])

    def test_needs_a_capability_unless_a_flag(self):
        base = ['flags=0 size=88 nocap=CAP_SYS_ADMIN ' + C71 % 17,
                'flags=CLONE_NNP size=88 nocap=CAP_SYS_ADMIN EINVAL '
                'caller=same',
                'flags=%s exit_signal=0 size=88 nocap=CAP_SYS_ADMIN EINVAL '
                'caller=same' % AKD,
                'flags=CLONE_EMPTY_MNTNS size=88 nocap=CAP_SYS_ADMIN EINVAL '
                'caller=same']
        new = with_line(with_line(with_line(
            base, 'flags=CLONE_NNP size=88 nocap=CAP_SYS_ADMIN',
            (C71 % 17).replace('nnp=0', 'nnp=1')),
            'flags=%s exit_signal=0 size=88 nocap=CAP_SYS_ADMIN' % AKD,
            'EPERM caller=same'),
            'flags=CLONE_EMPTY_MNTNS size=88 nocap=CAP_SYS_ADMIN',
            'EPERM caller=same')
        self.assertTrue(self.diff(base, new).ok, self.diff(base, new))
        # A kernel that lets CLONE_PIDFD_AUTOKILL through without it.
        bad = with_line(new, 'flags=%s exit_signal=0 size=88 '
                        'nocap=CAP_SYS_ADMIN' % AKD, 'EINVAL caller=same')
        d = self.diff(base, bad)
        self.assertIn('MISSING flags=%s' % AKD, d.problems[0])
        decl = abi_diff.Declaration.parse(
            'flag CLONE_X\nneeds CAP_SYS_ADMIN unless CLONE_NNP\n')
        self.assertEqual(decl.blocks[0].needs_unless, ['CLONE_NNP'])
        self.assertIn('but with CLONE_NNP', decl.describe()[0])
        with self.assertRaises(abi_diff.BadInput):
            abi_diff.Declaration.parse('flag CLONE_X\nneeds unless '
                                       'CLONE_NNP\n', 'decl')

    def test_refused_unless_parses_and_says_itself(self):
        decl = abi_diff.Declaration.parse(
            'flag CLONE_X\nrefused-unless exit_signal=0 EINVAL\n'
            'refused-unless CLONE_PIDFD EPERM\n')
        self.assertEqual(decl.blocks[0].unless, [('exit_signal=0', 'EINVAL'),
                                                 ('CLONE_PIDFD', 'EPERM')])
        self.assertIn('without exit_signal=0 it gives EINVAL',
                      decl.describe()[0])
        for text in ('flag CLONE_X\nrefused-unless root EINVAL\n',
                     'flag CLONE_X\nrefused-unless CLONE_PIDFD\n',
                     'allow CLONE_PIDFD CLONE_THREAD was EINVAL\n'
                     'refused-unless CLONE_VM EINVAL\n'):
            with self.assertRaises(abi_diff.BadInput):
                abi_diff.Declaration.parse(text, 'decl')


if __name__ == '__main__':
    taprunner.main()
