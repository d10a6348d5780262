# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for kunit-pnmi.sh: arm64 virt with a GICv3 (which
# pseudo-NMIs need) under TCG, booted with irqchip.gicv3_pseudo_nmi=1.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image',
			   kernel_command_line='console=ttyAMA0 panic=-1 irqchip.gicv3_pseudo_nmi=1',
			   extra_qemu_params=['-machine', 'virt,gic-version=3',
					      '-cpu', 'max,pauth-impdef=on',
					      '-accel', 'tcg,thread=single', '-smp', '2'])
