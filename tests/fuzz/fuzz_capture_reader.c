/*
 * libFuzzer target for the capture reader (what the replay backend and
 * "umad capture stats" feed every file through):
 *   clang -g -fsanitize=fuzzer,address -I. -Ilibumad tests/fuzz_capture_reader.c \
 *         pcap/pcapng_reader.c -include config.h -o fuzz_capture_reader
 *   ./fuzz_capture_reader -max_total_time=60
 * or "make fuzz" after ./configure CC=clang.  Every input must end in a
 * record stream, an error message, or the end: never a crash or a leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pcap/pcapng_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/umad-fuzz-XXXXXX", err[512];
	struct capture_record rec;
	struct capture_reader *r;
	size_t total = 0;
	FILE *f;
	int fd = mkstemp(path);

	if (fd < 0)
		return 0;
	f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		unlink(path);
		return 0;
	}
	if (size)
		fwrite(data, 1, size, f);
	fclose(f);
	r = capture_open(path, err, sizeof(err));
	if (r) {
		while (capture_next(r, &rec, err, sizeof(err)) == 1)
			total += rec.len + (rec.comment[0] != 0) + (rec.iface_name[0] != 0);
		capture_close(r);
	}
	unlink(path);
	return total > (size_t)-2;	/* keeps the loop from being optimized away */
}
