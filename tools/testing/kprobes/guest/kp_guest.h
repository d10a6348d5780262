/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest tools (kp_perfsb, kp_attach, kp_bpf), which
 * are built with the kernel's nolibc (included before this file).
 */
#ifndef KP_GUEST_H
#define KP_GUEST_H

/*
 * The integer in a sysfs file, after its first @skip characters ("config:"
 * of a PMU format), or -1.
 */
static inline int kpg_read_int(const char *path, int skip)
{
	char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= skip)
		return -1;
	buf[n] = '\0';
	return atoi(buf + skip);
}

/* Run @cmd with /bin/sh -c; its exit status, or -1. */
static inline int kpg_sh(const char *cmd)
{
	char *args[4];
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		args[0] = "/bin/sh";
		args[1] = "-c";
		args[2] = (char *)cmd;
		args[3] = NULL;
		execve("/bin/sh", args, environ);
		exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WEXITSTATUS(status);
}

#endif /* KP_GUEST_H */
