/* cli/datadir.h: where an installed gpusched finds its gnuplot templates.
 *
 * `cmake --install` puts the binary in PREFIX/bin and the templates (analysis/NAME.gp) in
 * PREFIX/share/gpusched. The templates are found relative to the binary, so an installed
 * (or moved) prefix works without the source tree. Order, first that applies:
 *   1. the environment variable GPUSCHED_ANALYSIS_DIR, when set and not empty;
 *   2. BINDIR/../share/gpusched, when it holds common.gp (BINDIR: the folder of the
 *      running executable, /proc/self/exe with its links resolved);
 *   3. the source tree's analysis/ folder the binary was built from (a build tree). */
#ifndef CLI_DATADIR_H
#define CLI_DATADIR_H

#include <stddef.h>

/* Rule 2 for the executable at exe_path: writes EXEDIR/../share/gpusched (EXEDIR
 * resolved by realpath) to buf and returns 0 when that folder holds common.gp; else
 * returns -1 and leaves buf empty. */
int datadir_installed(const char *exe_path, char *buf, size_t n);

/* Applies rules 1 and 2 at start-up: when GPUSCHED_ANALYSIS_DIR is unset or empty
 * and rule 2 finds a folder for /proc/self/exe, sets GPUSCHED_ANALYSIS_DIR to it,
 * which plot and plan read (analysis/plot.h). Otherwise changes nothing (rule 3 is
 * the build's compiled-in default). */
void datadir_setup(void);

#endif
