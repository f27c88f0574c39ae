/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* A program tests/cli_lib.sh links -static: umad sim must refuse it without running it. */
#include <stdio.h>

int main(void)
{
	printf("static ran\n");
	return 0;
}
