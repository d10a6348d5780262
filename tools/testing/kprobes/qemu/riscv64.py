# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for archcheck-kunit.sh: riscv64 virt under TCG,
# with the OpenSBI firmware of Debian's opensbi package.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='riscv',
			   kconfig='''
CONFIG_NONPORTABLE=y
CONFIG_ARCH_VIRT=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_OF_PLATFORM=y
CONFIG_SERIAL_EARLYCON_RISCV_SBI=y''',
			   qemu_arch='riscv64',
			   kernel_path='arch/riscv/boot/Image',
			   kernel_command_line='console=ttyS0 panic=-1',
			   extra_qemu_params=['-machine', 'virt', '-cpu', 'rv64',
					      '-bios', '/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin',
					      '-accel', 'tcg,thread=single', '-smp', '2'])
