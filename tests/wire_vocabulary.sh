#!/bin/sh
# The wire format has one vocabulary (base/mad_wire.h for the headers,
# base/mad_layout.h for the attribute bodies, on the public umad headers;
# base/fault_req.h for the bytes of a fault request):
# outside it, the library, the backends, the fabric, the capture code, the
# CLI and the examples name header fields, attribute fields and protocol
# numbers instead of spelling them.  This looks for the spellings that
# crept back before: byte offsets into a MAD, a packet or an attribute body
# (mad[N], d + N, rec[N]), attribute bits shifted or masked by number,
# offsets defined file by file, the QP1 Q_Key, a MAD size or class test
# written as a number, a private copy of the accessors, P_Key bits worked
# outside the partition rule; and for replay or the CLI reaching into the
# simulator.
# Tests may spell numbers (an expected value written twice proves nothing).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top_srcdir" || exit 1
status=0

sources=$(ls libumad/*.[ch] base/*.[ch] backends/*.[ch] simfabric/*.[ch] pcap/*.[ch] cli/*.[ch] \
	examples/*.[ch] 2>/dev/null | grep -vE '^base/(mad_wire|mad_layout|fault_req)\.h$')

# look WHAT REGEX [BUT]: report every line of the sources that matches (and not BUT).
look() {
	found=$(grep -nE "$2" $sources | grep -vE "${3:-^$}")
	if [ -n "$found" ]; then
		echo "FAIL: $1:"
		printf "%s\n" "$found"
		status=1
	fi
}

look "a byte offset into a MAD or packet" '\b(mad|smp|pkt|packet|hdr_bytes)\[[0-9]+\]'
# The names the code gives an attribute's or record's bytes; their fields are
# mad_layout.h's (mad_get/mad_set, MAD_AT), never a number added or indexed.
# (An array's declared size, and the bytes after a header struct, x + 1, are not offsets.)
body='(d|data|rec|grec|ii|have|ntc|notice|details|mgid|gid|cpi|si|smi|gi|ni|o|e|mad|smp|pkt|packet)'
num='(0x[0-9a-fA-F]+|[0-9]+)\b'
look "a bare offset into an attribute (d + N, rec[N])" \
	"(^|[^a-zA-Z0-9_.])(->)?$body[[:space:]]*\\+[[:space:]]*[0-9]+\\b|\\b$body\\[[^]]*\\b[0-9]+\\b[^]]*\\]" \
	"(u?int(8|16|32|64)_t|char) \\*?$body\\[|\\($body \\+ 1\\)"
look "an attribute's bits shifted or masked by number" \
	"(\\b$body\\[[^]]*\\]|get_be(16|24|32|64)\\([^)]*\\))[[:space:]]*(>>|<<|&|\\|)[[:space:]]*$num"
look "an attribute byte or word assembled from values shifted by number" \
	"(\\b$body\\[[^]]*\\][[:space:]]*[|&]?=|put_be(16|24|32|64)\\().*(<<|>>)[[:space:]]*[0-9]+\\b"
# Field offsets of a file's own (the capture file's ERF header is its own format).
look "field offsets defined outside the vocabulary" \
	'#define[[:space:]]+[A-Z0-9_]*(_OFF|OFF_)[A-Z0-9_]*[[:space:]]+\(?[0-9]' '^pcap/pcapng_format\.h:'
look "the QP1 Q_Key as a number" '0x8001'
look "a MAD size of its own" '#define[[:space:]]+[A-Z_]*MAD_SIZE[[:space:]]+[0-9]'
look "a class, method or attribute compared with a number" \
	'(class|method|attr[a-z_]*)\)?[[:space:]]*[!=<>]=?[[:space:]]*0x[0-9a-fA-F]+'
look "big-endian accessors of its own" '^static inline [a-z0-9_]+ (get|put)_?be(16|24|32|64)\('
# The partition rule is pkey_match() (and pkey_partition, pkey_as_full); nothing
# else masks a P_Key, nor borrows its masks for other 15-bit fields.
look "P_Key bits worked by hand" '\b(SA_)?PKEY_(KEY_MASK|BASE_MASK|FULL_MEMBER)\b'
# The CLI's capture commands and replay stand on their own; cli/fabric_cmd.c is
# the shared fabric's front end, built only with the simulator.
found=$(grep -ln '#include "simfabric/' backends/replay.c cli/umad.c pcap/*.c 2>/dev/null)
if [ -n "$found" ]; then
	echo "FAIL: replay, the CLI or capture include the simulator: $found"
	status=1
fi
[ "$status" -eq 0 ] && echo "PASS: the wire format is spelled once"
exit "$status"
