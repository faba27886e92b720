# SPDX-License-Identifier: GPL-2.0
"""The table writer: the Markdown that summarize.py prints and writes
(summary.md, mutants.md), from what the rules decided.  It judges
nothing: every cell's text is a reading of a rules.Cell or
rules.MutantCell.  The last line is "N passed, N failed", one per
expectation, which CI reads.
"""

from __future__ import annotations

from typing import List, Optional

from verdict.model import row_label
from verdict.records import cell_text
from verdict.rules import ABI_KILLER, Cell, MutantCell, MutantsVerdict, some


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


def notes_lines(notes: List[str]) -> List[str]:
    return [''] + ['- ' + n for n in notes] if notes else []


def gate_text(cells: List[Cell], variants: List[str], rows: List[str],
              tree: Optional[str], notes: List[str],
              kind: str = 'ours') -> str:
    table = []
    for variant in variants:
        table.append([variant] + [cell_text(c) for c in cells
                                  if c.variant == variant])
    lines = [title('gate', 'variant x row', tree), '', RULES[kind], '']
    lines += md_table(['variant'] + [row_label(r) for r in rows], table)
    details = ['- %s/%s: %s: %s' % (c.variant, c.label, c.status, c.reason)
               for c in cells if c.result.row is not None]
    if details:
        lines += ['', 'Results (<variant>/<row>.*):', ''] + details
    lines += notes_lines(notes)
    lines += ['', closing([c.ok for c in cells])]
    return '\n'.join(lines) + '\n'


# -- mutants ----------------------------------------------------------------

def ours_text(cell: MutantCell) -> str:
    """What our suite (with glibc and the ABI diff) did to the mutant."""
    if cell.status == 'missing':
        return 'MISSING: %s' % cell.why
    if cell.status == 'error':
        return 'ERROR: %s' % cell.why
    if cell.killed:
        return 'killed by ' + some(cell.killers)
    if cell.timeouts:
        return 'NOT KILLED, only timeouts: ' + some(cell.our_programs)
    if cell.status == 'fail':
        return 'SURVIVED (only upstream failed)'
    return 'SURVIVED'


def failed_text(cell: MutantCell, failed: List[str]) -> str:
    """The failed tests of another column (upstream, glibc)."""
    if cell.status in ('missing', 'error'):
        return cell.status
    return some(failed) or '-'


def held_text(cell: MutantCell) -> str:
    """The cell of our suite's table: what killed it, or why that was
    not as expected."""
    if cell.must_kill:
        return ours_text(cell)
    if cell.killed:
        return 'killed, but declared to survive here: ' + some(cell.killers)
    if not cell.ok:
        return ours_text(cell) + ' (declared to survive here)'
    return 'survives, as expected'


def mutants_text(verdict: MutantsVerdict) -> str:
    rows = verdict.rows
    abi = verdict.abi
    heads, ours, abis, glibcs, ups, alone = [], [], [], [], [], []
    for m in verdict.mutants:
        head = '- **%s**: %s. Breaks: %s' % (m.variant, m.patch.subject,
                                             m.patch.breaks)
        if m.patch.killed_on:
            head += '. Killed-on: %s' % ' '.join(m.patch.killed_on)
            absent = [r for r in m.patch.killed_on if r not in rows]
            if absent:
                head += ' (not run here: %s)' % ' '.join(absent)
        heads.append(head)
        cells = [m.cells[r] for r in rows]
        ours.append([m.variant] + [held_text(c) for c in cells])
        abis.append([m.variant] + [c.abi.text if c.abi else '-'
                                   for c in cells])
        glibcs.append([m.variant] + [failed_text(c, c.glibc)
                                     for c in cells])
        ups.append([m.variant] + [failed_text(c, c.upstream)
                                  for c in cells])
        where = [row_label(r) for r in rows
                 if m.cells[r].must_kill and m.cells[r].glibc_alone]
        if where:
            alone.append('%s (%s)' % (m.variant, ' '.join(where)))
    must = verdict.must()

    def rate(n):
        return '%d/%d (%.0f%%)' % (n, len(must),
                                   100.0 * n / len(must) if must else 0)
    header = ['mutant'] + [row_label(r) for r in rows]
    lines = [title('mutants', 'mutant x row', verdict.tree), ''] + heads
    lines += ['', '## Our suite (killing tests%s)' % (
        ', and %s: the ABI diff against %s' % (ABI_KILLER, abi.declared)
        if abi is not None else ''), '']
    lines += md_table(header, ours)
    lines += ['', 'Kill rate, our suite: ' +
              rate(sum(c.killed for c in must)), '']
    if abi is not None:
        lines += ['## ABI diff (%s -> mutant) against %s' % (
            abi.base, abi.declared), '']
        lines += md_table(header, abis)
        lines += ['', 'Kill rate, abi-diff: ' +
                  rate(sum(ABI_KILLER in c.killers for c in must)), '']
    lines += ['## glibc\'s posix_spawn (consumers/glibc: failed rows)', '']
    lines += md_table(header, glibcs)
    lines += ['', 'Kill rate, glibc: ' +
              rate(sum(c.glibc_killed for c in must)),
              'Killed by glibc alone: ' + (', '.join(alone) or 'none'), '']
    lines += ['## Upstream suite (failed programs/subtests)', '']
    lines += md_table(header, ups)
    lines += ['', 'Kill rate, upstream suite: ' +
              rate(sum(c.upstream_killed for c in must)), '']
    lines += ['## Our tests that no mutant failed', '']
    if verdict.kind == 'ours':
        lines += ['- ' + t for t in verdict.unkilled] or ['none']
    else:
        # They test our flag, not this change: no defect when unfailed.
        lines += ['not listed: the change gated is not ours (%d of our '
                  'tests ran)' % len(verdict.ran)]
    lines += notes_lines(verdict.notes)
    lines += ['', closing(verdict.ok)]
    return '\n'.join(lines) + '\n'


def trees_tail(mode: str, trees: List[str], notes: List[str],
               end: str) -> str:
    """The end of a merge over trees, after each tree's own table."""
    lines = ['# clone3 %s on the trees %s' % (mode, ' '.join(trees))]
    lines += notes_lines(notes)
    lines += ['', end]
    return '\n'.join(lines) + '\n'
