/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A link's width and speed as PortInfo gives them (LINK_WIDTH_*, and
 * LinkSpeedActive's LINK_SPEED_* or, when set, LinkSpeedExtActive's
 * LINK_SPEED_EXT_*): its lanes, its rate per lane, the names tools print.
 * One table for the fabric's ports and for the sysfs files of a host.
 */
#ifndef UMAD_BASE_LINK_SPEED_H
#define UMAD_BASE_LINK_SPEED_H

#include "base/mad_layout.h"

/* Lanes of a width; 0 for none or several bits. */
static inline unsigned link_width_lanes(unsigned width)
{
	switch (width) {
	case LINK_WIDTH_1X: return 1;
	case LINK_WIDTH_2X: return 2;
	case LINK_WIDTH_4X: return 4;
	case LINK_WIDTH_8X: return 8;
	case LINK_WIDTH_12X: return 12;
	default: return 0;
	}
}

static inline const char *link_width_name(unsigned width)
{
	switch (width) {
	case LINK_WIDTH_1X: return "1X";
	case LINK_WIDTH_2X: return "2X";
	case LINK_WIDTH_4X: return "4X";
	case LINK_WIDTH_8X: return "8X";
	case LINK_WIDTH_12X: return "12X";
	default: return "?";
	}
}

/*
 * The active speed: its rate per lane in tenths of Gb/s and its name (an
 * unknown one is SDR's, as the kernel counts it).  FDR10, active in
 * MlnxExtPortInfo (mlnx_active) where no extended speed is, has QDR's rate
 * as the kernel counts it, and its own name.
 */
static inline unsigned link_lane_rate_x10(unsigned speed_active, unsigned ext_active)
{
	switch (ext_active) {
	case LINK_SPEED_EXT_FDR: return 140;
	case LINK_SPEED_EXT_EDR: return 250;
	case LINK_SPEED_EXT_HDR: return 500;
	case LINK_SPEED_EXT_NDR: return 1000;
	default: break;
	}
	switch (speed_active) {
	case LINK_SPEED_DDR: return 50;
	case LINK_SPEED_QDR: return 100;
	default: return 25;
	}
}

static inline const char *link_speed_name(unsigned speed_active, unsigned ext_active,
					  unsigned mlnx_active)
{
	switch (ext_active) {
	case LINK_SPEED_EXT_FDR: return "FDR";
	case LINK_SPEED_EXT_EDR: return "EDR";
	case LINK_SPEED_EXT_HDR: return "HDR";
	case LINK_SPEED_EXT_NDR: return "NDR";
	default: break;
	}
	if (mlnx_active & MLNX_LINK_SPEED_FDR10)
		return "FDR10";
	switch (speed_active) {
	case LINK_SPEED_DDR: return "DDR";
	case LINK_SPEED_QDR: return "QDR";
	default: return "SDR";
	}
}

#endif /* UMAD_BASE_LINK_SPEED_H */
