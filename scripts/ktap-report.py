#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read one guest console log, extract the KTAP document that the gate's
init printed between CLONE3-GATE-BEGIN and CLONE3-GATE-END, decide the
run's status (pass, fail or error) and write <arch>.log, .ktap, .xml and
.json under --out-dir, each atomically.

Exit 0 when the results were written (whatever the status), 2 on bad usage.
"""

import argparse
import json
import os
import re
import sys

from atomic_write import write_atomic
import xml.etree.ElementTree as ET

USAGE = ("ktap-report.py --log LOG --variant V --arch A --out-dir DIR "
         "[--timed-out] [--suite-dir tools-testing-selftests-clone3]")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME_RE = re.compile(r'^[A-Za-z0-9_.+-]+$')

# A printk timestamp, "[    1.234567] ".  Kernel lines end with a newline,
# so text before one on the same line is a fragment of a user-space line
# that continues on the next line.
KTIME_RE = re.compile(r'\[\s*\d+\.\d{6}\]')
ANSI_RE = re.compile(r'\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]')
CTRL_RE = re.compile(r'[\x00-\x08\x0b-\x1f\x7f]')
PANIC_RE = re.compile(r'Kernel panic - not syncing.*')
BEGIN_RE = re.compile(r'CLONE3-GATE-BEGIN arch=(\S+) programs=(\d+)')
END_RE = re.compile(r'CLONE3-GATE-END pass=(\d+) fail=(\d+) skip=(\d+) '
                    r'timeout=(\d+)')
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


class UsageError(Exception):
    pass


def clean_lines(raw):
    """Decode, drop CRs and terminal noise, split kernel messages out.

    Returns (lines, kernel): lines is a list of (log line number, text) of
    everything that is not a timestamped kernel message, with lines split
    by a kernel message joined again; kernel lists the kernel messages.
    """
    text = raw.decode('utf-8', errors='replace')
    lines, kernel = [], []
    pending = None
    for no, line in enumerate(text.split('\n'), 1):
        line = CTRL_RE.sub('', ANSI_RE.sub('', line.replace('\r', '')))
        m = KTIME_RE.search(line)
        if m:
            kernel.append((no, line[m.start():]))
            if m.start() > 0:
                if pending:
                    pending = (pending[0], pending[1] + line[:m.start()])
                else:
                    pending = (no, line[:m.start()])
            continue
        if pending:
            no, line = pending[0], pending[1] + line
            pending = None
        lines.append((no, line))
    if pending:
        lines.append(pending)
    while lines and lines[-1][1] == '':
        lines.pop()
    return lines, kernel


def find_panic(lines, kernel):
    for no, text in sorted(lines + kernel):
        m = PANIC_RE.search(text)
        if m:
            return no, m.group(0).strip()
    return None


def subtest_status(not_ok, directive):
    kind = directive.upper() if directive else ''
    if kind == 'TODO':
        return 'skip'
    if not_ok:
        return 'fail'
    if kind == 'SKIP':
        return 'skip'
    return 'pass'


def parse_nested(nested):
    """The program's own TAP (kselftest or kselftest_harness) -> subtests.

    Returns (subtests, notes, diag): name -> pass/fail/skip, remarks on
    the program's TAP, and name -> the lines printed before its result.
    """
    subtests, notes, diag, lines = {}, [], {}, []
    last_run, plan, seen = None, None, 0
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
            notes.append(line.strip())
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
        # "[pid] ..." (kselftest.h users print their pid): drop the pid
        # so that names stay the same from run to run, as CI expects.
        name = PID_RE.sub('', desc.strip()) or last_run or \
            reason.strip() or 'test %s' % m.group(2)
        last_run = None
        key, again = name, 1
        while key in subtests:
            key = '%s #%s' % (name, m.group(2))
            if again > 1:
                key += ' (%d)' % again
            again += 1
        subtests[key] = subtest_status(m.group(1), directive)
        diag[key], lines = lines, []
    if plan is not None and plan != seen:
        notes.append('planned %d subtests, reported %d' % (plan, seen))
    return subtests, notes, diag


def program_result(not_ok, directive):
    directive = directive or ''
    if not_ok:
        if directive.upper().startswith('TIMEOUT'):
            return 'timeout'
        return 'fail'
    if directive.upper().startswith('SKIP'):
        return 'skip'
    return 'pass'


class Document:
    """The KTAP document between the markers, as init printed it."""

    def __init__(self):
        self.begin = None        # (line no, guest arch, programs)
        self.end = None          # (line no, {pass, fail, skip, timeout})
        self.version = None
        self.plan = None
        self.results = []        # (number, name, result, detail, ms, out)
        self.ktap = []           # lines of the document
        self.last = None         # (line no, text) of the last document line
        self.bail = None
        self.second_begin = None
        self.others = []         # lines that are not part of the document

    def feed(self, no, line, state):
        if self.begin is None:
            m = BEGIN_RE.search(line)
            if m:
                self.begin = (no, m.group(1), int(m.group(2)))
                self.last = (no, line.strip())
            return
        m = END_RE.search(line)
        if m:
            keys = ('pass', 'fail', 'skip', 'timeout')
            self.end = (no, dict(zip(keys, map(int, m.groups()))))
            return
        if BEGIN_RE.search(line):
            self.second_begin = no
            return
        if line.startswith(NESTED):
            state['nested'].append(line[len(NESTED):])
        elif not self.top_level(line, state):
            self.others.append((no, line))
            return
        self.ktap.append(line)
        self.last = (no, line.strip())

    def top_level(self, line, state):
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
            state['ms'] = int(m.group(1))
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
        self.results.append((int(m.group(2)), name,
                             program_result(m.group(1), detail), detail,
                             state['ms'], state['nested']))
        state['nested'], state['ms'] = [], None
        return True


def parse_log(raw):
    lines, kernel = clean_lines(raw)
    doc = Document()
    state = {'nested': [], 'ms': None}
    for no, line in lines:
        doc.feed(no, line, state)
        if doc.end or doc.second_begin:
            break
    return doc, lines, kernel


def quote(text, limit=120):
    text = text.strip()
    if len(text) > limit:
        text = text[:limit - 3] + '...'
    return "'%s'" % text


def structure_error(doc):
    """Why a document that has both markers is not well formed, or None."""
    if doc.second_begin:
        return 'init started twice (second CLONE3-GATE-BEGIN at log ' \
               'line %d)' % doc.second_begin
    if doc.version is None:
        return "no 'KTAP version 1' line after CLONE3-GATE-BEGIN"
    if doc.plan is None:
        return 'no plan line (1..N) in the document'
    if doc.plan != doc.begin[2]:
        return 'plan 1..%d does not match CLONE3-GATE-BEGIN programs=%d' % (
            doc.plan, doc.begin[2])
    if doc.bail:
        return 'init bailed out: %s' % quote(doc.bail)
    if doc.plan == 0:
        return 'the run-list is empty: no program ran'
    if len(doc.results) != doc.plan:
        return 'plan 1..%d does not match the %d results reported' % (
            doc.plan, len(doc.results))
    for i, res in enumerate(doc.results, 1):
        if res[0] != i:
            return 'result %d is numbered %d (%s)' % (i, res[0], res[1])
    return None


def count(programs):
    counts = {'pass': 0, 'fail': 0, 'skip': 0, 'timeout': 0,
              'subtests_pass': 0, 'subtests_fail': 0, 'subtests_skip': 0}
    for prog in programs.values():
        counts[prog['result']] += 1
        for res in prog['subtests'].values():
            counts['subtests_' + res] += 1
    return counts


def end_mismatch(doc, counts):
    seen = {k: counts[k] for k in ('pass', 'fail', 'skip', 'timeout')}
    if doc.end[1] != seen:
        return 'CLONE3-GATE-END counts %s differ from the results %s' % (
            fmt_counts(doc.end[1]), fmt_counts(seen))
    return None


def fmt_counts(c):
    return ' '.join('%s=%d' % (k, c[k])
                    for k in ('pass', 'fail', 'skip', 'timeout'))


def failures(programs):
    out = []
    for name, prog in programs.items():
        bad = [s for s, r in prog['subtests'].items() if r == 'fail']
        if len(bad) > 3:
            bad = bad[:3] + ['+%d more' % (len(bad) - 3)]
        if bad:
            out.append('%s (%s)' % (name, ', '.join(bad)))
        elif prog['result'] in ('fail', 'timeout'):
            out.append('%s (%s)' % (name, prog['detail'] or prog['result']))
    return out


def decide(doc, panic, timed_out, programs, counts):
    """-> (status, one-line reason)."""
    if panic:
        where = ''
        if doc.begin and doc.last:
            where = ' after document line %d %s' % (doc.last[0],
                                                    quote(doc.last[1], 60))
        return 'error', 'kernel panic at log line %d%s: %s' % (
            panic[0], where, quote(panic[1]))
    if doc.begin is None:
        if timed_out:
            return 'error', 'host timeout fired before CLONE3-GATE-BEGIN: ' \
                            'the guest never started init'
        return 'error', 'no CLONE3-GATE-BEGIN marker: boot failed before ' \
                        'init printed anything'
    if doc.end is None and not doc.second_begin:
        what = 'host timeout fired' if timed_out else \
            'no CLONE3-GATE-END marker'
        return 'error', '%s: document cut off after log line %d %s' % (
            what, doc.last[0], quote(doc.last[1]))
    reason = structure_error(doc) or end_mismatch(doc, counts)
    if reason:
        return 'error', reason
    if timed_out:
        return 'error', 'host timeout fired after CLONE3-GATE-END: the ' \
                        'guest did not power off'
    bad = failures(programs)
    if bad:
        return 'fail', 'failed: ' + '; '.join(bad)
    return 'pass', '%d programs: %d passed, %d skipped; %d subtests passed' \
        ', %d skipped' % (len(programs), counts['pass'], counts['skip'],
                          counts['subtests_pass'], counts['subtests_skip'])


def build_programs(doc, suite_dir):
    programs = {}
    for num, name, result, detail, ms, nested in doc.results:
        subtests, notes, diag = parse_nested(nested)
        key = name if name not in programs else '%s #%d' % (name, num)
        ours = os.path.isfile(os.path.join(suite_dir, name + '.c'))
        programs[key] = {
            'suite': 'ours' if ours else 'upstream',
            'result': result,
            'detail': '; '.join([detail] + notes if detail else notes),
            'subtests': subtests,
            'number': num,
            'duration_ms': ms,
            'output': nested,
            'diag': diag,
        }
    return programs


def testcase(suite, classname, name, result, message, seconds, text=None):
    case = ET.SubElement(suite, 'testcase', classname=classname, name=name,
                         time='%.3f' % seconds)
    if result == 'fail':
        fail = ET.SubElement(case, 'failure', message=message, type='fail')
        fail.text = text
    elif result == 'timeout':
        ET.SubElement(case, 'error', message=message, type='timeout')
    elif result == 'error':
        ET.SubElement(case, 'error', message=message, type='error')
    elif result == 'skip':
        ET.SubElement(case, 'skipped', message=message)
    return result


def program_suite(root, prefix, name, prog):
    seconds = (prog['duration_ms'] or 0) / 1000.0
    suite = ET.SubElement(root, 'testsuite', name='%s.%s' % (prefix, name),
                          time='%.3f' % seconds)
    classname = '%s.%s' % (prefix, name)
    results = []
    subs = prog['subtests']
    for sub, res in subs.items():
        diag = prog['diag'].get(sub, [])
        said = [l.lstrip('# ').strip() for l in diag
                if l.startswith('#') and not RUN_RE.match(l) and
                not STATUS_RE.match(l)]
        msg = said[0] if said else '%s: %s' % (sub, res)
        results.append(testcase(suite, classname, sub, res, msg,
                                seconds if len(subs) == 1 else 0.0,
                                '\n'.join(diag)))
    # The program's own verdict, when no subtest tells it.
    if not subs or (prog['result'] in ('fail', 'timeout') and
                    'fail' not in results):
        msg = prog['detail'] or prog['result']
        results.append(testcase(suite, classname, name, prog['result'], msg,
                                seconds if not subs else 0.0))
    out = ET.SubElement(suite, 'system-out')
    out.text = '\n'.join(prog['output'])
    suite.set('tests', str(len(results)))
    suite.set('failures', str(results.count('fail')))
    suite.set('errors', str(results.count('timeout') +
                            results.count('error')))
    suite.set('skipped', str(results.count('skip')))
    return results


def junit(variant, arch, status, reason, programs):
    prefix = '%s.%s' % (variant, arch)
    root = ET.Element('testsuites', name='clone3 %s' % prefix)
    results = []
    for name, prog in programs.items():
        results += program_suite(root, prefix, name, prog)
    if status == 'error':
        suite = ET.SubElement(root, 'testsuite', name='%s.gate' % prefix,
                              tests='1', failures='0', errors='1',
                              skipped='0', time='0.000')
        results.append(testcase(suite, prefix, 'gate', 'error', reason, 0))
    root.set('tests', str(len(results)))
    root.set('failures', str(results.count('fail')))
    root.set('errors', str(results.count('timeout') + results.count('error')))
    root.set('skipped', str(results.count('skip')))
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + \
        ET.tostring(root, encoding='utf-8') + b'\n'


def report(args):
    with open(args.log, 'rb') as f:
        raw = f.read()
    doc, lines, kernel = parse_log(raw)
    panic = find_panic(lines, kernel)
    programs = build_programs(doc, args.suite_dir)
    counts = count(programs)
    status, reason = decide(doc, panic, args.timed_out, programs, counts)
    os.makedirs(args.out_dir, exist_ok=True)
    base = os.path.join(args.out_dir, args.arch)
    if os.path.abspath(args.log) != os.path.abspath(base + '.log'):
        write_atomic(base + '.log', raw)
    write_atomic(base + '.ktap', ''.join(l + '\n' for l in doc.ktap))
    write_atomic(base + '.xml', junit(args.variant, args.arch, status,
                                      reason, programs))
    for prog in programs.values():
        del prog['output'], prog['diag']
    result = {
        'variant': args.variant,
        'arch': args.arch,
        'status': status,
        'reason': reason,
        'guest_arch': doc.begin[1] if doc.begin else None,
        'timed_out': args.timed_out,
        'programs': programs,
        'counts': counts,
        # timestamped kernel lines, and any other line inside the document
        'kernel_messages': [t for _, t in sorted(kernel + doc.others)][:50],
    }
    write_atomic(base + '.json', json.dumps(result, indent=2) + '\n')
    print('%s %s: %s: %s' % (args.variant, args.arch, status, reason))


def parse_args(argv):
    parser = argparse.ArgumentParser(usage=USAGE, description=__doc__)
    parser.add_argument('--log', required=True)
    parser.add_argument('--variant', required=True)
    parser.add_argument('--arch', required=True)
    parser.add_argument('--out-dir', required=True)
    parser.add_argument('--timed-out', action='store_true',
                        help='the host timeout killed QEMU')
    parser.add_argument('--suite-dir',
                        default=os.path.join(REPO,
                                             'tools-testing-selftests-clone3'))
    args = parser.parse_args(argv)
    for what in ('variant', 'arch'):
        if not NAME_RE.match(getattr(args, what)):
            raise UsageError('bad --%s %r: use letters, digits, _.+-' %
                             (what, getattr(args, what)))
    if not os.path.isfile(args.log):
        raise UsageError('no console log at %s' % args.log)
    if not os.path.isdir(args.suite_dir):
        raise UsageError('no suite directory at %s' % args.suite_dir)
    return args


def main(argv):
    try:
        report(parse_args(argv))
    except UsageError as e:
        print('error: %s' % e, file=sys.stderr)
        print('usage: ' + USAGE, file=sys.stderr)
        return 2
    except OSError as e:
        print('error: %s' % e, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
