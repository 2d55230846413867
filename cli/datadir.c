/* cli/datadir.c: the templates of an installed gpusched (rules in datadir.h). */
#define _DEFAULT_SOURCE
#include "datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int datadir_installed(const char *exe_path, char *buf, size_t n)
{
	if (n)
		buf[0] = '\0';
	if (!exe_path || !exe_path[0] || n == 0)
		return -1;
	char real[PATH_MAX];
	if (!realpath(exe_path, real))
		return -1;
	char *slash = strrchr(real, '/');
	if (!slash)
		return -1;
	*slash = '\0'; /* the executable's folder ("" for a binary in /) */
	char dir[PATH_MAX];
	int len = snprintf(dir, sizeof dir, "%s/../share/gpusched", real);
	if (len < 0 || (size_t)len >= sizeof dir)
		return -1;
	char probe[PATH_MAX + 16];
	snprintf(probe, sizeof probe, "%s/common.gp", dir);
	if (access(probe, R_OK) != 0)
		return -1;
	char canon[PATH_MAX];
	if (!realpath(dir, canon) || strlen(canon) >= n)
		return -1;
	memcpy(buf, canon, strlen(canon) + 1);
	return 0;
}

void datadir_setup(void)
{
	const char *env = getenv("GPUSCHED_ANALYSIS_DIR");
	if (env && env[0])
		return;
	char dir[PATH_MAX];
	if (datadir_installed("/proc/self/exe", dir, sizeof dir) == 0)
		setenv("GPUSCHED_ANALYSIS_DIR", dir, 1);
}
