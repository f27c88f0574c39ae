/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The smallest program on libibumad.so.3, for tests/cli_lib.sh to build in
 * each way the loader treats differently (plain, DT_RPATH, DT_RUNPATH,
 * set-user-ID): prints "probe ran", then each CA name umad_get_cas_names
 * gives, one a line.  Exit status 0 when it got at least one.
 */
#include <stdio.h>
#include <infiniband/umad.h>

int main(void)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int n, i;

	printf("probe ran\n");
	fflush(stdout);
	n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
	for (i = 0; i < n; i++)
		printf("%s\n", names[i]);
	return n > 0 ? 0 : 1;
}
