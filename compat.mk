# SPDX-License-Identifier: GPL-2.0
#
# Feature probes of the kernel tree being built against, for twheel/compat.h.
# They look for the declaration itself, not a version number, so the module
# keeps building on kernels that renamed an API (and on distribution kernels
# that backported the new name).
tw_probe = $(shell grep -qsE '$(2)' $(srctree)/include/linux/$(1) && echo $(3))

# hrtimer_setup() (6.13) replaces hrtimer_init() + ->function (gone in 6.15).
tw_pat_hrtimer_setup := void hrtimer_setup[(]
ccflags-y += $(call tw_probe,hrtimer.h,$(tw_pat_hrtimer_setup),-DTWHEEL_HAVE_HRTIMER_SETUP)

# timer_delete_sync() (6.2) replaces del_timer_sync() (gone in 6.15).
tw_pat_timer_delete := int timer_delete_sync[(]
ccflags-y += $(call tw_probe,timer.h,$(tw_pat_timer_delete),-DTWHEEL_HAVE_TIMER_DELETE)

# WQ_PERCPU (6.17): per-CPU workqueues say so; 7.x warns at
# alloc_workqueue() when neither WQ_PERCPU nor WQ_UNBOUND is given.
tw_pat_wq_percpu := WQ_PERCPU[[:space:]]*=
ccflags-y += $(call tw_probe,workqueue.h,$(tw_pat_wq_percpu),-DTWHEEL_HAVE_WQ_PERCPU)

# vm_flags_mod() (6.3): vm_flags became read-only outside its helpers.
tw_pat_vm_flags_mod := void vm_flags_mod[(]
ccflags-y += $(call tw_probe,mm.h,$(tw_pat_vm_flags_mod),-DTWHEEL_HAVE_VM_FLAGS_SET)

# Alarm callbacks return void once enum alarmtimer_restart is gone (6.13);
# alarm_start_timer() (7.x) later replaces alarm_start(). Two changes, two
# probes: kernels in between have the void callback and alarm_start().
tw_pat_alarm_restart := enum alarmtimer_restart
ccflags-y += $(call tw_probe,alarmtimer.h,$(tw_pat_alarm_restart),-DTWHEEL_HAVE_ALARM_RESTART)
tw_pat_alarm_start_timer := bool alarm_start_timer[(]
ccflags-y += $(call tw_probe,alarmtimer.h,$(tw_pat_alarm_start_timer),-DTWHEEL_HAVE_ALARM_START_TIMER)
