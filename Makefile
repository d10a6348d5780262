# SPDX-License-Identifier: GPL-2.0
# kprobes, rebuilt: the workbench.
#
#   make demo     build the x86_64 kernel and show kprobes at work in QEMU
#   make check    the tests: KUnit, guest tests, checkpatch, sparse
#   make matrix   the other configurations, each built and booted (long)
#   make shell    a shell in the same guest
#   make series   export the work as a git format-patch series
#   make lint     that series through checkpatch --strict (seconds)
#   make series-check  that series as a maintainer takes it, built after every patch
#   make bench    per-hit and registration cost, ours beside upstream
#   make bench-steps  the per-hit cost at chosen steps of the series: what each brings
#   make stress   the long runs: concurrency, lifetimes, probe everything
#   make archcheck  the other architectures: cross builds, riscv64 arm ppc64le KUnit
#   make report   results/REPORT.md and README's bench table from the stored results
#
# FLAVOUR=ours (default) or FLAVOUR=upstream (the untouched base, same
# config); ARCH=x86_64 or ARCH=arm64 (check: both when not given).

FLAVOUR ?= ours
# make stress DEBUG=1: on the debug flavour of the build (KASAN, lockdep...)
DEBUG ?= 0
T := tools/testing/kprobes
# The kernel's ARCH from the environment is not ours to reuse.
ifeq ($(origin ARCH),command line)
ARCHES := $(ARCH)
else
ARCHES := x86_64 arm64
endif
DEMO_ARCH := $(firstword $(if $(filter command line,$(origin ARCH)),$(ARCH),x86_64))

.PHONY: all demo check matrix shell series series-check lint bench bench-steps bench-teardown report stress archcheck deps stage build kunit itest clean distclean help

all: help

help:
	@sed -n '3,18p' Makefile | sed 's/^# \{0,1\}//'

deps:
	ARCHES="$(ARCHES)" $(T)/deps.sh

stage: deps
	$(T)/stage.sh $(FLAVOUR)

build: deps
	@for a in $(ARCHES); do $(T)/build.sh $(FLAVOUR) $$a || exit 1; done

kunit: build
	@for a in $(ARCHES); do $(T)/kunit.sh $(FLAVOUR) $$a || exit 1; done

itest: build
	@for a in $(ARCHES); do $(T)/itest.sh $(FLAVOUR) $$a || exit 1; done

# demo and shell prepare their one architecture only.
demo:
	ARCHES=$(DEMO_ARCH) $(T)/deps.sh
	$(T)/build.sh $(FLAVOUR) $(DEMO_ARCH)
	$(T)/boot.sh $(FLAVOUR) $(DEMO_ARCH) demo

shell:
	ARCHES=$(DEMO_ARCH) $(T)/deps.sh
	$(T)/build.sh $(FLAVOUR) $(DEMO_ARCH)
	$(T)/boot.sh $(FLAVOUR) $(DEMO_ARCH) shell

check:
	FLAVOUR=$(FLAVOUR) ARCHES="$(ARCHES)" $(T)/check.sh

# The config matrix in full: make check compiles its variants, this
# builds and boots each (a kernel build per variant and architecture).
matrix: deps
	FLAVOUR=$(FLAVOUR) ARCHES="$(ARCHES)" $(T)/matrix.sh

series: deps
	$(T)/series.sh

# The exported series through checkpatch --strict (seconds).
lint: deps
	$(T)/checkpatch.sh

# git am on the base, checkpatch --strict with the tree, kernel-doc,
# MAINTAINERS, then a build after every patch on x86_64 and arm64, and
# on riscv64 from the compat patch on (KP_SC_ARCHES narrows them);
# KP_SC_BUILD=vmlinux links each step (hours), the default compiles the
# kprobes objects.  make check runs its quick part.
series-check:
	ARCHES="x86_64 arm64 riscv64" $(T)/deps.sh
	$(T)/series-check.sh

# Keeps the raw results in $(T)/results/bench/ and regenerates the report.
bench: deps
	ARCHES="$(ARCHES)" $(T)/bench.sh

# The per-hit rows on the kernels of chosen steps of the series (the
# steps where each behaviour comes, KP_BENCH_STEPS); keeps the raw
# results in $(T)/results/bench-steps/ and regenerates the report.
bench-steps: deps
	ARCHES="$(ARCHES)" nice $(T)/bench-steps.sh

# The teardown series for plain 6.12 (patches/teardown/) on both cores:
# closing and clearing 1,000 kprobes on plain 6.12, on 6.12 with the
# series and on ours; keeps the raw results in $(T)/results/teardown/.
bench-teardown: deps
	ARCHES="$(ARCHES)" $(T)/bench-teardown.sh

# The report of the stored results, and README's per-hit table (seconds).
report:
	python3 $(T)/bench-report.py report

stress: deps
	FLAVOUR=$(FLAVOUR) ARCHES="$(ARCHES)" KP_DEBUG=$(DEBUG) $(T)/stress.sh

# The architectures other than x86_64 and arm64: not part of
# make check (hours of cross builds).  ARCH=riscv64 (ppc64le s390x arm
# mips i386 arc parisc sh4 sparc64) narrows it, FLAVOUR=ours or upstream
# picks one flavour (default both), KP_ARCHCHECK_FAST=1 compiles the
# kprobes objects only.
AC_ARCHES := $(if $(filter command line,$(origin ARCH)),$(ARCH),riscv64 ppc64le s390x arm mips i386 arc parisc sh4 sparc64)
AC_FLAVOURS := $(if $(filter command line,$(origin FLAVOUR)),$(FLAVOUR),ours upstream)
archcheck:
	ARCHES="$(AC_ARCHES)" $(T)/deps.sh
	ARCHES="$(AC_ARCHES)" FLAVOURS="$(AC_FLAVOURS)" $(T)/archcheck.sh

# The build directory: KP_BUILD from the environment, as the scripts use it.
B := $(or $(KP_BUILD),build)
clean:
	rm -rf $(B)/obj-* $(B)/src-* $(B)/series* $(B)/*.log $(B)/*.results $(B)/debug

# The extracted base is read-only (deps.sh): its directories are made
# writable first, or a user who is not root could not remove it.
# A KP_BUILD of ours has the extracted base or a build in it: nothing
# else is removed.
distclean:
	[ ! -d $(B) ] || [ -d $(B)/base ] || ls -d $(B)/obj-* >/dev/null 2>&1 || \
		{ echo "$(B) does not look like a kprobes build directory"; exit 1; }
	[ ! -d $(B) ] || find $(B) -type d ! -perm -u+w -exec chmod u+w {} +
	rm -rf $(B)
