# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for KP_KUNIT_QEMU (kunit.sh): arm64 virt with EL2
# (virtualization=on) under TCG, where the kernel runs at EL2 with VHE and
# its exceptions save PSTATE.M = EL2h.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image',
			   kernel_command_line='console=ttyAMA0 panic=-1',
			   extra_qemu_params=['-machine', 'virt,virtualization=on',
					      '-cpu', 'max,pauth-impdef=on',
					      '-accel', 'tcg,thread=single', '-smp', '2'])
