#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The results directory a gate or mutants run of these settings writes
# (gate_paths in lib/paths.sh: WORK/results, WORK by default
# build/<KERNEL> for our change, build/<KERNEL>-<name> for CHANGE=dir):
# for the CI jobs, which keep it as their shard.
#
# Environment: CHANGE, KERNEL, KSRC, WORK.
#
# usage: results-dir.sh
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 0 ] || die "usage: results-dir.sh (settings come from the environment: CHANGE KERNEL KSRC WORK)"
gate_paths
echo "$RESULTS"
