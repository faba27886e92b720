#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the guest's init (qemu-images/init/init.c) run natively in host
mode (not PID 1: no mounts, no reboot) with CLONE3_INIT_ROOT pointing at a
directory of fake test programs.  The last tests feed init's output to
scripts/ktap-report.py, as the gate does with a console log.

usage: tests/test_init.py
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import taprunner  # noqa: E402

REPO = os.path.dirname(HERE)
REPORT = taprunner.script('ktap-report.py')
INIT = None
BUILD = None

MEET = ('/usr/bin/touch "$MEET/%s"; i=0; '
        'while [ ! -e "$MEET/%s" ] && [ $i -lt 100 ]; do '
        '/bin/sleep 0.05; i=$((i+1)); done; [ $i -lt 100 ] && echo met')

PROGRAMS = {
    'good': 'echo "TAP version 13"; echo "1..1"; echo "ok 1 global.a"',
    'bad': 'echo "not ok 1 global.flag_b"; exit 1',
    'skipper': 'echo "# not here"; exit 4',
    'crash': 'kill -SEGV $$',
    'noeol': 'printf "no newline at end"',
    'env': 'echo "PATH=$PATH PWD=$(/bin/pwd) '
           'REQ=$CLONE3_REQUIRE_CLEAR_SIGHAND"',
    'stderr': 'echo to-stderr >&2',
    'hang': 'echo started; /bin/sleep 300',
    'orphan': '(/bin/sleep 300; echo never) & echo parent-exits',
    'escape': '/usr/bin/setsid /bin/sleep 300 & echo escaped',
    'long': '/usr/bin/head -c 10000 /dev/zero | /usr/bin/tr "\\0" x; echo',
    # Each passes only when the other runs at the same time (5 s at most).
    'meet_a': MEET % ('a', 'b'),
    'meet_b': MEET % ('b', 'a'),
}


def setUpModule():
    global INIT, BUILD
    BUILD = tempfile.mkdtemp(prefix='init-test-build.')
    subprocess.run(['make', '-s', '-C',
                    os.path.join(REPO, 'qemu-images', 'init'),
                    'OUT=' + BUILD], check=True)
    INIT = os.path.join(BUILD, 'init')


def tearDownModule():
    shutil.rmtree(BUILD)


def sleepers():
    """PIDs of the 'sleep 300' the fake programs start."""
    out = subprocess.run(['ps', '-eo', 'pid=,args='], capture_output=True,
                         text=True, check=True).stdout
    return [line for line in out.splitlines()
            if line.split(None, 1)[1:] == ['/bin/sleep 300']]


class InitTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix='init-test-root.')
        for name, body in PROGRAMS.items():
            path = os.path.join(self.root, name)
            with open(path, 'w', encoding='utf-8') as f:
                f.write('#!/bin/sh\n%s\n' % body)
            os.chmod(path, 0o755)
        self.settings('timeout=2')

    def tearDown(self):
        shutil.rmtree(self.root)
        shutil.rmtree(self.root + '-compat', ignore_errors=True)

    def compat(self, names, abi='ia32', root=None):
        """A compat directory (default: the root with -compat appended)
        with the same programs, its run-list and its abi file."""
        root = root or self.root + '-compat'
        shutil.copytree(self.root, root, dirs_exist_ok=True)
        with open(os.path.join(root, 'run-list'), 'w',
                  encoding='utf-8') as f:
            f.write(''.join(n + '\n' for n in names))
        if abi is not None:
            with open(os.path.join(root, 'abi'), 'w',
                      encoding='utf-8') as f:
                f.write(abi + '\n')
        return root

    def settings(self, text):
        with open(os.path.join(self.root, 'settings'), 'w',
                  encoding='utf-8') as f:
            f.write(text + '\n')

    def run_init(self, *names, env=None, timeout=30):
        with open(os.path.join(self.root, 'run-list'), 'w',
                  encoding='utf-8') as f:
            f.write(''.join(n + '\n' for n in names))
        environ = {'CLONE3_INIT_ROOT': self.root, 'PATH': '/usr/bin:/bin'}
        environ.update(env or {})
        start = time.monotonic()
        proc = subprocess.run([INIT], env=environ, capture_output=True,
                              text=True, timeout=timeout, check=False)
        self.elapsed = time.monotonic() - start
        return proc

    def test_protocol_header_results_and_end(self):
        proc = self.run_init('good', 'bad', 'skipper', 'crash',
                             'notbuilt SKIP no libcap')
        lines = proc.stdout.splitlines()
        self.assertRegex(lines[0],
                         r'^CLONE3-GATE-BEGIN arch=\S+ abi=native programs=5$')
        self.assertEqual(lines[1:3], ['KTAP version 1', '1..5'])
        results = [x for x in lines if re.match(r'^(not )?ok ', x)]
        self.assertEqual(results, [
            'ok 1 good', 'not ok 2 bad # exit=1', 'ok 3 skipper # SKIP',
            'not ok 4 crash # signal=SIGSEGV',
            'ok 5 notbuilt # SKIP not built: no libcap'])
        self.assertEqual(lines[-1],
                         'CLONE3-GATE-END pass=1 fail=2 skip=2 timeout=0')
        self.assertIn('    ok 1 global.a', lines)
        self.assertIn('    not ok 1 global.flag_b', lines)
        self.assertEqual(proc.returncode, 1)

    def test_exit_0_when_all_pass_or_skip(self):
        proc = self.run_init('good', 'skipper', 'x SKIP why')
        self.assertEqual(proc.returncode, 0, proc.stdout)

    def test_output_lines_are_nested_and_complete(self):
        proc = self.run_init('noeol', 'stderr', 'long')
        lines = proc.stdout.splitlines()
        self.assertIn('    no newline at end', lines)
        self.assertIn('    to-stderr', lines)
        xs = ''.join(x[4:] for x in lines if x.startswith('    x'))
        self.assertEqual(xs, 'x' * 10000)

    def test_environment_path_and_cwd(self):
        proc = self.run_init('env',
                             env={'CLONE3_REQUIRE_CLEAR_SIGHAND': '1'})
        self.assertIn('    PATH=%s PWD=%s REQ=1' % (self.root, self.root),
                      proc.stdout.splitlines())

    def test_missing_program_fails(self):
        proc = self.run_init('nothere', 'good')
        self.assertIn('not ok 1 nothere # exit=127', proc.stdout)
        self.assertIn('ok 2 good', proc.stdout)
        self.assertIn('cannot execute', proc.stdout)

    def test_timeout_kills_the_process_group(self):
        proc = self.run_init('hang', 'good')
        self.assertIn('not ok 1 hang # TIMEOUT 2 seconds', proc.stdout)
        self.assertIn('    started', proc.stdout)
        self.assertIn('ok 2 good', proc.stdout)
        self.assertIn('timeout=1', proc.stdout.splitlines()[-1])
        self.assertLess(self.elapsed, 10)
        self.assertEqual(sleepers(), [])

    def test_orphans_do_not_outlive_their_program(self):
        proc = self.run_init('orphan', 'escape', 'good')
        self.assertIn('ok 1 orphan', proc.stdout)
        self.assertIn('ok 2 escape', proc.stdout)
        self.assertNotIn('never', proc.stdout)
        self.assertLess(self.elapsed, 10)
        self.assertEqual(sleepers(), [])

    def test_default_timeout_without_settings(self):
        os.unlink(os.path.join(self.root, 'settings'))
        proc = self.run_init('good')
        self.assertEqual(proc.returncode, 0)

    def test_run_list_missing_bails_out(self):
        proc = self.run_init('good')
        os.unlink(os.path.join(self.root, 'run-list'))
        proc = subprocess.run([INIT], env={'CLONE3_INIT_ROOT': self.root},
                              capture_output=True, text=True, timeout=10,
                              check=False)
        self.assertIn('programs=0', proc.stdout)
        self.assertIn('Bail out! cannot read', proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[-1],
                         'CLONE3-GATE-END pass=0 fail=0 skip=0 timeout=0')
        self.assertEqual(proc.returncode, 1)

    def test_fault_exit_prints_nothing(self):
        proc = self.run_init('good', env={'CLONE3_GATE_FAULT': 'exit'})
        self.assertEqual(proc.stdout, '')
        self.assertNotEqual(proc.returncode, 0)

    def test_fault_hang_prints_header_then_hangs(self):
        with self.assertRaises(subprocess.TimeoutExpired) as cm:
            self.run_init('good', env={'CLONE3_GATE_FAULT': 'hang'},
                          timeout=2)
        out = cm.exception.stdout
        out = out.decode() if isinstance(out, bytes) else out
        self.assertEqual(out.splitlines()[1:], ['KTAP version 1', '1..1'])
        self.assertNotIn('ok 1', out)

    def test_fault_cut_stops_without_end(self):
        proc = self.run_init('good', 'good', 'good', 'good',
                             env={'CLONE3_GATE_FAULT': 'cut'})
        self.assertIn('ok 2 good', proc.stdout)
        self.assertNotIn('ok 3 good', proc.stdout)
        self.assertNotIn('CLONE3-GATE-END', proc.stdout)

    def begins(self, stdout):
        return [x for x in stdout.splitlines()
                if x.startswith('CLONE3-GATE-BEGIN')]

    def test_one_native_document_without_compat_dir(self):
        proc = self.run_init('good')
        self.assertEqual(len(self.begins(proc.stdout)), 1)
        self.assertRegex(self.begins(proc.stdout)[0],
                         r' abi=native programs=1$')

    def test_compat_document_follows_the_native_one(self):
        self.compat(['good', 'skipper'])
        proc = self.run_init('good')
        self.assertEqual(proc.returncode, 0, proc.stdout)
        begins = self.begins(proc.stdout)
        self.assertEqual(len(begins), 2)
        self.assertRegex(begins[0], r' abi=native programs=1$')
        self.assertRegex(begins[1], r'^CLONE3-GATE-BEGIN arch=\S+ '
                         r'abi=ia32 programs=2$')
        ends = [x for x in proc.stdout.splitlines()
                if x.startswith('CLONE3-GATE-END')]
        self.assertEqual(ends, [
            'CLONE3-GATE-END pass=1 fail=0 skip=0 timeout=0',
            'CLONE3-GATE-END pass=1 fail=0 skip=1 timeout=0'])
        native, compat = self.report(proc.stdout, compat='ia32')
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertEqual(compat['status'], 'pass', compat['reason'])
        self.assertEqual(list(compat['programs']), ['good', 'skipper'])

    def test_compat_programs_run_in_their_directory(self):
        root = self.compat(['env'])
        proc = self.run_init('good')
        self.assertIn('    PATH=%s PWD=%s REQ=' % (root, root),
                      proc.stdout.splitlines())

    def test_compat_failure_fails_the_exit_code(self):
        self.compat(['bad'])
        proc = self.run_init('good')
        self.assertEqual(proc.returncode, 1)
        native, compat = self.report(proc.stdout, compat='ia32')
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertEqual(compat['status'], 'fail', compat['reason'])

    def test_compat_root_from_the_environment(self):
        other = tempfile.mkdtemp(prefix='init-test-compat.')
        try:
            self.compat(['good'], abi='arm32', root=other)
            proc = self.run_init('good',
                                 env={'CLONE3_INIT_COMPAT_ROOT': other})
            self.assertRegex(self.begins(proc.stdout)[1], ' abi=arm32 ')
        finally:
            shutil.rmtree(other)

    def test_compat_without_abi_file_bails_out(self):
        self.compat(['good'], abi=None)
        proc = self.run_init('good')
        self.assertEqual(proc.returncode, 1)
        self.assertRegex(self.begins(proc.stdout)[1],
                         ' abi=unknown programs=0$')
        self.assertIn('Bail out! cannot read %s-compat/abi' % self.root,
                      proc.stdout)
        native, compat = self.report(proc.stdout, compat='ia32')
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertEqual(compat['status'], 'error')
        self.assertIn('init bailed out', compat['reason'])

    def test_gate_run_skips_the_compat_document(self):
        self.compat(['good'])
        proc = self.run_init('bad', env={'CLONE3_GATE_RUN': 'good'})
        self.assertEqual(len(self.begins(proc.stdout)), 1)
        self.assertEqual(proc.returncode, 0, proc.stdout)

    def test_fault_cut_compat_cuts_only_the_compat_document(self):
        self.compat(['good', 'good'])
        proc = self.run_init('good', env={'CLONE3_GATE_FAULT':
                                          'cut-compat'})
        self.assertEqual(proc.stdout.count('CLONE3-GATE-END'), 1)
        native, compat = self.report(proc.stdout, compat='ia32')
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertEqual(compat['status'], 'error')
        self.assertIn('cut off', compat['reason'])

    def test_fault_cut_runs_no_compat_document(self):
        self.compat(['good'])
        proc = self.run_init('good', 'good', env={'CLONE3_GATE_FAULT':
                                                  'cut'})
        self.assertEqual(len(self.begins(proc.stdout)), 1)

    def meet(self, *names, jobs='2', compat=None):
        meet = tempfile.mkdtemp(prefix='init-test-meet.')
        self.settings('timeout=20')
        try:
            if compat:
                self.compat(compat)
            return self.run_init(*names, env={'CLONE3_GATE_JOBS': jobs,
                                              'MEET': meet})
        finally:
            shutil.rmtree(meet)

    def test_programs_run_side_by_side_in_order(self):
        proc = self.meet('meet_a', 'meet_b')
        self.assertEqual(proc.returncode, 0, proc.stdout)
        lines = proc.stdout.splitlines()
        self.assertEqual([x for x in lines if re.match(r'^(    met|ok)', x)],
                         ['    met', 'ok 1 meet_a', '    met', 'ok 2 meet_b'])

    def test_one_job_runs_one_program_at_a_time(self):
        proc = self.meet('meet_a', 'meet_b', jobs='1')
        self.assertIn('not ok 1 meet_a # exit=1', proc.stdout)
        self.assertIn('ok 2 meet_b', proc.stdout)

    def test_bad_jobs_value_is_said_and_runs_one_at_a_time(self):
        proc = self.meet('meet_a', 'meet_b', jobs='0')
        self.assertEqual(proc.stdout.splitlines()[0],
                         'init: CLONE3_GATE_JOBS=0 is not 1..8; '
                         'one program at a time')
        self.assertIn('not ok 1 meet_a # exit=1', proc.stdout)

    def test_compat_document_runs_beside_the_native_one(self):
        proc = self.meet('meet_a', compat=['meet_b'])
        self.assertEqual(proc.returncode, 0, proc.stdout)
        native, compat = self.report(proc.stdout, compat='ia32')
        self.assertEqual(native['status'], 'pass', native['reason'])
        self.assertEqual(compat['status'], 'pass', compat['reason'])

    def test_leftovers_of_one_program_spare_the_other(self):
        # orphan's runner kills what orphan left while meet_a still runs
        proc = self.meet('orphan', 'meet_a', 'escape', 'meet_b')
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertNotIn('never', proc.stdout)
        self.assertEqual(sleepers(), [])

    def report(self, stdout, variant='patched', compat=None):
        log = os.path.join(self.root, 'console.log')
        with open(log, 'w', encoding='utf-8') as f:
            f.write(stdout)
        suite = os.path.join(self.root, 'suite')
        os.makedirs(suite, exist_ok=True)
        open(os.path.join(suite, 'bad.c'), 'w').close()
        out = os.path.join(self.root, 'results')
        extra = ['--compat', compat] if compat else []
        subprocess.run([*REPORT, '--log', log, '--variant', variant,
                        '--arch', 'x86_64', '--out-dir', out,
                        '--suite-dir', suite] + extra, check=True,
                       capture_output=True)
        rows = []
        for name in ['x86_64'] + (['x86_64-' + compat] if compat else []):
            with open(os.path.join(out, name + '.json'),
                      encoding='utf-8') as f:
                rows.append(json.load(f))
        return rows if compat else rows[0]

    def test_report_reads_init_output(self):
        r = self.report(self.run_init('good', 'bad', 'hang',
                                      'x SKIP why').stdout)
        self.assertEqual(r['status'], 'fail', r['reason'])
        self.assertEqual(r['programs']['bad']['suite'], 'ours')
        self.assertEqual(r['programs']['bad']['subtests'],
                         {'global.flag_b': 'fail'})
        self.assertEqual(r['programs']['hang']['result'], 'timeout')
        self.assertEqual(r['counts']['skip'], 1)
        r = self.report(self.run_init('good', 'skipper').stdout)
        self.assertEqual(r['status'], 'pass', r['reason'])

    def test_report_sees_cut_fault_as_error(self):
        r = self.report(self.run_init(
            'good', 'good', env={'CLONE3_GATE_FAULT': 'cut'}).stdout)
        self.assertEqual(r['status'], 'error')
        self.assertIn("cut off after log line 8 'ok 1 good'", r['reason'])


if __name__ == '__main__':
    taprunner.main()
