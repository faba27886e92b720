# SPDX-License-Identifier: GPL-2.0
"""Write a result file so that it exists under its name only when whole:
a temporary file in the same directory, then os.replace().  Shared by
ktap-report.py and summarize.py."""

import os
import tempfile


def write_atomic(path, data):
    if isinstance(data, str):
        data = data.encode('utf-8')
    directory = os.path.dirname(path) or '.'
    fd, tmp = tempfile.mkstemp(dir=directory,
                               prefix='.%s.' % os.path.basename(path))
    mask = os.umask(0)
    os.umask(mask)
    try:
        os.fchmod(fd, 0o666 & ~mask)
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
