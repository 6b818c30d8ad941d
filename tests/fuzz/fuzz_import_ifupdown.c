/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: `sitd import ifupdown` (sitd_import_ifupdown) on an interfaces(5) file.
 *
 * Input: the file's text, as is (any bytes).  The checks are fuzz_import.h's: stanzas that
 * sitd's own config parser reads back whole, or "FILE:LINE: message" refusals and nothing
 * printed; the same verdict into short buffers.
 */
#include "fuzz_import.h"

static int run_ifupdown(const struct sitd_import_file *files, unsigned n, char *out, size_t outcap,
			char *err, size_t errcap)
{
	(void)n;
	return sitd_import_ifupdown(&files[0], out, outcap, err, errcap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sitd_import_file f = { .name = "interfaces", .text = (const char *)data, .len = size };

	fi_check(run_ifupdown, &f, 1);
	return 0;
}
