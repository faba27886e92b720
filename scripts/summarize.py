#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold the per (variant, arch) results written by ktap-report.py against
the gate's expectations and print one table.

gate mode:    base must fail, only in our flag_* subtests; patched must
              pass.  Writes <results>/summary.md.
mutants mode: every mutant must be killed by our suite (the run completes
              and one of our programs or subtests fails) on every arch.
              The upstream suite's failures are shown beside ours, and
              so are our tests that no mutant failed (a test that cannot
              fail is a defect, unless it is a control).
              Writes <results>/mutants.md, and mutants.json with every
              killing test.

The last line is "N passed, N failed" (one per expectation).  Exit 0 when
every expectation holds, 1 otherwise, 2 on bad usage.
"""

import argparse
import glob
import json
import os
import re
import sys

from atomic_write import write_atomic

USAGE = ('summarize.py --results build/results --mode gate|mutants '
         '[--arches "x86_64 arm64 riscv64"] [--variants "..."] '
         '[--mutants-dir patches/mutants]')
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME_RE = re.compile(r'^[A-Za-z0-9_.+-]+$')


class UsageError(Exception):
    pass


def load(results, variant, arch):
    """-> (result dict or None, why it is missing)."""
    path = os.path.join(results, variant, arch + '.json')
    try:
        with open(path, encoding='utf-8') as f:
            data = json.load(f)
    except FileNotFoundError:
        return None, 'no result (%s missing)' % path
    except (OSError, ValueError) as e:
        return None, 'unreadable result %s: %s' % (path, e)
    progs = data.get('programs') if isinstance(data, dict) else None
    if not isinstance(progs, dict) or data.get('status') not in \
            ('pass', 'fail', 'error') or not all(
                isinstance(p, dict) and isinstance(p.get('subtests', {}),
                                                   dict)
                for p in progs.values()):
        return None, 'malformed result %s' % path
    return data, None


def needs_flag(subtest):
    """kselftest_harness names are fixture[.variant].test: a test, or a
    fixture or variant, named flag_* needs CLONE_CLEAR_SIGHAND."""
    return any(part.startswith('flag_') for part in subtest.split('.'))


def failed_items(data, suite):
    """Failed subtests and programs of one suite ('ours' or 'upstream').

    Returns (subtests, programs): "program:subtest" for every failed
    subtest, and "program (detail)" for every failed or timed out program
    that no failed subtest explains.
    """
    subs, progs = [], []
    for name, prog in sorted(data.get('programs', {}).items()):
        if prog.get('suite') != suite:
            continue
        bad = [s for s, r in prog.get('subtests', {}).items() if r == 'fail']
        subs += ['%s:%s' % (name, s) for s in bad]
        if prog.get('result') in ('fail', 'timeout') and not bad:
            progs.append('%s (%s)' % (name, prog.get('detail') or
                                      prog.get('result')))
    return subs, progs


def expect_base(data):
    """-> None when as expected, else the reason."""
    if data['status'] != 'fail':
        return '%s, expected fail: %s' % (data['status'], data.get('reason'))
    subs, progs = failed_items(data, 'ours')
    if progs:
        return 'our programs failed outside a flag_ subtest: ' + \
            ', '.join(progs)
    if not subs:
        return 'none of our subtests failed (only upstream ones)'
    other = [s for s in subs if not needs_flag(s.split(':', 1)[1])]
    if other:
        return 'subtests that do not need the flag failed: ' + \
            ', '.join(other)
    return None


def expect_patched(data):
    if data['status'] != 'pass':
        return '%s: %s' % (data['status'], data.get('reason'))
    return None


def timed_out(data, item):
    prog = data['programs'].get(item.split(' (', 1)[0], {})
    return prog.get('result') == 'timeout'


def some(items, n=3):
    """At most n items, then how many more."""
    shown = items[:n] + (['+%d more' % (len(items) - n)]
                         if len(items) > n else [])
    return ', '.join(shown)


def mutant_cell(data):
    """-> dict: killed, upstream_killed, ours/upstream (failed tests),
    ours_text/upstream_text (the matrix cells)."""
    cell = {'status': data['status'], 'killed': False,
            'upstream_killed': False, 'ours': [], 'upstream': []}
    if data['status'] == 'error':
        cell['ours_text'] = 'ERROR: %s' % data.get('reason')
        cell['upstream_text'] = 'error'
        return cell
    subs, progs = failed_items(data, 'ours')
    usubs, uprogs = failed_items(data, 'upstream')
    cell['ours'], cell['upstream'] = subs + progs, usubs + uprogs
    cell['upstream_text'] = some(usubs + uprogs) or '-'
    cell['upstream_killed'] = data['status'] == 'fail' and bool(
        usubs + [p for p in uprogs if not timed_out(data, p)])
    # A program that hit init's timeout proves nothing: not a kill.
    killers = subs + [p for p in progs if not timed_out(data, p)]
    cell['killed'] = data['status'] == 'fail' and bool(killers)
    if cell['killed']:
        cell['ours_text'] = 'killed by ' + some(killers)
    elif data['status'] == 'fail' and progs:
        cell['ours_text'] = 'NOT KILLED, only timeouts: ' + some(progs)
    elif data['status'] == 'fail':
        cell['ours_text'] = 'SURVIVED (only upstream failed)'
    else:
        cell['ours_text'] = 'SURVIVED'
    return cell


def md_table(header, rows):
    def cell(text):
        return str(text).replace('|', '\\|').replace('\n', ' ')
    out = ['| ' + ' | '.join(cell(h) for h in header) + ' |',
           '|' + '---|' * len(header)]
    out += ['| ' + ' | '.join(cell(c) for c in row) + ' |' for row in rows]
    return out


def gate(args):
    passed = failed = 0
    rows, details = [], []
    for variant in args.variants:
        row = [variant]
        for arch in args.arches:
            data, missing = load(args.results, variant, arch)
            if data is not None:
                details.append('- %s/%s: %s: %s' % (
                    variant, arch, data['status'], data.get('reason')))
            if data is None:
                why = missing
            elif variant == 'base':
                why = expect_base(data)
            elif variant == 'patched':
                why = expect_patched(data)
            else:
                cell = mutant_cell(data)
                why = None if cell['killed'] else cell['ours_text']
            if why:
                failed += 1
                row.append('UNEXPECTED: ' + why)
            else:
                passed += 1
                row.append('as expected')
        rows.append(row)
    lines = ['# clone3 gate: variant x arch', '',
             'base: must fail, only in our flag_* tests; '
             'patched: must pass.', '']
    lines += md_table(['variant'] + args.arches, rows)
    if details:
        lines += ['', 'Results (build/results/<variant>/<arch>.*):', '']
        lines += details
    lines += ['', '%d passed, %d failed' % (passed, failed)]
    text = '\n'.join(lines) + '\n'
    write_atomic(os.path.join(args.results, 'summary.md'), text)
    print(text, end='')
    return 0 if failed == 0 else 1


def patch_headers(path):
    """-> (subject, promise) from a mutant patch's header."""
    subject, promise = None, None
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            for line in f:
                line = line.rstrip('\n')
                if line.startswith('diff --git') or line == '---':
                    break
                if subject is None and line.startswith('Subject:'):
                    subject = re.sub(r'^\[[^]]*\]\s*', '',
                                     line[len('Subject:'):].strip())
                elif promise is None and line.strip().startswith('Breaks:'):
                    promise = line.strip()[len('Breaks:'):].strip()
    except OSError:
        pass
    return subject or os.path.basename(path), promise or '(no Breaks: line)'


def find_patch(variant, by_name):
    """The patch of a result variant: same stem, or a stem it ends with."""
    if variant in by_name:
        return by_name[variant]
    for stem, path in sorted(by_name.items()):
        short = re.sub(r'^\d+-', '', stem)
        if variant in ('mutant-' + stem, 'mutant-' + short):
            return path
    return None


def mutant_list(args):
    """-> list of (variant name, patch path or None)."""
    patches = sorted(glob.glob(os.path.join(args.mutants_dir, '*.patch')))
    by_name = {os.path.basename(p)[:-len('.patch')]: p for p in patches}
    if args.variants_given:
        return [(v, find_patch(v, by_name)) for v in args.variants]
    if not patches:
        raise UsageError('no mutant patches (*.patch) in %s' %
                         args.mutants_dir)
    return [(result_name(args.results, stem), path)
            for stem, path in sorted(by_name.items())]


def result_name(results, stem):
    """The variant a mutant patch ran as: mutant-<stem> (run-variant.sh),
    or <stem>, or mutant-<stem without its number>; the first that has
    results, else mutant-<stem>."""
    short = re.sub(r'^\d+-', '', stem)
    for name in ('mutant-' + stem, stem, 'mutant-' + short):
        if os.path.isdir(os.path.join(results, name)):
            return name
    return 'mutant-' + stem


def our_subtests(data):
    """Every subtest of our suite that ran, as "program:subtest"."""
    return {'%s:%s' % (name, sub)
            for name, prog in data.get('programs', {}).items()
            if prog.get('suite') == 'ours'
            for sub in prog.get('subtests', {})}


def mutants(args):
    passed = failed = 0
    ours_rows, up_rows, heads = [], [], []
    up_kills = 0
    record = {}
    ran, failed_somewhere = set(), set()
    for variant, patch in mutant_list(args):
        subject, promise = patch_headers(patch) if patch else \
            (variant, '(patch not found)')
        heads.append('- **%s**: %s. Breaks: %s' % (variant, subject,
                                                   promise))
        record[variant] = {'subject': subject, 'breaks': promise,
                           'arches': {}}
        ours, ups = [variant], [variant]
        for arch in args.arches:
            data, missing = load(args.results, variant, arch)
            if data is None:
                cell = {'status': 'missing', 'killed': False,
                        'upstream_killed': False, 'ours': [],
                        'upstream': [], 'ours_text': 'MISSING: ' + missing,
                        'upstream_text': 'missing'}
            else:
                cell = mutant_cell(data)
                ran |= our_subtests(data)
                failed_somewhere |= set(cell['ours'])
            passed += cell['killed']
            failed += not cell['killed']
            up_kills += cell['upstream_killed']
            ours.append(cell['ours_text'])
            ups.append(cell['upstream_text'])
            record[variant]['arches'][arch] = {
                k: cell[k] for k in ('status', 'killed', 'upstream_killed',
                                     'ours', 'upstream')}
        ours_rows.append(ours)
        up_rows.append(ups)
    cells = passed + failed

    def rate(n):
        return '%d/%d (%.0f%%)' % (n, cells, 100.0 * n / cells if cells
                                   else 0)
    lines = ['# clone3 mutants: mutant x arch', ''] + heads + ['']
    lines += ['## Our suite (killing tests)', '']
    lines += md_table(['mutant'] + args.arches, ours_rows)
    lines += ['', 'Kill rate, our suite: ' + rate(passed), '']
    lines += ['## Upstream suite (failed programs/subtests)', '']
    lines += md_table(['mutant'] + args.arches, up_rows)
    lines += ['', 'Kill rate, upstream suite: ' + rate(up_kills), '']
    unkilled = sorted(ran - failed_somewhere)
    lines += ['## Our tests that no mutant failed', '']
    lines += ['- ' + t for t in unkilled] or ['none']
    lines += ['']
    lines += ['%d passed, %d failed' % (passed, failed)]
    text = '\n'.join(lines) + '\n'
    write_atomic(os.path.join(args.results, 'mutants.md'), text)
    write_atomic(os.path.join(args.results, 'mutants.json'),
                 json.dumps(record, indent=2) + '\n')
    print(text, end='')
    return 0 if failed == 0 else 1


def names(value, what):
    items = value.split()
    for item in items:
        if not NAME_RE.match(item):
            raise UsageError('bad %s name %r' % (what, item))
    if not items:
        raise UsageError('empty --%s' % what)
    return items


def parse_args(argv):
    parser = argparse.ArgumentParser(usage=USAGE, description=__doc__,
                                     formatter_class=argparse.
                                     RawDescriptionHelpFormatter)
    parser.add_argument('--results', required=True)
    parser.add_argument('--mode', required=True, choices=('gate', 'mutants'))
    parser.add_argument('--arches', default='x86_64 arm64 riscv64')
    parser.add_argument('--variants', default=None)
    parser.add_argument('--mutants-dir',
                        default=os.path.join(REPO, 'patches', 'mutants'))
    args = parser.parse_args(argv)
    args.arches = names(args.arches, 'arches')
    args.variants_given = args.variants is not None
    if args.variants_given:
        args.variants = names(args.variants, 'variants')
    elif args.mode == 'gate':
        args.variants = ['base', 'patched']
    if not os.path.isdir(args.results):
        raise UsageError('no results directory at %s' % args.results)
    if args.mode == 'mutants' and not args.variants_given and \
            not os.path.isdir(args.mutants_dir):
        raise UsageError('no mutants directory at %s' % args.mutants_dir)
    return args


def main(argv):
    try:
        args = parse_args(argv)
        return gate(args) if args.mode == 'gate' else mutants(args)
    except UsageError as e:
        print('error: %s' % e, file=sys.stderr)
        print('usage: ' + USAGE, file=sys.stderr)
        return 2
    except OSError as e:
        print('error: %s' % e, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
