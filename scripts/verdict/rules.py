# SPDX-License-Identifier: GPL-2.0
"""The one home of the gate's rules: what a row's status is (judge, from
its console), and what each variant must show, held against the rows of
a run (gate_cells: base and patched, or another change than ours;
judge_mutants: every mutant).  What is decided here is data (Cell,
MutantCell, MutantsVerdict): table.py, junit.py and records.py write it
and decide nothing.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

import abi_diff
from verdict.console import (Console, Document, pick_document, quote,
                             row_document)
from verdict.model import (NAME_RE, NATIVE, Counts, Program, Result, Row,
                           Run, Status, fmt_counts, row_label)


def some(items: List[str], n: int = 3) -> str:
    """At most n items, then how many more."""
    shown = items[:n] + (['+%d more' % (len(items) - n)]
                         if len(items) > n else [])
    return ', '.join(shown)


# -- one row, from its console ----------------------------------------------

def failures(programs: Dict[str, Program]) -> List[str]:
    out = []
    for name, prog in programs.items():
        bad = prog.failed_subtests()
        if len(bad) > 3:
            bad = bad[:3] + ['+%d more' % (len(bad) - 3)]
        if bad:
            out.append('%s (%s)' % (name, ', '.join(bad)))
        elif prog.failed:
            out.append('%s (%s)' % (name, prog.detail or prog.result.value))
    return out


def judge(console: Console, doc: Optional[Document], abi: Optional[str],
          last_row: bool, timed_out: bool, programs: Dict[str, Program],
          counts: Counts) -> Tuple[Status, str]:
    """The verdict of one row: doc is its document (None when absent), abi
    the compat ABI asked for (None: the native row), last_row whether the
    guest should have powered off right after this document."""
    err = Status.ERROR
    what = 'the %s document' % abi if abi else 'the document'
    not_run = console.not_run()
    if not_run:
        return err, not_run
    # A panic after this document ended belongs to the next one, unless
    # the guest should have powered off here.
    panic = console.panic()
    if panic and (last_row or doc is None or doc.end is None or
                  panic.no < doc.end.line):
        where = ''
        if doc and doc.last:
            where = ' after document line %d %s' % (doc.last.no,
                                                    quote(doc.last.text, 60))
        elif abi:
            where = ' before %s began' % what
        return err, 'kernel panic at log line %d%s: %s' % (
            panic.no, where, quote(panic.text))
    if doc is None:
        return err, missing(console, abi, timed_out)
    if abi and doc.abi != abi and doc.bail:
        return err, 'init bailed out: %s' % quote(doc.bail)
    if abi and doc.abi != abi:
        return err, 'the compat document says abi=%s, expected abi=%s ' \
                    '(log line %d)' % (doc.abi, abi, doc.begin.line)
    if doc.end is None and doc.next_begin is None:
        if doc.bail:
            return err, 'init bailed out: %s' % quote(doc.bail)
        cause = 'host timeout fired' if timed_out else \
            'no CLONE3-GATE-END marker'
        return err, '%s: %s cut off after log line %d %s' % (
            cause, 'document' if not abi else what, doc.last.no,
            quote(doc.last.text))
    if doc.end is None:
        nb = doc.next_begin
        if nb.abi == doc.abi:
            return err, 'init started twice (second CLONE3-GATE-BEGIN at ' \
                        'log line %d)' % nb.line
        return err, 'no CLONE3-GATE-END before the abi=%s document began ' \
                    'at log line %d' % (nb.abi, nb.line)
    reason = doc.structure_error()
    if reason is None and doc.end.counts != counts.programs():
        reason = 'CLONE3-GATE-END counts %s differ from the results %s' % (
            fmt_counts(doc.end.counts), fmt_counts(counts.programs()))
    if reason:
        return err, reason
    if timed_out and last_row:
        return err, 'host timeout fired after CLONE3-GATE-END: the guest ' \
                    'did not power off'
    bad = failures(programs)
    if bad:
        return Status.FAIL, 'failed: ' + '; '.join(bad)
    return Status.PASS, '%d programs: %d passed, %d skipped; %d subtests ' \
        'passed, %d skipped' % (len(programs), counts.passed,
                                counts.skipped, counts.subtests_pass,
                                counts.subtests_skip)


def missing(console: Console, abi: Optional[str], timed_out: bool) -> str:
    """Why a row's document is not in the log."""
    native = pick_document(console.documents(), None)
    if abi is None or native is None:
        if timed_out:
            return 'host timeout fired before CLONE3-GATE-BEGIN: the ' \
                   'guest never started init'
        return 'no CLONE3-GATE-BEGIN marker: boot failed before init ' \
               'printed anything'
    if timed_out:
        return 'host timeout fired before the %s document began ' \
               '(CLONE3-GATE-BEGIN abi=%s)' % (abi, abi)
    if native.end is None:
        return 'no %s document: the native document before it did not ' \
               'end' % abi
    return 'no CLONE3-GATE-BEGIN abi=%s after the native document (log ' \
           'line %d): init did not run /clone3-compat' % (
               abi, native.end.line)


def read_row(console: Console, variant: str, arch: str, abi: Optional[str],
             tree: Optional[str], suite_dir: str, last_row: bool,
             timed_out: bool) -> Row:
    """One row of the matrix from a console log, judged: abi None for the
    native document, else the compat document of that ABI."""
    doc, programs = row_document(console, abi, suite_dir)
    counts = Counts.of(programs)
    status, reason = judge(console, doc, abi, last_row, timed_out,
                           programs, counts)
    others = doc.others if doc else []
    messages = [t for _, t in sorted(console.kernel + others)][:50]
    return Row(variant=variant, arch=arch, abi=abi or NATIVE, tree=tree,
               status=status, reason=reason, document=doc,
               programs=programs, counts=counts, timed_out=timed_out,
               kernel_messages=messages)


# -- what base and patched must show ----------------------------------------

# A subtest needs the flag when one dot-separated component of its
# harness name (fixture[.variant].test) is one of these words, or starts
# with one of them and '_'.  The suite names its tests so (Documentation/
# gate.md, "Verdicts"); the rule is here and nowhere else.
FLAG_WORDS = ('flag',)


def needs_flag(subtest: str) -> bool:
    """flag_abi.alone_accepted, spawn.flag.resets_caught_handlers_before_
    exec, flag_child.fork.resets_every_handler need the flag;
    spawn.classic.x and global.flagged do not."""
    return any(part == w or part.startswith(w + '_')
               for part in subtest.split('.') for w in FLAG_WORDS)


# The suite of consumers/glibc's programs (console.program_suite).
GLIBC = 'glibc'


def failed_items(row: Row, suite: str) -> Tuple[List[str], List[str]]:
    """Failed subtests and programs of one suite ('ours', 'upstream',
    'glibc').

    Returns (subtests, programs): "program:subtest" for every failed
    subtest, and "program (detail)" for every failed or timed out program
    that no failed subtest explains.
    """
    subs, progs = [], []
    for name, prog in sorted(row.programs.items(), key=lambda kv: kv[0]):
        if prog.suite != suite:
            continue
        bad = prog.failed_subtests()
        subs += ['%s:%s' % (name, s) for s in bad]
        if prog.failed and not bad:
            progs.append('%s (%s)' % (name, prog.detail or
                                      prog.result.value))
    return subs, progs


def expect_base(row: Row) -> Optional[str]:
    """-> None when as expected, else the reason."""
    if row.status != Status.FAIL:
        return '%s, expected fail: %s' % (row.status.value, row.reason)
    subs, progs = failed_items(row, 'ours')
    if progs:
        return 'our programs failed outside a flag test: ' + \
            ', '.join(progs)
    if not subs:
        return 'none of our subtests failed (only upstream ones)'
    other = [s for s in subs if not needs_flag(s.split(':', 1)[1])]
    if other:
        return 'subtests that do not need the flag failed: ' + \
            ', '.join(other)
    return expect_base_glibc(row)


def expect_base_glibc(row: Row) -> Optional[str]:
    """glibc's posix_spawn on a kernel without the flag: its fallback, so
    its flag_* rows fail, and only those (every spawn still works)."""
    subs, progs = failed_items(row, GLIBC)
    if progs:
        return 'glibc failed outside its rows: ' + ', '.join(progs)
    other = [s for s in subs if not needs_flag(s.split(':', 1)[1])]
    if other:
        return 'glibc rows that do not need the flag failed: ' + \
            ', '.join(other)
    took = ['%s:%s' % (name, sub)
            for name, prog in row.programs.items()
            if prog.suite == GLIBC
            for sub, r in prog.subtests.items()
            if needs_flag(sub) and r == Status.PASS]
    if took:
        return 'glibc took the flag\'s path on a kernel without it: ' + \
            ', '.join(took)
    return None


def expect_patched(row: Row) -> Optional[str]:
    if row.status != Status.PASS:
        return '%s: %s' % (row.status.value, row.reason)
    return None


# Another change than ours (kind 'other'): base is the reference,
# whatever it passed, and patched must pass all of it.
def expect_reference(row: Row) -> Optional[str]:
    """Base of another change: any complete run is the reference."""
    if row.status == Status.ERROR:
        return 'error: %s' % row.reason
    return None


def passed_items(row: Row) -> List[str]:
    """Every program and subtest (of every suite) that passed."""
    out = []
    for name, prog in sorted(row.programs.items(), key=lambda kv: kv[0]):
        if prog.result == Status.PASS:
            out.append(name)
        out += ['%s:%s' % (name, sub) for sub, r in
                sorted(prog.subtests.items(), key=lambda kv: kv[0])
                if r == Status.PASS]
    return out


def expect_no_regression(row: Row, base: Optional[Row]) -> Optional[str]:
    """Patched of another change: a complete run, and every program and
    subtest that passed on base passes here."""
    if row.status == Status.ERROR:
        return 'error: %s' % row.reason
    if base is None:
        return 'no base result to hold it against'
    now = set(passed_items(row))
    lost = [i for i in passed_items(base) if i not in now]
    if lost:
        return 'passed on base, not here: ' + ', '.join(lost[:5]) + (
            ' (+%d more)' % (len(lost) - 5) if len(lost) > 5 else '')
    return None


@dataclass
class Cell:
    """One expectation of the gate: a (variant, row) of the matrix, and
    why it was not met (None: it was)."""
    variant: str
    row: str
    why: Optional[str]
    result: Result = field(repr=False)

    @property
    def ok(self) -> bool:
        return self.why is None

    @property
    def label(self) -> str:
        return row_label(self.row)

    @property
    def status(self) -> str:
        """pass, fail, error, missing"""
        return self.result.status

    @property
    def reason(self) -> Optional[str]:
        """The row's own reason."""
        return self.result.row.reason if self.result.row else None


def gate_cells(run: Run, variants: List[str], rows: List[str],
               kind: str = 'ours') -> List[Cell]:
    """KIND ours: base must fail in the flag's tests only, patched pass;
    other: base any complete run, patched passes all base passed."""
    cells = []
    for variant in variants:
        for name in rows:
            res = run.result(variant, name)
            row = res.row
            if row is None:
                why = res.why
            elif kind != 'ours' and variant == 'base':
                why = expect_reference(row)
            elif kind != 'ours':
                why = expect_no_regression(row, run.row('base', name))
            elif variant == 'base':
                why = expect_base(row)
            else:
                why = expect_patched(row)
            cells.append(Cell(variant, name, why, res))
    return cells


# -- what a mutant must show ------------------------------------------------

ABI_KILLER = 'abi-diff'
# The probe's own result only says that it ran: abi-diff judges it.
ABI_PROBE_TEST = 'clone3_abi_probe:abi_probe'


class NoMutants(Exception):
    """No mutant to hold against: a usage error of the caller."""


def timed_out(row: Row, item: str) -> bool:
    prog = row.programs.get(item.split(' (', 1)[0])
    return prog is not None and prog.result == Status.TIMEOUT


def failed_on(row: Optional[Row]) -> Set[str]:
    """Every failed "program:subtest" and program (any suite) of a run."""
    out: Set[str] = set()
    for name, prog in (row.programs if row else {}).items():
        if prog.failed:
            out.add(name)
        out |= {'%s:%s' % (name, sub) for sub in prog.failed_subtests()}
    return out


@dataclass
class AbiCell:
    """The ABI diff of a mutant's row: problems None when none could be
    made, [] when as declared; text says what was seen."""
    problems: Optional[List[str]]
    text: str


@dataclass
class MutantCell:
    """One (mutant, row): what failed there, by suite, and whether that
    kills the mutant.  status is pass, fail, error or missing; why the
    row's reason (error) or why it is missing."""
    status: str
    why: Optional[str] = None
    ours: List[str] = field(default_factory=list)
    our_programs: List[str] = field(default_factory=list)
    upstream: List[str] = field(default_factory=list)
    glibc: List[str] = field(default_factory=list)
    killers: List[str] = field(default_factory=list)
    killed: bool = False
    upstream_killed: bool = False
    glibc_killed: bool = False
    timeouts: bool = False
    abi: Optional[AbiCell] = None
    must_kill: bool = True
    ok: bool = False

    @property
    def glibc_alone(self) -> bool:
        """Killed by glibc's rows and nothing else."""
        return self.glibc_killed and set(self.killers) <= set(self.glibc)


def mutant_cell(row: Row, also_on_base: Optional[Set[str]] = None) -> \
        MutantCell:
    """What failed on a mutant's row.  A failed glibc row kills as a
    failed test of ours does.  ALSO_ON_BASE (another change than ours:
    failed_on of base's run) is left out: what failed before the change
    proves nothing about a mutant of it."""
    cell = MutantCell(row.status.value)
    if row.status == Status.ERROR:
        cell.why = row.reason
        return cell
    subs, progs = failed_items(row, 'ours')
    usubs, uprogs = failed_items(row, 'upstream')
    gsubs, gprogs = failed_items(row, GLIBC)
    if also_on_base:
        def new(items):
            return [i for i in items
                    if i not in also_on_base and
                    i.split(' (', 1)[0] not in also_on_base]
        subs, progs, usubs, uprogs, gsubs, gprogs = (
            new(x) for x in (subs, progs, usubs, uprogs, gsubs, gprogs))
    cell.ours, cell.upstream = subs + progs, usubs + uprogs
    cell.glibc, cell.our_programs = gsubs + gprogs, progs
    fail = row.status == Status.FAIL
    cell.upstream_killed = fail and bool(
        usubs + [p for p in uprogs if not timed_out(row, p)])
    gkillers = gsubs + [p for p in gprogs if not timed_out(row, p)]
    cell.glibc_killed = fail and bool(gkillers)
    # A program that hit init's timeout proves nothing: not a kill.
    killers = subs + [p for p in progs if not timed_out(row, p)] + gkillers
    cell.killers = killers
    cell.killed = fail and bool(killers)
    cell.timeouts = fail and bool(progs) and not killers
    return cell


def add_abi_kill(cell: MutantCell, abi: AbiCell) -> None:
    """An ABI difference from the declaration kills a mutant whose run
    completed, like a failed test of ours."""
    cell.abi = abi
    if not abi.problems or cell.status not in ('pass', 'fail'):
        return
    cell.killers = cell.killers + [ABI_KILLER]
    cell.killed = True
    cell.timeouts = False


def hold(cell: MutantCell, must_kill: bool) -> None:
    """Whether a cell met its expectation: killed where it must be,
    else a complete run that nothing killed."""
    cell.must_kill = must_kill
    if must_kill:
        cell.ok = cell.killed
    else:
        cell.ok = not cell.killed and not cell.timeouts and \
            cell.status not in ('error', 'missing')


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


def mutant_list(mutants_dir: str, variants: Optional[List[str]]) -> \
        List[Tuple[str, Optional[str]]]:
    """-> list of (variant name, patch path or None), of VARIANTS when
    given, else of every patch of MUTANTS_DIR.  mutants.sh runs the patch
    <dir>/<stem>.patch as the variant mutant-<stem>."""
    patches = sorted(glob.glob(os.path.join(mutants_dir, '*.patch')))
    by_stem = {os.path.basename(p)[:-len('.patch')]: p for p in patches}
    if variants is not None:
        return [(v, by_stem.get(v[len('mutant-'):]) if
                 v.startswith('mutant-') else None) for v in variants]
    if not patches:
        raise NoMutants('no mutant patches (*.patch) in %s' % mutants_dir)
    return [('mutant-' + stem, path) for stem, path in by_stem.items()]


def our_subtests(row: Row) -> Set[str]:
    """Every subtest of our suite that ran, as "program:subtest"."""
    return {'%s:%s' % (name, sub)
            for name, prog in row.programs.items()
            if prog.suite == 'ours'
            for sub in prog.subtests}


@dataclass
class AbiCheck:
    """The ABI diff as a killer: the declaration (its path as given),
    the variant that is its reference, and each row's reference probe
    (None: no base there)."""
    declared: str
    decl: abi_diff.Declaration
    base: str = 'base'
    bases: Dict[str, Optional[abi_diff.Probe]] = field(default_factory=dict)


def abi_base(run: Run, abi: AbiCheck, variants: List[str], row: str) -> \
        Tuple[Optional[abi_diff.Probe], List[str]]:
    """A row's base probe lines for the ABI diff, and notes.  A value of
    an input the declaration says nothing about that most mutants (more
    than half, 3 or more) show alike, and otherwise than base, is no
    mutant's fault (each breaks one thing): base came from another kernel
    (a gate run before a configuration change).  Base is taken to read as
    most mutants there, and a note says so."""
    try:
        base = abi_diff.read_probe(run.result(abi.base, row).ktap_path)
    except abi_diff.BadInput:
        return None, []
    seen: List[abi_diff.Probe] = []
    for v in variants:
        res = run.result(v, row)
        if res.row is None or res.row.status == Status.ERROR:
            continue
        try:
            probe = abi_diff.read_probe(res.ktap_path)
        except abi_diff.BadInput:
            continue
        seen.append(probe)
    if len(seen) < 3:
        return base, []
    fixed: abi_diff.Probe = {}
    stale = []
    for k, obs in base.items():
        fixed[k] = obs
        if abi.decl.touches(k):
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
                   'make gate again)' % (abi.base, row, len(seen),
                                         len(stale), some(stale, 2))]


def abi_cell(abi: AbiCheck, variant: str, row: str, res: Result) -> \
        Optional[AbiCell]:
    """The ABI diff of a mutant's row against the declaration, base ->
    mutant (None: the row did not run to the end)."""
    if res.row is None or res.row.status == Status.ERROR:
        return None
    try:
        n = abi_diff.read_probe(res.ktap_path, need=False)
    except abi_diff.BadInput as e:
        return AbiCell(None, 'no diff: %s' % e)
    b = abi.bases.get(row)
    if b is None:
        # No base run here (a mutants-only job): the flag's inputs
        # against their twins, which needs no base.
        diff = abi_diff.compare_alone(row, n, abi.decl, variant)
        if diff.ok:
            return AbiCell([], 'as declared (flag inputs only: no %s)' %
                           abi.base)
        return AbiCell(diff.problems, '(no %s) %s' % (
            abi.base, some(diff.problems, 1)))
    diff = abi_diff.compare(row, b, n, abi.decl, abi.base, variant)
    if diff.ok:
        return AbiCell([], 'as declared')
    bad = [g for g in diff.groups if g['verdict'] != 'declared']
    text = '%s: %s %s' % (bad[0]['label'], bad[0]['verdict'],
                          bad[0]['seen']) if bad else diff.problems[0]
    if len(diff.problems) > 1:
        text += ' (+%d more)' % (len(diff.problems) - 1)
    return AbiCell(diff.problems, text)


@dataclass
class Mutant:
    variant: str
    patch: MutantPatch
    cells: Dict[str, MutantCell]        # row -> cell, in the run's order


@dataclass
class MutantsVerdict:
    """Every mutant on every row, and what the rates count (the rows
    where a mutant must be killed)."""
    tree: Optional[str]
    rows: List[str]
    kind: str
    abi: Optional[AbiCheck]
    mutants: List[Mutant]
    notes: List[str]
    ran: Set[str]                   # our subtests that ran
    unkilled: List[str]             # ... and that no mutant failed

    def must(self) -> List[MutantCell]:
        return [c for m in self.mutants for c in m.cells.values()
                if c.must_kill]

    @property
    def ok(self) -> List[bool]:
        return [c.ok for m in self.mutants for c in m.cells.values()]


def judge_mutants(run: Run, rows: List[str], mutants: List[Tuple[
        str, Optional[str]]], kind: str, abi: Optional[AbiCheck],
                  notes: List[str], base: str = 'base') -> MutantsVerdict:
    """Every mutant of MUTANTS ((variant, patch path)) on every row:
    killed by our suite (a failed test of ours or of glibc, or the ABI
    diff) where its patch's Killed-on: says (everywhere without one),
    and a complete run that nothing killed elsewhere.  BASE is the
    variant a mutant of another change than ours is held against."""
    ran: Set[str] = set()
    failed_somewhere: Set[str] = set()
    if abi is not None:
        names = [v for v, _ in mutants]
        for row in rows:
            abi.bases[row], more = abi_base(run, abi, names, row)
            notes = notes + more
    out = []
    for variant, path in mutants:
        patch = read_patch(path, variant)
        cells: Dict[str, MutantCell] = {}
        for row in rows:
            res = run.result(variant, row)
            if res.row is None:
                cell = MutantCell('missing', res.why)
            else:
                cell = mutant_cell(res.row, failed_on(
                    run.row(base, row))
                    if kind != 'ours' else None)
                ran |= our_subtests(res.row)
                failed_somewhere |= set(cell.ours)
            if abi is not None:
                add_abi_kill(cell, abi_cell(abi, variant, row, res) or
                             AbiCell(None, '-'))
            hold(cell, patch.killed_on is None or row in patch.killed_on)
            cells[row] = cell
        out.append(Mutant(variant, patch, cells))
    unkilled = sorted(ran - failed_somewhere -
                      ({ABI_PROBE_TEST} if abi is not None else set()))
    return MutantsVerdict(run.tree, rows, kind, abi, out, notes, ran,
                          unkilled)
