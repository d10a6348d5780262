/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KP_BENCH_H
#define KP_BENCH_H

#define KPB_NFUNCS 10000

extern int (* const kpb_fns[KPB_NFUNCS])(int);
unsigned long kpb_target(unsigned long x);
unsigned long kpb_target_nt(unsigned long x);
unsigned long kpb_sleeper(unsigned long round);

#endif
