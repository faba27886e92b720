#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold the per (variant, row) results written by ktap-report.py against
the gate's expectations and print one table.  A row is an arch (x86_64)
or an arch's compat ABI (x86_64-ia32, shown as x86_64/ia32); results are
read from <results>/<variant>/<row>.json.

gate mode:    base must fail, only in our subtests that need the flag (a
              name component 'flag' or 'flag_*'); patched must pass.
              Writes <results>/summary.md, summary.json and junit.xml
              (the testsuites of every row).
mutants mode: every mutant must be killed by our suite (the run completes
              and one of our programs or subtests fails) on every row, or,
              when its patch has a line "Killed-on: <rows>", on those rows
              and must survive on the others.  The upstream suite's
              failures are shown beside ours, and so are our tests that no
              mutant failed (a test that cannot fail is a defect, unless
              it is a control).  Writes <results>/mutants.md, and
              mutants.json with every killing test.  With --abi-declared
              FILE (default patches/abi-change; none: off), the ABI diff
              is one more killer, "abi-diff": a mutant whose
              clone3_abi_probe lines differ, base (--abi-base) -> mutant,
              from the declared change is killed on that row
              (scripts/abi_diff.py); without base lines, the inputs with
              the flag are held against their twins alone.
--merge:      the same over the results directories of several shards
              (each with the meta.json of results_meta.py), written to
              --out; shards of different series, suite or project commits
              (or modes) are refused.  --expect-rows "TREE:ROW ..." merges
              over trees: one table per tree (also in --out/<tree>/),
              one closing line and verdict; the series commit must then
              agree within each tree.  Otherwise all shards are of one
              tree.

The last line is "N passed, N failed" (one per expectation).  Exit 0 when
every expectation holds, 1 otherwise, 2 on bad usage or a refused merge.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import io
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import abi_diff
from atomic_write import write_atomic
from gate_results import (IDENTITY, NAME_RE, Meta, MetaError, Result,
                          file_sha256, load_result, needs_flag, result_path,
                          row_label)
from ktap_junit import merge_junit, row_title

USAGE = ('summarize.py --results build/results --mode gate|mutants '
         '--rows "x86_64 x86_64-ia32 arm64 ..." [--variants "..."] '
         '[--tree NAME] [--mutants-dir patches/mutants] '
         '[--abi-declared patches/abi-change|none [--abi-base base]] '
         '[--change-kind ours|other]\n'
         '       summarize.py --merge DIR... --out DIR --mode gate|mutants '
         '--expect-rows "x86_64 ..."|"6.1:x86_64 6.12:x86_64 ..." '
         '[--variants "..."] [--tree NAME] '
         '[--mutants-dir patches/mutants]')
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GATE_VARIANTS = ('base', 'patched')
# The ABI change the series declares: mutants are held against it.
DECLARED = os.path.join(REPO, 'patches', 'abi-change')

Loader = Callable[[str, str], Result]


class UsageError(Exception):
    pass


class Refused(Exception):
    """Shards that must not be merged: exit 2, one line."""


# -- gate mode ------------------------------------------------------------

def failed_items(data: dict, suite: str) -> Tuple[List[str], List[str]]:
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


def expect_base(data: dict) -> Optional[str]:
    """-> None when as expected, else the reason."""
    if data['status'] != 'fail':
        return '%s, expected fail: %s' % (data['status'], data.get('reason'))
    subs, progs = failed_items(data, 'ours')
    if progs:
        return 'our programs failed outside a flag test: ' + \
            ', '.join(progs)
    if not subs:
        return 'none of our subtests failed (only upstream ones)'
    other = [s for s in subs if not needs_flag(s.split(':', 1)[1])]
    if other:
        return 'subtests that do not need the flag failed: ' + \
            ', '.join(other)
    return expect_base_glibc(data)


def expect_base_glibc(data: dict) -> Optional[str]:
    """glibc's posix_spawn on a kernel without the flag: its fallback, so
    its flag_* rows fail, and only those (every spawn still works)."""
    subs, progs = failed_items(data, GLIBC)
    if progs:
        return 'glibc failed outside its rows: ' + ', '.join(progs)
    other = [s for s in subs if not needs_flag(s.split(':', 1)[1])]
    if other:
        return 'glibc rows that do not need the flag failed: ' + \
            ', '.join(other)
    took = ['%s:%s' % (name, sub)
            for name, prog in data.get('programs', {}).items()
            if prog.get('suite') == GLIBC
            for sub, r in prog.get('subtests', {}).items()
            if needs_flag(sub) and r == 'pass']
    if took:
        return 'glibc took the flag\'s path on a kernel without it: ' + \
            ', '.join(took)
    return None


def expect_patched(data: dict) -> Optional[str]:
    if data['status'] != 'pass':
        return '%s: %s' % (data['status'], data.get('reason'))
    return None


# Another change than ours (--change-kind other): base is the reference,
# whatever it passed, and patched must pass all of it.
def expect_reference(data: dict) -> Optional[str]:
    """Base of another change: any complete run is the reference."""
    if data['status'] == 'error':
        return 'error: %s' % data.get('reason')
    return None


def passed_items(data: dict) -> List[str]:
    """Every program and subtest (of every suite) that passed."""
    out = []
    for name, prog in sorted(data.get('programs', {}).items()):
        if prog.get('result') == 'pass':
            out.append(name)
        out += ['%s:%s' % (name, sub) for sub, r in
                sorted(prog.get('subtests', {}).items()) if r == 'pass']
    return out


def expect_no_regression(data: dict, base: Optional[dict]) -> Optional[str]:
    """Patched of another change: a complete run, and every program and
    subtest that passed on base passes here."""
    if data['status'] == 'error':
        return 'error: %s' % data.get('reason')
    if base is None:
        return 'no base result to hold it against'
    now = set(passed_items(data))
    lost = [i for i in passed_items(base) if i not in now]
    if lost:
        return 'passed on base, not here: ' + ', '.join(lost[:5]) + (
            ' (+%d more)' % (len(lost) - 5) if len(lost) > 5 else '')
    return None


@dataclass
class Cell:
    """One expectation: a (variant, row) of the matrix."""
    variant: str
    row: str
    label: str
    ok: bool
    text: str                   # the table's cell
    status: str                 # pass, fail, error, missing
    reason: Optional[str]       # the result's own reason
    result: Result = field(repr=False)

    def to_json(self) -> dict:
        return {'variant': self.variant, 'row': self.row,
                'label': self.label, 'as_expected': self.ok,
                'text': self.text, 'status': self.status,
                'reason': self.reason}


def gate_cells(load: Loader, variants: List[str],
               rows: List[str], kind: str = 'ours') -> List[Cell]:
    """KIND ours: base must fail in the flag's tests only, patched pass;
    other: base any complete run, patched passes all base passed."""
    cells = []
    for variant in variants:
        for row in rows:
            res = load(variant, row)
            if res.data is None:
                why = res.why
            elif kind != 'ours' and variant == 'base':
                why = expect_reference(res.data)
            elif kind != 'ours':
                why = expect_no_regression(res.data, load('base', row).data)
            elif variant == 'base':
                why = expect_base(res.data)
            else:
                why = expect_patched(res.data)
            cells.append(Cell(
                variant, row, row_label(row), why is None,
                'as expected' if why is None else 'UNEXPECTED: ' + why,
                res.status, res.data.get('reason') if res.data else None,
                res))
    return cells


def md_table(header: List[str], rows: List[List[str]]) -> List[str]:
    def cell(text):
        return str(text).replace('|', '\\|').replace('\n', ' ')
    out = ['| ' + ' | '.join(cell(h) for h in header) + ' |',
           '|' + '---|' * len(header)]
    out += ['| ' + ' | '.join(cell(c) for c in row) + ' |' for row in rows]
    return out


def title(kind: str, axes: str, tree: Optional[str]) -> str:
    """# clone3 gate on 6.1: variant x row"""
    return '# clone3 %s%s: %s' % (kind, ' on ' + tree if tree else '', axes)


def closing(cells_ok: List[bool]) -> str:
    passed = sum(cells_ok)
    return '%d passed, %d failed' % (passed, len(cells_ok) - passed)


RULES = {
    'ours': "base: must fail, only in our tests that need the flag (a "
            "name component 'flag' or 'flag_*'); patched: must pass.",
    'other': "another change than ours: base is the reference (a complete "
             "run); patched: every program and subtest that passed on base "
             "passes.",
}


def gate_text(cells: List[Cell], variants: List[str], rows: List[str],
              tree: Optional[str], notes: List[str],
              kind: str = 'ours') -> str:
    table = []
    for variant in variants:
        table.append([variant] + [c.text for c in cells
                                  if c.variant == variant])
    lines = [title('gate', 'variant x row', tree), '', RULES[kind], '']
    lines += md_table(['variant'] + [row_label(r) for r in rows], table)
    details = ['- %s/%s: %s: %s' % (c.variant, c.label, c.status, c.reason)
               for c in cells if c.result.data is not None]
    if details:
        lines += ['', 'Results (<variant>/<row>.*):', ''] + details
    if notes:
        lines += [''] + ['- ' + n for n in notes]
    lines += ['', closing([c.ok for c in cells])]
    return '\n'.join(lines) + '\n'


def junit_of(cells: List[Cell], tree: Optional[str]) -> bytes:
    """The testsuites of every row; a row without a readable JUnit file is
    one error testsuite."""
    docs, errors = [], []
    for c in cells:
        try:
            docs.append(ET.parse(c.result.xml_path).getroot())
            continue
        except (OSError, ET.ParseError):
            pass
        errors.append((row_title(c.variant, c.label, tree),
                       c.result.why or 'no JUnit file %s' %
                       c.result.xml_path))
    return merge_junit('clone3 gate' + (' ' + tree if tree else ''), docs,
                       errors)


def write_gate(out: str, cells: List[Cell], variants: List[str],
               rows: List[str], tree: Optional[str], notes: List[str],
               extra: Optional[dict] = None, kind: str = 'ours') -> int:
    text = gate_text(cells, variants, rows, tree, notes, kind)
    record = {'mode': 'gate', 'tree': tree, 'variants': variants,
              'rows': rows, 'cells': [c.to_json() for c in cells],
              'notes': notes, 'closing': closing([c.ok for c in cells])}
    record.update(extra or {})
    write_atomic(os.path.join(out, 'summary.md'), text)
    write_atomic(os.path.join(out, 'summary.json'),
                 json.dumps(record, indent=2) + '\n')
    write_atomic(os.path.join(out, 'junit.xml'), junit_of(cells, tree))
    print(text, end='')
    return 0 if all(c.ok for c in cells) else 1


# -- mutants mode ---------------------------------------------------------

def timed_out(data: dict, item: str) -> bool:
    prog = data['programs'].get(item.split(' (', 1)[0], {})
    return prog.get('result') == 'timeout'


def some(items: List[str], n: int = 3) -> str:
    """At most n items, then how many more."""
    shown = items[:n] + (['+%d more' % (len(items) - n)]
                         if len(items) > n else [])
    return ', '.join(shown)


def failed_on(data: Optional[dict]) -> set:
    """Every failed "program:subtest" and program (any suite) of a run."""
    out = set()
    for name, prog in (data or {}).get('programs', {}).items():
        if prog.get('result') in ('fail', 'timeout'):
            out.add(name)
        out |= {'%s:%s' % (name, sub) for sub, r in
                prog.get('subtests', {}).items() if r == 'fail'}
    return out


def mutant_cell(data: dict, also_on_base: Optional[set] = None) -> dict:
    """-> dict: killed, upstream_killed, glibc_killed, killers,
    ours/upstream/glibc (failed tests), ours_text/upstream_text/glibc_text
    (the matrix cells, for a row where the mutant must be killed).  A
    failed glibc row kills as a failed test of ours does.  ALSO_ON_BASE
    (another change than ours: failed_on of base's run) is left out: what
    failed before the change proves nothing about a mutant of it."""
    cell = {'status': data['status'], 'killed': False,
            'upstream_killed': False, 'glibc_killed': False, 'ours': [],
            'upstream': [], GLIBC: [], 'killers': [], 'timeouts': False}
    if data['status'] == 'error':
        cell['ours_text'] = 'ERROR: %s' % data.get('reason')
        cell['upstream_text'] = cell['glibc_text'] = 'error'
        return cell
    subs, progs = failed_items(data, 'ours')
    usubs, uprogs = failed_items(data, 'upstream')
    gsubs, gprogs = failed_items(data, GLIBC)
    if also_on_base:
        def new(items):
            return [i for i in items
                    if i not in also_on_base and
                    i.split(' (', 1)[0] not in also_on_base]
        subs, progs, usubs, uprogs, gsubs, gprogs = (
            new(x) for x in (subs, progs, usubs, uprogs, gsubs, gprogs))
    cell['ours'], cell['upstream'] = subs + progs, usubs + uprogs
    cell[GLIBC] = gsubs + gprogs
    cell['upstream_text'] = some(usubs + uprogs) or '-'
    cell['glibc_text'] = some(gsubs + gprogs) or '-'
    cell['upstream_killed'] = data['status'] == 'fail' and bool(
        usubs + [p for p in uprogs if not timed_out(data, p)])
    gkillers = gsubs + [p for p in gprogs if not timed_out(data, p)]
    cell['glibc_killed'] = data['status'] == 'fail' and bool(gkillers)
    # A program that hit init's timeout proves nothing: not a kill.
    killers = subs + [p for p in progs if not timed_out(data, p)] + gkillers
    cell['killers'] = killers
    cell['killed'] = data['status'] == 'fail' and bool(killers)
    cell['timeouts'] = data['status'] == 'fail' and bool(progs) and \
        not killers
    if cell['killed']:
        cell['ours_text'] = 'killed by ' + some(killers)
    elif cell['timeouts']:
        cell['ours_text'] = 'NOT KILLED, only timeouts: ' + some(progs)
    elif data['status'] == 'fail':
        cell['ours_text'] = 'SURVIVED (only upstream failed)'
    else:
        cell['ours_text'] = 'SURVIVED'
    return cell


def missing_cell(why: str) -> dict:
    return {'status': 'missing', 'killed': False, 'upstream_killed': False,
            'glibc_killed': False, 'ours': [], 'upstream': [], GLIBC: [],
            'killers': [], 'timeouts': False,
            'ours_text': 'MISSING: ' + why, 'upstream_text': 'missing',
            'glibc_text': 'missing'}


ABI_KILLER = 'abi-diff'
# The suite of consumers/glibc's programs (ktap_parser.program_suite).
GLIBC = 'glibc'
# The probe's own result only says that it ran: abi-diff judges it.
ABI_PROBE_TEST = 'clone3_abi_probe:abi_probe'


def ktap_of(res: Result) -> str:
    return res.path[:-len('.json')] + '.ktap'


def abi_base(load: Loader, args, variants: List[str], row: str) -> \
        Tuple[Optional[abi_diff.Probe], List[str]]:
    """A row's base probe lines for the ABI diff, and notes.  A value of
    an input the declaration says nothing about that most mutants (more
    than half, 3 or more) show alike, and otherwise than base, is no
    mutant's fault (each breaks one thing): base came from another kernel
    (a gate run before a configuration change).  Base is taken to read as
    most mutants there, and a note says so."""
    try:
        base = abi_diff.read_probe(ktap_of(load(args.abi_base, row)))
    except abi_diff.BadInput:
        return None, []
    seen: List[abi_diff.Probe] = []
    for v in variants:
        res = load(v, row)
        if res.data is None or res.data['status'] == 'error':
            continue
        try:
            probe = abi_diff.read_probe(ktap_of(res))
        except abi_diff.BadInput:
            continue
        seen.append(probe)
    if len(seen) < 3:
        return base, []
    fixed: abi_diff.Probe = {}
    stale = []
    for k, obs in base.items():
        fixed[k] = obs
        if args.abi_decl.touches(k):
            continue
        now = dict(obs)
        fields = set(obs).union(*(p.get(k, {}) for p in seen))
        for f in sorted(fields):
            values = [p.get(k, {}).get(f, abi_diff.ABSENT) for p in seen]
            top = max(set(values), key=values.count)
            if 2 * values.count(top) <= len(seen) or \
                    top == obs.get(f, abi_diff.ABSENT):
                continue
            if top == abi_diff.ABSENT:
                now.pop(f, None)
            else:
                now[f] = top
        if now != obs:
            fixed[k] = now
            stale.append(k)
    if not stale:
        return base, []
    return fixed, ['abi-diff: %s/%s differs from most of the %d mutants '
                   'alike on %d input(s) (%s): taken as the mutants read '
                   'them (a base from another kernel configuration? run '
                   'make gate again)' % (args.abi_base, row, len(seen),
                                         len(stale), some(stale, 2))]


def abi_cell(load: Loader, args, variant: str, row: str,
             res: Result) -> Tuple[Optional[List[str]], str]:
    """The ABI diff of a mutant's row against the declaration
    (--abi-declared), base -> mutant: (the differences, None when it
    could not be made, and the matrix cell)."""
    if res.data is None or res.data['status'] == 'error':
        return None, '-'
    try:
        n = abi_diff.read_probe(ktap_of(res), need=False)
    except abi_diff.BadInput as e:
        return None, 'no diff: %s' % e
    b = args.abi_bases.get(row)
    if b is None:
        # No base run here (a mutants-only job): the flag's inputs
        # against their twins, which needs no base.
        diff = abi_diff.compare_alone(row, n, args.abi_decl, variant)
        if diff.ok:
            return [], 'as declared (flag inputs only: no %s)' % \
                args.abi_base
        return diff.problems, '(no %s) %s' % (args.abi_base,
                                              some(diff.problems, 1))
    diff = abi_diff.compare(row, b, n, args.abi_decl, args.abi_base,
                            variant)
    if diff.ok:
        return [], 'as declared'
    bad = [g for g in diff.groups if g['verdict'] != 'declared']
    text = '%s: %s %s' % (bad[0]['label'], bad[0]['verdict'],
                          bad[0]['seen']) if bad else diff.problems[0]
    if len(diff.problems) > 1:
        text += ' (+%d more)' % (len(diff.problems) - 1)
    return diff.problems, text


def add_abi_kill(cell: dict, problems: Optional[List[str]]) -> None:
    """An ABI difference from the declaration kills a mutant whose run
    completed, like a failed test of ours."""
    cell['abi_diff'] = problems
    if not problems or cell['status'] not in ('pass', 'fail'):
        return
    cell['killers'] = cell['killers'] + [ABI_KILLER]
    cell['killed'] = True
    cell['timeouts'] = False
    cell['ours_text'] = 'killed by ' + some(cell['killers'])


def held(cell: dict, must_kill: bool) -> Tuple[bool, str]:
    """Whether a cell met its expectation, and the table's text."""
    if must_kill:
        return cell['killed'], cell['ours_text']
    if cell['killed']:
        return False, 'killed, but declared to survive here: ' + \
            some(cell['killers'])
    if cell['status'] in ('error', 'missing') or cell['timeouts']:
        return False, cell['ours_text'] + ' (declared to survive here)'
    return True, 'survives, as expected'


@dataclass
class MutantPatch:
    path: Optional[str]
    subject: str
    breaks: str
    killed_on: Optional[List[str]]      # None: must be killed everywhere


def read_patch(path: Optional[str], variant: str) -> MutantPatch:
    """The header of a mutant patch (git format-patch), or of a plain
    diff -u / git diff, which has none: then the file name is its
    description.  Never fails: an unreadable patch is described as such."""
    if path is None:
        return MutantPatch(None, variant, '(patch not found)', None)
    name = os.path.basename(path)
    subject: Optional[str] = None
    breaks: Optional[str] = None
    killed_on: Optional[List[str]] = None
    in_subject = False
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            for line in f:
                line = line.rstrip('\n')
                if line == '---' or line.startswith(
                        ('diff ', '--- ', '+++ ', '@@ ', 'Index: ')):
                    break
                if in_subject and line[:1] in (' ', '\t'):
                    subject += ' ' + line.strip()
                    continue
                in_subject = False
                text = line.strip()
                if subject is None and line.startswith('Subject:'):
                    subject = re.sub(r'^\[[^]]*\]\s*', '',
                                     line[len('Subject:'):].strip())
                    in_subject = True
                elif breaks is None and text.startswith('Breaks:'):
                    breaks = text[len('Breaks:'):].strip()
                elif killed_on is None and text.startswith('Killed-on:'):
                    words = text[len('Killed-on:'):].split()
                    killed_on = [w for w in words if NAME_RE.match(w)] \
                        or None
    except (OSError, ValueError):
        breaks = breaks or '(unreadable patch)'
    return MutantPatch(path, subject or name, breaks or '(no Breaks: line)',
                       killed_on)


def mutant_list(args) -> List[Tuple[str, Optional[str]]]:
    """-> list of (variant name, patch path or None).  mutants.sh runs
    the patch <dir>/<stem>.patch as the variant mutant-<stem>."""
    patches = sorted(glob.glob(os.path.join(args.mutants_dir, '*.patch')))
    by_stem = {os.path.basename(p)[:-len('.patch')]: p for p in patches}
    if args.variants_given:
        return [(v, by_stem.get(v[len('mutant-'):]) if
                 v.startswith('mutant-') else None) for v in args.variants]
    if not patches:
        raise UsageError('no mutant patches (*.patch) in %s' %
                         args.mutants_dir)
    return [('mutant-' + stem, path) for stem, path in by_stem.items()]


def our_subtests(data: dict) -> set:
    """Every subtest of our suite that ran, as "program:subtest"."""
    return {'%s:%s' % (name, sub)
            for name, prog in data.get('programs', {}).items()
            if prog.get('suite') == 'ours'
            for sub in prog.get('subtests', {})}


def mutants(load: Loader, args, out: str, notes: List[str]) -> int:
    rows: List[str] = args.rows
    ok_cells: List[bool] = []
    kills = must = up_kills = abi_kills = glibc_kills = 0
    ours_rows, up_rows, heads, abi_rows, glibc_rows = [], [], [], [], []
    glibc_alone: List[str] = []
    record: Dict[str, dict] = {}
    ran, failed_somewhere = set(), set()
    args.abi_bases = {}
    if args.abi_decl is not None:
        names = [v for v, _ in mutant_list(args)]
        for row in rows:
            args.abi_bases[row], more = abi_base(load, args, names, row)
            notes = notes + more
    for variant, path in mutant_list(args):
        patch = read_patch(path, variant)
        head = '- **%s**: %s. Breaks: %s' % (variant, patch.subject,
                                             patch.breaks)
        if patch.killed_on:
            head += '. Killed-on: %s' % ' '.join(patch.killed_on)
            absent = [r for r in patch.killed_on if r not in rows]
            if absent:
                head += ' (not run here: %s)' % ' '.join(absent)
        heads.append(head)
        record[variant] = {'subject': patch.subject, 'breaks': patch.breaks,
                           'killed_on': patch.killed_on, 'arches': {}}
        ours, ups, abis, glibcs = [variant], [variant], [variant], \
            [variant]
        alone_rows = []
        for row in rows:
            res = load(variant, row)
            if res.data is None:
                cell = missing_cell(res.why)
            else:
                cell = mutant_cell(res.data, failed_on(
                    load(args.abi_base, row).data)
                    if args.change_kind != 'ours' else None)
                ran |= our_subtests(res.data)
                failed_somewhere |= set(cell['ours'])
            if args.abi_decl is not None:
                problems, abi_text = abi_cell(load, args, variant, row, res)
                add_abi_kill(cell, problems)
                abis.append(abi_text)
            must_kill = patch.killed_on is None or row in patch.killed_on
            ok, text = held(cell, must_kill)
            ok_cells.append(ok)
            if must_kill:
                must += 1
                kills += cell['killed']
                up_kills += cell['upstream_killed']
                abi_kills += ABI_KILLER in cell['killers']
                glibc_kills += cell['glibc_killed']
                if cell['glibc_killed'] and \
                        set(cell['killers']) <= set(cell[GLIBC]):
                    alone_rows.append(row_label(row))
            ours.append(text)
            ups.append(cell['upstream_text'])
            glibcs.append(cell['glibc_text'])
            entry = {k: cell[k] for k in ('status', 'killed',
                                          'upstream_killed', 'glibc_killed',
                                          'ours', 'upstream', GLIBC)}
            entry.update(expected='killed' if must_kill else 'survives',
                         as_expected=ok)
            if args.abi_decl is not None:
                entry.update(killers=cell['killers'],
                             abi_diff=cell.get('abi_diff'))
            record[variant]['arches'][row] = entry
        ours_rows.append(ours)
        up_rows.append(ups)
        abi_rows.append(abis)
        glibc_rows.append(glibcs)
        if alone_rows:
            glibc_alone.append('%s (%s)' % (variant, ' '.join(alone_rows)))

    def rate(n):
        return '%d/%d (%.0f%%)' % (n, must, 100.0 * n / must if must else 0)
    header = ['mutant'] + [row_label(r) for r in rows]
    lines = [title('mutants', 'mutant x row', args.tree), ''] + heads + ['']
    lines += ['## Our suite (killing tests%s)' % (
        ', and %s: the ABI diff against %s' % (ABI_KILLER, args.abi_declared)
        if args.abi_decl is not None else ''), '']
    lines += md_table(header, ours_rows)
    lines += ['', 'Kill rate, our suite: ' + rate(kills), '']
    if args.abi_decl is not None:
        lines += ['## ABI diff (%s -> mutant) against %s' % (
            args.abi_base, args.abi_declared), '']
        lines += md_table(header, abi_rows)
        lines += ['', 'Kill rate, abi-diff: ' + rate(abi_kills), '']
    lines += ['## glibc\'s posix_spawn (consumers/glibc: failed rows)', '']
    lines += md_table(header, glibc_rows)
    lines += ['', 'Kill rate, glibc: ' + rate(glibc_kills),
              'Killed by glibc alone: ' + (', '.join(glibc_alone) or 'none'),
              '']
    lines += ['## Upstream suite (failed programs/subtests)', '']
    lines += md_table(header, up_rows)
    lines += ['', 'Kill rate, upstream suite: ' + rate(up_kills), '']
    unkilled = sorted(ran - failed_somewhere -
                      ({ABI_PROBE_TEST} if args.abi_decl is not None
                       else set()))
    if args.change_kind == 'ours':
        lines += ['## Our tests that no mutant failed', '']
        lines += ['- ' + t for t in unkilled] or ['none']
    else:
        # They test our flag, not this change: no defect when unfailed.
        lines += ['## Our tests that no mutant failed', '',
                  'not listed: the change gated is not ours (%d of our '
                  'tests ran)' % len(ran)]
    if notes:
        lines += [''] + ['- ' + n for n in notes]
    lines += ['', closing(ok_cells)]
    text = '\n'.join(lines) + '\n'
    write_atomic(os.path.join(out, 'mutants.md'), text)
    write_atomic(os.path.join(out, 'mutants.json'),
                 json.dumps(record, indent=2) + '\n')
    print(text, end='')
    return 0 if all(ok_cells) else 1


# -- one results directory, or the merge of shards ------------------------

def tree_of(results: str, args, cells_of: List[Result]) -> Optional[str]:
    """--tree, else meta.json's, else the one the results name."""
    if args.tree:
        return args.tree
    try:
        return Meta.read(results).tree
    except MetaError:
        pass
    trees = sorted({r.data.get('tree') for r in cells_of
                    if r.data and r.data.get('tree')})
    return ', '.join(trees) or None


def single(args) -> int:
    def load(variant, row):
        return load_result(args.results, variant, row)
    if args.mode == 'gate':
        results = [load(v, r) for v in args.variants for r in args.rows]
        tree = tree_of(args.results, args, results)
        cells = gate_cells(load, args.variants, args.rows, args.change_kind)
        return write_gate(args.results, cells, args.variants, args.rows,
                          tree, [], kind=args.change_kind)
    args.tree = tree_of(args.results, args, [])
    return mutants(load, args, args.results, [])


def read_metas(args) -> Tuple[List[Tuple[str, Meta]], List[str]]:
    """The meta.json of every shard of args.merge (a shard without one is
    a note: its results count as missing).  Raises Refused when the shards
    are of another mode, or of different suite or project commits."""
    metas: List[Tuple[str, Meta]] = []
    notes: List[str] = []
    for d in args.merge:
        try:
            metas.append((d, Meta.read(d)))
        except MetaError as e:
            notes.append('shard not used: %s' % e)
    for d, meta in metas:
        if meta.mode != args.mode:
            raise Refused('shard %s is a %s run, not %s' % (d, meta.mode,
                                                            args.mode))
    same(metas, [k for k in IDENTITY if k != 'series'])
    return metas, notes


def same(metas: List[Tuple[str, Meta]], keys: List[str]) -> None:
    """Refused unless every shard has the same value of each key."""
    for key in keys:
        seen: Dict[Optional[str], str] = {}
        for d, meta in metas:
            seen.setdefault(getattr(meta, key), d)
        if len(seen) > 1:
            (a, da), (b, db) = list(seen.items())[:2]
            raise Refused('shards of different %s: %s in %s, %s in %s' % (
                key if key == 'tree' else key + ' commits', a, da, b, db))


ShardResults = Dict[Tuple[str, str], Result]


def load_shards(metas: List[Tuple[str, Meta]]) -> ShardResults:
    """(variant, row) -> result, from the shards of one tree (their series
    commit is checked here).  A result changed after its meta.json is a
    result with why set; one row with two different results is
    Refused."""
    same(metas, ['series'])
    found: Dict[Tuple[str, str], Result] = {}
    origin: Dict[Tuple[str, str], Tuple[str, str]] = {}
    for d, meta in metas:
        for key, entry in sorted(meta.results.items()):
            variant, _, row = key.partition('/')
            res = load_result(d, variant, row)
            digest = None
            if res.data is not None:
                digest = file_sha256(res.path)
                if not isinstance(entry, dict) or \
                        digest != entry.get('sha256'):
                    res = Result(variant, row, res.path,
                                 why='result %s changed after its shard\'s '
                                 'meta.json was written' % res.path)
            k = (variant, row)
            if k in found:
                if digest is None or origin[k][1] != digest:
                    raise Refused('%s is in two shards with different '
                                  'results: %s and %s' % (
                                      key, origin[k][0], d))
                continue
            found[k] = res
            origin[k] = (d, digest or '')
    return found


def read_shards(args) -> Tuple[Dict[Tuple[str, str], Result], List[str],
                               Optional[str]]:
    """-> (variant, row) -> result, notes, tree, for shards of one tree.
    Raises Refused when the shards do not belong together."""
    metas, notes = read_metas(args)
    same(metas, ['tree'])
    tree = metas[0][1].tree if metas else None
    if args.tree and metas and tree != args.tree:
        raise Refused('the shards are of tree %s, not --tree %s' % (
            tree, args.tree))
    return load_shards(metas), notes, tree or args.tree


def merge(args) -> int:
    if args.expect_trees is None:
        found, notes, tree = read_shards(args)
        return merge_tree(args, found, notes, tree, args.out)
    if args.tree and list(args.expect_trees) != [args.tree]:
        raise UsageError('--tree %s, but --expect-rows names the trees %s'
                         % (args.tree, ' '.join(args.expect_trees)))
    metas, notes = read_metas(args)
    trees = {}
    for d, meta in metas:
        trees.setdefault(meta.tree, []).append((d, meta))
    found = {t: load_shards(m) for t, m in trees.items()}
    extra = ['shards of tree %s are not expected here, not counted: %s' % (
        t, ', '.join(d for d, _ in m))
        for t, m in trees.items() if t not in args.expect_trees]
    if len(args.expect_trees) == 1:
        # One tree: the output of one run of that tree, to the letter.
        tree, args.rows = next(iter(args.expect_trees.items()))
        args.tree = tree
        return merge_tree(args, found.get(tree, {}), notes + extra, tree,
                          args.out)
    return merge_trees(args, found, notes + extra)


CLOSING_RE = re.compile(r'^(\d+) passed, (\d+) failed$')


def merge_trees(args, found: Dict[Optional[str], ShardResults],
                notes: List[str]) -> int:
    """Shards of several trees: one table per tree (each also written to
    OUT/<tree>/ as a run of that tree would write it), then OUT/'s files
    over every tree and one closing line and verdict."""
    passed = failed = 0
    texts, records, junits = [], {}, []
    for tree, rows in args.expect_trees.items():
        sub = argparse.Namespace(**vars(args))
        sub.tree, sub.rows = tree, rows
        out = os.path.join(args.out, tree)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            merge_tree(sub, found.get(tree, {}), [], tree, out)
        text = buf.getvalue()
        print(text)
        texts.append(text)
        m = CLOSING_RE.match(text.rstrip('\n').splitlines()[-1])
        if not m:
            raise OSError('no closing line in the merge of tree %s' % tree)
        passed += int(m.group(1))
        failed += int(m.group(2))
        name = 'summary.json' if args.mode == 'gate' else 'mutants.json'
        with open(os.path.join(out, name), encoding='utf-8') as f:
            records[tree] = json.load(f)
        if args.mode == 'gate':
            junits.append(ET.parse(os.path.join(out, 'junit.xml')).getroot())
    end = '%d passed, %d failed' % (passed, failed)
    lines = ['# clone3 %s on the trees %s' % (args.mode,
                                              ' '.join(args.expect_trees))]
    lines += [''] + ['- ' + n for n in notes] if notes else []
    lines += ['', end]
    tail = '\n'.join(lines) + '\n'
    print(tail, end='')
    record = {'mode': args.mode, 'trees': records, 'notes': notes,
              'closing': end, 'shards': args.merge}
    md = 'summary.md' if args.mode == 'gate' else 'mutants.md'
    write_atomic(os.path.join(args.out, md), '\n'.join(texts + [tail]))
    write_atomic(os.path.join(args.out, 'summary.json' if args.mode ==
                              'gate' else 'mutants.json'),
                 json.dumps(record, indent=2) + '\n')
    if args.mode == 'gate':
        write_atomic(os.path.join(args.out, 'junit.xml'),
                     merge_junit('clone3 gate', junits))
    return 0 if failed == 0 else 1


def merge_tree(args, found: ShardResults, notes: List[str],
               tree: Optional[str], out: str) -> int:
    args.tree = tree
    asked = set()

    def load(variant, row):
        asked.add((variant, row))
        if (variant, row) in found:
            return found[(variant, row)]
        return Result(variant, row, result_path('<shards>', variant, row),
                      why='no shard has a result for %s/%s' % (variant,
                                                               row))
    os.makedirs(out, exist_ok=True)
    if args.mode == 'gate':
        cells = gate_cells(load, args.variants, args.rows, args.change_kind)
        notes += unasked(found, asked)
        return write_gate(out, cells, args.variants, args.rows,
                          tree, notes, {'shards': args.merge},
                          args.change_kind)
    # mutants() reads the cells while it prints: list the extras first
    for variant, _ in mutant_list(args):
        for row in args.rows:
            asked.add((variant, row))
    # base: the ABI diff's reference, when a shard holds it
    for row in args.rows if args.abi_decl is not None else []:
        asked.add((args.abi_base, row))
    notes += unasked(found, asked)
    return mutants(load, args, out, notes)


def unasked(found: Dict[Tuple[str, str], Result], asked: set) -> List[str]:
    extra = sorted('%s/%s' % k for k in found if k not in asked)
    if not extra:
        return []
    return ['results in the shards that are not expected here, not '
            'counted: ' + ', '.join(extra)]


def names(value: str, what: str) -> List[str]:
    items = value.split()
    for item in items:
        if not NAME_RE.match(item):
            raise UsageError('bad %s name %r' % (what, item))
    if not items:
        raise UsageError('empty --%s' % what)
    return items


TreeRows = Optional[Dict[str, List[str]]]


def expect_rows(value: str) -> Tuple[List[str], TreeRows]:
    """--expect-rows: "x86_64 x86_64-ia32" (the rows of the shards' one
    tree) -> (rows, None), or "6.1:x86_64 6.12:riscv64" (rows of named
    trees, for a merge over trees) -> (all rows, tree -> rows in order)."""
    words = value.split()
    if not any(':' in w for w in words):
        return names(value, 'expect-rows'), None
    trees: Dict[str, List[str]] = {}
    for word in words:
        tree, sep, row = word.partition(':')
        if not sep or not NAME_RE.match(tree) or not NAME_RE.match(row):
            raise UsageError('bad --expect-rows word %r: give every row as '
                             'TREE:ROW, or none' % word)
        if row in trees.setdefault(tree, []):
            raise UsageError('--expect-rows: %s is given twice' % word)
        trees[tree].append(row)
    return [r for rows in trees.values() for r in rows], trees


def parse_args(argv):
    parser = argparse.ArgumentParser(usage=USAGE, description=__doc__,
                                     formatter_class=argparse.
                                     RawDescriptionHelpFormatter)
    parser.add_argument('--results')
    parser.add_argument('--merge', nargs='+', metavar='DIR')
    parser.add_argument('--out')
    parser.add_argument('--expect-rows')
    parser.add_argument('--mode', required=True, choices=('gate', 'mutants'))
    parser.add_argument('--rows', default=None)
    parser.add_argument('--variants', default=None)
    parser.add_argument('--tree', default=None)
    parser.add_argument('--mutants-dir',
                        default=os.path.join(REPO, 'patches', 'mutants'))
    parser.add_argument('--abi-declared', default=DECLARED if
                        os.path.isfile(DECLARED) else 'none')
    parser.add_argument('--abi-base', default='base')
    parser.add_argument('--change-kind', default='ours',
                        choices=('ours', 'other'))
    args = parser.parse_args(argv)
    args.abi_decl = None
    if args.abi_declared != 'none' and args.mode == 'mutants':
        try:
            args.abi_decl = abi_diff.Declaration.read(args.abi_declared)
        except abi_diff.BadInput as e:
            raise UsageError(str(e))
        if not NAME_RE.match(args.abi_base):
            raise UsageError('bad --abi-base %r' % args.abi_base)
    if args.merge:
        if args.results or args.rows:
            raise UsageError('--merge takes --expect-rows and --out, not '
                             '--results or --rows')
        if not args.out or not args.expect_rows:
            raise UsageError('--merge needs --out DIR and --expect-rows')
        for d in args.merge:
            if not os.path.isdir(d):
                raise UsageError('no shard directory at %s' % d)
        args.rows, args.expect_trees = expect_rows(args.expect_rows)
    else:
        if not args.results:
            raise UsageError('--results DIR (or --merge DIR...) is needed')
        if args.out or args.expect_rows:
            raise UsageError('--out and --expect-rows are for --merge')
        if not os.path.isdir(args.results):
            raise UsageError('no results directory at %s' % args.results)
        if not args.rows:
            raise UsageError('--rows "ROW ..." is needed (the rows asked '
                             'for, x86_64 x86_64-ia32 ...)')
        args.rows = names(args.rows, 'rows')
    if args.tree is not None and not NAME_RE.match(args.tree):
        raise UsageError('bad --tree %r' % args.tree)
    args.variants_given = args.variants is not None
    if args.variants_given:
        args.variants = names(args.variants, 'variants')
    elif args.mode == 'gate':
        args.variants = list(GATE_VARIANTS)
    if args.mode == 'gate':
        bad = [v for v in args.variants if v not in GATE_VARIANTS]
        if bad:
            raise UsageError('gate mode has the variants base and patched, '
                             'not %s' % ' '.join(bad))
    if args.mode == 'mutants' and not args.variants_given and \
            not os.path.isdir(args.mutants_dir):
        raise UsageError('no mutants directory at %s' % args.mutants_dir)
    return args


def main(argv):
    try:
        args = parse_args(argv)
        return merge(args) if args.merge else single(args)
    except UsageError as e:
        print('error: %s' % e, file=sys.stderr)
        print('usage: ' + USAGE, file=sys.stderr)
        return 2
    except Refused as e:
        print('error: refusing to merge: %s' % e, file=sys.stderr)
        return 2
    except OSError as e:
        print('error: %s' % e, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
