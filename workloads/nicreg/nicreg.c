/*
 * nicreg: read, or set a field of, one 32-bit register of a NIC.
 *
 *   nicreg IFACE OFFSET                 print the register
 *   nicreg IFACE OFFSET VALUE [MASK]    set the bits of MASK (default all) to
 *                                       those of VALUE, then print it
 *
 * The register is read back after the write and printed in hex: what the
 * device holds, not what was asked. OFFSET is a byte offset into the NIC's
 * first memory BAR (/sys/class/net/IFACE/device/resource0), mapped through
 * sysfs: the kernel has no /dev/mem (CONFIG_DEVMEM is off).
 *
 * Why: the e1000 driver leaves some of the NIC's registers at their reset
 * values, and no ethtool option reaches them; `host.nic.rx_wthresh` sets
 * RXDCTL.WTHRESH this way (configs/README.md, "The e1000 under UDP overload").
 *
 * Built static by g5net/artifacts/guest_tools.py; no dependency but libc.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static uint32_t number(const char *what, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v > UINT32_MAX) {
		fprintf(stderr, "nicreg: %s: not a 32-bit number: %s\n", what, s);
		exit(2);
	}
	return (uint32_t)v;
}

int main(int argc, char **argv)
{
	char path[256];
	long page = sysconf(_SC_PAGESIZE);
	uint32_t offset, value = 0, mask = UINT32_MAX;
	volatile uint32_t *reg;
	void *map;
	int fd;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: nicreg IFACE OFFSET [VALUE [MASK]]\n");
		return 2;
	}
	offset = number("OFFSET", argv[2]);
	if (offset % 4) {
		fprintf(stderr, "nicreg: OFFSET %#x is not 4-byte aligned\n", offset);
		return 2;
	}
	if (argc >= 4)
		value = number("VALUE", argv[3]);
	if (argc == 5)
		mask = number("MASK", argv[4]);

	snprintf(path, sizeof path, "/sys/class/net/%s/device/resource0", argv[1]);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	map = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)(offset & ~(uint32_t)(page - 1)));
	if (map == MAP_FAILED) {
		perror(path);
		return 1;
	}
	reg = (volatile uint32_t *)((char *)map + (offset & (uint32_t)(page - 1)));
	if (argc >= 4)
		*reg = (*reg & ~mask) | (value & mask);
	printf("0x%08x\n", *reg);
	return 0;
}
