# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for the kprobes workbench: x86_64 under TCG,
# single-threaded (multi-threaded TCG in QEMU 7.2 can run stale code after
# the guest patches its own text).
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 panic=-1',
			   extra_qemu_params=['-accel', 'tcg,thread=single',
					      '-smp', '2', '-cpu', 'max',
					      '-bios', 'qboot.rom'])
