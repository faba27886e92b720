#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/summarize.py: each expectation (base, patched, mutant)
must be met or missed for the right reason, with the right exit code and
closing line.

usage: tests/test_summarize.py
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

SCRIPTS = os.path.join(os.path.dirname(HERE), 'scripts')
SUMMARIZE = taprunner.script('summarize.py')
META = taprunner.script('results_meta.py')
REPORT = taprunner.script('ktap-report.py')
sys.path.insert(0, SCRIPTS)
from verdict.rules import needs_flag  # noqa: E402


def prog(suite, result='pass', detail='', **subtests):
    return {'suite': suite, 'result': result, 'detail': detail,
            'subtests': subtests}


def result(status, reason='', **programs):
    return {'status': status, 'reason': reason, 'programs': programs,
            'counts': {}}


BASE_OK = result(
    'fail', 'failed: ...',
    clone3_clear_sighand_abi=prog('ours', 'fail', 'exit=1', **{
        'global.flag_resets_handler': 'fail',
        'global.no_flag_keeps_handler': 'pass'}),
    clone3_clear_sighand=prog('upstream', 'fail', 'exit=1'),
    clone3=prog('upstream', **{'[1] Result (0)': 'pass'}))
PATCHED_OK = result('pass', 'all passed',
                    clone3_clear_sighand_abi=prog('ours', **{
                        'global.flag_resets_handler': 'pass'}))


class SummarizeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='summarize-test.')
        self.results = os.path.join(self.tmp, 'results')
        self.mutants = os.path.join(self.tmp, 'mutants')
        os.makedirs(self.results)
        os.makedirs(self.mutants)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def put(self, variant, arch, data):
        d = os.path.join(self.results, variant)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, arch + '.json'), 'w',
                  encoding='utf-8') as f:
            json.dump(data, f)

    def summarize(self, mode, *extra, arches='x86_64 arm64'):
        proc = subprocess.run(
            [*SUMMARIZE, '--results', self.results, '--mode', mode,
             '--rows', arches, '--mutants-dir', self.mutants] +
            list(extra), capture_output=True, text=True, check=False)
        return proc

    def gate_ok_everywhere(self):
        for arch in ('x86_64', 'arm64'):
            self.put('base', arch, BASE_OK)
            self.put('patched', arch, PATCHED_OK)

    def test_gate_all_as_expected(self):
        self.gate_ok_everywhere()
        proc = self.summarize('gate')
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[-1], '4 passed, 0 failed')
        with open(os.path.join(self.results, 'summary.md'),
                  encoding='utf-8') as f:
            self.assertEqual(f.read(), proc.stdout)
        self.assertEqual(proc.stdout.count('as expected'), 4)

    def test_missing_result_counts_as_failed(self):
        self.gate_ok_everywhere()
        proc = self.summarize('gate', arches='x86_64 arm64 riscv64')
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout.splitlines()[-1], '4 passed, 2 failed')
        self.assertIn('UNEXPECTED: no result', proc.stdout)

    def base_case(self, data):
        self.gate_ok_everywhere()
        self.put('base', 'arm64', data)
        proc = self.summarize('gate')
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[-1], '3 passed, 1 failed')
        return proc.stdout

    def test_base_that_passes_is_unexpected(self):
        out = self.base_case(PATCHED_OK)
        self.assertIn('UNEXPECTED: pass, expected fail', out)

    def test_base_failing_a_test_without_the_flag_is_unexpected(self):
        out = self.base_case(result('fail', **{
            'clone3_fuzz': prog('ours', 'fail', 'exit=1', **{
                'global.flag_sizes': 'fail', 'global.sizes': 'fail'})}))
        self.assertIn('do not need the flag failed: clone3_fuzz:global.sizes',
                      out)

    def test_base_failing_in_a_flag_fixture_is_as_expected(self):
        self.gate_ok_everywhere()
        self.put('base', 'arm64', result('fail', clone3_spawn_test=prog(
            'ours', 'fail', 'exit=1', **{
                'flag_spawn.resets_handlers': 'fail',
                'flag_child.vm_vfork.keeps_mask': 'fail',
                'classic_spawn.classic_runs': 'pass'})))
        proc = self.summarize('gate')
        self.assertEqual(proc.returncode, 0, proc.stdout)

    def test_base_failing_only_upstream_is_unexpected(self):
        out = self.base_case(result('fail', clone3=prog(
            'upstream', 'fail', 'exit=1', a='fail')))
        self.assertIn('none of our subtests failed', out)

    def test_base_with_our_program_timing_out_is_unexpected(self):
        data = json.loads(json.dumps(BASE_OK))
        data['programs']['clone3_fuzz'] = prog('ours', 'timeout',
                                               'TIMEOUT 60 seconds')
        out = self.base_case(data)
        self.assertIn('clone3_fuzz (TIMEOUT 60 seconds)', out)

    @staticmethod
    def glibc_base(**rows):
        data = json.loads(json.dumps(BASE_OK))
        failed = any(r == 'fail' for r in rows.values())
        data['programs']['glibc_spawn'] = prog(
            'glibc', 'fail' if failed else 'pass', 'exit=1' if failed else '',
            **rows)
        return data

    def test_base_with_glibc_falling_back_is_as_expected(self):
        self.gate_ok_everywhere()
        self.put('base', 'arm64', self.glibc_base(
            spawn_path='pass', flag_clone3_path='fail', enoent='pass'))
        proc = self.summarize('gate')
        self.assertEqual(proc.returncode, 0, proc.stdout)

    def test_base_with_glibc_on_the_flag_path_is_unexpected(self):
        out = self.base_case(SummarizeTest.glibc_base(
            spawn_path='pass', flag_clone3_path='pass'))
        self.assertIn("glibc took the flag's path on a kernel without it: "
                      'glibc_spawn:flag_clone3_path', out)

    def test_base_with_a_glibc_row_failing_is_unexpected(self):
        out = self.base_case(SummarizeTest.glibc_base(
            spawn_path='pass', flag_clone3_path='fail',
            pre_exec_sigusr1='fail'))
        self.assertIn('glibc rows that do not need the flag failed: '
                      'glibc_spawn:pre_exec_sigusr1', out)

    def test_base_error_is_unexpected(self):
        out = self.base_case(result('error', 'kernel panic: boom'))
        self.assertIn('error, expected fail: kernel panic: boom', out)

    def test_malformed_result_is_unexpected(self):
        out = self.base_case({'status': 'fail', 'programs': {'x': None}})
        self.assertIn('UNEXPECTED: malformed result', out)

    def test_patched_failure_is_unexpected(self):
        self.gate_ok_everywhere()
        self.put('patched', 'x86_64', BASE_OK)
        proc = self.summarize('gate')
        self.assertEqual(proc.returncode, 1)
        self.assertIn('UNEXPECTED: fail: failed: ...', proc.stdout)

    def write_mutant(self, name, subject, promise):
        with open(os.path.join(self.mutants, name + '.patch'), 'w',
                  encoding='utf-8') as f:
            f.write('From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\n'
                    'Subject: [PATCH] %s\n\nBreaks: %s\n\nWhy.\n---\n'
                    'diff --git a/x b/x\n' % (subject, promise))

    def test_mutants_matrix(self):
        self.write_mutant('01-killed', 'mutant: killed', 'the flag works')
        self.write_mutant('02-survives', 'mutant: survives', 'nothing')
        self.write_mutant('03-panics', 'mutant: panics', 'boot')
        self.write_mutant('04-upstream', 'mutant: upstream only', 'x')
        self.write_mutant('05-timeout', 'mutant: hangs', 'y')
        for arch in ('x86_64', 'arm64'):
            self.put('mutant-01-killed', arch, BASE_OK)
            self.put('mutant-02-survives', arch, PATCHED_OK)
            self.put('mutant-03-panics', arch, result('error', 'kernel panic'))
            self.put('mutant-04-upstream', arch, result('fail', clone3=prog(
                'upstream', 'fail', 'exit=1', a='fail')))
            self.put('mutant-05-timeout', arch, result(
                'fail', clone3_fuzz=prog('ours', 'timeout',
                                         'TIMEOUT 60 seconds')))
        proc = self.summarize('mutants')
        out = proc.stdout
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(out.splitlines()[-1], '2 passed, 8 failed')
        self.assertIn('**mutant-01-killed**: mutant: killed. Breaks: the '
                      'flag works', out)
        self.assertIn('killed by clone3_clear_sighand_abi:'
                      'global.flag_resets_handler', out)
        self.assertIn('| mutant-02-survives | SURVIVED | SURVIVED |', out)
        self.assertIn('ERROR: kernel panic', out)
        self.assertIn('SURVIVED (only upstream failed)', out)
        self.assertIn('NOT KILLED, only timeouts', out)
        self.assertIn('| mutant-01-killed | clone3_clear_sighand (exit=1) |',
                      out)
        self.assertIn('Kill rate, our suite: 2/10 (20%)', out)
        self.assertIn('Kill rate, upstream suite: 4/10 (40%)', out)
        self.assertTrue(os.path.isfile(os.path.join(self.results,
                                                    'mutants.md')))
        with open(os.path.join(self.results, 'mutants.json'),
                  encoding='utf-8') as f:
            record = json.load(f)
        cell = record['mutant-01-killed']['arches']['arm64']
        self.assertTrue(cell['killed'])
        self.assertEqual(cell['ours'], [
            'clone3_clear_sighand_abi:global.flag_resets_handler'])
        self.assertEqual(record['mutant-01-killed']['breaks'],
                         'the flag works')
        self.assertEqual(
            record['mutant-03-panics']['arches']['x86_64']['status'],
            'error')

    def test_glibc_kills_alone_and_is_a_column(self):
        self.write_mutant('01-vfork', 'mutant: vfork keeps', 'glibc')
        self.write_mutant('02-both', 'mutant: both', 'all')
        for arch in ('x86_64', 'arm64'):
            self.put('mutant-01-vfork', arch, result(
                'fail', clone3_clear_sighand_abi=prog('ours'),
                glibc_spawn=prog('glibc', 'fail', 'exit=1',
                                 pre_exec_sigusr1='fail', enoent='pass')))
            self.put('mutant-02-both', arch, self.glibc_base(
                spawn_path='pass', flag_clone3_path='fail'))
        proc = self.summarize('mutants')
        out = proc.stdout
        self.assertEqual(proc.returncode, 0, out)
        self.assertIn('| mutant-01-vfork | killed by glibc_spawn:'
                      'pre_exec_sigusr1 |', out)
        self.assertIn('Kill rate, glibc: 4/4 (100%)', out)
        self.assertIn('Killed by glibc alone: mutant-01-vfork (x86_64 '
                      'arm64)', out)
        with open(os.path.join(self.results, 'mutants.json'),
                  encoding='utf-8') as f:
            cell = json.load(f)['mutant-01-vfork']['arches']['arm64']
        self.assertTrue(cell['glibc_killed'])
        self.assertEqual(cell['glibc'], ['glibc_spawn:pre_exec_sigusr1'])

    def test_long_killer_lists_are_cut_in_the_table(self):
        self.write_mutant('01-many', 'mutant: many', 'all')
        many = {'global.flag_%d' % i: 'fail' for i in range(6)}
        for arch in ('x86_64', 'arm64'):
            self.put('mutant-01-many', arch, result('fail', clone3_fuzz=prog(
                'ours', 'fail', 'exit=1', **many)))
        proc = self.summarize('mutants')
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertIn('clone3_fuzz:global.flag_2, +3 more |', proc.stdout)

    def test_mutants_all_killed_exit_0(self):
        self.write_mutant('01-killed', 'mutant: killed', 'the flag works')
        for arch in ('x86_64', 'arm64'):
            self.put('mutant-01-killed', arch, BASE_OK)
        proc = self.summarize('mutants', '--variants', 'mutant-01-killed')
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertIn('mutant: killed. Breaks: the flag works', proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[-1], '2 passed, 0 failed')

    def test_tests_no_mutant_fails_are_listed(self):
        self.write_mutant('01-killed', 'mutant: killed', 'the flag works')
        for arch in ('x86_64', 'arm64'):
            self.put('mutant-01-killed', arch, BASE_OK)
        proc = self.summarize('mutants')
        out = proc.stdout
        self.assertEqual(proc.returncode, 0, out)
        listed = out.split('## Our tests that no mutant failed', 1)[1]
        self.assertIn(
            '- clone3_clear_sighand_abi:global.no_flag_keeps_handler',
            listed)
        self.assertNotIn('global.flag_resets_handler', listed)
        self.assertNotIn('clone3:', listed)     # upstream tests are not ours
        self.assertEqual(out.splitlines()[-1], '2 passed, 0 failed')

    def test_no_unkilled_test_says_none(self):
        self.write_mutant('01-killed', 'mutant: killed', 'the flag works')
        for arch in ('x86_64', 'arm64'):
            self.put('mutant-01-killed', arch, result('fail', clone3_fuzz=prog(
                'ours', 'fail', 'exit=1', only='fail')))
        proc = self.summarize('mutants')
        self.assertIn('## Our tests that no mutant failed\n\nnone\n',
                      proc.stdout)

    def test_mutant_results_found_under_run_variant_names(self):
        self.write_mutant('01-killed', 'mutant: killed', 'the flag works')
        self.write_mutant('02-gone', 'mutant: gone', 'nothing')
        for arch in ('x86_64', 'arm64'):
            self.put('mutant-01-killed', arch, BASE_OK)
        proc = self.summarize('mutants')
        self.assertEqual(proc.returncode, 1)
        self.assertIn('| mutant-01-killed | killed by', proc.stdout)
        self.assertIn('| mutant-02-gone | MISSING: no result', proc.stdout)
        self.assertIn('**mutant-02-gone**: mutant: gone. Breaks: nothing',
                      proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[-1], '2 passed, 2 failed')

    def test_real_base_and_patched_logs_meet_the_expectations(self):
        for variant in ('base', 'patched'):
            subprocess.run([*REPORT, '--log', os.path.join(
                HERE, 'data', 'qemu-x86_64-%s.log' % variant),
                '--variant', variant, '--arch', 'x86_64', '--out-dir',
                os.path.join(self.results, variant)],
                check=True, capture_output=True)
        proc = self.summarize('gate', arches='x86_64')
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[-1], '2 passed, 0 failed')

    def test_needs_flag_rule(self):
        for name in ('flag_abi.alone_accepted',
                     'spawn.flag.resets_caught_handlers_before_exec',
                     'flag_child.fork.resets_every_handler',
                     'global.flag_resets_handler', 'flag'):
            self.assertTrue(needs_flag(name), name)
        for name in ('spawn.classic.x', 'global.flagged',
                     'global.no_flag_keeps_handler', 'spawn.flags.x'):
            self.assertFalse(needs_flag(name), name)

    def test_base_failing_in_a_flag_component_is_as_expected(self):
        self.gate_ok_everywhere()
        self.put('base', 'arm64', result('fail', clone3_spawn_test=prog(
            'ours', 'fail', 'exit=1', **{
                'spawn.flag.resets_caught_handlers_before_exec': 'fail',
                'flag_abi.alone_accepted': 'fail'})))
        proc = self.summarize('gate')
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.put('base', 'arm64', result('fail', clone3_spawn_test=prog(
            'ours', 'fail', 'exit=1', **{
                'spawn.flag.resets': 'fail', 'spawn.classic.x': 'fail'})))
        proc = self.summarize('gate')
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn('do not need the flag failed: '
                      'clone3_spawn_test:spawn.classic.x', proc.stdout)

    def test_compat_rows_are_labelled_and_the_tree_titled(self):
        rows = 'x86_64 x86_64-ia32 i386'
        for row in rows.split():
            self.put('base', row, dict(BASE_OK, tree='6.1'))
            self.put('patched', row, dict(PATCHED_OK, tree='6.1'))
        proc = self.summarize('gate', arches=rows)
        self.assertEqual(proc.returncode, 0, proc.stdout)
        lines = proc.stdout.splitlines()
        self.assertEqual(lines[0], '# clone3 gate on 6.1: variant x row')
        self.assertIn('| variant | x86_64 | x86_64/ia32 | i386 |', lines)
        self.assertEqual(lines[-1], '6 passed, 0 failed')
        with open(os.path.join(self.results, 'summary.json'),
                  encoding='utf-8') as f:
            record = json.load(f)
        self.assertEqual(record['tree'], '6.1')
        self.assertEqual([c['label'] for c in record['cells']][:3],
                         ['x86_64', 'x86_64/ia32', 'i386'])
        proc = self.summarize('gate', '--tree', '6.12', arches=rows)
        self.assertIn('# clone3 gate on 6.12:', proc.stdout)

    def test_gate_mode_has_only_base_and_patched(self):
        proc = self.summarize('gate', '--variants', 'base mutant-01-x')
        self.assertEqual(proc.returncode, 2)
        self.assertIn('not mutant-01-x', proc.stderr)

    def write_killed_on(self, name, rows):
        with open(os.path.join(self.mutants, name + '.patch'), 'w',
                  encoding='utf-8') as f:
            f.write('From 0 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] '
                    'mutant: %s\n\nBreaks: compat only\nKilled-on: %s\n'
                    '\n---\ndiff --git a/x b/x\n' % (name, rows))

    def test_killed_on_rows_must_kill_and_others_must_survive(self):
        self.write_killed_on('01-compat', 'i386 armv7')
        self.write_killed_on('02-wrong', 'i386')
        self.write_killed_on('03-error', 'i386')
        for row in ('x86_64', 'i386'):
            self.put('mutant-01-compat', row,
                     BASE_OK if row == 'i386' else PATCHED_OK)
            self.put('mutant-02-wrong', row, BASE_OK)
            self.put('mutant-03-error', row, BASE_OK if row == 'i386' else
                     result('error', 'kernel panic'))
        proc = self.summarize('mutants', arches='x86_64 i386')
        out = proc.stdout
        self.assertEqual(proc.returncode, 1, out)
        self.assertIn('| mutant-01-compat | survives, as expected | '
                      'killed by clone3_clear_sighand_abi:', out)
        self.assertIn('| mutant-02-wrong | killed, but declared to survive '
                      'here: clone3_clear_sighand_abi:'
                      'global.flag_resets_handler | killed by', out)
        self.assertIn('| mutant-03-error | ERROR: kernel panic (declared to '
                      'survive here) |', out)
        self.assertIn('Killed-on: i386 armv7 (not run here: armv7)', out)
        self.assertIn('Kill rate, our suite: 3/3 (100%)', out)
        self.assertEqual(out.splitlines()[-1], '4 passed, 2 failed')
        with open(os.path.join(self.results, 'mutants.json'),
                  encoding='utf-8') as f:
            record = json.load(f)
        cell = record['mutant-01-compat']['arches']['x86_64']
        self.assertEqual((cell['expected'], cell['as_expected']),
                         ('survives', True))
        self.assertEqual(record['mutant-01-compat']['killed_on'],
                         ['i386', 'armv7'])

    def test_without_killed_on_compat_rows_must_kill_too(self):
        self.write_mutant('01-killed', 'mutant: killed', 'x')
        self.put('mutant-01-killed', 'x86_64', BASE_OK)
        self.put('mutant-01-killed', 'x86_64-ia32', PATCHED_OK)
        proc = self.summarize('mutants', arches='x86_64 x86_64-ia32')
        self.assertEqual(proc.returncode, 1)
        self.assertIn('| mutant | x86_64 | x86_64/ia32 |', proc.stdout)
        self.assertIn('| SURVIVED |', proc.stdout)

    def test_plain_diffs_are_mutants_named_by_their_file(self):
        bodies = {
            '01-plain': b'--- a/kernel/fork.c\t2024-01-01\n+++ b/kernel/'
                        b'fork.c\n@@ -1 +1 @@\n-a\n+Subject: not me\n'
                        b'+Breaks: nor me\n',
            '02-gitdiff': b'diff --git a/kernel/fork.c b/kernel/fork.c\n'
                          b'index 1..2 100644\n--- a/kernel/fork.c\n',
            '03-binary': b'\xff\xfe\x00garbage\n--- a/x\n',
            '04-empty': b'',
        }
        for name, body in bodies.items():
            with open(os.path.join(self.mutants, name + '.patch'),
                      'wb') as f:
                f.write(body)
            for arch in ('x86_64', 'arm64'):
                self.put('mutant-' + name, arch, BASE_OK)
        os.mkdir(os.path.join(self.mutants, '05-dir.patch'))
        proc = self.summarize('mutants')
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        for name in bodies:
            self.assertIn('- **mutant-%s**: %s.patch. Breaks: (no Breaks: '
                          'line)' % (name, name), proc.stdout)
        self.assertNotIn('not me', proc.stdout)
        self.assertIn('**mutant-05-dir**: 05-dir.patch. Breaks: '
                      '(unreadable patch)', proc.stdout)

    def test_bad_usage_exits_2(self):
        cases = [
            ['--mode', 'gate'],
            ['--results', self.results, '--mode', 'nope'],
            ['--results', os.path.join(self.tmp, 'none'), '--mode', 'gate'],
            ['--results', self.results, '--mode', 'gate', '--rows', 'a/b'],
            ['--results', self.results, '--mode', 'mutants',
             '--mutants-dir', self.mutants],
        ]
        for args in cases:
            proc = subprocess.run(SUMMARIZE + args, capture_output=True,
                                  text=True, check=False)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn('usage', proc.stderr)


class OtherChangeTest(unittest.TestCase):
    """--change-kind other: base is the reference, patched passes all that
    base passed; the flag's tests need not fail on base."""

    setUp = SummarizeTest.setUp
    tearDown = SummarizeTest.tearDown
    put = SummarizeTest.put
    summarize = SummarizeTest.summarize

    def test_base_that_passes_and_patched_alike(self):
        for arch in ('x86_64', 'arm64'):
            self.put('base', arch, PATCHED_OK)
            self.put('patched', arch, PATCHED_OK)
        proc = self.summarize('gate', '--change-kind', 'other')
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertIn('another change than ours', proc.stdout)
        # ours would want base to fail
        self.assertEqual(self.summarize('gate').returncode, 1)

    def test_a_test_that_passed_on_base_fails_on_patched(self):
        worse = result('fail', 'failed: ...',
                       clone3_clear_sighand_abi=prog('ours', 'fail', **{
                           'global.flag_resets_handler': 'fail'}))
        for arch in ('x86_64', 'arm64'):
            self.put('base', arch, PATCHED_OK)
            self.put('patched', arch, PATCHED_OK)
        self.put('patched', 'arm64', worse)
        proc = self.summarize('gate', '--change-kind', 'other')
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn('passed on base, not here: clone3_clear_sighand_abi',
                      proc.stdout)

    def test_mutant_failing_only_what_base_failed_survives(self):
        SummarizeTest.write_mutant(self, '01-old', 'mutant: old', 'x')
        SummarizeTest.write_mutant(self, '02-new', 'mutant: new', 'y')
        worse = result('fail', 'failed: ...',
                       clone3_clear_sighand_abi=prog('ours', 'fail', **{
                           'global.flag_resets_handler': 'fail'}))
        for arch in ('x86_64', 'arm64'):
            self.put('base', arch, worse)
            self.put('mutant-01-old', arch, worse)
            self.put('mutant-02-new', arch, result(
                'fail', 'failed: ...',
                clone3_clear_sighand_abi=prog('ours', 'fail', **{
                    'global.flag_resets_handler': 'fail',
                    'global.no_flag_keeps_handler': 'fail'})))
        proc = self.summarize('mutants', '--change-kind', 'other',
                              '--abi-declared', 'none')
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn('| mutant-01-old | SURVIVED', proc.stdout)
        self.assertIn('| mutant-02-new | killed by', proc.stdout)

    def test_a_failure_on_both_sides_is_no_regression(self):
        for arch in ('x86_64', 'arm64'):
            self.put('base', arch, BASE_OK)
            self.put('patched', arch, BASE_OK)
        proc = self.summarize('gate', '--change-kind', 'other')
        self.assertEqual(proc.returncode, 0, proc.stdout)


if __name__ == '__main__':
    taprunner.main()
