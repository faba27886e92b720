#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/ktap-report.py on the sample console logs in
tests/data/: each log shape must give the right status and reason, and the
.ktap, .xml and .json files must be complete and well formed.

usage: tests/test_ktap_report.py
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import taprunner  # noqa: E402

REPORT = taprunner.script('ktap-report.py')
DATA = os.path.join(HERE, 'data')
OURS = ('clone3_clear_sighand_abi', 'clone3_spawn_test', 'clone3_fuzz')


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='ktap-report-test.')
        self.suite = os.path.join(self.tmp, 'suite')
        os.mkdir(self.suite)
        for name in OURS:
            open(os.path.join(self.suite, name + '.c'), 'w').close()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_report(self, log, *extra, arch='x86_64', variant='base'):
        out = os.path.join(self.tmp, 'results', variant)
        if not os.path.isabs(log):
            log = os.path.join(DATA, log)
        proc = subprocess.run(
            [*REPORT, '--log', log, '--variant', variant, '--arch', arch,
             '--out-dir', out, '--suite-dir', self.suite] + list(extra),
            capture_output=True, text=True, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        base = os.path.join(out, arch)
        with open(base + '.json', encoding='utf-8') as f:
            result = json.load(f)
        self.xml = ET.parse(base + '.xml').getroot()
        with open(base + '.ktap', encoding='utf-8') as f:
            self.ktap = f.read()
        self.assertTrue(os.path.isfile(base + '.log'))
        leftovers = [n for n in os.listdir(out) if n.startswith('.')]
        self.assertEqual(leftovers, [], 'temporary files left behind')
        return result

    def test_good_log_passes(self):
        r = self.run_report('good.log')
        self.assertEqual(r['status'], 'pass', r['reason'])
        self.assertEqual(r['variant'], 'base')
        self.assertEqual(r['arch'], 'x86_64')
        self.assertEqual(r['guest_arch'], 'riscv64')
        progs = r['programs']
        self.assertEqual(list(progs), ['clone3_clear_sighand_abi', 'clone3',
                                       'clone3_cap_checkpoint_restore',
                                       'clone3_fuzz'])
        self.assertEqual(progs['clone3_clear_sighand_abi']['suite'], 'ours')
        self.assertEqual(progs['clone3']['suite'], 'upstream')
        self.assertEqual(progs['clone3_cap_checkpoint_restore']['result'],
                         'skip')
        self.assertIn('not built', progs['clone3_cap_checkpoint_restore']
                      ['detail'])
        self.assertEqual(progs['clone3_clear_sighand_abi']['subtests'], {
            'global.flag_resets_handler': 'pass',
            'global.flag_keeps_ignored': 'pass',
            'global.plain_clone_keeps_handler': 'pass'})
        self.assertEqual(progs['clone3_fuzz']['duration_ms'], 900)
        self.assertEqual(r['counts']['pass'], 3)
        self.assertEqual(r['counts']['skip'], 1)

    def test_skip_named_after_harness_run_line(self):
        r = self.run_report('good.log')
        subs = r['programs']['clone3_fuzz']['subtests']
        self.assertEqual(subs['global.flag_random'], 'skip')
        subs = r['programs']['clone3']['subtests']
        self.assertEqual(subs['Skipping clone3() with CLONE_NEWPID'], 'skip')

    def test_ktap_document_is_the_text_between_markers(self):
        self.run_report('good.log')
        lines = self.ktap.splitlines()
        self.assertEqual(lines[0], 'KTAP version 1')
        self.assertEqual(lines[1], '1..4')
        self.assertEqual(lines[-1], 'ok 4 clone3_fuzz')
        self.assertNotIn('CLONE3-GATE', self.ktap)
        self.assertNotIn('\r', self.ktap)
        self.assertNotIn('Linux version', self.ktap)
        self.assertIn('    ok 1 global.flag_resets_handler', lines)

    def test_junit_counts_and_names(self):
        self.run_report('fail.log', variant='base', arch='arm64')
        root = self.xml
        self.assertEqual(root.tag, 'testsuites')
        self.assertEqual(root.get('failures'), '2')
        self.assertEqual(root.get('errors'), '1')
        suites = {s.get('name'): s for s in root.iter('testsuite')}
        abi = suites['base.arm64.clone3_clear_sighand_abi']
        self.assertEqual(abi.get('tests'), '3')
        self.assertEqual(abi.get('failures'), '2')
        case = abi.find('testcase')
        self.assertEqual(case.get('classname'),
                         'base.arm64.clone3_clear_sighand_abi')
        self.assertEqual(case.get('name'), 'global.flag_resets_handler')
        self.assertIn('Expected ret (-1) == 0 (0)',
                      case.find('failure').get('message'))
        fuzz = suites['base.arm64.clone3_fuzz']
        err = fuzz.find('testcase/error')
        self.assertEqual(err.get('message').split(';')[0],
                         'TIMEOUT 60 seconds')
        skip = suites['base.arm64.clone3_cap_checkpoint_restore']
        self.assertIsNotNone(skip.find('testcase/skipped'))
        for case in root.iter('testcase'):
            self.assertIsNotNone(case.get('time'))

    def test_failing_log_fails_with_the_failed_tests_named(self):
        r = self.run_report('fail.log')
        self.assertEqual(r['status'], 'fail')
        self.assertIn('global.flag_resets_handler', r['reason'])
        self.assertIn('clone3_fuzz (TIMEOUT 60 seconds', r['reason'])
        progs = r['programs']
        self.assertEqual(progs['clone3_clear_sighand_abi']['result'], 'fail')
        self.assertEqual(progs['clone3_clear_sighand_abi']['detail'],
                         'exit=1')
        self.assertEqual(progs['clone3_fuzz']['result'], 'timeout')
        self.assertEqual(r['counts']['timeout'], 1)
        self.assertEqual(r['counts']['subtests_fail'], 2)

    def test_panic_is_an_error_that_quotes_the_panic_line(self):
        r = self.run_report('panic.log')
        self.assertEqual(r['status'], 'error')
        self.assertIn("'Kernel panic - not syncing: Attempted to kill init!",
                      r['reason'])
        gate = self.xml.find("testsuite[@name='base.x86_64.gate']")
        self.assertIsNotNone(gate.find('testcase/error'))

    def test_cut_off_document_names_the_last_line(self):
        r = self.run_report('cut.log')
        self.assertEqual(r['status'], 'error')
        self.assertIn('no CLONE3-GATE-END marker', r['reason'])
        self.assertIn("'ok 2 clone3'", r['reason'])

    def test_host_timeout_is_said(self):
        r = self.run_report('cut.log', '--timed-out')
        self.assertEqual(r['status'], 'error')
        self.assertTrue(r['reason'].startswith('host timeout fired'))
        r = self.run_report('good.log', '--timed-out')
        self.assertEqual(r['status'], 'error')
        self.assertIn('did not power off', r['reason'])

    def test_plan_mismatch_is_an_error(self):
        r = self.run_report('mismatch.log')
        self.assertEqual(r['status'], 'error')
        self.assertIn('plan 1..3', r['reason'])

    def test_no_boot_is_an_error(self):
        r = self.run_report('noboot.log')
        self.assertEqual(r['status'], 'error')
        self.assertIn('no CLONE3-GATE-BEGIN', r['reason'])
        self.assertEqual(r['programs'], {})

    def test_kernel_messages_inside_lines_are_taken_out(self):
        r = self.run_report('interleaved.log')
        self.assertEqual(r['status'], 'pass', r['reason'])
        progs = r['programs']
        self.assertIn('clone3', progs)
        self.assertEqual(progs['clone3_clear_sighand_abi']['subtests']
                         ['global.flag_keeps_ignored'], 'pass')
        self.assertIn('random: crng init done',
                      ' '.join(r['kernel_messages']))
        self.assertNotIn('crng', self.ktap)
        self.assertIn('ok 2 clone3\n', self.ktap)

    def test_real_qemu_console_log(self):
        # x86_64 tinyconfig guest, our init, fake programs and the
        # spawner test (CRLF from the serial console, no printk times).
        r = self.run_report('qemu-x86_64.log')
        self.assertEqual(r['status'], 'fail', r['reason'])
        progs = r['programs']
        self.assertEqual(progs['clone3_spawn_test']['result'], 'pass')
        self.assertEqual(len(progs['clone3_spawn_test']['subtests']), 13)
        self.assertEqual(progs['fake_hang']['result'], 'timeout')
        self.assertEqual(progs['fake_segv']['detail'].split(';')[0],
                         'signal=SIGSEGV')
        self.assertEqual(progs['notbuilt']['result'], 'skip')
        self.assertEqual(r['counts']['timeout'], 1)

    def test_real_qemu_suite_on_patched_kernel_passes(self):
        r = self.run_report('qemu-x86_64-patched.log', variant='patched')
        self.assertEqual(r['status'], 'pass', r['reason'])
        self.assertEqual(r['counts']['subtests_pass'], 89)
        tid = r['programs']['clone3_set_tid']['subtests']
        # stdout duplicated by fork(): both copies kept, no pid in names
        self.assertIn('Result (-22) matches expectation (-22) #18 (2)', tid)
        self.assertFalse([n for n in tid if n.startswith('[')])

    def test_real_qemu_logs_of_the_other_arches_pass(self):
        for arch, guest in (('arm64', 'aarch64'), ('riscv64', 'riscv64')):
            r = self.run_report('qemu-%s-patched.log' % arch, arch=arch,
                                variant='patched')
            self.assertEqual(r['status'], 'pass', r['reason'])
            self.assertEqual(r['guest_arch'], guest)
            self.assertEqual(r['counts']['pass'], 5)

    def test_real_qemu_init_exit_panics(self):
        r = self.run_report('qemu-x86_64-exit.log')
        self.assertEqual(r['status'], 'error')
        self.assertIn('Attempted to kill init', r['reason'])

    def write_log(self, text):
        path = os.path.join(self.tmp, 'made.log')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        return path

    def test_end_counts_must_match_results(self):
        log = self.write_log(
            'CLONE3-GATE-BEGIN arch=x86_64 programs=1\nKTAP version 1\n'
            '1..1\nok 1 clone3\nCLONE3-GATE-END pass=0 fail=1 skip=0 '
            'timeout=0\n')
        r = self.run_report(log)
        self.assertEqual(r['status'], 'error')
        self.assertIn('differ', r['reason'])

    def test_failed_program_without_failed_subtest_fails(self):
        log = self.write_log(
            'CLONE3-GATE-BEGIN arch=x86_64 programs=1\nKTAP version 1\n'
            '1..1\n    TAP version 13\n    1..1\n    ok 1 global.a\n'
            'not ok 1 clone3_spawn_test # signal=SIGSEGV\n'
            'CLONE3-GATE-END pass=0 fail=1 skip=0 timeout=0\n')
        r = self.run_report(log)
        self.assertEqual(r['status'], 'fail')
        self.assertIn('clone3_spawn_test (signal=SIGSEGV)', r['reason'])
        names = [c.get('name') for c in self.xml.iter('testcase')]
        self.assertEqual(names, ['global.a', 'clone3_spawn_test'])

    def test_bail_out_and_empty_run_list_are_errors(self):
        log = self.write_log(
            'CLONE3-GATE-BEGIN arch=x86_64 programs=0\nKTAP version 1\n'
            '1..0\nBail out! cannot read /clone3/run-list: No such file\n'
            'CLONE3-GATE-END pass=0 fail=0 skip=0 timeout=0\n')
        r = self.run_report(log)
        self.assertEqual(r['status'], 'error')
        self.assertIn('Bail out!', r['reason'])

    def test_log_in_out_dir_is_not_copied_onto_itself(self):
        out = os.path.join(self.tmp, 'results', 'base')
        os.makedirs(out)
        shutil.copy(os.path.join(DATA, 'good.log'),
                    os.path.join(out, 'x86_64.log'))
        r = self.run_report(os.path.join(out, 'x86_64.log'))
        self.assertEqual(r['status'], 'pass')

    def two_documents(self, compat_tail=None, abi='ia32', after=''):
        """The patched x86_64 log with its document run again as the
        compat one; compat_tail cuts the compat document after so many
        lines."""
        with open(os.path.join(DATA, 'qemu-x86_64-patched.log'),
                  encoding='utf-8') as f:
            lines = f.read().replace('\r', '').splitlines()
        end = next(i for i, x in enumerate(lines)
                   if x.startswith('CLONE3-GATE-END'))
        doc = lines[:end + 1]
        compat = [doc[0].replace('programs=', 'abi=%s programs=' % abi)]
        compat += doc[1:]
        if compat_tail is not None:
            compat = compat[:compat_tail]
        native = [doc[0].replace('programs=', 'abi=native programs=')]
        return self.write_log('\n'.join(native + doc[1:] + compat) + '\n' +
                              after + 'reboot: Restarting system\n')

    def run_compat(self, log, *extra, abi='ia32'):
        native = self.run_report(log, '--compat', abi, *extra,
                                 variant='patched')
        base = os.path.join(self.tmp, 'results', 'patched', 'x86_64-' + abi)
        with open(base + '.json', encoding='utf-8') as f:
            compat = json.load(f)
        self.compat_xml = ET.parse(base + '.xml').getroot()
        with open(base + '.ktap', encoding='utf-8') as f:
            self.compat_ktap = f.read()
        self.assertFalse(os.path.exists(base + '.log'))
        return native, compat

    def test_compat_document_is_its_own_row(self):
        native, compat = self.run_compat(self.two_documents())
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertEqual(compat['status'], 'pass', compat['reason'])
        self.assertEqual((native['row'], native['abi']),
                         ('x86_64', 'native'))
        self.assertEqual((compat['row'], compat['abi'], compat['arch']),
                         ('x86_64/ia32', 'ia32', 'x86_64'))
        self.assertEqual(compat['row_name'], 'x86_64-ia32')
        self.assertEqual(compat['log'], 'x86_64.log')
        self.assertEqual(native['log'], 'x86_64.log')
        self.assertEqual(compat['counts']['subtests_pass'], 89)
        self.assertEqual(self.compat_ktap, self.ktap)
        names = [t.get('name') for t in self.compat_xml.iter('testsuite')]
        self.assertIn('patched.x86_64/ia32.clone3_spawn_test', names)

    def test_tree_is_in_json_and_junit(self):
        native, compat = self.run_compat(self.two_documents(), '--tree',
                                         '6.1')
        self.assertEqual((native['tree'], compat['tree']), ('6.1', '6.1'))
        suite = self.compat_xml.find('testsuite')
        self.assertTrue(suite.get('name').startswith(
            '6.1 patched x86_64/ia32.'), suite.get('name'))
        props = {p.get('name'): p.get('value')
                 for p in suite.iter('property')}
        self.assertEqual(props, {'tree': '6.1', 'row': 'x86_64/ia32',
                                 'variant': 'patched'})
        self.assertEqual(self.compat_xml.get('name'),
                         'clone3 6.1 patched x86_64/ia32')

    def test_missing_compat_document_is_an_error_of_its_row_only(self):
        native, compat = self.run_compat('qemu-x86_64-patched.log')
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertEqual(compat['status'], 'error')
        self.assertIn('no CLONE3-GATE-BEGIN abi=ia32 after the native '
                      'document', compat['reason'])
        self.assertEqual(compat['programs'], {})
        self.assertEqual(self.compat_ktap, '')
        gate = self.compat_xml.find(
            "testsuite[@name='patched.x86_64/ia32.gate']")
        self.assertIsNotNone(gate.find('testcase/error'))

    def test_cut_compat_document_is_an_error_of_its_row_only(self):
        native, compat = self.run_compat(self.two_documents(40))
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertEqual(compat['status'], 'error')
        self.assertIn('no CLONE3-GATE-END marker: the ia32 document cut '
                      'off after log line', compat['reason'])
        native, compat = self.run_compat(self.two_documents(40),
                                         '--timed-out')
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertTrue(compat['reason'].startswith('host timeout fired'))

    def test_compat_init_that_bailed_is_an_error(self):
        log = self.write_log(
            'CLONE3-GATE-BEGIN arch=x86_64 abi=native programs=1\n'
            'KTAP version 1\n1..1\nok 1 clone3\n'
            'CLONE3-GATE-END pass=1 fail=0 skip=0 timeout=0\n'
            'CLONE3-GATE-BEGIN arch=x86_64 abi=ia32 programs=0\n'
            'KTAP version 1\n1..0\n'
            'Bail out! cannot read /clone3-compat/run-list: No such file\n'
            'CLONE3-GATE-END pass=0 fail=0 skip=0 timeout=0\n')
        native, compat = self.run_compat(log)
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertEqual(compat['status'], 'error')
        self.assertIn('init bailed out', compat['reason'])

    def test_compat_document_of_another_abi_is_an_error(self):
        native, compat = self.run_compat(self.two_documents(abi='arm32'))
        self.assertEqual(native['status'], 'pass')
        self.assertEqual(compat['status'], 'error')
        self.assertIn('says abi=arm32, expected abi=ia32', compat['reason'])

    def test_panic_in_the_compat_document_spares_the_native_row(self):
        native, compat = self.run_compat(self.two_documents(
            30, after='[    9.000000] Kernel panic - not syncing: Oops\n'))
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertEqual(compat['status'], 'error')
        self.assertIn('kernel panic at log line', compat['reason'])
        panic = '[    9.000000] Kernel panic - not syncing: Oops\n'
        r = self.run_report(self.two_documents(30, after=panic))
        self.assertEqual(r['status'], 'error', 'no --compat: last row')

    def test_timeout_after_both_documents_is_the_compat_rows_error(self):
        native, compat = self.run_compat(self.two_documents(),
                                         '--timed-out')
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertIn('did not power off', compat['reason'])

    def test_native_document_without_end_before_compat_is_an_error(self):
        log = self.write_log(
            'CLONE3-GATE-BEGIN arch=x86_64 programs=1\nKTAP version 1\n'
            '1..1\nok 1 clone3\n'
            'CLONE3-GATE-BEGIN arch=x86_64 abi=ia32 programs=1\n'
            'KTAP version 1\n1..1\nok 1 clone3\n'
            'CLONE3-GATE-END pass=1 fail=0 skip=0 timeout=0\n')
        native, compat = self.run_compat(log)
        self.assertEqual(native['status'], 'error')
        self.assertIn('no CLONE3-GATE-END before the abi=ia32 document',
                      native['reason'])
        self.assertEqual(compat['status'], 'pass', compat['reason'])

    def test_init_started_twice_is_an_error(self):
        log = self.write_log(
            'CLONE3-GATE-BEGIN arch=x86_64 programs=1\nKTAP version 1\n'
            '1..1\nok 1 clone3\n'
            'CLONE3-GATE-END pass=1 fail=0 skip=0 timeout=0\n'
            'CLONE3-GATE-BEGIN arch=x86_64 programs=1\nKTAP version 1\n')
        r = self.run_report(log)
        self.assertEqual(r['status'], 'error')
        self.assertIn('init started twice', r['reason'])

    def test_kernel_that_did_not_build_says_the_compiler_error(self):
        log = self.write_log(
            'gate: the patched kernel (0123abc) for x86_64 did not build:\n'
            '  CC      kernel/fork.o\n'
            "kernel/fork.c:3030:9: error: expected ';' before 'return'\n"
            'kernel/fork.c:3040:1: error: second\n'
            'make[2]: *** [scripts/Makefile.build:250] Error 1\n')
        native, compat = self.run_compat(log)
        for r in (native, compat):
            self.assertEqual(r['status'], 'error')
            self.assertEqual(r['reason'], "kernel did not build: kernel/"
                             "fork.c:3030:9: error: expected ';' before "
                             "'return'")
        log = self.write_log(
            'gate: the base kernel (0123abc) for arm64 did not build:\n\n'
            'build-kernel.sh: CONFIG_MMU is not set as asked\n')
        r = self.run_report(log)
        self.assertEqual(r['reason'], 'kernel did not build: '
                         'build-kernel.sh: CONFIG_MMU is not set as asked')

    def test_mutant_that_does_not_apply_says_so(self):
        log = self.write_log('gate: mutant 07-x does not apply on patched:\n'
                             'error: patch failed: kernel/fork.c:3030\n')
        r = self.run_report(log)
        self.assertEqual(r['reason'], 'mutant does not apply: error: patch '
                         'failed: kernel/fork.c:3030')

    def test_bad_compat_or_tree_exits_2(self):
        good = ['--log', os.path.join(DATA, 'good.log'), '--variant', 'b',
                '--arch', 'x86_64', '--out-dir', self.tmp, '--suite-dir',
                self.suite]
        for extra in (['--compat', 'ia-32'], ['--compat', 'native'],
                      ['--tree', '6/1'], ['--compat', '']):
            proc = subprocess.run(REPORT + good + extra,
                                  capture_output=True, text=True,
                                  check=False)
            self.assertEqual(proc.returncode, 2, extra)

    def test_bad_usage_exits_2(self):
        cases = [
            [],
            ['--log', os.path.join(DATA, 'good.log'), '--variant', 'base'],
            ['--log', '/nonexistent', '--variant', 'base', '--arch', 'x',
             '--out-dir', self.tmp],
            ['--log', os.path.join(DATA, 'good.log'), '--variant', 'a/b',
             '--arch', 'x', '--out-dir', self.tmp],
        ]
        for args in cases:
            proc = subprocess.run(REPORT + args, capture_output=True,
                                  text=True, check=False)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn('usage', proc.stderr)


class SuiteOfProgramTest(unittest.TestCase):
    """Which suite a program's results count for: ours (its source in the
    suite directory), a consumer's (consumers/<name>/ beside it), or the
    tree's own (upstream)."""
    def test_each_kind(self):
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'scripts'))
        from verdict import console  # pylint: disable=C0415
        tmp = tempfile.mkdtemp(prefix='ktap-suite-test.')
        try:
            suite = os.path.join(tmp, 'suite')
            glibc = os.path.join(tmp, 'consumers', 'glibc')
            os.makedirs(suite)
            os.makedirs(glibc)
            open(os.path.join(suite, 'clone3_fuzz.c'), 'w').close()
            open(os.path.join(glibc, 'glibc_spawn.c'), 'w').close()
            self.assertEqual(console.program_suite('clone3_fuzz', suite),
                             'ours')
            self.assertEqual(console.program_suite('glibc_spawn', suite),
                             'glibc')
            self.assertEqual(console.program_suite('clone3', suite),
                             'upstream')
        finally:
            shutil.rmtree(tmp)


if __name__ == '__main__':
    taprunner.main()
