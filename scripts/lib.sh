# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the gate's scripts, one file per job in scripts/lib/.
# Sourced, never run.
case ${BASH_SOURCE[0]} in
*/*) CLONE3_LIB=${BASH_SOURCE[0]%/*}/lib ;;
*) CLONE3_LIB=lib ;;
esac
# shellcheck source=lib/core.sh
. "$CLONE3_LIB/core.sh"
# shellcheck source=lib/paths.sh
. "$CLONE3_LIB/paths.sh"
# shellcheck source=lib/arch.sh
. "$CLONE3_LIB/arch.sh"
# shellcheck source=lib/packages.sh
. "$CLONE3_LIB/packages.sh"
# shellcheck source=lib/git.sh
. "$CLONE3_LIB/git.sh"
# shellcheck source=lib/kbuild.sh
. "$CLONE3_LIB/kbuild.sh"
# shellcheck source=lib/jobserver.sh
. "$CLONE3_LIB/jobserver.sh"
