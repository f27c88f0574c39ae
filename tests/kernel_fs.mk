# umad kernel: programs of every kind on a simulated host through FUSE (the differential test, node_exporter, two hosts).
