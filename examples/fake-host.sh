#!/bin/sh
# Write a small fake sysfs tree for one host, in the kernel's file formats:
# mlx5_0 (two IB ports: 1 ACTIVE, 2 DOWN/Polling) and mlx5_1 (one Ethernet port).
# Usage: fake-host.sh DIR   -> DIR/sys/class/infiniband{,_mad}, DIR/dev/infiniband
set -eu
root=${1:?usage: fake-host.sh DIR}
ib=$root/sys/class/infiniband
mad=$root/sys/class/infiniband_mad
dev=$root/dev/infiniband
mkdir -p "$ib" "$mad" "$dev"

put() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; }

# ca NAME GUID_PREFIX(12 hex digits)
ca() {
	d=$ib/$1
	put "$d/node_type" "1: CA"
	put "$d/fw_ver" "20.39.1002"
	put "$d/hw_rev" "0"
	put "$d/hca_type" "MT4123"
	put "$d/board_id" "MT_0000000010"
	put "$d/node_guid" "$(echo "$2" | sed 's/\(....\)\(....\)\(....\)/\1:\2:\3:/')0001"
	put "$d/sys_image_guid" "$(echo "$2" | sed 's/\(....\)\(....\)\(....\)/\1:\2:\3:/')0001"
}

# port CA N STATE PHYS RATE LINK_LAYER LID GUID_SUFFIX UMAD_ID
port() {
	p=$ib/$1/ports/$2
	put "$p/state" "$3"
	put "$p/phys_state" "$4"
	put "$p/rate" "$5"
	put "$p/link_layer" "$6"
	put "$p/lid" "$7"
	put "$p/lid_mask_count" "0"
	put "$p/sm_lid" "0x1"
	put "$p/sm_sl" "0"
	put "$p/cap_mask" "0xa651e848"
	put "$p/gids/0" "fe80:0000:0000:0000:$8"
	put "$p/pkeys/0" "0xffff"
	put "$p/pkeys/1" "0x0000"
	put "$mad/umad$9/ibdev" "$1"
	put "$mad/umad$9/port" "$2"
	: > "$dev/umad$9"
	: > "$dev/issm$9"
}

put "$mad/abi_version" "5"
ca mlx5_0 0002c9030001
port mlx5_0 1 "4: ACTIVE" "5: LinkUp" "100 Gb/sec (4X EDR)" InfiniBand 0x2 0002:c903:0001:0002 0
port mlx5_0 2 "1: DOWN" "2: Polling" "10 Gb/sec (4X SDR)" InfiniBand 0x0 0002:c903:0001:0003 1
ca mlx5_1 0002c9030002
port mlx5_1 1 "4: ACTIVE" "5: LinkUp" "25 Gb/sec (1X EDR)" Ethernet 0x0 0202:c9ff:fe03:0002 2
