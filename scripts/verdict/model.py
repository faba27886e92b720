# SPDX-License-Identifier: GPL-2.0
"""The result tree: a Run has rows (variant x arch[/abi]), a Row its
document and programs, a Program its subtests; every status is a Status.

A Row comes from a console log (console.read_row) or from its JSON
record (Row.from_json, what results.load_result reads back).  Nothing
here judges (rules.py) or writes (table.py, junit.py, records.py).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

NATIVE = 'native'
COUNT_KEYS = ('pass', 'fail', 'skip', 'timeout')
NAME_RE = re.compile(r'^[A-Za-z0-9_.+-]+$')
# An ABI word: no '-', which separates it from the arch in a row name.
ABI_RE = re.compile(r'^[A-Za-z0-9_.+]+$')


class Status(enum.Enum):
    """Of a subtest (pass, fail, skip), a program (and timeout) or a row
    of the matrix (pass, fail, error)."""
    PASS = 'pass'
    FAIL = 'fail'
    SKIP = 'skip'
    TIMEOUT = 'timeout'
    ERROR = 'error'


# What a row's record may say of the row itself.
ROW_STATUSES = (Status.PASS, Status.FAIL, Status.ERROR)


def row_label(name: str) -> str:
    """x86_64 -> x86_64, x86_64-ia32 -> x86_64/ia32 (arch names have no
    '-', so the first one separates the compat ABI)."""
    arch, sep, abi = name.partition('-')
    return '%s/%s' % (arch, abi) if sep else name


@dataclass
class Program:
    """One program of a document: its own result and its subtests.  Read
    from a record, suite and result are None where the record has
    none."""
    name: str
    number: Optional[int]
    suite: Optional[str]        # ours, upstream or a consumer's (glibc)
    result: Optional[Status]
    detail: str
    subtests: Dict[str, Status]
    duration_ms: Optional[int]
    output: List[str] = field(default_factory=list)
    diag: Dict[str, List[str]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, name: str, data: Dict[str, Any]) -> 'Program':
        """Raises ValueError on a status that is none of Status."""
        result = data.get('result')
        return cls(name=name, number=data.get('number'),
                   suite=data.get('suite'),
                   result=None if result is None else Status(result),
                   detail=data.get('detail') or '',
                   subtests={k: Status(v) for k, v in
                             data.get('subtests', {}).items()},
                   duration_ms=data.get('duration_ms'))

    def failed_subtests(self) -> List[str]:
        return [s for s, r in self.subtests.items() if r == Status.FAIL]

    @property
    def failed(self) -> bool:
        """Failed or timed out."""
        return self.result in (Status.FAIL, Status.TIMEOUT)


@dataclass
class Counts:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    timeout: int = 0
    subtests_pass: int = 0
    subtests_fail: int = 0
    subtests_skip: int = 0

    @classmethod
    def of(cls, programs: Dict[str, Program]) -> 'Counts':
        c = cls()
        for prog in programs.values():
            if prog.result == Status.PASS:
                c.passed += 1
            elif prog.result == Status.FAIL:
                c.failed += 1
            elif prog.result == Status.SKIP:
                c.skipped += 1
            else:
                c.timeout += 1
            for res in prog.subtests.values():
                if res == Status.PASS:
                    c.subtests_pass += 1
                elif res == Status.FAIL:
                    c.subtests_fail += 1
                else:
                    c.subtests_skip += 1
        return c

    def programs(self) -> Dict[str, int]:
        return dict(zip(COUNT_KEYS, (self.passed, self.failed, self.skipped,
                                     self.timeout)))


def fmt_counts(c: Dict[str, int]) -> str:
    return ' '.join('%s=%d' % (k, c[k]) for k in COUNT_KEYS)


@dataclass
class Row:
    """One row of the matrix (the native or the compat document of one
    boot, of one variant): its status, why, and its programs.  document
    is the console.Document it was read from (None when read back from
    a record, or when the console had none)."""
    variant: str
    arch: str
    abi: str                    # native, ia32, arm32...
    tree: Optional[str]
    status: Status
    reason: Optional[str]
    document: Any
    programs: Dict[str, Program]
    counts: Counts
    timed_out: bool
    kernel_messages: List[str]

    @property
    def name(self) -> str:
        """The row's file name: x86_64, x86_64-ia32."""
        return self.arch if self.abi == NATIVE else \
            '%s-%s' % (self.arch, self.abi)

    @property
    def label(self) -> str:
        """The row as people read it: x86_64, x86_64/ia32."""
        return row_label(self.name)

    @classmethod
    def from_json(cls, variant: str, name: str,
                  data: Dict[str, Any]) -> 'Row':
        """A row's record (records.row_record) read back.  Raises
        ValueError (or TypeError, AttributeError) when it is not one."""
        status = Status(data['status'])
        if status not in ROW_STATUSES:
            raise ValueError('row status %s' % status.value)
        programs = {k: Program.from_json(k, p)
                    for k, p in data['programs'].items()}
        arch, sep, abi = name.partition('-')
        return cls(variant=variant, arch=arch, abi=abi if sep else NATIVE,
                   tree=data.get('tree'), status=status,
                   reason=data.get('reason'), document=None,
                   programs=programs, counts=Counts.of(programs),
                   timed_out=bool(data.get('timed_out')),
                   kernel_messages=list(data.get('kernel_messages') or []))


@dataclass
class Result:
    """What a run holds for one (variant, row): the Row, or why there is
    none (the record is missing, unreadable or malformed)."""
    variant: str
    row_name: str
    path: str
    row: Optional[Row] = None
    why: Optional[str] = None

    @property
    def status(self) -> str:
        return self.row.status.value if self.row else 'missing'

    @property
    def xml_path(self) -> str:
        return self.path[:-len('.json')] + '.xml'

    @property
    def ktap_path(self) -> str:
        return self.path[:-len('.json')] + '.ktap'


@dataclass
class Run:
    """A run of the matrix (one results directory, or the merge of
    shards): its tree, and the Result of each (variant, row) asked for,
    read when first asked."""
    tree: Optional[str]
    lookup: Callable[[str, str], Result]

    def result(self, variant: str, row: str) -> Result:
        return self.lookup(variant, row)

    def row(self, variant: str, row: str) -> Optional[Row]:
        return self.lookup(variant, row).row
