# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for archcheck-kunit.sh: little-endian ppc64 on
# QEMU's pseries machine (POWER8) under TCG.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='powerpc',
			   kconfig='''
CONFIG_PPC64=y
CONFIG_CPU_LITTLE_ENDIAN=y
CONFIG_PPC_PSERIES=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_HVC_CONSOLE=y''',
			   qemu_arch='ppc64',
			   kernel_path='vmlinux',
			   kernel_command_line='console=hvc0 panic=-1',
			   extra_qemu_params=['-M', 'pseries', '-cpu', 'power8',
					      '-accel', 'tcg,thread=single', '-smp', '2'])
