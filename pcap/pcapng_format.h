/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The numbers of the file formats captures are written in and read from:
 * pcapng blocks and options, the classic pcap header, and the ERF record
 * that carries each InfiniBand packet.  One place for the writer and the
 * reader.
 */
#ifndef LIBUMAD_PCAPNG_FORMAT_H
#define LIBUMAD_PCAPNG_FORMAT_H

/* pcapng block types. */
#define PCAPNG_BT_SHB		0x0a0d0d0a	/* section header */
#define PCAPNG_BT_IDB		0x00000001	/* interface description */
#define PCAPNG_BT_PB		0x00000002	/* packet (obsolete, still read) */
#define PCAPNG_BT_SPB		0x00000003	/* simple packet */
#define PCAPNG_BT_EPB		0x00000006	/* enhanced packet */
#define PCAPNG_BYTE_ORDER_MAGIC	0x1a2b3c4d
/* The versions readers know: 1.0, and 1.2, which some writers put. */
#define PCAPNG_VERSION_MAJOR	1
#define PCAPNG_VERSION_MINOR	0
#define PCAPNG_VERSION_MINOR_ALT 2

/* Fixed parts of blocks, in bytes: type, total length ... trailing total length. */
#define PCAPNG_BLOCK_MIN	12
#define PCAPNG_SHB_MIN		28	/* + magic, version, section length */
#define PCAPNG_IDB_MIN		20	/* + link type, reserved, snap length */
#define PCAPNG_EPB_MIN		32	/* + interface, timestamp, captured and original lengths */
#define PCAPNG_PB_MIN		32	/* + interface, drops, timestamp, the two lengths */
#define PCAPNG_SPB_MIN		16	/* + original length */

/* Options. */
#define PCAPNG_OPT_END		0
#define PCAPNG_OPT_COMMENT	1
#define PCAPNG_SHB_USERAPPL	4
#define PCAPNG_IF_NAME		2
#define PCAPNG_IF_DESCRIPTION	3
#define PCAPNG_IF_TSRESOL	9
#define PCAPNG_EPB_FLAGS	2
#define PCAPNG_EPB_PACKETID	5
/* if_tsresol: the top bit says a power of two, else of ten. */
#define PCAPNG_TSRESOL_BINARY	0x80

/* Classic pcap: magics for microseconds and nanoseconds, version 2.4. */
#define PCAP_MAGIC_US		0xa1b2c3d4
#define PCAP_MAGIC_NS		0xa1b23c4d
#define PCAP_VERSION_MAJOR	2
#define PCAP_FILE_HEADER_LEN	24
#define PCAP_RECORD_HEADER_LEN	16
/* The link type is the low 28 bits of the header's last word (the rest: FCS flags). */
#define PCAP_LINKTYPE_MASK	0x0fffffff

#define PCAPNG_LINKTYPE_ERF	197

/*
 * ERF record: timestamp (8, little-endian), type, flags, record length
 * (big-endian, header included), loss counter, wire length (big-endian, the
 * packet's), then extension headers (8 bytes each, while the type's top bit
 * says another follows) and the packet.
 */
#define ERF_HDR_LEN		16
#define ERF_OFF_TYPE		8
#define ERF_OFF_FLAGS		9
#define ERF_OFF_RLEN		10
#define ERF_OFF_LCTR		12
#define ERF_OFF_WLEN		14
#define ERF_EXT_LEN		8
#define ERF_TYPE_MORE		0x80	/* an extension header follows */
#define ERF_TYPE_MASK		0x7f
/* Records not of variable length are padded to a multiple of 8 bytes. */
#define ERF_FLAG_VARLEN		0x04
#define ERF_PAD_MAX		7
#define ERF_TYPE_ETH		2
#define ERF_TYPE_INFINIBAND	21
#define ERF_TYPE_INFINIBAND_LINK 25	/* link-layer (flow control) packets: no MAD */

#endif /* LIBUMAD_PCAPNG_FORMAT_H */
