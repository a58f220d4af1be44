/*
 * m5: the guest's handle on the simulator, for g5net images.
 *
 *   m5 exit [DELAY_NS]                    end the simulation
 *   m5 resetstats [DELAY_NS [PERIOD_NS]]  zero gem5's statistics
 *   m5 dumpstats [DELAY_NS [PERIOD_NS]]   append a statistics block to stats.txt
 *   m5 checkpoint [DELAY_NS [PERIOD_NS]]  take a gem5 checkpoint
 *   m5 readfile                           copy the job file to stdout
 *   m5 writefile FILE [HOST_NAME]         copy FILE into gem5's output folder
 *
 * Under gem5 each command is one x86 pseudo-instruction: the reserved opcode
 * 0x0F 0x04 followed by a 16-bit function number, with the arguments in the
 * System V argument registers (rdi, rsi, rdx, rcx) and the result in rax.
 *
 * The same image boots under QEMU, where that opcode raises #UD and would kill
 * the process, so nothing is executed unless the kernel command line says
 * g5net.engine=gem5. Otherwise `exit` reboots (QEMU runs with -no-reboot, so
 * its process ends), `readfile` reads the job disk (/dev/sdb, the script
 * padded with NUL bytes) and the statistics commands do nothing.
 *
 * Built static by g5net/artifacts/m5tool.py; no dependency but libc.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <termios.h>
#include <unistd.h>

enum {
	FN_EXIT = 0x21,
	FN_RESET_STATS = 0x40,
	FN_DUMP_STATS = 0x41,
	FN_CHECKPOINT = 0x43,
	FN_WRITE_FILE = 0x4f,
	FN_READ_FILE = 0x50,
};

/* The function number is an immediate of the instruction, so each call site
 * needs it at compile time: a macro, not a function. */
#define PSEUDO_OP(fn, a0, a1, a2, a3)                                       \
	({                                                                  \
		uint64_t ret_;                                              \
		__asm__ volatile(".byte 0x0f, 0x04\n\t.word %c[f]"          \
				 : "=a"(ret_)                               \
				 : [f] "i"(fn), "D"((uint64_t)(a0)),        \
				   "S"((uint64_t)(a1)), "d"((uint64_t)(a2)),\
				   "c"((uint64_t)(a3))                      \
				 : "memory");                               \
		ret_;                                                       \
	})

#define JOB_DISK "/dev/sdb"
#define CHUNK (64 * 1024)

static char buf[CHUNK];

static int on_gem5(void)
{
	char line[4096];
	FILE *f = fopen("/proc/cmdline", "r");
	int found = 0;

	if (!f)
		return 0; /* unknown engine: never risk the opcode */
	if (fgets(line, sizeof line, f)) {
		for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n"))
			if (strcmp(tok, "g5net.engine=gem5") == 0)
				found = 1;
	}
	fclose(f);
	return found;
}

static uint64_t arg_ns(int argc, char **argv, int i)
{
	char *end;
	uint64_t v;

	if (i >= argc)
		return 0;
	errno = 0;
	v = strtoull(argv[i], &end, 0);
	if (errno || *end || end == argv[i]) {
		fprintf(stderr, "m5: %s: not a number of nanoseconds: %s\n",
			argv[1], argv[i]);
		exit(2);
	}
	return v;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The console is a serial port: what the tty layer still buffers is lost when
 * the simulation ends or QEMU exits, and that is the results block. */
static void drain_consoles(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (isatty(fd))
			tcdrain(fd);
}

static int cmd_exit(int argc, char **argv, int gem5)
{
	uint64_t delay = arg_ns(argc, argv, 2);

	fflush(NULL);
	drain_consoles();
	if (gem5) {
		PSEUDO_OP(FN_EXIT, delay, 0, 0, 0);
		return 0;
	}
	sync();
	reboot(RB_AUTOBOOT);
	perror("m5: exit: reboot");
	return 1;
}

static int cmd_stats(int argc, char **argv, int gem5, int fn)
{
	uint64_t delay = arg_ns(argc, argv, 2);
	uint64_t period = arg_ns(argc, argv, 3);

	if (!gem5)
		return 0;
	switch (fn) {
	case FN_RESET_STATS:
		PSEUDO_OP(FN_RESET_STATS, delay, period, 0, 0);
		break;
	case FN_DUMP_STATS:
		PSEUDO_OP(FN_DUMP_STATS, delay, period, 0, 0);
		break;
	case FN_CHECKPOINT:
		PSEUDO_OP(FN_CHECKPOINT, delay, period, 0, 0);
		break;
	}
	return 0;
}

static int readfile_gem5(void)
{
	uint64_t offset = 0;

	for (;;) {
		/* gem5 writes through the guest's page tables: every page of the
		 * buffer must be present and private, not the shared zero page
		 * an untouched .bss page maps to. */
		memset(buf, 0, sizeof buf);
		uint64_t n = PSEUDO_OP(FN_READ_FILE, buf, sizeof buf, offset, 0);

		if (n == 0)
			return 0;
		if (n > sizeof buf || write_all(1, buf, n) < 0) {
			perror("m5: readfile: stdout");
			return 1;
		}
		offset += n;
	}
}

static int readfile_disk(void)
{
	int fd = open(JOB_DISK, O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "m5: readfile: %s: %s\n", JOB_DISK, strerror(errno));
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "m5: readfile: %s: %s\n", JOB_DISK,
				strerror(errno));
			close(fd);
			return 1;
		}
		char *nul = memchr(buf, 0, (size_t)n);
		size_t len = nul ? (size_t)(nul - buf) : (size_t)n;

		if (write_all(1, buf, len) < 0) {
			perror("m5: readfile: stdout");
			close(fd);
			return 1;
		}
		if (n == 0 || nul) {
			close(fd);
			return 0;
		}
	}
}

static int cmd_writefile(int argc, char **argv, int gem5)
{
	const char *path, *host_name;
	uint64_t offset = 0;
	int fd;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: m5 writefile FILE [HOST_NAME]\n");
		return 2;
	}
	path = argv[2];
	host_name = argc == 4 ? argv[3] : path;
	if (!gem5)
		return 0;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "m5: writefile: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "m5: writefile: %s: %s\n", path, strerror(errno));
			close(fd);
			return 1;
		}
		/* gem5 opens (and truncates) the host file on the offset-0 call,
		 * so an empty file still needs that one call. */
		if (n == 0 && offset > 0)
			break;
		PSEUDO_OP(FN_WRITE_FILE, buf, n, offset, host_name);
		offset += (uint64_t)n;
		if (n == 0)
			break;
	}
	close(fd);
	return 0;
}

static void usage(FILE *out)
{
	fputs("usage: m5 exit [DELAY_NS]\n"
	      "       m5 resetstats|dumpstats|checkpoint [DELAY_NS [PERIOD_NS]]\n"
	      "       m5 readfile\n"
	      "       m5 writefile FILE [HOST_NAME]\n"
	      "gem5 pseudo-instructions; under any other engine (g5net.engine= on\n"
	      "the kernel command line) exit reboots, readfile reads " JOB_DISK ",\n"
	      "the others do nothing.\n",
	      out);
}

int main(int argc, char **argv)
{
	int gem5;
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		usage(stdout);
		return 0;
	}
	gem5 = on_gem5();
	if (strcmp(cmd, "exit") == 0)
		return cmd_exit(argc, argv, gem5);
	if (strcmp(cmd, "resetstats") == 0)
		return cmd_stats(argc, argv, gem5, FN_RESET_STATS);
	if (strcmp(cmd, "dumpstats") == 0)
		return cmd_stats(argc, argv, gem5, FN_DUMP_STATS);
	if (strcmp(cmd, "checkpoint") == 0)
		return cmd_stats(argc, argv, gem5, FN_CHECKPOINT);
	if (strcmp(cmd, "readfile") == 0)
		return gem5 ? readfile_gem5() : readfile_disk();
	if (strcmp(cmd, "writefile") == 0)
		return cmd_writefile(argc, argv, gem5);
	fprintf(stderr, "m5: unknown command: %s\n", cmd);
	usage(stderr);
	return 2;
}
