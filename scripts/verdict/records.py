# SPDX-License-Identifier: GPL-2.0
"""The JSON writer: a row's record (<variant>/<row>.json, read back by
model.Row.from_json), summary.json of a gate and mutants.json of a
mutants run.  It writes what the rules decided and judges nothing.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from verdict.model import Counts, Program, Row
from verdict.rules import GLIBC, Cell, MutantsVerdict


def dumps(record: Any) -> str:
    """The text of every JSON file the gate writes."""
    return json.dumps(record, indent=2) + '\n'


def program_record(prog: Program) -> dict:
    return {'suite': prog.suite, 'result': prog.result.value,
            'detail': prog.detail,
            'subtests': {k: v.value for k, v in prog.subtests.items()},
            'number': prog.number, 'duration_ms': prog.duration_ms}


def counts_record(counts: Counts) -> Dict[str, int]:
    out = counts.programs()
    out.update(subtests_pass=counts.subtests_pass,
               subtests_fail=counts.subtests_fail,
               subtests_skip=counts.subtests_skip)
    return out


def row_record(row: Row, log_name: str) -> dict:
    doc = row.document
    return {
        'variant': row.variant,
        'arch': row.arch,
        'abi': row.abi,
        'row': row.label,
        'row_name': row.name,
        'tree': row.tree,
        'status': row.status.value,
        'reason': row.reason,
        'guest_arch': doc.begin.arch if doc else None,
        'timed_out': row.timed_out,
        'log': log_name,
        'programs': {k: program_record(p) for k, p in row.programs.items()},
        'counts': counts_record(row.counts),
        # timestamped kernel lines, and any other line inside the
        # document
        'kernel_messages': row.kernel_messages,
    }


def cell_text(cell: Cell) -> str:
    """A gate cell as the table shows it."""
    return 'as expected' if cell.ok else 'UNEXPECTED: ' + str(cell.why)


def cell_record(cell: Cell) -> dict:
    return {'variant': cell.variant, 'row': cell.row,
            'label': cell.label, 'as_expected': cell.ok,
            'text': cell_text(cell), 'status': cell.status,
            'reason': cell.reason}


def gate_record(cells: List[Cell], variants: List[str], rows: List[str],
                tree: Optional[str], notes: List[str], closing: str,
                extra: Optional[dict] = None) -> dict:
    record = {'mode': 'gate', 'tree': tree, 'variants': variants,
              'rows': rows, 'cells': [cell_record(c) for c in cells],
              'notes': notes, 'closing': closing}
    record.update(extra or {})
    return record


def mutants_record(verdict: MutantsVerdict) -> Dict[str, dict]:
    """mutant -> its patch's header and, per row, what failed there,
    whether that killed it and whether that was expected."""
    record: Dict[str, dict] = {}
    for m in verdict.mutants:
        arches = {}
        for row, cell in m.cells.items():
            entry = {'status': cell.status, 'killed': cell.killed,
                     'upstream_killed': cell.upstream_killed,
                     'glibc_killed': cell.glibc_killed,
                     'ours': cell.ours, 'upstream': cell.upstream,
                     GLIBC: cell.glibc,
                     'expected': 'killed' if cell.must_kill else 'survives',
                     'as_expected': cell.ok}
            if verdict.abi is not None:
                entry.update(killers=cell.killers,
                             abi_diff=cell.abi.problems if cell.abi
                             else None)
            arches[row] = entry
        record[m.variant] = {'subject': m.patch.subject,
                             'breaks': m.patch.breaks,
                             'killed_on': m.patch.killed_on,
                             'arches': arches}
    return record
