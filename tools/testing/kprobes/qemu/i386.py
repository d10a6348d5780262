# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for the kprobes workbench: i386 (ARCH=i386) under
# TCG, single-threaded, as x86_64.py.  The default firmware (SeaBIOS): its
# MP table starts the second CPU of a kernel without ACPI (configs/i386.config).
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='i386',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='i386',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 panic=-1',
			   extra_qemu_params=['-accel', 'tcg,thread=single',
					      '-smp', '2', '-cpu', 'max'])
