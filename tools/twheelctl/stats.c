// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl stats: the debugfs counters (named in twheel/stats_list.h), the
 * per-CPU table and the lateness histogram.
 */
#include "twheelctl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kv {
	char key[48];
	char val[32];
};

/*
 * The keys of debugfs stats, what each counts, and which are counters that
 * the per-CPU table shows (percpu 2): twheel/stats_list.h.
 */
static const struct {
	const char *key;
	const char *what;
	bool counter;
	int percpu;
} stat_desc[] = {
#define TWHEEL_STAT_CNT(name, percpu, help)	{ #name, help, true, percpu },
#define TWHEEL_STAT_MAX(name, percpu, help)	{ #name "_us", help, true, percpu },
#define TWHEEL_STAT_BASE(name, percpu, help)	{ #name, help, false, percpu },
#include "../../twheel/stats_list.h"
};

/*
 * Columns of debugfs percpu shown in the per-CPU table: the file's own
 * columns and the counters marked for it.
 */
static bool percpu_shown(const char *col)
{
	size_t k;

	for (k = 0; k < ARRAY_SIZE(stat_desc); k++)
		if (stat_desc[k].counter && !strcmp(stat_desc[k].key, col))
			return stat_desc[k].percpu == 2;
	return true;
}

static FILE *open_debugfs(const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", debugfs_dir, name);
	f = fopen(path, "re");
	if (f)
		return f;
	if (errno == EACCES || errno == EPERM)
		errmsg("cannot read %s: the twheel debugfs files are root-only", path);
	else if (errno == ENOENT && access("/sys/kernel/debug/", R_OK) == 0 &&
		 access("/sys/kernel/debug/kernel", F_OK) != 0 &&
		 !strcmp(debugfs_dir, DEFAULT_DEBUGFS))
		errmsg("cannot read %s: debugfs is not mounted (mount -t debugfs none /sys/kernel/debug)",
		       path);
	else if (errno == ENOENT)
		errmsg("cannot read %s: is the twheel module loaded?", path);
	else
		errmsg("cannot read %s: %s", path, strerror(errno));
	return NULL;
}

/* "key value" lines. Returns the number of pairs, -1 if unreadable. */
static int read_kv(const char *name, struct kv *kv, int max)
{
	FILE *f = open_debugfs(name);
	char line[256];
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%47s %31s", kv[n].key, kv[n].val) == 2)
			n++;
	fclose(f);
	return n;
}

struct bucket {
	unsigned long long lo, hi, count;	/* hi == 0: open-ended */
};

static int read_latency(struct bucket *b, int max)
{
	FILE *f = open_debugfs("latency");
	char line[256], hi[32];
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "[%llu, %31[^)]) us: %llu", &b[n].lo, hi,
			   &b[n].count) != 3)
			continue;
		b[n].hi = strcmp(hi, "inf") ? strtoull(hi, NULL, 10) : 0;
		n++;
	}
	fclose(f);
	return n;
}

#define MAX_COLS	64
#define MAX_CPUS	4096

struct table {
	int ncols, nrows;
	char cols[MAX_COLS][32];
	char (*cells)[MAX_COLS][24];
};

static int read_table(const char *name, struct table *tb)
{
	FILE *f = open_debugfs(name);
	char line[2048], *tok, *save;

	memset(tb, 0, sizeof(*tb));
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \n", &save); tok && tb->ncols < MAX_COLS;
		     tok = strtok_r(NULL, " \n", &save))
			snprintf(tb->cols[tb->ncols++], sizeof(tb->cols[0]), "%s", tok);
	tb->cells = xrealloc(NULL, MAX_CPUS * sizeof(*tb->cells));
	while (tb->nrows < MAX_CPUS && fgets(line, sizeof(line), f)) {
		int c = 0;

		for (tok = strtok_r(line, " \n", &save); tok && c < tb->ncols;
		     tok = strtok_r(NULL, " \n", &save))
			snprintf(tb->cells[tb->nrows][c++], 24, "%s", tok);
		if (c)
			tb->nrows++;
	}
	fclose(f);
	return 0;
}

/* A bucket bound in us as a short human string: 512us, 1.02ms, 4.19s. */
static const char *fmt_us(char *buf, size_t len, unsigned long long us)
{
	return fmt_dur(buf, len, us * NSEC_PER_USEC);
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static void json_value(const char *v)
{
	if (is_number(v))
		fputs(v, stdout);
	else if (!strcmp(v, "-"))
		fputs("null", stdout);
	else
		printf("\"%s\"", v);	/* debugfs values never need escaping */
}

int cmd_stats(int argc, char **argv)
{
	struct bucket b[64];
	struct table tb;
	struct kv kv[64];
	unsigned long long total = 0, maxc = 0, cum = 0;
	int width[MAX_COLS];
	int nkv, nb, i, j, first = -1, last = -1;
	char b1[32], b2[32];

	parse_simple("stats", argc, argv);
	nkv = read_kv("stats", kv, (int)ARRAY_SIZE(kv));
	if (nkv < 0)
		return EX_NODEBUGFS;
	nb = read_latency(b, (int)ARRAY_SIZE(b));
	if (nb < 0 || read_table("percpu", &tb) < 0)
		return EX_NODEBUGFS;
	for (i = 0; i < nb; i++) {
		total += b[i].count;
		if (b[i].count > maxc)
			maxc = b[i].count;
		if (b[i].count) {
			if (first < 0)
				first = i;
			last = i;
		}
	}

	if (json) {
		printf("{\"stats\":{");
		for (i = 0; i < nkv; i++) {
			printf("%s\"%s\":", i ? "," : "", kv[i].key);
			json_value(kv[i].val);
		}
		printf("},\"latency_us\":[");
		for (i = 0; i < nb; i++) {
			printf("%s{\"lo\":%llu,\"hi\":", i ? "," : "", b[i].lo);
			if (b[i].hi)
				printf("%llu", b[i].hi);
			else
				printf("null");
			printf(",\"count\":%llu}", b[i].count);
		}
		printf("],\"percpu\":[");
		for (i = 0; i < tb.nrows; i++) {
			printf("%s{", i ? "," : "");
			for (j = 0; j < tb.ncols; j++) {
				printf("%s\"%s\":", j ? "," : "", tb.cols[j]);
				json_value(tb.cells[i][j]);
			}
			printf("}");
		}
		printf("]}\n");
		free(tb.cells);
		return EX_OK;
	}

	printf("twheel statistics (%s)\n\n", debugfs_dir);
	for (i = 0; i < nkv; i++) {
		const char *what = "";
		size_t k;

		for (k = 0; k < ARRAY_SIZE(stat_desc); k++)
			if (!strcmp(stat_desc[k].key, kv[i].key))
				what = stat_desc[k].what;
		printf("  %-14s %14s   %s\n", kv[i].key, kv[i].val, what);
	}

	/* Per-CPU table: the useful columns, each as wide as its widest cell. */
	printf("\nper CPU\n");
	for (i = 0; i < tb.ncols; i++) {
		width[i] = 0;
		if (!percpu_shown(tb.cols[i]))
			continue;
		width[i] = (int)strlen(tb.cols[i]);
		for (j = 0; j < tb.nrows; j++)
			if ((int)strlen(tb.cells[j][i]) > width[i])
				width[i] = (int)strlen(tb.cells[j][i]);
		printf(" %*s", width[i], tb.cols[i]);
	}
	printf("\n");
	for (j = 0; j < tb.nrows; j++) {
		for (i = 0; i < tb.ncols; i++)
			if (width[i])
				printf(" %*s", width[i], tb.cells[j][i]);
		printf("\n");
	}
	free(tb.cells);

	printf("\nlateness, deadline to callback start (%llu callbacks)\n", total);
	if (!total) {
		printf("  (no callback has run yet)\n");
		return EX_OK;
	}
	for (i = first; i <= last; i++) {
		int w = (int)((b[i].count * 40 + maxc - 1) / maxc);
		char range[48];

		cum += b[i].count;
		if (b[i].hi)
			snprintf(range, sizeof(range), "[%s, %s)",
				 fmt_us(b1, sizeof(b1), b[i].lo),
				 fmt_us(b2, sizeof(b2), b[i].hi));
		else
			snprintf(range, sizeof(range), "[%s, inf)",
				 fmt_us(b1, sizeof(b1), b[i].lo));
		printf("  %-18s %10llu %5.1f%% %5.1f%% |%.*s\n", range,
		       b[i].count, 100.0 * (double)b[i].count / (double)total,
		       100.0 * (double)cum / (double)total, w,
		       "########################################");
	}
	printf("  %-18s %10s %6s %6s\n", "", "count", "%", "cum%");
	return EX_OK;
}
