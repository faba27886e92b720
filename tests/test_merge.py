#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/results_meta.py and summarize.py --merge: shards of a
matrix, merged, give the verdict of one run of the whole matrix; a
missing, failed, cut off, changed or foreign shard fails the merge (or is
refused, exit 2), never passes it.

usage: tests/test_merge.py
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
SUMMARIZE = taprunner.script('summarize.py')
META = taprunner.script('results_meta.py')
DATA = os.path.join(HERE, 'data')
ROWS = ['x86_64', 'x86_64-ia32', 'arm64']
IDS = ['--series', 'aaaa111', '--suite', 'bbbb222', '--project', 'cccc333']


def two_documents(name, out):
    """A console log of name's document twice: native, then ia32."""
    with open(os.path.join(DATA, name), encoding='utf-8') as f:
        lines = f.read().replace('\r', '').splitlines()
    end = next(i for i, x in enumerate(lines)
               if x.startswith('CLONE3-GATE-END'))
    doc = lines[:end + 1]
    compat = [doc[0].replace('programs=', 'abi=ia32 programs=')] + doc[1:]
    with open(out, 'w', encoding='utf-8') as f:
        f.write('\n'.join(doc + compat) + '\n')
    return out


CACHE = None
REPORTS = {}


def setUpModule():
    global CACHE
    CACHE = tempfile.mkdtemp(prefix='merge-test-cache.')
    for variant, name in (('base', 'qemu-x86_64-base.log'),
                          ('patched', 'qemu-x86_64-patched.log')):
        two_documents(name, os.path.join(CACHE, variant + '.log'))


def tearDownModule():
    shutil.rmtree(CACHE)


def report(results, variant, arch, log=None, tree='6.1'):
    """ktap-report.py's files for (variant, arch, log, tree), made once
    and copied: the tests stay fast."""
    log = log or os.path.join(CACHE, variant + '.log')
    key = (variant, arch, log, tree)
    if key not in REPORTS:
        out = os.path.join(CACHE, 'r%d' % len(REPORTS))
        subprocess.run(
            [*REPORT, '--log', log, '--variant', variant, '--arch', arch,
             '--compat', 'ia32', '--tree', tree, '--out-dir', out],
            check=True, capture_output=True)
        REPORTS[key] = out
    shutil.copytree(REPORTS[key], os.path.join(results, variant),
                    dirs_exist_ok=True)


class MergeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='merge-test.')
        self.logs = {v: os.path.join(CACHE, v + '.log')
                     for v in ('base', 'patched')}

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_dir(self, name, arches, logs=None, meta=True, ids=IDS,
                tree='6.1'):
        """A results directory of one run over arches (each with its ia32
        row), with its meta.json."""
        results = os.path.join(self.tmp, name)
        os.makedirs(results)
        for arch in arches:
            for variant in ('base', 'patched'):
                report(results, variant, arch,
                       (logs or {}).get((variant, arch)), tree)
        rows = [r for a in arches for r in (a, a + '-ia32')]
        if meta:
            self.write_meta(results, rows, ids, tree)
        return results

    def write_meta(self, results, rows, ids=IDS, tree='6.1'):
        proc = subprocess.run(
            [*META, '--results', results, '--tree', tree, '--mode', 'gate',
             '--rows', ' '.join(rows), '--variants', 'base patched'] + ids,
            capture_output=True, text=True, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def summarize(self, *args):
        return subprocess.run([*SUMMARIZE, '--mode', 'gate'] + list(args),
                              capture_output=True, text=True, check=False)

    def merge(self, *dirs, rows=None):
        out = os.path.join(self.tmp, 'merged')
        proc = self.summarize('--merge', *dirs, '--out', out,
                              '--expect-rows', ' '.join(rows or
                                                        self.all_rows))
        return proc, out

    all_rows = ['x86_64', 'x86_64-ia32', 'arm64', 'arm64-ia32']

    def single(self, results):
        return self.summarize('--results', results, '--rows',
                              ' '.join(self.all_rows))

    @staticmethod
    def table(text):
        return [x for x in text.splitlines() if x.startswith('|')]

    def cells(self, directory):
        with open(os.path.join(directory, 'summary.json'),
                  encoding='utf-8') as f:
            record = json.load(f)
        return [(c['variant'], c['row'], c['as_expected'], c['text'])
                for c in record['cells']], record

    def test_meta_describes_the_results(self):
        results = self.run_dir('one', ['x86_64'])
        with open(os.path.join(results, 'meta.json'), encoding='utf-8') as f:
            meta = json.load(f)
        self.assertEqual((meta['mode'], meta['tree'], meta['series']),
                         ('gate', '6.1', 'aaaa111'))
        self.assertEqual(meta['rows'], ['x86_64', 'x86_64-ia32'])
        self.assertEqual(sorted(meta['results']), [
            'base/x86_64', 'base/x86_64-ia32', 'patched/x86_64',
            'patched/x86_64-ia32'])
        self.assertEqual(meta['results']['patched/x86_64']['status'],
                         'pass')

    def test_merged_shards_give_the_verdict_of_one_run(self):
        full = self.run_dir('full', ['x86_64', 'arm64'])
        one = self.single(full)
        self.assertEqual(one.returncode, 0, one.stdout)
        self.assertEqual(one.stdout.splitlines()[-1], '8 passed, 0 failed')
        a = self.run_dir('a', ['x86_64'])
        b = self.run_dir('b', ['arm64'])
        proc, out = self.merge(a, b)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(proc.stdout.splitlines()[-1], '8 passed, 0 failed')
        self.assertEqual(self.table(proc.stdout), self.table(one.stdout))
        self.assertIn('| variant | x86_64 | x86_64/ia32 | arm64 | '
                      'arm64/ia32 |', proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[0],
                         '# clone3 gate on 6.1: variant x row')
        self.assertEqual(self.cells(out)[0], self.cells(full)[0])
        root = ET.parse(os.path.join(out, 'junit.xml')).getroot()
        one_root = ET.parse(os.path.join(full, 'junit.xml')).getroot()
        names = [s.get('name') for s in root.findall('testsuite')]
        self.assertEqual(names, [s.get('name')
                                 for s in one_root.findall('testsuite')])
        self.assertIn('6.1 patched arm64/ia32.clone3_spawn_test', names)
        self.assertEqual(root.get('tests'), one_root.get('tests'))

    def test_merged_failure_fails_as_one_run_does(self):
        bad = {('patched', 'arm64'): self.logs['base']}
        full = self.run_dir('full', ['x86_64', 'arm64'], logs=bad)
        one = self.single(full)
        self.assertEqual(one.returncode, 1)
        proc, out = self.merge(self.run_dir('a', ['x86_64']),
                               self.run_dir('b', ['arm64'], logs=bad))
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout.splitlines()[-1],
                         one.stdout.splitlines()[-1])
        self.assertEqual(self.table(proc.stdout), self.table(one.stdout))

    def test_missing_shard_fails_the_merge(self):
        proc, out = self.merge(self.run_dir('a', ['x86_64']))
        self.assertEqual(proc.returncode, 1)
        self.assertIn('UNEXPECTED: no shard has a result for base/arm64',
                      proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[-1], '4 passed, 4 failed')
        root = ET.parse(os.path.join(out, 'junit.xml')).getroot()
        errors = [s.get('name') for s in root.findall('testsuite')
                  if s.get('name').endswith('.gate')]
        self.assertIn('6.1 base arm64/ia32.gate', errors)

    def test_shard_without_meta_fails_the_merge(self):
        a = self.run_dir('a', ['x86_64'])
        b = self.run_dir('b', ['arm64'], meta=False)
        proc, out = self.merge(a, b)
        self.assertEqual(proc.returncode, 1)
        self.assertIn('has no meta.json: its run did not finish',
                      proc.stdout)
        self.assertIn('no shard has a result for patched/arm64', proc.stdout)

    def test_shard_with_cut_off_rows_fails_the_merge(self):
        cut = {(v, 'arm64'): os.path.join(DATA, 'cut.log')
               for v in ('base', 'patched')}
        proc, out = self.merge(self.run_dir('a', ['x86_64']),
                               self.run_dir('b', ['arm64'], logs=cut))
        self.assertEqual(proc.returncode, 1)
        self.assertIn('cut off', proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[-1], '4 passed, 4 failed')

    def test_empty_result_fails_the_merge(self):
        a = self.run_dir('a', ['x86_64'])
        b = self.run_dir('b', ['arm64'], meta=False)
        open(os.path.join(b, 'base', 'arm64.json'), 'w').close()
        self.write_meta(b, ['arm64', 'arm64-ia32'])
        proc, _ = self.merge(a, b)
        self.assertEqual(proc.returncode, 1)
        self.assertIn('| base | as expected | as expected | UNEXPECTED: no '
                      'shard has a result for base/arm64 |', proc.stdout)

    def test_result_changed_after_meta_fails_the_merge(self):
        a = self.run_dir('a', ['x86_64'])
        b = self.run_dir('b', ['arm64'])
        path = os.path.join(b, 'patched', 'arm64.json')
        with open(path, encoding='utf-8') as f:
            data = json.load(f)
        data['reason'] += ' (edited)'
        with open(path, 'w', encoding='utf-8') as f:
            json.dump(data, f)
        proc, _ = self.merge(a, b)
        self.assertEqual(proc.returncode, 1)
        self.assertIn('changed after its shard\'s meta.json was written',
                      proc.stdout)

    def test_foreign_shard_is_refused(self):
        a = self.run_dir('a', ['x86_64'])
        for i, key in enumerate(('--series', '--suite', '--project')):
            ids = list(IDS)
            ids[ids.index(key) + 1] = 'dddd44%d' % i
            b = self.run_dir('b%d' % i, ['arm64'], ids=ids)
            proc, out = self.merge(a, b)
            self.assertEqual(proc.returncode, 2, key)
            self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
            self.assertIn('refusing to merge: shards of different %s '
                          'commits' % key[2:], proc.stderr)

    def test_shards_of_another_tree_or_mode_are_refused(self):
        a = self.run_dir('a', ['x86_64'])
        b = self.run_dir('b', ['arm64'])
        with open(os.path.join(b, 'meta.json'), encoding='utf-8') as f:
            meta = json.load(f)
        for key, value in (('tree', '6.12'), ('mode', 'mutants')):
            changed = dict(meta, **{key: value})
            with open(os.path.join(b, 'meta.json'), 'w',
                      encoding='utf-8') as f:
                json.dump(changed, f)
            proc, _ = self.merge(a, b)
            self.assertEqual(proc.returncode, 2, key)
            self.assertIn('refusing to merge', proc.stderr)

    def test_one_row_with_two_different_results_is_refused(self):
        a = self.run_dir('a', ['x86_64'])
        bad = {('patched', 'x86_64'): self.logs['base']}
        b = self.run_dir('b', ['x86_64'], logs=bad)
        proc, _ = self.merge(a, b, rows=['x86_64', 'x86_64-ia32'])
        self.assertEqual(proc.returncode, 2)
        self.assertIn('in two shards with different results', proc.stderr)
        # the same result twice is no conflict
        proc, _ = self.merge(a, a, rows=['x86_64', 'x86_64-ia32'])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def tree_rows(self, *specs):
        """'6.1:x86_64' -> the TREE:ROW words of x86_64 and its ia32 row."""
        return ['%s:%s' % (t, r) for spec in specs
                for t, a in [spec.split(':')] for r in (a, a + '-ia32')]

    def test_shards_of_two_trees_give_one_table_per_tree(self):
        ids = list(IDS)
        ids[1] = 'eeee555'           # the series commit of another tree
        a = self.run_dir('a', ['x86_64'])
        b = self.run_dir('b', ['arm64'], ids=ids, tree='6.12')
        c = self.run_dir('c', ['x86_64'], ids=ids, tree='6.12')
        rows = self.tree_rows('6.1:x86_64', '6.12:arm64', '6.12:x86_64')
        proc, out = self.merge(a, b, c, rows=rows)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertEqual(lines[-1], '12 passed, 0 failed')
        self.assertIn('# clone3 gate on 6.1: variant x row', lines)
        self.assertIn('# clone3 gate on 6.12: variant x row', lines)
        self.assertIn('| variant | arm64 | arm64/ia32 | x86_64 | '
                      'x86_64/ia32 |', lines)
        with open(os.path.join(out, 'summary.json'), encoding='utf-8') as f:
            record = json.load(f)
        self.assertEqual(sorted(record['trees']), ['6.1', '6.12'])
        self.assertEqual(record['closing'], '12 passed, 0 failed')
        names = [s.get('name') for s in ET.parse(
            os.path.join(out, 'junit.xml')).getroot().findall('testsuite')]
        self.assertIn('6.1 patched x86_64/ia32.clone3_spawn_test', names)
        self.assertIn('6.12 base arm64.clone3_spawn_test', names)
        for tree in ('6.1', '6.12'):
            self.assertTrue(os.path.isfile(
                os.path.join(out, tree, 'junit.xml')))
        # a tree's rows failing fails the whole merge, with one verdict
        bad = {('patched', 'arm64'): self.logs['base']}
        b2 = self.run_dir('b2', ['arm64'], ids=ids, tree='6.12', logs=bad)
        proc, _ = self.merge(a, b2, c, rows=rows)
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout.splitlines()[-1], '10 passed, 2 failed')
        # an expected tree without a shard
        proc, _ = self.merge(a, rows=rows)
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout.splitlines()[-1], '4 passed, 8 failed')
        self.assertIn('no shard has a result for base/arm64', proc.stdout)

    def test_one_tree_named_gives_the_output_of_one_run(self):
        a = self.run_dir('a', ['x86_64'])
        b = self.run_dir('b', ['arm64'])
        plain, out1 = self.merge(a, b)
        shutil.move(out1, out1 + '.plain')
        named, out2 = self.merge(a, b, rows=self.tree_rows('6.1:x86_64',
                                                           '6.1:arm64'))
        self.assertEqual(named.returncode, 0, named.stdout + named.stderr)
        self.assertEqual(named.stdout, plain.stdout)
        self.assertEqual(self.cells(out2)[0], self.cells(out1 + '.plain')[0])
        # a tree named that no shard is of: its rows are missing
        proc, _ = self.merge(a, b, rows=self.tree_rows('6.12:x86_64'))
        self.assertEqual(proc.returncode, 1)
        self.assertIn('shards of tree 6.1 are not expected here',
                      proc.stdout)

    def test_merge_over_trees_refuses_foreign_shards(self):
        ids = list(IDS)
        ids[1] = 'eeee555'
        a = self.run_dir('a', ['x86_64'])
        b = self.run_dir('b', ['arm64'], ids=ids)       # 6.1, other series
        rows = self.tree_rows('6.1:x86_64', '6.1:arm64', '6.12:x86_64')
        proc, _ = self.merge(a, b, rows=rows)
        self.assertEqual(proc.returncode, 2)
        self.assertIn('shards of different series commits', proc.stderr)
        for key in ('--suite', '--project'):
            ids = list(IDS)
            ids[1] = 'eeee555'
            ids[ids.index(key) + 1] = 'ffff666'
            c = self.run_dir('c' + key, ['x86_64'], ids=ids, tree='6.12')
            proc, _ = self.merge(a, c, rows=rows)
            self.assertEqual(proc.returncode, 2, key)
            self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
            self.assertIn('shards of different %s commits' % key[2:],
                          proc.stderr)
        for bad in ('6.1:x86_64 arm64', '6.1:', ':x86_64',
                    '6.1:x86_64 6.1:x86_64'):
            proc, _ = self.merge(a, rows=bad.split())
            self.assertEqual(proc.returncode, 2, bad)

    def test_mutants_shards_merge_as_one_run(self):
        """Mutants shards (mode mutants) of two arches: every row killed
        passes; an arch without its shard fails."""
        mdir = os.path.join(self.tmp, 'mutants')
        os.makedirs(mdir)
        with open(os.path.join(mdir, 'x.patch'), 'w', encoding='utf-8') as f:
            f.write('Subject: [PATCH] x\n\nBreaks: everything\n---\n')
        shards = []
        for arch in ('x86_64', 'arm64'):
            results = os.path.join(self.tmp, 'm-' + arch)
            os.makedirs(results)
            out = os.path.join(CACHE, 'm-' + arch)
            if not os.path.isdir(out):
                subprocess.run(
                    [*REPORT, '--log', self.logs['base'], '--variant',
                     'mutant-x', '--arch', arch, '--compat', 'ia32',
                     '--tree', '6.1', '--out-dir', out],
                    check=True, capture_output=True)
            shutil.copytree(out, os.path.join(results, 'mutant-x'))
            proc = subprocess.run(
                [*META, '--results', results, '--tree', '6.1', '--mode',
                 'mutants', '--rows', '%s %s-ia32' % (arch, arch),
                 '--variants', 'mutant-x'] + IDS,
                capture_output=True, text=True, check=False)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            shards.append(results)

        def merge(*dirs):
            return subprocess.run(
                [*SUMMARIZE, '--mode', 'mutants', '--merge', *dirs, '--out',
                 os.path.join(self.tmp, 'mout'), '--expect-rows',
                 ' '.join(self.all_rows), '--mutants-dir', mdir],
                capture_output=True, text=True, check=False)
        proc = merge(*shards)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(proc.stdout.splitlines()[-1], '4 passed, 0 failed')
        proc = merge(shards[0])
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertEqual(proc.stdout.splitlines()[-1], '2 passed, 2 failed')

    def test_bad_usage_exits_2(self):
        a = self.run_dir('a', ['x86_64'])
        cases = [
            ['--merge', a, '--out', self.tmp],
            ['--merge', a, '--expect-rows', 'x86_64'],
            ['--merge', os.path.join(self.tmp, 'none'), '--out', self.tmp,
             '--expect-rows', 'x86_64'],
            ['--merge', a, '--results', a, '--out', self.tmp,
             '--expect-rows', 'x86_64'],
        ]
        for args in cases:
            proc = self.summarize(*args)
            self.assertEqual(proc.returncode, 2, args)
        for args in ([], ['--results', a, '--mode', 'gate', '--tree', 'x',
                          '--rows', '', '--variants', 'base'] + IDS,
                     ['--results', a, '--mode', 'gate', '--tree', 'a/b',
                      '--rows', 'x', '--variants', 'base'] + IDS):
            proc = subprocess.run(META + args, capture_output=True,
                                  text=True, check=False)
            self.assertEqual(proc.returncode, 2, args)


if __name__ == '__main__':
    taprunner.main()
