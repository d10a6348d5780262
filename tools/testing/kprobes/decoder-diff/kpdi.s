	msr nzcv, x0
	mrs x0, nzcv
	msr fpcr, x0
	msr fpsr, x0
	mrs x0, fpcr
	mrs x0, tpidr_el0
	msr tpidr_el0, x0
	mrs x0, tpidrro_el0
	mrs x0, ctr_el0
	mrs x0, cntvct_el0
	mrs x0, cntfrq_el0
	mrs x0, dczid_el0
	mrs x0, midr_el1
	mrs x0, daif
	mrs x0, elr_el1
	mrs x0, spsr_el1
	mrs x0, esr_el1
	mrs x0, far_el1
	mrs x0, currentel
	mrs x0, sp_el0
	mrs x0, s3_0_c4_c6_0
	msr daifset, #2
	msr daifclr, #2
	msr spsel, #1
	msr pan, #1
	msr uao, #1
	msr ssbs, #1
	msr dit, #1
	msr tco, #1
	cfinv
	xaflag
	axflag
	nop
	yield
	wfe
	wfi
	sev
	sevl
	esb
	psb csync
	tsb csync
	csdb
	bti
	bti c
	bti j
	bti jc
	paciasp
	pacibsp
	paciaz
	pacia1716
	autiasp
	autibsp
	xpaclri
	hint #0x7f
	dmb ish
	dsb sy
	isb
	sb
	clrex
	ssbb
	pssbb
	dc civac, x0
	dc cvau, x0
	dc zva, x0
	ic ivau, x0
	ic iallu
	tlbi vmalle1
	at s1e1r, x0
	sys #0, c7, c5, #0, x0
	sysl x0, #0, c1, c0, #0
	svc #0
	hvc #0
	brk #0
	hlt #0
	eret
	udf #0
	br x0
	blr x0
	ret
	braa x0, x1
	blraa x0, x1
	retaa
	retab
	b .
	bl .
	b.eq .
	.inst 0x54000010
	cbz x0, .
	tbz x0, #3, .
	adr x0, .
	adrp x0, .
	ldr x0, .
	ldr w0, .
	ldrsw x0, .
	ldr s0, .
	ldr d0, .
	ldr q0, .
	prfm pldl1keep, .
	ldxr x0, [x1]
	stxr w2, x0, [x1]
	ldaxr x0, [x1]
	stlxr w2, x0, [x1]
	ldxp x0, x3, [x1]
	ldar x0, [x1]
	stlr x0, [x1]
	ldapr x0, [x1]
	cas x0, x2, [x1]
	ldadd x0, x2, [x1]
	swp x0, x2, [x1]
	ldr x0, [x1]
	ldr x0, [sp, #8]
	str x0, [x1]
	stp x29, x30, [sp, #-16]!
	ld1 {v0.16b}, [x0]
	add x0, x1, x2
	fadd d0, d1, d2
	mov x0, sp
	cpyp [x0]!, [x1]!, x2!
	setp [x0]!, x1!, x2
	.inst 0xf83fd020
	.inst 0xf83f9020
	ld1d {z0.d}, p0/z, [x0]
	add z0.d, z1.d, z2.d
	smstart
	smstop
	rdsvl x0, #1
	zero {za}
	ldr za[w12, 0], [x0]
	irg x0, x1
	stg x0, [x1]
	ldg x0, [x1]
