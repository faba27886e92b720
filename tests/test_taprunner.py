#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of tests/taprunner.py: a skipped test is counted as skipped in the
closing line, never as passed, and scripts/check.sh's way of counting
(the closing line, no "ok - " lines) gives the same numbers.

usage: tests/test_taprunner.py
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import taprunner  # noqa: E402

SAMPLE = '''
import sys, unittest
sys.path.insert(0, %r)
import taprunner

class T(unittest.TestCase):
    def test_a_pass(self):
        pass

    def test_b_fail(self):
        self.fail('no')

    @unittest.skip('not here')
    def test_c_skip(self):
        pass

    def test_d_error(self):
        raise RuntimeError('boom')

    def test_e_skip_inside(self):
        self.skipTest('later')

if __name__ == '__main__':
    taprunner.main()
'''


class TapRunnerTest(unittest.TestCase):
    def run_sample(self, body):
        with tempfile.NamedTemporaryFile('w', suffix='.py',
                                         delete=False) as f:
            f.write(body)
        try:
            return subprocess.run([sys.executable, f.name],
                                  capture_output=True, text=True,
                                  check=False)
        finally:
            os.unlink(f.name)

    def test_skips_are_not_passes(self):
        proc = self.run_sample(SAMPLE % HERE)
        self.assertEqual(proc.returncode, 1)
        lines = proc.stdout.splitlines()
        self.assertEqual(lines[-1], '1 passed, 2 failed, 2 skipped')
        self.assertEqual(lines[-2], 'failed: __main__.T.test_b_fail, '
                         '__main__.T.test_d_error')
        self.assertEqual(lines[:5], [
            'ok 1 - __main__.T.test_a_pass',
            'not ok 2 - __main__.T.test_b_fail',
            'ok 3 - __main__.T.test_c_skip # SKIP not here',
            'not ok 4 - __main__.T.test_d_error (error)',
            'ok 5 - __main__.T.test_e_skip_inside # SKIP later'])
        # check.sh adds its count of "ok - " lines to the closing line's
        self.assertFalse([x for x in lines if x.startswith('ok - ') or
                          x.startswith('not ok - ')])

    def test_all_passing_exits_0(self):
        body = SAMPLE.split('class T')[0] % HERE + '''
class T(unittest.TestCase):
    def test_one(self):
        pass

if __name__ == '__main__':
    taprunner.main()
'''
        proc = self.run_sample(body)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.splitlines()[-1],
                         '1 passed, 0 failed, 0 skipped')


if __name__ == '__main__':
    taprunner.main()
