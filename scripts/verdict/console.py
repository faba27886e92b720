# SPDX-License-Identifier: GPL-2.0
"""Read a guest console log: the KTAP documents that the gate's init printed
between CLONE3-GATE-BEGIN and CLONE3-GATE-END, one per ABI (the native
suite from /clone3, then the compat suite from /clone3-compat), into the
rows of the result tree (model.Row); rules.judge gives each its status.

What was read are records (dataclasses), the parse state lives in the
Document being read, and nothing is kept in module globals.  Nothing
here writes files: ktap-report.py does that, through the writers.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, NamedTuple, Optional, Tuple

from verdict.model import COUNT_KEYS, NATIVE, Program, Status

# A printk timestamp, "[    1.234567] ".  Kernel lines end with a newline,
# so text before one on the same line is a fragment of a user-space line
# that continues on the next line.
KTIME_RE = re.compile(r'\[\s*\d+\.\d{6}\]')
ANSI_RE = re.compile(r'\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]')
CTRL_RE = re.compile(r'[\x00-\x08\x0b-\x1f\x7f]')
PANIC_RE = re.compile(r'Kernel panic - not syncing.*')
# Old logs have no abi= word: they are the native document.
BEGIN_RE = re.compile(r'CLONE3-GATE-BEGIN arch=(\S+)(?: abi=(\S+))? '
                      r'programs=(\d+)')
END_RE = re.compile(r'CLONE3-GATE-END pass=(\d+) fail=(\d+) skip=(\d+) '
                    r'timeout=(\d+)')
# Written by run-variant.sh and mutants.sh in place of a console log.
NO_BUILD_RE = re.compile(r'^gate: the \S+ kernel \(.*\) for \S+ did not '
                         r'build:\s*$')
NO_APPLY_RE = re.compile(r'^gate: mutant \S+ does not apply')
VERSION_RE = re.compile(r'^K?TAP version (\d+)\s*$')
PLAN_RE = re.compile(r'^1\.\.(\d+)\b')
RESULT_RE = re.compile(r'^(not )?ok\s+(\d+)\b\s*(.*)$')
DIRECTIVE_RE = re.compile(r'^(.*?)\s*#\s*(SKIP|TODO|XFAIL|error)\b\s*(.*)$',
                          re.IGNORECASE)
TOP_DIRECTIVE_RE = re.compile(r'^(\S+)(?:\s+#\s*(.*))?$')
RUN_RE = re.compile(r'^#\s+RUN\s+(\S+)')
STATUS_RE = re.compile(r'^#\s+(OK|FAIL|SKIP|XFAIL)\s')
PID_RE = re.compile(r'^\[\d+\]\s*')
DURATION_RE = re.compile(r'^# duration_ms=(\d+)\s*$')
NESTED = '    '


class LogLine(NamedTuple):
    no: int             # line number in the console log, from 1
    text: str


def quote(text: str, limit: int = 120) -> str:
    text = text.strip()
    if len(text) > limit:
        text = text[:limit - 3] + '...'
    return "'%s'" % text


@dataclass
class Console:
    """A console log, cleaned: lines is everything that is not a
    timestamped kernel message (with lines split by one joined again),
    kernel the kernel messages."""
    lines: List[LogLine]
    kernel: List[LogLine]

    @classmethod
    def from_bytes(cls, raw: bytes) -> 'Console':
        text = raw.decode('utf-8', errors='replace')
        lines: List[LogLine] = []
        kernel: List[LogLine] = []
        pending: Optional[LogLine] = None
        for no, line in enumerate(text.split('\n'), 1):
            line = CTRL_RE.sub('', ANSI_RE.sub('', line.replace('\r', '')))
            m = KTIME_RE.search(line)
            if m:
                kernel.append(LogLine(no, line[m.start():]))
                if m.start() > 0:
                    if pending:
                        pending = LogLine(pending.no,
                                          pending.text + line[:m.start()])
                    else:
                        pending = LogLine(no, line[:m.start()])
                continue
            if pending:
                line = pending.text + line
                no = pending.no
                pending = None
            lines.append(LogLine(no, line))
        if pending:
            lines.append(pending)
        while lines and lines[-1].text == '':
            lines.pop()
        return cls(lines, kernel)

    def panic(self) -> Optional[LogLine]:
        """The first 'Kernel panic' line, from user space or the kernel."""
        for no, text in sorted(self.lines + self.kernel):
            m = PANIC_RE.search(text)
            if m:
                return LogLine(no, m.group(0).strip())
        return None

    def not_run(self) -> Optional[str]:
        """Why no kernel was booted, when the scripts wrote that instead of
        a console log: the kernel did not build, or the mutant did not
        apply.  None for a console log."""
        body = [line.text for line in self.lines if line.text.strip()]
        if not body:
            return None
        if NO_BUILD_RE.match(body[0]):
            rest = [t.strip() for t in body[1:]]
            errors = [t for t in rest if 'error:' in t]
            first = (errors or rest or ['(no build output)'])[0]
            return 'kernel did not build: ' + shorten(first, 200)
        if NO_APPLY_RE.match(body[0]):
            last = body[-1].strip() if len(body) > 1 else '(no output)'
            return 'mutant does not apply: ' + shorten(last, 200)
        return None

    def documents(self) -> List['Document']:
        """Every document, in the order init printed them."""
        docs: List[Document] = []
        current: Optional[Document] = None
        for line in self.lines:
            m = BEGIN_RE.search(line.text)
            if m:
                begin = Begin(line.no, m.group(1), m.group(2) or NATIVE,
                              int(m.group(3)))
                if current is not None:
                    current.next_begin = begin
                current = Document(begin, last=LogLine(line.no,
                                                       line.text.strip()))
                docs.append(current)
                continue
            if current is None:
                continue
            if current.feed(line):
                current = None      # CLONE3-GATE-END
        return docs


def shorten(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit - 3] + '...'


@dataclass
class Begin:
    line: int
    arch: str           # uname machine of the guest
    abi: str            # native, or the compat ABI (ia32, arm32)
    programs: int


@dataclass
class End:
    line: int
    counts: Dict[str, int]


@dataclass
class TopResult:
    """One 'ok N program' line of the document, with what came before."""
    number: int
    name: str
    result: Status
    detail: str
    duration_ms: Optional[int]
    nested: List[str]


def program_result(not_ok: bool, directive: str) -> Status:
    if not_ok:
        if directive.upper().startswith('TIMEOUT'):
            return Status.TIMEOUT
        return Status.FAIL
    if directive.upper().startswith('SKIP'):
        return Status.SKIP
    return Status.PASS


@dataclass
class Document:
    """One KTAP document between the markers, as init printed it.  feed()
    takes the lines after CLONE3-GATE-BEGIN one by one."""
    begin: Begin
    end: Optional[End] = None
    version: Optional[int] = None
    plan: Optional[int] = None
    results: List[TopResult] = field(default_factory=list)
    ktap: List[str] = field(default_factory=list)
    last: Optional[LogLine] = None      # the last line of the document
    bail: Optional[str] = None
    next_begin: Optional[Begin] = None  # a BEGIN before this one's END
    repeated: Optional[int] = None      # log line of a second same-ABI doc
    others: List[LogLine] = field(default_factory=list)
    # parse state: the nested lines and duration of the next result
    _nested: List[str] = field(default_factory=list, repr=False)
    _ms: Optional[int] = field(default=None, repr=False)

    def feed(self, line: LogLine) -> bool:
        """Take one line; True when it was CLONE3-GATE-END."""
        m = END_RE.search(line.text)
        if m:
            self.end = End(line.no, dict(zip(COUNT_KEYS,
                                             map(int, m.groups()))))
            return True
        text = line.text
        if text.startswith(NESTED):
            self._nested.append(text[len(NESTED):])
        elif not self._top_level(text):
            self.others.append(line)
            return False
        self.ktap.append(text)
        self.last = LogLine(line.no, text.strip())
        return False

    def _top_level(self, line: str) -> bool:
        m = VERSION_RE.match(line)
        if m:
            self.version = int(m.group(1))
            return True
        m = PLAN_RE.match(line)
        if m:
            self.plan = int(m.group(1))
            return True
        m = DURATION_RE.match(line)
        if m:
            self._ms = int(m.group(1))
            return True
        if line.startswith('#'):
            return True
        if line.startswith('Bail out!'):
            self.bail = self.bail or line.strip()
            return True
        m = RESULT_RE.match(line)
        if not m:
            return False
        d = TOP_DIRECTIVE_RE.match(m.group(3).strip())
        name = d.group(1) if d else (m.group(3).strip() or '?')
        detail = (d.group(2) or '').strip() if d else ''
        self.results.append(TopResult(
            int(m.group(2)), name, program_result(bool(m.group(1)), detail),
            detail, self._ms, self._nested))
        self._nested, self._ms = [], None
        return True

    @property
    def abi(self) -> str:
        return self.begin.abi

    def structure_error(self) -> Optional[str]:
        """Why a document that has both markers is not well formed."""
        if self.repeated:
            return 'init started twice (second CLONE3-GATE-BEGIN abi=%s ' \
                   'at log line %d)' % (self.abi, self.repeated)
        if self.version is None:
            return "no 'KTAP version 1' line after CLONE3-GATE-BEGIN"
        if self.plan is None:
            return 'no plan line (1..N) in the document'
        if self.plan != self.begin.programs:
            return 'plan 1..%d does not match CLONE3-GATE-BEGIN ' \
                   'programs=%d' % (self.plan, self.begin.programs)
        if self.bail:
            return 'init bailed out: %s' % quote(self.bail)
        if self.plan == 0:
            return 'the run-list is empty: no program ran'
        if len(self.results) != self.plan:
            return 'plan 1..%d does not match the %d results reported' % (
                self.plan, len(self.results))
        for i, res in enumerate(self.results, 1):
            if res.number != i:
                return 'result %d is numbered %d (%s)' % (i, res.number,
                                                          res.name)
        return None


def pick_document(docs: List[Document], abi: Optional[str]) -> \
        Optional[Document]:
    """The native document (abi None) or the compat one: the first whose
    ABI is not native, whatever it says (the caller checks the ABI).  A
    second document of the same ABI means init ran again."""
    if abi is None:
        same = [d for d in docs if d.abi == NATIVE]
    else:
        first = next((d for d in docs if d.abi != NATIVE), None)
        same = [d for d in docs if first and d.abi == first.abi]
    if not same:
        return None
    if len(same) > 1:
        same[0].repeated = same[1].begin.line
    return same[0]


# -- the programs' own TAP ------------------------------------------------

def subtest_status(not_ok: bool, directive: Optional[str]) -> Status:
    kind = directive.upper() if directive else ''
    if kind == 'TODO':
        return Status.SKIP
    if not_ok:
        return Status.FAIL
    if kind == 'SKIP':
        return Status.SKIP
    return Status.PASS


@dataclass
class Nested:
    """A program's own TAP (kselftest or kselftest_harness), read."""
    subtests: Dict[str, Status] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    # name -> the lines printed before its result
    diag: Dict[str, List[str]] = field(default_factory=dict)

    @classmethod
    def parse(cls, nested: List[str]) -> 'Nested':
        out = cls()
        lines: List[str] = []
        last_run: Optional[str] = None
        plan: Optional[int] = None
        seen = 0
        for line in nested:
            lines.append(line)
            if line.startswith(' '):
                continue        # deeper nesting: not ours to judge
            m = RUN_RE.match(line)
            if m:
                last_run, lines = m.group(1), [line]
                continue
            m = PLAN_RE.match(line)
            if m and plan is None:
                plan = int(m.group(1))
                continue
            if line.startswith('Bail out!'):
                out.notes.append(line.strip())
                continue
            m = RESULT_RE.match(line)
            if not m:
                continue
            seen += 1
            desc = m.group(3).strip()
            directive, reason = None, ''
            d = DIRECTIVE_RE.match(desc)
            if d:
                desc, directive, reason = d.group(1), d.group(2), d.group(3)
            # "[pid] ..." (kselftest.h users print their pid): drop the
            # pid so that names stay the same from run to run, as CI
            # expects.
            name = PID_RE.sub('', desc.strip()) or last_run or \
                reason.strip() or 'test %s' % m.group(2)
            last_run = None
            key, again = name, 1
            while key in out.subtests:
                key = '%s #%s' % (name, m.group(2))
                if again > 1:
                    key += ' (%d)' % again
                again += 1
            out.subtests[key] = subtest_status(bool(m.group(1)), directive)
            out.diag[key], lines = lines, []
        if plan is not None and plan != seen:
            out.notes.append('planned %d subtests, reported %d' % (plan,
                                                                   seen))
        return out


def program_suite(name: str, suite_dir: str) -> str:
    """'ours' for a program of our suite (its source in suite_dir), the
    consumer's name for one of consumers/<consumer>/ beside it ('glibc'),
    else 'upstream'."""
    if os.path.isfile(os.path.join(suite_dir, name + '.c')):
        return 'ours'
    consumers = os.path.join(os.path.dirname(os.path.abspath(suite_dir)),
                             'consumers')
    for c in sorted(os.listdir(consumers)) if os.path.isdir(consumers) \
            else []:
        if os.path.isfile(os.path.join(consumers, c, name + '.c')):
            return c
    return 'upstream'


def build_programs(doc: Optional[Document], suite_dir: str) -> \
        Dict[str, Program]:
    programs: Dict[str, Program] = {}
    for res in doc.results if doc else []:
        nested = Nested.parse(res.nested)
        key = res.name if res.name not in programs else \
            '%s #%d' % (res.name, res.number)
        programs[key] = Program(
            name=key, number=res.number,
            suite=program_suite(res.name, suite_dir), result=res.result,
            detail='; '.join([res.detail] + nested.notes if res.detail
                             else nested.notes),
            subtests=nested.subtests, duration_ms=res.duration_ms,
            output=res.nested, diag=nested.diag)
    return programs


def row_document(console: Console, abi: Optional[str],
                 suite_dir: str) -> Tuple[Optional[Document],
                                          Dict[str, Program]]:
    """A row's document (abi None: the native one, else the compat one)
    and its programs: none when the document is of another ABI."""
    doc = pick_document(console.documents(), abi)
    programs = build_programs(doc, suite_dir) if \
        (doc and (abi is None or doc.abi == abi)) else {}
    return doc, programs
