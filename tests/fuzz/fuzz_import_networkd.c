/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: `sitd import networkd` (sitd_import_networkd) on .netdev and .network
 * files.
 *
 * Input: NAME \0 TEXT \0 NAME \0 TEXT ..., at most 8 files: each NAME its file's name
 * (the suffix .netdev or .network decides what it is; a newline in it becomes "_", as the
 * refusals are lines), each TEXT its bytes.  The checks are fuzz_import.h's.
 */
#include "fuzz_import.h"

enum { FILES = 8 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char copy[1 << 16];
	struct sitd_import_file f[FILES];
	unsigned n = 0;
	size_t i = 0;

	if (size >= sizeof(copy))
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	while (i < size && n < FILES) {
		size_t name = i, text;

		for (; i < size && copy[i]; i++)
			if (copy[i] == '\n')
				copy[i] = '_';
		if (i >= size)
			break;
		text = ++i;
		while (i < size && copy[i])
			i++;
		f[n++] = (struct sitd_import_file){ .name = copy + name, .text = copy + text,
						    .len = i - text };
		i++;
	}
	fi_check(sitd_import_networkd, f, n);
	return 0;
}
