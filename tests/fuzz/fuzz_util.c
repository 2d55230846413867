/* tests/fuzz/fuzz_util.c: the scratch folder and input helpers (fuzz_util.h). */
#include "fuzz_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

/* Removes the scratch folder's files, then the folder: importers leave OUT.tmp or OUT
 * only on paths we named, so one level is all there is. */
static void cleanup(void)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		char p[512];
		while ((e = readdir(d))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

const char *fuzz_dir(void)
{
	if (!dir[0]) {
		/* Under TMPDIR when set: run.sh points it into its own output folder, so the
		 * folders that crashed runs leave (atexit does not run then) go with it. */
		const char *tmp = getenv("TMPDIR");
		if (!tmp || !tmp[0])
			tmp = "/tmp";
		if ((size_t)snprintf(dir, sizeof dir, "%s/gpusched-fuzz-%ld", tmp, (long)getpid()) >= sizeof dir)
			abort();
		if (mkdir(dir, 0700) != 0) {
			perror(dir);
			abort();
		}
		atexit(cleanup);
	}
	return dir;
}

const char *fuzz_path(const char *name, char *buf, size_t size)
{
	if ((size_t)snprintf(buf, size, "%s/%s", fuzz_dir(), name) >= size)
		abort();
	return buf;
}

const char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
	static char path[512];
	fuzz_path(name, path, sizeof path);
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
		perror(path);
		abort();
	}
	return path;
}

static int has(const uint8_t *data, size_t size, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= size; i++)
		if (memcmp(data + i, needle, n) == 0)
			return 1;
	return 0;
}

int fuzz_names_device(const uint8_t *data, size_t size)
{
	return has(data, size, "/dev/") || has(data, size, "/proc/") || has(data, size, "/sys/");
}

char *fuzz_text(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);
	if (!t)
		abort();
	if (size)
		memcpy(t, data, size);
	t[size] = '\0';
	return t;
}
