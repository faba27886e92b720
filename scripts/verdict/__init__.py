# SPDX-License-Identifier: GPL-2.0
"""The gate's verdict: one result tree and the rules that judge it.

The tree (model.py): a Run holds rows, each one (variant, arch[/abi])
of the matrix; a Row holds the KTAP document its console gave, the
programs of that document and each program's subtests, every status one
of model.Status.  A Row is made from a console log (console.py, the
guest's side: ktap-report.py) or read back from the row's JSON record
(results.py: summarize.py, which judges saved results and merges
shards).

The rules (rules.py) are the one place that says what a row's status is
and what each variant must show: base, patched, a mutant, another change
than ours.  The writers take what the rules decided and judge nothing:
table.py (Markdown), junit.py (JUnit XML), records.py (the JSON files).
The command-line front ends are scripts/ktap-report.py,
scripts/summarize.py and scripts/results_meta.py.
"""
