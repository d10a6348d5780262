/* SPDX-License-Identifier: GPL-2.0 */
/* kp_conc: the functions the concurrency stress calls and probes. */
#ifndef KP_CONC_H
#define KP_CONC_H

int kpc_before(int x);
int kpc_target(int x);
int kpc_after(int x);

#endif
