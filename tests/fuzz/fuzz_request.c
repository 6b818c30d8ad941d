/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's request parser (request.h), fed any bytes, as any member of the
 * control group may send them.  Invariants: no crash; a refusal says why; an accepted
 * request names a valid device or none, has only the flags its kind takes, and survives
 * sitd_request_format -> sitd_request_parse unchanged.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "proto/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sitd_request r, again;
	char err[128], line[300];
	size_t n;

	memset(err, 0, sizeof(err));
	if (sitd_request_parse((const char *)data, size, &r, err, sizeof(err)) < 0) {
		CHECK(err[0] != '\0');
		return 0;
	}
	CHECK(r.kind < SITD_REQ_COUNT);
	CHECK(r.kind != SITD_REQ_PRL || (r.prl.dev[0] && memchr(r.prl.dev, '\0', sizeof(r.prl.dev))));
	CHECK(r.kind != SITD_REQ_6RD || (r.rd.dev[0] && memchr(r.rd.dev, '\0', sizeof(r.rd.dev))));
	CHECK(memchr(r.name, '\0', sizeof(r.name)) != NULL);
	CHECK(!r.name[0] || r.kind == SITD_REQ_SHOW);
	CHECK(!r.stats || r.kind == SITD_REQ_SHOW);
	CHECK(!r.json || r.kind == SITD_REQ_SHOW || r.kind == SITD_REQ_STATUS ||
	      r.kind == SITD_REQ_MONITOR);
	for (const char *p = r.name; *p; p++)
		CHECK(*p != '/' && *p != ':' && (unsigned char)*p > ' ');
	n = sitd_request_format(&r, line, sizeof(line));
	CHECK(n < sizeof(line) && strlen(line) == n);
	CHECK(sitd_request_parse(line, n, &again, err, sizeof(err)) == 0);
	/* 6rd-reset ignores the prefixes given before it (iproute2 sends SIOCDEL6RD). */
	if (r.kind == SITD_REQ_6RD && r.rd.op == SITD_6RD_OP_RESET)
		CHECK(again.rd.op == SITD_6RD_OP_RESET && !strcmp(r.rd.dev, again.rd.dev));
	else
		CHECK(!memcmp(&r, &again, sizeof(r)));
	return 0;
}
