# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for archcheck-kunit.sh: 32-bit arm (ARMv7, ARM
# instruction set, so that jump optimization is offered) on QEMU's virt
# machine under TCG, with one CPU.  With two, every freed slot page made
# minutes of work: its vfree purges the lazily freed vmap areas, and
# arm flushes the TLB one page at a time over the whole span between
# the module area and the vmalloc area (~200,000 inner-shareable
# invalidations, each a synced flush of every vCPU under TCG) while the
# other CPU spins in stop_machine; RCU stalls followed.  (Real hardware
# does those invalidations in milliseconds.)  The cases that need a
# second CPU skip, as on i386.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='''
CONFIG_ARCH_VIRT=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0 panic=-1',
			   extra_qemu_params=['-machine', 'virt', '-accel', 'tcg,thread=single',
					      '-smp', '1'])
