/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel compatibility shims: the module builds against Debian's 6.1 and the
 * 6.12 test kernel. Each shim detects the feature, not a version number.
 */
#ifndef _TWHEEL_COMPAT_H
#define _TWHEEL_COMPAT_H

#include <linux/device.h>
#include <linux/module.h>

/*
 * EXPORT_SYMBOL_IF_KUNIT(): both supported kernels have it (Debian's 6.1
 * carries the backport); it exports nothing without CONFIG_KUNIT.
 */
#include <kunit/visibility.h>

/*
 * Import the namespace of EXPORT_SYMBOL_IF_KUNIT() symbols. MODULE_IMPORT_NS()
 * takes an identifier before 6.13 and a string literal since; both expand to
 * this MODULE_INFO().
 */
#define TWHEEL_IMPORT_KUNIT_NS() \
	MODULE_INFO(import_ns, "EXPORTED_FOR_KUNIT_TESTING")

/* class_create() was a macro taking the owning module until 6.4. */
#ifdef class_create
#define twheel_class_create(name)	class_create(THIS_MODULE, name)
#else
#define twheel_class_create(name)	class_create(name)
#endif

#endif /* _TWHEEL_COMPAT_H */
