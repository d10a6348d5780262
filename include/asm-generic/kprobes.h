/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kprobe blacklist annotations shared by every architecture.
 *
 * NOKPROBE_SYMBOL(fn) records the address of @fn in the _kprobe_blacklist
 * section; the kprobes core refuses a probe anywhere inside such a
 * function.  __kprobes puts a whole function into .kprobes.text, which is
 * refused the same way (and kept away from ftrace).  nokprobe_inline
 * forces a helper inline into its (blacklisted) callers so that it never
 * exists as a probeable copy.
 */
#ifndef _ASM_GENERIC_KPROBES_H
#define _ASM_GENERIC_KPROBES_H

#if defined(__KERNEL__) && !defined(__ASSEMBLY__)

#ifdef CONFIG_KPROBES
/* One word per blacklisted function: its address, read at boot/load. */
# define __NOKPROBE_SYMBOL(fn)						\
	static unsigned long __used __section("_kprobe_blacklist")	\
		__kprobe_nokprobe_##fn = (unsigned long)fn;
# define __kprobes		notrace __section(".kprobes.text")
# define nokprobe_inline		__always_inline
#else
# define __NOKPROBE_SYMBOL(fn)
# define __kprobes
# define nokprobe_inline		inline
#endif

# define NOKPROBE_SYMBOL(fn)	__NOKPROBE_SYMBOL(fn)

#endif /* __KERNEL__ && !__ASSEMBLY__ */

#endif /* _ASM_GENERIC_KPROBES_H */
