// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_bench: control of the in-kernel benchmark.
 *
 * Loading the module measures nothing. Commands are written to
 * /sys/kernel/debug/twheel_bench/ctl and run synchronously (the write returns
 * when the run is over) in a kthread bound to CPU @bench_cpu:
 *
 *	run IMPL N SEED		IMPL is one of kb_impl_names
 *	runall N SEED		every implementation, interleaved round by
 *				round (kb_run()); one result line each
 *	scale N SEED		arm N twheel timers and keep them armed
 *	release			cancel and free the scale timers
 *	exact K SEED HMAX_MS SPREAD_MS
 *				K timers of every peer at every horizon up
 *				to HMAX_MS, armed over SPREAD_MS, all
 *				concurrently (kbench_exact.c); the lateness
 *				of each is read from the debugfs file exact
 *
 * Reading ctl gives the result of the last command as one line of
 * key=value pairs (costs in ns per operation); reading info gives the sizes
 * of the timer structures and the clock geometry; reading busy gives the
 * busy (neither idle nor iowait) time of all online CPUs since boot, in us
 * (the userspace bench's whole-lifecycle CPU time: /proc/stat counts in
 * 10 ms units).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/twheel.h>
#include <linux/uaccess.h>

#include "kbench.h"

static unsigned int bench_cpu = 1;
module_param(bench_cpu, uint, 0644);
MODULE_PARM_DESC(bench_cpu, "CPU the measurements run on (default 1)");

#define KB_CMD_MAX	64
#define KB_LINE_MAX	400
#define KB_OUT_MAX	(KB_NR_IMPLS * KB_LINE_MAX)

static DEFINE_MUTEX(kb_lock);
static char kb_out[KB_OUT_MAX] = "none\n";
static struct dentry *kb_dir;

enum kb_cmd { KB_CMD_RUN, KB_CMD_SCALE, KB_CMD_RELEASE, KB_CMD_EXACT };

/* @nr results in @all (a run), else one in @res (all[0]). */
struct kb_job {
	enum kb_cmd		cmd;
	unsigned int		nr;
	union {
		struct kb_result	res;
		struct kb_result	all[KB_NR_IMPLS];
	};
	unsigned int		hmax_ms;	/* exact */
	unsigned int		spread_ms;	/* exact */
	int			ret;
	struct completion	done;
};

static int kb_thread(void *data)
{
	struct kb_job *job = data;

	switch (job->cmd) {
	case KB_CMD_RUN:
		job->ret = kb_run(job->all, job->nr);
		break;
	case KB_CMD_SCALE:
		job->ret = kb_scale_arm(job->res.n, job->res.seed, &job->res);
		break;
	case KB_CMD_RELEASE:
		kb_scale_release(&job->res);
		job->ret = 0;
		break;
	case KB_CMD_EXACT:
		job->ret = kb_exact(job->res.n, job->res.seed, job->hmax_ms,
				    job->spread_ms, kb_workqueue());
		break;
	}
	complete(&job->done);
	return 0;
}

/* Run @job in a kthread bound to the bench CPU and wait for it. */
static int kb_exec(struct kb_job *job)
{
	unsigned int cpu = bench_cpu;
	struct task_struct *t;

	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		cpu = cpumask_first(cpu_online_mask);
	init_completion(&job->done);
	t = kthread_create(kb_thread, job, "twheel_bench/%u", cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, cpu);
	wake_up_process(t);
	/* short waits: a long run must not look like a hung task */
	while (!wait_for_completion_timeout(&job->done, 10 * HZ))
		;
	return job->ret;
}

/* Format 1/100 ns as a decimal. */
static int kb_cns(char *buf, size_t len, const char *key, u64 cns)
{
	return scnprintf(buf, len, " %s=%llu.%02llu", key, cns / 100,
			 cns % 100);
}

/* The same for a signed figure. */
static int kb_scns(char *buf, size_t len, const char *key, s64 cns)
{
	u64 mag = cns < 0 ? -(u64)cns : cns;

	return scnprintf(buf, len, " %s=%s%llu.%02llu", key,
			 cns < 0 ? "-" : "", mag / 100, mag % 100);
}

/* One result line of @job's result @r at @p (@len bytes). Return: length. */
static int kb_format_one(const struct kb_job *job, const struct kb_result *r,
			 char *p, size_t len)
{
	int n;

	n = scnprintf(p, len, "cmd=%s impl=%s n=%lu seed=%u",
		      job->cmd == KB_CMD_RUN ? "run" :
		      job->cmd == KB_CMD_SCALE ? "scale" : "release",
		      kb_impl_names[r->impl], r->n, r->seed);
	n += kb_cns(p + n, len - n, "arm_ns", r->arm_cns);
	n += kb_cns(p + n, len - n, "cancel_ns", r->cancel_cns);
	if (job->cmd == KB_CMD_RUN) {
		n += kb_cns(p + n, len - n, "pattern_ns", r->pattern_cns);
		n += kb_cns(p + n, len - n, "expire_ns", r->expire_cns);
		n += kb_cns(p + n, len - n, "batch_ns", r->batch_cns);
		n += kb_scns(p + n, len - n, "expire_rest_ns", r->rest_cns);
		n += scnprintf(p + n, len - n,
			       " pattern_ops=%lu fire_delay_ns=%lld late_arm=%d",
			       r->pattern_ops, r->fire_delay_ns, r->late_arm);
		n += scnprintf(p + n, len - n, " rounds=%u expire_rounds=%u",
			       r->rounds, r->expire_rounds);
		n += kb_cns(p + n, len - n, "clock_ns", r->clock_cns);
		if (r->impl == KB_TWHEEL)
			n += kb_cns(p + n, len - n, "arm_abs_ns",
				    r->arm_abs_cns);
	}
	n += scnprintf(p + n, len - n, "\n");
	return n;
}

static void kb_format(const struct kb_job *job)
{
	const struct kb_result *r = &job->res;
	size_t len = sizeof(kb_out);
	unsigned int i;
	int n = 0;

	if (job->ret) {
		scnprintf(kb_out, len, "error=%d\n", job->ret);
		return;
	}
	if (job->cmd == KB_CMD_EXACT) {
		scnprintf(kb_out, len,
			  "cmd=exact n=%lu seed=%u hmax_ms=%u spread_ms=%u\n",
			  r->n, r->seed, job->hmax_ms, job->spread_ms);
		return;
	}
	for (i = 0; i < max(job->nr, 1U); i++)
		n += kb_format_one(job, &job->all[i], kb_out + n, len - n);
}

static int kb_parse(char *cmd, struct kb_job *job)
{
	char impl[24];
	int i;

	memset(job, 0, sizeof(*job));
	/* Before "run": its "run %23s" would read "runall" as run "all". */
	if (sscanf(cmd, "runall %lu %u", &job->res.n, &job->res.seed) == 2) {
		job->cmd = KB_CMD_RUN;
		job->nr = KB_NR_IMPLS;
		for (i = 0; i < KB_NR_IMPLS; i++) {
			job->all[i].impl = i;
			job->all[i].n = job->res.n;
			job->all[i].seed = job->res.seed;
		}
	} else if (sscanf(cmd, "run %23s %lu %u", impl, &job->res.n,
		   &job->res.seed) == 3) {
		job->cmd = KB_CMD_RUN;
		i = match_string(kb_impl_names, KB_NR_IMPLS, impl);
		if (i < 0)
			return -EINVAL;
		job->res.impl = i;
		job->nr = 1;
	} else if (sscanf(cmd, "scale %lu %u", &job->res.n,
			  &job->res.seed) == 2) {
		job->cmd = KB_CMD_SCALE;
		job->res.impl = KB_TWHEEL;
	} else if (sscanf(cmd, "exact %lu %u %u %u", &job->res.n,
			  &job->res.seed, &job->hmax_ms,
			  &job->spread_ms) == 4) {
		job->cmd = KB_CMD_EXACT;
		job->res.impl = KB_TWHEEL;
	} else if (sysfs_streq(cmd, "release")) {
		job->cmd = KB_CMD_RELEASE;
		job->res.impl = KB_TWHEEL;
	} else {
		return -EINVAL;
	}
	if (job->cmd != KB_CMD_RELEASE && !job->res.n)
		return -EINVAL;
	return 0;
}

static ssize_t kb_ctl_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct kb_job *job;
	char *cmd;
	int ret;

	if (count >= KB_CMD_MAX)
		return -EINVAL;
	cmd = memdup_user_nul(ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		ret = -ENOMEM;
		goto out_cmd;
	}
	ret = kb_parse(cmd, job);
	if (ret)
		goto out_job;

	mutex_lock(&kb_lock);
	job->ret = kb_exec(job);
	kb_format(job);
	ret = job->ret;
	mutex_unlock(&kb_lock);
out_job:
	kfree(job);
out_cmd:
	kfree(cmd);
	return ret ? ret : count;
}

static ssize_t kb_ctl_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&kb_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, kb_out,
				      strlen(kb_out));
	mutex_unlock(&kb_lock);
	return ret;
}

static const struct file_operations kb_ctl_fops = {
	.owner	= THIS_MODULE,
	.read	= kb_ctl_read,
	.write	= kb_ctl_write,
	.llseek	= default_llseek,
};

static int kb_info_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < KB_NR_IMPLS; i++)
		seq_printf(m, "sizeof_%s %zu\n", kb_impl_names[i],
			   kb_timer_size(i));
	seq_printf(m, "twheel_tick_ns %llu\nhz %u\nbench_cpu %u\n",
		   twheel_tick_ns(), HZ, bench_cpu);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kb_info);

static int kb_busy_show(struct seq_file *m, void *v)
{
	u64 busy = 0, b;
	int cpu;

	for_each_online_cpu(cpu) {
		b = kb_busy_us(cpu);
		if (b == U64_MAX)
			return -EOPNOTSUPP;
		busy += b;
	}
	seq_printf(m, "busy_us %llu cpus %u\n", busy, num_online_cpus());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kb_busy);

/* The last exactness run; nothing while one runs (kb_lock). */
static int kb_exact_open(struct inode *inode, struct file *file)
{
	return single_open(file, kb_exact_show, NULL);
}

static ssize_t kb_exact_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&kb_lock);
	ret = seq_read(file, ubuf, count, ppos);
	mutex_unlock(&kb_lock);
	return ret;
}

static const struct file_operations kb_exact_fops = {
	.owner		= THIS_MODULE,
	.open		= kb_exact_open,
	.read		= kb_exact_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init kb_init(void)
{
	int ret = kb_run_init();

	if (ret)
		return ret;
	kb_dir = debugfs_create_dir("twheel_bench", NULL);
	debugfs_create_file("ctl", 0600, kb_dir, NULL, &kb_ctl_fops);
	debugfs_create_file("info", 0400, kb_dir, NULL, &kb_info_fops);
	debugfs_create_file("busy", 0400, kb_dir, NULL, &kb_busy_fops);
	debugfs_create_file("exact", 0400, kb_dir, NULL, &kb_exact_fops);
	return 0;
}
module_init(kb_init);

static void __exit kb_exit(void)
{
	struct kb_job job = { .cmd = KB_CMD_RELEASE };

	debugfs_remove(kb_dir);
	kb_scale_release(&job.res);
	kb_exact_exit();
	kb_run_exit();
}
module_exit(kb_exit);

MODULE_DESCRIPTION("twheel benchmark: twheel vs timer_list, hrtimer and workqueue timers");
MODULE_AUTHOR("twheel developers");
MODULE_LICENSE("GPL");
