/* tests/outtmp.h: counts the temporaries an output may leave beside it, whatever
 * their name: OUT.tmp (the fixed name of older versions) and OUT.<anything>.tmp
 * (sim_out_tmp_create's OUT.XXXXXX.tmp). Header-only: each test file that needs it
 * includes it. */
#ifndef TESTS_OUTTMP_H
#define TESTS_OUTTMP_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* Files in out's folder named "BASE.tmp" or "BASE.*.tmp", BASE being out's name,
 * other than those listed in keep (NULL-terminated, full paths; may be NULL): a
 * file of the user there before is not a temporary the command left. */
static inline int count_out_tmps(const char *out, const char *const *keep)
{
	char dir[1024];
	const char *slash = strrchr(out, '/');
	const char *base = slash ? slash + 1 : out;
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) : 1, slash ? out : ".");
	size_t blen = strlen(base);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < blen + 4 || strncmp(e->d_name, base, blen) != 0 || e->d_name[blen] != '.' ||
		    strcmp(e->d_name + len - 4, ".tmp") != 0)
			continue;
		char path[2048];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		int kept = 0;
		for (size_t k = 0; keep && keep[k] && !kept; k++)
			kept = strcmp(keep[k], path) == 0;
		n += !kept;
	}
	closedir(d);
	return n;
}

#endif
